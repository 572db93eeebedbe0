"""The working-set pane: goals, next actions, open questions, recently completed."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType

from memoir_tui.core.identity import identity
from memoir_tui.core.model import CompletedAction, Item, WorkingSet
from memoir_tui.screens.base import Pane, PaneCommand
from memoir_tui.screens.dialogs import AddItemScreen, ItemDraft, SessionEnd, SessionEndScreen
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell, short_date


def item_columns(date_label: str) -> tuple[ColumnSpec, ...]:
    return (
        ColumnSpec("text", "Text", weight=1, min_width=12),
        ColumnSpec("date", date_label, width=10),
        ColumnSpec("machine", "Machine", width=12),
        ColumnSpec("project", "Project", width=12),
    )


COMPLETED_COLUMNS = (
    ColumnSpec("text", "Text", weight=1, min_width=12),
    ColumnSpec("done", "Done", width=10),
)

# table id → (title, item kind added by `a` while that table has focus, date column)
SECTIONS: dict[str, tuple[str, str, str]] = {
    "goals": ("Goals", "goal", "Set on"),
    "next-actions": ("Next actions", "next_action", "Added"),
    "questions": ("Open questions", "question", "Asked"),
    "completed": ("Recently completed", "next_action", "Done"),
}


# Completed actions listed (newest first); the tombstones themselves are kept far longer.
COMPLETED_ROWS = 50


def item_rows(items: tuple[Item, ...]) -> list[TableRow]:
    return [
        TableRow(
            identity(i.text),
            (
                cell(i.text),
                cell(short_date(i.date)),
                cell(i.machine_label),
                cell(i.project_label or "global"),
            ),
        )
        for i in items
    ]


def completed_rows(items: tuple[CompletedAction, ...]) -> list[TableRow]:
    return [
        TableRow(identity(c.text), (cell(c.text, "dim"), cell(short_date(c.done_at))))
        for c in items
    ]


class WorkingSetPane(Pane):
    """What you are working towards and what comes next.

    | Key(s) | Description |
    | :- | :- |
    | a | Add a goal, next action or question (the focused list's kind first). |
    | x, space | Complete the selected next action. |
    | s, e | Record the end of a session with a summary. |
    | tab | Move to the next list. |
    """

    PANE_ID = "working-set"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "a",
            "add",
            "Add",
            tooltip="Add a goal, next action or question (the focused list's kind first)",
            id="working_set.add",
        ),
        Binding(
            "x,space",
            "complete",
            "Complete",
            tooltip="Complete the selected next action",
            id="working_set.complete",
        ),
        Binding(
            "s,e",
            "session_end",
            "End session",
            tooltip="Record the end of this session with a summary",
            id="working_set.session_end",
        ),
    ]

    COMMANDS = (
        PaneCommand("add goal", "add('goal')", "Add a goal to the working set", "working_set.add"),
        PaneCommand(
            "add next action", "add('next_action')", "Add a next action", "working_set.add"
        ),
        PaneCommand("ask question", "add('question')", "Add an open question", "working_set.add"),
        PaneCommand(
            "complete next action",
            "complete",
            "Complete the next action under the cursor",
            "working_set.complete",
        ),
        PaneCommand(
            "record session end",
            "session_end",
            "Add a summary of this session to the history",
            "working_set.session_end",
        ),
    )
    HELP_WIDGETS = (ItemTable,)

    DEFAULT_CSS = """
    WorkingSetPane > .ws-list {
        height: 1fr;
        min-height: 3;
    }
    WorkingSetPane > #next-actions {
        height: 2fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: WorkingSet | None = None

    def compose(self) -> ComposeResult:
        for table_id, (_title, _kind, date_label) in SECTIONS.items():
            columns = COMPLETED_COLUMNS if table_id == "completed" else item_columns(date_label)
            yield ItemTable(columns, id=table_id, classes="ws-list")

    def table(self, table_id: str) -> ItemTable:
        return self.query_one(f"#{table_id}", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table("next-actions"))

    def show_state(self, ws: WorkingSet) -> None:
        self.state = ws
        lists = {
            "goals": (item_rows(ws.goals), len(ws.goals)),
            "next-actions": (item_rows(ws.next_actions), len(ws.next_actions)),
            "questions": (item_rows(ws.open_questions), len(ws.open_questions)),
            "completed": (
                completed_rows(ws.completed_actions[:COMPLETED_ROWS]),
                len(ws.completed_actions),
            ),
        }
        for table_id, (rows, count) in lists.items():
            title = f"{SECTIONS[table_id][0]} · {count}"
            if len(rows) < count:
                title += f" (newest {len(rows)})"
            elif not count and table_id != "completed":
                title += " · a adds one"
            self.table(table_id).set_rows(rows, title=title)

    # --- actions --------------------------------------------------------------

    def _focused_table_id(self) -> str | None:
        focused = self.screen.focused
        if isinstance(focused, ItemTable) and focused.id in SECTIONS:
            return focused.id
        return None

    def action_add(self, kind: str | None = None) -> None:
        if kind is None:
            kind = SECTIONS.get(self._focused_table_id() or "", ("", "next_action", ""))[1]

        def added(draft: ItemDraft | None) -> None:
            if draft is None:
                return
            text = draft.text
            if draft.kind == "goal":
                self.host.write(lambda store: store.add_goal(text))
            elif draft.kind == "question":
                self.host.write(lambda store: store.ask_question(text))
            else:
                self.host.write(lambda store: store.add_next_action(text))

        self.app.push_screen(AddItemScreen(kind), added)

    def action_complete(self) -> None:
        table = self.table("next-actions")
        if self._focused_table_id() != "next-actions":
            self.app.notify(
                "x completes a next action: move to the Next actions list (tab) and select one.",
                severity="warning",
            )
            return
        key = table.cursor_key
        item = next(
            (i for i in (self.state.next_actions if self.state else ()) if identity(i.text) == key),
            None,
        )
        if item is None:
            self.app.notify("There is no next action to complete.", severity="warning")
            return
        text = item.text
        self.host.write(lambda store: store.complete_next_action(text))

    def action_session_end(self) -> None:
        def recorded(end: SessionEnd | None) -> None:
            if end is None:
                return
            self.host.write(
                lambda store: store.record_session_end(
                    end.summary, end.files_touched, end.duration_min
                )
            )

        self.app.push_screen(SessionEndScreen(), recorded)
