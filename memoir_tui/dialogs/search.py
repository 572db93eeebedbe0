"""One search across every pane (``ctrl+f``): matches from the working set, decisions,
the review queue and the session history, and a jump to the row.

The matching is ``core.search``; this dialog reads the queue once, searches off
the UI thread as you type (only the newest answer is shown), and dismisses with
the hit chosen, which the app turns into a pane switch and a cursor move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Input, Label

from memoir_tui.core import (
    Indexed,
    MemoirError,
    ReviewItem,
    WorkingSet,
    build_index,
    identity,
    plural,
    search_index,
    text_hash,
)
from memoir_tui.core import SearchHit as Hit
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.panes.registry import pane_spec
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell

if TYPE_CHECKING:
    from memoir_tui.core import Memoir

SEARCH_COLUMNS = (
    ColumnSpec("pane", "Pane", width=12),
    ColumnSpec("kind", "Kind", width=11, min_table_width=70),
    ColumnSpec("text", "Match", weight=4, min_width=12),
    ColumnSpec("detail", "", weight=1, min_width=6, min_table_width=60),
)


def hit_key(hit: Hit) -> str:
    """The key of the hit's row in its own pane's table."""
    ref = hit.ref
    if hit.pane_id == "working-set":
        return identity(ref.text)
    if hit.pane_id == "decisions":
        return str(ref.key)
    if hit.pane_id == "review":
        return str(ref.id)
    if hit.pane_id == "entries":
        return str(ref.key)
    return text_hash(f"{ref.date}\n{ref.machine_id}\n{ref.summary}")  # history.entry_key


@dataclass(frozen=True, slots=True)
class Found:
    needle: str
    hits: tuple[Hit, ...]
    total: int


class SearchScreen(DialogScreen[Hit | None]):
    """Search every pane at once; enter jumps to the row.

    | Key(s) | Description |
    | :- | :- |
    | (type) | Search as you type: goals, next actions, questions, decisions, candidates, sessions. |
    | down, enter | From the box: into the results. |
    | enter | On a result: go to its row in its pane. |
    | escape | Close. |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="search.close"),
    ]

    DEFAULT_CSS = """
    SearchScreen > #dialog {
        height: 90%;
        max-height: 90%;
    }
    SearchScreen #search-results {
        height: 1fr;
    }
    """

    def __init__(self, state: WorkingSet | None, store: Memoir | None = None) -> None:
        super().__init__()
        self.state = state
        self.store = store
        self.review: tuple[ReviewItem, ...] | None = None  # the queue, read once, off the UI
        self.entries: tuple[object, ...] = ()  # the Entries pane's index, once it was read
        self.index: list[Indexed] | None = None
        self.found = Found("", (), 0)
        self._reads: LatestRead[Found] = LatestRead(self, "search-all", self._apply)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Search every pane", classes="dialog--title")
            yield Input(
                placeholder="words, in any order (goals, actions, questions, decisions, "
                "candidates, sessions)",
                id="search-input",
            )
            yield ItemTable(SEARCH_COLUMNS, id="search-results")
            yield Label(
                "type to search · enter goes to the row · esc closes",
                classes="dialog--hint",
                id="search-status",
                markup=False,
            )

    def on_mount(self) -> None:
        for pane in self.app.query("#entries-pane"):
            # what its list shows (its filters and scope applied), so every hit can be jumped to
            if getattr(pane, "snapshot", None) is not None:
                self.entries = tuple(pane.visible_entries())  # type: ignore[attr-defined]
        self.query_one("#search-input", Input).focus()

    @property
    def table(self) -> ItemTable:
        return self.query_one("#search-results", ItemTable)

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        self.search(event.value)

    def search(self, needle: str) -> None:
        state = self.state

        def read() -> Found:
            if state is None:
                return Found(needle, (), 0)
            if self.index is None:  # folded once, on the first key (off the UI thread)
                self.index = build_index(state, self._queue(), entries=self.entries)
            hits, total = search_index(self.index, needle)
            return Found(needle, tuple(hits), total)

        self._reads.start(read)

    def _queue(self) -> tuple[ReviewItem, ...]:
        if self.review is None:
            review: tuple[ReviewItem, ...] = ()
            if self.store is not None:
                try:
                    queue = self.store.review
                    review = tuple(i for i in queue.items_of(queue.load()) if self._in_scope(i))
                except (MemoirError, OSError):
                    review = ()  # a damaged queue is the Review pane's to say
            self.review = review
        return self.review

    def _in_scope(self, item: ReviewItem) -> bool:
        """The scope the header names (as the Review pane's): this project's and global
        candidates, every project's after ``A``."""
        from memoir_tui.core import same_project

        store = self.store
        if store is None or store.project is None or getattr(self.app, "all_projects", False):
            return True
        return same_project(item.project, store.project)

    def _apply(self, found: Found) -> None:
        self.found = found
        rows = [
            TableRow(
                f"{n}",
                (
                    cell(pane_spec(h.pane_id).title),
                    cell(h.kind),
                    cell(h.text),
                    cell(h.detail, "dim"),
                ),
            )
            for n, h in enumerate(found.hits)
        ]
        self.table.set_rows(rows)
        entries_key = pane_spec("entries").key
        unread = "" if self.entries else f" · memory files once Entries ({entries_key}) is read"
        if not found.needle.strip():
            status = "type to search · enter goes to the row · esc closes" + unread
        elif not found.total:
            status = f"nothing matches {found.needle.strip()!r}" + unread
        else:
            panes = len({h.pane_id for h in found.hits})
            more = f" (the first {len(found.hits)} listed)" if found.total > len(found.hits) else ""
            status = (
                f"{plural(found.total, 'match', 'matches')} in {plural(panes, 'pane')}{more} "
                "· enter goes to the row" + unread
            )
        self.query_one("#search-status", Label).update(status)

    @on(Input.Submitted, "#search-input")
    def _into_results(self, event: Input.Submitted) -> None:
        event.stop()
        if self.found.hits:
            self.table.focus()

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        field = self.query_one("#search-input", Input)
        if key == "down" and self.focused is field and self.found.hits:
            self.table.focus()

    @on(DataTable.RowSelected, "#search-results")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = self.table.cursor_key
        if key is not None and key.isdigit() and int(key) < len(self.found.hits):
            self.dismiss(self.found.hits[int(key)])

    def action_close(self) -> None:
        self.dismiss(None)


JUMP_WAIT_STEPS = 100
"""A pane shown for the first time reads its list off the UI thread: the jump waits for it
(checked every 20 ms, two seconds at most) before saying the row is not shown."""


async def go_to_hit(app: Any, hit: Hit) -> None:
    """Show the hit's pane and put its cursor on the hit's row (a pane's own jump when it
    has one: the working set's lists, decisions)."""
    import asyncio

    if getattr(app, "closing", False):
        return
    await app.action_show_pane(hit.pane_id)
    pane = app.pane(hit.pane_id)
    show_item = getattr(pane, "show_item", None)
    if show_item is not None:
        pane.call_after_refresh(show_item, hit.table_id, hit.text)
        return
    key = hit_key(hit)
    for _ in range(JUMP_WAIT_STEPS):
        table = getattr(pane, "table", None)
        if table is not None and table.move_to_key(key):
            pane.focus_now(table)
            return
        await asyncio.sleep(0.02)
    app.notify(f"That {hit.kind} is not shown in {pane.TITLE} now.", severity="warning")
