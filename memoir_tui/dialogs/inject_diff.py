"""The inject diff dialog: the dry-run diff of one target, opened from the Inject pane."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from memoir_tui.core import InjectChange
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.ui.fields import PathNames

if TYPE_CHECKING:
    pass


def diff_text(diff: str) -> Text:
    """A unified diff with added, removed and hunk lines coloured."""
    out = Text()
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "cyan"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        else:
            style = ""
        out.append(line + "\n", style=style)
    out.rstrip()
    return out


class InjectDiffScreen(DialogScreen[None]):
    """The dry run for one target: the diff injecting would make (read-only).

    | Key(s) | Description |
    | :- | :- |
    | escape, q, enter | Close. |
    """

    HELP_TITLE: ClassVar[str] = "Dry-run diff"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close", id="inject_diff.close"),
    ]

    DEFAULT_CSS = """
    InjectDiffScreen > #dialog {
        height: 90%;
    }
    InjectDiffScreen #inject-diff-scroll {
        height: 1fr;
        background: $panel;
        padding: 0 1;
    }
    """

    def __init__(self, change: InjectChange, names: PathNames) -> None:
        super().__init__()
        self.change = change
        self.names = names

    def body(self) -> RenderableType:
        change = self.change
        if change.error is not None:
            return Text(self.names.text(change.error), style="bold red")
        if not change.changed:
            return Text("No change: the block in this file is already up to date.", style="dim")
        return diff_text(self.names.text(change.diff))

    def compose(self) -> ComposeResult:
        change = self.change
        with VerticalScroll(id="dialog"):
            yield Label(
                f"Dry run · {change.target} · {self.names.path(change.path)} · {change.status}",
                classes="dialog--title",
                markup=False,
            )
            with VerticalScroll(id="inject-diff-scroll"):
                yield Static(self.body(), id="inject-diff")
            yield Label("nothing is written · esc closes", classes="dialog--hint")

    def action_close(self) -> None:
        self.dismiss(None)
