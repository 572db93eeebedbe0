"""Reusable widgets: keyed tables, filter box, header bar, dialogs."""
