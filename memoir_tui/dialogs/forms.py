"""The dialogs of the working-set and decisions panes.

Each dialog only collects input and dismisses with a small frozen value (or
``None`` when cancelled); the pane turns that value into one ``Memoir`` call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, cast

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select

from memoir_tui.core import Decision, identity
from memoir_tui.dialogs.base import DetailScreen, DialogScreen
from memoir_tui.widgets.item_table import long_date

if TYPE_CHECKING:
    from textual.screen import Screen

    from memoir_tui.core import Memoir, Outcome

T = TypeVar("T")

ITEM_KINDS: dict[str, str] = {
    "goal": "Goal",
    "next_action": "Next action",
    "question": "Open question",
}


@dataclass(frozen=True, slots=True)
class ItemDraft:
    kind: str  # a key of ITEM_KINDS
    text: str


@dataclass(frozen=True, slots=True)
class SessionEnd:
    summary: str
    files_touched: tuple[str, ...]
    duration_min: float | None


@dataclass(frozen=True, slots=True)
class DecisionDraft:
    text: str
    why: str
    rejected: str
    project: str | bool | None = False
    """False: stays in its project; None: moved to global; an id: moved to that project."""


# --- the project an item is in: kept by an edit, changed only by choosing it ---------------

KEEP = "keep"
GLOBAL = "global"


def project_choices(
    project: str, label: str, here: tuple[str, str] | None
) -> list[tuple[str, str]]:
    """(what the person reads, value): keep the item where it is, or move it to global
    or to ``here`` (the id and label of the project the app is opened in)."""
    choices = [(f"keep it in {label or ('global' if not project else 'its project')}", KEEP)]
    if project:
        choices.append(("move it to global (every project)", GLOBAL))
    if here is not None and here[0] != project:
        choices.append((f"move it to this project ({here[1]})", here[0]))
    return choices


def project_fields(choices: list[tuple[str, str]]) -> ComposeResult:
    if len(choices) > 1:
        yield Label("Project", classes="dialog--label")
        yield Select(choices, value=KEEP, allow_blank=False, id="project", compact=True)


def chosen_project(screen: Screen[Any]) -> str | bool | None:
    """The dialog's project field as ``edit_item``/``edit_decision`` take it."""
    for select in screen.query("#project").results(Select):
        value = str(select.value)
        return False if value == KEEP else None if value == GLOBAL else value
    return False


def decision_details(decision: Decision, *, with_key: bool = False) -> RenderableType:
    """A decision in full, as a two-column grid (used by detail and confirm dialogs)."""
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    if decision.purged:
        grid.add_row("Text", Text("[purged] only its hash remains", style="italic"))
        grid.add_row("Hash", Text(decision.key))
    else:
        grid.add_row("Text", Text(decision.text))
        grid.add_row("Why", Text(decision.why or "—", style="" if decision.why else "dim"))
        grid.add_row(
            "Rejected", Text(decision.rejected or "—", style="" if decision.rejected else "dim")
        )
    grid.add_row("Date", Text(long_date(decision.date) or "—"))
    grid.add_row("Machine", Text(decision.machine_label or decision.machine_id or "—"))
    if decision.project:
        grid.add_row("Project", Text(decision.project_label or decision.project))
    if decision.hidden:
        grid.add_row("Hidden at", Text(long_date(decision.hidden_at) or "(no date)"))
    if with_key and not decision.purged:
        grid.add_row("Key", Text(decision.key, style="dim"))
    return grid


D = TypeVar("D")
SaveChange = Callable[[D], Callable[["Memoir"], "Outcome"]]
"""What a dialog's draft does to the store: the change ``MemoirApp.write`` runs."""


class _Writer(Protocol):
    def write(
        self,
        change: Callable[[Memoir], Outcome],
        *,
        on_done: Callable[[Outcome], None] | None = ...,
        on_error: Callable[[str], None] | None = ...,
    ) -> object: ...


class FormDialog(DialogScreen[T]):
    """Base of the input dialogs: shared keys, error line and buttons.

    | Key(s) | Description |
    | :- | :- |
    | ctrl+s | Save. |
    | escape | Cancel. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
        Binding("ctrl+s", "save", "Save", id="dialog.save"),
    ]

    def __init__(self, *, save: SaveChange[Any] | None = None) -> None:
        super().__init__()
        self._save = save
        self.saving = False

    def action_cancel(self) -> None:
        self.dismiss(None)

    def finish(self, draft: T) -> None:
        """Close with ``draft``; with a ``save`` function, write it first and close only
        once it is on disk. A refusal (a secret, a forgotten text, too long, a duplicate)
        is shown inside the dialog, and what was typed stays."""
        if self._save is None:
            self.dismiss(draft)
            return
        if self.saving:
            return  # enter pressed twice: the first save is still running
        self.saving = True
        host = cast(_Writer, self.app)
        host.write(
            self._save(draft),
            on_done=lambda outcome: self._saved(draft, outcome),
            on_error=self._refused,
        )

    def _saved(self, draft: T, outcome: Outcome) -> None:
        self.saving = False
        if outcome.changed:
            self.dismiss(draft)
        else:
            self.show_error(outcome.message)

    def _refused(self, message: str) -> None:
        self.saving = False
        self.show_error(message)

    def action_save(self) -> None:
        raise NotImplementedError

    def show_error(self, message: str) -> None:
        error = self.query_one("#dialog-error", Label)
        error.update(message)
        error.add_class("-shown")

    @on(Button.Pressed, "#save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)


def form_buttons(save: str) -> Horizontal:
    return Horizontal(
        Button(save, id="save", variant="primary", compact=True),
        Button("Cancel (esc)", id="cancel", compact=True),
        classes="dialog--buttons",
    )


class AddItemScreen(FormDialog[ItemDraft | None]):
    """Add a goal, a next action or an open question.

    | Key(s) | Description |
    | :- | :- |
    | enter | Add (in the text box). |
    | ctrl+s | Add. |
    | ctrl+g | Make it a goal. |
    | ctrl+n | Make it a next action. |
    | ctrl+o | Make it an open question. |
    | escape | Cancel. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+g", "kind('goal')", "Goal", id="add_item.goal"),
        Binding("ctrl+n", "kind('next_action')", "Next action", id="add_item.next_action"),
        Binding("ctrl+o", "kind('question')", "Question", id="add_item.question"),
    ]

    DEFAULT_CSS = """
    AddItemScreen RadioSet {
        layout: horizontal;
        width: 1fr;
        height: auto;
        border: none;
        padding: 0;
    }
    AddItemScreen RadioSet > RadioButton {
        width: auto;
        margin-right: 2;
    }
    """

    def __init__(
        self,
        kind: str = "next_action",
        *,
        save: SaveChange[ItemDraft] | None = None,
        would_rotate: Callable[[str], tuple[str, ...]] | None = None,
    ) -> None:
        super().__init__(save=save)
        self._would_rotate = would_rotate
        self._warned_rotation: set[str] = set()
        self.initial_kind = kind if kind in ITEM_KINDS else "next_action"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Add to the working set", classes="dialog--title")
            with RadioSet(id="kind"):
                for kind, label in ITEM_KINDS.items():
                    yield RadioButton(label, value=kind == self.initial_kind, id=f"kind-{kind}")
            yield Label("Text", classes="dialog--label")
            yield Input(placeholder="what, in one line", id="text")
            yield Label("", id="dialog-error", classes="dialog--error")
            yield Label(
                "enter adds · ctrl+g goal · ctrl+n next action · ctrl+o question · esc cancels",
                classes="dialog--hint",
            )
            yield form_buttons("Add")

    def on_mount(self) -> None:
        self.query_one("#text", Input).focus()

    def action_kind(self, kind: str) -> None:
        self.query_one(f"#kind-{kind}", RadioButton).value = True

    @property
    def kind(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        if pressed is None or pressed.id is None:
            return self.initial_kind
        return pressed.id.removeprefix("kind-")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_save()

    def action_save(self) -> None:
        text = self.query_one("#text", Input).value
        if not text.strip():
            self.show_error("Type some text first.")
            return
        kind = self.kind
        pushed_out = self._would_rotate(kind) if self._would_rotate else ()
        if pushed_out and kind not in self._warned_rotation:
            # Nothing leaves a list silently: say what a full list would push out first.
            self._warned_rotation.add(kind)
            names = "; ".join(f"“{t}”" for t in pushed_out)
            place = "parked" if kind == "next_action" else "archived"
            self.show_error(
                f"The list is full: adding this moves {names} past the live list ({place}: "
                "still kept and shown, no longer pinned; u undoes the add). Add again to "
                "go ahead."
            )
            return
        self.finish(ItemDraft(kind, text))


class SessionEndScreen(FormDialog[SessionEnd | None]):
    """Record the end of a working session in the history.

    | Key(s) | Description |
    | :- | :- |
    | enter | Next field; save from the last one. |
    | ctrl+s | Save. |
    | escape | Cancel. |
    """

    DEFAULT_CSS = """
    SessionEndScreen #fields {
        height: auto;
    }
    SessionEndScreen #minutes {
        width: 16;
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Record the end of this session", classes="dialog--title")
            yield Label("Summary (required): what got done, in a sentence", classes="dialog--label")
            yield Input(placeholder="e.g. CSV export done; tests green", id="summary")
            yield Label("Files touched (comma-separated, optional)", classes="dialog--label")
            yield Input(placeholder="cli/tideline/export.py, cli/tests/test_export.py", id="files")
            yield Label("Duration in minutes (optional)", classes="dialog--label")
            yield Input(placeholder="45", id="minutes", type="number")
            yield Label("", id="dialog-error", classes="dialog--error")
            yield form_buttons("Save")

    def on_mount(self) -> None:
        self.query_one("#summary", Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "minutes":
            self.action_save()
        else:
            self.focus_next()

    def action_save(self) -> None:
        summary = self.query_one("#summary", Input).value
        if not summary.strip():
            self.show_error("A summary is required.")
            self.query_one("#summary", Input).focus()
            return
        files = tuple(
            f.strip() for f in self.query_one("#files", Input).value.split(",") if f.strip()
        )
        minutes_text = self.query_one("#minutes", Input).value.strip()
        minutes: float | None = None
        if minutes_text:
            try:
                minutes = float(minutes_text)
            except ValueError:
                self.show_error("Duration must be a number of minutes.")
                return
            if minutes < 0:
                self.show_error("Duration cannot be negative.")
                return
            if minutes.is_integer():
                minutes = int(minutes)
        self.finish(SessionEnd(summary, files, minutes))


class DecisionFieldsDialog(FormDialog[T]):
    """A form around a decision's text, why and rejected (noting one, or pinning one).

    The text is focused first and required; ``enter`` moves to the next field
    and saves from the last. It has no bindings beyond :class:`FormDialog`'s.
    """

    WHY_PLACEHOLDER: ClassVar[str] = "optional, strongly encouraged"
    REJECTED_PLACEHOLDER: ClassVar[str] = "optional, strongly encouraged"

    def decision_fields(self, text_label: str, text: Input) -> ComposeResult:
        """The three labelled fields (``text`` has id ``text``) and the error line."""
        yield Label(text_label, classes="dialog--label")
        yield text
        yield Label(
            "Why — the reason stops future sessions relitigating it", classes="dialog--label"
        )
        yield Input(placeholder=self.WHY_PLACEHOLDER, id="why")
        yield Label(
            "Rejected — the alternatives considered and turned down", classes="dialog--label"
        )
        yield Input(placeholder=self.REJECTED_PLACEHOLDER, id="rejected")
        yield Label("", id="dialog-error", classes="dialog--error")

    def on_mount(self) -> None:
        self.query_one("#text", Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "rejected":
            self.action_save()
        else:
            self.focus_next(Input)

    def decision_values(self) -> tuple[str, str, str] | None:
        """(text, why, rejected), or None after saying that the text is required."""
        text = self.query_one("#text", Input).value
        if not text.strip():
            self.show_error("The decision itself is required.")
            self.query_one("#text", Input).focus()
            return None
        return text, self.query_one("#why", Input).value, self.query_one("#rejected", Input).value


class AddDecisionScreen(DecisionFieldsDialog[DecisionDraft | None]):
    """Note a decision, with why and what was rejected.

    If why or rejected is left empty, the first save attempt only explains why
    they matter; saving again goes ahead without them.

    | Key(s) | Description |
    | :- | :- |
    | enter | Next field; save from the last one. |
    | ctrl+s | Save. |
    | escape | Cancel. |
    """

    WHY_PLACEHOLDER = "e.g. one file, no daemon, readers never block"
    REJECTED_PLACEHOLDER = "e.g. LevelDB; plain JSON files"

    def __init__(self, *, save: SaveChange[DecisionDraft] | None = None) -> None:
        super().__init__(save=save)
        self._nudged = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Note a decision", classes="dialog--title")
            yield from self.decision_fields(
                "Decision (required)",
                Input(placeholder="e.g. Use SQLite in WAL mode for the local cache", id="text"),
            )
            yield form_buttons("Save")

    def action_save(self) -> None:
        values = self.decision_values()
        if values is None:
            return
        text, why, rejected = values
        missing = [
            name for name, value in (("why", why), ("rejected", rejected)) if not value.strip()
        ]
        if missing and not self._nudged:
            self._nudged = True
            self.show_error(
                f"No {' or '.join(missing)} given: the memoir format strongly encourages both, "
                "so a later session does not reopen the question. Fill them in, or save again "
                "to go ahead without."
            )
            self.query_one(f"#{missing[0]}", Input).focus()
            return
        self.finish(DecisionDraft(text, why, rejected))


class EditDecisionScreen(DecisionFieldsDialog[DecisionDraft | None]):
    """Edit a decision. Why and rejected change in place (undo takes it back); a new
    text is a new identity: the old wording is hidden for ever, which the first save
    attempt says before it happens.

    | Key(s) | Description |
    | :- | :- |
    | enter | Next field; save from the last one. |
    | ctrl+s | Save. |
    | escape | Cancel. |
    """

    def __init__(
        self,
        decision: Decision,
        *,
        save: SaveChange[DecisionDraft],
        here: tuple[str, str] | None = None,
    ) -> None:
        """``here``: (id, label) of the project the app is opened in, a place to move to."""
        super().__init__(save=save)
        self.decision = decision
        self.here = here
        self._warned = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Edit a decision", classes="dialog--title")
            yield from self.decision_fields(
                "Decision", Input(self.decision.text, id="text", select_on_focus=False)
            )
            decision = self.decision
            yield from project_fields(
                project_choices(decision.project, decision.project_label, self.here)
            )
            yield form_buttons("Save")

    def on_mount(self) -> None:
        self.query_one("#why", Input).value = self.decision.why
        self.query_one("#rejected", Input).value = self.decision.rejected
        super().on_mount()

    def action_save(self) -> None:
        values = self.decision_values()
        if values is None:
            return
        text, why, rejected = values
        reworded = identity(text) != identity(self.decision.text)
        if reworded and not self._warned:
            self._warned = True
            self.show_error(
                "A new text is a new decision: the old wording will be hidden for ever on "
                "every machine, and this cannot be undone. Save again to go ahead."
            )
            return
        self.finish(DecisionDraft(text, why, rejected, chosen_project(self)))


class DecisionDetailScreen(DetailScreen):
    """A decision in full (read-only).

    | Key(s) | Description |
    | :- | :- |
    | escape, enter, q | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,q", "close", "Close", id="detail.close"),
    ]

    def __init__(self, decision: Decision) -> None:
        super().__init__()
        self.decision = decision

    def detail_title(self) -> str:
        if self.decision.purged:
            return "Purged decision (tombstone, read-only)"
        if self.decision.hidden:
            return "Hidden decision (tombstone, read-only)"
        return "Decision"

    def detail_body(self) -> RenderableType:
        return decision_details(self.decision, with_key=True)
