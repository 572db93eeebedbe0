"""The decisions pane: visible decisions, filter, add, hide, purge, tombstones."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memoir_tui.core import DECISION_SORT_KEYS, Decision, WorkingSet, day_or_raw, plural, shown
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.forms import (
    AddDecisionScreen,
    DecisionDetailScreen,
    DecisionDraft,
    EditDecisionScreen,
    decision_details,
)
from memoir_tui.panes.base import FilteredPane, PaneCommand
from memoir_tui.panes.windowed_list import LIST_ROWS, ListView, WindowedList, list_bindings
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from memoir_tui.core import ExportTable, Memoir, Outcome, Scan

DECISION_COLUMNS = (
    ColumnSpec("text", "Decision", weight=4, min_width=12),
    ColumnSpec("why", "Why", weight=3, min_width=8),
    ColumnSpec("rejected", "Rejected", weight=2, min_width=6),
    ColumnSpec("date", "Date", width=10),
    ColumnSpec("machine", "Machine", width=12, min_table_width=96),
)
PROJECT_COLUMN = ColumnSpec("project", "Project", width=24, min_table_width=72, fit=True)
HIDDEN_COLUMN = ColumnSpec("hidden_at", "Hidden", width=10)
TOMBSTONE_COLUMNS = (*DECISION_COLUMNS, HIDDEN_COLUMN)


def decision_columns(*, tombstones: bool, projects: bool) -> tuple[ColumnSpec, ...]:
    """The columns: a Project column while every project is shown, Hidden with tombstones."""
    return (
        *DECISION_COLUMNS,
        *((PROJECT_COLUMN,) if projects else ()),
        *((HIDDEN_COLUMN,) if tombstones else ()),
    )


HIDE_WARNING = (
    "Hiding is permanent and spreads to every machine this store syncs with: the decision "
    "leaves every list there too and can never be un-hidden (noting the same text again is "
    "refused). A tombstone stays in session.json so the hiding keeps spreading."
)
PURGE_WARNING = (
    "Purging removes the text, why and rejected from session.json; only a hash of the "
    "text stays, so the purge spreads to every synced machine and the text cannot come "
    "back. This cannot be undone."
)
DECISION_ROWS = LIST_ROWS
"""Rows drawn at once (decisions, then tombstones); a marker row below says how many more
match (enter shows them, ``/`` narrows). The filter reaches every one."""

READ_ONLY_TOMBSTONE = (
    "A hidden decision can never be edited or un-hidden; D purges its text for good."
)


MARK = "●"


def decision_row(
    d: Decision,
    *,
    with_hidden_column: bool,
    with_project_column: bool = False,
    marked: bool = False,
) -> TableRow:
    style = "dim italic" if d.hidden else ""
    text = f"[purged] {d.key[:12]}…" if d.purged else d.text
    if d.place != "live" and not d.hidden:
        text = f"[{d.place}] {text}"
    if marked:
        text = f"{MARK} {text}"
    cells = [
        cell(text, style),
        cell(d.why, style),
        cell(d.rejected, style),
        cell(day_or_raw(d.date), style),
        cell(d.machine_label, style),
    ]
    if with_project_column:
        cells.append(cell(d.project_label or "global", style))
    if with_hidden_column:
        cells.append(cell(day_or_raw(d.hidden_at) if d.hidden else "", style))
    return TableRow(d.key, tuple(cells))


def decision_text(d: Decision) -> str:
    """What the filter searches in ``d``: its text, why and rejected."""
    return "\n".join(f for f in (d.text, d.why, d.rejected) if f)


class DecisionsPane(WindowedList[Decision], FilteredPane):
    """Decisions, so settled questions stay settled.

    | Key(s) | Description |
    | :- | :- |
    | enter | Show the selected decision in full. |
    | a | Note a decision (text, why, rejected). |
    | / | Filter as you type (text, why, rejected). |
    | escape | Clear the filter. |
    | e | Edit it: why and rejected in place; new text hides the old wording. |
    | d | Hide the selected decision for ever (asks first). |
    | D | Purge it, hidden or not: remove its text (asks for a typed word). |
    | h | Show or hide the hidden ones: tombstones (greyed; D purges one). |
    | space | Mark or unmark the row; d then hides every marked one (typed count). |
    | > | Sort by the next column (stored order, then each column); a header click sorts too. |
    | < | Reverse the sort. |
    | E | Export what the list shows (Markdown or JSON) to a file you name. |
    """

    PANE_ID = "decisions"
    SORT_KEYS = DECISION_SORT_KEYS
    EXPORT_TITLE = "Decisions"
    EXPORT_NAME = "~/memoir-decisions.md"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a", "add", "Add", tooltip="Note a decision (text, why, rejected)", id="decisions.add"
        ),
        Binding(
            "slash",
            "filter",
            "Filter",
            tooltip="Filter as you type over text, why and rejected",
            id="decisions.filter",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            show=False,
            tooltip="Edit why and rejected in place; a new text hides the old wording",
            id="decisions.edit",
        ),
        Binding(
            "d",
            "hide",
            "Hide",
            tooltip="Hide the selected decision for ever (asks first)",
            id="decisions.hide",
        ),
        Binding(
            "D",
            "purge",
            "Purge",
            tooltip="Hide and remove the text, keeping only a hash (asks for a typed word)",
            id="decisions.purge",
        ),
        Binding(
            "F",
            "forget_everywhere",
            "Forget everywhere",
            show=False,
            tooltip="Forget the selected decision's text (or the filter's) in every place: "
            "session, review queue, entry and host tools' files, caches (lists them; typed word)",
            id="decisions.forget_everywhere",
        ),
        Binding(
            "h",
            "toggle_tombstones",
            "Tombstones",
            tooltip="Show or hide hidden and purged decisions (greyed, read-only)",
            id="decisions.tombstones",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            show=False,
            tooltip="Mark or unmark the row; d then hides every marked one (asks for the count)",
            id="decisions.mark",
        ),
        *list_bindings("decisions"),
        Binding(
            "enter",
            "detail",
            "Details",
            show=False,
            tooltip="Show the selected decision in full",
            id="decisions.detail",
        ),
        Binding(
            "escape",
            "clear_filter",
            "Clear filter",
            show=False,
            tooltip="Clear the filter",
            id="decisions.clear_filter",
        ),
    ]

    COMMANDS = (
        PaneCommand("add", "add", "Note a decision with why and rejected", "decisions.add"),
        PaneCommand("edit", "edit", "Edit the selected decision", "decisions.edit"),
        PaneCommand("filter", "filter", "Filter decisions as you type", "decisions.filter"),
        PaneCommand(
            "clear filter", "clear_filter", "Show every decision again", "decisions.clear_filter"
        ),
        PaneCommand("details", "detail", "Show the selected decision in full", "decisions.detail"),
        PaneCommand("hide", "hide", "Hide the selected decision for ever", "decisions.hide"),
        PaneCommand(
            "purge", "purge", "Hide and remove the text of the selected decision", "decisions.purge"
        ),
        PaneCommand(
            "forget everywhere…",
            "forget_everywhere",
            "Find a text in every place (session, queue, files of every host tool, caches) "
            "and forget it there",
            "decisions.forget_everywhere",
        ),
        PaneCommand(
            "toggle tombstones",
            "toggle_tombstones",
            "Show or hide hidden and purged decisions (read-only)",
            "decisions.tombstones",
        ),
        PaneCommand("mark", "mark", "Mark or unmark the row for a bulk hide", "decisions.mark"),
        PaneCommand(
            "hide marked",
            "hide_marked",
            "Hide every marked decision (typed count)",
            "decisions.hide",
        ),
        PaneCommand("sort", "sort_next", "Sort by the next column", "decisions.sort"),
        PaneCommand("reverse sort", "sort_reverse", "Reverse the order", "decisions.sort_reverse"),
        PaneCommand(
            "export…",
            "export",
            "Export what the list shows (Markdown or JSON) to a file",
            "decisions.export",
        ),
    )
    HELP_WIDGETS = (ItemTable, FilterBar)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: WorkingSet | None = None
        self.show_tombstones = False
        self.filter_text = ""
        self._source: tuple[WorkingSet | None, bool, tuple[Decision, ...]] = (None, False, ())
        self.marked: set[str] = set()
        # the forget scan reads every place off the UI thread: the shared read idiom, so
        # no error in it can take the app down (it becomes a notification)
        self._forget_scans: LatestRead[Scan] = LatestRead(self, "forget-scan", self._ask_forget)
        self.list_init()

    def compose(self) -> ComposeResult:
        yield FilterBar("filter decisions: text, why, rejected", id="decision-filter")
        yield ItemTable(DECISION_COLUMNS, id="decisions-table")
        yield StatusLine("", id="decisions-status")

    @property
    def table(self) -> ItemTable:
        return self.query_one("#decisions-table", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table)

    def show_state(self, ws: WorkingSet) -> None:
        self.state = ws
        # marks outlive a filter (as Review's do); a decision gone or hidden loses its mark
        if self.marked:
            self.marked &= {d.key for d in ws.all_decisions}
        self._render_rows()

    @property
    def matches(self) -> ListView[Decision] | None:
        """What the list shows now (every match, in order; a window of it is drawn)."""
        return self.view

    def _render_rows(self) -> None:
        self.refresh_list()

    # --- the list (panes/windowed_list.py) ------------------------------------------

    def list_source(self) -> tuple[Decision, ...]:
        """Decisions, then (when shown) tombstones; the same tuple while nothing changed."""
        state, shown = self.state, self.show_tombstones
        if state is None:
            return ()
        known_state, known_shown, rows = self._source
        if known_state is not state or known_shown != shown:
            rows = state.all_decisions + (state.tombstones if shown else ())
            self._source = (state, shown, rows)
        return rows

    def list_scope(self) -> tuple[Hashable, Callable[[Decision], bool] | None]:
        return (self.show_tombstones,), None

    def row_key(self, row: Decision) -> str:
        return row.key

    def row_text(self, row: Decision) -> str:
        return decision_text(row)

    def list_columns(self) -> tuple[ColumnSpec, ...]:
        projects = bool(getattr(self.app, "all_projects", False))
        return decision_columns(tombstones=self.show_tombstones, projects=projects)

    def table_row(self, row: Decision) -> TableRow:
        return decision_row(
            row,
            with_hidden_column=self.show_tombstones,
            with_project_column=bool(getattr(self.app, "all_projects", False)),
            marked=row.key in self.marked,
        )

    def export_note(self) -> list[str]:
        return ["tombstones included"] if self.show_tombstones else []

    def export_table(self, rows: Sequence[Decision], note: str) -> ExportTable:
        from memoir_tui.core import decision_table

        return decision_table(rows, title="Decisions", note=note)

    def list_drawn(self, view: ListView[Decision]) -> None:
        ws = self.state
        if ws is None:
            return
        visible = len(ws.all_decisions)
        archived = len(ws.archived_decisions)
        tombstones = len(ws.tombstones)
        shown = self.show_tombstones
        self.filter_bar.set_count(len(view.rows), visible + (tombstones if shown else 0))
        decisions = plural(visible, "decision")
        if archived:
            decisions += f" ({archived} archived: past the live cap, kept, not pinned)"
        if not shown:
            status = f"{decisions} · {plural(tombstones, 'tombstone')} hidden · h shows them"
        else:
            status = (
                f"{decisions} · showing {plural(tombstones, 'tombstone')} (greyed; D purges "
                "a hidden one) · h hides them"
            )
        if self.marked:
            status = f"{len(self.marked)} marked: d hides them, esc clears · " + status
        if sort := self.sort_note():
            status += f" · {sort}"
        line = self.query_one("#decisions-status", StatusLine)
        if str(line.content) != status:
            line.update(status, layout=False)  # one line of a fixed size

    def show_item(self, table_id: str, text: str) -> None:
        """Put the cursor on the decision with ``text`` (another pane's jump)."""
        from memoir_tui.core import text_hash

        self.focus_now(self.table)
        if not self.show_key(text_hash(text)):
            self.app.notify("That decision is not shown here now.", severity="warning")

    def selected(self) -> Decision | None:
        return self.selected_row()

    # --- actions ----------------------------------------------------------------

    def action_toggle_tombstones(self) -> None:
        self.show_tombstones = not self.show_tombstones
        self._render_rows()

    @on(DataTable.RowSelected, "#decisions-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_detail()

    def action_detail(self) -> None:
        if self.page_if_marker():
            return
        decision = self.selected()
        if decision is not None:
            self.app.push_screen(DecisionDetailScreen(decision))

    def action_add(self) -> None:
        def save(draft: DecisionDraft) -> Callable[[Memoir], Outcome]:
            return lambda store: store.note_decision(draft.text, draft.why, draft.rejected)

        self.app.push_screen(AddDecisionScreen(save=save))

    def action_edit(self) -> None:
        decision = self._live_selection()
        if decision is None:
            return
        key = decision.key

        def save(draft: DecisionDraft) -> Callable[[Memoir], Outcome]:
            # The decision keeps its project unless the dialog's Project field moves it.
            return lambda store: store.edit_decision(
                key, text=draft.text, why=draft.why, rejected=draft.rejected, project=draft.project
            )

        store = self.host.store
        here = (store.project, store.project_label or store.project) if store.project else None
        self.app.push_screen(EditDecisionScreen(decision, save=save, here=here))

    def _live_selection(self) -> Decision | None:
        decision = self.selected()
        if decision is None:
            self.app.notify("No decision is selected.", severity="warning")
            return None
        if decision.hidden:
            self.app.notify(READ_ONLY_TOMBSTONE, severity="warning")
            return None
        return decision

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return bool(self.filter_text or self.marked)  # otherwise escape goes on up
        return True

    def action_clear_filter(self) -> None:
        if self.marked and not self.filter_text:
            self.marked.clear()
            self.draw_window()
            return
        super().action_clear_filter()

    # --- marking ---------------------------------------------------

    def action_mark(self) -> None:
        decision = self._live_selection()
        if decision is None:
            return
        self.marked ^= {decision.key}
        self.draw_window()  # the same rows: only the mark and the status change
        self.table.action_cursor_down()

    def action_hide_marked(self) -> None:
        from memoir_tui.core import hide_decisions

        ws = self.state
        decisions = [d for d in (ws.all_decisions if ws else ()) if d.key in self.marked]
        if not decisions:
            self.app.notify("No rows are marked: space marks the row under the cursor.")
            return
        count = len(decisions)
        keys = tuple(d.key for d in decisions)

        def done(_outcome: Outcome) -> None:
            self.marked.difference_update(keys)
            self._render_rows()

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(lambda store: hide_decisions(store.working, keys), on_done=done)

        listed = "\n".join(f"• {d.text}" for d in decisions[:12])
        if count > 12:
            listed += f"\n… and {count - 12} more"
        self.app.push_screen(
            TypeToConfirmScreen(
                f"Hide {plural(count, 'marked decision')} for ever?",
                Text(listed),
                warning=HIDE_WARNING,
                word=str(count),
                confirm_label=f"Hide {count}",
            ),
            answered,
        )

    def action_hide(self) -> None:
        if self.marked:
            self.action_hide_marked()
            return
        decision = self._live_selection()
        if decision is None:
            return
        key = decision.key

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(lambda store: store.hide_decision(key))

        self.app.push_screen(
            ConfirmScreen(
                "Hide this decision for ever?",
                decision_details(decision),
                warning=HIDE_WARNING,
                yes_label="Hide for ever (y)",
                no_label="Cancel (n)",
                danger=True,
            ),
            answered,
        )

    def action_forget_everywhere(self) -> None:
        """The filter's text if one is typed, else the selected decision's: scanned off the
        UI thread, then every place is listed in a dialog that asks for a typed word."""
        decision = self.selected()
        needle = self.filter_text.strip() or (
            decision.text if decision is not None and not decision.purged else ""
        )
        if not needle:
            self.app.notify(
                "Select a decision or type a filter: its text is what is forgotten.",
                severity="warning",
            )
            return
        store = self.host.store
        self._forget_scans.start(lambda: store.forget.scan(needle, purge=True))

    def _ask_forget(self, scan: Scan) -> None:
        if not scan.places:
            self.app.notify(
                f"{shown(scan.needle)!r} is in none of the {len(scan.checked)} place(s) "
                "this tool searched."
            )
            return
        needle = scan.needle
        body = "\n".join(
            [f"{len(scan.places)} place(s) hold {shown(needle)!r}:"]
            + [f"• {p.line()}  → {p.action or 'left as it is'}" for p in scan.places]
        )

        def answered(confirmed: bool | None) -> None:
            # core.forget reaches every host tool's files (the adapters): imported when
            # used, so the first visit to this pane does not wait for it
            from memoir_tui.core import forget_everywhere

            if confirmed:
                # No undo: the app marks it as the last act u cannot take back.
                self.host.write(lambda store: forget_everywhere(store.forget, needle, purge=True))

        self.app.push_screen(
            TypeToConfirmScreen(
                "Forget this text everywhere?",
                body,
                warning="Bulk and irreversible: session items are purged, lines holding it "
                "are removed from every file listed, caches are dropped. u cannot undo it.",
                word="forget",
                confirm_label="Forget everywhere",
            ),
            answered,
        )

    def action_purge(self) -> None:
        # A hidden decision can still be purged: text hidden and later found sensitive
        # must be able to leave every machine. Only a purged one has nothing left.
        decision = self.selected()
        if decision is None:
            self.app.notify("No decision is selected.", severity="warning")
            return
        if decision.purged:
            self.app.notify("Already purged: only its hash remains.", severity="warning")
            return
        key = decision.key

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                from memoir_tui.core import purge_decision_kept

                self.host.write(lambda store: purge_decision_kept(store.working, key))

        self.app.push_screen(
            TypeToConfirmScreen(
                "Purge this hidden decision?" if decision.hidden else "Purge this decision?",
                decision_details(decision),
                warning=PURGE_WARNING,
                word="purge",
                phrase=decision.text,
                confirm_label="Purge",
            ),
            answered,
        )
