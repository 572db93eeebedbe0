"""``WindowedList``: what every long list pane shares, so each keeps up at 10,000 rows.

A pane mixes it in (History, Decisions, Audit, Review) and gets:

* **a filter off the UI thread**: every word of the filter box, in any order, case
  and accents ignored, over the text the pane names per row (``row_text``, folded once
  per snapshot), plus the pane's own filters (``list_scope``: actor, project, state…).
  A filter runs in a worker (``LatestRead``): typing never waits for it and only the
  newest result is shown. A list with no filter and no order of its own is shown at once.
* **a window of rows**: ``LIST_ROWS`` are drawn, with a marker row above or below
  saying how many more match ("↓ 9,900 more: enter shows them · / narrows the list",
  ``item_table.marker_sentence``); enter on it shows the next window.
* **sort by any column**: ``>`` the next column (the list's own order, then each
  column in turn), ``<`` reverses, a click on a header sorts by it (again: reversed);
  the header shows ``▲``/``▼``. ``SORT_KEYS`` names what each column is ordered by.
* **export**: ``E`` writes exactly the rows the list shows, filtered and sorted, every
  one of them (not only the window), as Markdown or JSON to a file the person names
  (``core.export``, through ``dialogs.export.ExportScreen``).

The keys are declared by each pane (``list_bindings``), so a pane's help lists them
under its own name with its own binding ids; their meaning is the same everywhere:

| Key(s) | Description |
| :- | :- |
| / | Filter as you type (every word, any order; off the UI thread). |
| escape | Clear the filter. |
| > | Sort by the next column (the list's own order, then each column); a header click sorts too. |
| < | Reverse the order. |
| E | Export what the list shows, filtered and sorted (Markdown or JSON) to a file you name. |
| enter | On the "N more" row: show the next (or previous) window of rows. |
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from textual.binding import Binding
from textual.widgets import DataTable

from memoir_tui.core import folded
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import (
    AFTER_KEY,
    BEFORE_KEY,
    ColumnSpec,
    ItemTable,
    TableRow,
)

if TYPE_CHECKING:
    from memoir_tui.core import ExportTable

R = TypeVar("R")

LIST_ROWS = 100
"""Rows drawn at once; a marker row says how many more match. The filter reaches all."""
SYNC_ROWS = 1000
"""Up to this many rows, an order or a pane's own filter (no words typed) is applied at
once on the UI thread; past it, in the worker like a typed filter."""
SORT_ARROWS = {False: "▲", True: "▼"}


def fold_text(text: str) -> str:
    """``text`` folded as the filter folds its words (``core.items.folded``); ASCII needs no
    accent folding, so ``lower()`` is the same there and much cheaper."""
    return text.lower() if text.isascii() else folded(text)


def filter_rows(
    rows: Sequence[R],
    texts: Sequence[str] | None,
    needle: str,
    keep: Callable[[R], bool] | None,
) -> list[R]:
    """The rows whose folded text (``texts``, one per row) holds every word of ``needle``
    and that ``keep`` keeps. Pure: it runs in the worker."""
    words = folded(needle).split()
    if words:
        assert texts is not None
        chosen = [r for r, t in zip(rows, texts, strict=True) if all(w in t for w in words)]
    else:
        chosen = list(rows)
    if keep is not None:
        chosen = [r for r in chosen if keep(r)]
    return chosen


def order_rows(rows: Sequence[R], key: Callable[[R], Any] | None, reverse: bool) -> Sequence[R]:
    """``rows`` by ``key`` (a stable sort; None: as given), either way."""
    if key is None:
        return rows[::-1] if reverse else rows
    return sorted(rows, key=key, reverse=reverse)


def next_in(current: str | None, columns: Sequence[str]) -> str | None:
    """The column after ``current``: the list's own order → each column → its own order."""
    if current not in columns:
        return columns[0] if columns else None
    index = columns.index(current) + 1
    return columns[index] if index < len(columns) else None


def sorted_columns(
    columns: Sequence[ColumnSpec], column: str | None, reverse: bool
) -> tuple[ColumnSpec, ...]:
    """The columns with the sort column's label showing its direction."""
    if column is None:
        return tuple(columns)
    return tuple(
        replace(c, label=f"{c.label} {SORT_ARROWS[reverse]}".strip()) if c.key == column else c
        for c in columns
    )


def list_bindings(pane: str, *, rows: str = "the list shows") -> list[Binding]:
    """The sort and export keys of a list pane, with that pane's binding ids."""
    return [
        Binding(
            "greater_than_sign",
            "sort_next",
            "Sort",
            show=False,
            tooltip="Sort by the next column: the list's own order, then each column in turn",
            id=f"{pane}.sort",
        ),
        Binding(
            "less_than_sign",
            "sort_reverse",
            "Reverse sort",
            show=False,
            tooltip="Reverse the order of the list",
            id=f"{pane}.sort_reverse",
        ),
        Binding(
            "E",
            "export",
            "Export",
            show=False,
            tooltip=f"Export what {rows} (Markdown or JSON) to a file you name",
            id=f"{pane}.export",
        ),
    ]


@dataclass(frozen=True, slots=True)
class ListView(Generic[R]):
    """What the list shows for one filter, scope and order: every row, in order."""

    rows: tuple[R, ...]
    needle: str = ""
    scope: Hashable = ()
    column: str | None = None
    reverse: bool = False
    total: int = 0
    """Rows before the filters (the count's "of N")."""

    @property
    def shape(self) -> tuple[object, ...]:
        """What, when it changes, starts the window at the top again."""
        return (self.needle, self.scope, self.column, self.reverse)


class WindowedList(Generic[R]):
    """The shared list machinery; see the module's docstring. Mixed into a ``Pane`` (a
    Widget with ``table``, ``filter_bar`` and ``filter_text``); ``list_init`` in its
    ``__init__``. A pane names its rows (``list_source``, ``row_key``, ``row_text``,
    ``table_row``, ``list_columns``) and says what else to redraw (``list_drawn``)."""

    LIST_ROWS: ClassVar[int] = LIST_ROWS
    SORT_KEYS: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}
    EXPORT_TITLE: ClassVar[str] = "List"
    EXPORT_NAME: ClassVar[str] = "~/memoir-list.md"
    PANE_ID: ClassVar[str]

    filter_text: str
    table: ItemTable
    app: Any

    # --- what a pane gives -----------------------------------------------------------

    def list_source(self) -> Sequence[R]:
        """Every row before the filters, in the list's own order. Return the same object
        while nothing changed: the folded texts are kept per source."""
        raise NotImplementedError

    def list_scope(self) -> tuple[Hashable, Callable[[R], bool] | None]:
        """The pane's own filters: what identifies them, and the predicate (None: none).
        The predicate runs in the worker: it must only read values it closed over."""
        return (), None

    def row_key(self, row: R) -> str:
        raise NotImplementedError

    def row_text(self, row: R) -> str:
        """What the filter searches in ``row`` (pure; run off the UI thread)."""
        raise NotImplementedError

    def table_row(self, row: R) -> TableRow:
        raise NotImplementedError

    def list_columns(self) -> tuple[ColumnSpec, ...]:
        raise NotImplementedError

    def sort_key(self, column: str | None) -> Callable[[R], Any] | None:
        """What ``column`` orders the rows by (``SORT_KEYS``; a pane may close over what it
        knows on the UI thread, such as project labels). Run in the worker."""
        return self.SORT_KEYS.get(column or "")

    def list_drawn(self, view: ListView[R]) -> None:
        """After a window is drawn: counts and status lines."""

    def export_cells(self, row: R) -> tuple[str, ...]:
        """A row's cells as text, for the export (by default what the table shows)."""
        return tuple(str(c) for c in self.table_row(row).cells)

    def export_note(self) -> list[str]:
        """The pane's own filters, named in the export ("actor: cli")."""
        return []

    def export_table(self, rows: Sequence[R], note: str) -> ExportTable:
        from memoir_tui.core import ExportTable

        columns = self.list_columns()
        wanted = [i for i, c in enumerate(columns) if c.label.strip()]
        cells = (self.export_cells(r) for r in rows)
        return ExportTable(
            self.EXPORT_TITLE,
            tuple((columns[i].key, columns[i].label) for i in wanted),
            tuple(tuple(c[i] for i in wanted) for c in cells),
            note,
        )

    # --- state -----------------------------------------------------------------------

    def list_init(self) -> None:
        self.view: ListView[R] | None = None
        """What the list shows now (every match; a window of it is drawn)."""
        self.window_start = 0
        """Where the window of ``LIST_ROWS`` drawn rows starts in ``view.rows``."""
        self.sort_column: str | None = None  # None: the list's own order
        self.sort_reverse = False
        self._by_key: dict[str, R] = {}
        self._texts: tuple[Sequence[R], tuple[str, ...]] | None = None
        self._wanted_key: str | None = None
        self._views: LatestRead[ListView[R]] = LatestRead(
            self,  # type: ignore[arg-type]  # mixed into a Widget
            f"{self.PANE_ID}-filter",
            self._land_view,
        )

    @property
    def filtering(self) -> bool:
        """True while a filter result is on its way (the list shows the one before)."""
        return self._views.pending

    # --- filtering -----------------------------------------------------------------

    def refresh_list(self) -> None:
        """Show the rows for the current filters and order: at once when there is
        nothing to do or little to do it over, else from a worker (the newest wins)."""
        source = self.list_source()
        needle = self.filter_text.strip()
        scope, keep = self.list_scope()
        column, reverse = self.sort_column, self.sort_reverse
        key = self.sort_key(column)

        def view_of(rows: Sequence[R]) -> ListView[R]:
            return ListView(tuple(rows), needle, scope, column, reverse, len(source))

        if not needle and (
            (keep is None and key is None and not reverse) or len(source) <= SYNC_ROWS
        ):
            self._views.supersede()  # a filter still on its way must not land over this
            self._land_view(view_of(order_rows(filter_rows(source, None, "", keep), key, reverse)))
            return
        known = self._texts
        texts = known[1] if known is not None and known[0] is source else None
        row_text = self.row_text

        def read() -> ListView[R]:
            nonlocal texts
            if needle and texts is None:
                texts = tuple(fold_text(row_text(r)) for r in source)
                self._texts = (source, texts)  # one snapshot's texts serve every key
            return view_of(order_rows(filter_rows(source, texts, needle, keep), key, reverse))

        self._views.start(read)

    def _land_view(self, view: ListView[R]) -> None:
        previous = self.view
        if previous is None or previous.shape != view.shape:
            self.window_start = 0  # a new filter or order starts at the top
        self.view = view
        self.draw_window()
        wanted, self._wanted_key = self._wanted_key, None
        if wanted is not None:
            self.show_key(wanted)
        self._prepare_texts()

    def _prepare_texts(self) -> None:
        """Fold a long list's texts in a thread once it is shown, so the first key typed
        in the filter only scans them (a list of ``SYNC_ROWS`` or fewer folds on demand)."""
        source = self.list_source()
        known = self._texts
        if len(source) <= SYNC_ROWS or (known is not None and known[0] is source):
            return
        row_text = self.row_text

        def fold() -> None:
            texts = tuple(fold_text(row_text(r)) for r in source)
            if self.list_source() is source:  # still the rows shown: keep them
                self._texts = (source, texts)

        owner: Any = self
        owner.run_worker(
            fold,
            name=f"{self.PANE_ID}-fold",
            group=f"{self.PANE_ID}-fold",
            thread=True,
            exit_on_error=False,
        )

    # --- drawing -------------------------------------------------------------------

    def draw_window(self) -> None:
        view = self.view
        if view is None:
            return
        rows = view.rows
        size = self.LIST_ROWS
        start = min(self.window_start, max(len(rows) - 1, 0))
        start -= start % size
        self.window_start = start
        window = rows[start : start + size]
        self._by_key = {self.row_key(r): r for r in window}
        table = self.table
        columns = sorted_columns(self.list_columns(), self.sort_column, self.sort_reverse)
        if table.column_specs != columns:
            table.set_columns(columns)
        table.set_rows(
            [self.table_row(r) for r in window],
            before=start,
            after=len(rows) - start - len(window),
        )
        self.list_drawn(view)

    def page_if_marker(self) -> bool:
        """Enter on a marker row shows the window above or below it: True if it did."""
        marker = self.table.marker_under_cursor
        if marker not in (BEFORE_KEY, AFTER_KEY):
            return False
        step = -self.LIST_ROWS if marker == BEFORE_KEY else self.LIST_ROWS
        self.window_start = max(self.window_start + step, 0)
        self.draw_window()
        keys = self.table.row_keys
        if keys:
            self.table.move_to_key(keys[-1] if marker == BEFORE_KEY else keys[0])
        return True

    def selected_row(self) -> R | None:
        key = self.table.cursor_key
        return self._by_key.get(key) if key else None

    def show_key(self, key: str) -> bool:
        """Put the cursor on the row with ``key``, drawing its window if it lies outside
        the one drawn; once the list has landed if a read is on its way."""
        view = self.view
        if view is None or self.filtering:
            self._wanted_key = key
            return True
        if key not in self._by_key:
            at = next((i for i, r in enumerate(view.rows) if self.row_key(r) == key), None)
            if at is None:
                return False
            self.window_start = at
            self.draw_window()
        return self.table.move_to_key(key)

    # --- sorting ---------------------------------------------------------------------

    def action_sort_next(self) -> None:
        shown = [c.key for c in self.table.shown_specs()] or [c.key for c in self.list_columns()]
        self.sort_by(next_in(self.sort_column, [k for k in shown if k in self.SORT_KEYS]))

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self.refresh_list()

    def sort_by(self, column: str | None, *, reverse: bool | None = None) -> None:
        """Order the list by ``column`` (None: the list's own order)."""
        self.sort_column = column if column in self.SORT_KEYS else None
        if reverse is not None:
            self.sort_reverse = reverse
        self.refresh_list()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        # A click on a column's header sorts by it; a second click reverses.
        if event.data_table is not self.table:
            return
        event.stop()
        column = str(event.column_key.value)
        if column not in self.SORT_KEYS:
            return
        if column == self.sort_column:
            self.action_sort_reverse()
        else:
            self.sort_by(column, reverse=False)

    def sort_note(self) -> str:
        """``sorted by date (reversed)`` for the status line; "" in the list's own order."""
        if self.sort_column is None and not self.sort_reverse:
            return ""
        note = f"sorted by {self.sort_column or 'own order'}"
        return note + (" (reversed)" if self.sort_reverse else "")

    # --- export ------------------------------------------------------------------------

    def action_export(self) -> None:
        from memoir_tui.dialogs.export import ExportScreen

        view = self.view
        rows = view.rows if view is not None else ()
        needle = view.needle if view is not None else ""
        parts = [f"filter: {needle!r}"] if needle else []
        parts += self.export_note()
        if self.sort_column or self.sort_reverse:
            direction = "reversed" if self.sort_reverse else "ascending"
            parts.append(f"sorted by {self.sort_column or 'own order'} ({direction})")
        table = self.export_table(rows, " · ".join(parts))
        self.app.push_screen(ExportScreen(table, name=self.EXPORT_NAME))
