"""Panes of the shell: one module per tab, the registry that lists them as data, and
the base every pane builds on. What a pane opens over itself is in ``dialogs/``."""
