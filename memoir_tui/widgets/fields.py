"""Small rendering helpers shared by the review, audit and sync panes.

No widgets and no key bindings: a two-column "name · value" grid for detail
dialogs and status panels, home-relative paths, file stamps for watchers, and
theme colours for Rich cells (a DataTable cell cannot use ``$variables``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from rich.color import Color, ColorParseError
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App

# Used when the theme does not define a variable or defines it as something Rich
# cannot parse (``auto 60%``).
_FALLBACK_COLOURS = {
    "text-warning": "yellow",
    "text-error": "red",
    "text-success": "green",
    "text-primary": "blue",
}


def home_relative(path: str) -> str:
    """``path`` with the home directory shown as ``~``; URLs and relative paths unchanged."""
    if not path or not os.path.isabs(path):
        return path
    home = Path(os.path.abspath(os.path.expanduser("~")))
    try:
        rest = Path(os.path.abspath(path)).relative_to(home)
    except ValueError:
        return path
    return "~" if str(rest) == "." else f"~/{rest}"


def field_grid(
    rows: Iterable[tuple[str, RenderableType]], *, key_width: int | None = None
) -> Table:
    """Names in bold on the left, values folding on the right; str values are never markup."""
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True, width=key_width)
    grid.add_column(ratio=1, overflow="fold")
    for name, value in rows:
        grid.add_row(name, Text(value) if isinstance(value, str) else value)
    return grid


def theme_colours(app: App[object]) -> dict[str, str]:
    """The current theme's text colours (``text-warning`` …) as Rich colour strings."""
    variables = app.get_css_variables()
    out: dict[str, str] = {}
    for name, fallback in _FALLBACK_COLOURS.items():
        value = variables.get(name, fallback)
        try:
            Color.parse(value)
        except ColorParseError:
            value = fallback
        out[name] = value
    return out
