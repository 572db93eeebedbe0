"""The history dialog: one past item in full, opened from the History pane."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType

from memoir_tui.core import HistoryEntry
from memoir_tui.dialogs.base import DetailScreen
from memoir_tui.widgets.item_table import long_date


def minutes(entry: HistoryEntry) -> str:
    if entry.duration_min is None:
        return ""
    value = entry.duration_min
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def history_details(entry: HistoryEntry) -> RenderableType:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("Summary", Text(entry.summary))
    grid.add_row("Date", Text(long_date(entry.date) or "—"))
    grid.add_row("Duration", Text(f"{minutes(entry)} min" if minutes(entry) else "—"))
    grid.add_row("Machine", Text(entry.machine_label or entry.machine_id or "—"))
    grid.add_row("Project", Text(entry.project_label or "global"))
    files = "\n".join(entry.files_touched) or "—"
    grid.add_row("Files touched", Text(files))
    return grid


class HistoryDetailScreen(DetailScreen):
    """A session summary in full (read-only).

    | Key(s) | Description |
    | :- | :- |
    | escape, enter, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="history_detail.close"),
    ]

    def __init__(self, entry: HistoryEntry) -> None:
        super().__init__()
        self.entry = entry

    def detail_title(self) -> str:
        return "Session summary"

    def detail_body(self) -> RenderableType:
        return history_details(self.entry)
