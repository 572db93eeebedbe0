"""The whole of one memory file: frontmatter as a table, validation findings, markdown body.

:class:`EntryScreen` is opened from the Recall pane (``enter`` on a result) and
from the Entries pane (``enter`` on a row). It reads the file through
``Recall.read`` (so only a file some tool's adapter finds can be shown), in a
thread worker, and ``e`` hands the terminal to ``$EDITOR`` (:func:`open_in_editor`)
and then reads the file again.

Which files are checked against the entry format (``core.validate``): memory
files of the store and of Claude Code (the format's origin); rules and
instruction files of other tools have no entry format and are shown as they are.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import DataTable, Label, Static

from memoir_tui.core.adapters import CLAUDE_MEMORY_INDEX
from memoir_tui.core.dates import day_or_raw
from memoir_tui.core.errors import MemoirError
from memoir_tui.widgets.dialog import DialogScreen
from memoir_tui.widgets.fields import home_relative, theme_colours
from memoir_tui.widgets.latest_read import LatestRead

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from memoir_tui.core.memoir import Memoir
    from memoir_tui.core.recall import EntryInfo, Hit, Recall
    from memoir_tui.core.validate import Finding
    from memoir_tui.widgets.recall_source import RecallSource

SESSION = "session"
VALIDATED_TOOLS = ("memoir", "claude-code")
INDEX_FILES = (CLAUDE_MEMORY_INDEX,)


def project_label(project: str) -> str:
    """An entry's project as a person reads it: ``global``, a ``~`` path, or a name."""
    if not project:
        return "global"
    return home_relative(project)


@dataclass(frozen=True, slots=True)
class EntryRef:
    """What a list knows about a document: enough to find, read and title it."""

    tool: str
    path: str
    type: str
    kind: str
    name: str
    project: str = ""
    description: str = ""
    updated: str = ""
    text: str = ""  # a working-set item's own text (it has no file of its own)

    @property
    def key(self) -> str:
        """Unique in a list: working-set items share ``session.json``."""
        return f"{self.path}\0{self.name}" if self.kind == SESSION else self.path

    @property
    def is_session_item(self) -> bool:
        return self.kind == SESSION

    @classmethod
    def from_hit(cls, hit: Hit) -> EntryRef:
        return cls(
            hit.tool,
            hit.path,
            hit.type,
            hit.kind,
            hit.name,
            hit.project,
            hit.description,
            text=hit.passage if hit.kind == SESSION else "",
        )

    @classmethod
    def from_info(cls, info: EntryInfo) -> EntryRef:
        return cls(
            info.tool,
            info.path,
            info.type,
            info.kind,
            info.name,
            info.project,
            info.description,
            info.updated,
        )


@dataclass(frozen=True, slots=True)
class EntryDocument:
    """One read of a file, parsed and (where the format applies) validated."""

    ref: EntryRef
    path: str = ""  # absolute, as the guard resolved it
    meta: Mapping[str, Any] = field(default_factory=dict)
    has_frontmatter: bool = False
    meta_error: str = ""
    body: str = ""
    findings: tuple[Finding, ...] | None = None  # None: not checked (see ``note``)
    note: str = ""
    error: str = ""  # the file could not be read: nothing else is set


def validation_note(ref: EntryRef) -> str:
    """Why a document is not checked against the entry format ("" when it is)."""
    if ref.is_session_item:
        return "a working-set item in session.json, not an entry file"
    if Path(ref.path).name in INDEX_FILES:
        return "an index of memory files, not an entry"
    if ref.kind != "memory" or ref.tool not in VALIDATED_TOOLS:
        return f"{ref.tool} {ref.kind} files have no entry format to check"
    return ""


def load_entry_document(recall: Recall, ref: EntryRef) -> EntryDocument:
    """Read, parse and validate ``ref`` (blocking: file I/O and YAML; call in a worker)."""
    from memoir_tui.core import frontmatter
    from memoir_tui.core.entry_file import parse_entry
    from memoir_tui.core.validate import validate_entry

    if ref.is_session_item:
        return EntryDocument(
            ref, path=ref.path, body=ref.text or ref.name, note=validation_note(ref)
        )
    try:
        path, text = recall.read(ref.tool, ref.path)
    except (MemoirError, OSError, UnicodeDecodeError) as err:
        return EntryDocument(ref, path=ref.path, error=str(err))
    parsed = frontmatter.parse(text)
    note = validation_note(ref)
    findings: tuple[Finding, ...] | None = None
    if not note:
        findings = tuple(validate_entry(parse_entry(Path(path), text)))
    return EntryDocument(
        ref,
        path=path,
        meta=parsed.meta,
        has_frontmatter=parsed.has_frontmatter,
        meta_error=parsed.error or "",
        body=parsed.body,
        findings=findings,
        note=note,
    )


def meta_value(value: Any) -> str:
    """A frontmatter value on one line: lists joined by commas, mappings as ``k: v``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(meta_value(v) for v in value) or "[]"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {meta_value(v)}" for k, v in value.items()) or "{}"
    return str(value)


def findings_view(
    document: EntryDocument, colours: Mapping[str, str] | None = None
) -> RenderableType:
    """The validation findings (severity, rule, message), or why there are none."""
    colours = colours or {}
    if document.findings is None:
        return Text(f"Not checked: {document.note}.", style="dim")
    if not document.findings:
        return Text(
            "No findings: the entry follows the format.", style=colours.get("text-success", "green")
        )
    grid = Table.grid(padding=(0, 2), expand=True)
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(ratio=1, overflow="fold")
    for finding in document.findings:
        colour = colours.get("text-error" if finding.severity == "error" else "text-warning", "")
        grid.add_row(
            Text(finding.severity, style=f"bold {colour}".strip()),
            Text(finding.rule),
            Text(finding.message),
        )
    return grid


def facts_line(ref: EntryRef) -> Text:
    parts = [ref.tool, ref.type, ref.kind, f"project {project_label(ref.project)}"]
    if ref.updated:
        parts.append(f"updated {day_or_raw(ref.updated)}")
    return Text(" · ".join(p for p in parts if p), style="dim")


# --- running the editor --------------------------------------------------------------------


def editor_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """``$EDITOR`` split into words, or None when it is unset or blank."""
    env = os.environ if env is None else env
    editor = env.get("EDITOR", "").strip()
    if not editor:
        return None
    try:
        words = shlex.split(editor)
    except ValueError:
        return [editor]
    return words or None


def open_in_editor(app: App[Any], store: Memoir, path: str) -> bool:
    """Edit ``path`` in ``$EDITOR`` with the app suspended; True when the file changed.

    The editor works on a private copy (``store.entries.begin_edit``); what it
    leaves there comes in through the store's door when it exits (locked,
    scanned for secrets, atomic, audited), or not at all: a non-zero exit
    discards the edit, and a file changed meanwhile keeps the copy and says
    where. Every failure (unset, not found, a terminal that cannot be handed
    over) is a notification naming the cause; the app never shows a traceback.
    """
    shown = home_relative(path)
    command = editor_command()
    if command is None:
        app.notify(
            f"$EDITOR is not set, so {shown} cannot be opened here. "
            "Set it (for example: export EDITOR=nano) and start memoir-tui again.",
            title="No editor",
            severity="warning",
            timeout=10,
        )
        return False
    try:
        edit = store.entries.begin_edit(path)
    except MemoirError as err:
        app.notify(str(err), title="Not opened", severity="error", timeout=10)
        return False
    argv = [*command, str(edit.draft)]
    outcome: list[int | OSError] = []

    def run(*, quiet: bool) -> None:
        # Inside app.suspend(): an exception must not escape, or the app stays suspended.
        streams: dict[str, Any] = (
            {
                "stdin": subprocess.DEVNULL,
                "stdout": subprocess.DEVNULL,
                "stderr": subprocess.DEVNULL,
            }
            if quiet
            else {}
        )
        try:
            outcome.append(subprocess.run(argv, check=False, **streams).returncode)
        except OSError as err:
            outcome.append(err)

    try:
        with app.suspend():
            run(quiet=False)
    except SuspendNotSupported:
        if not app.is_headless:
            store.entries.discard_edit(edit)
            app.notify(
                f"This terminal cannot be handed to an editor; edit {shown} yourself.",
                title="No editor",
                severity="error",
                timeout=10,
            )
            return False
        run(quiet=True)  # headless (tests): there is no terminal to hand over
    result = outcome[0] if outcome else OSError("the editor did not run")
    if isinstance(result, OSError):
        store.entries.discard_edit(edit)
        reason = result.strerror or str(result)
        app.notify(
            f"Could not start $EDITOR ({command[0]}): {reason}",
            title="No editor",
            severity="error",
            timeout=10,
        )
        return False
    if result != 0:
        store.entries.discard_edit(edit)
        app.notify(
            f"The editor exited with status {result}; {shown} was left as it was.",
            severity="warning",
        )
        return False
    try:
        saved = store.entries.finish_edit(edit)
    except MemoirError as err:
        app.notify(str(err), title="Not saved", severity="error", timeout=12)
        return False
    app.notify(f"{shown}: saved" if saved.changed else f"{shown}: no change")
    return saved.changed


# --- widgets -------------------------------------------------------------------------------


class FrontmatterTable(DataTable[Text], can_focus=False):
    """Frontmatter keys and values; long values wrap onto more lines.

    No key bindings (it never takes the focus; the entry view scrolls).
    """

    DEFAULT_CSS = """
    FrontmatterTable {
        height: auto;
        max-height: 100%;
        overflow: hidden;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="none", show_cursor=False, zebra_stripes=True)
        self.items: tuple[tuple[str, str], ...] = ()
        self._laid_out_width = -1

    def set_items(self, items: Iterable[tuple[str, str]]) -> None:
        self.items = tuple(items)
        self._laid_out_width = -1
        self._rebuild()

    def _rebuild(self) -> None:
        width = self.size.width
        if not width:
            return  # laid out later: the first Resize builds it
        key_width = min(max((len(k) for k, _ in self.items), default=3), 24)
        value_width = max(width - key_width - 4 * self.cell_padding, 10)
        self.clear(columns=True)
        self.add_column(Text("Key", style="bold"), width=key_width, key="key")
        self.add_column(Text("Value", style="bold"), width=value_width, key="value")
        for number, (key, value) in enumerate(self.items):
            self.add_row(
                Text(key, style="bold"), Text(value, overflow="fold"), height=None, key=str(number)
            )
        self._laid_out_width = width

    def on_resize(self, event: Resize) -> None:
        if self.size.width != self._laid_out_width:
            self._rebuild()


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
