"""The help screen: every key, generated from the bindings, grouped by pane."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.widgets import Label, Static

from memoir_tui.dialogs.base import DialogScreen

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True, slots=True)
class KeyRow:
    keys: str
    description: str
    binding_id: str
    active: bool


@dataclass(frozen=True, slots=True)
class HelpSection:
    title: str
    rows: tuple[KeyRow, ...]


def own_bindings(cls: type[DOMNode]) -> list[BindingType]:
    """The BINDINGS a class declares itself (not inherited)."""
    return list(cls.__dict__.get("BINDINGS", []))


def key_rows(
    app: App[object], bindings: Iterable[BindingType], active_ids: frozenset[str]
) -> tuple[KeyRow, ...]:
    """One row per binding id (keys of a comma-separated binding joined), in order."""
    grouped: dict[str, tuple[list[str], Binding]] = {}
    for key_bindings in BindingsMap(bindings).key_to_bindings.values():
        for binding in key_bindings:
            if binding.system:
                continue
            ident = binding.id or binding.action
            keys, _ = grouped.setdefault(ident, ([], binding))
            display = app.get_key_display(binding)
            if display not in keys:
                keys.append(display)
    return tuple(
        KeyRow(", ".join(keys), binding.tooltip or binding.description, ident, ident in active_ids)
        for ident, (keys, binding) in grouped.items()
    )


def section_table(section: HelpSection) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(width=16, no_wrap=True)
    table.add_column(ratio=1)
    for row in section.rows:
        key_style = "bold" if row.active else "bold dim"
        table.add_row(Text(row.keys, style=key_style), Text(row.description))
    return table


class HelpScreen(DialogScreen[None]):
    """Every key of the app, grouped by where it works.

    Keys active where help was opened are bold; the others are dimmed.

    | Key(s) | Description |
    | :- | :- |
    | escape, q, ?, f1 | Close help. |
    | j, k, down, up | Scroll a line. |
    | g, G, home, end | Go to the top or the end. |
    | space, pagedown, pageup | Scroll a page. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1", "close", "Close", id="help.close"),
        Binding("j,down", "scroll('down')", "Down", show=False, id="help.down"),
        Binding("k,up", "scroll('up')", "Up", show=False, id="help.up"),
        Binding("g,home", "scroll('home')", "Top", show=False, id="help.top"),
        Binding("G,end", "scroll('end')", "End", show=False, id="help.end"),
        Binding("space,pagedown", "scroll('page_down')", "Page down", show=False, id="help.page"),
        Binding("pageup", "scroll('page_up')", "Page up", show=False, id="help.page_up"),
    ]

    DEFAULT_CSS = """
    HelpScreen > #dialog {
        max-height: 100%;
        height: 100%;
    }
    HelpScreen #help-sections {
        height: 1fr;
    }
    HelpScreen .help--section-title {
        text-style: bold;
        color: $text-accent;
        padding: 1 0 0 0;
    }
    """

    def __init__(self, sections: Sequence[HelpSection]) -> None:
        super().__init__()
        self.sections = tuple(sections)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog"):
            yield Label("Keys", classes="dialog--title")
            with VerticalScroll(id="help-sections"):
                for section in self.sections:
                    yield Label(section.title, classes="help--section-title", markup=False)
                    yield Static(section_table(section))
            yield Label("esc closes · ctrl+p lists every command", classes="dialog--hint")

    def on_mount(self) -> None:
        self.query_one("#help-sections").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, where: str) -> None:
        sections = self.query_one("#help-sections", VerticalScroll)
        getattr(sections, f"scroll_{where}")(animate=False)
