"""The audit pane: recent mutations from every face, newest first. Read-only.

A record holds an identity hash, never text. The pane resolves the hash to the
item's current text where the item still exists; a hidden or purged decision
shows as "(forgotten)" — never its text — and anything else as "(gone)".
The log is read in a thread worker; the filters work on what was read.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memoir_tui.core import (
    PURGED_TEXT,
    AuditRecord,
    Memoir,
    MemoirError,
    WorkingSet,
    lean_view,
    load_review,
    loaded_key,
    parse_iso_ms,
    read_audit,
    review_path,
    text_hash,
    well_formed_review_items,
)
from memoir_tui.dialogs.receipts import ReceiptsScreen
from memoir_tui.panes.base import FilteredPane, PaneCommand
from memoir_tui.panes.windowed_list import ListView, WindowedList, list_bindings
from memoir_tui.ui.fields import audit_time
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.ui.store_watch import AuditChanged
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.status_line import StatusLine

AUDIT_COLUMNS = (
    ColumnSpec("time", "Time (UTC)", width=19),
    ColumnSpec("actor", "Actor", width=8),
    ColumnSpec("operation", "Operation", width=20),
    ColumnSpec("list", "List", width=12, min_table_width=120),
    ColumnSpec("item", "Item", weight=1, min_width=12),
    ColumnSpec("machine", "Machine", width=12, min_table_width=90),
)

AUDIT_READ = 10_000
"""Records read from the log (newest first); the filters search all of them, a window of
them is drawn (``panes/windowed_list.py``)."""
LOAD_GROUP = "audit-load"

FORGOTTEN = "(forgotten)"
GONE = "(gone)"
NO_ITEM = "—"


@dataclass(frozen=True, slots=True)
class AuditRow:
    """A record with its item resolved for display."""

    key: str
    record: AuditRecord
    item: str  # the current text, FORGOTTEN, GONE or NO_ITEM
    machine: str

    @property
    def text(self) -> str:
        """What the filter searches: every column as shown."""
        r = self.record
        return "\n".join(
            (audit_time(r.time), r.actor, r.operation, r.list_name, self.item, self.machine)
        )


@dataclass(frozen=True, slots=True)
class AuditSnapshot:
    rows: tuple[AuditRow, ...] = ()
    error: str = ""
    actors: tuple[str, ...] = field(default=())
    operations: tuple[str, ...] = field(default=())


def item_texts(store: Memoir, ws: WorkingSet | None = None) -> tuple[dict[str, str], set[str]]:
    """Identity hash → current text for what still exists, and the forgotten hashes.

    Texts come from the session (goals, next actions, questions and visible
    decisions, live, parked or archived; completed and closed ones) and the review
    queue. A hidden or purged
    decision's hash is forgotten whatever else holds that text, so its text is
    never shown.
    """
    ws = ws if ws is not None else store.working_set(all_projects=True)
    forgotten = {d.key for d in ws.tombstones}
    texts: dict[str, str] = {}
    for item in well_formed_review_items(load_review(review_path(store)).state.get("items")):
        key = loaded_key(item)
        if item.get("purged") is True or item["text"] == PURGED_TEXT:
            forgotten.add(key)
        else:
            texts[key] = item["text"]
    for done in (ws.completed_actions, ws.completed_goals, ws.closed_questions):
        for c in done:
            texts[text_hash(c.text)] = c.text
    # Parked and archived items still exist: a full list moved them, nothing took them.
    for group in (ws.all_goals, ws.all_next_actions, ws.all_questions):
        for i in group:
            texts[text_hash(i.text)] = i.text
    for d in ws.all_decisions:
        texts[d.key] = d.text
    for key in forgotten:
        texts.pop(key, None)
    return texts, forgotten


def resolve_rows(store: Memoir, records: Sequence[AuditRecord]) -> list[AuditRow]:
    ws = lean_view(store.working)  # one view serves the texts and the labels (not the history)
    texts, forgotten = item_texts(store, ws)
    labels = {m.id: m.label for m in ws.machines if m.label}
    rows: list[AuditRow] = []
    seen: dict[str, int] = {}
    for r in records:
        base = f"{r.time}|{r.actor}|{r.operation}|{r.list_name}|{r.identity_hash}|{r.machine_id}"
        seen[base] = seen.get(base, 0) + 1
        if not r.identity_hash:
            item = NO_ITEM
        elif r.identity_hash in forgotten:
            item = FORGOTTEN
        else:
            item = texts.get(r.identity_hash, GONE)
        machine = labels.get(r.machine_id, r.machine_id[:8])
        rows.append(AuditRow(f"{base}|{seen[base]}", r, item, machine))
    return rows


def audit_cells(row: AuditRow) -> tuple[str, ...]:
    """A record's cells as the table and the export show them."""
    r = row.record
    return (audit_time(r.time), r.actor, r.operation, r.list_name, row.item, row.machine)


def audit_row(row: AuditRow) -> TableRow:
    r = row.record
    item_style = "italic dim" if row.item in (FORGOTTEN, GONE, NO_ITEM) else ""
    time, actor, operation, list_name, item, machine = audit_cells(row)
    return TableRow(
        row.key,
        (
            cell(time),
            cell(actor),
            cell(operation),
            cell(list_name),
            cell(item, item_style),
            cell(machine, "dim" if row.machine == r.machine_id[:8] else ""),
        ),
    )


AUDIT_SORT_KEYS: dict[str, Callable[[AuditRow], object]] = {
    "time": lambda r: parse_iso_ms(r.record.time) or 0,
    "actor": lambda r: r.record.actor,
    "operation": lambda r: r.record.operation,
    "list": lambda r: r.record.list_name,
    "item": lambda r: r.item.casefold(),
    "machine": lambda r: r.machine.casefold(),
}


def _cycle(current: str | None, choices: Sequence[str]) -> str | None:
    """all → first → … → last → all."""
    if not choices:
        return None
    if current not in choices:
        return choices[0]
    index = choices.index(current) + 1
    return choices[index] if index < len(choices) else None


class AuditPane(WindowedList[AuditRow], FilteredPane):
    """Every change to memory, newest first: who, what, where, from which machine.

    A window of rows is drawn (a row below says how many more match: enter shows them);
    the filters run off the UI thread (``panes/windowed_list.py``).

    | Key(s) | Description |
    | :- | :- |
    | / | Filter as you type (time, actor, operation, list, item, machine). |
    | b | Cycle the actor filter ("by": all, then each actor in the log). |
    | o | Cycle the operation filter (all, then each operation in the log). |
    | escape | Clear every filter. |
    | enter | On "N more": show the next (or previous) rows. |
    | R | Receipts of forget and purge, kept and listed in full. |
    | E | Export the records the filters show (Markdown or JSON) to a file you name. |
    | > | Sort by the next column (newest first, then each column); a header click sorts too. |
    | < | Reverse the order. |
    """

    PANE_ID = "audit"
    SORT_KEYS = AUDIT_SORT_KEYS
    EXPORT_TITLE = "Audit"
    EXPORT_NAME = "~/memoir-audit.md"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "filter",
            "Filter",
            tooltip="Filter as you type over time, actor, operation, list, item and machine",
            id="audit.filter",
        ),
        Binding(
            "b",
            "cycle_actor",
            "Actor",
            tooltip="Cycle the actor filter: all, then each actor in the log",
            id="audit.actor",
        ),
        Binding(
            "o",
            "cycle_operation",
            "Operation",
            tooltip="Cycle the operation filter: all, then each operation in the log",
            id="audit.operation",
        ),
        Binding(
            "R",
            "receipts",
            "Receipts",
            show=False,
            tooltip="The receipts of forget everywhere and purge, each in full",
            id="audit.receipts",
        ),
        *list_bindings("audit", rows="the records the filters show"),
        Binding(
            "enter",
            "detail",
            "Next rows",
            show=False,
            tooltip='On the "N more" row: show the next (or previous) rows',
            id="audit.page",
        ),
        Binding(
            "escape",
            "clear_filters",
            "Clear filters",
            show=False,
            tooltip="Clear the text, actor and operation filters",
            id="audit.clear_filters",
        ),
    ]

    COMMANDS = (
        PaneCommand("filter", "filter", "Filter the audit log as you type", "audit.filter"),
        PaneCommand("filter by actor", "cycle_actor", "Cycle the actor filter", "audit.actor"),
        PaneCommand(
            "filter by operation",
            "cycle_operation",
            "Cycle the operation filter",
            "audit.operation",
        ),
        PaneCommand(
            "clear filters", "clear_filters", "Show every record again", "audit.clear_filters"
        ),
        PaneCommand("sort", "sort_next", "Sort by the next column", "audit.sort"),
        PaneCommand("reverse sort", "sort_reverse", "Reverse the order", "audit.sort_reverse"),
        PaneCommand(
            "export…",
            "export",
            "Export the records the filters show (Markdown or JSON)",
            "audit.export",
        ),
        PaneCommand(
            "receipts",
            "receipts",
            "The receipts of forget everywhere and purge, in full",
            "audit.receipts",
        ),
    )
    HELP_WIDGETS = (ItemTable, FilterBar)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: tuple[AuditRow, ...] = ()
        self.actors: tuple[str, ...] = ()
        self.operations: tuple[str, ...] = ()
        self.actor: str | None = None
        self.operation: str | None = None
        self.filter_text = ""
        self.loaded = False
        self.error = ""
        self._reads: LatestRead[AuditSnapshot] = LatestRead(self, LOAD_GROUP, self._apply)
        self.list_init()

    def compose(self) -> ComposeResult:
        yield FilterBar("filter the log: actor, operation, item, machine…", id="audit-filter")
        yield ItemTable(AUDIT_COLUMNS, id="audit-table")
        yield StatusLine("reading the audit log…", id="audit-status")

    def on_mount(self) -> None:
        # The base class's on_mount runs too and reads through show_state when the app
        # holds a state: one read, not two racing each other for the GIL.
        if getattr(self.app, "state", None) is None:
            self.refresh_log()

    @property
    def table(self) -> ItemTable:
        return self.query_one("#audit-table", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table)

    # --- reading --------------------------------------------------------------------

    def show_state(self, ws: WorkingSet) -> None:
        # The session says what the logged hashes resolve to.
        self.refresh_log()

    @on(AuditChanged)
    def _log_changed(self, message: AuditChanged) -> None:
        # Every commit, from any face or process, appends to the log.
        self.refresh_log()

    def refresh_log(self) -> None:
        store = self.host.store

        def read() -> AuditSnapshot:
            try:
                records = read_audit(store.root, limit=AUDIT_READ)
                rows = resolve_rows(store, records)
            except (MemoirError, OSError) as err:
                return AuditSnapshot(error=str(err))
            return AuditSnapshot(
                tuple(rows),
                actors=tuple(sorted({r.actor for r in records})),
                operations=tuple(sorted({r.operation for r in records})),
            )

        self._reads.start(read)

    def _apply(self, snapshot: AuditSnapshot) -> None:
        self.loaded = True
        self.error = snapshot.error
        if not snapshot.error:
            self.rows = snapshot.rows
            self.actors = snapshot.actors
            self.operations = snapshot.operations
        self._render_rows()

    # --- the list (panes/windowed_list.py) --------------------------------------------

    def list_source(self) -> tuple[AuditRow, ...]:
        return self.rows

    def list_scope(self) -> tuple[Hashable, Callable[[AuditRow], bool] | None]:
        actor, operation = self.actor, self.operation
        if actor is None and operation is None:
            return (), None
        return (
            (actor, operation),
            lambda row: (
                (actor is None or row.record.actor == actor)
                and (operation is None or row.record.operation == operation)
            ),
        )

    def row_key(self, row: AuditRow) -> str:
        return row.key

    def row_text(self, row: AuditRow) -> str:
        return row.text

    def table_row(self, row: AuditRow) -> TableRow:
        return audit_row(row)

    def export_cells(self, row: AuditRow) -> tuple[str, ...]:
        return audit_cells(row)

    def list_columns(self) -> tuple[ColumnSpec, ...]:
        return AUDIT_COLUMNS

    def export_note(self) -> list[str]:
        return [
            f"{name}: {value}"
            for name, value in (("actor", self.actor), ("operation", self.operation))
            if value
        ]

    def matching_rows(self) -> list[AuditRow]:
        """The rows the filters keep, in the order shown (every one, not only the window)."""
        return list(self.view.rows) if self.view is not None else []

    def _render_rows(self) -> None:
        self.refresh_list()

    def list_drawn(self, view: ListView[AuditRow]) -> None:
        self.filter_bar.set_count(len(view.rows), len(self.rows))
        status = self.status_text(len(view.rows))
        line = self.query_one("#audit-status", StatusLine)
        if str(line.content) != status:
            line.update(status, layout=False)  # one line of a fixed size

    def status_text(self, matching: int) -> str:
        if self.error:
            return f"could not read the audit log: {self.error}"
        if not self.loaded:
            return "reading the audit log…"
        if not self.rows:
            return "No changes recorded yet: every change from any face is logged here."
        parts = [f"actor: {self.actor or 'all'} (b)", f"operation: {self.operation or 'all'} (o)"]
        parts.append(f"{matching} of {len(self.rows)} records")
        if not getattr(self.app, "all_projects", True):
            # The log carries no project: the header's one-project scope does not apply.
            parts.append("every project (one log per store)")
        if sort := self.sort_note():
            parts.append(sort)
        if len(self.rows) >= AUDIT_READ:
            parts.append(f"the newest {AUDIT_READ} are searched")
        return " · ".join(parts)

    # --- actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filters":
            # otherwise escape goes on up the chain
            return bool(self.filter_text or self.actor or self.operation)
        return True

    @on(DataTable.RowSelected, "#audit-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_detail()

    def action_detail(self) -> None:
        self.page_if_marker()

    def action_cycle_actor(self) -> None:
        self.actor = _cycle(self.actor, self.actors)
        self._render_rows()

    def action_cycle_operation(self) -> None:
        self.operation = _cycle(self.operation, self.operations)
        self._render_rows()

    def action_clear_filters(self) -> None:
        self.actor = None
        self.operation = None
        self.filter_bar.clear_filter()
        self.filter_text = ""
        self._render_rows()
        self.table.focus()

    def action_receipts(self) -> None:
        self.app.push_screen(ReceiptsScreen(self.host.store))

    def set_filters(self, *, actor: str | None = None, operation: str | None = None) -> None:
        """Filter by an exact actor and operation (None: all), e.g. from the palette or tests."""
        self.actor = actor
        self.operation = operation
        self._render_rows()


# --- kept receipts (core/receipts.py) ----------------------------------------------------
