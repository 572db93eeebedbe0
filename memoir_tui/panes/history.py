"""The history pane: every session summary recorded (``s``, ``memoir_resume``, a hook),
with its files and duration, per machine and project; filter as you type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memoir_tui.core import HistoryEntry, WorkingSet, parse_date_ms, plural, text_hash
from memoir_tui.dialogs.history import HistoryDetailScreen, minutes
from memoir_tui.panes.base import FilteredPane, PaneCommand
from memoir_tui.panes.windowed_list import ListView, WindowedList, list_bindings
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell, long_date
from memoir_tui.widgets.status_line import StatusLine

HISTORY_COLUMNS = (
    ColumnSpec("date", "Date", width=16),
    ColumnSpec("summary", "Summary", weight=4, min_width=16),
    ColumnSpec("files", "Files", width=5),
    ColumnSpec("minutes", "Min", width=5),
    ColumnSpec("machine", "Machine", width=12, min_table_width=80),
    ColumnSpec("project", "Project", width=24, min_table_width=96, fit=True),
)


def entry_key(entry: HistoryEntry) -> str:
    """A row key that two summaries of the same minute on two machines never share."""
    return text_hash(f"{entry.date}\n{entry.machine_id}\n{entry.summary}")


def history_row(entry: HistoryEntry) -> TableRow:
    return TableRow(
        entry_key(entry),
        (
            cell(long_date(entry.date).removesuffix(" UTC")),
            cell(entry.summary),
            cell(str(len(entry.files_touched)) if entry.files_touched else ""),
            cell(minutes(entry)),
            cell(entry.machine_label),
            cell(entry.project_label or "global"),
        ),
    )


HISTORY_SORT_KEYS: dict[str, Callable[[HistoryEntry], Any]] = {
    "date": lambda e: parse_date_ms(e.date),
    "summary": lambda e: e.summary.casefold(),
    "files": lambda e: len(e.files_touched),
    "minutes": lambda e: e.duration_min if e.duration_min is not None else -1.0,
    "machine": lambda e: e.machine_label.casefold(),
    "project": lambda e: (e.project_label or "global").casefold(),
}
"""Column key → what the rows are ordered by (``>``, ``<``, a header click)."""


class HistoryPane(WindowedList[HistoryEntry], FilteredPane):
    """What each working session did, newest first.

    A window of rows is drawn (a row below says how many more match: enter shows them);
    the filter runs off the UI thread (``panes/windowed_list.py``).

    | Key(s) | Description |
    | :- | :- |
    | enter | Open the summary in full (files touched, duration); on "N more", the next rows. |
    | / | Filter as you type (summary, files, machine, project). |
    | escape | Clear the filter. |
    | > | Sort by the next column (newest first, then each column); a header click sorts too. |
    | < | Reverse the order. |
    | E | Export the summaries the list shows (Markdown or JSON) to a file you name. |
    """

    PANE_ID = "history"
    SORT_KEYS = HISTORY_SORT_KEYS
    EXPORT_TITLE = "History"
    EXPORT_NAME = "~/memoir-history.md"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "filter",
            "Filter",
            tooltip="Filter as you type over summary, files, machine and project",
            id="history.filter",
        ),
        Binding(
            "enter",
            "detail",
            "Open",
            show=False,
            tooltip="Open the summary in full",
            id="history.detail",
        ),
        Binding(
            "escape",
            "clear_filter",
            "Clear filter",
            show=False,
            tooltip="Clear the filter",
            id="history.clear_filter",
        ),
        *list_bindings("history", rows="the summaries the list shows"),
    ]

    COMMANDS = (
        PaneCommand("filter", "filter", "Filter the session summaries", "history.filter"),
        PaneCommand("open summary", "detail", "Show a summary in full", "history.detail"),
        PaneCommand("sort", "sort_next", "Sort by the next column", "history.sort"),
        PaneCommand("reverse sort", "sort_reverse", "Reverse the order", "history.sort_reverse"),
        PaneCommand(
            "export…",
            "export",
            "Export the summaries the list shows (Markdown or JSON) to a file",
            "history.export",
        ),
    )
    HELP_WIDGETS = (FilterBar, ItemTable)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: tuple[HistoryEntry, ...] = ()
        self.filter_text = ""
        self.list_init()

    def compose(self) -> ComposeResult:
        yield FilterBar(
            "filter the history: summary, files, machine, project…", id="history-filter"
        )
        yield ItemTable(HISTORY_COLUMNS, id="history-table")
        yield StatusLine("", id="history-status")

    @property
    def table(self) -> ItemTable:
        return self.query_one("#history-table", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table)

    def show_state(self, ws: WorkingSet) -> None:
        self.entries = ws.history
        self._render_rows()

    # --- the list (panes/windowed_list.py) ------------------------------------------

    def list_source(self) -> tuple[HistoryEntry, ...]:
        return self.entries

    def row_key(self, row: HistoryEntry) -> str:
        return entry_key(row)

    def row_text(self, row: HistoryEntry) -> str:
        return "\n".join((row.summary, *row.files_touched, row.machine_label, row.project_label))

    def table_row(self, row: HistoryEntry) -> TableRow:
        return history_row(row)

    def list_columns(self) -> tuple[ColumnSpec, ...]:
        return HISTORY_COLUMNS

    def matching(self) -> list[HistoryEntry]:
        """The summaries the list shows, in its order (every one, not only the window)."""
        return list(self.view.rows) if self.view is not None else []

    def _render_rows(self) -> None:
        self.refresh_list()

    def list_drawn(self, view: ListView[HistoryEntry]) -> None:
        shown = view.rows
        self.filter_bar.set_count(len(shown), len(self.entries))
        total = sum(e.duration_min or 0 for e in shown)
        status = plural(len(self.entries), "session summary", "session summaries")
        if total:
            status += f" · {total:g} min in those shown"
        if sort := self.sort_note():
            status += f" · {sort}"
        if not self.entries:
            status = "No session summaries yet: s in the Working set records one"
        line = self.query_one("#history-status", StatusLine)
        if str(line.content) != status:
            line.update(status, layout=False)  # one line of a fixed size

    def selected(self) -> HistoryEntry | None:
        return self.selected_row()

    def show_item(self, table_id: str, text: str) -> None:
        """Put the cursor on the newest summary reading ``text`` (a search's jump)."""
        self.focus_now(self.table)
        rows = self.view.rows if self.view is not None else self.entries
        entry = next((e for e in rows if e.summary == text), None)
        if entry is None or not self.show_key(entry_key(entry)):
            self.app.notify("That summary is not shown here now.", severity="warning")

    @on(DataTable.RowSelected, "#history-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_detail()

    def action_detail(self) -> None:
        if self.page_if_marker():
            return
        entry = self.selected()
        if entry is not None:
            self.app.push_screen(HistoryDetailScreen(entry))
