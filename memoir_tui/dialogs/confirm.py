"""Confirmation dialogs: a yes/no question, and one that needs a typed word."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.console import RenderableType
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from memoir_tui.dialogs.base import DialogScreen


def normalise_words(text: str) -> list[str]:
    """Lower-cased words without surrounding punctuation, for typed confirmations."""
    return [w for w in (re.sub(r"^\W+|\W+$", "", part) for part in text.lower().split()) if w]


class ConfirmScreen(DialogScreen[bool]):
    """Ask a yes/no question; dismisses with ``True`` only on an explicit yes.

    The *No* button has the focus, so an absent-minded ``enter`` cancels.

    | Key(s) | Description |
    | :- | :- |
    | y | Yes: do it. |
    | n, escape | No: cancel. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(
        self,
        title: str,
        body: RenderableType,
        *,
        warning: str = "",
        yes_label: str = "Yes (y)",
        no_label: str = "No (n)",
        danger: bool = False,
    ) -> None:
        super().__init__(classes="-danger" if danger else None)
        self._title = title
        self._body = body
        self._warning = warning
        self._yes_label = yes_label
        self._no_label = no_label
        self._danger = danger

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label(self._title, classes="dialog--title", markup=False)
            with VerticalScroll(classes="dialog--body"):
                yield Static(self._body, id="confirm-body")
            if self._warning:
                yield Static(self._warning, classes="dialog--warning", markup=False)
            with Horizontal(classes="dialog--buttons"):
                yield Button(
                    self._yes_label,
                    id="yes",
                    variant="error" if self._danger else "primary",
                    compact=True,
                )
                yield Button(self._no_label, id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")


class TypeToConfirmScreen(DialogScreen[bool]):
    """Confirm a destructive act by typing a word (or the first words of the thing).

    ``enter`` with anything else refuses: the dialog stays open and says why.

    | Key(s) | Description |
    | :- | :- |
    | enter | Confirm, if the typed text is accepted. |
    | escape | Cancel. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="confirm_typed.cancel"),
    ]

    DEFAULT_CSS = """
    TypeToConfirmScreen .dialog--body {
        max-height: 28vh;
    }
    """

    def __init__(
        self,
        title: str,
        body: RenderableType,
        *,
        warning: str,
        word: str,
        phrase: str = "",
        phrase_words: int = 3,
        confirm_label: str = "Confirm",
    ) -> None:
        super().__init__(classes="-danger")
        self._title = title
        self._body = body
        self._warning = warning
        self.word = word.lower()
        self._phrase = normalise_words(phrase)
        self._phrase_words = min(phrase_words, len(self._phrase))
        self._phrase_hint = " ".join(phrase.split()[: self._phrase_words])
        self._confirm_label = confirm_label

    @property
    def phrase_hint(self) -> str:
        """The first words of the phrase, as written, for the prompt."""
        return self._phrase_hint

    def accepts(self, typed: str) -> bool:
        words = normalise_words(typed)
        if words == [self.word]:
            return True
        if not self._phrase or len(words) < self._phrase_words:
            return False
        return words == self._phrase[: len(words)]

    def compose(self) -> ComposeResult:
        hint = f"To confirm, type {self.word!r}"
        if self._phrase:
            hint += f" or the first words, {self.phrase_hint!r},"
        hint += " and press enter:"
        with VerticalScroll(id="dialog"):
            yield Label(self._title, classes="dialog--title", markup=False)
            with VerticalScroll(classes="dialog--body"):
                yield Static(self._body, id="confirm-body")
            yield Static(self._warning, classes="dialog--warning", markup=False)
            yield Label(hint, classes="dialog--label", markup=False)
            yield Input(placeholder=self.word, id="confirm-input")
            yield Label("", id="confirm-error", classes="dialog--error", markup=False)
            with Horizontal(classes="dialog--buttons"):
                yield Button(self._confirm_label, id="confirm", variant="error", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def _try_confirm(self) -> None:
        typed = self.query_one(Input).value
        if self.accepts(typed):
            self.dismiss(True)
            return
        error = self.query_one("#confirm-error", Label)
        said = f"you typed {typed.strip()!r}" if typed.strip() else "nothing was typed"
        error.update(f"Not confirmed: {said}. Type {self.word!r} to go ahead.")
        error.add_class("-shown")
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._try_confirm()

    @on(Button.Pressed, "#confirm")
    def _confirm_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._try_confirm()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(False)

    def action_cancel(self) -> None:
        self.dismiss(False)
