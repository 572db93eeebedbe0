"""Dialogs for one working-set item: read it in full, reword it, close a question.

Each edit dialog writes through the app before it closes (``FormDialog.finish``),
so a refusal is shown inside it and what was typed stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Checkbox, Input, Label

from memoir_tui.core import CompletedAction, Item
from memoir_tui.dialogs.base import DetailScreen
from memoir_tui.dialogs.forms import (
    FormDialog,
    SaveChange,
    chosen_project,
    form_buttons,
    project_choices,
    project_fields,
)
from memoir_tui.widgets.item_table import long_date

KIND_NAMES = {"goal": "Goal", "next_action": "Next action", "question": "Open question"}
DATE_NAMES = {"goal": "Set on", "next_action": "Added", "question": "Asked"}
REASONS = {
    "completed": "Completed",
    "removed": "Removed",
    "answered": "Answered",
    "reworded": "Reworded",
    "rotated": "Pushed out by a full list",
    "undone": "Undone",
    "moved": "Moved to another project",
}


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(overflow="fold")
    return grid


def item_details(item: Item) -> RenderableType:
    """An item in full: text, dates, machine, project, provenance, an earlier wording."""
    grid = _grid()
    grid.add_row("Text", Text(item.text))
    grid.add_row(DATE_NAMES.get(item.kind, "Date"), Text(long_date(item.date) or "—"))
    grid.add_row("Machine", Text(item.machine_label or item.machine_id or "—"))
    grid.add_row("Project", Text(item.project_label or ("global" if not item.project else "")))
    for name, value in item.provenance:
        grid.add_row(name.replace("_", " ").capitalize(), Text(value))
    if item.reworded_from:
        grid.add_row("Reworded from", Text(f"an earlier wording (hash {item.reworded_from[:12]}…)"))
    return grid


def completed_details(done: CompletedAction) -> RenderableType:
    grid = _grid()
    grid.add_row("Text", Text(done.text))
    grid.add_row(REASONS.get(done.reason, done.reason.capitalize()), Text(long_date(done.done_at)))
    if done.answer:
        grid.add_row("Answer", Text(done.answer))
    return grid


class ItemDetailScreen(DetailScreen):
    """A goal, next action, question or completed action in full (read-only).

    | Key(s) | Description |
    | :- | :- |
    | escape, enter, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="item_detail.close"),
    ]

    def __init__(self, item: Item | CompletedAction) -> None:
        super().__init__()
        self.item = item

    def detail_title(self) -> str:
        if isinstance(self.item, CompletedAction):
            return "Recently completed"
        return KIND_NAMES.get(self.item.kind, "Item")

    def detail_body(self) -> RenderableType:
        if isinstance(self.item, CompletedAction):
            return completed_details(self.item)
        return item_details(self.item)


@dataclass(frozen=True, slots=True)
class Rewording:
    text: str
    project: str | bool | None = False
    """False: stays in its project; None: moved to global; an id: moved to that project."""


class RewordScreen(FormDialog[Rewording | None]):
    """Change the text of a goal, next action or question.

    The text is the item's identity: a new wording is written as a new item and
    the old one gets a tombstone, so no replica brings it back (``u`` undoes it).

    | Key(s) | Description |
    | :- | :- |
    | enter | Save. |
    | ctrl+s | Save. |
    | escape | Cancel. |
    """

    DEFAULT_CSS = """
    RewordScreen #project {
        width: 1fr;
    }
    """

    def __init__(
        self,
        item: Item,
        *,
        save: SaveChange[Rewording],
        here: tuple[str, str] | None = None,
    ) -> None:
        """``here``: (id, label) of the project the app is opened in, a place to move to."""
        super().__init__(save=save)
        self.item = item
        self.here = here

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label(f"Edit: {KIND_NAMES.get(self.item.kind, 'item')}", classes="dialog--title")
            yield Label("Text", classes="dialog--label")
            yield Input(self.item.text, id="text", select_on_focus=False)
            item = self.item
            yield from project_fields(project_choices(item.project, item.project_label, self.here))
            yield Label("", id="dialog-error", classes="dialog--error")
            yield Label("enter saves · esc cancels · u undoes afterwards", classes="dialog--hint")
            yield form_buttons("Save")

    def on_mount(self) -> None:
        self.query_one("#text", Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        text = self.query_one("#text", Input).value
        if not text.strip():
            self.show_error("Type some text first (d removes the item).")
            return
        project = chosen_project(self)
        if text.strip() == self.item.text.strip() and project is False:
            self.dismiss(None)  # nothing changed
            return
        self.finish(Rewording(text, project))


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    as_decision: bool


class CloseQuestionScreen(FormDialog[Answer | None]):
    """Close an open question as answered, optionally noting the answer as a decision.

    | Key(s) | Description |
    | :- | :- |
    | enter | Close the question (from the answer box). |
    | ctrl+s | Close the question. |
    | escape | Cancel. |
    """

    DEFAULT_CSS = """
    CloseQuestionScreen Checkbox {
        border: none;
        padding: 0;
        margin-top: 1;
    }
    """

    def __init__(self, question: Item, *, save: SaveChange[Answer]) -> None:
        super().__init__(save=save)
        self.question = question

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Close a question as answered", classes="dialog--title")
            yield Label(self.question.text, classes="dialog--label", markup=False)
            yield Label("Answer (optional)", classes="dialog--label")
            yield Input(placeholder="what was decided or found", id="answer")
            yield Checkbox("Note the answer as a decision too", id="as-decision", compact=True)
            yield Label("", id="dialog-error", classes="dialog--error")
            yield form_buttons("Close question")

    def on_mount(self) -> None:
        self.query_one("#answer", Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        answer = self.query_one("#answer", Input).value
        as_decision = self.query_one("#as-decision", Checkbox).value
        if as_decision and not answer.strip():
            self.show_error("Give the answer to note it as a decision.")
            return
        self.finish(Answer(answer, as_decision))
