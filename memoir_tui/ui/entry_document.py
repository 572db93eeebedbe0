"""One memory file as the entry dialog shows it: what it is, its document, its editor.

:class:`EntryRef` says which file (from a recall hit or an entry listing);
:func:`load_entry_document` reads it through ``Recall.read`` (so only a file some
tool's adapter finds can be shown) with its validation findings; ``e`` in the
dialog hands the terminal to ``$EDITOR`` (:func:`open_in_editor`). The dialog is
:class:`memoir_tui.dialogs.entry.EntryScreen`.

Which files are checked against the entry format (``core.validate``): memory
files of the store and of Claude Code (the format's origin); rules and
instruction files of other tools have no entry format and are shown as they are.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App, SuspendNotSupported

from memoir_tui.core import CLAUDE_MEMORY_INDEX, MemoirError, day_or_raw
from memoir_tui.ui.fields import home_relative

if TYPE_CHECKING:
    from memoir_tui.core import EntryInfo, Finding, Memoir, Recall
    from memoir_tui.core import RecallHit as Hit

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
    from memoir_tui.core import frontmatter, parse_entry, validate_entry

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
