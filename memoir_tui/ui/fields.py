"""Small rendering helpers shared by the review, audit and sync panes.

No widgets and no key bindings: a two-column "name · value" grid for detail
dialogs and status panels, home-relative paths (``PathNames``), audit times, file
stamps for watchers, and theme colours for Rich cells (a DataTable cell cannot use ``$variables``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from rich.color import Color, ColorParseError
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App

from memoir_tui.core import parse_iso_ms

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


class PathNames:
    """Paths as a person reads them: the home directory shown as ``~``.

    Also turns consolidate's location-independent references (``home:…``,
    ``store:…``) in titles back into readable paths.
    """

    def __init__(self, home: Path, store_root: Path | None = None) -> None:
        self.home = os.path.abspath(home)
        self.store_root = os.path.abspath(store_root) if store_root is not None else None

    def path(self, path: Path | str) -> str:
        full = os.path.abspath(path)
        if self.home != os.sep and (full == self.home or full.startswith(self.home + os.sep)):
            return "~" + full[len(self.home) :]
        return full

    def text(self, text: str) -> str:
        """``text`` with absolute paths under the home directory abbreviated."""
        text = _REF_RE.sub(self._ref, text)
        if self.home == os.sep:
            return text
        return text.replace(self.home + os.sep, "~" + os.sep)

    def _ref(self, match: re.Match[str]) -> str:
        root = self.home if match.group(1) == "home" else self.store_root
        return self.path(root) + "/" if root else match.group(0)


_REF_RE = re.compile(r"(?<![\w/:])(home|store):(?=[\w.])")


def audit_time(value: str) -> str:
    """``2026-07-01 09:00:01`` (UTC) for an ISO date-time; the raw text otherwise."""
    ms = parse_iso_ms(value)
    if ms is None:
        return value
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")
