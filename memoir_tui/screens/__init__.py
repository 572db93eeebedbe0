"""Panes of the shell (one module per pane) and the dialogs they open."""
