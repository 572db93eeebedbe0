"""``DialogScreen``: the frame every modal dialog in the app shares."""

from __future__ import annotations

from typing import TypeVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

ResultType = TypeVar("ResultType")


class DialogScreen(ModalScreen[ResultType]):
    """A centred, bordered modal. Subclasses compose a ``#dialog`` container.

    Class names used inside ``#dialog``: ``dialog--title``, ``dialog--body``,
    ``dialog--warning``, ``dialog--error``, ``dialog--hint``, ``dialog--buttons``
    and ``dialog--label`` (a field label above an input).

    No key bindings of its own; subclasses bind ``escape`` to cancel.
    """

    DEFAULT_CSS = """
    DialogScreen {
        align: center middle;
    }
    DialogScreen > #dialog {
        width: 94%;
        max-width: 96;
        height: auto;
        max-height: 92%;
        border: thick $primary 80%;
        background: $surface;
        padding: 0 1;
    }
    DialogScreen.-danger > #dialog {
        border: thick $error 80%;
    }
    DialogScreen .dialog--title {
        width: 1fr;
        text-style: bold;
        padding: 0 0 1 0;
    }
    DialogScreen .dialog--body {
        height: auto;
        max-height: 40vh;
        padding: 0 0 1 0;
    }
    DialogScreen .dialog--warning {
        width: 1fr;
        color: $text-warning;
        padding: 0 0 1 0;
    }
    DialogScreen.-danger .dialog--warning {
        color: $text-error;
    }
    DialogScreen .dialog--error {
        width: 1fr;
        color: $text-error;
        text-style: bold;
        display: none;
    }
    DialogScreen .dialog--error.-shown {
        display: block;
    }
    DialogScreen .dialog--label {
        width: 1fr;
        color: $text-muted;
        padding: 0;
    }
    DialogScreen .dialog--hint {
        width: 1fr;
        color: $text-muted;
    }
    DialogScreen .dialog--buttons {
        height: auto;
        width: 1fr;
        align-horizontal: right;
    }
    DialogScreen .dialog--buttons {
        padding: 1 0 0 0;
    }
    DialogScreen .dialog--buttons > Button {
        margin-left: 2;
    }
    """


class DetailScreen(DialogScreen[None]):
    """A read-only record in full: a title, a body that scrolls, "esc closes".

    Subclasses give :meth:`detail_title` and :meth:`detail_body`, and bind
    their own close keys (each binding has an id of its own) to ``close``.
    """

    DEFAULT_CSS = """
    DetailScreen .dialog--body {
        max-height: 70vh;
    }
    """

    def detail_title(self) -> str:
        raise NotImplementedError

    def detail_body(self) -> RenderableType:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label(self.detail_title(), classes="dialog--title", markup=False)
            with VerticalScroll(classes="dialog--body"):
                yield Static(self.detail_body(), id="detail-body")
            yield Label("esc closes", classes="dialog--hint")

    def action_close(self) -> None:
        self.dismiss(None)
