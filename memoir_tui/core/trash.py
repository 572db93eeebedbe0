"""The trash: nothing consolidate removes or rewrites is ever lost.

Layout inside the store::

    trash/journal.jsonl        one JSON object per line (append-only)
    trash/<id>/<n>-<name>      each file's bytes as they were before apply <id>
    trash/.lock                serialises our own processes

A change to files is staged in a ``Transaction`` and committed in this order:
the previous bytes of every touched file are copied into ``trash/<id>/``
(fsynced), the ``apply`` record is appended to the journal (fsynced), and only
then are files removed or atomically rewritten. A crash at any point leaves a
journal that ``restore`` can act on. Journal records::

    {"op": "apply", "id": ID, "at": ISO, "label": TEXT, "items": [
        {"change": "removed" | "modified" | "created", "path": ABS,
         "blob": "0-name.md" | null, "before": SHA256 | null, "after": SHA256 | null,
         "mode": INT | null, "mtime_ns": INT | null}, ...]}
    {"op": "restore", "id": ID, "at": ISO}
    {"op": "empty", "id": ID, "at": ISO}

``restore(id)`` puts back every byte (and the permission bits and mtime) of
every file the apply touched, deletes files it created, and refuses — naming
the files — when something changed them since, unless forced.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memoir_tui.core.errors import MemoirError
from memoir_tui.core.fsutil import atomic_write_bytes, fsync_directory
from memoir_tui.core.identity import iso_now, parse_date_ms

TRASH_DIR = "trash"
JOURNAL = "journal.jsonl"

ACTIVE, RESTORED, EMPTIED = "active", "restored", "emptied"


class TrashError(MemoirError):
    pass


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, or None when it does not exist."""
    try:
        return sha256_bytes(path.read_bytes())
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

    @property
    def removed(self) -> tuple[Path, ...]:
        return tuple(i.path for i in self.items if i.change == "removed")

    @property
    def modified(self) -> tuple[Path, ...]:
        return tuple(i.path for i in self.items if i.change != "removed")


def parse_duration(text: str) -> int:
    """``30d``, ``12h``, ``45m``, ``90s``, ``2w`` → seconds."""
    m = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", text or "")
    if not m:
        raise TrashError(f"{text!r} is not a duration; use a number and s, m, h, d or w (e.g. 30d)")
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}[m.group(2)]


def _new_id(now_iso: str) -> str:
    ms = parse_date_ms(now_iso)
    stamp = datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def _blob_name(index: int, path: Path) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", path.name)[:80] or "file"
    return f"{index}-{safe}"


class Trash:
    """The trash folder of one store."""

    def __init__(self, store_root: Path, *, clock: Callable[[], str] = iso_now) -> None:
        self.root = Path(store_root) / TRASH_DIR
        self.clock = clock

    @property
    def journal_path(self) -> Path:
        return self.root / JOURNAL

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        from filelock import FileLock

        self.root.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.root / ".lock"), timeout=30):
            yield

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        fd = os.open(self.journal_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _raw_records(self) -> list[dict[str, Any]]:
        try:
            text = self.journal_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        out = []
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a torn last line from a crash: ignore it
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                out.append(record)
        return out

    # --- reading ---------------------------------------------------------------

    def records(self) -> list[TrashRecord]:
        """Every apply, newest (last journaled) first, with its current status."""
        applies: dict[str, dict[str, Any]] = {}
        status: dict[str, tuple[str, str]] = {}
        for rec in self._raw_records():
            op = rec.get("op")
            if op == "apply":
                applies[rec["id"]] = rec
            elif op == "restore":
                status[rec["id"]] = (RESTORED, str(rec.get("at", "")))
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
            out.append(
                TrashRecord(
                    rid, str(rec.get("at", "")), str(rec.get("label", "")), tuple(items), st, st_at
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
        """The newest apply that can still be restored (the app's undo)."""
        return next((r for r in self.records() if r.status == ACTIVE), None)

    def blob_bytes(self, record: TrashRecord, item: TrashItem) -> bytes:
        if item.blob is None:
            raise TrashError(f"{item.path}: no saved copy (it did not exist before)")
        try:
            return (self.root / record.id / item.blob).read_bytes()
        except FileNotFoundError:
            raise TrashError(
                f"trash {record.id}: the saved copy of {item.path} is missing"
            ) from None

    # --- writing ---------------------------------------------------------------

    def transaction(self, label: str) -> Transaction:
        return Transaction(self, label)

    def restore(self, record_id: str, *, force: bool = False) -> TrashRecord:
        """Put back every byte an apply changed; refuse on conflicts unless ``force``."""
        with self._locked():
            record = self.get(record_id)
            if record.status != ACTIVE:
                raise TrashError(
                    f"trash {record.id} was already {record.status} ({record.status_at})"
                )
            blobs = {i.path: self.blob_bytes(record, i) for i in record.items if i.blob}
            conflicts = []
            for item in record.items:
                now = file_digest(item.path)
                if now not in (item.after, item.before):
                    conflicts.append(str(item.path))
            if conflicts and not force:
                raise TrashError(
                    f"trash {record.id}: changed since the apply, so restoring would lose "
                    f"those changes: {', '.join(conflicts)} (use --force to restore anyway)"
                )
            for item in reversed(record.items):
                if item.before is None:
                    with contextlib.suppress(FileNotFoundError):
                        item.path.unlink()
                    continue
                data = blobs[item.path]
                atomic_write_bytes(item.path, data, mode=item.mode)
                if item.mtime_ns is not None:
                    with contextlib.suppress(OSError):
                        os.utime(item.path, ns=(item.mtime_ns, item.mtime_ns))
            self._append({"op": "restore", "id": record.id, "at": self.clock()})
            shutil.rmtree(self.root / record.id, ignore_errors=True)
            return self.get(record.id)

    def empty(self, older_than_seconds: int, *, now: str | None = None) -> list[TrashRecord]:
        """Delete the saved copies of active applies older than the bound."""
        now_ms = parse_date_ms(now or self.clock())
        emptied = []
        with self._locked():
            for record in self.records():
                if record.status != ACTIVE:
                    continue
                if now_ms - parse_date_ms(record.at) < older_than_seconds * 1000:
                    continue
                shutil.rmtree(self.root / record.id, ignore_errors=True)
                self._append({"op": "empty", "id": record.id, "at": self.clock()})
                emptied.append(record)
        return emptied


class Transaction:
    """Staged file changes, committed together as one trash record.

    Nothing touches the disk until ``commit``; ``read_text`` sees staged
    content, so several changes to one file compose.
    """

    def __init__(self, trash: Trash, label: str) -> None:
        self.trash = trash
        self.label = label
        self._staged: dict[Path, bytes | None] = {}  # None = remove

    def _key(self, path: Path) -> Path:
        return Path(os.path.abspath(path))

    def exists(self, path: Path) -> bool:
        key = self._key(path)
        if key in self._staged:
            return self._staged[key] is not None
        return key.is_file()

    def read_bytes(self, path: Path) -> bytes:
        key = self._key(path)
        if key in self._staged:
            data = self._staged[key]
            if data is None:
                raise TrashError(f"{path} is already being removed by this apply")
            return data
        return key.read_bytes()

    def read_text(self, path: Path) -> str:
        return self.read_bytes(path).decode("utf-8")

    def write_bytes(self, path: Path, data: bytes) -> None:
        self._staged[self._key(path)] = data

    def write_text(self, path: Path, text: str) -> None:
        self.write_bytes(path, text.encode("utf-8"))

    def remove(self, path: Path) -> None:
        key = self._key(path)
        if not self.exists(key):
            raise TrashError(f"{path} does not exist")
        self._staged[key] = None

    def snapshot(self) -> dict[Path, bytes | None]:
        return dict(self._staged)

    def rollback_to(self, snapshot: dict[Path, bytes | None]) -> None:
        self._staged = dict(snapshot)

    @property
    def staged_paths(self) -> tuple[Path, ...]:
        return tuple(self._staged)

    def commit(self) -> TrashRecord | None:
        """Save the old bytes, journal, then change the files. None if nothing changes."""
        trash = self.trash
        with trash._locked():
            plan: list[tuple[Path, bytes | None, bytes | None, os.stat_result | None]] = []
            for path, new in self._staged.items():
                try:
                    old = path.read_bytes()
                    st = path.stat()
                except FileNotFoundError:
                    old, st = None, None
                if old == new:
                    continue
                plan.append((path, old, new, st))
            if not plan:
                return None
            rid = _new_id(trash.clock())
            folder = trash.root / rid
            folder.mkdir(parents=True)
            items: list[dict[str, Any]] = []
            for index, (path, old, new, st) in enumerate(plan):
                blob = None
                if old is not None:
                    blob = _blob_name(index, path)
                    with open(folder / blob, "wb") as fh:
                        fh.write(old)
                        fh.flush()
                        os.fsync(fh.fileno())
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
            fsync_directory(folder)
            trash._append(
                {"op": "apply", "id": rid, "at": trash.clock(), "label": self.label, "items": items}
            )
            for path, _old, new, _st in plan:
                if new is None:
                    path.unlink()
                    fsync_directory(path.parent)
                else:
                    atomic_write_bytes(path, new)
        self._staged.clear()
        return trash.get(rid)
