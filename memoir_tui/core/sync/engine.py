"""Pull, push and sync: git as the transport, the format's merge as the rules.

One cycle: fetch the remote head; read and verify all of it (decrypting when
encrypted) before touching anything local; merge it into the store under the
store's locks; then, to push, build one commit whose tree is the merged state
on top of the fetched head and push it. A push rejected because another
machine got there first starts the cycle again (fetch, merge, commit, push),
so concurrent pushes converge on the join of everything pushed.

Purge means gone: when the outgoing session carries a purged tombstone the
remote head lacks, the commit is an orphan (no parent) force-pushed with a
lease on the fetched head, so no commit reachable on the remote holds the
text any more. Every machine that meets a purge it has not seen before (or a
rewritten remote) rebuilds its sync copy from scratch afterwards, so no old
object lingers there either. Machines recover by merging files, never by
merging git histories.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.merge import SESSION_VERSION, contributes_to_merge
from memoir_tui.core.sync.apply import (
    MergeReport,
    apply_snapshot,
    clean_staging,
    file_digest,
    local_files,
    parse_session_bytes,
    purged_hashes,
    review_contributes,
)
from memoir_tui.core.sync.config import (
    DEFAULT_BRANCH,
    DEFAULT_SCRYPT_N,
    SyncConfig,
    load_sync_config,
    mask_url,
    normalise_remote,
    save_sync_config,
    validate_branch,
    validate_scrypt_n,
    work_dir_for,
)
from memoir_tui.core.sync.crypto import KdfParams, Keys, read_key_file, resolve_passphrase
from memoir_tui.core.sync.errors import (
    ModeMismatchError,
    NotConfiguredError,
    PushRejectedError,
    RemoteQuarantinedError,
    SecretsFoundError,
    SyncBusyError,
    SyncError,
)
from memoir_tui.core.sync.git import Git
from memoir_tui.core.sync.layout import (
    HEADER,
    MACHINES,
    MEMORY_PREFIX,
    REVIEW,
    SESSION,
    RemoteSnapshot,
    build_tree,
    encode_json,
    is_entry_path,
    read_snapshot,
    verify_remote_key,
)
from memoir_tui.core.sync.purges import PURGES, parse_records
from memoir_tui.core.sync.state import SyncState

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store

Progress = Callable[[str, float], None]
MAX_ATTEMPTS = 12
SYNC_LOCK_WAIT = 60.0
OUTGOING_REF = "refs/memoir/outgoing"


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What one pull, push or sync did."""

    action: str  # "pull" | "push" | "sync"
    message: str
    merge: MergeReport = field(default_factory=MergeReport)
    pushed: bool = False
    commit: str | None = None
    rewritten: bool = False  # the remote branch was replaced by an orphan commit (a purge)
    attempts: int = 1
    skipped: tuple[str, ...] = ()  # local entry files not synced (unsafe names)

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "message": self.message,
            "merge": self.merge.to_dict(),
            "pushed": self.pushed,
            "commit": self.commit,
            "rewritten": self.rewritten,
            "attempts": self.attempts,
            "skipped": list(self.skipped),
        }


def _no_progress(_message: str, _fraction: float) -> None:
    return None


@contextlib.contextmanager
def sync_lock(work_dir: Path, wait: float = SYNC_LOCK_WAIT) -> Iterator[None]:
    """One sync per store at a time. An fcntl lock: a killed holder never blocks the next."""
    work_dir.mkdir(parents=True, exist_ok=True, mode=0o700)  # it may hold plaintext objects
    fd = os.open(work_dir / "sync.lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise SyncBusyError(
                        f"another sync of this store is running (waited {wait:.0f} s)"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class SyncCopy:
    """The sync working folder of one store: the bare repository, the state, the lock."""

    def __init__(self, store: Store, config: SyncConfig) -> None:
        self.store = store
        self.config = config
        self.work_dir = work_dir_for(store.root, config)
        self.repo = self.work_dir / "repo.git"
        self.tracking = f"refs/remotes/origin/{config.branch}"
        self.synced = f"refs/heads/{config.branch}"

    def git(self) -> Git:
        if self.config.encrypt:
            # Commit metadata is not encrypted: name no machine on an encrypted remote.
            return self.reader()
        machine = self.store.machine
        return Git(self.repo, machine_id=machine.id, label=machine.label)

    def reader(self) -> Git:
        """The copy naming no machine: for reading only (a status: asking for no machine
        never makes ``machine.id``) or for commits on an encrypted remote."""
        return Git(self.repo, machine_id="memoir", label="memoir")

    def recover(self) -> Git:
        """Clear what a killed sync left: stale git locks, staging folders, half rebuilds."""
        clean_staging(self.work_dir)
        with contextlib.suppress(OSError):
            for name in os.listdir(self.work_dir):
                if name.startswith("repo.git.old-"):
                    shutil.rmtree(self.work_dir / name, ignore_errors=True)
        git = self.git()
        git.clear_stale_locks()
        if not git.is_healthy():
            self._discard_repo()
            git.init()
        return git

    def discard_history(self) -> None:
        """Drop the repository (after a purge: its history holds the purged words); the
        next sync starts a fresh one from the remote and pushes the purged state."""
        self._discard_repo()

    def _discard_repo(self) -> None:
        if self.repo.exists():
            aside = self.repo.with_name(f"repo.git.old-{uuid.uuid4().hex[:8]}")
            os.rename(self.repo, aside)
            shutil.rmtree(aside, ignore_errors=True)

    def rebuild(self, keep: str | None) -> Git:
        """A fresh sync copy holding only what the remote holds now (after a purge)."""
        self._discard_repo()
        git = self.git()
        git.init()
        with contextlib.suppress(MemoirError):
            head = git.fetch(self.config.remote, self.config.branch, self.tracking)
            if keep and git.rev_parse(keep):
                git.update_ref(self.synced, keep)
            elif head:
                git.update_ref(self.synced, head)
        return git

    def staging(self) -> Path:
        return self.work_dir / f"staging-{os.getpid()}-{uuid.uuid4().hex[:8]}"


class _Run:
    def __init__(
        self,
        store: Store,
        action: str,
        *,
        passphrase: str | None,
        interactive: bool,
        allow_secrets: bool,
        progress: Progress | None,
        key_file: str | None = None,
        rewrite_history: bool = False,
    ) -> None:
        self.store = store
        # a purge of words the session does not hold (an entry file's lines): the
        # push replaces the remote history all the same
        self.rewrite_history = rewrite_history
        self.action = action
        self.config = load_sync_config(store.root)
        if key_file:
            self.config = self.config.with_(key_file=key_file)
        self.copy = SyncCopy(store, self.config)
        self.passphrase = passphrase
        self.interactive = interactive
        self.allow_secrets = allow_secrets
        self.progress = progress or _no_progress
        self._keys: dict[KdfParams, Keys] = {}
        self._secret: str | None = None

    # --- keys -------------------------------------------------------------------------

    def _get_passphrase(self, confirm: bool = False) -> str:
        if self._secret is None:
            self._secret = resolve_passphrase(
                self.passphrase, self.config.key_file, interactive=self.interactive, confirm=confirm
            )
        return self._secret

    def keys_for(self, params: KdfParams) -> Keys:
        if params not in self._keys:
            self.progress("deriving the key", 0.25)
            self._keys[params] = Keys(self._get_passphrase(), params)
        return self._keys[params]

    def new_keys(self) -> Keys:
        """Keys under fresh parameters, for a remote this machine encrypts first."""
        self._get_passphrase(confirm=True)
        return self.keys_for(KdfParams.new(self.config.scrypt_n))

    # --- the cycle ------------------------------------------------------------------------

    def execute(self, push: bool) -> SyncResult:
        state = SyncState.load(self.copy.work_dir)
        try:
            with sync_lock(self.copy.work_dir):
                state = SyncState.load(self.copy.work_dir)
                try:
                    return self._cycle(push, state)
                except OSError as exc:
                    raise SyncError(f"sync failed: {exc}") from exc
        except SyncBusyError:
            raise  # the running sync owns the state file
        except MemoirError as err:
            state.last_sync = self.store.clock()
            state.last_action = self.action
            state.last_ok = False
            state.last_result = str(err)
            if isinstance(err, RemoteQuarantinedError):
                state.quarantined = str(err)
            with contextlib.suppress(OSError):
                state.save(self.copy.work_dir)
            raise

    def _cycle(self, push: bool, state: SyncState) -> SyncResult:
        cfg, copy = self.config, self.copy
        self.progress("preparing the sync copy", 0.02)
        git = copy.recover()
        reports: list[MergeReport] = []
        attempts = 0
        head: str | None = None
        rewritten_remote = False  # sticky: a rewrite seen on any attempt needs a rebuild
        base = dict(state.remote_digests)
        while True:
            attempts += 1
            self.progress("fetching from the remote", 0.05)
            before = state.remote_head if attempts == 1 else head
            head = git.fetch(cfg.remote, cfg.branch, copy.tracking)
            rewritten_remote = rewritten_remote or bool(
                before and head and before != head and not git.is_ancestor(before, head)
            )
            if attempts == 1 and self._nothing_to_do(state, head):
                if cfg.encrypt:
                    # nothing to read or write, but the passphrase is still checked: a
                    # wrong or missing one must not pass as "up to date"
                    self.progress("checking the passphrase", 0.1)
                    verify_remote_key(git, head, get_keys=self.keys_for)
                message = "up to date; nothing new from the remote"
                state.last_sync = self.store.clock()
                state.last_action = self.action
                state.last_ok = True
                state.last_result = message
                state.save(copy.work_dir)
                return self._result(message, [], attempts, [])
            self.progress("reading the remote", 0.2)
            snap = read_snapshot(git, head, encrypted=cfg.encrypt, get_keys=self.keys_for)
            reason = snap.quarantine or _quarantine(snap)
            if reason:
                raise RemoteQuarantinedError(
                    f"{reason}; the remote is quarantined and contributes nothing, and nothing "
                    "was pushed. Upgrade memoir-tui on this machine."
                )
            self.progress("merging into the store", 0.35)
            # The base of the three-way entry merge: what the remote held at the end
            # of this machine's last sync; on a retry, the head merged by the attempt
            # before (the store has taken it in: it is the common ancestor now).
            attempt_base = base
            report = apply_snapshot(self.store, snap.files, copy.staging(), base=attempt_base)
            base = _base_after(snap.files, report)
            reports.append(report)
            local, skipped = local_files(self.store)
            purged_now = purged_hashes(parse_session_bytes(local.get(SESSION)))
            # a purge record (an entry's words forgotten) counts as a purge too
            purged_now |= {f"record:{k}" for k in _record_keys(local.get(PURGES))}
            new_purges = bool(purged_now - set(state.known_purged))
            if not push:
                if head:
                    git.update_ref(copy.synced, head)
                message = f"pulled: {_combine(reports).summary()}"
                # Rebuild before recording: a kill in between leaves the purge "new",
                # so the next sync rebuilds again.
                if new_purges or rewritten_remote:
                    self.progress("clearing old history from the sync copy", 0.9)
                    copy.rebuild(head)
                self._finish(state, head, snap.files, purged_now, reports, message)
                return self._result(message, reports, attempts, skipped)

            self.progress("preparing the push", 0.5)
            outgoing, changed = self._outgoing(snap, local, attempt_base, report)
            if not changed and not (self.rewrite_history and head is not None):
                if head:
                    git.update_ref(copy.synced, head)
                message = f"up to date; {_combine(reports).summary()}"
                # Rebuild before recording: a kill in between leaves the purge "new",
                # so the next sync rebuilds again.
                if new_purges or rewritten_remote:
                    self.progress("clearing old history from the sync copy", 0.9)
                    copy.rebuild(head)
                self._finish(state, head, snap.files, purged_now, reports, message)
                return self._result(message, reports, attempts, skipped)
            if not self.allow_secrets:
                self.progress("scanning for secrets", 0.55)
                from memoir_tui.core.sync.scan import scan_outgoing

                findings = scan_outgoing(outgoing, snap.files, changed)
                if findings:
                    raise SecretsFoundError(findings)
            keys = None
            if cfg.encrypt:
                self.progress("encrypting", 0.6)
                keys = snap.keys or self.new_keys()
            tree = build_tree(outgoing, snap, encrypted=cfg.encrypt, keys=keys)
            outgoing_purged = purged_hashes(parse_session_bytes(outgoing.get(SESSION)))
            remote_purged = purged_hashes(parse_session_bytes(snap.files.get(SESSION)))
            # a purge record (or a version added to one) the remote lacks: the remote's
            # history may hold the words it took out of an entry file
            new_records = _record_keys(outgoing.get(PURGES)) - _record_keys(snap.files.get(PURGES))
            rewrite = head is not None and (
                self.rewrite_history or bool(outgoing_purged - remote_purged) or bool(new_records)
            )
            self.progress("committing", 0.7)
            if rewrite:
                message = "memoir sync: history replaced after a purge"
            elif cfg.encrypt:
                message = "memoir sync"
            else:
                message = f"memoir sync from {self.store.machine.label} ({self.store.machine.id})"
            commit = git.commit_files(
                OUTGOING_REF, tree, parent=None if rewrite else head, message=message
            )
            self.progress("pushing", 0.8)
            landed = git.push(cfg.remote, commit, cfg.branch, lease=head if rewrite else None)
            if landed:
                git.update_refs({copy.tracking: commit, copy.synced: commit, OUTGOING_REF: None})
                now = self.store.clock()
                state.last_push = now
                if rewrite:
                    state.last_rewrite = now
                text = "pushed" + (" (remote history replaced after a purge)" if rewrite else "")
                message = f"{text}; {_combine(reports).summary()}"
                if rewrite or new_purges or rewritten_remote:
                    self.progress("clearing old history from the sync copy", 0.9)
                    copy.rebuild(commit)
                self._finish(state, commit, outgoing, purged_now, reports, message)
                return self._result(
                    message,
                    reports,
                    attempts,
                    skipped,
                    pushed=True,
                    commit=commit,
                    rewritten=rewrite,
                )
            if attempts >= MAX_ATTEMPTS:
                raise PushRejectedError(
                    f"the remote kept changing; the push was rejected {attempts} times. "
                    "Nothing was lost: run sync again."
                )
            self.progress(f"the remote moved; merging again (attempt {attempts + 1})", 0.3)
            time.sleep(random.uniform(0.02, 0.1) * min(attempts, 5))

    def _nothing_to_do(self, state: SyncState, head: str | None) -> bool:
        """The remote head is the one last merged and the store has not changed since.

        Then merging would change nothing and pushing would push nothing, so the
        remote need not even be read (the common case of an idle sync).
        """
        if head is None or head != state.last_commit or not state.last_ok:
            return False
        label = self.store.machine.label
        if not any(m.get("this_machine") and m.get("label") == label for m in state.machines):
            return False
        try:
            local, _skipped = local_files(self.store)
        except MemoirError:
            return False
        digests = {p: file_digest(p, d) for p, d in local.items()}
        return digests == state.remote_digests

    def _outgoing(
        self,
        snap: RemoteSnapshot,
        local: dict[str, bytes],
        base: dict[str, str],
        report: MergeReport,
    ) -> tuple[dict[str, bytes], list[str]]:
        """The remote's files with the store's merged files over them, and what changed.

        An entry file the remote holds unchanged since the base but the merged store
        no longer has was deleted here: it leaves the remote too (a file withheld
        from the store, or unreadable here, is not a deletion).
        """
        out = dict(snap.files)
        for path, data in snap.files.items():
            if (
                is_entry_path(path)
                and path not in local
                and path not in report.withheld
                and (
                    base.get(path) == file_digest(path, data)
                    or path in report.discarded_remote  # another's edit of a forgotten entry
                )
                and not os.path.lexists(self.store.memory_dir / path[len(MEMORY_PREFIX) :])
            ):
                del out[path]
        for path, data in local.items():
            theirs = snap.files.get(path)
            if theirs is not None and file_digest(path, theirs) == file_digest(path, data):
                continue  # same content (a session differing only in updated_at is the same)
            out[path] = data
        changed = [p for p in sorted(set(out) | set(snap.files)) if out.get(p) != snap.files.get(p)]
        machine = self.store.machine
        book = _machines_book(snap.files.get(MACHINES))
        entry = book["machines"].get(machine.id)
        entry = dict(entry) if isinstance(entry, dict) else None
        if changed or entry is None or entry.get("label") != machine.label:
            now = self.store.clock()
            entry = entry or {"first_sync": now}
            entry.update({"label": machine.label, "last_sync": now, "last_push": now})
            book["machines"][machine.id] = entry
            out[MACHINES] = encode_json(book)
            changed.append(MACHINES)
        return out, changed

    def _finish(
        self,
        state: SyncState,
        commit: str | None,
        files: dict[str, bytes],
        purged_now: set[str],
        reports: list[MergeReport],
        message: str,
    ) -> None:
        """Record a successful cycle; ``files`` is what the remote now holds."""
        state.last_commit = commit
        state.remote_head = commit
        state.known_purged = sorted(purged_now)
        state.remote_digests = _base_after(files, _combine(reports))
        state.last_sync = self.store.clock()
        state.last_action = self.action
        state.last_ok = True
        state.quarantined = None
        state.last_merge = _combine(reports).to_dict()
        state.machines = _machine_list(files, self.store)
        state.last_result = message
        state.save(self.copy.work_dir)

    def _result(
        self,
        message: str,
        reports: list[MergeReport],
        attempts: int,
        skipped: list[str],
        **extra: Any,
    ) -> SyncResult:
        self.progress("done", 1.0)
        return SyncResult(
            action=self.action,
            message=message,
            merge=_combine(reports),
            attempts=attempts,
            skipped=tuple(skipped),
            **extra,
        )


def _base_after(files: dict[str, bytes], report: MergeReport) -> dict[str, str]:
    """The three-way base once ``files`` (a remote state) has been merged in: their
    digests. Files withheld from the store (a secret, unreadable here) are left out, so
    the next merge offers them again instead of taking their absence for a delete."""
    return {
        p: file_digest(p, d)
        for p, d in files.items()
        if p not in (MACHINES, HEADER) and p not in report.withheld
    }


def _record_keys(data: bytes | None) -> set[str]:
    """Each (purge record, version) pair of a ``sync-purges.json``, as one string. Only
    purges: a plain forget hides, and does not ask for the history to be replaced."""
    return {
        f"{rid}:{v}" for rid, rec in parse_records(data).items() if rec.purge for v in rec.versions
    }


def _quarantine(snap: RemoteSnapshot) -> str | None:
    session = parse_session_bytes(snap.files.get(SESSION))
    if session is not None and not contributes_to_merge(session):
        return (
            f"the remote session is from a newer memoir format (version "
            f"{session.get('version')!r} > {SESSION_VERSION})"
        )
    if not review_contributes(snap.files.get(REVIEW)):
        return "the remote review queue is from a newer memoir-tui"
    return None


def _machines_book(data: bytes | None) -> dict[str, Any]:
    book: dict[str, Any] = {"version": 1, "machines": {}}
    if data:
        with contextlib.suppress(ValueError, UnicodeDecodeError):
            raw = json.loads(data.decode("utf-8"))
            if isinstance(raw, dict) and isinstance(raw.get("machines"), dict):
                book.update(raw)
                book["machines"] = dict(raw["machines"])
    return book


def _machine_list(files: dict[str, bytes], store: Store) -> list[dict[str, Any]]:
    book = _machines_book(files.get(MACHINES))["machines"]
    session = parse_session_bytes(files.get(SESSION)) or {}
    seen = session.get("machines") if isinstance(session.get("machines"), dict) else {}
    out = []
    this = store.known_machine()  # a status read never makes machine.id
    for mid in sorted(book):
        info = book[mid] if isinstance(book[mid], dict) else {}
        seen_info = seen.get(mid) if isinstance(seen.get(mid), dict) else {}
        stamps = [
            s for s in (info.get("last_sync"), seen_info.get("last_seen")) if isinstance(s, str)
        ]
        from memoir_tui.core.format.identity import parse_date_ms

        out.append(
            {
                "id": mid,
                "label": str(info.get("label") or seen_info.get("label") or mid[:8]),
                "last_seen": max(stamps, key=parse_date_ms) if stamps else None,
                "last_push": info.get("last_push"),
                "first_sync": info.get("first_sync"),
                "this_machine": this is not None and mid == this.id,
            }
        )
    return out


def _combine(reports: list[MergeReport]) -> MergeReport:
    if not reports:
        return MergeReport()
    notes: list[str] = []
    for r in reports:
        notes.extend(n for n in r.notes if n not in notes)
    reviews = [r.review for r in reports if r.review != "unchanged"]
    return MergeReport(
        items_added=sum(r.items_added for r in reports),
        tombstones_applied=sum(r.tombstones_applied for r in reports),
        conflicts_resolved=sum(r.conflicts_resolved for r in reports),
        entries_added=sum(r.entries_added for r in reports),
        entries_replaced=sum(r.entries_replaced for r in reports),
        entries_deleted=sum(r.entries_deleted for r in reports),
        conflict_copies=tuple(dict.fromkeys(c for r in reports for c in r.conflict_copies)),
        withheld=tuple(dict.fromkeys(c for r in reports for c in r.withheld)),
        discarded=tuple(dict.fromkeys(c for r in reports for c in r.discarded)),
        discarded_remote=tuple(dict.fromkeys(c for r in reports for c in r.discarded_remote)),
        review=reviews[-1] if reviews else "unchanged",
        session_changed=any(r.session_changed for r in reports),
        notes=tuple(notes),
    )


# --- the public functions ------------------------------------------------------------------


SyncMode = Literal["pull", "push", "sync"]
SYNC_MODES: tuple[SyncMode, ...] = ("pull", "push", "sync")


def run_sync(
    store: Store,
    mode: SyncMode,
    *,
    passphrase: str | None = None,
    interactive: bool = False,
    allow_secrets: bool = False,
    key_file: str | None = None,
    progress: Progress | None = None,
    rewrite_history: bool = False,
) -> SyncResult:
    """One sync run, under one lock.

    ``pull``: fetch the remote and merge it into the store; writes nothing to the remote
    (so ``allow_secrets`` has no use there). ``push``: merge the remote head into the
    store, then push the merged state on top of it; a push always builds on the remote
    head (never overwrites it), and a rejection because the remote moved repeats
    fetch → merge → push. ``sync``: pull then push in one cycle.

    ``rewrite_history`` (``sync`` only, after ``forget --everywhere --purge``): the push
    is an orphan commit replacing the remote branch, as for a purged session item, so
    the remote's reachable history no longer holds words removed from any file.
    """
    if mode not in SYNC_MODES:
        raise ValueError(f"unknown sync mode {mode!r}; one of {', '.join(SYNC_MODES)}")
    if mode == "pull" and allow_secrets:
        raise ValueError("a pull pushes nothing: allow_secrets has no use there")
    if rewrite_history and mode != "sync":
        raise ValueError("rewrite_history is for a full sync only")
    run = _Run(
        store,
        mode,
        passphrase=passphrase,
        interactive=interactive,
        allow_secrets=allow_secrets,
        progress=progress,
        key_file=key_file,
        rewrite_history=rewrite_history,
    )
    return run.execute(push=mode != "pull")


@dataclass(frozen=True, slots=True)
class InitResult:
    config: SyncConfig
    config_path: Path
    work_dir: Path
    remote_empty: bool
    machines_on_remote: int
    passphrase_checked: bool
    message: str


def init_sync(
    store: Store,
    remote: str,
    *,
    encrypt: bool = False,
    branch: str = DEFAULT_BRANCH,
    key_file: str | None = None,
    scrypt_n: int = DEFAULT_SCRYPT_N,
    work_dir: str | None = None,
    passphrase: str | None = None,
    interactive: bool = False,
    progress: Progress | None = None,
) -> InitResult:
    """Write ``sync.json`` after checking the remote is reachable and of the same mode."""
    progress = progress or _no_progress
    if key_file:
        key_file = str(Path(os.path.expanduser(key_file)).resolve())
        read_key_file(key_file)  # refuse a loose or unreadable key file now
    remote = normalise_remote(remote)
    if remote.startswith("/") and not os.path.exists(remote):
        raise SyncError(f"{remote} does not exist; create it with `git init --bare {remote}`")
    config = SyncConfig(
        remote=remote,
        branch=validate_branch(branch),
        encrypt=encrypt,
        key_file=key_file,
        scrypt_n=validate_scrypt_n(scrypt_n),
        work_dir=work_dir,
    )
    try:
        previous: SyncConfig | None = load_sync_config(store.root)
    except NotConfiguredError:
        previous = None
    copy = SyncCopy(store, config)
    with sync_lock(copy.work_dir):
        if previous is not None and previous != config:
            old = SyncCopy(store, previous)
            for path in (old.repo, old.work_dir / "state.json"):
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        path.unlink()
        progress("contacting the remote", 0.2)
        git = copy.recover()
        head = git.fetch(config.remote, config.branch, copy.tracking)
        header = None
        machines = 0
        if head is not None:
            entries = {e.path: e for e in git.list_tree(head) if e.kind == "blob"}
            if entries and HEADER not in entries:
                raise ModeMismatchError(
                    f"branch {config.branch!r} of that remote holds other files; "
                    "use an empty repository or another --branch"
                )
            if HEADER in entries:
                raw = git.read_blobs([entries[HEADER].sha])[entries[HEADER].sha]
                with contextlib.suppress(ValueError, UnicodeDecodeError):
                    header = json.loads(raw.decode("utf-8"))
            if not isinstance(header, dict):
                header = None
            if header is not None and (header.get("encrypted") is True) != encrypt:
                raise ModeMismatchError(
                    "that remote is encrypted: add --encrypt"
                    if header.get("encrypted") is True
                    else "that remote holds plain files; it cannot be used with --encrypt"
                )
            if MACHINES in entries and not encrypt:
                book = _machines_book(git.read_blobs([entries[MACHINES].sha]).popitem()[1])
                machines = len(book["machines"])
        checked = False
        if encrypt and header is not None:
            secret = _maybe_passphrase(passphrase, key_file, interactive)
            if secret is not None:
                progress("checking the passphrase", 0.6)
                run_keys = Keys(secret, KdfParams.from_json(header.get("kdf")))
                import base64

                run_keys.verify_key_check(
                    base64.b64decode(str(header.get("key_check"))),
                    int(header.get("format_version", SESSION_VERSION)),
                )
                checked = True
        path = save_sync_config(store, config)
    mode = "encrypted" if encrypt else "plain"
    where = "an empty remote" if head is None else "a remote with data"
    message = (
        f"sync set up ({mode}) with {mask_url(config.remote)}, branch {config.branch}: {where}"
    )
    if checked:
        message += "; passphrase verified"
    progress("done", 1.0)
    return InitResult(config, path, copy.work_dir, head is None, machines, checked, message)


def _maybe_passphrase(explicit: str | None, key_file: str | None, interactive: bool) -> str | None:
    try:
        return resolve_passphrase(explicit, key_file, interactive=interactive)
    except MemoirError:
        if explicit or key_file or os.environ.get("MEMOIR_PASSPHRASE"):
            raise
        return None
