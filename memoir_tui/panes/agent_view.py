"""The agent-view pane: what each host loads when a session starts, and what it never reads.

One row per host (Claude Code, Codex, Gemini CLI, Cursor, Windsurf) with what
it loads and how much falls past a limit; below, the exact text of the
selected host, source by source, each under a budget meter, with the lines
past a limit marked. ``enter`` on a line goes where it can be trimmed: a line
of the brief to its item in the Working set or Decisions pane, a line of a
file to that file in ``$EDITOR`` (through the store's door). Reading files
runs in a thread worker (``LatestRead``); the pane reads again whenever the
session or any entry file changes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memoir_tui.core import (
    BRIEF,
    HostView,
    LoadedSource,
    WorkingSet,
    agent_views,
    project_dir,
    shown_path,
)
from memoir_tui.panes.base import Pane, PaneCommand
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.ui.store_watch import EntriesChanged
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.status_line import StatusLine

HOST_COLUMNS = (
    ColumnSpec("host", "Host", width=13),
    ColumnSpec("loads", "Loads at start", weight=1, min_width=16),
    ColumnSpec("size", "Chars", width=9),
    ColumnSpec("cut", "Past a limit", width=22),
)
LINE_COLUMNS = (
    ColumnSpec("where", "Source", width=26),
    ColumnSpec("line", "Line", weight=1, min_width=20),
)
MAX_LINES_SHOWN = 2_000  # per source; the rest is counted on one row
CUT_STYLE = "bold red"

# The brief's lists, and the pane (and list) where each item lives.
BRIEF_LISTS = {
    "goals": ("working-set", "goals"),
    "next actions": ("working-set", "next-actions"),
    "open questions": ("working-set", "questions"),
    "decisions": ("decisions", ""),
}


@dataclass(frozen=True, slots=True)
class Views:
    hosts: tuple[HostView, ...]
    project: Path | None
    error: str = ""


def host_row(view: HostView) -> TableRow:
    files = sum(1 for s in view.sources if s.kind != BRIEF)
    loads = " + ".join(
        part
        for part in (
            "brief" if any(s.kind == BRIEF for s in view.sources) else "",
            f"{files} file{'s' if files != 1 else ''}" if files else "",
        )
        if part
    )
    cut = [s for s in view.sources if s.cut]
    cut_text = (
        ", ".join(f"{s.cut_lines} line(s) of {Path(s.path).name or s.label}" for s in cut)
        if cut
        else "—"
    )
    return TableRow(
        view.host,
        (
            cell(view.label, "bold"),
            cell(loads or "nothing", "" if loads else "dim"),
            cell(f"{view.chars:,}"),
            cell(cut_text, CUT_STYLE if cut else "dim"),
        ),
    )


def source_rows(index: int, source: LoadedSource) -> list[TableRow]:
    meter = source.meter()
    if source.limit is not None:
        share = min(1.0, source.used / source.limit) if source.limit else 1.0
        filled = round(share * 10)
        meter = "█" * filled + "░" * (10 - filled) + " " + meter
    if source.note:
        meter += f" ({source.note})"
    if source.cut:
        meter += f" · {source.cut_lines} line(s) past the limit"
    rows = [
        TableRow(
            f"s:{index}",
            (cell(source.label, "bold"), cell(meter, CUT_STYLE if source.cut else "dim")),
        )
    ]
    offset = 0
    lines = source.text.splitlines(keepends=True)
    for number, line in enumerate(lines[:MAX_LINES_SHOWN], start=1):
        # A line the host reads only part of is past the limit too: its end is never read.
        past = offset + len(line.rstrip("\r\n")) > source.kept_chars
        offset += len(line)
        rows.append(
            TableRow(
                f"l:{index}:{number}",
                (
                    cell(
                        f"{number:>5}" + ("  past limit" if past else ""),
                        CUT_STYLE if past else "dim",
                    ),
                    cell(line.rstrip("\r\n") or " ", CUT_STYLE if past else ""),
                ),
            )
        )
    if len(lines) > MAX_LINES_SHOWN:
        rows.append(
            TableRow(
                f"m:{index}",
                (cell("", ""), cell(f"… {len(lines) - MAX_LINES_SHOWN:,} more lines", "dim")),
            )
        )
    return rows


class AgentViewPane(Pane):
    """What each agent will see at the start of a session, with what falls past a limit.

    | Key(s) | Description |
    | :- | :- |
    | enter | On a host: show its text. On a line: go where it is trimmed (the item, or the file in `$EDITOR`). |
    | r | Read every host's files again. |
    """

    PANE_ID = "agent-view"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "refresh",
            "Refresh",
            tooltip="Read every host's files again",
            id="agent_view.refresh",
        ),
    ]
    COMMANDS = (
        PaneCommand("refresh", "refresh", "Read every host's files again", "agent_view.refresh"),
        PaneCommand("open line", "open_line", "Go where the selected line can be trimmed"),
    )
    HELP_WIDGETS = (ItemTable,)

    DEFAULT_CSS = """
    AgentViewPane > #agent-hosts {
        height: auto;
        max-height: 9;
    }
    AgentViewPane > #agent-lines {
        height: 1fr;
        border-top: hkey $panel;
    }
    AgentViewPane > #agent-status {
        height: 1;
    }
    """

    def __init__(self, *, id: str | None = None, home: Path | None = None) -> None:
        super().__init__(id=id)
        self._home = home
        self.views: Views | None = None
        self._reads: LatestRead[Views] = LatestRead(self, "agent-view", self._loaded)

    def compose(self) -> ComposeResult:
        yield ItemTable(HOST_COLUMNS, id="agent-hosts")
        yield ItemTable(LINE_COLUMNS, id="agent-lines")
        yield StatusLine("Reading what each host loads…", id="agent-status")

    @property
    def home(self) -> Path:
        return self._home if self._home is not None else Path.home()

    @property
    def table(self) -> ItemTable:
        """The pane's first list (the hosts), where the focus goes."""
        return self.hosts_table

    @property
    def hosts_table(self) -> ItemTable:
        return self.query_one("#agent-hosts", ItemTable)

    @property
    def lines_table(self) -> ItemTable:
        return self.query_one("#agent-lines", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.hosts_table)
        if self.views is None:
            self.reload()

    def show_state(self, ws: WorkingSet) -> None:
        if self.views is not None:
            self.reload()  # the brief follows the working set

    @on(EntriesChanged)
    def _entries_changed(self, message: EntriesChanged) -> None:
        if self.views is not None:
            self.reload()

    def reload(self) -> None:
        store, home, env = self.host.store, self.home, dict(os.environ)

        def read() -> Views:
            project = project_dir(Path.cwd()) if store.scoped else None
            try:
                return Views(
                    tuple(agent_views(store, home=home, env=env, project=project)), project
                )
            except OSError as err:
                return Views((), project, str(err))

        self._reads.start(read)

    def _loaded(self, views: Views) -> None:
        self.views = views
        self.hosts_table.set_rows(
            [host_row(v) for v in views.hosts], title=f"Host · {len(views.hosts)}"
        )
        self._show_host()

    def selected_view(self) -> HostView | None:
        key = self.hosts_table.cursor_key
        if self.views is None or key is None:
            return None
        return next((v for v in self.views.hosts if v.host == key), None)

    def _show_host(self) -> None:
        view = self.selected_view()
        status = self.query_one("#agent-status", StatusLine)
        if self.views is not None and self.views.error:
            status.update(f"Cannot read: {self.views.error}")
        if view is None:
            self.lines_table.set_rows([], title="Nothing loaded")
            return
        rows: list[TableRow] = []
        for index, source in enumerate(view.sources):
            rows += source_rows(index, source)
        self.lines_table.set_rows(rows, title=f"{view.label} · {view.chars:,}")
        said = [*view.notes]
        if not view.sources:
            said.insert(0, f"{view.label} loads nothing from this machine at session start")
        cut = view.cut
        if cut:
            said.insert(0, f"{cut} source(s) run past a limit: the lines in red are never read")
        views = self.views
        where = "Outside any project"
        if views is not None and views.project:
            state, scope = getattr(self.app, "state", None), self.app.store.project
            label = state.project_labels.get(scope, "") if state is not None and scope else ""
            path = shown_path(views.project, self.home)
            where = f"In {label} ({path})" if label else f"In {path}"
        said.insert(0, f"{where}, {view.label} starts with {view.chars:,} chars")
        said.append("enter on a line goes where it is trimmed")
        status.update(" · ".join(said))

    @on(DataTable.RowHighlighted, "#agent-hosts")
    def _host_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_host()

    @on(DataTable.RowSelected, "#agent-hosts")
    def _host_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.focus_now(self.lines_table)

    @on(DataTable.RowSelected, "#agent-lines")
    def _line_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_line()

    def action_refresh(self) -> None:
        self.reload()

    def _selected_line(self) -> tuple[LoadedSource, int | None] | None:
        view = self.selected_view()
        key = self.lines_table.cursor_key
        if view is None or key is None:
            return None
        parts = key.split(":")
        source = view.sources[int(parts[1])]
        return source, int(parts[2]) if parts[0] == "l" else None

    def action_open_line(self) -> None:
        chosen = self._selected_line()
        if chosen is None:
            self.app.notify("No line is selected.", severity="warning")
            return
        source, number = chosen
        if source.kind == BRIEF:
            self._go_to_item(source, number)
            return
        from memoir_tui.ui.entry_document import open_in_editor

        if open_in_editor(self.app, self.host.store, source.path):
            self.reload()

    def _go_to_item(self, source: LoadedSource, number: int | None) -> None:
        lines = source.text.splitlines()
        line = lines[number - 1] if number is not None and 0 < number <= len(lines) else ""
        ref = next((r for r in source.refs if r[0] == line), None)
        if ref is None:
            self.app.notify(
                "This line of the brief is not an item; the brief is made from the working set.",
                severity="warning",
            )
            return
        _, list_name, text = ref
        pane_id, table_id = BRIEF_LISTS[list_name]

        async def go() -> None:
            await self.app.run_action(f"show_pane('{pane_id}')")
            pane = self.app.pane(pane_id)  # type: ignore[attr-defined]
            # After the tab switch has settled its own focus, so the item's list keeps it.
            pane.call_after_refresh(pane.show_item, table_id, text)

        self.app.call_later(go)
