"""The review pane: captured candidates wait here until a person pins or rejects them.

The queue is read in a thread worker (the near-hidden check compares every
candidate with every forgotten decision); every pin and reject goes through the
app's write path, whose reload re-reads the queue.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from memoir_tui.core import (
    CANDIDATE,
    GLOBAL,
    STATES,
    Memoir,
    MemoirError,
    NearHidden,
    NearHiddenError,
    Outcome,
    ReviewItem,
    WorkingSet,
    day_or_raw,
    in_review_scope,
    label_of,
    parse_date_ms,
    short_labels,
)
from memoir_tui.core import review_file as review
from memoir_tui.dialogs.candidate import (
    CandidateDetailScreen,
    PinCandidateScreen,
    PinDraft,
    candidate_details,
    near_hidden_text,
)
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.panes.base import FilteredPane, PaneCommand
from memoir_tui.panes.windowed_list import ListView, WindowedList, list_bindings
from memoir_tui.ui.fields import (
    field_grid,
    theme_colours,
)
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.ui.store_watch import ReviewChanged, ScopeChanged
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import (
    ColumnSpec,
    ItemTable,
    TableRow,
    cell,
)
from memoir_tui.widgets.status_line import StatusLine

REVIEW_COLUMNS = (
    ColumnSpec("mark", "", width=1),
    ColumnSpec("text", "Candidate", weight=1, min_width=12),
    ColumnSpec("source", "Source", width=11),
    ColumnSpec("rule", "Rule", width=20),
    ColumnSpec("when", "When", width=10),
    ColumnSpec("project", "Project", width=24, min_table_width=96, fit=True),
)

MARK = "●"
LOAD_GROUP = "review-load"

REVIEW_SORT_KEYS: dict[str, Callable[[ReviewItem], Any]] = {
    "text": lambda i: i.text.casefold(),
    "source": lambda i: i.badges[0],
    "rule": lambda i: (i.extractor or "").casefold(),
    "when": lambda i: parse_date_ms(i.timestamp or i.captured_at),
    "project": lambda i: (i.project_label or GLOBAL).casefold(),
}
"""Column key → what the candidates are ordered by (the Project column by the label shown,
``ReviewPane.sort_key``)."""

REJECT_WARNING = (
    "Rejecting is permanent: the candidate becomes a tombstone in review.json, so the same "
    "text is never proposed again here or on any machine this store syncs with."
)
BULK_PIN_WARNING = (
    "Each is pinned as a decision exactly as captured, without why or rejected. Candidates "
    "close to a forgotten decision are skipped and stay in the queue: pin those one at a time."
)
NEAR_HIDDEN_WARNING = (
    "A person chose to forget that decision. Pinning this brings it back as a live decision "
    "on every machine this store syncs with."
)
READ_ONLY_HISTORY = "Pinned and rejected items are history and read-only."


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """One read of ``review.json`` (every state; the pane filters)."""

    items: tuple[ReviewItem, ...] = ()
    error: str = ""
    damage: str = ""  # the queue file is unreadable or newer: what it says, else ""


def source_label(item: ReviewItem) -> str:
    return item.badges[0]  # "[assistant]" or "[user]", always first


def review_row(
    item: ReviewItem, *, marked: bool, colours: dict[str, str], project: str = ""
) -> TableRow:
    """One candidate's row; ``project`` is its project's short label (``core.labels``)."""
    live = item.state == CANDIDATE
    base = "" if live else "dim italic"
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    for badge in item.badges[1:]:  # state, near-hidden, redacted
        if badge == "[near-hidden]":
            text.append(badge + " ", f"bold {colours['text-warning']}")
        else:
            text.append(badge + " ", "dim" if live else base)
    text.append(item.text, base)
    source_style = colours["text-primary"] if item.assistant_sourced else ""
    if not live:
        source_style = base
    return TableRow(
        item.id,
        (
            cell(MARK if marked else "", f"bold {colours['text-warning']}"),
            text,
            cell(source_label(item), source_style),
            cell(item.extractor or "—", base),
            cell(day_or_raw(item.timestamp or item.captured_at), base),
            cell(project or item.project_label or GLOBAL, base),
        ),
    )


def bulk_list(items: Sequence[ReviewItem], limit: int = 12) -> RenderableType:
    lines = [Text(f"{source_label(i)} {i.text}", no_wrap=True, overflow="ellipsis") for i in items]
    if len(items) > limit:
        lines = [*lines[:limit], Text(f"… and {len(items) - limit} more", style="dim")]
    return Group(*lines)


# --- dialogs ---------------------------------------------------------------------------------


class ReviewPane(WindowedList[ReviewItem], FilteredPane):
    """Captured candidates: nothing an assistant said is remembered until a person pins it.

    A window of rows is drawn (a row below says how many more match: enter shows them);
    the filter runs off the UI thread (``panes/windowed_list.py``).

    | Key(s) | Description |
    | :- | :- |
    | enter | Show the candidate with its full provenance; on "N more", the next rows. |
    | p | Pin: edit text, why and rejected, then save it as a decision. |
    | x | Reject for ever (asks first). |
    | space | Mark or unmark the row; p and x then act on the marked rows (typed count). |
    | / | Filter as you type (text, rule, source, project). |
    | escape | Clear the filter, then the marks. |
    | h | Show or hide pinned and rejected history (greyed, read-only). |
    | w | Cycle the project: every one in scope, then each project, then global only. |
    | > | Sort by the next column (queue order, then each column); a header click sorts too. |
    | < | Reverse the order. |
    | E | Export the candidates the list shows (Markdown or JSON) to a file you name. |

    Scoped like every pane: this project's candidates and global ones, or every
    project's after ``A``.
    """

    PANE_ID = "review"
    SORT_KEYS = REVIEW_SORT_KEYS
    EXPORT_TITLE = "Review"
    EXPORT_NAME = "~/memoir-review.md"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "p",
            "pin",
            "Pin",
            tooltip="Pin the candidate as a decision, editing text, why and rejected "
            "(the marked rows, if any: asks for their count)",
            id="review.pin",
        ),
        Binding(
            "x",
            "reject",
            "Reject",
            tooltip="Reject the candidate for ever (the marked rows, if any: asks for their count)",
            id="review.reject",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            tooltip="Mark or unmark the row for a bulk pin or reject",
            id="review.mark",
        ),
        Binding(
            "slash",
            "filter",
            "Filter",
            show=False,
            tooltip="Filter as you type over text, rule, source and project",
            id="review.filter",
        ),
        Binding(
            "w",
            "cycle_project",
            "Project",
            tooltip="Cycle the project: every one shown, each project, global only",
            id="review.project",
        ),
        Binding(
            "h",
            "toggle_history",
            "History",
            tooltip="Show or hide pinned and rejected items (greyed, read-only)",
            id="review.history",
        ),
        *list_bindings("review", rows="the candidates the list shows"),
        Binding(
            "enter",
            "detail",
            "Details",
            show=False,
            tooltip="Show the candidate with its full provenance",
            id="review.detail",
        ),
        Binding(
            "escape",
            "clear_filter",
            "Clear",
            show=False,
            tooltip="Clear the filter, then the marks",
            id="review.clear_marks",
        ),
    ]

    COMMANDS = (
        PaneCommand("pin", "pin", "Pin the selected candidate (or the marked ones)", "review.pin"),
        PaneCommand(
            "reject",
            "reject",
            "Reject the selected candidate (or the marked ones)",
            "review.reject",
        ),
        PaneCommand("details", "detail", "Show the candidate's full provenance", "review.detail"),
        PaneCommand("mark", "mark", "Mark or unmark the row for a bulk act", "review.mark"),
        PaneCommand("pin marked", "pin_marked", "Pin every marked candidate", "review.pin"),
        PaneCommand(
            "reject marked", "reject_marked", "Reject every marked candidate", "review.reject"
        ),
        PaneCommand("clear marks", "clear_marks", "Unmark every row", "review.clear_marks"),
        PaneCommand("filter", "filter", "Filter the candidates as you type", "review.filter"),
        PaneCommand(
            "cycle project",
            "cycle_project",
            "Show one project's candidates (then the next, global only, all)",
            "review.project",
        ),
        PaneCommand(
            "toggle history",
            "toggle_history",
            "Show or hide pinned and rejected items",
            "review.history",
        ),
        PaneCommand("sort", "sort_next", "Sort by the next column", "review.sort"),
        PaneCommand("reverse sort", "sort_reverse", "Reverse the order", "review.sort_reverse"),
        PaneCommand(
            "export…",
            "export",
            "Export the candidates the list shows (Markdown or JSON) to a file",
            "review.export",
        ),
    )
    HELP_WIDGETS = (ItemTable, FilterBar)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[ReviewItem, ...] = ()
        self.marked: set[str] = set()
        self.show_history = False
        self.project_filter: str | None = None  # None: every project shown; "": global only
        self.filter_text = ""
        self.loaded = False
        self.error = ""
        self.damage = ""
        self._colours: dict[str, str] = {}
        self._labels: dict[str, str] = {}
        self._reads: LatestRead[QueueSnapshot] = LatestRead(self, LOAD_GROUP, self._apply)
        self.list_init()

    def compose(self) -> ComposeResult:
        yield FilterBar("filter the queue: text, rule, source, project…", id="review-filter")
        yield ItemTable(REVIEW_COLUMNS, id="review-table")
        yield StatusLine("reading the review queue…", id="review-status")

    def on_mount(self) -> None:
        # The base class's on_mount runs too and reads through show_state when the app
        # holds a state: one read, not two racing each other for the GIL.
        if getattr(self.app, "state", None) is None:
            self.refresh_queue()

    @property
    def table(self) -> ItemTable:
        return self.query_one("#review-table", ItemTable)

    def focus_default(self) -> None:
        self.focus_now(self.table)

    # --- reading ------------------------------------------------------------------------

    def show_state(self, ws: WorkingSet) -> None:
        # The session changed (or a write finished): the queue's near-hidden flags
        # may have changed with it.
        self.refresh_queue()

    @on(ReviewChanged)
    def _queue_changed(self, message: ReviewChanged) -> None:
        # `memoir-tui capture` (or a sync) changes review.json without the session.
        self.refresh_queue()

    def refresh_queue(self) -> None:
        queue = self.host.store.review

        def read() -> QueueSnapshot:
            try:
                loaded = queue.load()
                items = queue.items_of(loaded, states=STATES)
            except (MemoirError, OSError) as err:
                return QueueSnapshot(error=str(err))
            damaged = loaded.damaged or loaded.read_only
            damage = (loaded.notice or f"{loaded.path} cannot be used") if damaged else ""
            return QueueSnapshot(tuple(items), damage=damage)

        self._reads.start(read)

    def _apply(self, snapshot: QueueSnapshot) -> None:
        self.loaded = True
        self.error = snapshot.error
        self.damage = snapshot.damage
        if not snapshot.error:
            self.items = snapshot.items
        self._render_rows()

    # --- rendering ---------------------------------------------------------------------------

    def in_scope(self, item: ReviewItem) -> bool:
        """This project's and global candidates, or every project's after ``A``."""
        if getattr(self.app, "all_projects", False):
            return True
        return in_review_scope(item.project, self.host.store.project)  # the one rule

    def scoped_items(self) -> list[ReviewItem]:
        return [i for i in self.items if self.in_scope(i)]

    def visible_items(self) -> list[ReviewItem]:
        """The candidates the list shows, in its order (every one, not only the window)."""
        return list(self.view.rows) if self.view is not None else []

    def project_labels(self) -> dict[str, str]:
        """Project id → short label, over the session's projects and the queue's: the
        same label the other panes show."""
        state = getattr(self.app, "state", None)
        names = dict(state.project_names) if state is not None else {}
        for item in self.items:
            if item.project and item.project_label:
                names.setdefault(item.project, item.project_label)
        return short_labels(names)

    def label(self, item: ReviewItem, labels: dict[str, str] | None = None) -> str:
        labels = self.project_labels() if labels is None else labels
        return label_of(item.project, labels, fallback=item.project_label)

    def project_choices(self) -> list[str | None]:
        """What ``w`` cycles through: every project, each one present, global only."""
        projects = sorted({i.project for i in self.scoped_items() if i.project})
        has_global = any(not i.project for i in self.scoped_items())
        return [None, *projects, *([""] if has_global else [])]

    def _render_rows(self) -> None:
        if self.project_filter is not None and self.project_filter not in self.project_choices():
            self.project_filter = None  # that project's candidates are gone (or out of scope)
        if self.marked:
            self.marked &= {i.id for i in self.items if i.state == CANDIDATE and self.in_scope(i)}
        self._colours = theme_colours(self.app)
        self._labels = self.project_labels()
        self.refresh_list()

    # --- the list (panes/windowed_list.py) ---------------------------------------------

    def list_source(self) -> tuple[ReviewItem, ...]:
        return self.items

    def list_scope(self) -> tuple[Hashable, Callable[[ReviewItem], bool] | None]:
        store = self.host.store
        here = None if getattr(self.app, "all_projects", False) else store.project
        history, wanted = self.show_history, self.project_filter

        def keep(i: ReviewItem) -> bool:
            return (
                (history or i.state == CANDIDATE)
                and in_review_scope(i.project, here)
                and (wanted is None or (i.project or "") == wanted)
            )

        return (here, history, wanted), keep

    def sort_key(self, column: str | None) -> Callable[[ReviewItem], Any] | None:
        if column == "project":
            labels = dict(self._labels)
            return lambda i: label_of(i.project, labels, fallback=i.project_label).casefold()
        return super().sort_key(column)

    def row_key(self, row: ReviewItem) -> str:
        return row.id

    def row_text(self, row: ReviewItem) -> str:
        return "\n".join((row.text, *row.badges, row.extractor or "", row.project_label or ""))

    def table_row(self, row: ReviewItem) -> TableRow:
        return review_row(
            row,
            marked=row.id in self.marked,
            colours=self._colours or theme_colours(self.app),
            project=self.label(row, self._labels),
        )

    def list_columns(self) -> tuple[ColumnSpec, ...]:
        return REVIEW_COLUMNS

    def export_note(self) -> list[str]:
        parts = ["pinned and rejected included"] if self.show_history else []
        if self.project_filter is not None:
            wanted = self.project_filter
            parts.append(
                f"project: {GLOBAL + ' only' if wanted == '' else self._labels.get(wanted, wanted)}"
            )
        return parts

    def list_drawn(self, view: ListView[ReviewItem]) -> None:
        self.filter_bar.set_count(len(view.rows), len(self.items))
        status = self.status_text()
        line = self.query_one("#review-status", StatusLine)
        if str(line.content) != status:
            line.update(status, layout=False)  # one line of a fixed size

    def status_text(self) -> str:
        if self.error:
            return f"could not read the review queue: {self.error}"
        if self.damage:
            return f"{self.damage}. No candidates are shown until it is fixed; nothing is deleted."
        if not self.loaded:
            return "reading the review queue…"
        counts = {state: 0 for state in STATES}
        scoped = self.scoped_items()
        wanted = self.project_filter
        chosen = [i for i in scoped if wanted is None or (i.project or "") == wanted]
        for item in chosen:
            counts[item.state] += 1
        waiting = counts[CANDIDATE]
        near = sum(1 for i in chosen if i.state == CANDIDATE and i.near_hidden is not None)
        if waiting:
            parts = [f"{waiting} waiting"]
        else:
            parts = ["No candidates waiting (memoir-tui capture proposes them)"]
        if near:
            parts.append(f"{near} near a forgotten decision")
        if self.marked:
            parts.append(f"{len(self.marked)} marked: p/x act on them, esc clears")
        history = counts[review.PINNED] + counts[review.REJECTED]
        if self.show_history:
            parts.append(f"showing {history} pinned/rejected · h hides them")
        elif history:
            parts.append(f"{history} pinned/rejected · h shows them")
        if wanted is not None:
            name = GLOBAL + " only" if wanted == "" else self.project_labels().get(wanted, wanted)
            parts.append(f"project: {name} · w for the next")
        elsewhere = sum(1 for i in self.items if i.state == CANDIDATE and not self.in_scope(i))
        if elsewhere:
            parts.append(f"{elsewhere} in other projects · A shows all")
        if sort := self.sort_note():
            parts.append(sort)
        return " · ".join(parts)

    def selected(self) -> ReviewItem | None:
        return self.selected_row()

    def show_item(self, table_id: str, text: str) -> None:
        """Put the cursor on the candidate reading ``text`` (a search's jump; once the
        queue is read, if it is still on its way)."""
        from memoir_tui.core import text_hash

        self.focus_now(self.table)
        if not self.show_key(text_hash(text)):
            self.app.notify("That candidate is not shown here now.", severity="warning")

    def _live_selection(self) -> ReviewItem | None:
        item = self.selected()
        if item is None:
            self.app.notify("No candidate is selected.", severity="warning")
            return None
        if item.state != CANDIDATE:
            self.app.notify(READ_ONLY_HISTORY, severity="warning")
            return None
        return item

    def marked_items(self) -> list[ReviewItem]:
        return [i for i in self.items if i.id in self.marked and i.state == CANDIDATE]

    # --- actions -------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear_filter":
            return bool(self.filter_text or self.marked)  # otherwise escape goes on up
        if action == "clear_marks":
            return bool(self.marked)
        return True

    def action_clear_filter(self) -> None:
        if self.marked and not self.filter_text:
            self.action_clear_marks()
            return
        super().action_clear_filter()

    @on(DataTable.RowSelected, "#review-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_detail()

    def action_detail(self) -> None:
        if self.page_if_marker():
            return
        item = self.selected()
        if item is not None:
            self.app.push_screen(
                CandidateDetailScreen(item, theme_colours(self.app), self.label(item))
            )

    def action_cycle_project(self) -> None:
        choices = self.project_choices()
        at = choices.index(self.project_filter) if self.project_filter in choices else 0
        self.project_filter = choices[(at + 1) % len(choices)]
        self._render_rows()

    @on(ScopeChanged)
    def _scope_changed(self, message: ScopeChanged) -> None:
        self._render_rows()

    def action_toggle_history(self) -> None:
        self.show_history = not self.show_history
        self._render_rows()

    def action_mark(self) -> None:
        item = self.selected()
        if item is None:
            return
        if item.state != CANDIDATE:
            self.app.notify(READ_ONLY_HISTORY, severity="warning")
            return
        self.marked ^= {item.id}
        self.draw_window()  # the same rows: only the mark column and the status change
        self.table.action_cursor_down()

    def action_clear_marks(self) -> None:
        self.marked.clear()
        self.draw_window()

    def action_pin(self) -> None:
        if self.marked:
            self.action_pin_marked()
            return
        item = self._live_selection()
        if item is None:
            return

        def drafted(draft: PinDraft | None) -> None:
            if draft is not None:
                self._pin(item, draft, force=False)

        self.app.push_screen(PinCandidateScreen(item), drafted)

    def _pin(self, item: ReviewItem, draft: PinDraft, *, force: bool) -> None:
        refused: list[NearHidden] = []
        cid = item.id

        def change(store: Memoir) -> Outcome:
            try:
                return store.review.pin(
                    cid,
                    text=draft.text,
                    why=draft.why,
                    rejected=draft.rejected,
                    force=force,
                )
            except NearHiddenError as err:
                refused.append(err.match)
                return Outcome(False, "Not pinned yet: it is close to a forgotten decision.")

        def done(_outcome: Outcome) -> None:
            if refused:
                self._confirm_near_hidden(item, draft, refused[0])

        self.host.write(change, on_done=done)

    def _confirm_near_hidden(self, item: ReviewItem, draft: PinDraft, match: NearHidden) -> None:
        warning = theme_colours(self.app)["text-warning"]
        body = field_grid(
            [
                ("Candidate", draft.text),
                ("Close to", Text(near_hidden_text(match), style=warning)),
                ("Source", source_label(item)),
            ]
        )

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self._pin(item, draft, force=True)

        self.app.push_screen(
            ConfirmScreen(
                "Pin it anyway?",
                body,
                warning=NEAR_HIDDEN_WARNING,
                yes_label="Pin anyway (y)",
                no_label="Cancel (n)",
                danger=True,
            ),
            answered,
        )

    def action_reject(self) -> None:
        if self.marked:
            self.action_reject_marked()
            return
        item = self._live_selection()
        if item is None:
            return
        cid = item.id

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(lambda store: store.review.reject(cid))

        self.app.push_screen(
            ConfirmScreen(
                "Reject this candidate for ever?",
                candidate_details(item, theme_colours(self.app), self.label(item)),
                warning=REJECT_WARNING,
                yes_label="Reject (y)",
                no_label="Cancel (n)",
                danger=True,
            ),
            answered,
        )

    def action_pin_marked(self) -> None:
        self._bulk("Pin", BULK_PIN_WARNING, lambda store, ids: store.review.pin_all(ids))

    def action_reject_marked(self) -> None:
        self._bulk("Reject", REJECT_WARNING, lambda store, ids: store.review.reject_all(ids))

    def _bulk(
        self, verb: str, warning: str, change: Callable[[Memoir, Sequence[str]], Outcome]
    ) -> None:
        items = self.marked_items()
        if not items:
            self.app.notify("No rows are marked: space marks the row under the cursor.")
            return
        count = len(items)
        ids = tuple(i.id for i in items)

        def done(_outcome: Outcome) -> None:
            self.marked.difference_update(ids)
            self._render_rows()

        def answered(confirmed: bool | None) -> None:
            if confirmed:
                self.host.write(partial(change, ids=ids), on_done=done)

        noun = "candidate" if count == 1 else "candidates"
        self.app.push_screen(
            TypeToConfirmScreen(
                f"{verb} {count} marked {noun}?",
                bulk_list(items),
                warning=warning,
                word=str(count),
                confirm_label=f"{verb} {count}",
            ),
            answered,
        )
