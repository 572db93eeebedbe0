"""``StoreBar``: the one-line header naming the store, the machine and its mode."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label


class StoreBar(Horizontal):
    """Shows ``memoir``, the store path, the scope, this machine's label, the caps in force
    (when they are not our defaults) and ``READ-ONLY``.

    No key bindings.
    """

    DEFAULT_CSS = """
    StoreBar {
        dock: top;
        height: 1;
        width: 1fr;
        background: $panel;
        color: $foreground;
    }
    StoreBar > Label {
        width: auto;
        padding: 0 1;
    }
    StoreBar > .store-bar--brand {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    StoreBar > .store-bar--path {
        width: 1fr;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    StoreBar > .store-bar--scope {
        max-width: 60%;
        color: $text-accent;
        text-style: bold;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    StoreBar > .store-bar--caps {
        display: none;
        max-width: 50%;
        color: $text-warning;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    StoreBar.-caps-note > .store-bar--caps {
        display: block;
    }
    StoreBar > .store-bar--machine {
        color: $text-muted;
    }
    StoreBar > .store-bar--mode {
        display: none;
        background: $error;
        color: $text;
        text-style: bold;
    }
    StoreBar.-read-only > .store-bar--mode {
        display: block;
    }
    """

    def __init__(
        self, path: str, machine: str, *, read_only: bool = False, caps_note: str = ""
    ) -> None:
        """``caps_note`` (shown only when given) says which caps are in force and why,
        when they are not memoir-tui's defaults."""
        super().__init__(id="store-bar")
        self._path = path
        self._machine = machine
        self._caps_note = caps_note
        self.set_class(read_only, "-read-only")
        self.set_class(bool(caps_note), "-caps-note")

    def compose(self) -> ComposeResult:
        yield Label("memoir", classes="store-bar--brand")
        yield Label(self._path, classes="store-bar--path", markup=False)
        yield Label("", id="store-bar-scope", classes="store-bar--scope", markup=False)
        yield Label(f"machine: {self._machine}", classes="store-bar--machine", markup=False)
        yield Label(self._caps_note, id="store-bar-caps", classes="store-bar--caps", markup=False)
        yield Label("READ-ONLY", classes="store-bar--mode")

    @property
    def read_only(self) -> bool:
        return self.has_class("-read-only")

    @property
    def caps_note(self) -> str:
        return self._caps_note

    @property
    def scope(self) -> str:
        return str(self.query_one("#store-bar-scope", Label).content)

    def set_scope(self, text: str) -> None:
        """Name the scope every pane shows: the project as a person reads it, or all."""
        self.query_one("#store-bar-scope", Label).update(text)

    def set_caps_note(self, text: str) -> None:
        """Say the caps again (the JavaScript memoir's files may appear while open)."""
        self._caps_note = text
        self.query_one("#store-bar-caps", Label).update(text)
        self.set_class(bool(text), "-caps-note")

    def set_read_only(self, read_only: bool) -> None:
        self.set_class(read_only, "-read-only")
