"""``FilterBar``: a one-line filter box that reports every keystroke."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label


class FilterBar(Horizontal):
    """A compact filter input with a match count.

    Posts ``FilterBar.Changed`` on every keystroke and ``FilterBar.Done`` when
    the person leaves the box (``enter`` keeps the filter, ``escape`` clears it).

    | Key(s) | Description |
    | :- | :- |
    | enter | Keep the filter and go back to the list. |
    | escape | Clear the filter and go back to the list. |
    """

    HELP_TITLE: ClassVar[str] = "Filter box"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "clear",
            "Clear filter",
            tooltip="Clear the filter and go back to the list (enter keeps it)",
            id="filter.clear",
        ),
    ]

    DEFAULT_CSS = """
    FilterBar {
        height: 1;
        width: 1fr;
        padding: 0 1;
    }
    FilterBar > .filter-bar--prompt {
        width: auto;
        color: $text-muted;
        padding-right: 1;
    }
    FilterBar > Input {
        width: 1fr;
    }
    FilterBar > .filter-bar--count {
        width: auto;
        color: $text-muted;
        padding-left: 1;
    }
    """

    class Changed(Message):
        """The filter text changed (sent on every keystroke)."""

        def __init__(self, filter_bar: FilterBar, value: str) -> None:
            super().__init__()
            self.filter_bar = filter_bar
            self.value = value

        @property
        def control(self) -> FilterBar:
            return self.filter_bar

    class Done(Message):
        """The person left the filter box; ``cleared`` is True after escape."""

        def __init__(self, filter_bar: FilterBar, cleared: bool) -> None:
            super().__init__()
            self.filter_bar = filter_bar
            self.cleared = cleared

        @property
        def control(self) -> FilterBar:
            return self.filter_bar

    def __init__(
        self, placeholder: str = "filter…", *, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        yield Label("/", classes="filter-bar--prompt")
        yield Input(placeholder=self._placeholder, compact=True, select_on_focus=False)
        yield Label("", classes="filter-bar--count")

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    @property
    def value(self) -> str:
        return self.input.value

    def set_count(self, shown: int, total: int) -> None:
        text = f"{shown} of {total}" if self.value else f"{total}"
        label = self.query_one(".filter-bar--count", Label)
        before = str(label.content)
        if text != before:  # a layout of the screen only when the count's width changes
            label.update(text, layout=len(text) != len(before))

    def focus_input(self) -> None:
        self.input.focus()

    def clear_filter(self) -> None:
        """Empty the box (posts ``Changed`` with an empty value)."""
        self.input.value = ""

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self, event.value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Done(self, cleared=False))

    def action_clear(self) -> None:
        self.clear_filter()
        self.post_message(self.Done(self, cleared=True))
