"""Modal screens: every dialog a pane or the shell opens (``base`` is what they share)."""
