"""The trash: nothing a clean-up removes or rewrites is ever lost.

Layout inside the store::

    trash/journal.jsonl        one JSON object per line (append-only)
    trash/<id>/<n>-<name>      each file's bytes as they were before apply <id>

``Trash`` is a store service (``store.trash``). A clean-up stages its file
changes in a store transaction and calls ``keep(tx, label)``, which stages,
in the same transaction, a copy of the previous bytes of every file that
changes and the ``apply`` record that names them: the transaction commits
the copies, the record and the changes together (its redo journal makes
that all or nothing). Journal records::

    {"op": "apply", "id": ID, "at": ISO, "label": TEXT, "items": [
        {"change": "removed" | "modified" | "created", "path": ABS,
         "blob": "0-name.md" | null, "before": SHA256 | null, "after": SHA256 | null,
         "mode": INT | null, "mtime_ns": INT | null}, ...]}
    {"op": "restore", "id": ID, "at": ISO, "kept_as": ID | null}
    {"op": "empty", "id": ID, "at": ISO}

``restore(id)`` puts back every byte (and the permission bits and mtime) of
every file the apply touched, deletes files it created, and refuses — naming
the files — when something changed them since, unless forced. What a restore
overwrites is kept as a record of its own, so a restore is never a loss.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.safeio import read_file_safely
from memoir_tui.core.format import durations
from memoir_tui.core.format.identity import parse_date_ms
from memoir_tui.core.format.items import FILES, Outcome, Undo

MAX_TRASH_READ = 256 * 1024 * 1024  # a kept file or the trash's journal (regular-only)

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.door.transaction import Transaction

TRASH_DIR = "trash"
JOURNAL = "journal.jsonl"

ACTIVE, RESTORED, EMPTIED = "active", "restored", "emptied"
APPLY, RESTORE_COPY = "apply", "restore-copy"  # what made a record: a clean-up, or a restore


class TrashError(MemoirError):
    pass


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, or None when it does not exist."""
    try:
        return sha256_bytes(read_file_safely(path, max_bytes=MAX_TRASH_READ))
    except FileNotFoundError:
        return None


@dataclass(frozen=True, slots=True)
class TrashItem:
    change: str  # "removed" | "modified" | "created"
    path: Path
    blob: str | None
    before: str | None
    after: str | None
    mode: int | None = None
    mtime_ns: int | None = None


@dataclass(frozen=True, slots=True)
class TrashRecord:
    id: str
    at: str
    label: str
    items: tuple[TrashItem, ...]
    status: str = ACTIVE  # ACTIVE | RESTORED | EMPTIED
    status_at: str = ""
    kind: str = APPLY  # APPLY | RESTORE_COPY
    kept_as: str = ""  # (restored) the record that keeps what the restore overwrote

    @property
    def removed(self) -> tuple[Path, ...]:
        return tuple(i.path for i in self.items if i.change == "removed")

    @property
    def modified(self) -> tuple[Path, ...]:
        return tuple(i.path for i in self.items if i.change != "removed")


def parse_duration(text: str) -> int:
    """``30d``, ``12h``, ``45m``, ``90s``, ``2w`` (or ``1d12h``) → whole seconds."""
    try:
        return int(durations.parse_duration(text))
    except durations.DurationError:
        raise TrashError(
            f"{text!r} is not a duration; use a number and s, m, h, d or w (e.g. 30d)"
        ) from None


def _new_id(now_iso: str) -> str:
    ms = parse_date_ms(now_iso)
    stamp = datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def _blob_name(index: int, path: Path) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", path.name)[:80] or "file"
    return f"{index}-{safe}"


class Trash:
    """The trash folder of one store (``store.trash``)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.root = Path(store.root) / TRASH_DIR

    @property
    def journal_path(self) -> Path:
        return self.root / JOURNAL

    def _raw_records(self, data: bytes | None = None) -> list[dict[str, Any]]:
        if data is None:
            try:
                data = read_file_safely(self.journal_path, max_bytes=MAX_TRASH_READ)
            except FileNotFoundError:
                return []
        out = []
        for line in data.decode("utf-8", "replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a torn or foreign line: ignore it
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                out.append(record)
        return out

    # --- reading ---------------------------------------------------------------

    def records(self) -> list[TrashRecord]:
        """Every apply, newest (last journaled) first, with its current status."""
        applies: dict[str, dict[str, Any]] = {}
        status: dict[str, tuple[str, str]] = {}
        kept_as: dict[str, str] = {}
        for rec in self._raw_records():
            op = rec.get("op")
            if op == "apply":
                applies[rec["id"]] = rec
            elif op == "restore":
                status[rec["id"]] = (RESTORED, str(rec.get("at", "")))
                if isinstance(rec.get("kept_as"), str):
                    kept_as[rec["id"]] = rec["kept_as"]
            elif op == "empty":
                status.setdefault(rec["id"], (EMPTIED, str(rec.get("at", ""))))
        out = []
        for rid, rec in applies.items():
            items = []
            for raw in rec.get("items") or ():
                if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
                    continue
                items.append(
                    TrashItem(
                        change=str(raw.get("change")),
                        path=Path(raw["path"]),
                        blob=raw.get("blob") if isinstance(raw.get("blob"), str) else None,
                        before=raw.get("before"),
                        after=raw.get("after"),
                        mode=raw.get("mode") if isinstance(raw.get("mode"), int) else None,
                        mtime_ns=raw.get("mtime_ns")
                        if isinstance(raw.get("mtime_ns"), int)
                        else None,
                    )
                )
            st, st_at = status.get(rid, (ACTIVE, ""))
            kind = RESTORE_COPY if rec.get("kind") == RESTORE_COPY else APPLY
            out.append(
                TrashRecord(
                    rid,
                    str(rec.get("at", "")),
                    str(rec.get("label", "")),
                    tuple(items),
                    st,
                    st_at,
                    kind,
                    kept_as.get(rid, ""),
                )
            )
        out.reverse()  # journal order is the truth; clocks can tie or go backwards
        return out

    def get(self, record_id: str) -> TrashRecord:
        """A record by id or unique id prefix."""
        records = self.records()
        exact = [r for r in records if r.id == record_id]
        hits = exact or [r for r in records if record_id and r.id.startswith(record_id)]
        if not hits:
            raise TrashError(f"no trash record {record_id!r}; see `memoir-tui trash list`")
        if len(hits) > 1:
            raise TrashError(
                f"{record_id!r} matches {len(hits)} trash records; give more of the id"
            )
        return hits[0]

    def last_active(self) -> TrashRecord | None:
        """The newest apply that can still be restored (the app's undo); the copies a
        restore keeps of what it overwrote are not applies, so undo never redoes."""
        return next((r for r in self.records() if r.status == ACTIVE and r.kind == APPLY), None)

    def blob_bytes(self, record: TrashRecord, item: TrashItem) -> bytes:
        if item.blob is None:
            raise TrashError(f"{item.path}: no saved copy (it did not exist before)")
        try:
            return read_file_safely(self.root / record.id / item.blob, max_bytes=MAX_TRASH_READ)
        except FileNotFoundError:
            raise TrashError(
                f"trash {record.id}: the saved copy of {item.path} is missing"
            ) from None

    # --- writing (always inside a store transaction) ----------------------------

    def _append(self, tx: Transaction, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        old = tx.read_bytes(self.journal_path) or b""
        if old and not old.endswith(b"\n"):
            old += b"\n"  # a torn last line stays a line of its own
        tx.write_bytes(self.journal_path, old + line.encode("utf-8"), mode=0o600, scan=False)

    def keep(self, tx: Transaction, label: str, *, kind: str = APPLY) -> str | None:
        """Stage, in ``tx``, a copy of the old bytes of every file it changes, and the
        record naming them. Returns the record's id, or None when no file changes."""
        plan: list[tuple[Path, bytes | None, bytes | None, os.stat_result | None]] = []
        for path in tx.staged_paths:
            if path.is_relative_to(self.root):
                continue
            new = tx.read_bytes(path)
            try:
                old = read_file_safely(path, max_bytes=MAX_TRASH_READ)
                st = path.stat()
            except FileNotFoundError:
                old, st = None, None
            if old != new:
                plan.append((path, old, new, st))
        if not plan:
            return None
        rid = _new_id(self.store.clock())
        folder = self.root / rid
        items: list[dict[str, Any]] = []
        for index, (path, old, new, st) in enumerate(plan):
            blob = None
            if old is not None:
                blob = _blob_name(index, path)
                tx.create(folder / blob, old, mode=0o600, scan=False)
            change = "removed" if new is None else ("created" if old is None else "modified")
            items.append(
                {
                    "change": change,
                    "path": str(path),
                    "blob": blob,
                    "before": None if old is None else sha256_bytes(old),
                    "after": None if new is None else sha256_bytes(new),
                    "mode": None if st is None else st.st_mode & 0o7777,
                    "mtime_ns": None if st is None else st.st_mtime_ns,
                }
            )
        record: dict[str, Any] = {
            "op": "apply",
            "id": rid,
            "at": self.store.clock(),
            "label": label,
            "items": items,
        }
        if kind != APPLY:
            record["kind"] = kind
        self._append(tx, record)
        tx.details["trash_id"] = rid
        return rid

    def restore(self, record_id: str, *, force: bool = False) -> TrashRecord:
        """Put back every byte an apply changed; refuse on conflicts unless ``force``."""
        with self.store.transaction("trash_restore", files=(FILES,)) as tx:
            record = self.get(record_id)
            if record.status != ACTIVE:
                raise TrashError(
                    f"trash {record.id} was already {record.status} ({record.status_at})"
                )
            blobs = {i.path: self.blob_bytes(record, i) for i in record.items if i.blob}
            conflicts = [
                str(item.path)
                for item in record.items
                if file_digest(item.path) not in (item.after, item.before)
            ]
            if conflicts and not force:
                raise TrashError(
                    f"trash {record.id}: changed since the apply, so restoring would lose "
                    f"those changes: {', '.join(conflicts)} (use --force to restore anyway)"
                )
            for item in reversed(record.items):
                if item.before is None:
                    if tx.exists(item.path):
                        tx.remove(item.path)
                    continue
                tx.write_bytes(
                    item.path,
                    blobs[item.path],
                    mode=item.mode,
                    mtime_ns=item.mtime_ns,
                    scan=False,  # the bytes as they were
                )
            kept_as = self.keep(
                tx, f"before restoring {record.id}: {record.label}", kind=RESTORE_COPY
            )
            for item in record.items:
                if item.blob and tx.exists(self.root / record.id / item.blob):
                    tx.remove(self.root / record.id / item.blob)
            self._append(
                tx, {"op": "restore", "id": record.id, "at": self.store.clock(), "kept_as": kept_as}
            )
            tx.on_write(lambda: _remove_empty_dir(self.root / record.id))
            tx.audit("trash_restore", "trash")
        return self.get(record.id)

    def restore_outcome(self, record_id: str, *, force: bool = False) -> Outcome:
        """``restore`` for a face: what it did, and how to take it back (restore the copy
        it kept of what it overwrote)."""
        record = self.restore(record_id, force=force)
        undo = (
            Undo("trash_restore", f"redo {record.label}", (("id", record.kept_as),))
            if record.kept_as
            else None
        )
        return Outcome(True, f"restored {record.id} ({len(record.items)} file(s))", undo=undo)

    def empty(self, older_than_seconds: int, *, now: str | None = None) -> list[TrashRecord]:
        """Delete the saved copies of active applies older than the bound."""
        now_ms = parse_date_ms(now or self.store.clock())
        emptied = []
        with self.store.transaction("trash_empty", files=(FILES,)) as tx:
            for record in self.records():
                if record.status != ACTIVE:
                    continue
                if now_ms - parse_date_ms(record.at) < older_than_seconds * 1000:
                    continue
                folder = self.root / record.id
                for item in record.items:
                    if item.blob and tx.exists(folder / item.blob):
                        tx.remove(folder / item.blob)
                self._append(tx, {"op": "empty", "id": record.id, "at": self.store.clock()})
                tx.on_write(functools.partial(_remove_empty_dir, folder))
                emptied.append(record)
            if emptied:
                tx.audit("trash_empty", "trash")
        return emptied


def _remove_empty_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        for leftover in folder.iterdir():  # only what the journal never named
            if leftover.is_file() and not leftover.is_symlink():
                leftover.unlink()
        folder.rmdir()
