"""The Textual app: a shell of panes over one memoir store (a ``Memoir``).

The shell owns what every pane shares: the header (store, machine, read-only),
the tabs and their number keys, help, the command palette, the footer, the
file watcher and the one path by which a pane changes the store
(:meth:`MemoirApp.write`). A pane is a :class:`~memoir_tui.panes.base.Pane`
subclass named in :data:`~memoir_tui.panes.registry.PANES`; its bindings,
help section and palette commands are picked up from the class, which is
imported when the pane is first needed, not for the first screen.

This module imports textual; it must never import ``mcp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.widgets import Input, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from memoir_tui.core import (
    AUDIT_FILE,
    NEWER_VERSION,
    REVIEW_FILE,
    LoadedSession,
    Memoir,
    MemoirError,
    Outcome,
    Undo,
    WorkingSet,
    iso_now,
    open_memoir,
)
from memoir_tui.panes.base import Pane, PaneCommand, Progress, load_pane
from memoir_tui.panes.registry import PANES, pane_spec
from memoir_tui.ui.store_watch import (
    ALL_CHANGES,
    AuditChanged,
    EntriesChanged,
    ReviewChanged,
    ScopeChanged,
    SessionChanged,
    StoreChanged,
    StoreWatcher,
    Watched,
)
from memoir_tui.widgets.damage_banner import DamageBanner
from memoir_tui.widgets.key_footer import KeyFooter
from memoir_tui.widgets.news_banner import NewsBanner, caps_warning
from memoir_tui.widgets.pane_tabs import PaneTabs
from memoir_tui.widgets.store_bar import StoreBar

if TYPE_CHECKING:  # the help screen and the dialogs are imported when first opened
    from memoir_tui.dialogs.help import HelpSection

__all__ = ["PANES", "MemoirApp", "display_path", "run_app"]

THEME_ENV = "MEMOIR_TUI_THEME"
ANIMATIONS_ENV = "TEXTUAL_ANIMATIONS"
DEFAULT_POLL_SECONDS = 0.5
KEY_WAIT_STEP = 0.004
KEY_WAIT_STEPS = 500
SCREEN_WAIT_STEPS = 250
SETTLE_SECONDS = 0.4
"""A key that opened a dialog holds the next ones until the dialog has its focus (~1 s at
most: a screen with nothing to focus lets them go)."""
OPTION_KEYS = {
    **{c: (d, d) for c, d in zip("¡™£¢∞¶•ªº", "123457890", strict=True)},
    "–": ("minus", "-"),
    "≠": ("equals_sign", "="),
}
"""What Textual makes of escape then 1…0, - or = read together (it reads them as WezTerm's
macOS Option keys), and the key each stands for (6 is left out: § is also a key of its own)."""
"""A key a widget consumed (stopped) is noticed within a few ms; one on its way back up to
the app is waited for, however busy the app is, up to 2 s (a widget removed under it)."""
WRITE_GROUPS = frozenset({"store-write", "inject-write", "sync-run"})
"""Worker groups that change files (``run_write`` runs in them): quitting waits for them."""
R = TypeVar("R")
QUIT_WAIT_SECONDS = 5.0
"""How long quitting waits for writes in flight before it gives up on them (and says so)."""
IMPORT_PANES_AFTER = 1.0
"""Seconds without a key press or click before the other panes are imported in the background."""
READ_IN_WORKER_BYTES = 256 * 1024
"""A ``session.json`` larger than this (~1,000 decisions and up) is read in a worker once the
first screen is painted, which says "reading…" until it lands (at 10,000 decisions the read
and the view take ~150–300 ms); a smaller one is read before the first screen (a few ms)."""


def _pane_bindings() -> list[BindingType]:
    return [
        Binding(
            spec.binding_key,
            f"show_pane('{spec.pane_id}')",
            spec.title,
            show=False,
            tooltip=f"Go to the {spec.title} pane",
            id=f"app.pane.{spec.pane_id}",
        )
        for spec in PANES
    ]


def display_path(path: Path) -> str:
    """The store path with the home directory shown as ``~``."""
    path = Path(os.path.abspath(path))
    home = Path(os.path.abspath(os.path.expanduser("~")))
    try:
        rest = path.relative_to(home)
    except ValueError:
        return str(path)
    return "~" if str(rest) == "." else f"~/{rest}"


class MemoirApp(App[int]):
    """The memoir-tui shell.

    | Key(s) | Description |
    | :- | :- |
    | 1 … 9, 0 | Go to pane 1 … 9, or the tenth (see the tabs). |
    | ?, f1 | Help: every key, grouped by pane. |
    | ctrl+p | Command palette (`area: verb` commands with their keys). |
    | ctrl+r | Reload the store from disk. |
    | A | Switch every pane between this project and all projects. |
    | u | Undo the last act of this session (any pane). |
    | ctrl+y | Redo what u last took back. |
    | ctrl+f, / | Search every pane at once and go to a row (`/` where a pane has no filter). |
    | W | What changed since the last session (from the audit log). |
    | q | Quit (from the main screen, not inside a dialog or text box). |
    | ctrl+q | Quit from anywhere. |
    """

    TITLE = "memoir-tui"
    CSS_PATH = "styles/app.tcss"
    AUTO_FOCUS = None  # on_mount focuses the current pane's main list itself

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "q",
            "quit_from_top",
            "Quit",
            tooltip="Quit (not inside a dialog or a text box)",
            id="app.quit",
        ),
        Binding(
            "question_mark,f1", "help", "Help", tooltip="Every key, grouped by pane", id="app.help"
        ),
        Binding(
            "ctrl+q",
            "quit",
            "Quit from anywhere",
            show=False,
            priority=True,
            tooltip="Quit from anywhere, even inside a dialog",
            id="app.quit_now",
        ),
        Binding(
            "ctrl+p",
            "command_palette",
            "Commands",
            show=False,
            priority=True,
            tooltip="Command palette: every action as 'area: verb'",
            id="app.palette",
        ),
        Binding(
            "ctrl+r",
            "reload",
            "Reload",
            show=False,
            tooltip="Read the store from disk again",
            id="app.reload",
        ),
        Binding(
            "A",
            "toggle_all_projects",
            "All projects",
            show=False,
            tooltip="Switch every pane between this project and all projects",
            id="app.all_projects",
        ),
        Binding(
            "u",
            "undo",
            "Undo",
            show=False,
            tooltip="Undo the last act of this session, in any pane",
            id="app.undo",
        ),
        Binding(
            "ctrl+y",
            "redo",
            "Redo",
            show=False,
            tooltip="Do again what u last took back",
            id="app.redo",
        ),
        Binding(
            "ctrl+f,slash",  # a pane's own `/` (its filter) comes first
            "search",
            "Search all",
            show=False,
            tooltip="Search every pane at once and go to a row",
            id="app.search",
        ),
        Binding(
            "W",
            "since",
            "Since last session",
            show=False,
            tooltip="What was added, completed, hidden and captured since the last session",
            id="app.since",
        ),
        Binding("ctrl+c", "help_quit", "How to quit", show=False, system=True, id="app.help_quit"),
        *_pane_bindings(),
    ]

    # Actions of the shell that make no sense while a dialog is open.
    _TOP_LEVEL_ACTIONS: ClassVar[frozenset[str]] = frozenset(
        {
            "quit_from_top",
            "help",
            "show_pane",
            "reload",
            "toggle_all_projects",
            "undo",
            "redo",
            "search",
            "since",
        }
    )

    def __init__(
        self,
        store: Memoir,
        *,
        display_path: str | None = None,
        demo: bool = False,
        poll_interval: float | None = DEFAULT_POLL_SECONDS,
        theme: str | None = None,
        import_panes_after: float | None = IMPORT_PANES_AFTER,
        input_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        if ANIMATIONS_ENV not in os.environ:
            # Switching panes should be instant: the sliding tab underline alone
            # redraws the screen ~18 times per switch. TEXTUAL_ANIMATIONS=full
            # brings Textual's animations back.
            self.animation_level = "none"
        self.store = store
        self.demo = demo
        self.store_label = display_path if display_path is not None else _default_label(store)
        self.poll_interval = poll_interval
        self.loaded: LoadedSession | None = None
        self.state: WorkingSet | None = None
        self.all_projects = store.project is None
        self.closing = False
        """Set once quitting began: nothing is pushed, mounted or applied after it."""
        self.watcher = StoreWatcher(self._watched())
        self.undo_stack: list[Undo | Irreversible] = []
        """What ``u`` takes back, newest last: this session's acts, from every pane. An act
        that cannot be taken back is an ``Irreversible`` on top: ``u`` says so, never
        reaching past it to an older act."""
        self.redo_stack: list[tuple[Callable[[Memoir], Outcome], str]] = []
        """What ctrl+y does again, newest last: the acts ``u`` took back, until a new act."""
        self._redo_of: dict[int, Callable[[Memoir], Outcome]] = {}
        self._after_writes: deque[Callable[[], None]] = deque()
        """``u``/ctrl+y typed while a change was still being saved: each waits for the writes in
        flight, so it takes back the act the person just confirmed, not the one before it."""
        self._key_waiting_for_writes: events.Key | None = None
        """The key of a held ``u``/ctrl+y: it stays in flight (every key typed after it
        waits behind it, in order) until the held action has run."""
        self.opened_at = iso_now()
        """When this app opened: "since last session" looks before it (``core.since``)."""
        self.log_open = False
        """Log this open in the audit (``run_app``), once the session is read, off the UI."""
        self._key_in_flight: events.Key | None = None
        self._key_came_back: events.Key | None = None
        self._held_keys: deque[events.Key] = deque()
        self._own_review_read = False  # the next review read follows a write of ours
        self._replayed: set[events.Key] = set()
        self._screen_at_key: Screen[Any] | None = None  # the screen a key in flight began on
        self.import_panes_after = import_panes_after
        """Seconds without input, once the first read landed, before a timer imports the
        other panes; None: no timer does (a test starts ``_start_importing_panes`` itself)."""
        self._input_clock = input_clock
        self._last_input = input_clock()  # key presses and clicks push the pane imports back
        self._bad_theme: str | None = None
        self._theme_ready = False  # themes set before mount are not the person's choice
        self.reading = False
        """The first read of the session is in a worker and has not landed yet."""
        self._read_generation = 0  # a read begun before a newer one is not applied
        self._own_while_reading = False  # a write of ours landed before the first read
        if theme is None and not demo:
            theme = store.config.theme  # [app] theme: the last one chosen in the palette
        if theme and theme in self.available_themes:
            self.theme = theme
        elif theme:
            self._bad_theme = theme

    # --- layout -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StoreBar(
            self.store_label,
            self._machine_label(),
            caps_note=self._caps_note(),
        )
        yield DamageBanner(on_waiting=self._review_waiting)
        yield NewsBanner()
        with PaneTabs(initial=PANES[0].pane_id, id="panes"):
            for number, spec in enumerate(PANES, start=1):
                with TabPane(f"{spec.key} {spec.title}", id=spec.pane_id):
                    # Only the first pane is imported and built for the first
                    # screen; the others are mounted when first shown (a DOM a
                    # few times smaller is most of the start-up time).
                    if number == 1:
                        yield load_pane(spec)(id=f"{spec.pane_id}-pane")
        yield KeyFooter(show_command_palette=True)

    def _caps_note(self) -> str:
        """The header's caps: said when not our defaults, or when the JavaScript memoir
        shares the store and keeps fewer than the caps in force."""
        config = self.store.config
        note = caps_warning(config, self.store.root)
        return note if config.caps_source != "defaults" or note != config.caps_note else ""

    def _machine_label(self) -> str:
        # Reading must not create machine.id: the first write registers the machine.
        return self.store.machine_label

    def on_mount(self) -> None:
        if self._read_later():
            # Paint the shell first (the Working set pane says it is reading), then read.
            self.reading = True
            self._pane_says_reading("reading…")
            self.call_after_refresh(self._start_first_read)
        else:
            self.reload()
            self._first_read_done()
        self.query_one(NewsBanner).warn_caps(self.query_one(StoreBar).caps_note)  # uncut
        self.current_pane().focus_default()
        if self.poll_interval:
            self.set_interval(self.poll_interval, self.poll_store, name="store-watch")
        if self._bad_theme:
            self.notify(
                f"unknown theme {self._bad_theme!r}; using {self.theme}", severity="warning"
            )
        self._theme_ready = True

    def watch_theme(self, theme: str) -> None:
        # A theme chosen in the palette is remembered for the next run ([app] theme in
        # memoir-tui.toml, through the store's door); the demo's copy is thrown away.
        if (
            not getattr(self, "_theme_ready", False)
            or self.demo
            or theme == self.store.config.theme
        ):
            return
        self.write(
            lambda store: _remember_theme(store, theme),
            undoable=False,
            on_error=self._theme_unsaved,
        )

    def _theme_unsaved(self, message: str) -> None:
        self.notify(f"theme not remembered: {message}", severity="warning")

    # --- panes ----------------------------------------------------------------------

    def panes(self) -> list[Pane]:
        return list(self.query(Pane))

    def pane(self, pane_id: str) -> Pane:
        """The pane with this id, mounting it on first use."""
        return self._pane_and_mounting(pane_id)[0]

    def _pane_and_mounting(self, pane_id: str) -> tuple[Pane, AwaitMount | None]:
        """The pane, and (when this call created it) the awaitable of its mounting."""
        for pane in self.query(f"#{pane_id}-pane").results(Pane):
            return pane, None
        pane = load_pane(pane_spec(pane_id))(id=f"{pane_id}-pane")
        return pane, self.query_one(f"TabPane#{pane_id}", TabPane).mount(pane)

    def current_pane(self) -> Pane:
        active = self.query_one("#panes", TabbedContent).active or PANES[0].pane_id
        return self.pane(active)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown):
            self._last_input = self._input_clock()
        if isinstance(event, events.Key):
            await self._one_key_at_a_time(event)
            return
        await super().on_event(event)

    # --- keys, in order, each to what is focused when it is handled ------------------------
    #
    # Textual forwards every key from the terminal to the widget focused *now*, and runs a
    # pane's binding only when the key has bubbled back up to the app. Keys typed in one
    # burst are therefore all forwarded before the first one's action runs: the keys after
    # `d` would reach the pane behind the dialog `d` opens. So the app holds each key until
    # the one before it is finished (handled by the app's bindings, or stopped by the widget
    # that consumed it, like a text box), then forwards it to what is focused then.

    async def _one_key_at_a_time(self, event: events.Key) -> None:
        if event.is_forwarded:  # back from the focused widget: run the bindings, then go on
            self._key_came_back = event
            try:
                await super().on_event(event)
            finally:
                if self._key_in_flight is event and self._key_waiting_for_writes is not event:
                    if self._held_keys and not event.is_printable:
                        # What its binding set off (enter in a filter box: submitted, the
                        # pane moves the focus to its list) is handled before the next key.
                        self._settle_then_finish(event)
                    else:
                        self._finish_key()
            return
        if event not in self._replayed and self._escape_and_key(event):
            # No binding uses alt: this is escape and a key typed at once (a terminal sends
            # both in one read, which reads as alt+key, or as the character WezTerm's Option
            # gives: escape 1 → ¡). Take them as the two keys they were.
            self._held_keys.extend(_escape_then_key(event))
            if self._key_in_flight is None:
                self._finish_key()
            return
        if event is self._key_in_flight and event in self._replayed:
            self._replayed.discard(event)  # a held key's turn: it was reserved for it
        elif self._key_in_flight is not None or self._held_keys:
            self._held_keys.append(event)
            return
        else:
            self._key_in_flight = event
            self._screen_at_key = self.screen
        await super().on_event(event)
        if self._key_in_flight is not event or self._key_came_back is event:
            return
        if not event.is_forwarded:  # a priority binding (ctrl+q, ctrl+p) took it: done
            self._finish_key()
        else:
            self._watch_key(event)

    @work(group="key-watch", exclusive=False)
    async def _watch_key(self, event: events.Key) -> None:
        # A key a widget consumed never comes back: notice its stop, or give up after a bit.
        for _ in range(KEY_WAIT_STEPS):
            await asyncio.sleep(KEY_WAIT_STEP)
            if self._key_in_flight is not event or self._key_came_back is event:
                return
            if event._stop_propagation:
                if not event.is_printable:
                    # What the key set off (enter in a filter box: the box says it is done,
                    # the pane moves the focus to its list) is handled before the next key.
                    # (A character typed into a box sets off nothing the next one needs.)
                    await self._settle_screen()
                break
        if self._key_in_flight is event and self._key_came_back is not event:
            self._finish_key()

    @work(group="key-watch", exclusive=False)
    async def _settle_then_finish(self, event: events.Key) -> None:
        await self._settle_screen()
        if self._key_in_flight is event:
            self._finish_key()

    async def _settle_screen(self, rounds: int = 3) -> None:
        """Wait until the widgets a key's messages bubble through (the focused one and its
        ancestors, up to the app) have handled what was queued for them, a few rounds deep
        (a message that posts a message), or ~1 s at most."""
        for _ in range(rounds):
            focused = self.focused
            nodes = [*focused.ancestors_with_self] if focused is not None else [self.screen]
            if self not in nodes:
                nodes.append(self)
            done = [asyncio.Event() for _ in nodes]
            waiting = [
                flag.wait()
                for node, flag in zip(nodes, done, strict=True)
                if node.call_later(flag.set)
            ]
            if not waiting:
                return
            try:
                await asyncio.wait_for(asyncio.gather(*waiting), timeout=SETTLE_SECONDS)
            except TimeoutError:
                return

    def _escape_and_key(self, event: events.Key) -> bool:
        if event.key.startswith("alt+"):
            return True
        # WezTerm's Option characters stand for escape + key only where no text is typed
        # (a list has no use for them); in a text box they are the characters they read.
        if event.character not in OPTION_KEYS:
            return False
        from textual.widgets import TextArea  # not for the first screen: ~8 ms of imports

        return not isinstance(self.focused, Input | TextArea)

    def _finish_key(self) -> None:
        screen = self._screen_at_key
        if self._held_keys and screen is not None and not self._screen_ready(screen):
            # The key opened or closed a dialog: the next key waits until the screen it
            # lands on is mounted and has put its focus where typing goes ("a" then
            # "lowercase" at once: the "l" belongs in the new dialog's text box).
            self._screen_at_key = None
            self._release_when_ready(screen)
            return
        self._key_in_flight = None
        self._screen_at_key = None
        if self._held_keys and not self.closing:
            # Reserve the turn for the held key at once: a key arriving from the terminal
            # while it travels through the queue must not overtake it.
            following = self._held_keys.popleft()
            self._replayed.add(following)
            self._key_in_flight = following
            self._screen_at_key = self.screen
            self.post_message(following)
        elif self.closing:
            self._held_keys.clear()

    def _screen_ready(self, was: Screen[Any]) -> bool:
        """Whether keys may go on: the screen is the one the key began on, or a new one that
        is mounted with its focus set (its ``on_mount`` focus is applied later)."""
        screen = self.screen
        return screen is was or (screen.is_mounted and screen.focused is not None)

    @work(group="key-watch", exclusive=False)
    async def _release_when_ready(self, was: Screen[Any]) -> None:
        for _ in range(SCREEN_WAIT_STEPS):  # a screen with nothing to focus: not for ever
            await asyncio.sleep(KEY_WAIT_STEP)
            if self.closing or self._screen_ready(was):
                break
        self._finish_key()

    # --- focus: tab and shift+tab go round the lists of the pane, never out of it -----------

    def action_focus_next(self) -> None:
        self._focus_in_pane(+1)

    def action_focus_previous(self) -> None:
        self._focus_in_pane(-1)

    def _focus_in_pane(self, step: int) -> None:
        screen = self.screen
        if screen is not self.screen_stack[0]:  # a dialog: its own fields, as Textual does
            if step > 0:
                screen.focus_next()
            else:
                screen.focus_previous()
            return
        pane = self.current_pane()
        chain = [w for w in screen.focus_chain if pane in w.ancestors_with_self]
        if not chain:
            return
        focused = screen.focused
        if focused in chain:
            target = chain[(chain.index(focused) + step) % len(chain)]
        else:  # the focus strayed out of the pane (a click on the tabs or footer): back in
            target = chain[0] if step > 0 else chain[-1]
        target.focus()

    def _start_importing_panes(self) -> None:
        # Import the other panes' modules off the UI thread, so a first visit,
        # help and the palette do not wait for them; but only once the person
        # has paused: the thread shares the interpreter with the UI and would
        # slow the first screen, or typing, down. Anything asked for sooner
        # imports what it needs itself.
        after = self.import_panes_after
        pause = IMPORT_PANES_AFTER if after is None else after
        quiet = self._input_clock() - self._last_input
        if quiet < pause:
            if after is not None:
                self.set_timer(pause - quiet, self._start_importing_panes, name="import-panes")
            return
        self.run_worker(
            self._after_first_read_in_thread,
            name="import-panes",
            group="import-panes",
            thread=True,
            exit_on_error=False,  # a pane that fails to import says so when it is shown
        )

    async def action_show_pane(self, pane_id: str) -> None:
        if self.closing:
            return
        pane, mounting = self._pane_and_mounting(pane_id)
        if mounting is not None:
            # Shown for the first time: build it while its tab is still hidden,
            # then switch and focus in one step, so the focus (and the keys
            # typed next) land in it and never drift back to the last pane.
            await mounting
            if not pane.children:  # a mount cut short (the app is ending): nothing to show
                return
        tabs = self.query_one("#panes", TabbedContent)
        if tabs.active != pane_id:
            tabs.active = pane_id
        self._focus_when_mounted(pane)

    def _focus_when_mounted(self, pane: Pane) -> None:
        if pane.is_mounted:
            pane.focus_default()
        else:  # still being mounted by an earlier call
            pane.call_after_refresh(pane.focus_default)

    @on(TabbedContent.TabActivated, "#panes")
    async def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        # Tabs can also be switched with the mouse; put the focus in the pane.
        # (Only on the main screen, for the tab still active when this arrives,
        # and not while the app is being torn down.)
        pane_id = event.pane.id
        stack = self.screen_stack
        if not pane_id or not stack or self.screen is not stack[0]:
            return
        if event.tabbed_content.active == pane_id:
            await self.action_show_pane(pane_id)

    # --- reading and watching the store -----------------------------------------------

    def _watched(self) -> list[Watched]:
        store = self.store
        home = Path(os.path.expanduser("~"))

        def entry_folders() -> list[Path]:
            # Listings only (a folder's stamp moves when a file is added, removed or
            # replaced atomically): a handful of stats, never a walk of the corpus.
            from memoir_tui.core import ADAPTERS

            folders: list[Path] = []
            for adapter in ADAPTERS:
                folders += adapter.global_dirs(home, os.environ, store.root)
            return folders

        folders: list[Path] | None = None

        def cached_entry_folders() -> list[Path]:
            nonlocal folders
            if folders is None:
                folders = entry_folders()
            return folders

        return [
            Watched(SessionChanged, lambda: [store.session_path]),
            Watched(ReviewChanged, lambda: [store.root / REVIEW_FILE]),
            Watched(AuditChanged, lambda: [store.root / AUDIT_FILE]),
            Watched(EntriesChanged, cached_entry_folders),
        ]

    def reload(self) -> None:
        """Read everything again: the session now, the rest by every pane (shown or not)."""
        self._read_generation += 1  # a first read still in its worker is not applied
        first, self.reading = self.reading, False
        self.watcher.mark_seen()
        self._read_session()
        self._tell_panes(ALL_CHANGES)
        if first:  # ctrl+r or A before the first read landed: this was the first
            self._first_read_done()

    # --- the first read, off the UI thread for a large store ----------------------------

    def _read_later(self) -> bool:
        try:
            return self.store.session_path.stat().st_size > READ_IN_WORKER_BYTES
        except OSError:
            return False  # missing (an empty store) or unreadable: said at once

    def _start_first_read(self) -> None:
        if self.closing or not self.reading:
            return
        self.run_worker(
            partial(self._first_read_in_thread, self._read_generation, self.all_projects),
            name="first-read",
            group="first-read",
            thread=True,
            exit_on_error=False,  # every error becomes a notification
        )

    def _first_read_in_thread(self, generation: int, all_projects: bool) -> None:
        try:
            # Stamped before the read: a change after it is seen by the poll. The entry
            # folders (core.adapters, a few stats) wait until the rows are on screen.
            self.watcher.mark_seen(SessionChanged, ReviewChanged, AuditChanged)
            loaded, view = self._load_session(all_projects)
        except OSError as err:
            self.call_from_thread(self._first_read_failed, generation, str(err))
            return
        except Exception as err:  # a defect: said, never a pane reading for ever
            self.call_from_thread(self._first_read_failed, generation, f"{err!r}")
            return
        self.call_from_thread(self._first_read_landed, generation, loaded, view)

    def _first_read_landed(self, generation: int, loaded: LoadedSession, view: WorkingSet) -> None:
        if self.closing or generation != self._read_generation:
            return  # quitting, or a reload (ctrl+r, A) read it since
        self.reading = False
        self._apply_session(loaded, view)
        self._tell_panes(ALL_CHANGES)
        self._first_read_done()
        own, self._own_while_reading = self._own_while_reading, False
        self.poll_store(own=own)  # what changed while it was read (a write of ours too)

    def _first_read_failed(self, generation: int, message: str) -> None:
        if self.closing or generation != self._read_generation:
            return
        self.reading = False
        self.notify(f"could not read {self.store.session_path}: {message}", severity="error")
        self._pane_says_reading("not read · ctrl+r reads it again")
        self._import_panes_later()
        self._stamp_entry_folders_later()

    def _import_panes_later(self) -> None:
        if self.import_panes_after is not None:
            self.set_timer(
                self.import_panes_after, self._start_importing_panes, name="import-panes"
            )

    def _pane_says_reading(self, note: str) -> None:
        from memoir_tui.panes.working_set import WorkingSetPane

        for pane in self.query(WorkingSetPane):
            pane.show_reading(note)

    def _after_first_read_in_thread(self) -> None:
        """What the first screen did not need, once its rows are on screen and the
        person paused: the other panes' imports, the decisions of the view (built
        here rather than on the first visit)."""
        state = self.state
        if state is not None:
            state.tombstones  # noqa: B018 (builds the view's decision lists once, cached)
        _import_panes()

    def _stamp_entry_folders_later(self) -> None:
        # A large store's read stamped only the session, the queue and the audit log:
        # the entry folders' stamps (core.adapters, a few stats) are taken once its
        # rows are on screen, in a worker.
        if not self.watcher.seen(EntriesChanged):
            self.set_timer(IMPORT_PANES_AFTER, self._start_stamping_entries, name="entry-stamps")

    def _start_stamping_entries(self) -> None:
        if self.closing or self.watcher.seen(EntriesChanged):
            return  # (a reload stamped them all meanwhile)
        self.run_worker(
            self._stamp_entries_in_thread,
            name="entry-stamps",
            group="entry-stamps",
            thread=True,
            exit_on_error=False,
        )

    def _stamp_entries_in_thread(self) -> None:
        self.watcher.mark_seen(EntriesChanged)
        if not self.closing:  # a pane that read entries before these stamps reads them again
            self.call_from_thread(self._tell_panes, (EntriesChanged,))

    def _first_read_done(self) -> None:
        # The other panes' imports wait for the first read (they would share the
        # interpreter with it) and then for a second without input.
        self._import_panes_later()
        self._stamp_entry_folders_later()
        if self.log_open and self.loaded is not None and not self.loaded.read_only:
            from memoir_tui.core import record_open

            def log_open() -> None:  # the line's own time is this session's start
                self.opened_at = record_open(self.store, read_only_checked=True)

            self.run_worker(
                log_open,
                name="log-open",
                thread=True,
                exit_on_error=False,
            )

    def _load_session(self, all_projects: bool) -> tuple[LoadedSession, WorkingSet]:
        """The session and its view (any thread: reads only)."""
        loaded = self.store.load()
        state = loaded.state
        if loaded.damage == NEWER_VERSION:
            # Read-only, but not blank: what the newer file holds that this version reads.
            from memoir_tui.core import understood_state

            state = understood_state(loaded.path, now=self.store.clock()) or state
        return loaded, self.store.view(state, all_projects=all_projects)

    def _read_session(self, *, own: bool = False) -> None:
        try:
            loaded, view = self._load_session(self.all_projects)
        except OSError as err:
            self.notify(f"could not read {self.store.session_path}: {err}", severity="error")
            return
        self._apply_session(loaded, view, own=own)

    def _apply_session(self, loaded: LoadedSession, view: WorkingSet, *, own: bool = False) -> None:
        self.loaded = loaded
        self.state = view
        bar = self.query_one(StoreBar)
        bar.set_read_only(loaded.read_only)
        bar.set_scope(self.scope_text())
        self.query_one(DamageBanner).show_session(loaded)
        self.query_one(NewsBanner).observe(self.store.root, loaded.state, own=own)
        caps = self._caps_note()
        if caps != bar.caps_note:
            bar.set_caps_note(caps)
            self.query_one(NewsBanner).warn_caps(caps)

    def _tell_panes(self, changes: Iterable[type[StoreChanged]]) -> None:
        if self.closing:
            return
        changes = tuple(changes)
        if ReviewChanged in changes:
            self.query_one(DamageBanner).check_review(self.store)
        for pane in self.panes():
            for change in changes:
                pane.post_message(change())

    def _review_waiting(self, count: int) -> None:
        own, self._own_review_read = self._own_review_read, False
        self.query_one(NewsBanner).observe_review(count, own=own)
        self.query_one(PaneTabs).set_badge("review", str(count) if count else "")

    def poll_store(self, *, own: bool = False) -> list[type[StoreChanged]]:
        """Tell the panes what another process changed on disk; the parts that changed
        (``own``: right after a write of this app's, which is never news)."""
        if self.closing:
            return []
        if self.reading:  # the first read has not landed: it polls once it has
            self._own_while_reading |= own
            return []
        changed = self.watcher.changed()
        if own and ReviewChanged in changed:
            self._own_review_read = True
        if SessionChanged in changed:
            self._read_session(own=own)
        self._tell_panes(changed)
        return changed

    def action_reload(self) -> None:
        self.reload()
        self.notify("reloaded from disk")

    # --- scope ------------------------------------------------------------------------------

    def scope_text(self) -> str:
        """The header's scope: the project as a person reads it, and what lies outside it."""
        state = self.state
        if self.store.project is None:
            return "all projects (outside any project)"
        labels = state.project_labels if state is not None else {}
        label = labels.get(self.store.project) or self.store.project_label or self.store.project
        if self.all_projects:
            return f"all projects · this one: {label}"
        elsewhere = state.elsewhere_total if state is not None else 0
        more = f" · {elsewhere} elsewhere · A shows all" if elsewhere else ""
        return f"project: {label}{more}"

    def action_toggle_all_projects(self) -> None:
        if self.store.project is None:
            self.notify("outside any project every project is already shown")
            return
        self.all_projects = not self.all_projects
        self.reload()
        # The Review tab counts what the new scope holds: a change of ours, not news.
        self._own_review_read = True
        self.query_one(DamageBanner).check_review(self.store)
        for pane in self.panes():
            pane.post_message(ScopeChanged(self.all_projects))
        self.notify("showing all projects" if self.all_projects else "showing this project")

    # --- writing --------------------------------------------------------------------------

    def write(
        self,
        change: Callable[[Memoir], Outcome],
        *,
        on_done: Callable[[Outcome], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        undoable: bool = True,
        redoing: bool = False,
    ) -> Worker[Outcome | None]:
        """Run one Memoir mutation off the UI thread, then report it and reload.

        A ``MemoirError`` (or an OS error) becomes an error notification with
        the core's own sentence (or goes to ``on_error``: a dialog shows it and
        keeps what was typed); the UI never shows a traceback for them. What
        the change can take back (``Outcome.undo``) goes on the undo stack
        that ``u`` pops, unless ``undoable`` is False (an undo itself).
        Tests can ``await app.workers.wait_for_complete()``.
        """
        reply = _Reply(on_done, on_error, undoable, change, redoing)
        return self.run_write(
            lambda store, _progress: change(store),
            on_done=partial(self._write_done, reply=reply),
            on_error=partial(self._write_failed, reply=reply),
        )

    def run_write(
        self,
        change: Callable[[Memoir, Progress], R],
        *,
        on_done: Callable[[R], None],
        on_error: Callable[[str], None],
        on_progress: Progress | None = None,
        group: str = "store-write",
        exclusive: bool = False,
    ) -> Worker[R | None]:
        """The one write path: run ``change(store, progress)`` in a thread worker of a
        write group (quitting waits for those), then hand its result to ``on_done`` or a
        sentence to ``on_error`` on the UI thread, never after quitting began.

        ``write`` is this for an ``Outcome`` (toast, undo stack, reload); a pane whose
        result is its own (the Inject pane's per-file results, the Sync pane's run)
        calls it directly. ``progress(message, fraction)`` from the worker reaches
        ``on_progress`` on the UI thread."""
        assert group in WRITE_GROUPS, group

        def progress(message: str, fraction: float) -> None:
            if on_progress is None or self.closing:
                return
            # RuntimeError: the app is closing; let the change finish on its own.
            with contextlib.suppress(RuntimeError):
                self.call_from_thread(on_progress, message, fraction)

        return self.run_worker(
            partial(self._write_in_thread, change, progress, on_done, on_error),
            name=group,
            group=group,
            thread=True,
            exclusive=exclusive,
            exit_on_error=False,  # every error becomes a sentence (below)
        )

    def _write_in_thread(
        self,
        change: Callable[[Memoir, Progress], R],
        progress: Progress,
        on_done: Callable[[R], None],
        on_error: Callable[[str], None],
    ) -> R | None:
        try:
            result = change(self.store, progress)
        except MemoirError as err:
            self.call_from_thread(self._unless_closing, on_error, str(err))
            return None
        except OSError as err:
            message = f"could not write the store: {err}"
            self.call_from_thread(self._unless_closing, on_error, message)
            return None
        except Exception as err:  # a defect: said, never a traceback that ends the app
            message = f"the change failed: {err}"
            self.call_from_thread(self._unless_closing, on_error, message)
            return None
        self.call_from_thread(self._unless_closing, on_done, result)
        return result

    def _unless_closing(self, callback: Callable[[Any], None], value: object) -> None:
        if not self.closing:  # written; nobody is left to show it to
            callback(value)

    def _write_failed(self, message: str, reply: _Reply) -> None:
        if reply.on_error is not None:
            reply.on_error(message)
        else:
            self.notify(message, title="Not saved", severity="error", timeout=8)
        self.poll_store()

    def _write_done(self, outcome: Outcome, reply: _Reply) -> None:
        message = outcome.message
        if reply.undoable and outcome.changed:
            message += self.record_act(
                outcome.undo, outcome.message, reply.change, redoing=reply.redoing
            )
        self.notify(message, severity="information" if outcome.changed else "warning")
        self.poll_store(own=True)
        if reply.on_done is not None:
            reply.on_done(outcome)

    def record_act(
        self,
        undo: Undo | None,
        what: str,
        redo: Callable[[Memoir], Outcome] | None = None,
        *,
        redoing: bool = False,
    ) -> str:
        """Put an act on the undo stack: its undo, or, when it has none, a barrier that
        ``u`` stops at (everything older is out of reach). Returns what the toast adds.
        ``redo`` (the change itself) is what ctrl+y runs again once ``u`` took it back;
        a new act (not a redo) ends what can be redone."""
        if not redoing:
            self.redo_stack.clear()
        if undo is not None:
            self.undo_stack.append(undo)
            if redo is not None:
                self._redo_of[id(undo)] = redo
            return " · u undoes it"
        self.undo_stack[:] = [Irreversible(what)]
        return "" if "cannot be undone" in what else " · this cannot be undone"

    def _wait_for_writes(self, action: Callable[[], None]) -> bool:
        """Hold ``action`` until no write is in flight (True), or say it can run now. An act
        goes on the undo stack only once its write is done: ``u`` typed in between would
        otherwise reach past it to the act before."""
        if not self.writes_in_flight():
            return False
        self._after_writes.append(action)
        self._key_waiting_for_writes = self._key_in_flight
        return True

    @on(Worker.StateChanged)
    def _run_held_after_writes(self, event: Worker.StateChanged) -> None:
        # A write worker ends only after its result was handled on this thread (the worker
        # waits on call_from_thread), so its act is on the stack by now.
        if event.worker.group not in WRITE_GROUPS:
            return
        while self._after_writes and not self.writes_in_flight() and not self.closing:
            self._after_writes.popleft()()
        key = self._key_waiting_for_writes
        if key is not None and (not self._after_writes or self.closing):
            self._key_waiting_for_writes = None
            if self._key_in_flight is key:
                self._finish_key()  # the keys typed after it go on, in order

    def action_undo(self) -> None:
        """Take back the last act of this session (any pane) through the same door; when
        the last act cannot be taken back, say so and change nothing."""
        if self._wait_for_writes(self.action_undo):
            return
        if not self.undo_stack:
            self.notify("Nothing to undo in this session.", severity="warning")
            return
        last = self.undo_stack[-1]
        if isinstance(last, Irreversible):
            self.notify(
                f"The last act cannot be undone ({last.what}); nothing was changed.",
                title="Not undone",
                severity="warning",
                timeout=8,
            )
            return
        undo = self.undo_stack.pop()
        assert isinstance(undo, Undo)
        redo = self._redo_of.pop(id(undo), None)

        def undone(outcome: Outcome) -> None:
            if outcome.changed and redo is not None:
                self.redo_stack.append((redo, undo.label))

        def failed(message: str) -> None:
            self.notify(f"Could not undo ({undo.label}): {message}", severity="error", timeout=8)

        self.write(lambda store: store.undo(undo), on_done=undone, on_error=failed, undoable=False)

    def action_redo(self) -> None:
        """Do again what ``u`` last took back (until a new act is done)."""
        if self._wait_for_writes(self.action_redo):
            return
        if not self.redo_stack:
            self.notify("Nothing to redo: u takes an act back, ctrl+y does it again.")
            return
        redo, label = self.redo_stack.pop()

        def failed(message: str) -> None:
            self.notify(f"Could not redo ({label}): {message}", severity="error", timeout=8)

        self.write(redo, on_error=failed, redoing=True)

    # --- search, since last session (dialogs/search.py, dialogs/since.py) ------------------

    def action_search(self) -> None:
        from memoir_tui.dialogs.search import SearchScreen, go_to_hit

        def chosen(hit: Any) -> None:
            if hit is not None:
                self.call_later(go_to_hit, self, hit)

        self.push_screen(SearchScreen(self.state, self.store), chosen)

    def action_since(self) -> None:
        from memoir_tui.dialogs.search import go_to_hit
        from memoir_tui.dialogs.since import SinceScreen

        def chosen(hit: Any) -> None:
            if hit is not None:
                self.call_later(go_to_hit, self, hit)

        self.push_screen(SinceScreen(self.store, opened_at=self.opened_at), chosen)

    def writes_in_flight(self) -> list[Worker[object]]:
        return [
            w
            for w in self.workers
            if w.group in WRITE_GROUPS and w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]

    # --- help, palette, quitting --------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.closing:
            return False
        return not (action in self._TOP_LEVEL_ACTIONS and len(self.screen_stack) > 1)

    async def action_quit_from_top(self) -> None:
        await self.action_quit()

    async def action_quit(self) -> None:
        """Quit once the writes in flight are on disk (waiting at most a few seconds)."""
        if self.closing:
            return
        self.closing = True
        if self.writes_in_flight():
            self.notify("saving before quitting…", timeout=QUIT_WAIT_SECONDS)
            deadline = time.monotonic() + QUIT_WAIT_SECONDS
            while self.writes_in_flight() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        unfinished = len(self.writes_in_flight())
        self.exit(0, return_code=1 if unfinished else 0, message=_unfinished_message(unfinished))

    def push_screen(  # type: ignore[override]
        self,
        screen: Screen[Any] | str,
        callback: Any = None,
        wait_for_dismiss: bool = False,
        *,
        mode: str | None = None,
    ) -> Any:
        if self.closing:
            # Quitting began: a dialog asked for by a key typed after `q` is never
            # shown (mounting it now would race the teardown).
            future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
            future.set_result(None)
            return future
        return super().push_screen(screen, callback, wait_for_dismiss, mode=mode)

    def help_sections(self) -> list[HelpSection]:
        """The help screen's content, generated from the bindings of every pane."""
        from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
        from memoir_tui.dialogs.forms import FormDialog
        from memoir_tui.dialogs.help import HelpSection, key_rows, own_bindings

        active = frozenset(
            b.binding.id for b in self.active_bindings.values() if b.binding.id is not None
        )
        current = type(self.current_pane())
        sections = [
            HelpSection(
                f"{current.TITLE} (this pane)", key_rows(self, own_bindings(current), active)
            )
        ]
        for widget in current.HELP_WIDGETS:
            title = getattr(widget, "HELP_TITLE", widget.__name__)
            sections.append(HelpSection(title, key_rows(self, own_bindings(widget), active)))
        sections.append(HelpSection("Everywhere", key_rows(self, own_bindings(MemoirApp), active)))
        for spec in PANES:
            pane = load_pane(spec)
            if pane is not current:
                sections.append(
                    HelpSection(
                        f"{pane.TITLE} (press {spec.key})",
                        key_rows(self, own_bindings(pane), active),
                    )
                )
        dialog_bindings = [
            *own_bindings(ConfirmScreen),
            *own_bindings(TypeToConfirmScreen),
            *own_bindings(FormDialog),
        ]
        sections.append(HelpSection("Dialogs", key_rows(self, dialog_bindings, active)))
        return sections

    def action_help(self) -> None:
        from memoir_tui.dialogs.help import HelpScreen

        self.push_screen(HelpScreen(self.help_sections()))

    def _keys_for(self, bindings: list[BindingType], binding_id: str | None) -> str:
        if binding_id is None:
            return ""
        from memoir_tui.dialogs.help import key_rows

        for row in key_rows(self, bindings, frozenset()):
            if row.binding_id == binding_id:
                return row.keys
        return ""

    def _command(
        self, area: str, verb: str, help_text: str, keys: str, callback: Callable[[], object]
    ) -> SystemCommand:
        suffix = f" · key {keys}" if keys else ""
        return SystemCommand(f"{area}: {verb}", help_text + suffix, callback)

    def pane_commands(self) -> Iterable[SystemCommand]:
        from memoir_tui.dialogs.help import own_bindings

        for spec in PANES:
            pane = load_pane(spec)
            bindings = own_bindings(pane)
            command: PaneCommand
            for command in pane.COMMANDS:
                yield self._command(
                    pane.AREA,
                    command.verb,
                    command.help,
                    self._keys_for(bindings, command.binding_id),
                    partial(self.run_pane_command, pane.PANE_ID, command.action),
                )

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        from memoir_tui.dialogs.help import own_bindings

        on_top = screen is self.screen_stack[0]
        app_bindings = own_bindings(MemoirApp)
        if on_top:
            yield from self.pane_commands()
            for spec in PANES:
                yield self._command(
                    "go",
                    spec.area,
                    f"Show the {spec.title} pane",
                    self._keys_for(app_bindings, f"app.pane.{spec.pane_id}"),
                    partial(self.action_show_pane, spec.pane_id),
                )
            yield self._command("app", "help", "Every key, grouped by pane", "?", self.action_help)
            yield self._command(
                "app", "reload", "Read the store from disk again", "ctrl+r", self.action_reload
            )
            yield self._command(
                "app", "undo", "Undo the last act of this session", "u", self.action_undo
            )
            yield self._command(
                "app", "redo", "Do again what u last took back", "ctrl+y", self.action_redo
            )
            yield self._command(
                "app",
                "search every pane",
                "Goals, actions, questions, decisions, candidates, sessions; go to a row",
                "ctrl+f, /",
                self.action_search,
            )
            yield self._command(
                "app",
                "since last session",
                "What was added, completed, hidden and captured, by which face and machine",
                "W",
                self.action_since,
            )
            yield self._command(
                "app",
                "toggle all projects",
                "Every pane: this project, or all projects",
                "A",
                self.action_toggle_all_projects,
            )
            news = self.query_one(NewsBanner)
            if news.lines:
                yield self._command(
                    "app",
                    "dismiss news",
                    "Clear the banner of what changed on disk (or click it)",
                    "",
                    news.dismiss,
                )
        yield self._command(
            "app",
            "change theme",
            "Pick a colour theme (ANSI ones too)",
            "",
            self.action_change_theme,
        )
        yield self._command("app", "quit", "Leave memoir-tui", "q, ctrl+q", self.action_quit)

    def run_pane_command(self, pane_id: str, action: str) -> None:
        """Show the pane, then run ``action`` on it.

        Queued, not run here: the palette calls this from the app's own
        message loop, which must first close the palette.
        """
        self.call_later(self._show_pane_and_run, pane_id, action)

    async def _show_pane_and_run(self, pane_id: str, action: str) -> None:
        if self.closing:
            return
        await self.action_show_pane(pane_id)
        await self.pane(pane_id).run_action(action)


@dataclass(frozen=True, slots=True)
class Irreversible:
    """The top of the undo stack after an act that cannot be taken back (a hide, a purge,
    a bulk reject): ``u`` names it and stops there."""

    what: str


@dataclass(frozen=True, slots=True)
class _Reply:
    """Where a write's result goes: the caller's callbacks, and whether it is undoable."""

    on_done: Callable[[Outcome], None] | None = None
    on_error: Callable[[str], None] | None = None
    undoable: bool = True
    change: Callable[[Memoir], Outcome] | None = None
    redoing: bool = False  # a redo: what else can be redone stays


def _escape_then_key(event: events.Key) -> tuple[events.Key, events.Key]:
    if not event.key.startswith("alt+") and event.character in OPTION_KEYS:
        key, char = OPTION_KEYS[event.character]
        return events.Key("escape", "\x1b"), events.Key(key, char)
    key = event.key.removeprefix("alt+")
    char = event.character[-1:] if event.character else None
    return events.Key("escape", "\x1b"), events.Key(key, char)


def _remember_theme(store: Memoir, theme: str) -> Outcome:
    from memoir_tui.core import remember_setting

    remember_setting(store, "app", "theme", theme)
    store.config = replace(store.config, theme=theme)
    return Outcome(True, f"theme {theme} remembered for the next run")


def _unfinished_message(count: int) -> str | None:
    if not count:
        return None
    return (
        f"memoir-tui: {count} write(s) had not finished after {QUIT_WAIT_SECONDS:.0f} s; "
        "what was on disk before them is unchanged (each write is all or nothing)."
    )


def _import_panes() -> None:
    for spec in PANES:
        load_pane(spec)


def _default_label(store: Memoir) -> str:
    return display_path(store.root)


def run_app(store_root: Path | None, *, demo: bool = False) -> int:
    """Run the app on ``store_root`` (None: the default store), or on a fresh demo copy."""
    theme = os.environ.get(THEME_ENV) or None
    if demo:
        return _run_demo(theme)
    try:
        # a commit or cache drop a killed process left half done is finished first
        store = open_memoir(store_root, actor="app")
    except MemoirError as err:
        print(f"memoir-tui: {err}", file=sys.stderr)
        return 2
    app = MemoirApp(store, theme=theme)
    app.log_open = True  # an audit line: the next "since last session" starts here
    app.run()
    return app.return_code or 0


def _run_demo(theme: str | None) -> int:
    """The demo store lives in a temporary directory that is removed on exit."""
    from memoir_tui.core import DEMO_MACHINE_LABEL, create_demo_store, remove_demo_store

    target = Path(tempfile.mkdtemp(prefix="memoir-demo-"))
    saved_home = os.environ.get("MEMOIR_HOME")
    try:
        root = create_demo_store(target)
        # Anything that resolves "the default store" during the demo finds the copy.
        os.environ["MEMOIR_HOME"] = str(root)
        store = Memoir(root, machine_label=DEMO_MACHINE_LABEL, actor="app")
        app = MemoirApp(
            store, demo=True, display_path=f"demo store (temporary copy) {root}", theme=theme
        )
        app.run()
        return app.return_code or 0
    finally:
        if saved_home is None:
            os.environ.pop("MEMOIR_HOME", None)
        else:
            os.environ["MEMOIR_HOME"] = saved_home
        remove_demo_store(target)
