"""The inject pane: the pinned working-set block in each assistant's instruction file.

Every target ``core.inject`` finds under the home directory is listed with
its size against its limit and what injecting would do (create, update,
unchanged, or an error naming the problem); the block for the selected target
is previewed read-only, and its dry-run diff is one key away. Planning reads
files, so it runs in a thread worker; writing goes through the app's one write
path (``run_write``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, LoadingIndicator, Static, TextArea

from memoir_tui.core import (
    InjectChange,
    MemoirError,
    WorkingSet,
    apply_inject,
    instruction_files_shown,
    plan_inject,
)
from memoir_tui.dialogs.confirm import ConfirmScreen
from memoir_tui.dialogs.inject_diff import InjectDiffScreen
from memoir_tui.panes.base import Pane, PaneCommand, Progress
from memoir_tui.ui.fields import PathNames
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from memoir_tui.core import Memoir


@dataclass(frozen=True, slots=True)
class Injected:
    """How writing the block ended: each target's result, or the sentence it failed with."""

    results: tuple[InjectChange, ...]
    error: str = ""


TARGET_COLUMNS = (
    ColumnSpec("target", "Target", width=14),
    ColumnSpec("path", "Path", weight=1, min_width=12),
    ColumnSpec("size", "Size", width=22),
    ColumnSpec("status", "Status", weight=1, min_width=9),
)

STATUS_STYLES = {
    "create": "bold",
    "update": "bold",
    "delete": "bold",
    "unchanged": "dim",
    "error": "bold red",
}

INJECT_WARNING = (
    "Only the bytes between the memoir markers change; every other byte of each file stays "
    "as it is. A file that changed since this plan is refused, not overwritten."
)

_GLOBAL_FILES = instruction_files_shown("global")
NO_TARGETS = (
    "No assistant found under this home: the block goes into "
    f"{', '.join(_GLOBAL_FILES[:-1])} and {_GLOBAL_FILES[-1]} "
    "when their folders exist ([inject] projects adds repositories)."
)


def size_text(change: InjectChange) -> str:
    """``3,120 / 6,000 chars``, or ``812 chars`` for a file without a limit."""
    if change.limit is not None:
        return f"{change.size:,} / {change.limit:,} {change.unit}"
    return f"{change.size:,} {change.unit}"


def status_text(change: InjectChange, names: PathNames) -> str:
    """The status cell; an error without the path the row already shows."""
    if change.error is not None:
        return f"error: {change.error.removeprefix(f'{change.path}: ')}"
    text = change.status
    if change.omitted:
        text += f" ({change.omitted} left out to fit)"
    return text


def target_row(change: InjectChange, names: PathNames) -> TableRow:
    return TableRow(
        str(change.path),
        (
            cell(change.target),
            cell(names.path(change.path)),
            cell(size_text(change)),
            cell(status_text(change, names), STATUS_STYLES.get(change.status, "")),
        ),
    )


def changes_table(changes: Sequence[InjectChange], names: PathNames) -> RenderableType:
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_column(no_wrap=True)
    for change in changes:
        grid.add_row(change.status, Text(names.path(change.path)), Text(size_text(change)))
    return grid


@dataclass(frozen=True, slots=True)
class PlanResult:
    changes: tuple[InjectChange, ...]
    error: str = ""


class InjectPane(Pane):
    """The pinned block in every assistant's always-loaded file.

    | Key(s) | Description |
    | :- | :- |
    | i | Inject now: write the block into every target that changes (asks first). |
    | v, enter | Dry run: the diff for the selected target. |
    | r | Plan again (re-read every target). |
    """

    PANE_ID = "inject"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "i",
            "inject",
            "Inject",
            tooltip="Write the block into every target that changes (asks first)",
            id="inject.inject",
        ),
        Binding(
            "v",
            "diff",
            "Diff",
            tooltip="Dry run: the diff injecting would make in the selected target",
            id="inject.diff",
        ),
        Binding("r", "refresh", "Refresh", tooltip="Read every target again", id="inject.refresh"),
    ]

    COMMANDS = (
        PaneCommand(
            "inject now", "inject", "Write the pinned block into every target", "inject.inject"
        ),
        PaneCommand(
            "show diff", "diff", "Dry run: the diff for the selected target", "inject.diff"
        ),
        PaneCommand("refresh", "refresh", "Read every target again", "inject.refresh"),
    )
    HELP_WIDGETS = (ItemTable, InjectDiffScreen)

    DEFAULT_CSS = """
    InjectPane > #inject-targets {
        height: auto;
        max-height: 45%;
    }
    InjectPane > #inject-detail {
        height: auto;
        max-height: 3;
        padding: 0 1;
        border-top: hkey $panel;
    }
    InjectPane > #inject-preview {
        height: 1fr;
        min-height: 3;
        border: round $panel;
        border-title-color: $text-muted;
        padding: 0;
    }
    InjectPane > #inject-preview:focus {
        border: round $primary;
    }
    InjectPane > #inject-footer {
        height: 1;
        width: 1fr;
    }
    InjectPane #inject-loading {
        width: 8;
        height: 1;
        display: none;
    }
    InjectPane #inject-loading.-busy {
        display: block;
    }
    """

    def __init__(self, *, id: str | None = None, home: Path | None = None) -> None:
        super().__init__(id=id)
        self._home = home
        self.changes: tuple[InjectChange, ...] = ()
        self.planned = False
        self.busy = False
        self.error = ""
        self._plans: LatestRead[PlanResult] = LatestRead(self, "inject-plan", self._planned)

    def compose(self) -> ComposeResult:
        yield ItemTable(TARGET_COLUMNS, id="inject-targets")
        yield Static("", id="inject-detail")
        preview = TextArea(
            "",
            read_only=True,
            soft_wrap=True,
            show_line_numbers=False,
            highlight_cursor_line=False,
            id="inject-preview",
        )
        preview.border_title = "Block preview"
        yield preview
        with Horizontal(id="inject-footer"):
            yield LoadingIndicator(id="inject-loading")
            yield StatusLine("", id="inject-status")

    @property
    def home(self) -> Path:
        return self._home if self._home is not None else Path.home()

    @property
    def names(self) -> PathNames:
        return PathNames(self.home)

    @property
    def table(self) -> ItemTable:
        return self.query_one("#inject-targets", ItemTable)

    @property
    def preview(self) -> TextArea:
        return self.query_one("#inject-preview", TextArea)

    def focus_default(self) -> None:
        self.focus_now(self.table)
        if not self.planned and not self.busy:
            self.replan()

    def show_state(self, ws: WorkingSet) -> None:
        """The session changed: once the pane has been shown, plan again (the block changes)."""
        if self.planned and not self.busy:
            self.replan()

    def selected(self) -> InjectChange | None:
        key = self.table.cursor_key
        return next((c for c in self.changes if str(c.path) == key), None) if key else None

    # --- planning -------------------------------------------------------------------

    def replan(self) -> None:
        self.busy = True
        self._show_status()
        store, home = self.host.store, self.home

        def read() -> PlanResult:
            try:
                cfg = store.config.inject
                changes = plan_inject(store, home=home, projects=cfg.projects, config=cfg)
                return PlanResult(tuple(changes))
            except (MemoirError, OSError) as err:
                return PlanResult((), str(err))

        self._plans.start(read)

    def _planned(self, result: PlanResult) -> None:
        self.busy = False
        self.planned = True
        self.changes = result.changes
        self.error = result.error
        names = self.names
        self.table.set_rows(
            [target_row(c, names) for c in self.changes], title=f"Target · {len(self.changes)}"
        )
        self._show_selected()
        self._show_status()

    def _show_status(self) -> None:
        if self.busy:
            text = "Reading the targets…"
        elif self.error:
            text = f"Cannot inject: {self.names.text(self.error)}"
        elif not self.changes:
            text = NO_TARGETS
        else:
            counts: dict[str, int] = {}
            for change in self.changes:
                counts[change.status] = counts.get(change.status, 0) + 1
            parts = ", ".join(f"{n} {status}" for status, n in counts.items())
            pending = sum(1 for c in self.changes if c.changed)
            action = "i writes them" if pending else "nothing to write"
            text = f"{len(self.changes)} target(s): {parts} · {action} · v shows the diff"
            withheld = max((len(c.withheld) for c in self.changes), default=0)
            if withheld:
                # Said, not hidden: items holding a secret never leave the store.
                rules = sorted({r for c in self.changes for r in c.withheld})
                text += f" · {withheld} item(s) left out: they hold a secret ({', '.join(rules)})"
        self.query_one("#inject-loading").set_class(self.busy, "-busy")
        self.query_one("#inject-status", StatusLine).update(text)

    def _show_selected(self) -> None:
        change = self.selected()
        detail = self.query_one("#inject-detail", Static)
        if change is None:
            detail.update("")
            self.preview.load_text("")
            return
        names = self.names
        line = Text.assemble(
            (change.target, "bold"),
            " · ",
            names.path(change.path),
            " · ",
            (change.status, STATUS_STYLES.get(change.status, "")),
        )
        if change.error is not None:
            line.append(f"\n{names.text(change.error)}", style="red")
        elif change.omitted:
            line.append(f"\n{change.omitted} item(s) left out to fit the limit", style="dim")
        detail.update(line)
        self.preview.load_text(change.block)

    @on(DataTable.RowHighlighted, "#inject-targets")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_selected()

    @on(DataTable.RowSelected, "#inject-targets")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_diff()

    # --- actions ------------------------------------------------------------------------

    def action_refresh(self) -> None:
        self.replan()

    def action_diff(self) -> None:
        change = self.selected()
        if change is None:
            self.app.notify("No target is selected.", severity="warning")
            return
        self.app.push_screen(InjectDiffScreen(change, self.names))

    def action_inject(self) -> None:
        if self.busy:
            self.app.notify("Wait for the targets to be read.", severity="warning")
            return
        pending = tuple(c for c in self.changes if c.changed)
        if not pending:
            errors = sum(1 for c in self.changes if c.error is not None)
            message = "Nothing to write: every target is up to date"
            if errors:
                message += f" ({errors} with an error)"
            self.app.notify(message + ".", severity="warning")
            return

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.busy = True
                self._show_status()
                self._inject(pending)

        self.app.push_screen(
            ConfirmScreen(
                f"Write the block into {len(pending)} file(s)?",
                changes_table(pending, self.names),
                warning=INJECT_WARNING,
                yes_label="Inject (y)",
                no_label="Cancel (n)",
            ),
            answered,
        )

    def _inject(self, changes: tuple[InjectChange, ...]) -> None:
        def write(store: Memoir, _progress: Progress) -> Injected:
            try:
                return Injected(tuple(apply_inject(store, changes)))
            except (MemoirError, OSError) as err:
                return Injected((), str(err))

        self.host.run_write(
            write,
            on_done=self._injected,
            on_error=lambda error: self._injected(Injected((), error)),
            group="inject-write",
            exclusive=True,
        )

    def _injected(self, message: Injected) -> None:
        self.busy = False
        if message.error:
            self.app.notify(message.error, title="Not injected", severity="error", timeout=8)
        failed = [c for c in message.results if c.error is not None]
        written = [c for c in message.results if c.error is None and c.changed]
        if written:
            what = f"the block written into {len(written)} file(s)"
            note = self.host.record_act(None, what)  # u cannot take it back
            self.app.notify(
                f"Block written into {len(written)} file(s): "
                + ", ".join(self.names.path(c.path) for c in written)
                + note
            )
        for change in failed:
            self.app.notify(
                self.names.text(change.error or ""),
                title=f"{change.target}: not written",
                severity="error",
                timeout=10,
            )
        self.replan()
