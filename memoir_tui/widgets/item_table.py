"""``ItemTable``: a row-cursor DataTable keyed by item identity.

Rows are replaced wholesale with :meth:`ItemTable.set_rows`; the cursor stays
on the same row *key* (an item's identity or a decision's key) across
reloads, and falls back to the same position when that row is gone (hidden,
completed, changed by another process). Flexible columns share whatever width
the table has, so long text is cut with an ellipsis instead of scrolling.

A long list is given one window of rows at a time (``before``/``after``): the
table draws only those, between marker rows that say how many are above and
below ("↓ 9,900 more · enter shows the next 100 · / narrows"). DataTable
measures every cell it is given, so 10,000 rows cost seconds to add; a window
of a hundred costs milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

from rich.cells import cell_len
from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Resize, Show
from textual.widgets import DataTable

from memoir_tui.core import parse_date_ms


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One column: a fixed ``width``, or ``None`` to share the leftover width by ``weight``.

    A column with ``min_table_width`` is left out while the table is narrower. A ``fit``
    column is as wide as its widest cell (or its label), ``width`` at most: a Project
    column takes what its labels need, not a fixed share.
    """

    key: str
    label: str
    width: int | None = None
    weight: int = 1
    min_width: int = 6
    min_table_width: int = 0
    fit: bool = False


@dataclass(frozen=True, slots=True)
class TableRow:
    key: str
    cells: tuple[RenderableType, ...]


def cell(value: str, style: str = "") -> Text:
    """A cell that never interprets markup and ends in an ellipsis when cut."""
    return Text(value, style=style, no_wrap=True, overflow="ellipsis", end="")


def long_date(value: str) -> str:
    """``2026-06-18 16:55 UTC`` for an ISO date-time; the raw text if it is not a date."""
    ms = parse_date_ms(value)
    if not ms:
        return value
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def _signature(rows: Sequence[TableRow]) -> list[tuple[str, tuple[str, ...]]]:
    return [(r.key, tuple(str(c) for c in r.cells)) for r in rows]


BEFORE_KEY = "\x00before"
"""The key of the marker row above a window of rows (never an item's key)."""
AFTER_KEY = "\x00after"
"""The key of the marker row below a window of rows."""
MARKER_KEYS = frozenset({BEFORE_KEY, AFTER_KEY})


def marker_sentence(key: str, count: int) -> str:
    """What the marker row above (``BEFORE_KEY``) or below a window says."""
    if key == BEFORE_KEY:
        return f"↑ {count:,} above: enter shows them · / narrows the list"
    return f"↓ {count:,} more: enter shows them · / narrows the list"


def marker_cells(key: str, count: int, widths: list[int]) -> list[str]:
    """The marker's sentence laid word by word across cells of ``widths``, so it reads
    whole however narrow the columns are (a word never cut inside a cell)."""
    cells: list[str] = []
    words = marker_sentence(key, count).split(" ")
    for width in widths:
        line = ""
        while words and len(f"{line} {words[0]}".strip()) <= width:
            line = f"{line} {words.pop(0)}".strip()
        if not line and words:  # a word longer than the cell: cut it there
            line = words.pop(0)
        cells.append(line)
    return cells


class ItemTable(DataTable[RenderableType], inherit_bindings=False):
    """A keyed, row-cursor table used by every pane.

    | Key(s) | Description |
    | :- | :- |
    | up, k | Move the cursor up. |
    | down, j | Move the cursor down. |
    | home, g | Go to the first row. |
    | end, G | Go to the last row. |
    | pageup | Move one page up. |
    | pagedown | Move one page down. |
    | enter | Open the row under the cursor (posts `RowSelected`). |
    """

    HELP_TITLE: ClassVar[str] = "Lists"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, tooltip="Move up", id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, tooltip="Move down", id="table.down"),
        Binding(
            "home,g", "first_row", "First row", show=False, tooltip="First row", id="table.first"
        ),
        Binding("end,G", "last_row", "Last row", show=False, tooltip="Last row", id="table.last"),
        Binding(
            "pageup", "page_up", "Page up", show=False, tooltip="One page up", id="table.page_up"
        ),
        Binding(
            "pagedown",
            "page_down",
            "Page down",
            show=False,
            tooltip="One page down",
            id="table.page_down",
        ),
        Binding(
            "enter",
            "select_cursor",
            "Open",
            show=False,
            tooltip="Open the row under the cursor",
            id="table.open",
        ),
    ]

    DEFAULT_CSS = """
    ItemTable {
        height: 1fr;
        scrollbar-size-vertical: 1;
        overflow-x: hidden;
    }
    ItemTable:blur > .datatable--cursor {
        background: $surface-lighten-1;
    }
    """

    def __init__(
        self,
        columns: Sequence[ColumnSpec],
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(
            name=name,
            id=id,
            classes=classes,
            cursor_type="row",
            zebra_stripes=True,
            show_row_labels=False,
        )
        self._specs: tuple[ColumnSpec, ...] = tuple(columns)
        self._rows: tuple[TableRow, ...] = ()
        self._before = 0  # rows of the list above the window drawn (a marker row says so)
        self._after = 0  # and below it
        self._laid_out_width = -1
        self._laid_out_widths: list[int] = []
        self._stale = False  # rows given that are not drawn yet (a hidden tab)
        self._wanted_key: str | None = None
        self._title: str | None = None

    # --- what the table shows ------------------------------------------------

    @property
    def column_specs(self) -> tuple[ColumnSpec, ...]:
        return self._specs

    @property
    def row_keys(self) -> list[str]:
        """The keys of the rows given (the window of a long list; never a marker row)."""
        return [row.key for row in self._rows]

    @property
    def before(self) -> int:
        """How many rows of the list are above the window drawn."""
        return self._before

    @property
    def after(self) -> int:
        """How many rows of the list are below the window drawn ("N more")."""
        return self._after

    @property
    def marker_under_cursor(self) -> str | None:
        """``BEFORE_KEY`` or ``AFTER_KEY`` when the cursor is on a marker row, else None."""
        if self._stale or self.row_count == 0:
            return None
        index = min(max(self.cursor_row, 0), self.row_count - 1)
        key = self.ordered_rows[index].key.value
        return key if key in MARKER_KEYS else None

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor; None when the table is empty or the
        cursor is on a marker row ("N more")."""
        if not self._rows:
            return None
        keys = self.row_keys
        if self._stale or self.row_count == 0:  # given but not drawn yet (e.g. a hidden tab)
            if self._wanted_key in keys:
                return self._wanted_key
            if self.row_count:  # the row drawn under the cursor, if it is still there
                drawn = self.ordered_rows[min(max(self.cursor_row, 0), self.row_count - 1)]
                if drawn.key.value in keys:
                    return drawn.key.value
            return keys[0]
        index = min(max(self.cursor_row, 0), self.row_count - 1)
        key = self.ordered_rows[index].key.value
        return None if key in MARKER_KEYS else key

    def set_columns(self, columns: Sequence[ColumnSpec]) -> None:
        """Replace the column set (e.g. to add a column); rows must be set again."""
        self._specs = tuple(columns)
        self._laid_out_width = -1

    @property
    def title(self) -> str | None:
        """What the table calls itself in its first column's label (``"Goals · 3"``)."""
        return self._title

    def set_rows(
        self,
        rows: Sequence[TableRow],
        *,
        title: str | None = None,
        before: int = 0,
        after: int = 0,
    ) -> None:
        """Show ``rows``, keeping the cursor on the same key (or position).

        ``title`` replaces the first column's label, so a table can name itself
        (``"Goals · 3"``) without a separate title line. ``before`` and ``after``
        say how many rows of a longer list lie outside ``rows``: a marker row
        above and below says so (its key is ``BEFORE_KEY``/``AFTER_KEY``).
        """
        rows = tuple(rows)
        relabel = title is not None and title != self._title
        unchanged_layout = self._laid_out_width == self._available_width()
        if (
            not relabel
            and unchanged_layout
            and not self._stale
            and (before, after) == (self._before, self._after)
            and _signature(rows) == _signature(self._rows)
        ):
            return  # a reload that changed nothing here: keep the table as it is
        self._rows = rows
        self._before, self._after = max(before, 0), max(after, 0)
        if relabel:
            self._title = title
            self._laid_out_width = -1  # relabel the header
        self._rebuild()

    def move_to_key(self, key: str) -> bool:
        """Put the cursor on the row with ``key`` (now, or once the table is laid out)."""
        keys = self.row_keys
        if key not in keys:
            return False
        if self.row_count == 0 or self._stale:
            self._wanted_key = key
        else:
            self.move_cursor(row=self._drawn_index(keys.index(key)), animate=False)
        return True

    def _drawn_index(self, index: int) -> int:
        """The table row of ``row_keys[index]`` (below the marker row, if there is one)."""
        return index + (1 if self._before else 0)

    # --- layout ----------------------------------------------------------------

    def _available_width(self) -> int:
        return max(self.size.width - 1, 0)  # keep a column for the scrollbar

    def shown_specs(self) -> tuple[ColumnSpec, ...]:
        """The columns that fit the table's current width."""
        width = self._available_width()
        return tuple(s for s in self._specs if width >= s.min_table_width)

    def _fitted(self, spec: ColumnSpec) -> int | None:
        if not spec.fit or spec.width is None:
            return spec.width
        index = self._specs.index(spec)
        widest = max(
            (cell_len(str(row.cells[index])) for row in self._rows if index < len(row.cells)),
            default=0,
        )
        return min(spec.width, max(widest, len(spec.label), 1))

    def _widths(self, specs: tuple[ColumnSpec, ...]) -> list[int]:
        padding = 2 * self.cell_padding * len(specs)
        fitted = [self._fitted(s) for s in specs]
        fixed = sum(w for w in fitted if w is not None)
        flexible = [s for s in specs if s.width is None]
        spare = max(self._available_width() - padding - fixed, 0)
        total_weight = sum(s.weight for s in flexible) or 1
        widths: list[int] = []
        given = 0
        for spec, fit in zip(specs, fitted, strict=True):
            if fit is not None:
                widths.append(fit)
                continue
            share = max(spare * spec.weight // total_weight, spec.min_width)
            widths.append(share)
            given += share
        # Hand the rounding remainder to the first flexible column.
        if flexible and given < spare:
            first = next(i for i, s in enumerate(specs) if s.width is None)
            widths[first] += spare - given
        return widths

    @property
    def drawn_up_to_date(self) -> bool:
        """Whether the rows on screen are exactly the rows last given."""
        return not self._stale

    def _rebuild(self) -> None:
        if not self.size.width:
            # Not laid out yet, or in a hidden tab (zero width): the rows are kept,
            # and drawn on the next Resize or Show, whatever the width is then.
            self._stale = True
            return
        keep_key = self.cursor_key
        keep_row = self.cursor_row
        self._wanted_key = None
        width = self._available_width()
        specs = self.shown_specs()
        widths = self._widths(specs)
        if (
            width != self._laid_out_width
            or widths != self._laid_out_widths
            or [c.value for c in self.columns] != [s.key for s in specs]
        ):
            self.clear(columns=True)
            self._laid_out_widths = widths
            for index, (spec, w) in enumerate(zip(specs, widths, strict=True)):
                label = self._title if index == 0 and self._title is not None else spec.label
                self.add_column(
                    Text(label, style="bold" if index == 0 else ""), width=w, key=spec.key
                )
            self._laid_out_width = width
        else:
            self.clear()
        shown = [i for i, spec in enumerate(self._specs) if spec in specs]
        if self._before:
            self._add_marker(BEFORE_KEY, self._before, self._laid_out_widths)
        for row in self._rows:
            self.add_row(*(row.cells[i] for i in shown), key=row.key)
        if self._after:
            self._add_marker(AFTER_KEY, self._after, self._laid_out_widths)
        self._stale = False
        if not self._rows:
            return
        keys = self.row_keys
        if keep_key in keys:
            target = self._drawn_index(keys.index(keep_key))
        else:
            target = min(keep_row, self.row_count - 1)
        self.move_cursor(row=max(target, 0), animate=False)

    def _add_marker(self, key: str, count: int, widths: list[int]) -> None:
        self.add_row(*(cell(t, "italic") for t in marker_cells(key, count, widths)), key=key)

    def on_resize(self, event: Resize) -> None:
        if self._available_width() != self._laid_out_width or not self.drawn_up_to_date:
            self._rebuild()

    def on_show(self, event: Show) -> None:
        # A tab shown again may keep its width: rows given while it was hidden
        # must still be drawn (a Resize alone would not come).
        if not self.drawn_up_to_date:
            self._rebuild()

    # --- actions -----------------------------------------------------------------

    def action_first_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=0, animate=False)

    def action_last_row(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)
