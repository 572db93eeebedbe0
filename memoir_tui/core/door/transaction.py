"""One door: every change to a file of the store is one ``Transaction``.

A transaction is the only way this project changes a file it owns or edits:
``session.json``, the review queue, entry files and ``MEMORY.md``, the trash,
host files (instruction files, MCP configs) and the store's own small files.
``Store.transaction(op, files=…)`` opens one; inside it a service reads and
stages; on a clean exit it commits. The rules it enforces:

* **Locks in one fixed order.** First the store's flock (``session.json.flock``),
  which every memoir-tui writer takes whatever it touches, so our writers never
  interleave; then, when the session is among the ``files``, the JavaScript
  tool's ``session.json.lock`` protocol (``core.lock``). Nothing else is ever
  locked inside, so two transactions cannot deadlock. A transaction opened
  while this thread already holds one for the same store joins it (taking the
  session's lock if it is new to it), so a pin — a queue change plus a
  decision — is one atomic change.
* **Refused on a read-only store.** A ``session.json`` from a newer format makes
  every transaction fail before it stages anything; a newer ``review.json``
  refuses those that declare the queue.
* **Loads under the lock.** ``tx.session`` and ``tx.review`` are read once, inside
  the locks, and an interrupted earlier commit is rolled forward first.
* **Writes what changed, atomically, all or nothing.** Staged bytes equal to what
  is on disk are dropped; a session or queue whose content did not change is
  not rewritten. When more than one file changes, the new bytes are first
  written to a redo journal (``.memoir-tui-commit.json``, 0600, fsynced,
  published by rename), then each file is replaced atomically, then the
  journal goes. A process killed at any instant leaves either the old state
  or a journal that the next transaction (and ``recover``) completes. The
  session is written last: it is the commit point of changes that span files.
* **The journal is ours alone.** Before the journal is published, its SHA-256 is
  recorded in a private file outside the store (``commit_record_path``: 0600 in a
  0700 folder of the user data directory, one per store on this machine), and the
  journal names the store and the files outside it that the commit writes. Recovery
  applies only a journal whose digest is recorded for this store, of a known version,
  whose every path is inside the store or one of the files it declared; anything
  else (planted, copied from another machine or store, replayed, damaged, too deep
  to parse, a directory or link in its place) is set aside under a new name with a
  sentence for the user (``take_notices``) and never applied.
* **Never introduces a secret.** Staged text is scanned; a secret that is not
  already in the file's old bytes refuses the whole transaction, naming the
  rule and the file (a restore of bytes as they were passes ``scan=False``).
* **Audited.** Every commit that changed something appends its audit lines
  (``core.audit``: time, actor, operation, list, identity hash, machine; never
  text); one with no explicit line gets one named after the transaction.
* **Hooks after commit.** Callbacks registered on the transaction, then the
  store's after-commit hooks (``core.hooks``), run once the locks are released.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import logging
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError, ReadOnlyStoreError
from memoir_tui.core.base.fsutil import (
    fsync_directory,
    is_our_temp,
    owned_temp,
    sweep_our_temps,
    sweep_stale_temps,
)
from memoir_tui.core.base.safeio import (
    home_folder,
    open_for_reading,
    owner_folder,
    read_file_safely,
    write_file_safely,
    write_target,
)
from memoir_tui.core.door.context import Commit
from memoir_tui.core.door.hooks import run_after_commit_hooks
from memoir_tui.core.door.lock import js_session_lock, store_flock
from memoir_tui.core.door.machine import Machine, load_machine
from memoir_tui.core.format.identity import canonical_json
from memoir_tui.core.format.items import FILES, REVIEW, SESSION, SESSION_VERSION
from memoir_tui.core.format.session import (
    NOT_REGULAR,
    LoadedSession,
    encode_session,
    load_session,
    session_is_newer,
)
from memoir_tui.core.rules.settle import settle_session

if TYPE_CHECKING:
    from memoir_tui.core.door.context import LoadedState, StoreContext

log = logging.getLogger(__name__)

BUILT_IN_KINDS = frozenset({SESSION, FILES})  # the rest are the store's ``kinds``

JOURNAL_FILE = ".memoir-tui-commit.json"
JOURNAL_VERSION = 2  # 1 (unauthenticated) is never applied: it is set aside
JOURNAL_MAX_BYTES = 1 << 30
SET_ASIDE = ".set-aside-"  # a journal never applied: ``.memoir-tui-commit.json.set-aside-…``
_MAX_FILE_BYTES = 256 * 1024 * 1024  # any file a transaction reads (safeio: never blocks)

_open = threading.local()  # .by_root: {store root: the transaction this thread holds}


class TransactionError(MemoirError):
    """A transaction was used against its rules (a programming error, worded for people)."""


class FileExistsRefusal(MemoirError):
    """An exclusive create found the file already there."""


@dataclass(slots=True)
class _Staged:
    data: bytes | None  # None: remove the file
    mode: int | None = None
    mtime_ns: int | None = None
    scan: bool = True
    create_only: bool = False


@dataclass(frozen=True, slots=True)
class _Write:
    path: Path
    data: bytes | None
    mode: int | None = None
    mtime_ns: int | None = None
    create_only: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "data": None if self.data is None else base64.b64encode(self.data).decode("ascii"),
            "mode": self.mode,
            "mtime_ns": self.mtime_ns,
            "create_only": self.create_only,
        }

    @classmethod
    def from_json(cls, raw: Any) -> _Write:
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
            raise ValueError("not a journal write")
        data = raw.get("data")
        return cls(
            path=Path(raw["path"]),
            data=None if data is None else base64.b64decode(data, validate=True),
            mode=raw.get("mode") if isinstance(raw.get("mode"), int) else None,
            mtime_ns=raw.get("mtime_ns") if isinstance(raw.get("mtime_ns"), int) else None,
            create_only=raw.get("create_only") is True,
        )


def _key(path: Path | str, within: Path | str | None = None) -> Path:
    """Where a staged path is written (``safeio.write_target``): its real parent, through
    a symlink to its target only when that is inside ``within`` (default: the path's own
    folder); a link out raises ``LinkOutsideError``, naming the link and its target."""
    path = Path(os.path.abspath(path))
    return write_target(path, within=path.parent if within is None else within)


def _read(path: Path) -> bytes | None:
    try:
        return read_file_safely(path, max_bytes=_MAX_FILE_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None


def open_transaction(root: Path) -> Transaction | None:
    """The transaction this thread holds on the store at ``root``, if any."""
    table: dict[str, Transaction] = getattr(_open, "by_root", {})
    return table.get(os.path.abspath(root))


class Transaction:
    """Staged changes to one store's files, committed together (see the module docstring)."""

    def __init__(self, store: StoreContext, op: str, files: Iterable[str]) -> None:
        self.store = store
        self.op = op
        self.files = set(files)
        self._refuse_unknown(self.files)
        self._stack = contextlib.ExitStack()
        self._session_lock_held = False
        self._loaded: LoadedSession | None = None
        self._session: dict[str, Any] | None = None
        self._session_before = ""
        self._states: dict[str, tuple[LoadedState, str]] = {}  # kind → (read, its canonical form)
        self._staged: dict[Path, _Staged] = {}
        self._audits: list[tuple[str, str, str]] = []
        self._on_write: list[Callable[[], None]] = []
        self._after: list[Callable[[Commit], None]] = []
        self.details: dict[str, Any] = {}
        self.stamp_machine = True  # sync apply turns it off: a stamp would be a change itself
        self._made_machine = False  # machine.id made under this lock (``create_machine``)

    # --- locks ---------------------------------------------------------------------------

    def _enter(self) -> None:
        store = self.store
        wait = store.config.lock_wait_seconds
        self._stack.enter_context(store_flock(store.session_path, wait_seconds=wait))
        if SESSION in self.files:
            self._take_session_lock()
        table: dict[str, Transaction] = getattr(_open, "by_root", None) or {}
        _open.by_root = table
        table[os.path.abspath(store.root)] = self
        self._stack.callback(table.pop, os.path.abspath(store.root), None)
        recover(store, inside=self)
        sweep_temps(store.root)  # what killed writers left beside our files
        if session_is_newer(store.session_path):
            raise ReadOnlyStoreError(
                f"{store.session_path} is from a newer memoir format; this store is read-only "
                "until memoir-tui is upgraded (nothing was written)."
            )

    def _take_session_lock(self) -> None:
        if self._session_lock_held:
            return
        store = self.store
        refuse_odd_lock_file(store.session_path)
        self._stack.enter_context(
            js_session_lock(store.session_path, wait_seconds=store.config.lock_wait_seconds)
        )
        self._session_lock_held = True
        # Read again under the JavaScript tool's lock: it may have written since.
        self._loaded = None
        self._session = None

    def _refuse_unknown(self, files: Iterable[str]) -> None:
        unknown = set(files) - BUILT_IN_KINDS - set(self.store.kinds)
        if unknown:
            raise TransactionError(f"unknown file kind {sorted(unknown)[0]!r}")

    def join(self, files: Iterable[str]) -> None:
        """An inner ``Store.transaction`` in the same thread: widen this one instead."""
        wanted = set(files)
        self._refuse_unknown(wanted)
        if SESSION in wanted and SESSION not in self.files:
            if self._session is not None:
                raise TransactionError(
                    "the session was read before its lock was taken; declare it up front"
                )
            self._take_session_lock()
        self.files |= wanted

    def _close(self) -> None:
        self._stack.close()

    # --- reading -------------------------------------------------------------------------

    def _require(self, kind: str) -> None:
        if kind not in self.files:
            raise TransactionError(f"transaction {self.op!r} did not declare {kind!r}")

    def _load_session(self) -> LoadedSession:
        if self._loaded is None:
            self._loaded = load_session(self.store.session_path, now=self.store.clock())
        return self._loaded

    @property
    def session(self) -> dict[str, Any]:
        """The session's state, read under both locks; change it in place to write it."""
        self._require(SESSION)
        if self._session is None:
            loaded = self._load_session()
            if loaded.read_only:
                raise ReadOnlyStoreError(
                    f"{loaded.notice}; nothing was written"
                    if loaded.damage == NOT_REGULAR
                    else f"{self.store.session_path} is read-only"
                )
            self._session = loaded.state
            self._session_before = canonical_json(loaded.state)
            sweep_stale_temps(self.store.session_path)
        return self._session

    @property
    def session_notice(self) -> str | None:
        return self._load_session().notice

    def state(self, kind: str) -> dict[str, Any]:
        """A registered state file's state (``store.kinds``), read under the lock; change
        it in place to write it."""
        self._require(kind)
        if kind not in self._states:
            file_kind = self.store.kinds[kind]
            path = self.store.root / file_kind.filename
            loaded = file_kind.load(path)
            if loaded.read_only:
                raise ReadOnlyStoreError(loaded.notice or f"{path} is read-only")
            before = "" if loaded.changed_on_reading else canonical_json(loaded.state)
            self._states[kind] = (loaded, before)
            sweep_stale_temps(path)
        return self._states[kind][0].state

    @property
    def review(self) -> dict[str, Any]:
        """The review queue's state (``{"version", "items", …}``); change it in place."""
        return self.state(REVIEW)

    @property
    def review_notice(self) -> str | None:
        """What reading the review queue had to say (a damaged file set aside), if read."""
        read = self._states.get(REVIEW)
        return read[0].notice if read else None

    @property
    def machine(self) -> Machine:
        return self.store.machine

    def create_machine(self, label: str | None) -> Machine:
        """Read ``machine.id``, or make it under this transaction's lock (``Store.machine``
        asks). It is written at once, not at the commit, whose stamps and audit lines carry
        the id; a commit that writes nothing else says ``create_machine_id``. The JavaScript
        tool makes the same file without our lock, so it is an exclusive create (the first
        one made wins)."""
        machine, created = load_machine(self.store.root, label=label)
        self._made_machine = self._made_machine or created
        return machine

    def _within(self, path: Path | str) -> Path:
        """The folder a link may lead into: the store for its files; else the home for a
        file under it (a dotfiles checkout there is followed, a link out of the home is
        not), else the file's own folder. Callers writing a host's instruction file name
        the host's or the project's folder (``within=``), which is stricter."""
        return owner_folder(path, self.store.root, home_folder())

    def read_bytes(self, path: Path | str, *, within: Path | str | None = None) -> bytes | None:
        """A file as this transaction will leave it: staged bytes, else the disk's."""
        key = _key(path, within or self._within(path))
        if key in self._staged:
            return self._staged[key].data
        return _read(key)

    def read_text(self, path: Path | str) -> str:
        data = self.read_bytes(path)
        if data is None:
            raise FileNotFoundError(str(path))
        return data.decode("utf-8")

    def exists(self, path: Path | str, *, within: Path | str | None = None) -> bool:
        key = _key(path, within or self._within(path))
        if key in self._staged:
            return self._staged[key].data is not None
        return key.is_file()

    # --- staging ---------------------------------------------------------------------------

    def write_bytes(
        self,
        path: Path | str,
        data: bytes,
        *,
        mode: int | None = None,
        mtime_ns: int | None = None,
        scan: bool = True,
        create_only: bool = False,
        within: Path | str | None = None,
    ) -> None:
        """Stage new bytes for ``path`` (any file the store owns or edits). A link is
        followed only to a target inside ``within`` (default ``_within``); else
        ``LinkOutsideError``."""
        self._require(FILES)
        self._staged[_key(path, within or self._within(path))] = _Staged(
            data, mode, mtime_ns, scan, create_only
        )

    def write_text(self, path: Path | str, text: str, **kwargs: Any) -> None:
        self.write_bytes(path, text.encode("utf-8"), **kwargs)

    def create(
        self, path: Path | str, data: bytes, *, mode: int | None = None, scan: bool = True
    ) -> None:
        """Stage a new file; the commit refuses if ``path`` exists then (even if it appears)."""
        if os.path.lexists(path):
            raise FileExistsRefusal(f"{path} already exists")
        self.write_bytes(path, data, mode=mode, scan=scan, create_only=True)

    def remove(self, path: Path | str) -> None:
        self._require(FILES)
        key = Path(os.path.abspath(path))  # a link is removed, not its target
        if not os.path.lexists(key) and not self.exists(key):
            raise FileNotFoundError(str(path))
        self._staged[key] = _Staged(None)

    @property
    def staged_paths(self) -> tuple[Path, ...]:
        return tuple(self._staged)

    def savepoint(self) -> dict[Path, _Staged]:
        """The staged files now, to go back to if one step of a batch fails."""
        return dict(self._staged)

    def rollback_to(self, savepoint: dict[Path, _Staged]) -> None:
        self._staged = dict(savepoint)

    def audit(self, operation: str, list_name: str = "", key: str = "") -> None:
        """Record a line for the audit log (written only if the commit changes something)."""
        self._audits.append((operation, list_name, key))

    def on_write(self, callback: Callable[[], None]) -> None:
        """Run inside the locks, right after the files are written (journal appends, clean-up)."""
        self._on_write.append(callback)

    def after_commit(self, callback: Callable[[Commit], None]) -> None:
        """Run once the locks are released, if the commit changed something."""
        self._after.append(callback)

    # --- committing ------------------------------------------------------------------------

    def _plan(self) -> tuple[list[_Write], bool, tuple[str, ...]]:
        writes: list[_Write] = []
        for path, staged in self._staged.items():
            old = _read(path)
            if staged.data == old and not (staged.create_only and old is not None):
                continue
            if staged.create_only and os.path.lexists(path):
                raise FileExistsRefusal(f"{path} already exists; nothing was written")
            if staged.scan and staged.data is not None:
                _refuse_new_secrets(path, old, staged.data)
            writes.append(
                _Write(path, staged.data, staged.mode, staged.mtime_ns, staged.create_only)
            )
        changed_kinds: list[str] = []
        for kind, (loaded, before) in self._states.items():
            if canonical_json(loaded.state) == before:
                continue
            file_kind = self.store.kinds[kind]
            out = file_kind.prepare(loaded.state, self.store.clock())
            writes.append(_Write(self.store.root / file_kind.filename, file_kind.encode(out)))
            changed_kinds.append(kind)
        session_changed = False
        if self._session is not None and canonical_json(self._session) != self._session_before:
            state = self._session
            # Every write of ours parks, archives and re-stamps as the format says
            # (core.settle) before it is saved.
            settle_session(
                state,
                project=self.store.project,
                caps=self.store.config.caps,
                clock=self.store.clock,
                audit=self.audit,
            )
            if self.stamp_machine:
                self._stamp_machine(state)
            out = dict(state)
            out["version"] = SESSION_VERSION
            out["updated_at"] = self.store.clock()
            writes.append(_Write(self.store.session_path, encode_session(out)))
            session_changed = True
        return writes, session_changed, tuple(changed_kinds)

    def _stamp_machine(self, state: dict[str, Any]) -> None:
        """This machine's label and ``last_seen`` in a session about to be saved."""
        machine = self.store.machine
        machines = state.get("machines")
        if not isinstance(machines, dict):
            machines = state["machines"] = {}
        entry = machines.get(machine.id)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry["label"] = machine.label
        entry["last_seen"] = self.store.clock()
        machines[machine.id] = entry

    def _commit(self) -> Commit:
        writes, session_changed, changed_kinds = self._plan()
        review_changed = REVIEW in changed_kinds
        if not writes:
            if self._made_machine:
                write_audit(self.store, [("create_machine_id", "machine", "")])
            return Commit(self.op)
        # Each folder we write into is recorded first, so a temp file a kill leaves
        # there is swept by the next start, a host's folder included.
        recorded = register_write_dirs(self.store.root, [w.path.parent for w in writes])
        if len(writes) > 1:
            _write_journal(self.store.root, self.op, writes)
            _apply(writes)
            _drop_journal(self.store.root)
        else:
            _apply(writes)
        if recorded:
            clear_write_dirs(self.store.root)
        for callback in self._on_write:
            callback()
        files_changed = tuple(
            w.path
            for w in writes
            if w.path != self.store.session_path
            and not any(w.path == self.store.root / k.filename for k in self.store.kinds.values())
        )
        if not self._audits:
            list_name = SESSION if session_changed else changed_kinds[0] if changed_kinds else FILES
            self._audits.append((self.op, list_name, ""))
        write_audit(self.store, self._audits)
        return Commit(
            self.op,
            tuple(w.path for w in writes),
            session_changed,
            review_changed,
            files_changed,
            dict(self.details),
        )

    def _after_commit(self, commit: Commit) -> None:
        for callback in self._after:
            callback(commit)


def write_audit(store: StoreContext, records: Iterable[tuple[str, str, str]]) -> None:
    """Audit lines for a commit (identity hashes only, never text)."""
    from memoir_tui.core.door.audit import AuditRecord, append_audit

    machine_id = store.machine.id
    for operation, list_name, key in records:
        try:
            append_audit(
                store.root,
                AuditRecord(
                    time=store.clock(),
                    actor=store.actor,
                    operation=operation,
                    list_name=list_name,
                    identity_hash=key,
                    machine_id=machine_id,
                ),
            )
        except OSError as exc:  # the change is saved; a lost audit line must not undo it
            log.warning("audit record not written: %s", exc)


@contextlib.contextmanager
def run_transaction(store: StoreContext, op: str, files: Iterable[str]) -> Iterator[Transaction]:
    """``Store.transaction``: open (or join) a transaction, commit on a clean exit."""
    outer = open_transaction(store.root)
    if outer is not None:
        outer.join(files)
        yield outer
        return
    tx = Transaction(store, op, files)
    try:
        tx._enter()
        yield tx
        commit = tx._commit()
    finally:
        tx._close()
    if commit.changed:
        tx._after_commit(commit)
        run_after_commit_hooks(store.after_commit_hooks, store, commit)


def refuse_odd_lock_file(session_path: Path) -> None:
    """A folder (or a FIFO, a socket, a device) where the JavaScript tool's
    ``session.json.lock`` belongs is no lock either tool made: waiting for it to go would
    only time out, so refuse at once, saying what to move (nothing was written)."""
    lock = Path(str(session_path) + ".lock")
    try:
        mode = os.lstat(lock).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return
    what = "a folder" if stat.S_ISDIR(mode) else "something that is not a file"
    raise MemoirError(
        f"{what} is where the lock file {lock} belongs (no memoir tool makes one); "
        "move it away and run this again (nothing was written)"
    )


def _refuse_new_secrets(path: Path, old: bytes | None, new: bytes) -> None:
    """A secret in ``new`` that ``old`` did not hold refuses the write (naming the rule)."""
    from memoir_tui.core.format.secrets import SecretFoundError, find_secrets

    try:
        text = new.decode("utf-8")
    except UnicodeDecodeError:
        return  # not text: nothing a person would read as memory
    findings = find_secrets(text)
    if not findings:
        return
    before = old.decode("utf-8", "replace") if old else ""
    fresh = [f for f in findings if text[f.start : f.end] not in before]
    if fresh:
        raise SecretFoundError(str(path), fresh)


# --- the redo journal -------------------------------------------------------------------------


def journal_path(root: Path) -> Path:
    return Path(root) / JOURNAL_FILE


def _data_dir() -> Path:
    """``$XDG_DATA_HOME/memoir-tui``, else the platform's user data directory."""
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "memoir-tui"
    if sys.platform.startswith("linux") and os.environ.get("HOME"):
        return Path(os.environ["HOME"]) / ".local" / "share" / "memoir-tui"
    import platformdirs

    return Path(platformdirs.user_data_dir("memoir-tui"))


def _store_id(root: Path) -> str:
    return hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:16]


def commit_record_path(root: Path) -> Path:
    """The private record of the journal this machine's writer published for the store at
    ``root`` (its SHA-256): outside the store, so nobody who can only write there can
    make a journal recovery accepts."""
    return _data_dir() / "commits" / _store_id(root)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _write_journal(root: Path, op: str, writes: list[_Write]) -> None:
    store_root = os.path.abspath(root)
    hosts = sorted({str(w.path) for w in writes if not _inside(str(w.path), store_root)})
    payload = {
        "version": JOURNAL_VERSION,
        "op": op,
        "store": store_root,
        "host_files": hosts,
        "writes": [w.to_json() for w in writes],
    }
    data = json.dumps(payload, separators=(",", ":")).encode("ascii")
    # The record first: a journal published without one would be set aside, not applied.
    record = commit_record_path(root)
    from memoir_tui.core.base.fsutil import private_dir

    private_dir(record.parent, tighten=True)
    digest = hashlib.sha256(data).hexdigest()
    write_file_safely(record, f"{digest} {store_root}\n".encode(), within=record.parent, mode=0o600)
    # Atomic and private: the journal holds the new bytes (never more than the files will).
    write_file_safely(journal_path(root), data, within=root, mode=0o600)


def _drop_journal(root: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        journal_path(root).unlink()
    fsync_directory(root)
    with contextlib.suppress(OSError):
        commit_record_path(root).unlink()


def _recorded_digest(root: Path) -> str | None:
    """The digest this machine recorded for the store's journal (None: no usable record,
    or one that is not a private regular file of ours)."""
    path = commit_record_path(root)
    try:
        with open_for_reading(path, follow_symlinks=False) as fh:  # never a link, never blocks
            info = os.fstat(fh.fileno())
            if info.st_mode & 0o077 or (hasattr(os, "geteuid") and info.st_uid != os.geteuid()):
                return None
            raw = fh.read(4096)
    except OSError:
        return None
    digest, _, rest = raw.decode("ascii", "replace").partition(" ")
    if rest.strip() != os.path.abspath(root) or len(digest) != 64:
        return None
    return digest


# --- temp files a killed writer left ---------------------------------------------------------


def write_dirs_record_path(root: Path) -> Path:
    """The private list of the folders a commit of this store in flight writes into,
    beyond the store's root and its own folders (always swept): a host's folder
    (``~/.claude``, a project), a trash record. Written before the commit's first temp
    file, removed once it is done, so a kill leaves it for the next sweep."""
    return _data_dir() / "written" / _store_id(root)


def _always_swept(root: Path, directory: str) -> bool:
    store_root = os.path.abspath(root)
    return directory == store_root or os.path.dirname(directory) == store_root


def _recorded_write_dirs(root: Path) -> set[str]:
    path = write_dirs_record_path(root)
    try:
        with open_for_reading(path, follow_symlinks=False) as fh:  # never a link, never blocks
            if os.fstat(fh.fileno()).st_mode & 0o022:
                return set()
            raw = fh.read(1 << 20)
    except OSError:
        return set()
    return {line for line in raw.decode("utf-8", "replace").splitlines() if os.path.isabs(line)}


def register_write_dirs(root: Path, directories: Iterable[Path | str]) -> bool:
    """Record the folders beyond the always-swept ones that a commit is about to write
    into, before any temp file is made there; True if there were any (``clear_write_dirs``
    after the commit). Best effort: a failure never stops a commit."""
    wanted = {os.path.abspath(d) for d in directories}
    extra = {d for d in wanted if not _always_swept(root, d)}
    if not extra:
        return False
    every = sorted(_recorded_write_dirs(root) | extra)
    record = write_dirs_record_path(root)
    try:
        from memoir_tui.core.base.fsutil import private_dir

        private_dir(record.parent, tighten=True)
        write_file_safely(
            record, ("\n".join(every) + "\n").encode("utf-8"), within=record.parent, mode=0o600
        )
    except OSError as exc:
        log.info("could not record the folders written into: %s", exc)
    return True


def clear_write_dirs(root: Path) -> None:
    """The commit is done (or its folders were swept): nothing there is in flight."""
    with contextlib.suppress(OSError):
        write_dirs_record_path(root).unlink()


def _sweep_dirs(root: Path) -> list[str]:
    """Every folder a temp file of this store's writers can be in: the store and its
    folders, this machine's records for it, and the folders a commit was writing into."""
    dirs = [os.path.abspath(root)]
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        dirs += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
    data = _data_dir()
    dirs += [str(data / "commits"), str(data / "written")]
    dirs += sorted(_recorded_write_dirs(root))
    return list(dict.fromkeys(dirs))


def sweep_temps(root: Path) -> list[str]:
    """Remove the temp files killed writers of this store left (``fsutil.OUR_TEMP_PATTERNS``,
    never one a live process is writing). Call it holding the store's flock."""
    recorded = os.path.lexists(write_dirs_record_path(root))
    removed: list[str] = []
    for directory in _sweep_dirs(root):
        removed += sweep_our_temps(directory)
    if recorded:
        clear_write_dirs(root)  # swept: no commit of this store is in flight now
    if removed:
        log.info("removed %d temp file(s) a stopped writer left", len(removed))
    return removed


def sweep_temps_at_start(store: StoreContext) -> list[str]:
    """What every face does first: if a temp file of ours lies beside any file this
    store writes, take the store's flock (without waiting: its holder sweeps) and sweep.
    Nothing is created when there is nothing to sweep."""
    if not os.path.isdir(store.root):
        return []
    found = False
    for directory in _sweep_dirs(store.root):
        try:
            with os.scandir(directory) as entries:
                if any(is_our_temp(e.name) for e in entries):
                    found = True
                    break
        except OSError:
            continue
    if not found:
        return []
    try:
        with store_flock(store.session_path, wait_seconds=0):
            return sweep_temps(store.root)
    except (MemoirError, OSError):
        return []  # busy (its holder sweeps) or not writable here


# Sentences for the user about journals set aside, per store root, until a face takes them.
_notices: dict[str, list[str]] = {}
_notices_guard = threading.Lock()


def take_notices(root: Path | None = None) -> list[str]:
    """What recovery set aside for the store at ``root`` (every store: None) since last
    asked, one sentence each, for a face to show; empties the list."""
    with _notices_guard:
        if root is None:
            out = [n for notes in _notices.values() for n in notes]
            _notices.clear()
            return out
        return _notices.pop(os.path.abspath(root), [])


def add_notice(root: Path, sentence: str) -> None:
    """Leave a sentence for the user of the store at ``root`` (shown by the face once)."""
    with _notices_guard:
        notes = _notices.setdefault(os.path.abspath(root), [])
        if sentence not in notes:
            notes.append(sentence)


def _set_aside(root: Path, reason: str) -> None:
    """Rename the journal (whatever is at its name) aside, never applying it, and say so."""
    path = journal_path(root)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for n in range(100):
        aside = path.with_name(f"{path.name}{SET_ASIDE}{stamp}" + (f"-{n}" if n else ""))
        if os.path.lexists(aside):
            continue
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise MemoirError(
                f"{path} is not a commit memoir-tui wrote here ({reason}) and could not be "
                f"set aside ({exc.strerror or exc}); move it away by hand (nothing in it "
                "was applied)"
            ) from None
        break
    else:
        raise MemoirError(f"{path} could not be set aside; move it away by hand")
    fsync_directory(root)
    with contextlib.suppress(OSError):
        commit_record_path(root).unlink()
    sentence = (
        f"{path.name} in {root} was not a commit memoir-tui wrote here ({reason}); "
        f"nothing in it was applied and it was set aside as {aside.name}"
    )
    log.info("%s", sentence)  # the faces show it (``take_notices``)
    add_notice(root, sentence)


def _read_journal(root: Path) -> tuple[str, list[_Write]] | None:
    """The journal's op and writes if it is one this machine's writer published for this
    store; otherwise it is set aside (and None returned). None too if there is none."""
    path = journal_path(root)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        kind = "a link" if stat.S_ISLNK(info.st_mode) else "not a regular file"
        _set_aside(root, f"{kind} in its place")
        return None
    recorded = _recorded_digest(root)
    if recorded is None:  # not even read: nothing of this machine's writer is pending
        _set_aside(root, "no commit of this store on this machine recorded it")
        return None
    try:  # safeio: a regular file only (never a link, never blocks), its size bounded
        raw = read_file_safely(path, max_bytes=JOURNAL_MAX_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            _set_aside(root, "too large")
            return None
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EINVAL):
            _set_aside(root, "not a regular file")
            return None
        raise
    if recorded != hashlib.sha256(raw).hexdigest():
        _set_aside(root, "no commit of this store on this machine recorded it")
        return None
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError):
        _set_aside(root, "unreadable")
        return None
    try:
        if not isinstance(payload, dict) or payload.get("version") != JOURNAL_VERSION:
            raise ValueError("an unknown version")
        store_root = os.path.abspath(root)
        if payload.get("store") != store_root:
            raise ValueError("it names another store")
        hosts = payload.get("host_files")
        if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts):
            raise ValueError("no declared files")
        writes = [_Write.from_json(w) for w in payload["writes"]]
        for w in writes:
            name = str(w.path)
            if not os.path.isabs(name) or os.path.normpath(name) != name:
                raise ValueError("a path that is not plain and absolute")
            if not _inside(name, store_root) and name not in hosts:
                raise ValueError(f"a path outside the store it did not declare ({name})")
        op = str(payload.get("op") or "commit")
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        _set_aside(root, str(exc) or "misshapen")
        return None
    return op, writes


def _apply(writes: Iterable[_Write]) -> None:
    for w in writes:
        if w.data is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(w.path)
            fsync_directory(w.path.parent)
            continue
        if w.create_only:
            _create_exclusively(w.path, w.data, w.mode)
        else:  # through the real parent's descriptor, O_NOFOLLOW (safeio)
            write_file_safely(w.path, w.data, within=w.path.parent, mode=w.mode)
        if w.mtime_ns is not None:
            with contextlib.suppress(OSError):
                os.utime(w.path, ns=(w.mtime_ns, w.mtime_ns))


def _create_exclusively(path: Path, data: bytes, mode: int | None) -> None:
    """Publish a new file by hard link, so a name that appeared meanwhile is never replaced."""
    if _read(path) == data:
        return  # rolled forward already
    if os.path.lexists(path):
        raise FileExistsRefusal(f"{path} already exists; nothing was written")
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = path.with_name(f".{path.name}.create-{os.getpid()}-{threading.get_ident()}.tmp")
    with owned_temp(staging):  # removed if a signal stops the process meanwhile
        write_file_safely(staging, data, within=path.parent, mode=mode)
        try:
            try:
                os.link(staging, path)
            except FileExistsError:
                raise FileExistsRefusal(f"{path} already exists; nothing was written") from None
            except OSError:  # no hard links here: check, then rename
                if os.path.lexists(path):
                    raise FileExistsRefusal(f"{path} already exists; nothing was written") from None
                os.replace(staging, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging)
    fsync_directory(path.parent)


def recover(store: StoreContext, *, inside: Transaction | None = None) -> bool:
    """Complete a commit a killed process left half done; True if there was one.

    Call it holding the store's locks (a transaction does, on entry). Only a journal
    this machine's writer recorded for this store is applied; any other (planted,
    replayed, unreadable: a journal is renamed into place complete, so ours never is)
    is set aside with a sentence (``take_notices``) and nothing in it is written.
    """
    path = journal_path(store.root)
    found = _read_journal(store.root)
    if found is None:
        return False
    op, writes = found
    touches_session = any(w.path == store.session_path for w in writes)
    with contextlib.ExitStack() as stack:
        if touches_session and (inside is None or not inside._session_lock_held):
            refuse_odd_lock_file(store.session_path)
            stack.enter_context(
                js_session_lock(store.session_path, wait_seconds=store.config.lock_wait_seconds)
            )
        for w in writes:
            try:
                _apply([w])
            except FileExistsRefusal:
                continue  # an exclusive create that lost to a file made since: keep that file
    _drop_journal(store.root)
    write_audit(store, [("recover_commit", "files", "")])
    log.warning("completed an interrupted %s commit from %s", op, path)
    return True
