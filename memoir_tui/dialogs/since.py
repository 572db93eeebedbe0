"""Since last session (``W``): what was added, completed, hidden, captured and synced,
by which face and machine, since the previous session started.

``core.since`` decides where the previous session started and sorts the audit
lines after it; this view reads the log off the UI thread and resolves each
hash to the item's text where it still exists (as the Audit pane does:
forgotten items never show their words).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Label, Static

from memoir_tui.core import (
    Arrived,
    MemoirError,
    SinceReport,
    arrived_from_elsewhere,
    kind_of,
    plural,
    read_audit,
    since_last_session,
    text_hash,
    working_set_lists,
)
from memoir_tui.core import SearchHit as Hit
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.panes.audit import FORGOTTEN, GONE, NO_ITEM, AuditRow, resolve_rows
from memoir_tui.ui.fields import audit_time
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell

if TYPE_CHECKING:
    from memoir_tui.core import Memoir

SINCE_READ = 5000
"""Audit lines read (newest first) to find the previous session's start."""
SINCE_ROWS = 500

SINCE_COLUMNS = (
    ColumnSpec("time", "Time (UTC)", width=19, min_table_width=76),
    ColumnSpec("kind", "What", width=9),
    ColumnSpec("item", "Item", weight=3, min_width=12),
    ColumnSpec("operation", "Operation", width=20, min_table_width=110),
    ColumnSpec("actor", "By", width=8),
    ColumnSpec("machine", "Machine", width=12, min_table_width=60),
)


@dataclass(frozen=True, slots=True)
class SinceView:
    report: SinceReport | None = None
    rows: tuple[AuditRow, ...] = ()
    machines: tuple[tuple[str, int], ...] = ()  # label → count
    arrived: tuple[Arrived, ...] = ()  # brought by a sync from other machines
    error: str = ""


def since_row(row: AuditRow) -> TableRow:
    r = row.record
    dim = row.item in (FORGOTTEN, GONE, NO_ITEM)
    return TableRow(
        row.key,
        (
            cell(audit_time(r.time)),
            cell(kind_of(r.operation)),
            cell(row.item, "italic dim" if dim else ""),
            cell(r.operation, "dim"),
            cell(r.actor),
            cell(row.machine),
        ),
    )


def read_since(store: Memoir, opened_at: str | None) -> SinceView:
    try:
        records = read_audit(store.root, limit=SINCE_READ)
        report = since_last_session(records, opened_at=opened_at)
        rows = tuple(resolve_rows(store, report.records[:SINCE_ROWS]))
        machine = store.known_machine()
        here = machine.id if machine is not None else ""
        ws = store.working_set(all_projects=True)
        arrived = tuple(arrived_from_elsewhere(ws, report.since, here)[:SINCE_ROWS])
    except (MemoirError, OSError) as err:
        return SinceView(error=str(err))
    labels = {row.record.machine_id: row.machine for row in rows}
    machines = tuple((labels.get(m, m[:8]) or "unknown", n) for m, n in report.by_machine)
    return SinceView(report, rows, machines, arrived)


def arrived_row(n: int, item: Arrived) -> TableRow:
    return TableRow(
        f"arrived-{n}",
        (
            cell(audit_time(item.date)),
            cell("synced"),
            cell(f"{item.kind}: {item.text}"),
            cell("written on another machine", "dim"),
            cell("sync"),
            cell(item.machine_label),
        ),
    )


def hit_for(store: Memoir, row: AuditRow, all_projects: bool = True) -> Hit | None:
    """Where the row's item is shown now (a live decision, goal, action or question)."""
    key = row.record.identity_hash
    if not key or row.item in (FORGOTTEN, GONE, NO_ITEM):
        return None
    ws = store.working_set(all_projects=all_projects)
    for d in ws.all_decisions:
        if d.key == key:
            return Hit("decisions", "", "decision", d.text, "", d)
    for table_id, kind, items in working_set_lists(ws):
        for item in items:
            if text_hash(item.text) == key:
                return Hit("working-set", table_id, kind, item.text, "", item)
    return None


class SinceScreen(DialogScreen[Hit | None]):
    """What changed since the last session, from the audit log.

    | Key(s) | Description |
    | :- | :- |
    | enter | Go to the item in its pane (while it is still there). |
    | escape, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="since.close"),
    ]

    DEFAULT_CSS = """
    SinceScreen > #dialog {
        height: 90%;
        max-height: 90%;
    }
    SinceScreen #since-table {
        height: 1fr;
    }
    """

    def __init__(self, store: Memoir, *, opened_at: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.opened_at = opened_at
        self.view: SinceView | None = None
        self._reads: LatestRead[SinceView] = LatestRead(self, "since-read", self._apply)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Since last session", classes="dialog--title")
            yield Static("reading the audit log…", id="since-summary", markup=False)
            yield ItemTable(SINCE_COLUMNS, id="since-table")
            yield Label("esc closes", classes="dialog--hint")

    def on_mount(self) -> None:
        store, opened_at = self.store, self.opened_at
        self._reads.start(lambda: read_since(store, opened_at))
        self.query_one("#since-table", ItemTable).focus()

    def _apply(self, view: SinceView) -> None:
        self.view = view
        summary = self.query_one("#since-summary", Static)
        if view.error or view.report is None:
            summary.update(f"could not read the audit log: {view.error}")
            return
        report = view.report
        when = f" ({audit_time(report.since)} UTC)" if report.since else ""
        lines = [f"{report.basis}{when}", report.summary]
        if report.records:
            faces = ", ".join(f"{actor} {n}" for actor, n in report.by_actor)
            machines = ", ".join(f"{label} {n}" for label, n in view.machines)
            lines.append(f"by face: {faces} · by machine: {machines}")
        if view.arrived:
            by = Counter(a.machine_label for a in view.arrived)
            lines.append(
                f"{plural(len(view.arrived), 'item')} arrived by sync from other machines: "
                + ", ".join(f"{label} {n}" for label, n in by.most_common())
            )
        if len(report.records) > len(view.rows):
            lines.append(f"the newest {len(view.rows)} of {len(report.records)} are listed")
        summary.update(Text("\n".join(lines)))
        self.query_one("#since-table", ItemTable).set_rows(
            [*(arrived_row(n, a) for n, a in enumerate(view.arrived)), *map(since_row, view.rows)]
        )

    @on(DataTable.RowSelected, "#since-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = self.query_one("#since-table", ItemTable).cursor_key
        row = next((r for r in (self.view.rows if self.view else ()) if r.key == key), None)
        hit = (
            hit_for(self.store, row, bool(getattr(self.app, "all_projects", True))) if row else None
        )
        if hit is None:
            self.app.notify("That item is not in any list now.", severity="warning")
            return
        self.dismiss(hit)

    def action_close(self) -> None:
        self.dismiss(None)
