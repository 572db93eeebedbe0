"""The passphrase dialog: asked for when an encrypted sync remote has none set."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from memoir_tui.dialogs.forms import FormDialog

if TYPE_CHECKING:
    pass


class PassphraseScreen(FormDialog[str | None]):
    """Ask for the passphrase of an encrypted remote (kept in memory for this run only).

    | Key(s) | Description |
    | :- | :- |
    | enter | Next field; go ahead from the last one. |
    | ctrl+s | Go ahead. |
    | escape | Cancel. |
    """

    def __init__(self, action: str, reason: str = "") -> None:
        super().__init__()
        self.action = action
        self.reason = reason

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Passphrase for the encrypted remote", classes="dialog--title")
            if self.reason:
                yield Static(self.reason, classes="dialog--warning", markup=False)
            yield Label("Passphrase", classes="dialog--label")
            yield Input(password=True, id="passphrase")
            yield Label(
                "Repeat it (a remote encrypted for the first time uses it for good)",
                classes="dialog--label",
            )
            yield Input(password=True, id="repeat")
            yield Label("", id="dialog-error", classes="dialog--error")
            yield Label(
                "Never written to disk; set MEMOIR_PASSPHRASE or a key file to skip this.",
                classes="dialog--hint",
            )
            with Horizontal(classes="dialog--buttons"):
                yield Button(
                    f"{self.action.capitalize()} (ctrl+s)",
                    id="save",
                    variant="primary",
                    compact=True,
                )
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#passphrase", Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "repeat":
            self.action_save()
        else:
            self.focus_next(Input)

    def action_save(self) -> None:
        first = self.query_one("#passphrase", Input).value
        if not first:
            self.show_error("Type the passphrase.")
            self.query_one("#passphrase", Input).focus()
            return
        if self.query_one("#repeat", Input).value != first:
            self.show_error("The two passphrases differ.")
            self.query_one("#repeat", Input).focus()
            return
        self.dismiss(first)
