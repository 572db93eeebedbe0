"""The audit pane: recent mutations from every face, newest first. Read-only.

A record holds an identity hash, never text. The pane resolves the hash to the
item's current text where the item still exists; a hidden or purged decision
shows as "(forgotten)" — never its text — and anything else as "(gone)".
The log is read in a thread worker; the filters work on what was read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Label, Static

from memoir_tui.core.audit import AuditRecord, read_audit
from memoir_tui.core.errors import MemoirError
from memoir_tui.core.identity import PURGED_TEXT, parse_iso_ms, text_hash
from memoir_tui.core.model import WorkingSet
from memoir_tui.core.receipts import KeptReceipt, read_receipts
from memoir_tui.core.review import item_key, load_review, review_path, well_formed_review_items
from memoir_tui.core.store import Store
from memoir_tui.screens.base import Pane, PaneCommand
from memoir_tui.widgets.dialog import DialogScreen
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.latest_read import LatestRead
from memoir_tui.widgets.status_line import StatusLine
from memoir_tui.widgets.store_watch import AuditChanged

AUDIT_COLUMNS = (
    ColumnSpec("time", "Time (UTC)", width=19),
    ColumnSpec("actor", "Actor", width=8),
    ColumnSpec("operation", "Operation", width=20),
    ColumnSpec("list", "List", width=12, min_table_width=120),
    ColumnSpec("item", "Item", weight=1, min_width=12),
    ColumnSpec("machine", "Machine", width=12, min_table_width=90),
)

AUDIT_READ = 2000
"""Records read from the log (newest first); the filters search all of them."""
AUDIT_ROWS = 500
"""Matching records listed at once."""
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

    def matches(self, needle: str) -> bool:
        needle = needle.lower()
        r = self.record
        fields = (r.time, r.actor, r.operation, r.list_name, self.item, self.machine)
        return any(needle in f.lower() for f in fields)


@dataclass(frozen=True, slots=True)
class AuditSnapshot:
    rows: tuple[AuditRow, ...] = ()
    error: str = ""
    actors: tuple[str, ...] = field(default=())
    operations: tuple[str, ...] = field(default=())


def audit_time(value: str) -> str:
    """``2026-07-01 09:00:01`` (UTC) for an ISO date-time; the raw text otherwise."""
    ms = parse_iso_ms(value)
    if ms is None:
        return value
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def item_texts(store: Store) -> tuple[dict[str, str], set[str]]:
    """Identity hash → current text for what still exists, and the forgotten hashes.

    Texts come from the session (goals, next actions, questions, visible
    decisions, completed actions) and the review queue. A hidden or purged
    decision's hash is forgotten whatever else holds that text, so its text is
    never shown.
    """
    ws = store.working_set(all_projects=True)
    forgotten = {d.key for d in ws.tombstones}
    texts: dict[str, str] = {}
    for item in well_formed_review_items(load_review(review_path(store)).state.get("items")):
        key = item_key(item)
        if item.get("purged") is True or item["text"] == PURGED_TEXT:
            forgotten.add(key)
        else:
            texts[key] = item["text"]
    for c in ws.completed_actions:
        texts[text_hash(c.text)] = c.text
    for group in (ws.goals, ws.next_actions, ws.open_questions):
        for i in group:
            texts[text_hash(i.text)] = i.text
    for d in ws.decisions:
        texts[d.key] = d.text
    for key in forgotten:
        texts.pop(key, None)
    return texts, forgotten


def resolve_rows(store: Store, records: Sequence[AuditRecord]) -> list[AuditRow]:
    texts, forgotten = item_texts(store)
    labels = {m.id: m.label for m in store.working_set(all_projects=True).machines if m.label}
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


def audit_row(row: AuditRow) -> TableRow:
    r = row.record
    item_style = "italic dim" if row.item in (FORGOTTEN, GONE, NO_ITEM) else ""
    return TableRow(
        row.key,
        (
            cell(audit_time(r.time)),
            cell(r.actor),
            cell(r.operation),
            cell(r.list_name),
            cell(row.item, item_style),
            cell(row.machine, "dim" if row.machine == r.machine_id[:8] else ""),
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


def next_in(current: str | None, columns: Sequence[str]) -> str | None:
    """The next column after ``current``: the log's order → each column → the log's order."""
    if current not in columns:
        return columns[0] if columns else None
    index = columns.index(current) + 1
    return columns[index] if index < len(columns) else None


def _cycle(current: str | None, choices: Sequence[str]) -> str | None:
    """all → first → … → last → all."""
    if not choices:
        return None
    if current not in choices:
        return choices[0]
    index = choices.index(current) + 1
    return choices[index] if index < len(choices) else None


class AuditPane(Pane):
    """Every change to memory, newest first: who, what, where, from which machine.

    | Key(s) | Description |
    | :- | :- |
    | / | Filter as you type (time, actor, operation, list, item, machine). |
    | b | Cycle the actor filter ("by": all, then each actor in the log). |
    | o | Cycle the operation filter (all, then each operation in the log). |
    | escape | Clear every filter. |
    | R | Receipts of forget and purge, kept and listed in full. |
    | E | Export the records the filters show (Markdown or JSON) to a file you name. |
    | > | Sort by the next column (newest first, then each column); a header click sorts too. |
    | < | Reverse the order. |
    """

    PANE_ID = "audit"

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
        Binding(
            "greater_than_sign",
            "sort_next",
            "Sort",
            show=False,
            tooltip="Sort by the next column: newest first, then each column in turn",
            id="audit.sort",
        ),
        Binding(
            "less_than_sign",
            "sort_reverse",
            "Reverse sort",
            show=False,
            tooltip="Reverse the order of the list",
            id="audit.sort_reverse",
        ),
        Binding(
            "E",
            "export",
            "Export",
            show=False,
            tooltip="Export the records the filters show (Markdown or JSON) to a file you name",
            id="audit.export",
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
        self.sort_column: str | None = None  # None: newest first, as logged
        self.sort_reverse = False
        self.loaded = False
        self.error = ""
        self._reads: LatestRead[AuditSnapshot] = LatestRead(self, LOAD_GROUP, self._apply)

    def compose(self) -> ComposeResult:
        yield FilterBar("filter the log: actor, operation, item, machine…", id="audit-filter")
        yield ItemTable(AUDIT_COLUMNS, id="audit-table")
        yield StatusLine("reading the audit log…", id="audit-status")

    def on_mount(self) -> None:
        self.refresh_log()

    @property
    def table(self) -> ItemTable:
        return self.query_one("#audit-table", ItemTable)

    @property
    def filter_bar(self) -> FilterBar:
        return self.query_one(FilterBar)

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

    # --- rendering ------------------------------------------------------------------------

    def matching_rows(self) -> list[AuditRow]:
        """The rows the filters keep, in the order shown."""
        needle = self.filter_text.strip()
        rows = [
            row
            for row in self.rows
            if (self.actor is None or row.record.actor == self.actor)
            and (self.operation is None or row.record.operation == self.operation)
            and (not needle or row.matches(needle))
        ]
        key = AUDIT_SORT_KEYS.get(self.sort_column or "")
        if key is not None:
            return sorted(rows, key=key, reverse=self.sort_reverse)
        return rows[::-1] if self.sort_reverse else rows

    def _render_rows(self) -> None:
        columns = tuple(
            replace(c, label=f"{c.label} {'▼' if self.sort_reverse else '▲'}")
            if c.key == self.sort_column
            else c
            for c in AUDIT_COLUMNS
        )
        if self.table.column_specs != columns:
            self.table.set_columns(columns)
        matching = self.matching_rows()
        self.table.set_rows([audit_row(row) for row in matching[:AUDIT_ROWS]])
        self.filter_bar.set_count(len(matching), len(self.rows))
        self.query_one("#audit-status", StatusLine).update(self.status_text(len(matching)))

    def status_text(self, matching: int) -> str:
        if self.error:
            return f"could not read the audit log: {self.error}"
        if not self.loaded:
            return "reading the audit log…"
        if not self.rows:
            return "No changes recorded yet: every change from any face is logged here."
        parts = [f"actor: {self.actor or 'all'} (b)", f"operation: {self.operation or 'all'} (o)"]
        if matching > AUDIT_ROWS:
            parts.append(f"newest {AUDIT_ROWS} of {matching} shown")
        else:
            parts.append(f"{matching} of {len(self.rows)} records")
        if len(self.rows) >= AUDIT_READ:
            parts.append(f"the newest {AUDIT_READ} are searched")
        return " · ".join(parts)

    # --- actions --------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filters":
            # otherwise escape goes on up the chain
            return bool(self.filter_text or self.actor or self.operation)
        return True

    def action_filter(self) -> None:
        self.filter_bar.focus_input()

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        self.filter_text = event.value
        self._render_rows()

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        self.table.focus()

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

    def action_sort_next(self) -> None:
        keys = [c.key for c in self.table.shown_specs()] or list(AUDIT_SORT_KEYS)
        self.sort_column = next_in(self.sort_column, [k for k in keys if k in AUDIT_SORT_KEYS])
        self._render_rows()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._render_rows()

    @on(DataTable.HeaderSelected, "#audit-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        column = str(event.column_key.value)
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, False
        self._render_rows()

    def action_export(self) -> None:
        from memoir_tui.core.export import ExportTable
        from memoir_tui.screens.export import ExportScreen

        filters = [
            f"{name}: {value}"
            for name, value in (
                ("filter", self.filter_text.strip() and repr(self.filter_text.strip())),
                ("actor", self.actor),
                ("operation", self.operation),
            )
            if value
        ]
        table = ExportTable(
            "Audit",
            tuple((c.key, c.label) for c in AUDIT_COLUMNS),
            tuple(
                (
                    audit_time(r.record.time),
                    r.record.actor,
                    r.record.operation,
                    r.record.list_name,
                    r.item,
                    r.machine,
                )
                for r in self.matching_rows()
            ),
            " · ".join(filters),
        )
        self.app.push_screen(ExportScreen(table, name="~/memoir-audit.md"))

    def action_receipts(self) -> None:
        self.app.push_screen(ReceiptsScreen(self.host.store))

    def set_filters(self, *, actor: str | None = None, operation: str | None = None) -> None:
        """Filter by an exact actor and operation (None: all), e.g. from the palette or tests."""
        self.actor = actor
        self.operation = operation
        self._render_rows()


# --- kept receipts (core/receipts.py) ----------------------------------------------------

RECEIPT_COLUMNS = (
    ColumnSpec("time", "Time (UTC)", width=19),
    ColumnSpec("actor", "By", width=6, min_table_width=70),
    ColumnSpec("title", "Receipt", weight=1, min_width=12),
)


class ReceiptsScreen(DialogScreen[None]):
    """The kept receipts of forget everywhere and purge, newest first, each in full.

    | Key(s) | Description |
    | :- | :- |
    | up, down | Choose a receipt: it is shown in full below the list. |
    | escape, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="receipts.close"),
    ]

    DEFAULT_CSS = """
    ReceiptsScreen > #dialog {
        height: 90%;
        max-height: 90%;
    }
    ReceiptsScreen #receipts-table {
        height: 8;
    }
    ReceiptsScreen #receipt-scroll {
        height: 1fr;
    }
    """

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.receipts: tuple[KeptReceipt, ...] = ()
        self.loaded = False
        self._reads: LatestRead[tuple[KeptReceipt, ...]] = LatestRead(
            self, "receipts-read", self._apply
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Receipts: forget everywhere and purge", classes="dialog--title")
            yield ItemTable(RECEIPT_COLUMNS, id="receipts-table")
            with VerticalScroll(id="receipt-scroll"):
                yield Static("reading the receipts…", id="receipt-body", markup=False)
            yield Label(
                "kept in receipts.jsonl (this machine's): the forgotten text is never kept "
                "· esc closes",
                classes="dialog--hint",
                markup=False,
            )

    def on_mount(self) -> None:
        store = self.store
        self._reads.start(lambda: tuple(read_receipts(store)))
        self.table.focus()

    @property
    def table(self) -> ItemTable:
        return self.query_one("#receipts-table", ItemTable)

    def _apply(self, receipts: tuple[KeptReceipt, ...]) -> None:
        self.receipts = receipts
        self.loaded = True
        self.table.set_rows(
            [
                TableRow(str(n), (cell(audit_time(r.time)), cell(r.actor), cell(r.title)))
                for n, r in enumerate(receipts)
            ]
        )
        self._show(0)

    def _show(self, index: int) -> None:
        body = self.query_one("#receipt-body", Static)
        if not self.receipts:
            body.update(
                "No receipts yet: forget everywhere (F in Decisions) and purge (D) keep one here."
            )
            return
        body.update(Text(self.receipts[min(index, len(self.receipts) - 1)].render()))

    @on(DataTable.RowHighlighted, "#receipts-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = self.table.cursor_key
        if key is not None and key.isdigit():
            self._show(int(key))

    def action_close(self) -> None:
        self.dismiss(None)
