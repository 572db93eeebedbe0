"""The working-set pane: goals, next actions, open questions, recently completed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from memoir_tui.core import CompletedAction, Item, WorkingSet, day_or_raw, identity, parse_date_ms
from memoir_tui.panes.base import Pane, PaneCommand
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell

if TYPE_CHECKING:  # the dialogs are imported when a key first opens one, not for the first screen
    from memoir_tui.core import Memoir, Outcome
    from memoir_tui.dialogs.forms import ItemDraft, SessionEnd
    from memoir_tui.dialogs.items import Answer, Rewording


def item_columns(date_label: str) -> tuple[ColumnSpec, ...]:
    return (
        ColumnSpec("text", "Text", weight=1, min_width=12),
        ColumnSpec("date", date_label, width=10),
        ColumnSpec("machine", "Machine", width=12),
        ColumnSpec("project", "Project", width=24, fit=True),
    )


COMPLETED_COLUMNS = (
    ColumnSpec("text", "Text", weight=1, min_width=12),
    ColumnSpec("how", "How", width=9),
    ColumnSpec("done", "Done", width=10),
)
HOW = {"completed": "done", "removed": "removed", "undone": "undone", "rotated": "pushed out"}
KIND_OF_LIST = {
    "next_actions": "",
    "goals": "goal ",
    "open_questions": "question ",
    "decisions": "decision ",
}
"""How an action left its list: nothing leaves silently, a full list's push-outs included."""

# table id → (title, item kind added by `a` while that table has focus, date column)
SECTIONS: dict[str, tuple[str, str, str]] = {
    "goals": ("Goals", "goal", "Set on"),
    "next-actions": ("Next actions", "next_action", "Added"),
    "questions": ("Open questions", "question", "Asked"),
    "completed": ("Recently completed", "next_action", "Done"),
}


WELCOME = """Welcome to memoir-tui: see, prune and carry what your coding assistants remember, shared with your agents over MCP and your other machines over git.

This store is empty. To start:
  a                       add a goal, next action or question
  memoir-tui capture      queue decisions from Claude Code for review
  memoir-tui install-mcp  let an assistant use this memory
  memoir-tui sync init    carry it to your other machines (git)
  memoir-tui --demo       look around a store full of examples
? lists every key · ctrl+p every command"""


def is_empty_store(ws: WorkingSet) -> bool:
    return not (
        ws.all_goals
        or ws.all_next_actions
        or ws.all_questions
        or any(c.reason == "completed" for c in ws.completed_actions)
        or ws.all_decisions
        or ws.tombstones
        or ws.history
        or ws.elsewhere
    )


TABLE_LISTS = {"goals": "goals", "next-actions": "next_actions", "questions": "open_questions"}
TABLE_OF_KIND = {"goal": "goals", "next_action": "next-actions", "question": "questions"}
LIST_KEYS = {"goal": "goals", "next_action": "next_actions", "question": "open_questions"}

# Completed actions listed (newest first); the tombstones themselves are kept far longer.
COMPLETED_ROWS = 50


def item_rows(items: tuple[Item, ...]) -> list[TableRow]:
    return [
        TableRow(
            identity(i.text),
            (
                cell(i.text if i.place == "live" else f"[{i.place}] {i.text}"),
                cell(day_or_raw(i.date)),
                cell(i.machine_label),
                cell(i.project_label or "global"),
            ),
        )
        for i in items
    ]


def left_the_lists(ws: WorkingSet) -> list[tuple[str, CompletedAction]]:
    """Everything that left a list, newest first, with the list it left: completed and
    removed actions and goals, answered questions, what undo or a full list took off."""
    left = [
        *(("next_actions", c) for c in ws.completed_actions),
        *(("goals", c) for c in ws.completed_goals),
        *(("open_questions", c) for c in ws.closed_questions),
        *(("decisions", c) for c in ws.rotated_decisions),
    ]
    return sorted(left, key=lambda lc: parse_date_ms(lc[1].done_at), reverse=True)


def left_key(list_key: str, done: CompletedAction) -> str:
    return f"{list_key}:{identity(done.text)}"


def completed_rows(items: list[tuple[str, CompletedAction]]) -> list[TableRow]:
    return [
        TableRow(
            left_key(list_key, c),
            (
                cell(c.text, "dim"),
                cell(
                    KIND_OF_LIST[list_key] + HOW.get(c.reason, c.reason),
                    "dim" if c.reason in ("completed", "answered") else "",
                ),
                cell(day_or_raw(c.done_at)),
            ),
        )
        for list_key, c in items
    ]


class WorkingSetPane(Pane):
    """What you are working towards and what comes next.

    | Key(s) | Description |
    | :- | :- |
    | enter | Open the selected item in full. |
    | a | Add a goal, next action or question (the focused list's kind first). |
    | e | Edit the selected item's text. |
    | x | Complete it: an action or goal done, a question answered; on a done one, reopen it. |
    | d | Remove the selected goal, next action or question (asks; u undoes it). |
    | l | Bring a parked next action back to the live list (the oldest live one is parked). |
    | s | Record the end of a session with a summary. |
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
            "e", "edit", "Edit", tooltip="Edit the selected item's text", id="working_set.edit"
        ),
        Binding(
            "x",
            "complete",
            "Complete",
            tooltip="Complete the selected action or goal, close a question, reopen a done one",
            id="working_set.complete",
        ),
        Binding(
            "d",
            "remove",
            "Remove",
            tooltip="Remove the selected goal, next action or question (asks first)",
            id="working_set.remove",
        ),
        Binding(
            "l",
            "unpark",
            "Unpark",
            show=False,
            tooltip="Bring a parked next action back to the live list",
            id="working_set.unpark",
        ),
        Binding(
            "s",
            "session_end",
            "End session",
            tooltip="Record the end of this session with a summary",
            id="working_set.session_end",
        ),
        Binding(
            "enter",
            "open",
            "Open",
            show=False,
            tooltip="Open the selected item in full",
            id="working_set.open",
        ),
    ]

    COMMANDS = (
        PaneCommand("add goal", "add('goal')", "Add a goal to the working set", "working_set.add"),
        PaneCommand(
            "add next action", "add('next_action')", "Add a next action", "working_set.add"
        ),
        PaneCommand("ask question", "add('question')", "Add an open question", "working_set.add"),
        PaneCommand(
            "unpark next action",
            "unpark",
            "Bring the selected parked next action back to the live list",
            "working_set.unpark",
        ),
        PaneCommand("open item", "open", "Show the selected item in full", "working_set.open"),
        PaneCommand("edit item", "edit", "Change the selected item's text", "working_set.edit"),
        PaneCommand(
            "complete or close",
            "complete",
            "Complete an action or goal, close a question, reopen a completed one",
            "working_set.complete",
        ),
        PaneCommand(
            "remove item", "remove", "Remove the selected item (u undoes it)", "working_set.remove"
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
    WorkingSetPane > #welcome {
        display: none;
        height: auto;
        padding: 1 2;
        border: round $primary;
        margin: 0 1;
    }
    WorkingSetPane.-empty > #welcome {
        display: block;
    }
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
        self._cursor_to: tuple[str, str] | None = None  # (table id, row key) once drawn

    def compose(self) -> ComposeResult:
        yield Static(WELCOME, id="welcome", markup=False)
        for table_id, (_title, _kind, date_label) in SECTIONS.items():
            columns = COMPLETED_COLUMNS if table_id == "completed" else item_columns(date_label)
            yield ItemTable(columns, id=table_id, classes="ws-list")

    def table(self, table_id: str) -> ItemTable:
        return self.query_one(f"#{table_id}", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table("next-actions"))

    def show_reading(self, note: str) -> None:
        """No snapshot yet: every list says ``note`` ("reading…"), never "empty" or a count."""
        self.set_class(False, "-empty")
        for table_id, (title, _kind, _date) in SECTIONS.items():
            self.table(table_id).set_rows([], title=f"{title} · {note}")

    def show_state(self, ws: WorkingSet) -> None:
        self.state = ws
        # A store with nothing in it yet greets the person and says where to start; a
        # damaged or newer one is not empty (the banner above says what it is).
        loaded = getattr(self.app, "loaded", None)
        damaged = loaded is not None and bool(loaded.damage)
        self.set_class(is_empty_store(ws) and not damaged, "-empty")
        done = left_the_lists(ws)
        # Past the live caps (parked, archived) after the live ones: kept, shown, reachable.
        lists = {
            "goals": (item_rows(ws.all_goals), len(ws.all_goals)),
            "next-actions": (item_rows(ws.all_next_actions), len(ws.all_next_actions)),
            "questions": (item_rows(ws.all_questions), len(ws.all_questions)),
            "completed": (
                completed_rows(done[:COMPLETED_ROWS]),
                len(done),
            ),
        }
        overflow = {
            "goals": (len(ws.archived_goals), "archived"),
            "next-actions": (len(ws.parked_actions), "parked"),
            "questions": (len(ws.archived_questions), "archived"),
        }
        for table_id, (rows, count) in lists.items():
            title = f"{SECTIONS[table_id][0]} · {count}"
            extra, place = overflow.get(table_id, (0, ""))
            if extra:
                title += f" ({extra} {place})"
            if len(rows) < count:
                title += f" (newest {len(rows)})"
            elif not count and table_id != "completed":
                title += " · a adds one"
            self.table(table_id).set_rows(rows, title=title)
        if self._cursor_to is not None:
            # An item just added or reworded: the cursor goes to it, where the next key acts.
            table_id, key = self._cursor_to
            if self.table(table_id).move_to_key(key):
                self._cursor_to = None

    # --- actions --------------------------------------------------------------

    def _focused_table_id(self) -> str | None:
        focused = self.screen.focused
        if isinstance(focused, ItemTable) and focused.id in SECTIONS:
            return focused.id
        return None

    def selected_item(self) -> tuple[str, Item | CompletedAction] | None:
        """(table id, the item under its cursor) of the focused list, or None."""
        table_id = self._focused_table_id()
        ws = self.state
        if table_id is None or ws is None:
            return None
        key = self.table(table_id).cursor_key
        pool: tuple[Item, ...] = {
            "goals": ws.all_goals,
            "next-actions": ws.all_next_actions,
            "questions": ws.all_questions,
        }.get(table_id, ())
        if table_id == "completed":
            left = dict((left_key(lk, c), c) for lk, c in left_the_lists(ws)[:COMPLETED_ROWS])
            done = left.get(key or "")
            return (table_id, done) if done is not None else None
        found = next((i for i in pool if identity(i.text) == key), None)
        return (table_id, found) if found is not None else None

    def _live_item(self, verb: str) -> tuple[str, Item] | None:
        chosen = self.selected_item()
        if chosen is None or not isinstance(chosen[1], Item):
            self.app.notify(
                f"Select a goal, next action or question to {verb}.", severity="warning"
            )
            return None
        return chosen[0], chosen[1]

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        chosen = self.selected_item()
        if chosen is not None:
            from memoir_tui.dialogs.items import ItemDetailScreen

            self.app.push_screen(ItemDetailScreen(chosen[1]))

    def action_add(self, kind: str | None = None) -> None:
        from memoir_tui.dialogs.forms import AddItemScreen

        if kind is None:
            kind = SECTIONS.get(self._focused_table_id() or "", ("", "next_action", ""))[1]
        store = self.host.store

        def save(draft: ItemDraft) -> Callable[[Memoir], Outcome]:
            text = draft.text
            if draft.kind == "goal":
                return lambda store: store.add_goal(text)
            if draft.kind == "question":
                return lambda store: store.ask_question(text)
            return lambda store: store.add_next_action(text)

        def would_rotate(item_kind: str) -> tuple[str, ...]:
            return store.would_rotate(LIST_KEYS[item_kind])

        def added(draft: ItemDraft | None) -> None:
            if draft is not None:
                self._go_to(TABLE_OF_KIND[draft.kind], draft.text)

        self.app.push_screen(AddItemScreen(kind, save=save, would_rotate=would_rotate), added)

    def action_edit(self) -> None:
        chosen = self._live_item("edit")
        if chosen is None:
            return
        from memoir_tui.dialogs.items import RewordScreen

        table_id, item = chosen
        list_key, old = TABLE_LISTS[table_id], item.text

        def save(draft: Rewording) -> Callable[[Memoir], Outcome]:
            # The item keeps its project unless the dialog's Project field moves it.
            return lambda store: store.edit_item(list_key, old, draft.text, project=draft.project)

        def reworded(draft: Rewording | None) -> None:
            if draft is not None:
                self._go_to(table_id, draft.text)

        store = self.host.store
        here = (store.project, store.project_label or store.project) if store.project else None
        self.app.push_screen(RewordScreen(item, save=save, here=here), reworded)

    def show_item(self, table_id: str, text: str) -> None:
        """Put the cursor on the item with ``text`` in list ``table_id`` (another pane's jump)."""
        self._go_to(table_id, text)

    def _go_to(self, table_id: str, text: str) -> None:
        table = self.table(table_id)
        self._cursor_to = (table_id, identity(text))
        self.focus_now(table)
        if table.move_to_key(identity(text)):  # already drawn
            self._cursor_to = None

    def action_complete(self) -> None:
        chosen = self.selected_item()
        if chosen is None:
            self.app.notify(
                "Select an item first (tab moves between the lists).", severity="warning"
            )
            return
        table_id, item = chosen
        text = item.text
        if table_id == "completed":
            list_key = (self.table("completed").cursor_key or "").partition(":")[0]
            if list_key == "decisions":
                self.app.notify(
                    "A decision a full list pushed out comes back by noting it again "
                    "(Decisions pane).",
                    severity="warning",
                )
                return
            # It comes back in the project it was completed in, not the one showing it.
            back: dict[str, str] = {"text": text}
            if isinstance(item, CompletedAction) and item.project:
                back["project"] = item.project
            self.host.write(lambda store: store.revive_item(list_key, back))
        elif table_id == "next-actions":
            self.host.write(lambda store: store.complete_next_action(text))
        elif table_id == "goals":
            self.host.write(lambda store: store.remove_item("goals", text, reason="completed"))
        elif isinstance(item, Item):
            from memoir_tui.dialogs.items import CloseQuestionScreen

            def save(answer: Answer) -> Callable[[Memoir], Outcome]:
                return lambda store: store.close_question(
                    text, answer=answer.text or None, as_decision=answer.as_decision
                )

            self.app.push_screen(CloseQuestionScreen(item, save=save))

    def action_unpark(self) -> None:
        chosen = self.selected_item()
        if (
            chosen is None
            or chosen[0] != "next-actions"
            or not isinstance(chosen[1], Item)
            or chosen[1].place != "parked"
        ):
            self.app.notify(
                "Select a [parked] next action to bring it back to the live list.",
                severity="warning",
            )
            return
        text = chosen[1].text
        self.host.write(lambda store: store.unpark_action(text))

    def action_remove(self) -> None:
        chosen = self._live_item("remove")
        if chosen is None:
            return
        from memoir_tui.dialogs.confirm import ConfirmScreen
        from memoir_tui.dialogs.items import KIND_NAMES, item_details

        table_id, item = chosen
        list_key, text = TABLE_LISTS[table_id], item.text
        noun = KIND_NAMES.get(item.kind, "item").lower()

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(lambda store: store.remove_item(list_key, text))

        self.app.push_screen(
            ConfirmScreen(
                f"Remove this {noun}?",
                item_details(item),
                warning="It leaves the list on every machine (a record of it is kept, so it "
                "does not come back); u undoes it.",
                yes_label="Remove (y)",
                no_label="Cancel (n)",
            ),
            answered,
        )

    def action_session_end(self) -> None:
        from memoir_tui.dialogs.forms import SessionEndScreen

        def save(end: SessionEnd) -> Callable[[Memoir], Outcome]:
            return lambda store: store.record_session_end(
                end.summary, end.files_touched, end.duration_min
            )

        self.app.push_screen(SessionEndScreen(save=save))
