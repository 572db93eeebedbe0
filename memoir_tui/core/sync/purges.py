"""Purge records: a forget of an entry file's words that every machine honours.

Three-way entry sync lets an edit win over a delete, so without a record a
machine that edited an entry before it heard of a purge elsewhere would bring
the purged words back. ``forget --everywhere`` (with or without ``--purge``)
therefore stages, in its own transaction, a record in the store's
``sync-purges.json``; sync carries it to every machine (one logical file of the
remote, sealed like the others when the remote is encrypted) and merges records
by union.

A record holds no text and no hash of the words: an id, when, the machine that
forgot (its id and label), whether it purged, a random salt, and ``versions``:
the salted digest ``HMAC-SHA256(salt, path "\\n" sha256(file))`` of each whole
entry file the forget took the words out of (the file before it, and the file
as last synced). A machine whose three-way base of that file is one of those
versions has a copy from before the forget, so:

* an edit made here (on another machine than the one that forgot) is discarded
  in favour of the remote's version, and the sync says so in one sentence;
* on the machine that forgot, a remote version changed since that base (another
  machine's edit of the old words, pushed before it heard) is discarded, its
  digest is added to the record (so a third machine whose base it is honours
  it too), and the push replaces the remote's history.

A purge beats an edit; a plain delete still loses to an edit (``entry_sync``).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.door.transaction import Transaction

PURGES = "sync-purges.json"  # in the store's folder, and its logical path on the remote
RECORDS_VERSION = 1
MAX_RECORDS_BYTES = 8 * 1024 * 1024


def version_key(salt: str, path: str, digest: str) -> str:
    """The salted digest of one whole entry file (``digest`` is its sha256)."""
    return hmac.new(bytes.fromhex(salt), f"{path}\n{digest}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class PurgeRecord:
    id: str
    at: str
    machine: str
    label: str
    purge: bool
    salt: str
    versions: frozenset[str]

    def taints(self, path: str, digest: str | None) -> bool:
        return digest is not None and version_key(self.salt, path, digest) in self.versions

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "machine": self.machine,
            "label": self.label,
            "purge": self.purge,
            "salt": self.salt,
            "versions": sorted(self.versions),
        }


def _is_hex(value: Any, length: int) -> bool:
    return (
        isinstance(value, str)
        and len(value) == length
        and all(c in "0123456789abcdef" for c in value)
    )


def parse_records(data: bytes | None) -> dict[str, PurgeRecord]:
    """The records of a ``sync-purges.json``; anything malformed is skipped."""
    if not data:
        return {}
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    table = raw.get("records") if isinstance(raw, dict) else None
    if not isinstance(table, dict):
        return {}
    out: dict[str, PurgeRecord] = {}
    for rid, rec in table.items():
        if not (isinstance(rid, str) and _is_hex(rid, 32) and isinstance(rec, dict)):
            continue
        salt, versions = rec.get("salt"), rec.get("versions")
        if not _is_hex(salt, 32) or not isinstance(versions, list):
            continue
        out[rid] = PurgeRecord(
            id=rid,
            at=str(rec.get("at") or ""),
            machine=str(rec.get("machine") or ""),
            label=str(rec.get("label") or ""),
            purge=rec.get("purge") is True,
            salt=salt,
            versions=frozenset(v for v in versions if _is_hex(v, 64)),
        )
    return out


def merge_records(*tables: Mapping[str, PurgeRecord]) -> dict[str, PurgeRecord]:
    """The union: one record per id, its versions joined (commutative, idempotent)."""
    out: dict[str, PurgeRecord] = {}
    for table in tables:
        for rid, rec in table.items():
            had = out.get(rid)
            if had is None:
                out[rid] = rec
            else:
                # the same record from two machines: identical but for versions (an id
                # is random); should they differ, the least fields win on every machine
                first = min(had, rec, key=lambda r: (r.at, r.machine, r.label, r.salt))
                out[rid] = PurgeRecord(
                    rid,
                    first.at,
                    first.machine,
                    first.label,
                    had.purge or rec.purge,
                    first.salt,
                    had.versions | rec.versions,
                )
    return out


def encode_records(records: Mapping[str, PurgeRecord]) -> bytes:
    table = {rid: records[rid].to_json() for rid in sorted(records)}
    body = {"version": RECORDS_VERSION, "records": table}
    return (json.dumps(body, indent=2, sort_keys=True) + "\n").encode("utf-8")


def with_versions(
    records: Mapping[str, PurgeRecord], added: Iterable[tuple[str, str, str]]
) -> dict[str, PurgeRecord]:
    """``records`` with (record id, path, sha256) versions added."""
    out = dict(records)
    for rid, path, digest in added:
        rec = out.get(rid)
        if rec is None:
            continue
        key = version_key(rec.salt, path, digest)
        if key not in rec.versions:
            out[rid] = PurgeRecord(
                rec.id, rec.at, rec.machine, rec.label, rec.purge, rec.salt, rec.versions | {key}
            )
    return out


@dataclass(frozen=True, slots=True)
class Taints:
    """The records as the three-way entry merge asks them: is this base from before a
    forget, and was that forget made on this machine?"""

    records: Mapping[str, PurgeRecord]
    here: str  # this machine's id

    def record_for(self, path: str, digest: str | None) -> tuple[PurgeRecord | None, bool]:
        """(the record whose forget this version predates, whether one was made here)."""
        found = [r for r in self.records.values() if r.taints(path, digest)]
        if not found:
            return None, False
        mine = [r for r in found if r.machine == self.here]
        pick = min(mine or found, key=lambda r: (r.at, r.id))
        return pick, bool(mine)


def read_local_records(store: Store) -> bytes | None:
    """The store's ``sync-purges.json`` bytes (a regular file only), or None."""
    from memoir_tui.core.base.fsutil import NotRegularFileError
    from memoir_tui.core.format.session import read_store_file

    try:
        return read_store_file(Path(store.root) / PURGES)
    except (NotRegularFileError, OSError):
        return None


def stage_entry_forget(
    tx: Transaction, store: Store, before: Mapping[Path, bytes], *, purge: bool
) -> str | None:
    """Inside a forget's transaction: record that the words left these entry files
    (``before``: each file's bytes before the forget took them out). Only on a store
    under sync (no other machine to tell otherwise). Returns the record's id."""
    from memoir_tui.core.base.errors import MemoirError
    from memoir_tui.core.sync.config import load_sync_config, sync_config_path, work_dir_for
    from memoir_tui.core.sync.layout import MEMORY_PREFIX, SYNCED_NAME_RE, sha256
    from memoir_tui.core.sync.state import SyncState

    if not before or not sync_config_path(store.root).exists():
        return None
    base: dict[str, str] = {}
    with contextlib.suppress(MemoirError, OSError, ValueError):
        base = SyncState.load(work_dir_for(store.root, load_sync_config(store.root))).remote_digests
    salt = secrets.token_hex(16)
    versions: set[str] = set()
    for path, data in before.items():
        if not SYNCED_NAME_RE.match(path.name):
            continue  # never synced
        logical = MEMORY_PREFIX + path.name
        for digest in (sha256(data), base.get(logical)):
            if digest:
                versions.add(version_key(salt, logical, digest))
    if not versions:
        return None
    machine = store.machine
    rid = secrets.token_hex(16)
    record = PurgeRecord(
        rid, store.clock(), machine.id, machine.label, purge, salt, frozenset(versions)
    )
    target = Path(store.root) / PURGES
    records = merge_records(parse_records(tx.read_bytes(target)), {rid: record})
    tx.write_bytes(target, encode_records(records), mode=0o600, scan=False)
    return rid


def trash_copies_of(store: Store, names: Iterable[str]) -> list[Path]:
    """The trash's kept copies of these entry files (by name in the memory folder)."""
    from memoir_tui.core.services.trash import Trash

    wanted = {os.fspath(Path(store.memory_dir) / n) for n in names}
    if not wanted:
        return []
    trash = Trash(store)
    out: list[Path] = []
    with contextlib.suppress(OSError, ValueError):
        for rec in trash.records():
            for item in rec.items:
                blob = item.blob
                if os.fspath(item.path) not in wanted or not blob or "/" in blob:
                    continue
                path = trash.root / rec.id / blob
                if "/" not in rec.id and blob not in (".", "..") and os.path.lexists(path):
                    out.append(path)
    return out
