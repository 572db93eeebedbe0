"""The consolidate pane: clean-up proposals as checklists, applied through the trash.

The scan (``core.consolidate.scan``) compares every pair of entries, so it
runs in a thread worker; the pane shows a loading indicator meanwhile and
keeps the previous list. Proposals are listed under their group's heading
with a mark column; the marked ones are applied (each with its chosen action)
as one trash record, which ``u`` restores byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, LoadingIndicator, Static

from memoir_tui.core import (
    KEEP,
    ApplyResult,
    ConsolidateError,
    Memoir,
    MemoirError,
    Outcome,
    Proposal,
    Report,
    TrashRecord,
    WorkingSet,
)
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.proposal import ProposalDetailScreen
from memoir_tui.panes.base import Pane, PaneCommand
from memoir_tui.ui.fields import PathNames
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.ui.store_watch import EntriesChanged
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.side_by_side import DiffColumn
from memoir_tui.widgets.status_line import StatusLine

GROUP_KEY = "group:"
"""Row keys of group headings start with this; proposal rows are keyed by proposal id."""

PROPOSAL_COLUMNS = (
    ColumnSpec("mark", " ", width=3),
    ColumnSpec("title", "Proposal", weight=1, min_width=16),
    ColumnSpec("action", "Action", width=8),
    ColumnSpec("id", "Id", width=12, min_table_width=90),
)


APPLY_WARNING = (
    "Removed files go to the store's trash/ folder, and every byte a merge or fix rewrites "
    "is saved there first: u undoes the whole apply. Completing a next action and keeping a "
    "proposal are not part of the trash record."
)
KEEP_WARNING = (
    "Kept proposals are recorded in consolidate-dismissed.json and are never proposed again. "
    "No file is touched."
)
UNDO_WARNING = (
    "Every file this apply touched is put back byte for byte. If one of them changed since, "
    "undo refuses and restores nothing."
)


@dataclass(frozen=True, slots=True)
class ScanResult:
    report: Report | None
    undo: TrashRecord | None  # what `u` would restore
    error: str = ""


def choices_table(choices: Sequence[tuple[Proposal, str]], names: PathNames) -> RenderableType:
    """The marked proposals with the action each will get (for the confirmations)."""
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for proposal, action in choices:
        grid.add_row(action, Text(names.text(proposal.title)))
    return grid


def record_details(record: TrashRecord, names: PathNames) -> RenderableType:
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row("Trash", Text(record.id))
    grid.add_row("Applied", Text(record.at))
    grid.add_row("What", Text(names.text(record.label)))
    verbs = {"removed": "put back", "modified": "restored", "created": "deleted"}
    grid.add_row(
        "Files",
        Text(
            "\n".join(
                f"{verbs.get(item.change, item.change)}: {names.path(item.path)}"
                for item in record.items
            )
        ),
    )
    return grid


def apply_outcome(result: ApplyResult, asked: int) -> Outcome:
    parts = [f"Applied {len(result.applied)} of {asked} proposal(s)"]
    if result.trash_id:
        parts.append(f"kept in trash {result.trash_id}")
    if result.failed:
        parts.append(f"{len(result.failed)} failed: {result.failed[0][1]}")
    return Outcome(bool(result.applied), " · ".join(parts), undo=result.undo)


class ConsolidatePane(Pane):
    """Clean-up proposals as checklists: mark, review, apply, undo.

    | Key(s) | Description |
    | :- | :- |
    | space | Mark or unmark the proposal (on a heading: the whole group). |
    | enter | Details; a side-by-side diff for near duplicates. |
    | c | Cycle the action of the proposal (merge, trash, keep, …). |
    | X | Apply the marked proposals (asks for their count). |
    | K | Keep the marked proposals: never propose them again (asks first). |
    | U | Undo the last apply in the trash, even an earlier run's (asks first). |
    | r | Scan again. |
    """

    PANE_ID = "consolidate"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "space",
            "toggle_mark",
            "Mark",
            tooltip="Mark or unmark the proposal (on a group heading: the whole group)",
            id="consolidate.mark",
        ),
        Binding(
            "X",
            "apply",
            "Apply",
            tooltip="Apply the marked proposals (asks you to type their count)",
            id="consolidate.apply",
        ),
        Binding(
            "K",
            "keep",
            "Keep",
            tooltip="Keep the marked proposals as they are; never propose them again",
            id="consolidate.keep",
        ),
        Binding(
            "U",
            "undo",
            "Undo apply",
            tooltip="Undo the last apply in the trash, even from an earlier run (asks first)",
            id="consolidate.undo",
        ),
        Binding("r", "rescan", "Rescan", tooltip="Scan the store again", id="consolidate.rescan"),
        Binding(
            "enter",
            "detail",
            "Details",
            show=False,
            tooltip="Why, files and evidence; a side-by-side diff for near duplicates",
            id="consolidate.detail",
        ),
        Binding(
            "c",
            "cycle_action",
            "Action",
            show=False,
            tooltip="Cycle the action of the proposal under the cursor",
            id="consolidate.cycle_action",
        ),
    ]

    COMMANDS = (
        PaneCommand(
            "mark",
            "toggle_mark",
            "Mark or unmark the proposal under the cursor",
            "consolidate.mark",
        ),
        PaneCommand("apply marked", "apply", "Apply the marked proposals", "consolidate.apply"),
        PaneCommand(
            "keep marked", "keep", "Never propose the marked ones again", "consolidate.keep"
        ),
        PaneCommand(
            "undo last apply", "undo", "Restore the last apply from the trash", "consolidate.undo"
        ),
        PaneCommand("rescan", "rescan", "Scan the store for clean-ups again", "consolidate.rescan"),
        PaneCommand(
            "details", "detail", "Show why, files and evidence of a proposal", "consolidate.detail"
        ),
        PaneCommand(
            "cycle action",
            "cycle_action",
            "Choose another action for the proposal under the cursor",
            "consolidate.cycle_action",
        ),
    )
    HELP_WIDGETS = (ItemTable, ProposalDetailScreen, DiffColumn)

    DEFAULT_CSS = """
    ConsolidatePane > #consolidate-why {
        height: auto;
        max-height: 4;
        padding: 0 1;
        border-top: hkey $panel;
    }
    ConsolidatePane > #consolidate-footer {
        height: 1;
        width: 1fr;
    }
    ConsolidatePane #consolidate-loading {
        width: 8;
        height: 1;
        display: none;
    }
    ConsolidatePane #consolidate-loading.-scanning {
        display: block;
    }
    """

    def __init__(self, *, id: str | None = None, home: Path | None = None) -> None:
        super().__init__(id=id)
        self._home = home
        self.report: Report | None = None
        self.undo_record: TrashRecord | None = None
        self.marked: set[str] = set()
        self.choices: dict[str, str] = {}
        self.scanning = False
        self.note = ""
        self._scans: LatestRead[ScanResult] = LatestRead(self, "consolidate-scan", self._scanned)
        self._by_id: dict[str, Proposal] = {}

    def compose(self) -> ComposeResult:
        yield ItemTable(PROPOSAL_COLUMNS, id="consolidate-table")
        yield Static("", id="consolidate-why")
        with Horizontal(id="consolidate-footer"):
            yield LoadingIndicator(id="consolidate-loading")
            yield StatusLine("", id="consolidate-status")

    # --- what the pane shows ------------------------------------------------------

    @property
    def home(self) -> Path:
        """Claude Code's memory folders are read under this home (``~`` by default)."""
        return self._home if self._home is not None else Path.home()

    @property
    def names(self) -> PathNames:
        return PathNames(self.home, self.host.store.root)

    @property
    def table(self) -> ItemTable:
        return self.query_one("#consolidate-table", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table)
        if self.report is None and not self.scanning:
            self.rescan()

    def show_state(self, ws: WorkingSet) -> None:
        """The session changed; the proposals are rescanned on ``r`` (scanning is costly)."""

    @on(EntriesChanged)
    def _entries_changed(self, message: EntriesChanged) -> None:
        # Files came or went (an undo, another process): proposals about them are stale.
        if self.report is not None:
            self.rescan()

    def action_for(self, proposal: Proposal) -> str:
        return self.choices.get(proposal.id, proposal.default_action)

    def marked_proposals(self) -> list[Proposal]:
        if self.report is None:
            return []
        return [p for p in self.report.proposals if p.id in self.marked]

    def selected(self) -> Proposal | None:
        key = self.table.cursor_key
        return self._by_id.get(key) if key else None

    def _rows(self) -> list[TableRow]:
        rows: list[TableRow] = []
        if self.report is None:
            return rows
        names = self.names
        for group, proposals in self.report.grouped():
            marked = sum(1 for p in proposals if p.id in self.marked)
            heading = f"{group} · {len(proposals)}" + (f" · {marked} marked" if marked else "")
            rows.append(
                TableRow(
                    GROUP_KEY + group,
                    (cell(""), cell(heading, "bold"), cell(""), cell("")),
                )
            )
            for p in proposals:
                is_marked = p.id in self.marked
                style = "bold" if is_marked else ""
                action = self.action_for(p)
                rows.append(
                    TableRow(
                        p.id,
                        (
                            cell("[x]" if is_marked else "[ ]", style),
                            cell(names.text(p.title), style),
                            cell(action, "dim" if action == KEEP else style),
                            cell(p.id, "dim"),
                        ),
                    )
                )
        return rows

    def _show_rows(self) -> None:
        report = self.report
        self._by_id = {p.id: p for p in report.proposals} if report else {}
        table = self.table
        first = table.row_count == 0 and not table.row_keys
        table.set_rows(self._rows())
        if first and report and report.proposals:
            table.move_to_key(report.proposals[0].id)
        self._show_why()
        self._show_status()

    def _show_status(self) -> None:
        report = self.report
        if self.scanning:
            text = "Scanning the store and Claude Code's memory for clean-ups…"
        elif report is None:
            text = "Not scanned yet · r scans"
        elif not report.proposals:
            text = "Nothing to clean up: no duplicates, stale items, dead links or index problems"
        else:
            parts = [f"{len(report.proposals)} proposals", f"{len(self.marked)} marked"]
            if report.dismissed:
                parts.append(f"{report.dismissed} kept earlier")
            if report.skipped:
                parts.append(f"{len(report.skipped)} file(s) unreadable")
            text = " · ".join(parts) + " · space marks · X applies"
        if self.note:
            text = f"{self.note} · {text}"
        elif self.undo_record is not None and not self.scanning:
            text += f" · u undoes trash {self.undo_record.id}"
        self.query_one("#consolidate-loading").set_class(self.scanning, "-scanning")
        self.query_one("#consolidate-status", StatusLine).update(text)

    def _show_why(self) -> None:
        why = self.query_one("#consolidate-why", Static)
        key = self.table.cursor_key
        proposal = self._by_id.get(key) if key else None
        if proposal is not None:
            why.update(
                Text.assemble(
                    ("Why: ", "bold"),
                    self.names.text(proposal.why),
                    ("  enter: details", "dim"),
                )
            )
        elif key and key.startswith(GROUP_KEY):
            why.update(Text("space marks or unmarks the whole group", style="dim"))
        else:
            why.update("")

    @on(DataTable.RowHighlighted, "#consolidate-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_why()

    @on(DataTable.RowSelected, "#consolidate-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_detail()

    # --- scanning --------------------------------------------------------------------

    def rescan(self) -> None:
        """Scan in a thread worker; the list stays as it is until the result arrives."""
        self.scanning = True
        self._show_status()
        store, home = self.host.store, self.home

        def read() -> ScanResult:
            try:
                report = store.consolidate.scan(home=home)
                return ScanResult(report, store.trash.last_active())
            except (MemoirError, OSError) as err:
                return ScanResult(None, None, f"could not scan: {err}")

        self._scans.start(read)

    def _scanned(self, result: ScanResult) -> None:
        self.scanning = False
        if result.report is None:
            self.app.notify(result.error, title="Consolidate", severity="error", timeout=8)
            self._show_status()
            return
        self.report = result.report
        self.undo_record = result.undo
        ids = {p.id for p in result.report.proposals}
        self.marked &= ids
        self.choices = {k: v for k, v in self.choices.items() if k in ids}
        self._show_rows()

    # --- actions ------------------------------------------------------------------------

    def action_rescan(self) -> None:
        self.note = ""
        self.rescan()

    def _group_of(self, key: str) -> tuple[Proposal, ...]:
        group = key.removeprefix(GROUP_KEY)
        for name, proposals in self.report.grouped() if self.report else []:
            if name == group:
                return proposals
        return ()

    def action_toggle_mark(self) -> None:
        key = self.table.cursor_key
        if not key:
            return
        if key.startswith(GROUP_KEY):
            ids = {p.id for p in self._group_of(key)}
            if ids <= self.marked:
                self.marked -= ids
            else:
                self.marked |= ids
        elif key in self._by_id:
            self.marked ^= {key}
        self._show_rows()

    def toggle(self, proposal_id: str) -> None:
        self.marked ^= {proposal_id}
        self._show_rows()

    def action_cycle_action(self) -> None:
        proposal = self.selected()
        if proposal is None:
            return
        actions = proposal.actions
        current = self.action_for(proposal)
        following = actions[(actions.index(current) + 1) % len(actions)]
        if following == proposal.default_action:
            self.choices.pop(proposal.id, None)
        else:
            self.choices[proposal.id] = following
        if len(actions) == 1:
            self.app.notify(f"The only action here is {current}.", severity="warning")
        self._show_rows()

    def action_detail(self) -> None:
        proposal = self.selected()
        if proposal is None:
            return
        pid = proposal.id

        def closed(toggle: bool | None) -> None:
            if toggle:
                self.toggle(pid)

        self.app.push_screen(
            ProposalDetailScreen(
                proposal,
                self.names,
                marked=pid in self.marked,
                action=self.action_for(proposal),
            ),
            closed,
        )

    def _ready(self, verb: str) -> list[Proposal] | None:
        if self.scanning:
            self.app.notify(f"Wait for the scan to finish before you {verb}.", severity="warning")
            return None
        chosen = self.marked_proposals()
        if not chosen:
            self.app.notify(
                f"Nothing is marked: space marks a proposal, then {verb}.", severity="warning"
            )
            return None
        return chosen

    def action_apply(self) -> None:
        chosen = self._ready("apply")
        if chosen is None:
            return
        pairs = [(p, self.action_for(p)) for p in chosen]
        count = len(pairs)

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._apply(pairs)

        self.app.push_screen(
            TypeToConfirmScreen(
                f"Apply {count} proposal(s)?",
                choices_table(pairs, self.names),
                warning=APPLY_WARNING,
                word=str(count),
                confirm_label=f"Apply {count}",
            ),
            answered,
        )

    def _apply(self, pairs: list[tuple[Proposal, str]]) -> None:
        results: list[ApplyResult] = []

        def change(store: Memoir) -> Outcome:
            result = store.consolidate.apply(pairs)
            results.append(result)
            return apply_outcome(result, len(pairs))

        def done(outcome: Outcome) -> None:
            result = results[0]
            self.marked -= {a.proposal_id for a in result.applied}
            if result.failed:
                self.app.notify(
                    "\n".join(f"{pid}: {self.names.text(reason)}" for pid, reason in result.failed),
                    title="Not applied",
                    severity="error",
                    timeout=12,
                )
            self.note = (
                f"Applied {len(result.applied)} · trash {result.trash_id}: u undoes it "
                "(U, later: the last apply in the trash)"
                if result.trash_id
                else f"Applied {len(result.applied)}"
            )
            self.rescan()

        self.host.write(change, on_done=done)

    def action_keep(self) -> None:
        chosen = self._ready("keep")
        if chosen is None:
            return
        count = len(chosen)

        def change(store: Memoir) -> Outcome:
            added = store.consolidate.dismiss(chosen)
            return Outcome(bool(added), f"Kept {count} proposal(s): not proposed again")

        def done(outcome: Outcome) -> None:
            self.marked -= {p.id for p in chosen}
            self.note = ""
            self.rescan()

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(change, on_done=done)

        self.app.push_screen(
            ConfirmScreen(
                f"Keep {count} proposal(s) as they are?",
                choices_table([(p, KEEP) for p in chosen], self.names),
                warning=KEEP_WARNING,
                yes_label="Keep (y)",
                no_label="Cancel (n)",
            ),
            answered,
        )

    def action_undo(self) -> None:
        store = self.host.store
        try:
            record = store.trash.last_active()
        except (MemoirError, OSError) as err:
            self.app.notify(f"could not read the trash: {err}", severity="error")
            return
        if record is None:
            self.app.notify("Nothing to undo: no apply is left in the trash.", severity="warning")
            return
        record_id = record.id

        def change(store: Memoir) -> Outcome:
            latest = store.trash.last_active()
            if latest is None or latest.id != record_id:
                raise ConsolidateError("the trash changed since you confirmed; press u again")
            restored = store.consolidate.undo_last()
            if restored is None:  # pragma: no cover - checked just above
                return Outcome(False, "Nothing to undo")
            return Outcome(
                True, f"Undone: trash {restored.id} restored ({len(restored.items)} file(s))"
            )

        def done(outcome: Outcome) -> None:
            self.note = ""
            self.rescan()

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(change, on_done=done)

        self.app.push_screen(
            ConfirmScreen(
                "Undo the last apply?",
                record_details(record, self.names),
                warning=UNDO_WARNING,
                yes_label="Undo (y)",
                no_label="Cancel (n)",
            ),
            answered,
        )
