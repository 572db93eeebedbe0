"""Merging a remote snapshot into the local store, in one store transaction.

The session merges with ``merge_sessions`` (FORMAT §4), entry files three-way
against the last synced base (``entry_sync``: a one-sided edit or delete wins,
both sides changed keeps both, ``done_at`` sticky), and the review queue with ``core.review.merge_review``. Everything the
remote holds was read and verified before this module is called, so a bad
remote never gets here; the transaction commits every file or none (a kill at
any instant is rolled forward by the next transaction), is audited, and
merging again is idempotent. A remote entry file holding a secret is not
copied in, nor is a remote session item holding one (a tombstone comes in
purged); the notes say which list or file and which rule.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import ReadOnlyStoreError
from memoir_tui.core.format.identity import canonical_json, identity, parse_date_ms
from memoir_tui.core.format.items import FILES as TX_FILES
from memoir_tui.core.format.items import REVIEW as TX_REVIEW
from memoir_tui.core.format.items import SESSION as TX_SESSION
from memoir_tui.core.format.items import (
    decision_key,
    is_hidden,
    is_purged,
    well_formed_items,
)
from memoir_tui.core.format.merge import contributes_to_merge, merge_sessions
from memoir_tui.core.format.session import NOT_REGULAR, encode_session, load_session
from memoir_tui.core.sync.layout import MEMORY_PREFIX, REVIEW, SESSION, is_entry_path, sha256
from memoir_tui.core.sync.purges import (
    PURGES,
    Taints,
    encode_records,
    merge_records,
    parse_records,
    read_local_records,
    trash_copies_of,
    with_versions,
)

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.door.transaction import Transaction

REVIEW_FILE = "review.json"
_LIVE_LISTS = (("goals", "set_on"), ("next_actions", "added"), ("open_questions", "asked"))


@dataclass(frozen=True, slots=True)
class MergeReport:
    """What one merge did to the local store. Counts and file names only, never item text."""

    items_added: int = 0
    tombstones_applied: int = 0
    conflicts_resolved: int = 0
    entries_added: int = 0
    entries_replaced: int = 0
    entries_deleted: int = 0
    conflict_copies: tuple[str, ...] = ()  # entry files changed on both sides: the copies kept
    withheld: tuple[str, ...] = ()  # remote entry files not copied in (secret, unreadable here)
    discarded: tuple[str, ...] = ()  # local edits of an entry forgotten elsewhere, discarded
    discarded_remote: tuple[str, ...] = ()  # remote versions of an entry forgotten here, discarded
    review: str = "unchanged"  # unchanged | added | merged
    session_changed: bool = False
    notes: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return (
            self.session_changed
            or self.entries_added > 0
            or self.entries_replaced > 0
            or self.entries_deleted > 0
            or self.review != "unchanged"
        )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["notes"] = list(self.notes)
        out["conflict_copies"] = list(self.conflict_copies)
        out["withheld"] = list(self.withheld)
        out["discarded"] = list(self.discarded)
        out["discarded_remote"] = list(self.discarded_remote)
        return out

    @classmethod
    def from_dict(cls, raw: Any) -> MergeReport | None:
        if not isinstance(raw, dict):
            return None
        known = {k: raw[k] for k in cls.__dataclass_fields__ if k in raw}
        for name in ("notes", "conflict_copies", "withheld", "discarded", "discarded_remote"):
            known[name] = tuple(known.get(name) or ())
        try:
            return cls(**known)
        except TypeError:
            return None

    def summary(self) -> str:
        if not self.changed:
            return "nothing new from the remote"
        if not (
            self.items_added
            or self.tombstones_applied
            or self.conflicts_resolved
            or self.entries_deleted
            or self.conflict_copies
        ):
            return "merged (no item was added, hidden or replaced)"
        parts = [
            f"{self.items_added} item(s) added",
            f"{self.tombstones_applied} tombstone(s) applied",
            f"{self.conflicts_resolved} conflict(s) resolved",
        ]
        if self.entries_added or self.entries_replaced or self.entries_deleted:
            parts.append(
                f"{self.entries_added} entry file(s) added, {self.entries_replaced} replaced, "
                f"{self.entries_deleted} deleted"
            )
        if self.conflict_copies:
            parts.append("changed on both machines, both kept: " + ", ".join(self.conflict_copies))
        if self.discarded:
            parts.append("edits discarded (purged elsewhere): " + ", ".join(self.discarded))
        if self.review != "unchanged":
            parts.append(f"review queue {self.review}")
        return ", ".join(parts)


# --- digests: what counts as "the same content" ----------------------------------------


def semantic_session(state: dict[str, Any]) -> str:
    """The session without ``updated_at``: a save that changed nothing else is no change."""
    return canonical_json({k: v for k, v in state.items() if k != "updated_at"})


def session_digest(data: bytes) -> str:
    try:
        state = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return sha256(data)
    if not isinstance(state, dict):
        return sha256(data)
    return sha256(semantic_session(state).encode())


def json_digest(data: bytes) -> str:
    try:
        return sha256(canonical_json(json.loads(data.decode("utf-8"))).encode())
    except (ValueError, UnicodeDecodeError):
        return sha256(data)


def file_digest(path: str, data: bytes) -> str:
    if path == SESSION:
        return session_digest(data)
    if path.endswith(".json"):
        return json_digest(data)
    return sha256(data)


def purged_hashes(session: dict[str, Any] | None) -> set[str]:
    if not isinstance(session, dict):
        return set()
    current = session.get("current") if isinstance(session.get("current"), dict) else {}
    # every list: a forget --purge redacts goals, next actions and questions too
    lists = ("decisions", "goals", "next_actions", "open_questions")
    return {
        d["text_hash"] for key in lists for d in well_formed_items(current.get(key)) if is_purged(d)
    }


def parse_session_bytes(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    try:
        state = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return state if isinstance(state, dict) else None


# --- the report ----------------------------------------------------------------------


def _by_identity(state: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    current = state.get("current") if isinstance(state.get("current"), dict) else {}
    return {identity(i["text"]): i for i in well_formed_items(current.get(key))}


def _decisions(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    current = state.get("current") if isinstance(state.get("current"), dict) else {}
    return {decision_key(d): d for d in well_formed_items(current.get("decisions"))}


def session_report(
    before: dict[str, Any], remote: dict[str, Any], merged: dict[str, Any]
) -> tuple[int, int, int]:
    """(items added, tombstones applied, conflicts resolved) of ``before`` → ``merged``."""
    added = tombstones = conflicts = 0
    for key, _date in _LIVE_LISTS:
        mine, theirs, after = (_by_identity(s, key) for s in (before, remote, merged))
        added += len(set(after) - set(mine))
        conflicts += sum(
            1
            for k in set(mine) & set(theirs)
            if canonical_json(mine[k]) != canonical_json(theirs[k])
        )
    mine, theirs, after = _decisions(before), _decisions(remote), _decisions(merged)
    added += sum(1 for k in set(after) - set(mine) if not is_hidden(after[k]))
    for k, d in after.items():
        was = mine.get(k)
        newly_purged = is_purged(d) and (was is None or not is_purged(was))
        newly_hidden = is_hidden(d) and (was is None or not is_hidden(was))
        tombstones += newly_purged or newly_hidden
    conflicts += sum(
        1 for k in set(mine) & set(theirs) if canonical_json(mine[k]) != canonical_json(theirs[k])
    )
    done_before = _by_identity(before, "completed_actions")
    for k, t in _by_identity(merged, "completed_actions").items():
        was = done_before.get(k)
        if was is None or parse_date_ms(t.get("done_at")) > parse_date_ms(was.get("done_at")):
            tombstones += 1
    return added, tombstones, conflicts


# --- review queue --------------------------------------------------------------------


def review_contributes(data: bytes | None) -> bool:
    """False for a review file from a newer version: it must be neither merged nor replaced."""
    if data is None:
        return True
    from memoir_tui.core.format.review_file import contributes_to_review_merge

    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return True  # unreadable: contributes nothing, but is not from the future
    return not isinstance(raw, dict) or contributes_to_review_merge(raw)


def _merge_review_in(tx: Transaction, store: Store, remote: bytes | None) -> str:
    """Merge the remote queue into the transaction's ``review.json``."""
    from memoir_tui.core.format.review_file import load_review, merge_review

    if remote is None:
        return "unchanged"
    try:
        theirs = json.loads(remote.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return "unchanged"
    if not isinstance(theirs, dict):
        return "unchanged"
    path = store.root / REVIEW_FILE
    existed = path.exists()
    if load_review(path).read_only:
        return "unchanged"  # a newer queue is neither merged nor replaced
    mine = tx.review
    merged = merge_review(mine, theirs)
    if existed and canonical_json(merged) == canonical_json(merge_review(mine, mine)):
        return "unchanged"
    mine.clear()
    mine.update(merged)
    return "merged" if existed else "added"


# --- applying ----------------------------------------------------------------------------


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


def _local_entries(store: Store) -> dict[str, bytes]:
    """The store's readable entry files with a syncable name, as logical paths."""
    from memoir_tui.core.format.entry_file import iter_entry_files
    from memoir_tui.core.sync.layout import SYNCED_NAME_RE

    out: dict[str, bytes] = {}
    for path in iter_entry_files(store.memory_dir):
        if SYNCED_NAME_RE.match(path.name):
            with contextlib.suppress(OSError):
                out[MEMORY_PREFIX + path.name] = path.read_bytes()
    return out


def apply_snapshot(
    store: Store,
    files: dict[str, bytes],
    staging: Path,
    base: dict[str, str] | None = None,
) -> MergeReport:
    """Merge the remote's plaintext ``files`` into ``store``; return what changed.

    ``base`` (path → digest of what the remote held at the last sync) makes the
    entry merge three-way (``entry_sync``); without it every difference is kept
    both ways.
    """
    from memoir_tui.core.format.secrets import find_secrets
    from memoir_tui.core.sync.entry_sync import plan_entry_sync

    remote_session = parse_session_bytes(files.get(SESSION))
    notes: list[str] = []
    if SESSION in files and remote_session is None:
        notes.append("the remote session.json was unreadable; it contributed nothing")
    if remote_session is not None and not contributes_to_merge(remote_session):
        remote_session = None  # the caller quarantines first; this is a second guard
    if remote_session is not None:
        from memoir_tui.core.rules.withhold import withhold_secrets

        # Another machine's tool may have let a secret in: it is not copied here.
        remote_session, held = withhold_secrets(remote_session)
        notes.extend(f"the remote session.json, {note}; not copied in" for note in held)
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with store.transaction("sync_apply", files=(TX_SESSION, TX_REVIEW, TX_FILES)) as tx:
            # No machine stamp here: a stamp would be a change of its own, and
            # every machine would push it back and forth for ever.
            tx.stamp_machine = False
            state = tx.session
            before = json.loads(json.dumps(state))
            added = tombstones = conflicts = 0
            session_changed = False
            if remote_session is not None:
                merged = merge_sessions(before, remote_session, caps=store.config.caps)
                added, tombstones, conflicts = session_report(before, remote_session, merged)
                if semantic_session(merged) != semantic_session(before):
                    state.clear()
                    state.update(merged)
                    session_changed = True

            entries_added = entries_replaced = entries_deleted = 0
            conflict_copies: list[str] = []
            withheld: list[str] = []
            local_entries = _local_entries(store)
            remote_entries = {p: d for p, d in files.items() if is_entry_path(p)}
            # Purge records (a forget of an entry's words): this store's and the remote's.
            records_path = store.root / PURGES
            try:
                local_records = tx.read_bytes(records_path)
            except OSError:  # not a regular file (a FIFO, a folder): read as none
                local_records = None
            records = merge_records(parse_records(local_records), parse_records(files.get(PURGES)))
            taints = Taints(records, store.machine.id)
            tainted: list[tuple[str, str, str]] = []
            discarded: list[str] = []
            discarded_remote: list[str] = []
            purged_names: list[str] = []
            for act in plan_entry_sync(local_entries, remote_entries, base, taints):
                target = store.memory_dir / act.path[len(MEMORY_PREFIX) :]
                if act.record and act.purge and act.action != "keep":
                    purged_names.append(target.name)
                if act.discarded:
                    discarded.append(act.path)
                if act.action == "keep":
                    notes.append(act.note)
                    if act.taint:
                        tainted.append((act.record, act.path, act.taint))
                        discarded_remote.append(act.path)
                    continue
                if act.action == "delete":
                    if os.path.lexists(target):
                        tx.remove(target)
                        entries_deleted += 1
                    if act.note:
                        notes.append(act.note)
                    continue
                if act.path not in local_entries and os.path.lexists(target):
                    # Unreadable here (too large, not UTF-8, a symlink): never overwrite it.
                    notes.append(f"{act.path} is unreadable locally; kept as it is")
                    withheld.append(act.path)
                    continue
                data = act.data or b""
                found = find_secrets(data.decode("utf-8", "replace"))
                if found:
                    rules = ", ".join(dict.fromkeys(f.rule for f in found))
                    notes.append(
                        f"{act.path} from the remote holds a secret ({rules}); not copied in"
                    )
                    withheld.append(act.path)
                    continue
                tx.write_bytes(target, data, scan=False)  # scanned just above
                if act.note:
                    notes.append(act.note)
                if act.action == "conflict":
                    conflict_copies.append(act.path)
                    entries_added += 1
                elif act.path in local_entries:
                    entries_replaced += 1
                else:
                    entries_added += 1

            records = with_versions(records, tainted)
            records_changed = bool(records) and encode_records(records) != local_records
            if records_changed:
                tx.write_bytes(records_path, encode_records(records), mode=0o600, scan=False)
            # A purge elsewhere reaches this machine's kept copies of those entries too.
            for kept in trash_copies_of(store, purged_names):
                tx.remove(kept)
            purged_here = bool(purged_names)

            review_result = _merge_review_in(tx, store, files.get(REVIEW))
            if (
                session_changed
                or entries_added
                or entries_replaced
                or entries_deleted
                or records_changed
                or review_result != "unchanged"
            ):
                tx.audit("sync_apply", "session" if session_changed else "entries")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if purged_here:
        # the recall index may hold the discarded words: it rebuilds from the files
        from memoir_tui.core.recall.drop import drop_recall_indexes

        drop_recall_indexes()
    return MergeReport(
        items_added=added + entries_added,
        tombstones_applied=tombstones,
        conflicts_resolved=conflicts + entries_replaced,
        entries_added=entries_added,
        entries_replaced=entries_replaced,
        entries_deleted=entries_deleted,
        conflict_copies=tuple(conflict_copies),
        withheld=tuple(withheld),
        discarded=tuple(discarded),
        discarded_remote=tuple(discarded_remote),
        review=review_result,
        session_changed=session_changed,
        notes=tuple(notes),
    )


def local_files(store: Store) -> tuple[dict[str, bytes], list[str]]:
    """The store's syncable files as logical paths → bytes, and names left out."""
    files: dict[str, bytes] = {}
    skipped: list[str] = []
    loaded = load_session(store.session_path, now=store.clock())
    if loaded.read_only and loaded.damage == NOT_REGULAR:
        raise ReadOnlyStoreError(f"{loaded.notice}; sync is refused until then")
    if loaded.read_only:
        raise ReadOnlyStoreError(
            f"{store.session_path} is from a newer memoir format; sync is refused "
            "until memoir-tui is upgraded"
        )
    if store.session_path.exists():
        files[SESSION] = encode_session(loaded.state)
    from memoir_tui.core.base.fsutil import NotRegularFileError
    from memoir_tui.core.format.session import read_store_file

    try:
        review = read_store_file(store.root / REVIEW_FILE)
    except NotRegularFileError:
        review = None  # never read (a FIFO would hang the sync); load_review says so
    if review is not None and review_contributes(review):
        files[REVIEW] = _without_purged(review, loaded.state, store.clock())
    records = read_local_records(store)
    if records is not None:
        files[PURGES] = records
    from memoir_tui.core.format.entry_file import iter_entry_files
    from memoir_tui.core.sync.layout import SYNCED_NAME_RE

    for path in iter_entry_files(store.memory_dir):
        if not SYNCED_NAME_RE.match(path.name):
            skipped.append(path.name)
            continue
        with contextlib.suppress(OSError):
            files[MEMORY_PREFIX + path.name] = path.read_bytes()
    return files, skipped


def _without_purged(review: bytes, session: dict[str, Any], now: str) -> bytes:
    """The queue's bytes with the text of every decision the session purged dropped: a
    purge that reached only the session (made elsewhere, or killed between commits)
    must not send the text on from the queue."""
    from memoir_tui.core.format.review_file import encode_review, redact_purged, session_purged_keys

    purged = session_purged_keys(session)
    if not purged:
        return review
    try:
        state = json.loads(review.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return review
    if not isinstance(state, dict) or not redact_purged(state, purged, now):
        return review
    return encode_review(state)


def clean_staging(work_dir: Path) -> None:
    """Remove staging folders a killed sync left behind (they may hold plaintext)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(work_dir):
            if name.startswith("staging"):
                shutil.rmtree(work_dir / name, ignore_errors=True)
