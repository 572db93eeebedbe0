"""The entries pane: every memory file the recall index knows, by tool, type and project.

The list comes from ``Recall.entries`` (read in a thread worker; the app's one
``Recall`` is opened on first use): every project's files, of which the
pane shows this project's and global ones unless another project is chosen.
Working-set items (decisions, actions … in ``session.json``) are not files and
live in their own panes. ``enter`` opens an entry in full (frontmatter table,
validation findings, markdown body); ``e`` opens it in ``$EDITOR``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Label, Select, Static

from memoir_tui.core import MemoirError, WorkingSet, cut_middle, day_or_raw, place_labels
from memoir_tui.dialogs.entry import EntryScreen
from memoir_tui.panes.base import Pane, PaneCommand
from memoir_tui.ui.entry_document import (
    EntryRef,
    open_in_editor,
    project_label,
)
from memoir_tui.ui.fields import home_relative
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.ui.recall_source import RecallSource, recall_source, release_recall
from memoir_tui.ui.store_watch import EntriesChanged, ScopeChanged
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.status_line import StatusLine

ENTRY_COLUMNS = (
    ColumnSpec("name", "Entries", weight=1, min_width=16),
    ColumnSpec("type", "Type", width=12),
    ColumnSpec("tool", "Tool", width=12),
    ColumnSpec("project", "Project", width=24, min_table_width=84, fit=True),
    ColumnSpec("updated", "Updated", width=10),
)

ANY = "*"
"""The tool or type choice that keeps every row."""
SCOPE = "@scope"
"""Project choice: this project's entries and global ones (what recall returns by default)."""
EVERY = "@all"
GLOBAL = "@global"


@dataclass(frozen=True, slots=True)
class EntriesSnapshot:
    """One read of the index: every project's files, and which of them are in scope."""

    entries: tuple[EntryRef, ...] = ()
    in_scope: frozenset[str] = field(default_factory=frozenset)
    project: str = ""
    error: str = ""


@dataclass(frozen=True, slots=True)
class EntryFilter:
    tool: str = ANY
    type: str = ANY
    project: str = SCOPE
    text: str = ""

    def keeps(self, ref: EntryRef, in_scope: frozenset[str]) -> bool:
        if self.tool != ANY and ref.tool != self.tool:
            return False
        if self.type != ANY and ref.type != self.type:
            return False
        if self.project == SCOPE and ref.key not in in_scope:
            return False
        if self.project == GLOBAL and ref.project:
            return False
        if self.project not in (SCOPE, EVERY, GLOBAL) and ref.project != self.project:
            return False
        needle = self.text.strip().lower()
        if needle:
            haystack = f"{ref.name}\n{ref.description}\n{home_relative(ref.path)}".lower()
            return all(word in haystack for word in needle.split())
        return True


def canonical_shown(ref: EntryRef) -> EntryRef:
    """Today's memoir's canonical memory (``memories/<64 hex>.md``): its revision, its
    project (memoir's id; "shared" is global) and whether it is live, hidden or purged."""
    from memoir_tui.core import CANONICAL_NAME, read_canonical

    if ref.tool != "memoir" or not CANONICAL_NAME.match(os.path.basename(ref.path)):
        return ref
    memory = read_canonical(Path(ref.path))
    if memory is None:
        return ref
    state = "purged" if memory.purged else "hidden" if memory.hidden else "live"
    project = memory.project if memory.project not in ("", "shared") else ref.project
    return replace(ref, name=f"{memory.name} · r{memory.revision} · {state}", project=project)


def entry_row(ref: EntryRef, project: str = "") -> TableRow:
    """One entry's row; ``project`` is its project's label among the projects present."""
    return TableRow(
        ref.key,
        (
            cell(ref.name),
            cell(ref.type),
            cell(ref.tool),
            cell(
                cut_middle(project or project_label(ref.project), 24), "" if ref.project else "dim"
            ),
            cell(day_or_raw(ref.updated) or "—", "dim"),
        ),
    )


class EntriesPane(Pane):
    """Every memory file, by tool, type and project; open one in full or in `$EDITOR`.

    | Key(s) | Description |
    | :- | :- |
    | enter | Open the entry: frontmatter table, validation findings, markdown body. |
    | e | Open the entry's file in `$EDITOR`, then read it again. |
    | / | Filter by name, description or path as you type. |
    | escape | Clear the filter. |
    | t | Cycle the tool: every tool, then each tool with files. |
    | y | Cycle the type: every type, then each type listed. |
    | w | Cycle the project ("where"): this one + global, every project, global only, each project. |
    | r | Read the index again. |
    """

    PANE_ID = "entries"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "filter",
            "Filter",
            tooltip="Filter by name, description or path as you type",
            id="entries.filter",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="Open the entry's file in $EDITOR, then read it again",
            id="entries.open_editor",
        ),
        Binding("t", "cycle('tool')", "Tool", tooltip="Cycle the tool filter", id="entries.tool"),
        Binding("y", "cycle('type')", "Type", tooltip="Cycle the type filter", id="entries.type"),
        Binding(
            "w",
            "cycle('project')",
            "Project",
            tooltip="Cycle the project: this one + global, every project, global only, each one",
            id="entries.project",
        ),
        Binding(
            "enter",
            "open",
            "Open",
            show=False,
            tooltip="Open the entry: frontmatter table, validation findings, markdown body",
            id="entries.open",
        ),
        Binding(
            "escape",
            "clear_filter",
            "Clear filter",
            show=False,
            tooltip="Clear the filter",
            id="entries.clear_filter",
        ),
        Binding(
            "r", "reload", "Reload", show=False, tooltip="Read the index again", id="entries.reload"
        ),
    ]

    COMMANDS = (
        PaneCommand("open", "open", "Open the selected entry in full", "entries.open"),
        PaneCommand(
            "edit in $EDITOR",
            "edit",
            "Open the selected entry's file in $EDITOR",
            "entries.open_editor",
        ),
        PaneCommand("filter", "filter", "Filter entries as you type", "entries.filter"),
        PaneCommand(
            "clear filter", "clear_filter", "Show every entry again", "entries.clear_filter"
        ),
        PaneCommand(
            "cycle tool", "cycle('tool')", "Show one tool's entries, or all", "entries.tool"
        ),
        PaneCommand(
            "cycle type", "cycle('type')", "Show one type of entry, or all", "entries.type"
        ),
        PaneCommand(
            "cycle project", "cycle('project')", "Show one project's entries", "entries.project"
        ),
        PaneCommand("reload", "reload", "Read the index again", "entries.reload"),
    )
    HELP_WIDGETS = (ItemTable, FilterBar, EntryScreen)

    DEFAULT_CSS = """
    EntriesPane > #entries-filters {
        height: 1;
        width: 1fr;
        padding: 0 1;
    }
    EntriesPane > #entries-filters > Label {
        width: auto;
        color: $text-muted;
        padding: 0 1 0 0;
    }
    EntriesPane > #entries-filters > Select {
        width: 1fr;
        margin: 0 2 0 0;
    }
    EntriesPane > #entries-filters > #entries-project {
        width: 2fr;
        margin: 0;
    }
    EntriesPane > #entries-preview {
        height: 3;
        padding: 0 1;
        border-top: hkey $panel;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.snapshot: EntriesSnapshot | None = None
        self.filter = EntryFilter(
            project=EVERY if getattr(self.app, "all_projects", False) else SCOPE
        )
        self.reading = False
        self._reads: LatestRead[EntriesSnapshot] = LatestRead(self, "entries-load", self._loaded)
        self._by_key: dict[str, EntryRef] = {}
        self._options: dict[str, list[tuple[str, str]]] = {
            "tool": [("every tool", ANY)],
            "type": [("every type", ANY)],
            "project": [("this project + global", SCOPE)],
        }

    def compose(self) -> ComposeResult:
        with Horizontal(id="entries-filters"):
            for name, options in self._options.items():
                yield Label(name)
                yield Select(
                    options,
                    value=options[0][1],
                    allow_blank=False,
                    compact=True,
                    id=f"entries-{name}",
                )
        yield FilterBar("filter by name, description or path", id="entries-filter")
        yield ItemTable(ENTRY_COLUMNS, id="entries-table")
        yield Static("", id="entries-preview")
        yield StatusLine("", id="entries-status")

    # --- parts -------------------------------------------------------------------------------

    @property
    def source(self) -> RecallSource:
        return recall_source(self.app)

    @property
    def table(self) -> ItemTable:
        return self.query_one("#entries-table", ItemTable)

    @property
    def filter_bar(self) -> FilterBar:
        return self.query_one("#entries-filter", FilterBar)

    def select(self, name: str) -> Select[str]:
        return self.query_one(f"#entries-{name}", Select)

    def focus_default(self) -> None:
        self.focus_now(self.table)
        if self.snapshot is None and not self.reading:
            self.reload()

    def show_state(self, ws: WorkingSet) -> None:
        """A hidden decision hides its entry file too: read the index again once shown."""
        if self.snapshot is not None:
            self.reload()

    def on_unmount(self) -> None:
        release_recall(self.app)

    def selected(self) -> EntryRef | None:
        key = self.table.cursor_key
        return self._by_key.get(key) if key else None

    def visible_entries(self, *, with_text: bool = True) -> list[EntryRef]:
        """The rows the filters keep (``with_text=False``: before the typed filter)."""
        snapshot = self.snapshot
        if snapshot is None:
            return []
        chosen = self.filter if with_text else replace(self.filter, text="")
        return [e for e in snapshot.entries if chosen.keeps(e, snapshot.in_scope)]

    # --- reading -------------------------------------------------------------------------------

    def reload(self, *, changed: Sequence[str] = ()) -> None:
        """Read the index in a worker (``changed``: files to re-index first)."""
        self.reading = True
        self._show_status()
        source = self.source
        changed = tuple(changed)

        def read() -> EntriesSnapshot:
            try:
                recall = source.get()
                if changed:
                    recall.notify_changed(changed)
                every = recall.entries(all_projects=True)
                scoped = recall.entries(refresh=False)
                refs = tuple(
                    canonical_shown(EntryRef.from_info(e)) for e in every if e.kind != "session"
                )
                in_scope = frozenset(EntryRef.from_info(e).key for e in scoped)
                return EntriesSnapshot(refs, in_scope, recall.current_project())
            except (MemoirError, OSError) as err:
                return EntriesSnapshot(error=str(err))

        self._reads.start(read)

    @on(EntriesChanged)
    def _entries_changed(self, message: EntriesChanged) -> None:
        if self.snapshot is not None:  # read once shown; after that, follow the disk
            self.reload()

    @on(ScopeChanged)
    def _scope_changed(self, message: ScopeChanged) -> None:
        self._set_filter(project=EVERY if message.all_projects else SCOPE)

    def _loaded(self, snapshot: EntriesSnapshot) -> None:
        self.reading = False
        if snapshot.error:
            self.app.notify(snapshot.error, title="Entries", severity="error", timeout=8)
            if self.snapshot is not None:
                self._show_status()
                return
        self.snapshot = snapshot
        self._set_options()
        self._show_rows()

    def _set_options(self) -> None:
        snapshot = self.snapshot
        entries = snapshot.entries if snapshot else ()
        tools = sorted({e.tool for e in entries})
        types = sorted({e.type for e in entries})
        projects = sorted({e.project for e in entries if e.project})
        labels = self.project_labels() if projects else {}
        self._options = {
            "tool": [("every tool", ANY), *((t, t) for t in tools)],
            "type": [("every type", ANY), *((t, t) for t in types)],
            "project": [
                ("this project + global", SCOPE),
                ("every project", EVERY),
                ("global only", GLOBAL),
                *((labels.get(p) or project_label(p), p) for p in projects),
            ],
        }
        current = {
            "tool": self.filter.tool,
            "type": self.filter.type,
            "project": self.filter.project,
        }
        for name, options in self._options.items():
            values = [v for _, v in options]
            wanted = current[name] if current[name] in values else values[0]
            select = self.select(name)
            select.set_options(options)
            select.value = wanted
            current[name] = wanted
        self.filter = EntryFilter(
            current["tool"], current["type"], current["project"], self.filter.text
        )

    # --- rendering -------------------------------------------------------------------------------

    def _session_names(self) -> dict[str, str]:
        state = getattr(self.app, "state", None)
        return dict(state.project_names) if state is not None else {}

    def project_labels(self) -> dict[str, str]:
        """Each entry's project as every pane names it (``core.labels.place_labels``)."""
        entries = self.snapshot.entries if self.snapshot else ()
        here = [self.snapshot.project] if self.snapshot and self.snapshot.project else []
        return place_labels([*here, *(e.project for e in entries)], self._session_names())

    def _show_rows(self) -> None:
        shown = self.visible_entries()
        self._by_key = {e.key: e for e in shown}
        labels = self.project_labels()
        self.table.set_rows(
            [entry_row(e, labels.get(e.project, "")) for e in shown],
            title=f"Entries · {len(shown)}",
        )
        self.filter_bar.set_count(len(shown), len(self.visible_entries(with_text=False)))
        self._show_preview()
        self._show_status()

    def _show_preview(self) -> None:
        preview = self.query_one("#entries-preview", Static)
        ref = self.selected()
        if ref is None:
            if self.snapshot is not None and not self.visible_entries():
                preview.update(Text("No entries match these filters.", style="dim"))
            else:
                preview.update("")
            return
        width = max(preview.size.width - 2, 20)  # its padding; cut in the middle, not the tail
        lines = Text(cut_middle(home_relative(ref.path), width), style="dim", no_wrap=True)
        lines.append("\n")
        lines.append(
            ref.description or f"{ref.tool} {ref.kind} file", style="" if ref.description else "dim"
        )
        lines.no_wrap = True
        lines.overflow = "ellipsis"
        preview.update(lines)

    def _show_status(self) -> None:
        if self.reading and self.snapshot is None:
            text = "Reading the recall index (the first time indexes every tool's files)…"
        elif self.snapshot is None:
            text = "Not read yet"
        else:
            where = "this project"
            if self.snapshot.project:
                labels = self.project_labels()
                where = labels.get(self.snapshot.project) or home_relative(self.snapshot.project)
            scope = {
                SCOPE: f"{where} + global",
                EVERY: "every project",
                GLOBAL: "global only",
            }.get(self.filter.project, project_label(self.filter.project))
            shown = len(self.table.row_keys)
            text = (
                f"{shown} of {len(self.snapshot.entries)} files · project: {scope} · "
                "enter opens · e edits"
            )
        self.query_one("#entries-status", StatusLine).update(text)

    @on(DataTable.RowHighlighted, "#entries-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_preview()

    @on(DataTable.RowSelected, "#entries-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        name = (event.select.id or "").removeprefix("entries-")
        value = event.value
        if name not in ("tool", "type", "project") or not isinstance(value, str):
            return
        if value != event.select.value:
            return  # a stale message: the options were reset, then the value set again
        if getattr(self.filter, name) == value:
            return
        self._set_filter(**{name: value})

    @on(FilterBar.Changed, "#entries-filter")
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        event.stop()
        self._set_filter(text=event.value)

    @on(FilterBar.Done, "#entries-filter")
    def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        self.table.focus()

    def _set_filter(self, **changes: str) -> None:
        values = {
            "tool": self.filter.tool,
            "type": self.filter.type,
            "project": self.filter.project,
            "text": self.filter.text,
        }
        values.update(changes)
        self.filter = EntryFilter(**values)
        for name in ("tool", "type", "project"):
            select = self.select(name)
            if name in changes and select.value != values[name]:
                select.value = values[name]
        self._show_rows()

    # --- actions -----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return bool(self.filter.text)  # otherwise escape goes on up the chain
        return True

    def action_filter(self) -> None:
        self.filter_bar.focus_input()

    def action_clear_filter(self) -> None:
        self.filter_bar.clear_filter()
        self._set_filter(text="")
        self.table.focus()

    def action_cycle(self, name: str) -> None:
        options = [value for _, value in self._options.get(name, [])]
        if not options:
            return
        current = getattr(self.filter, name)
        index = options.index(current) if current in options else 0
        self._set_filter(**{name: options[(index + 1) % len(options)]})

    def action_reload(self) -> None:
        self.reload()

    def action_open(self) -> None:
        ref = self.selected()
        if ref is None:
            self.app.notify("No entry is selected.", severity="warning")
            return

        def closed(edited: bool | None) -> None:
            if edited:
                self.reload(changed=(ref.path,))

        self.app.push_screen(EntryScreen(self.source, ref, store=self.host.store), closed)

    def action_edit(self) -> None:
        ref = self.selected()
        if ref is None:
            self.app.notify("No entry is selected.", severity="warning")
            return
        if open_in_editor(self.app, self.host.store, ref.path):
            self.host.record_act(None, "an edit in $EDITOR")  # u says it cannot take it back
            self.reload(changed=(ref.path,))
