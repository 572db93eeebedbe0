"""The entry-file format: one memory per markdown file (FORMAT §2).

``read_entry`` turns a file into an ``Entry`` with its type resolved through
the legacy dialects table; the raw frontmatter mapping is kept whole (unknown
keys and their order included) so a rewrite never loses anything it did not
mean to change. Parsing, encoding, names and the two-directory merge plan live
here; ``entries.EntryFiles`` (``store.entries``) is the service that writes them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format import frontmatter
from memoir_tui.core.format.identity import parse_date_ms
from memoir_tui.core.format.items import dict_field
from memoir_tui.core.format.names import is_entry_name

ENTRY_TYPES = ("fact", "preference", "decision", "lesson", "goal", "next_action")
OPAQUE = "opaque"  # legacy dossiers and files without frontmatter

# Legacy `type` values and what they are read as (FORMAT §2, legacy dialects).
LEGACY_TYPES = {"user": "preference", "feedback": "lesson", "reference": "fact", "project": OPAQUE}

MAX_ENTRY_BYTES = 1024 * 1024
MAX_EDIT_BYTES = 16 * 1024 * 1024  # a file opened in $EDITOR (read regular-only)
_H1_RE = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_HOW_TO_APPLY_RE = re.compile(
    r"^\s*\*\*How to apply:\*\*\s*(?P<inline>.*?)\s*$(?P<rest>(?:\n(?!\s*\*\*[^*]+:\*\*|#).*)*)",
    re.MULTILINE,
)


class EntryError(MemoirError):
    pass


@dataclass(frozen=True, slots=True)
class Entry:
    """A parsed entry file. ``meta`` is the file's own mapping, untouched."""

    path: Path
    link_name: str
    type: str  # one of ENTRY_TYPES, or OPAQUE
    name: str
    description: str
    meta: dict[str, Any]
    body: str
    legacy: bool = False
    dialects: tuple[str, ...] = ()  # which legacy forms were recognised
    parse_error: str | None = None
    trigger: str = ""
    how_to_apply: str = ""
    origin: Mapping[str, Any] = field(default_factory=dict)

    @property
    def aliases(self) -> tuple[str, ...]:
        return _str_list(self.meta.get("aliases"))

    @property
    def tags(self) -> tuple[str, ...]:
        return _str_list(self.meta.get("tags"))

    @property
    def project(self) -> str:
        value = self.meta.get("project")
        return value if isinstance(value, str) else ""

    @property
    def updated_ms(self) -> int:
        """Merge recency: ``updated``, else ``created`` (FORMAT §4.2)."""
        return parse_date_ms(self.meta.get("updated")) or parse_date_ms(self.meta.get("created"))


def _str_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, str | int | float))
    return ()


def link_name(path: Path) -> str:
    name = path.name
    return name[:-3] if name.endswith(".md") else path.stem


def _how_to_apply_section(body: str) -> str:
    m = _HOW_TO_APPLY_RE.search(body)
    if not m:
        return ""
    return " ".join(part.strip() for part in (m["inline"], m["rest"]) if part.strip())


def _text_of(meta: dict[str, Any], key: str) -> str:
    """A frontmatter field that should be text: itself, or "" when missing or not text."""
    value = meta.get(key)
    return value if isinstance(value, str) else ""


def parse_entry(path: Path, text: str) -> Entry:
    """Resolve type, name and dialects; never raises on odd content."""
    parsed = frontmatter.parse(text)
    meta = parsed.meta
    dialects: list[str] = []
    nested = dict_field(meta, "metadata")

    raw_type = meta.get("type")
    if raw_type is None and "type" in nested:
        raw_type = nested.get("type")
        dialects.append("metadata.type")
    origin: dict[str, Any] = dict(meta["origin"]) if isinstance(meta.get("origin"), dict) else {}
    for holder, label in ((meta, "originSessionId"), (nested, "metadata.originSessionId")):
        if "originSessionId" in holder and "session_id" not in origin:
            origin["session_id"] = holder["originSessionId"]
            dialects.append(label)

    trigger = _text_of(meta, "trigger")
    how = _text_of(meta, "how_to_apply")
    if isinstance(raw_type, str) and raw_type in LEGACY_TYPES:
        dialects.append(f"type: {raw_type}")
        entry_type = LEGACY_TYPES[raw_type]
        if raw_type == "feedback":
            trigger = trigger or _text_of(meta, "description")
    elif isinstance(raw_type, str) and raw_type in ENTRY_TYPES:
        entry_type = raw_type
    elif not parsed.has_frontmatter:
        entry_type = OPAQUE
        dialects.append("no frontmatter")
    else:
        entry_type = OPAQUE
    if entry_type == "lesson" and not how:
        how = _how_to_apply_section(parsed.body)
        if how:
            dialects.append("how to apply section")

    name = _text_of(meta, "name")
    if not name and not parsed.has_frontmatter:
        h1 = _H1_RE.search(parsed.body)
        name = h1.group(1) if h1 else ""
    description = _text_of(meta, "description")
    legacy = bool(dialects) and dialects != ["how to apply section"]
    return Entry(
        path=path,
        link_name=link_name(path),
        type=entry_type,
        name=name or link_name(path),
        description=description,
        meta=meta,
        body=parsed.body,
        legacy=legacy,
        dialects=tuple(dialects),
        parse_error=parsed.error,
        trigger=trigger,
        how_to_apply=how,
        origin=origin,
    )


def read_entry(path: str | os.PathLike[str]) -> Entry:
    from memoir_tui.core.base.fsutil import FileTooLargeError, read_regular

    path = Path(path)
    try:
        # A regular file only: a FIFO would block for ever, /dev/zero never ends.
        data = read_regular(path, max_bytes=MAX_ENTRY_BYTES)
    except FileTooLargeError:
        raise EntryError(f"{path}: larger than {MAX_ENTRY_BYTES // 1024} KB; skipped") from None
    except OSError as exc:
        raise EntryError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise EntryError(f"{path}: not UTF-8 text") from None
    return parse_entry(path, text.replace("\r\n", "\n").replace("\r", "\n"))


def iter_entry_files(directory: Path) -> Iterator[Path]:
    """Markdown files directly in ``directory`` (sorted), without following symlinks out."""
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return
    for name in names:
        full = directory / name
        if name.endswith(".md") and full.is_file() and not full.is_symlink():
            yield full


def render_entry(
    path: str | os.PathLike[str], meta: dict[str, Any], body: str, *, suffix: str = ".md"
) -> bytes:
    """An entry's bytes in the frontmatter subset (raises FrontmatterError, EntryError).
    ``suffix``: the ending the file's host reads (``.mdc`` for Cursor's rules)."""
    path = Path(path)
    if not is_entry_name(path.name, suffix):
        raise EntryError(f"{path.name}: entry file names are lowercase slugs ending in {suffix}")
    return frontmatter.render(meta, body).encode("utf-8")


def new_entry_meta(entry_type: str, name: str, *, created: str, **extra: Any) -> dict[str, Any]:
    """Frontmatter for a new entry: never a legacy dialect."""
    if entry_type not in ENTRY_TYPES:
        raise EntryError(f"unknown entry type {entry_type!r}; one of {', '.join(ENTRY_TYPES)}")
    meta: dict[str, Any] = {"type": entry_type, "name": name, "created": created}
    meta.update({k: v for k, v in extra.items() if v is not None})
    return meta


# --- merging two directories of entry files (FORMAT §4.2) ----------------------------


@dataclass(frozen=True, slots=True)
class EntryChange:
    """What merging a remote directory would do to one local file."""

    link_name: str
    action: str  # "add" | "replace" | "suppress"
    source: Path  # the remote file that would be copied in
    reason: str


_UPDATED_LINE_RE = re.compile(r"^updated:[^\r\n]*", re.MULTILINE)
_TYPE_LINE_RE = re.compile(r"^type:", re.MULTILINE)
_CREATED_LINE_RE = re.compile(r"^created:[^\r\n]*(\r?\n)", re.MULTILINE)


def stamp_updated(text: str, when: str) -> str:
    """``text`` with its frontmatter's ``updated`` set to ``when`` (FORMAT §2).

    Only a typed entry's frontmatter is stamped (a file without one, or without
    ``type``, is returned as it is); every other byte stays: the line is replaced
    in place, or added after ``created`` (else at the end of the block).
    """
    fm, _body = frontmatter.split(text)
    if fm is None or not _TYPE_LINE_RE.search(fm):
        return text
    start = text.index(fm)
    line = f"updated: {when}"
    if _UPDATED_LINE_RE.search(fm):
        new_fm = _UPDATED_LINE_RE.sub(line, fm, count=1)
    else:
        nl = "\r\n" if "\r\n" in fm else "\n"
        created = _CREATED_LINE_RE.search(fm)
        if created:
            new_fm = fm[: created.end()] + line + nl + fm[created.end() :]
        elif fm.endswith(("\n", "\r")):
            new_fm = fm + line + nl
        else:
            new_fm = fm + nl + line
    return text[:start] + new_fm + text[start + len(fm) :]


def _done_at_ms(entry: Entry) -> int | None:
    if entry.type not in ("goal", "next_action") or "done_at" not in entry.meta:
        return None
    return parse_date_ms(entry.meta.get("done_at"))


def _start_ms(entry: Entry) -> int:
    key = "set_on" if entry.type == "goal" else "added"
    return parse_date_ms(entry.meta.get(key)) or entry.updated_ms


def _bytes(path: Path) -> bytes:
    from memoir_tui.core.base.safeio import read_file_safely

    return read_file_safely(path, max_bytes=MAX_EDIT_BYTES)


def plan_entry_merge(local_dir: Path, remote_dir: Path) -> list[EntryChange]:
    """Union by link name; the newer ``updated``/``created`` wins; ``done_at`` is sticky.

    Returns what would change locally, writing nothing. A goal or next-action
    file completed on one side (``done_at``) stays completed against a copy
    that began before that time, and a copy begun after it is a revival.
    """
    local = {e.link_name: e for e in _read_dir(local_dir)}
    remote = {e.link_name: e for e in _read_dir(remote_dir)}
    changes: list[EntryChange] = []
    for name in sorted(remote):
        theirs = remote[name]
        mine = local.get(name)
        if mine is None:
            changes.append(EntryChange(name, "add", theirs.path, "only on the remote"))
            continue
        if _bytes(mine.path) == _bytes(theirs.path):
            continue
        my_done, their_done = _done_at_ms(mine), _done_at_ms(theirs)
        if their_done is not None and my_done is None and _start_ms(mine) <= their_done:
            changes.append(EntryChange(name, "replace", theirs.path, "completed on the remote"))
            continue
        if my_done is not None and their_done is None and _start_ms(theirs) <= my_done:
            continue  # ours is the tombstone; theirs began before it
        mine_key = (mine.updated_ms, _bytes(mine.path))
        theirs_key = (theirs.updated_ms, _bytes(theirs.path))
        if theirs_key > mine_key:
            changes.append(EntryChange(name, "replace", theirs.path, "newer on the remote"))
    return changes


def _read_dir(directory: Path) -> Iterator[Entry]:
    for path in iter_entry_files(directory):
        try:
            yield read_entry(path)
        except EntryError:
            continue
