"""The recall pane: one ranked search over the store and every host tool's memory.

Typing searches as you type: each keystroke restarts a short timer
(:data:`DEBOUNCE_SECONDS`) and the search itself (SQLite) runs in a thread
worker; an answer to an older query is dropped. The app's one ``Recall`` is
opened on first use, in that worker (see ``widgets.recall_source``).

Recall never returns hidden decisions, completed actions or another
project's entries (``A`` widens the search to every project); the pane shows
what it gets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import DataTable, Static

from memoir_tui.core import MemoirError, WorkingSet, cut_middle, place_labels
from memoir_tui.dialogs.entry import EntryScreen
from memoir_tui.panes.base import Pane, PaneCommand
from memoir_tui.ui.entry_document import (
    EntryRef,
    open_in_editor,
    project_label,
)
from memoir_tui.ui.fields import home_relative, theme_colours
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.ui.recall_source import RecallSource, recall_source, release_recall
from memoir_tui.ui.store_watch import ScopeChanged
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ColumnSpec, ItemTable, TableRow, cell
from memoir_tui.widgets.status_line import StatusLine

if TYPE_CHECKING:
    from memoir_tui.core import RecallHit as Hit

DEBOUNCE_SECONDS = 0.15
RESULT_LIMIT = 30
PASSAGE_BUDGET = 700

RESULT_COLUMNS = (
    ColumnSpec("name", "Results", weight=1, min_width=16),
    ColumnSpec("tool", "Tool", width=12),
    ColumnSpec("type", "Type", width=11),
    ColumnSpec("project", "Project", width=24, min_table_width=92, fit=True),
    ColumnSpec("score", "Score", width=6),
)

EMPTY_QUERY_HELP = (
    "Press / and type to search the memory of every host tool: the store, Claude Code, "
    "Cursor, Codex, Gemini, Copilot and the rest. Results are ranked passages, searched as "
    "you type; enter goes to the results and opens the whole entry."
)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    tool: str  # "" = every tool
    all_projects: bool


@dataclass(frozen=True, slots=True)
class SearchResult:
    request: SearchRequest
    hits: tuple[Hit, ...] = ()
    project: str = ""  # the current project's directory, for the status line
    tools: tuple[str, ...] = ()  # tools that have documents, for the tool filter
    error: str = ""


def hit_key(hit: Hit) -> str:
    return EntryRef.from_hit(hit).key


def highlighted(text: str, query: str, style: str) -> Text:
    """``text`` with the words that match ``query`` (as recall matches them) styled."""
    from memoir_tui.core import highlight_spans, parse_query

    out = Text(text)
    for start, end in highlight_spans(text, parse_query(query)):
        out.stylize(style, start, end)
    return out


def why_text(why: Mapping[str, Sequence[str]]) -> Text:
    """``matched  aliases: k8s · body: cluster`` ("auth*": a prefix match)."""
    out = Text("matched ", style="dim")
    for number, (where, terms) in enumerate(why.items()):
        if number:
            out.append(" · ", style="dim")
        out.append(f"{where}: ", style="bold")
        out.append(", ".join(terms))
    return out


def where_text(hit: Hit, width: int = 0) -> Text:
    """``~/path:12-14`` (the lines the passage came from), cut in the middle to ``width``
    so the file's name and lines stay."""
    where = home_relative(hit.path)
    if hit.lines:
        first, last = hit.lines[0][0], hit.lines[-1][1]
        where += f":{first}" + (f"-{last}" if last != first else "")
    return Text(cut_middle(where, width) if width > 0 else where, style="dim", no_wrap=True)


class RecallPane(Pane):
    """Search every host tool's memory as you type; open the whole entry.

    | Key(s) | Description |
    | :- | :- |
    | / | Go to the search box (enter: back to the results). |
    | escape | Clear the search. |
    | enter | Open the whole entry: frontmatter, findings, markdown. |
    | e | Open the result's file in `$EDITOR`. |
    | t | Cycle the tool filter (every tool, then each tool with files). |
    """

    PANE_ID = "recall"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "slash",
            "search",
            "Search",
            tooltip="Go to the search box (enter goes back to the results)",
            id="recall.search",
        ),
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="Open the selected result's file in $EDITOR",
            id="recall.edit",
        ),
        Binding(
            "t",
            "cycle_tool",
            "Tool",
            tooltip="Cycle the tool filter: every tool, then each tool with files",
            id="recall.tool",
        ),
        Binding(
            "enter",
            "open",
            "Open",
            show=False,
            tooltip="Open the whole entry: frontmatter, findings and markdown body",
            id="recall.open",
        ),
        Binding(
            "escape",
            "clear",
            "Clear",
            show=False,
            tooltip="Clear the search",
            id="recall.clear",
        ),
    ]

    COMMANDS = (
        PaneCommand("search", "search", "Search every tool's memory as you type", "recall.search"),
        PaneCommand("open entry", "open", "Open the selected result in full", "recall.open"),
        PaneCommand(
            "edit in $EDITOR", "edit", "Open the selected result's file in $EDITOR", "recall.edit"
        ),
        PaneCommand(
            "cycle tool", "cycle_tool", "Search one tool, the next one, or all", "recall.tool"
        ),
        PaneCommand("clear search", "clear", "Empty the search box", "recall.clear"),
    )
    HELP_WIDGETS = (FilterBar, ItemTable, EntryScreen)

    DEFAULT_CSS = """
    RecallPane > #recall-results {
        height: 2fr;
        min-height: 4;
    }
    RecallPane > #recall-passage-scroll {
        height: 3fr;
        min-height: 4;
        padding: 0 1;
        border-top: hkey $panel;
        scrollbar-size-vertical: 1;
    }
    RecallPane #recall-passage {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.query_text = ""
        self.tool = ""
        self.all_projects = bool(getattr(self.app, "all_projects", False))
        self.tools: tuple[str, ...] = ()
        self.project = ""
        self._labels: dict[str, str] | None = None
        self.result: SearchResult | None = None
        self.searching = False
        self.error = ""
        self.shown_passage: Text | None = None
        self._searches: LatestRead[SearchResult] = LatestRead(self, "recall-search", self._searched)
        self._timer: Timer | None = None
        self._by_key: dict[str, Hit] = {}
        self._warmed = False
        self._shown_query = ""

    def compose(self) -> ComposeResult:
        yield FilterBar("search every tool's memory…", id="recall-search")
        yield ItemTable(RESULT_COLUMNS, id="recall-results")
        with VerticalScroll(id="recall-passage-scroll"):
            yield Static(Text(EMPTY_QUERY_HELP, style="dim"), id="recall-passage")
        yield StatusLine("", id="recall-status")

    # --- parts -------------------------------------------------------------------------

    @property
    def source(self) -> RecallSource:
        return recall_source(self.app)

    @property
    def search_bar(self) -> FilterBar:
        return self.query_one("#recall-search", FilterBar)

    @property
    def table(self) -> ItemTable:
        return self.query_one("#recall-results", ItemTable)

    @property
    def hits(self) -> tuple[Hit, ...]:
        return self.result.hits if self.result is not None else ()

    def focus_default(self) -> None:
        # The list, not the box: number keys must still switch panes; / starts a search.
        self.focus_now(self.table)
        if not self._warmed:
            self._warmed = True
            self.search_now()  # opens the index now, so typing is quick

    def show_state(self, ws: WorkingSet) -> None:
        """The session changed: hidden or new decisions change what a search returns."""
        if self.query_text.strip() and self.source.is_open:
            self.search_now()

    def on_unmount(self) -> None:
        release_recall(self.app)

    def selected(self) -> Hit | None:
        key = self.table.cursor_key
        return self._by_key.get(key) if key else None

    # --- searching -----------------------------------------------------------------------

    def _request(self) -> SearchRequest:
        return SearchRequest(self.query_text, self.tool, self.all_projects)

    def search_now(self) -> None:
        """Search at once (no debounce): after a filter change or a session change."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.searching = True
        self._show_status()
        self._search(self._request())

    @on(FilterBar.Changed, "#recall-search")
    def _query_changed(self, event: FilterBar.Changed) -> None:
        event.stop()
        self.query_text = event.value
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_SECONDS, self.search_now, name="recall-debounce")

    @on(FilterBar.Done, "#recall-search")
    def _search_done(self, event: FilterBar.Done) -> None:
        event.stop()
        if event.cleared:
            self.query_text = ""
            self.search_now()
        elif self._timer is not None:
            self.search_now()  # enter before the pause: the results are for what was typed
        self.table.focus()

    def _search(self, request: SearchRequest, changed: tuple[str, ...] = ()) -> None:
        """Search in a thread (``changed``: files to re-index first, e.g. after an edit)."""
        source, known_tools = self.source, self.tools

        def read() -> SearchResult:
            try:
                recall = source.get()
                if changed:
                    recall.notify_changed(changed)
                hits: tuple[Hit, ...] = ()
                if request.query.strip():
                    found = recall.search(
                        request.query,
                        limit=RESULT_LIMIT,
                        tools=[request.tool] if request.tool else None,
                        all_projects=request.all_projects,
                        budget=PASSAGE_BUDGET,
                    )
                    # A result that matched nothing of the query is not a result.
                    hits = tuple(h for h in found if h.score > 0)
                tools = known_tools or tuple(sorted(recall.status().by_tool))
                return SearchResult(request, hits, recall.current_project(), tools)
            except (MemoirError, OSError) as err:
                return SearchResult(request, error=str(err))

        self._searches.start(read)

    @on(ScopeChanged)
    def _scope_changed(self, message: ScopeChanged) -> None:
        self.all_projects = message.all_projects
        if self.source.is_open:
            self.search_now()

    def _searched(self, result: SearchResult) -> None:
        self.searching = False
        self.error = result.error
        if result.error:
            self.app.notify(result.error, title="Recall", severity="error", timeout=8)
        if result.tools:
            self.tools = result.tools
        if result.project:
            self.project = result.project
        self.result = result
        self._show_results()

    # --- rendering ---------------------------------------------------------------------------

    def _show_results(self) -> None:
        hits = self.hits
        self._labels = None  # computed again over these hits' projects
        self._by_key = {hit_key(h): h for h in hits}
        rows = [
            TableRow(
                hit_key(h),
                (
                    cell(h.name),
                    cell(h.tool),
                    cell(h.type),
                    cell(self.project_name(h.project)),
                    cell(f"{h.score:.2f}", "dim"),
                ),
            )
            for h in hits
        ]
        query = self.result.request.query if self.result is not None else ""
        noun = "result" if len(hits) == 1 else "results"
        title = f"{len(hits)} {noun}" if query.strip() else "Results"
        table = self.table
        table.set_rows(rows, title=title)
        if hits and (query != self._shown_query or table.cursor_key not in self._by_key):
            table.move_to_key(hit_key(hits[0]))  # a new query starts at its best result
        self._shown_query = query
        self._show_passage()
        self._show_status()

    def project_name(self, project: str) -> str:
        """A hit's project as every pane names it (``core.labels``); the app's own scope
        id is this project."""
        if not project:
            return project_label(project)
        scope = getattr(getattr(self.app, "store", None), "project", None)
        labels = self._labels
        if labels is None:  # once per list of results, over every project they name
            state = getattr(self.app, "state", None)
            names = state.project_names if state is not None else {}
            here = [self.project] if self.project else []
            labels = place_labels([project, *here, *(h.project for h in self.hits)], names)
            self._labels = labels
        if project in labels:
            return cut_middle(labels[project], 24)
        if project == scope and self.project:
            return cut_middle(labels.get(self.project) or home_relative(self.project), 24)
        return cut_middle(project_label(project), 24)

    def _ref(self, hit: Hit) -> EntryRef:
        ref = EntryRef.from_hit(hit)
        if ref.is_session_item and ref.project:
            ref = replace(ref, project=self.project_name(ref.project))
        return ref

    def _scope_text(self) -> str:
        if self.all_projects:
            return "every project"
        scope = getattr(getattr(self.app, "store", None), "project", None)
        where = self.project_name(scope) if scope and self.project else "this project"
        return f"{where} + global"

    def _show_passage(self) -> None:
        passage = self.query_one("#recall-passage", Static)
        query = self.query_text.strip()
        hit = self.selected()
        self.shown_passage = None
        if not query:
            passage.update(Text(EMPTY_QUERY_HELP, style="dim"))
            return
        if self.result is None or self.result.request.query != self.query_text:
            return  # the answer is on its way: keep what is shown
        if hit is None:
            tool = f" from {self.tool}" if self.tool else ""
            lines = [Text(f"Nothing found for {query!r}{tool} in {self._scope_text()}.", "bold")]
            hints = []
            if not self.all_projects:
                hints.append("A searches every project")
            if self.tool:
                hints.append("t changes the tool filter")
            hints.append("hidden decisions and completed actions are never found")
            lines.append(Text(" · ".join(hints), style="dim"))
            passage.update(Group(*lines))
            return
        colours = theme_colours(self.app)
        body = highlighted(
            hit.passage or hit.description or "(no text)",
            query,
            f"bold underline {colours['text-warning']}",
        )
        self.shown_passage = body
        parts: list[RenderableType] = [
            Text(hit.name, style="bold", no_wrap=True, overflow="ellipsis"),
            where_text(hit, passage.size.width - 2),
            Text(""),
            body,
            Text(""),
            why_text(hit.why),
        ]
        passage.update(Group(*parts))
        self.query_one("#recall-passage-scroll", VerticalScroll).scroll_home(animate=False)

    def _show_status(self) -> None:
        parts = [f"scope: {self._scope_text()}", f"tool: {self.tool or 'all'}"]
        if self.searching and not self.source.is_open:
            parts.insert(0, "opening the recall index…")
        elif self.searching:
            parts.insert(0, "searching…")
        parts.append("A all projects" if not self.all_projects else "A this project")
        parts.append("t tool")
        self.query_one("#recall-status", StatusLine).update(" · ".join(parts))

    @on(DataTable.RowHighlighted, "#recall-results")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_passage()

    @on(DataTable.RowSelected, "#recall-results")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    # --- actions -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "clear":
            return bool(self.query_text)  # otherwise escape goes on up the chain
        return True

    def action_search(self) -> None:
        self.search_bar.focus_input()

    def action_clear(self) -> None:
        self.search_bar.clear_filter()
        self.query_text = ""
        self.search_now()
        self.search_bar.focus_input()

    def action_cycle_tool(self) -> None:
        choices = ("", *self.tools)
        index = choices.index(self.tool) if self.tool in choices else 0
        self.tool = choices[(index + 1) % len(choices)]
        if len(choices) == 1:
            self.app.notify("No tool has files yet: searching every tool.", severity="warning")
        self.search_now()

    def action_open(self) -> None:
        hit = self.selected()
        if hit is None:
            self.app.notify("No result is selected.", severity="warning")
            return

        def closed(edited: bool | None) -> None:
            if edited:
                self.search_now()

        self.app.push_screen(
            EntryScreen(self.source, self._ref(hit), store=self.host.store), closed
        )

    def action_edit(self) -> None:
        hit = self.selected()
        if hit is None:
            self.app.notify("No result is selected.", severity="warning")
            return
        ref = EntryRef.from_hit(hit)
        if ref.is_session_item:
            self.app.notify(
                "A working-set item lives in session.json: change it in the Working set or "
                "Decisions pane.",
                severity="warning",
            )
            return
        if open_in_editor(self.app, self.host.store, hit.path):
            self.host.record_act(None, "an edit in $EDITOR")  # u says it cannot take it back
            self._reindex_and_search(hit.path)

    def _reindex_and_search(self, path: str) -> None:
        self.searching = True
        self._show_status()
        self._search(self._request(), (path,))
