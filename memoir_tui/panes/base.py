"""What every pane of the shell is: a widget that renders a ``WorkingSet``.

A pane declares, as class attributes, what the shell needs to host it: its
id, the palette commands it offers, and which widget classes' bindings the
help screen lists under it. Its tab title and the area name used in
command-palette titles (``"decisions: hide"``) come from its entry in
:mod:`memoir_tui.panes.registry`, which lists the panes without importing
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, cast

from textual import on
from textual.widget import Widget
from textual.worker import Worker

from memoir_tui.core import WorkingSet
from memoir_tui.panes.registry import PaneSpec, pane_spec
from memoir_tui.ui.store_watch import SessionChanged
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ItemTable

if TYPE_CHECKING:
    from memoir_tui.core import Memoir, Outcome, Undo


@dataclass(frozen=True, slots=True)
class PaneCommand:
    """A command-palette entry: ``"<area>: <verb>"`` running ``action`` on the pane.

    ``binding_id`` names the Binding whose key is shown next to the command.
    """

    verb: str
    action: str
    help: str
    binding_id: str | None = None


Progress = Callable[[str, float], None]
"""How a long write says how far it got: a message and a fraction done (0..1)."""
R = TypeVar("R")


class StoreHost(Protocol):
    """What a pane may ask of the app hosting it."""

    store: Memoir
    demo: bool
    all_projects: bool
    closing: bool

    def write(
        self,
        change: Callable[[Memoir], Outcome],
        *,
        on_done: Callable[[Outcome], None] | None = ...,
        on_error: Callable[[str], None] | None = ...,
        undoable: bool = ...,
    ) -> Worker[Outcome | None]: ...

    def run_write(
        self,
        change: Callable[[Memoir, Progress], R],
        *,
        on_done: Callable[[R], None],
        on_error: Callable[[str], None],
        on_progress: Progress | None = ...,
        group: str = ...,
        exclusive: bool = ...,
    ) -> Worker[R | None]: ...

    def record_act(self, undo: Undo | None, what: str) -> str:
        """An act whose result is not an ``Outcome`` (a sync, an inject) for ``u``: its
        undo, or None (``u`` then says it cannot be undone). Returns what its message adds."""
        ...


class Pane(Widget, can_focus=False):
    """Base class of the shell's panes (one per tab)."""

    PANE_ID: ClassVar[str] = ""
    """The tab id, naming the pane's registry entry; also in binding ids (``app.pane.<id>``)."""
    TITLE: ClassVar[str] = ""
    """Shown on the tab and as the help-screen section title (from the registry)."""
    AREA: ClassVar[str] = ""
    """The area name in palette commands, e.g. ``"working set"`` (from the registry)."""
    COMMANDS: ClassVar[tuple[PaneCommand, ...]] = ()
    HELP_WIDGETS: ClassVar[tuple[type[Widget], ...]] = ()
    """Widget classes whose bindings the help screen lists under this pane."""

    DEFAULT_CSS = """
    Pane {
        height: 1fr;
        width: 1fr;
    }
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.PANE_ID:  # one source for what the tabs show before the class is imported
            spec = pane_spec(cls.PANE_ID)
            cls.TITLE, cls.AREA = spec.title, spec.area

    @property
    def host(self) -> StoreHost:
        return cast(StoreHost, self.app)

    def on_mount(self) -> None:
        # Panes are mounted when first shown, after the app's first reload:
        # render the state it already holds. (Textual runs this base handler
        # as well as a subclass's own on_mount.)
        state = getattr(self.app, "state", None)
        if state is not None:
            self.show_state(state)

    @on(SessionChanged)
    def _session_changed(self, message: SessionChanged) -> None:
        # Every pane applies it, shown or hidden, so a pane shown again is already
        # what is on disk. The other parts of the store (review, audit, entries)
        # and the scope (``ScopeChanged``) are handled by the panes that show them.
        state = getattr(self.app, "state", None)
        if state is not None:
            self.show_state(state)

    def show_state(self, ws: WorkingSet) -> None:
        """Render a fresh snapshot; keep cursors on the same row keys."""
        raise NotImplementedError

    def focus_default(self) -> None:
        """Focus the widget a person most likely wants when arriving at the pane.

        Use :meth:`focus_now`: keys typed while the pane was being built are
        already queued, and must reach the new pane, not the last one.
        """

    def focus_now(self, widget: Widget) -> None:
        """Focus ``widget`` before the next queued event (``Widget.focus`` queues the change)."""
        self.screen.set_focus(widget)


class FilteredPane(Pane):
    """A pane whose table is filtered as you type in its ``FilterBar`` (``/``, ``escape``).

    A subclass has a ``filter_bar`` and a ``table`` and redraws in ``_render_rows``;
    ``filter_text`` is what the rows are filtered by.
    """

    filter_text: str = ""

    @property
    def filter_bar(self) -> FilterBar:
        return self.query_one(FilterBar)

    @property
    def table(self) -> ItemTable:
        raise NotImplementedError

    def _render_rows(self) -> None:
        raise NotImplementedError

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return bool(self.filter_text)  # otherwise escape goes on up the chain
        return True

    def action_filter(self) -> None:
        self.filter_bar.focus_input()

    def action_clear_filter(self) -> None:
        self.filter_bar.clear_filter()
        self.filter_text = ""
        self._render_rows()
        self.table.focus()

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        self.filter_text = event.value
        self._render_rows()

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        self.table.focus()


def load_pane(spec: PaneSpec) -> type[Pane]:
    """Import the class of the pane the registry names (cheap after the first time)."""
    pane_class: type[Pane] = spec.load()
    return pane_class
