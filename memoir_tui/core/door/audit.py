"""The audit log: one JSON line per mutation, in ``audit.jsonl`` inside the store.

A record says who changed what and when — time, actor (``app``, ``cli``,
``mcp``, ``capture``, ``sync``…), operation, list, the item's identity hash,
machine — and never the memory's text. The record type enforces that: every
field is a short token, a date or a SHA-256 hex digest, so raw text has
nowhere to go. ``AuditRecord.for_text`` hashes a text for the caller.

Writing: each record is one ``os.write`` of well under ``PIPE_BUF`` bytes on an
``O_APPEND`` descriptor, so concurrent writers (threads or processes) never
interleave within a line. A crash can still leave a torn last line; the next
writer notices the missing newline and starts on a fresh line, and the reader
skips anything that does not parse.

Rotation: when a write would take ``audit.jsonl`` past ``max_bytes`` it becomes
``audit.jsonl.1`` (and ``.1`` becomes ``.2``; the old ``.2`` goes). The
size check and the renames happen under an ``fcntl.flock`` on
``audit.jsonl.lock`` and the size is checked again inside it, so two writers
that both see a full file rotate once. Appends take no lock: a record written
through a descriptor opened just before a rotation lands in ``.1``, which the
reader still reads. (Losing it would take two more rotations — two more
``max_bytes`` of records — between one writer's ``open`` and its ``write``.)

The JavaScript tool's ``events.jsonl`` is a different file and is left alone.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.base.fsutil import private_dir
from memoir_tui.core.format.identity import is_text_hash, iso_now, parse_iso_ms, text_hash

AUDIT_FILE = "audit.jsonl"
LOCK_FILE = AUDIT_FILE + ".lock"
GENERATIONS = 2  # audit.jsonl.1 and audit.jsonl.2 besides the live file
DEFAULT_MAX_BYTES = 1_000_000
MAX_RECORD_BYTES = 1024  # far below PIPE_BUF (4096 on Linux, 512 by POSIX minimum)

_TOKEN = re.compile(r"^[a-z][a-z0-9_.:-]{0,63}$")  # actor, operation, list
_MACHINE = re.compile(r"^[A-Za-z0-9._:-]{0,128}$")
_TIME = re.compile(r"^[0-9T:.+Z-]{4,40}$")


# Values already found to match _TOKEN / _MACHINE: a log repeats a few actors,
# operations, lists and machines thousands of times (bounded: a hostile log cannot grow it)
_MATCHED: dict[re.Pattern[str], set[str]] = {_TOKEN: set(), _MACHINE: set()}
_MATCHED_MAX = 1024


def _matches(pattern: re.Pattern[str], value: Any) -> bool:
    if not isinstance(value, str):
        return False
    seen = _MATCHED[pattern]
    if value in seen:
        return True
    if not pattern.match(value):
        return False
    if len(seen) < _MATCHED_MAX:
        seen.add(value)
    return True


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One mutation. ``identity_hash`` is ``text_hash(text)`` of the item, or "" (e.g. a merge)."""

    time: str
    actor: str
    operation: str
    list_name: str = ""
    identity_hash: str = ""
    machine_id: str = ""

    def __post_init__(self) -> None:
        if not (isinstance(self.time, str) and _TIME.match(self.time)):
            raise ValueError("audit time must be an ISO date-time")
        if parse_iso_ms(self.time) is None:
            raise ValueError("audit time must be an ISO date-time")
        for name in ("actor", "operation"):
            value = getattr(self, name)
            if not _matches(_TOKEN, value):
                raise ValueError(f"audit {name} must be a short lower-case token, got {value!r}")
        if self.list_name and not _matches(_TOKEN, self.list_name):
            raise ValueError("audit list must be a short lower-case token")
        if self.identity_hash and not is_text_hash(self.identity_hash):
            # The one field that could carry memory text: only a SHA-256 hex digest goes in.
            raise ValueError("audit identity_hash must be a SHA-256 hex digest, never text")
        if not _matches(_MACHINE, self.machine_id):
            raise ValueError("audit machine_id must be a machine identifier")

    @classmethod
    def for_text(
        cls,
        *,
        actor: str,
        operation: str,
        list_name: str,
        text: str | None,
        machine_id: str = "",
        time: str | None = None,
    ) -> AuditRecord:
        """A record for an item given by its text: only the text's identity hash is kept."""
        return cls(
            time=time or iso_now(),
            actor=actor,
            operation=operation,
            list_name=list_name,
            identity_hash=text_hash(text) if text else "",
            machine_id=machine_id,
        )

    def to_json(self) -> dict[str, str]:
        return {
            "time": self.time,
            "actor": self.actor,
            "operation": self.operation,
            "list": self.list_name,
            "identity_hash": self.identity_hash,
            "machine_id": self.machine_id,
        }

    def to_line(self) -> bytes:
        line = (
            json.dumps(self.to_json(), ensure_ascii=True, separators=(",", ":")) + "\n"
        ).encode()
        if len(line) > MAX_RECORD_BYTES:  # the field checks make this unreachable
            raise ValueError("audit record too long for an atomic append")
        return line

    @classmethod
    def from_json(cls, data: Any) -> AuditRecord | None:
        """A record from a parsed line, or None when it is not one (unknown keys are ignored)."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                time=data["time"],
                actor=data["actor"],
                operation=data["operation"],
                list_name=data.get("list") or "",
                identity_hash=data.get("identity_hash") or "",
                machine_id=data.get("machine_id") or "",
            )
        except (KeyError, TypeError, ValueError):
            return None


def audit_paths(store_root: Path) -> list[Path]:
    """The live file and its generations, newest first."""
    base = Path(store_root) / AUDIT_FILE
    return [base] + [base.with_name(f"{AUDIT_FILE}.{n}") for n in range(1, GENERATIONS + 1)]


def append_audit(
    store_root: Path, record: AuditRecord, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> None:
    """Append ``record`` to the store's audit log with one ``O_APPEND`` write."""
    root = Path(store_root)
    line = record.to_line()
    path = root / AUDIT_FILE
    private_dir(root)
    try:
        size = os.stat(path).st_size
    except FileNotFoundError:
        size = 0
    if size and size + len(line) > max_bytes:
        _rotate(root, max_bytes, len(line))
    from memoir_tui.core.base.safeio import open_for_append

    fd = open_for_append(path, within=root)  # never through a link out of the store
    try:
        end = os.fstat(fd).st_size
        # A crash can leave a torn line without its newline; start on a fresh line
        # rather than glue this record onto the remnant.
        if end and os.pread(fd, 1, end - 1) != b"\n":
            line = b"\n" + line
        written = os.write(fd, line)
        while written < len(line):  # not seen on regular files; finish rather than tear
            written += os.write(fd, line[written:])
    finally:
        os.close(fd)


def _rotate(root: Path, max_bytes: int, incoming: int) -> None:
    paths = audit_paths(root)
    from memoir_tui.core.base.safeio import open_for_append

    lock_fd = open_for_append(root / LOCK_FILE, within=root)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        try:
            size = os.stat(paths[0]).st_size
        except FileNotFoundError:
            return
        if not size or size + incoming <= max_bytes:
            return  # another writer rotated while we waited for the lock
        from memoir_tui.core.base.safeio import write_target

        for older, newer in zip(reversed(paths[1:]), reversed(paths[:-1]), strict=True):
            write_target(older, within=root)  # a rename replaces a link; checked anyway
            with contextlib.suppress(FileNotFoundError):
                os.replace(newer, older)
    finally:
        os.close(lock_fd)  # closing releases the flock


def _records_newest_first(path: Path) -> Iterator[AuditRecord]:
    """One generation's records from its last line back, each line parsed only when
    reached (a reader that wants the newest 100 parses about 100)."""
    from memoir_tui.core.base.safeio import UnsafeFileError, not_read_sentence, read_file_safely

    try:
        data = read_file_safely(path, max_bytes=1 << 30)
    except FileNotFoundError:  # no such generation (yet): no records
        return
    except OSError as exc:  # a FIFO, a folder, a device, unreadable: said, naming it
        raise UnsafeFileError(exc.errno or 5, not_read_sentence(path, exc)) from None
    lines = data.split(b"\n")
    lines.reverse()
    for raw in lines:
        if not raw.strip():
            continue
        try:
            # json.loads of ASCII bytes whose first two are not NUL decodes them as UTF-8
            # (json.detect_encoding); decoding here first is the same, and quicker
            parsed = json.loads(
                raw.decode() if raw.isascii() and raw[0] and raw[1:2] != b"\0" else raw
            )
        except (ValueError, UnicodeDecodeError):
            continue  # a torn or foreign line
        record = AuditRecord.from_json(parsed)
        if record is not None:
            yield record


def read_audit(
    store_root: Path,
    *,
    limit: int | None = None,
    actor: str | None = None,
    operation: str | None = None,
) -> list[AuditRecord]:
    """Records newest first (by append order) across all generations, optionally filtered."""
    out: list[AuditRecord] = []
    if limit is not None and limit <= 0:
        return out
    for path in audit_paths(Path(store_root)):
        for record in _records_newest_first(path):
            if actor is not None and record.actor != actor:
                continue
            if operation is not None and record.operation != operation:
                continue
            out.append(record)
            if limit is not None and len(out) >= limit:
                return out
    return out
