"""The proposal dialog: one consolidate proposal in full, opened from the Consolidate pane."""

from __future__ import annotations

from typing import ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from memoir_tui.core import Proposal, read_text_safely
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.ui.fields import PathNames
from memoir_tui.widgets.side_by_side import DiffColumn, SideBySideDiff

ACTION_NOTES = {
    "merge": "merge into the kept file (both bodies kept, links rewritten); the other goes to trash",
    "trash": "move the file(s) to the trash",
    "fix": "fix the index file (the old bytes are kept in the trash)",
    "unlink": "drop the brackets of the dead links, keeping the words",
    "complete": "complete the next action (a tombstone in the session)",
    "keep": "keep as it is and never propose it again",
}


def proposal_details(
    proposal: Proposal, names: PathNames, *, action: str | None = None, compact: bool = False
) -> RenderableType:
    """Why, action and files of a proposal, as a two-column grid (``compact``: no files, id)."""
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row("Why", Text(names.text(proposal.why)))
    chosen = action or proposal.default_action
    others = [a for a in proposal.actions if a != chosen]
    grid.add_row(
        "Action",
        Text(f"{chosen}: {ACTION_NOTES.get(chosen, chosen)}")
        + Text(f"  (also: {', '.join(others)})" if others else "", style="dim"),
    )
    if proposal.paths and not compact:
        grid.add_row("Files", Text("\n".join(names.path(p) for p in proposal.paths)))
    if proposal.score is not None:
        grid.add_row("Alike", Text(f"{proposal.score:.0f}%"))
    if not compact:
        grid.add_row("Id", Text(proposal.id, style="dim"))
    return grid


class ProposalDetailScreen(DialogScreen[bool]):
    """A proposal in full: why, action, files, and the evidence.

    Near duplicates show the two files side by side, differing lines
    highlighted; the two columns scroll together. Dismisses with ``True``
    when the person asked to toggle the proposal's mark.

    | Key(s) | Description |
    | :- | :- |
    | escape, q, enter | Close. |
    | space | Mark or unmark this proposal, and close. |
    """

    HELP_TITLE: ClassVar[str] = "Proposal details"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close", tooltip="Close", id="proposal.close"),
        Binding(
            "space",
            "toggle_mark",
            "Mark",
            tooltip="Mark or unmark this proposal, and close",
            id="proposal.mark",
        ),
    ]

    DEFAULT_CSS = """
    ProposalDetailScreen > #dialog.-side-by-side {
        width: 98%;
        max-width: 160;
        height: 92%;
    }
    ProposalDetailScreen #proposal-facts {
        height: auto;
        max-height: 10;
        padding: 0 0 1 0;
    }
    ProposalDetailScreen #proposal-evidence-scroll {
        height: auto;
        max-height: 50vh;
        background: $panel;
        padding: 0 1;
    }
    ProposalDetailScreen #proposal-diff {
        height: 1fr;
        min-height: 5;
    }
    """

    def __init__(
        self, proposal: Proposal, names: PathNames, *, marked: bool, action: str | None = None
    ) -> None:
        super().__init__()
        self.proposal = proposal
        self.names = names
        self.marked = marked
        self.action = action or proposal.default_action
        self.files = self._read_pair() if proposal.kind == "near_duplicate" else None

    def _read_pair(self) -> tuple[str, str] | None:
        if len(self.proposal.paths) < 2:
            return None
        try:
            return tuple(  # type: ignore[return-value]
                read_text_safely(p, max_bytes=4 * 1024 * 1024, errors="replace")
                for p in self.proposal.paths[:2]
            )
        except OSError:
            return None

    def compose(self) -> ComposeResult:
        p = self.proposal
        mark = "marked" if self.marked else "not marked"
        hint = f"{mark} · space {'unmarks' if self.marked else 'marks'} it · esc closes"
        if self.files is not None:
            left, right = self.files
            keep, other = self.proposal.paths[:2]
            with Vertical(id="dialog", classes="-side-by-side"):
                yield Label(self.names.text(p.title), classes="dialog--title", markup=False)
                yield Static(
                    proposal_details(p, self.names, action=self.action, compact=True),
                    id="proposal-facts",
                )
                yield SideBySideDiff(
                    f"kept: {self.names.path(keep)}",
                    left,
                    f"merged in: {self.names.path(other)}",
                    right,
                    id="proposal-diff",
                )
                yield Label(f"{hint} · tab switches sides", classes="dialog--hint")
            return
        with VerticalScroll(id="dialog"):
            yield Label(self.names.text(p.title), classes="dialog--title", markup=False)
            yield Static(proposal_details(p, self.names, action=self.action), id="proposal-facts")
            yield Label("Evidence", classes="dialog--label")
            with VerticalScroll(id="proposal-evidence-scroll"):
                yield Static(Text(self.names.text(p.evidence) or "(none)"), id="proposal-evidence")
            yield Label(hint, classes="dialog--hint")

    def on_mount(self) -> None:
        if self.files is not None:
            self.query_one("#diff-left", DiffColumn).focus()

    def action_close(self) -> None:
        self.dismiss(False)

    def action_toggle_mark(self) -> None:
        self.dismiss(True)
