"""The entry dialog: one memory file in full (frontmatter, findings, markdown body).

Opened from the Recall pane (``enter`` on a result) and from the Entries pane
(``enter`` on a row); what it shows is read by :mod:`memoir_tui.ui.entry_document`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from memoir_tui.core import MemoirError
from memoir_tui.dialogs.base import DialogScreen
from memoir_tui.ui.entry_document import (
    EntryDocument,
    EntryRef,
    facts_line,
    findings_view,
    load_entry_document,
    meta_value,
    open_in_editor,
)
from memoir_tui.ui.fields import home_relative, theme_colours
from memoir_tui.ui.latest_read import LatestRead
from memoir_tui.widgets.frontmatter_table import FrontmatterTable

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from memoir_tui.core import Memoir
    from memoir_tui.ui.recall_source import RecallSource


class EntryScreen(DialogScreen[bool]):
    """One memory file in full: frontmatter table, validation findings, markdown body.

    Dismisses with ``True`` when the file was edited here (the opener re-reads).

    | Key(s) | Description |
    | :- | :- |
    | e | Open the file in `$EDITOR`; the view reads it again afterwards. |
    | down, j | Scroll down. |
    | up, k | Scroll up. |
    | home, g | Go to the top. |
    | end, G | Go to the bottom. |
    | pageup, pagedown | Scroll a page. |
    | escape, q | Close. |
    """

    HELP_TITLE: ClassVar[str] = "Entry detail"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="Open the file in $EDITOR, then read it again",
            id="entry.edit",
        ),
        Binding("escape,q", "close", "Close", tooltip="Close the entry", id="entry.close"),
        Binding(
            "down,j", "scroll('down')", "Down", show=False, tooltip="Scroll down", id="entry.down"
        ),
        Binding("up,k", "scroll('up')", "Up", show=False, tooltip="Scroll up", id="entry.up"),
        Binding(
            "home,g", "scroll('home')", "Top", show=False, tooltip="Go to the top", id="entry.top"
        ),
        Binding(
            "end,G",
            "scroll('end')",
            "Bottom",
            show=False,
            tooltip="Go to the bottom",
            id="entry.bottom",
        ),
        Binding(
            "pageup",
            "scroll('page_up')",
            "Page up",
            show=False,
            tooltip="One page up",
            id="entry.page_up",
        ),
        Binding(
            "pagedown",
            "scroll('page_down')",
            "Page down",
            show=False,
            tooltip="One page down",
            id="entry.page_down",
        ),
    ]

    DEFAULT_CSS = """
    EntryScreen > #dialog {
        width: 98%;
        max-width: 140;
        height: 94%;
    }
    EntryScreen .dialog--title {
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    EntryScreen #entry-facts, EntryScreen #entry-path {
        width: 1fr;
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        color: $text-muted;
    }
    EntryScreen #entry-scroll {
        height: 1fr;
        margin: 1 0 0 0;
        scrollbar-size-vertical: 1;
    }
    EntryScreen .entry--section {
        width: 1fr;
        color: $text-primary;
        text-style: bold;
        padding: 0;
    }
    EntryScreen #entry-findings {
        height: auto;
        padding: 0 0 1 0;
    }
    EntryScreen #entry-frontmatter {
        margin: 0 0 1 0;
    }
    EntryScreen #entry-no-frontmatter {
        color: $text-muted;
        padding: 0 0 1 0;
    }
    EntryScreen #entry-body {
        height: auto;
        margin: 0;
        padding: 0;
        background: $surface;
    }
    EntryScreen #entry-error {
        color: $text-error;
        display: none;
    }
    EntryScreen.-error #entry-error {
        display: block;
    }
    EntryScreen.-error #entry-scroll {
        display: none;
    }
    """

    def __init__(self, source: RecallSource, ref: EntryRef, *, store: Memoir) -> None:
        super().__init__()
        self.source = source
        self.ref = ref
        self.store = store  # edits come in through its door
        self.document: EntryDocument | None = None
        self.edited = False
        self.reading = False
        self._reads: LatestRead[EntryDocument] = LatestRead(self, "entry-load", self._loaded)

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown  # markdown-it loads on first open, not at start-up

        with Vertical(id="dialog"):
            yield Label(self.ref.name, classes="dialog--title", markup=False, id="entry-title")
            yield Static(facts_line(self.ref), id="entry-facts")
            yield Static(Text(home_relative(self.ref.path)), id="entry-path")
            yield Static("", id="entry-error", markup=False)
            with VerticalScroll(id="entry-scroll"):
                yield Label("Validation", classes="entry--section")
                yield Static(Text("Reading…", style="dim"), id="entry-findings")
                yield Label("Frontmatter", classes="entry--section")
                yield FrontmatterTable(id="entry-frontmatter")
                yield Static("", id="entry-no-frontmatter", markup=False)
                yield Label("Body", classes="entry--section")
                yield Markdown("", id="entry-body")
            yield Label("e edits in $EDITOR · j/k scroll · esc closes", classes="dialog--hint")

    @property
    def scroller(self) -> VerticalScroll:
        return self.query_one("#entry-scroll", VerticalScroll)

    @property
    def body_view(self) -> Markdown:
        from textual.widgets import Markdown

        return self.query_one("#entry-body", Markdown)

    @property
    def frontmatter_table(self) -> FrontmatterTable:
        return self.query_one(FrontmatterTable)

    def on_mount(self) -> None:
        self.scroller.focus()
        self.reload()

    # --- reading ---------------------------------------------------------------------

    def reload(self, *, changed: Sequence[str] = ()) -> None:
        """Read the file again in a worker (``changed``: tell the index first)."""
        self.reading = True
        ref, source, changed = self.ref, self.source, tuple(changed)

        def read() -> EntryDocument:
            try:
                recall = source.get()
                if changed:
                    recall.notify_changed(changed)
                return load_entry_document(recall, ref)
            except (MemoirError, OSError) as err:
                return EntryDocument(ref, path=ref.path, error=str(err))

        self._reads.start(read)

    def _loaded(self, document: EntryDocument) -> None:
        self.call_next(self._show_document, document)

    async def _show_document(self, document: EntryDocument) -> None:
        self.reading = False
        self.document = document
        self.set_class(bool(document.error), "-error")
        if document.error:
            self.query_one("#entry-error", Static).update(
                f"Cannot show this file: {document.error}"
            )
            return
        self.query_one("#entry-findings", Static).update(
            findings_view(document, theme_colours(self.app))
        )
        table = self.frontmatter_table
        no_frontmatter = self.query_one("#entry-no-frontmatter", Static)
        if document.meta:
            table.display = True
            no_frontmatter.display = False
            table.set_items((str(k), meta_value(v)) for k, v in document.meta.items())
        else:
            table.display = False
            no_frontmatter.display = True
            if document.meta_error:
                no_frontmatter.update(document.meta_error)
            elif document.ref.is_session_item:
                no_frontmatter.update("none: a working-set item has fields, not a file")
            else:
                no_frontmatter.update("none")
        await self.body_view.update(document.body.strip() or "*(empty)*")

    # --- actions ---------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(self.edited)

    def action_scroll(self, how: str) -> None:
        scroller = self.scroller
        actions = {
            "down": scroller.scroll_down,
            "up": scroller.scroll_up,
            "home": scroller.scroll_home,
            "end": scroller.scroll_end,
            "page_up": scroller.scroll_page_up,
            "page_down": scroller.scroll_page_down,
        }
        scroll = actions.get(how)
        if scroll is not None:
            scroll(animate=False)

    def action_edit(self) -> None:
        document = self.document
        if self.ref.is_session_item:
            self.app.notify(
                "A working-set item lives in session.json: change it in the Working set or "
                "Decisions pane, never in an editor.",
                severity="warning",
            )
            return
        if document is None or self.reading:
            self.app.notify("Still reading the file…", severity="warning")
            return
        if document.error:
            self.app.notify(f"Cannot edit: {document.error}", severity="error")
            return
        if open_in_editor(self.app, self.store, document.path):
            self.edited = True
            self.reload(changed=(document.path,))
