"""Reusable widgets, and only widgets: keyed tables, filter box, banners, bars, diff view."""
