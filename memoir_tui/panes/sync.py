"""The sync pane: the state of git sync, and push, pull and sync in a worker.

Status is read by ``sync_status`` in a thread worker (``F`` fetches first).
Push, pull and sync run through the app's one write path (``run_write``, an
exclusive thread worker) that reports progress to a progress bar and a log, so
the app stays responsive while git talks to the remote. An encrypted remote with no
passphrase available asks for one in a dialog and retries; the passphrase is
kept in memory for this run of the app only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, cast

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Label, ProgressBar, RichLog, Static

from memoir_tui.core import MemoirError, WorkingSet, default_store_dir, sync_config_path
from memoir_tui.core import sync as sync_core
from memoir_tui.dialogs.passphrase import PassphraseScreen
from memoir_tui.panes.base import Pane, PaneCommand, Progress
from memoir_tui.ui.fields import field_grid, home_relative, theme_colours
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell, long_date

if TYPE_CHECKING:
    from memoir_tui.core import Memoir

MACHINE_COLUMNS = (
    ColumnSpec("label", "Machine", weight=1, min_width=12),
    ColumnSpec("id", "Id", width=8),
    ColumnSpec("last_seen", "Last seen", width=20),
    ColumnSpec("last_push", "Last push", width=20),
)

STATUS_GROUP = "sync-status"
RUN_GROUP = "sync-run"
ACTIONS = ("push", "pull", "sync")
LOG_LINES = 500


@dataclass(frozen=True, slots=True)
class StatusSnapshot:
    status: sync_core.SyncStatus | None = None
    fetched: bool = False
    error: str = ""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How one push, pull or sync ended."""

    action: str
    result: sync_core.SyncResult | None = None
    error: str = ""
    needs_passphrase: bool = False
    wrong_passphrase: bool = False


class _Reloadable(Protocol):
    def reload(self) -> None: ...


def setup_text(store_root: str, problem: str | None) -> Text:
    """How to set sync up, with the command to type (no button pretends to do it)."""
    store = ""
    if Path(store_root) != default_store_dir():
        store = f"--store {home_relative(store_root)} "
    text = Text()
    text.append("Sync is not set up for this store.\n\n", style="bold")
    text.append(
        "memoir-tui keeps a store in step across machines through git: a bare repository in a "
        "shared folder, over ssh, or on any git host. To set it up, run in a terminal:\n\n"
    )
    text.append(f"    memoir-tui {store}sync init REMOTE [--encrypt]\n\n", style="bold")
    text.append("for example\n\n")
    text.append("    git init --bare ~/memoir-sync.git\n", style="bold")
    text.append(f"    memoir-tui {store}sync init ~/memoir-sync.git\n\n", style="bold")
    text.append(
        "--encrypt keeps only ciphertext on the remote (you choose a passphrase). "
        "Then press F here to read the status again."
    )
    if problem:
        text.append(f"\n\nProblem: {problem}", style="bold")
    return text


def merge_counts(report: sync_core.MergeReport) -> str:
    parts = [
        f"{report.items_added} item(s) added",
        f"{report.tombstones_applied} tombstone(s) applied",
        f"{report.conflicts_resolved} conflict(s) resolved",
    ]
    if report.entries_added or report.entries_replaced or report.entries_deleted:
        parts.append(
            f"entries +{report.entries_added} ~{report.entries_replaced} -{report.entries_deleted}"
        )
    parts.append(f"review queue {report.review}")
    return " · ".join(parts)


def status_grid(status: sync_core.SyncStatus, colours: dict[str, str]) -> RenderableType:
    ok, bad, warn = colours["text-success"], colours["text-error"], colours["text-warning"]
    rows: list[tuple[str, RenderableType]] = [
        ("Remote", f"{home_relative(status.remote or '')} (branch {status.branch})"),
        (
            "Encryption",
            "on: the remote holds only ciphertext" if status.encrypted else "off",
        ),
    ]
    if status.local_changes:
        names = ", ".join(status.local_changes)
        line = Text(f"{status.ahead} file(s) changed here, not pushed: {names}")
        line.no_wrap, line.overflow = True, "ellipsis"  # one line, however many files
        rows.append(("Ahead", line))
    else:
        rows.append(("Ahead", "0: nothing here that the remote lacks"))
    rows.append(("Behind", f"{status.behind} remote commit(s) not merged (as of the last fetch)"))
    if status.never_synced:
        rows.append(("Last sync", Text("never", style="italic")))
    else:
        line = Text(f"{long_date(status.last_sync or '')} · {status.last_action} · ")
        line.append(
            "ok" if status.last_ok else "FAILED", style=f"bold {ok if status.last_ok else bad}"
        )
        if status.last_result:
            line.append(f" · {status.last_result}")
        rows.append(("Last sync", line))
    rows.append(("Last push", long_date(status.last_push) if status.last_push else "never"))
    if status.last_merge is not None:
        rows.append(("Last merge", merge_counts(status.last_merge)))
        if status.last_merge.conflict_copies:
            copies = ", ".join(status.last_merge.conflict_copies)
            rows.append(
                (
                    "Conflicts",
                    Text(f"changed on both machines, both kept: {copies}", style=warn),
                )
            )
        for note in status.last_merge.notes:
            rows.append(("", Text(f"note: {note}", style="italic")))
    if status.last_rewrite:
        rows.append(("Purge", f"remote history replaced {long_date(status.last_rewrite)}"))
    if status.quarantined:
        rows.append(("Quarantined", Text(status.quarantined, style=f"bold {bad}")))
    if status.problem:
        rows.append(("Problem", Text(status.problem, style=warn)))
    return field_grid(rows, key_width=11)


def machine_rows(status: sync_core.SyncStatus) -> list[TableRow]:
    rows = []
    for m in status.machines:
        label = f"{m.label} (this machine)" if m.this_machine else m.label
        rows.append(
            TableRow(
                m.id,
                (
                    cell(label, "bold" if m.this_machine else ""),
                    cell(m.id[:8], "dim"),
                    cell(long_date(m.last_seen) if m.last_seen else "—"),
                    cell(long_date(m.last_push) if m.last_push else "—"),
                ),
            )
        )
    return rows


class SyncPane(Pane):
    """Sync across machines through git: status, push, pull and sync.

    | Key(s) | Description |
    | :- | :- |
    | S | Sync: pull, then push (in the background). |
    | P | Push: merge the remote, then push the merged store. |
    | L | Pull: fetch the remote and merge it into the store. |
    | F | Fetch from the remote and read the status again. |
    """

    PANE_ID = "sync"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "S",
            "run('sync')",
            "Sync",
            tooltip="Pull, then push, in the background",
            id="sync.sync",
        ),
        Binding(
            "P",
            "run('push')",
            "Push",
            tooltip="Merge the remote, then push the merged store",
            id="sync.push",
        ),
        Binding(
            "L",
            "run('pull')",
            "Pull",
            tooltip="Fetch the remote and merge it into the store",
            id="sync.pull",
        ),
        Binding(
            "F",
            "fetch_status",
            "Fetch status",
            tooltip="Fetch from the remote and read the sync status again",
            id="sync.fetch",
        ),
    ]

    COMMANDS = (
        PaneCommand("sync", "run('sync')", "Pull, then push", "sync.sync"),
        PaneCommand("push", "run('push')", "Merge the remote, then push", "sync.push"),
        PaneCommand("pull", "run('pull')", "Fetch the remote and merge it", "sync.pull"),
        PaneCommand(
            "fetch status", "fetch_status", "Fetch and read the sync status again", "sync.fetch"
        ),
    )
    HELP_WIDGETS = (ItemTable,)

    DEFAULT_CSS = """
    SyncPane #sync-setup {
        display: none;
        height: 1fr;
        padding: 1 2;
    }
    SyncPane.-unconfigured #sync-setup {
        display: block;
    }
    SyncPane.-unconfigured #sync-main {
        display: none;
    }
    SyncPane #sync-main {
        height: 1fr;
    }
    SyncPane #sync-summary {
        height: auto;
        padding: 0 1;
    }
    SyncPane #sync-machines {
        height: auto;
        max-height: 6;
    }
    SyncPane #sync-activity-row {
        height: 1;
        padding: 0 1;
    }
    SyncPane #sync-activity {
        width: 1fr;
        color: $text-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    SyncPane #sync-progress {
        width: auto;
    }
    SyncPane #sync-log {
        height: 1fr;
        min-height: 3;
        border-top: solid $primary 40%;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.status: sync_core.SyncStatus | None = None
        self.running: str | None = None
        self.fetching = False
        self.passphrase: str | None = None
        self._status_reads: LatestRead[StatusSnapshot] = LatestRead(
            self,
            STATUS_GROUP,
            self._apply_status,
            failed=lambda error: self._apply_status(StatusSnapshot(error=error)),
        )

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="sync-setup"):
            yield Static("", id="sync-setup-text")
        with Vertical(id="sync-main"):
            yield Static("reading the sync status…", id="sync-summary")
            yield ItemTable(MACHINE_COLUMNS, id="sync-machines")
            with Horizontal(id="sync-activity-row"):
                yield Label("idle", id="sync-activity", markup=False)
                yield ProgressBar(total=100, show_eta=False, id="sync-progress")
            yield RichLog(max_lines=LOG_LINES, wrap=True, markup=False, id="sync-log")

    def on_mount(self) -> None:
        # A cheap first guess (one stat) so the right half shows before the status is read.
        configured = sync_config_path(self.host.store.root).exists()
        self.set_class(not configured, "-unconfigured")
        if not configured:
            self._show_setup(None)

    @property
    def configured(self) -> bool:
        return not self.has_class("-unconfigured")

    @property
    def log_widget(self) -> RichLog:
        return self.query_one("#sync-log", RichLog)

    @property
    def machines_table(self) -> ItemTable:
        return self.query_one("#sync-machines", ItemTable)

    def focus_default(self) -> None:
        if self.configured:
            self.focus_now(self.machines_table)
        else:
            self.focus_now(self.query_one("#sync-setup", VerticalScroll))

    # --- status -----------------------------------------------------------------------

    def show_state(self, ws: WorkingSet) -> None:
        # Local changes follow the store; the status read touches no network.
        self.refresh_status()

    def refresh_status(self, *, fetch: bool = False) -> None:
        self.fetching = fetch
        store = self.host.store

        def read() -> StatusSnapshot:
            try:
                status = sync_core.sync_status(store, fetch=fetch)
            except (MemoirError, OSError) as err:
                return StatusSnapshot(error=str(err), fetched=fetch)
            return StatusSnapshot(status, fetched=fetch)

        self._status_reads.start(read)
        self.refresh_bindings()

    def _apply_status(self, snapshot: StatusSnapshot) -> None:
        self.fetching = False
        if snapshot.error or snapshot.status is None:
            self.log_widget.write(Text(f"status: {snapshot.error}", style="bold"))
            self.refresh_bindings()
            return
        status = self.status = snapshot.status
        if snapshot.fetched:
            note = f"fetched: {status.behind} remote commit(s) not merged"
            if status.problem:
                note = f"fetch failed: {status.problem}"
            self.log_widget.write(note)
        had_focus = self.screen.focused is not None and self in self.screen.focused.ancestors
        self.set_class(not status.configured, "-unconfigured")
        if not status.configured:
            self._show_setup(status.problem)
        else:
            colours = theme_colours(self.app)
            self.query_one("#sync-summary", Static).update(status_grid(status, colours))
            self.machines_table.set_rows(
                machine_rows(status), title=f"Machines · {len(status.machines)}"
            )
        if had_focus:
            self.focus_default()  # the half that had the focus may have just been hidden
        self.refresh_bindings()

    def _show_setup(self, problem: str | None) -> None:
        root = str(self.host.store.root)
        self.query_one("#sync-setup-text", Static).update(setup_text(root, problem))

    # --- push, pull, sync --------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "run":
            if not self.configured:
                return False  # hidden: the pane says how to set sync up instead
            return None if self.running else True  # shown dimmed while one runs
        if action == "fetch_status":
            return None if (self.running or self.fetching) else True
        return True

    def action_run(self, action: str, passphrase: str | None = None) -> None:
        if action not in ACTIONS or not self.configured:
            return
        if self.running:
            self.app.notify(f"A {self.running} is already running.", severity="warning")
            return
        self.running = action
        self.refresh_bindings()
        self.query_one("#sync-progress", ProgressBar).update(progress=0)
        self.query_one("#sync-activity", Label).update(f"{action}: starting")
        self.log_widget.write(Text(f"{action}: started", style="bold"))
        self._run(action, passphrase or self.passphrase)

    def _run(self, action: str, passphrase: str | None) -> None:
        def run(store: Memoir, progress: Progress) -> RunOutcome:
            try:
                result = sync_core.run_sync(
                    store,
                    cast(sync_core.SyncMode, action),
                    passphrase=passphrase,
                    progress=progress,
                )
            except sync_core.PassphraseError as err:
                return RunOutcome(action, error=str(err), needs_passphrase=passphrase is None)
            except sync_core.WrongPassphraseError as err:
                return RunOutcome(action, error=str(err), wrong_passphrase=True)
            except MemoirError as err:
                return RunOutcome(action, error=str(err))
            except OSError as err:
                return RunOutcome(action, error=f"{action} failed: {err}")
            return RunOutcome(action, result=result)

        self.host.run_write(
            run,
            on_done=self._finished,
            on_error=lambda error: self._finished(RunOutcome(action, error=error)),
            on_progress=partial(self._progress, action),
            group=RUN_GROUP,
            exclusive=True,
        )

    def _progress(self, action: str, message: str, fraction: float) -> None:
        self.query_one("#sync-progress", ProgressBar).update(
            progress=max(0.0, min(fraction, 1.0)) * 100
        )
        self.query_one("#sync-activity", Label).update(f"{action}: {message}")
        self.log_widget.write(f"  {message}")

    def _finished(self, outcome: RunOutcome) -> None:
        self.running = None
        action = outcome.action
        activity = self.query_one("#sync-activity", Label)
        colours = theme_colours(self.app)
        if outcome.result is not None:
            result = outcome.result
            self.query_one("#sync-progress", ProgressBar).update(progress=100)
            activity.update(f"{action}: done")
            self.log_widget.write(
                Text(f"{action}: ok · {result.message}", style=f"bold {colours['text-success']}")
            )
            if result.skipped:
                self.log_widget.write(f"  not synced (unsafe names): {', '.join(result.skipped)}")
            # Every run merges into the store: u cannot take it back (nor reach past it).
            note = self.host.record_act(None, f"the {action}")
            self.app.notify(f"{action}: {result.message}{note}")
        else:
            activity.update(f"{action}: failed")
            self.log_widget.write(
                Text(f"{action}: FAILED · {outcome.error}", style=f"bold {colours['text-error']}")
            )
            if outcome.wrong_passphrase:
                self.passphrase = None  # ask again next time
            if outcome.needs_passphrase:
                self._ask_passphrase(action)
            else:
                self.app.notify(
                    outcome.error, title=f"{action} failed", severity="error", timeout=8
                )
        self.refresh_bindings()
        # A pull merges into the store; reloading re-renders every pane (and this status).
        if outcome.result is not None and hasattr(self.app, "reload"):
            cast(_Reloadable, self.app).reload()
        else:
            self.refresh_status()

    def _ask_passphrase(self, action: str) -> None:
        def given(passphrase: str | None) -> None:
            if passphrase:
                self.passphrase = passphrase
                self.action_run(action, passphrase)
            else:
                self.log_widget.write(f"{action}: cancelled (no passphrase)")

        self.app.push_screen(
            PassphraseScreen(action, "This remote is encrypted and no passphrase is set."), given
        )

    def action_fetch_status(self) -> None:
        if self.running or self.fetching:
            return
        if self.configured:
            self.log_widget.write("fetching the remote for status…")
        self.refresh_status(fetch=True)
