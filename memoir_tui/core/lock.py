"""The session lock: the whole read → mutate → write cycle is the critical section.

Two layers, because two kinds of process share the store:

1. an ``fcntl`` lock (``filelock``) on ``session.json.flock`` serialises this
   project's own processes and threads. The kernel drops it when a holder dies,
   even by SIGKILL, so a crash never blocks the next memoir-tui process;
2. inside it, the JavaScript tool's protocol on ``session.json.lock``: create
   the file exclusively (O_EXCL), retry every 50 ms, treat a lock older than
   30 s as abandoned. Holding this file makes the JavaScript tool wait for us,
   and its file makes us wait for it.

Unlike the reference, which proceeds *unlocked* after 5 s, we never write
without the lock: after a configurable wait we fail with a message naming the
lock file. A lock file left by a holder that died on this host (its PID is
written inside and no longer exists) is broken at once instead of after 30 s.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core.errors import MemoirError

if TYPE_CHECKING:
    from filelock import FileLock

RETRY_SECONDS = 0.05
STALE_SECONDS = 30.0
FAIR_GAP_SECONDS = 0.06
"""After one of our writers lets the JavaScript lock go, the next of ours waits until this
long has passed: longer than the JavaScript tool's 50 ms retry, so a JavaScript writer
that is waiting always gets its turn instead of being starved by ours."""
DEFAULT_WAIT_SECONDS = 10.0


class LockTimeoutError(MemoirError):
    """The session lock could not be taken within the configured wait."""

    def __init__(self, lock_path: Path, waited: float) -> None:
        super().__init__(
            f"could not lock the session: {lock_path} is held by another process "
            f"(waited {waited:.1f} s). If no memoir process is running, remove that file."
        )
        self.lock_path = lock_path


# One FileLock object per path in this process: a second object on the same
# path in the same thread would deadlock on flock (see STACK.md §4).
_flocks: dict[Path, FileLock] = {}
_flocks_guard = threading.Lock()


def _flock_for(path: Path) -> FileLock:
    from filelock import FileLock  # imported on first lock: reads never pay for it

    with _flocks_guard:
        lock = _flocks.get(path)
        if lock is None:
            lock = FileLock(str(path), thread_local=True, is_singleton=False)
            _flocks[path] = lock
        return lock


def _holder_is_dead(lock_file: Path) -> bool:
    """True when the lock file names a PID on this host that no longer runs."""
    try:
        from memoir_tui.core.safeio import read_text_safely

        content = read_text_safely(lock_file, max_bytes=4096, errors="replace").strip()
    except OSError:
        return False
    if not content:
        return False  # just created, PID not written yet
    pid_part, _, host = content.partition("@")
    if host and host != socket.gethostname():
        return False
    try:
        pid = int(pid_part)
    except ValueError:
        return False
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _try_create(lock_file: Path) -> bool:
    """Create the lock file exclusively, already holding our PID.

    The PID is written to a private temp file which is then hard-linked to the
    lock name: ``link`` fails if the name exists, exactly like O_EXCL, but a
    holder killed at any instant never leaves an empty lock file that only
    the 30 s age rule could clear. The JavaScript tool writes its bare PID; we
    add the host so a lock on a shared folder is never judged by another
    machine's process table.
    """
    from memoir_tui.core.fsutil import owned_temp

    content = _our_content()
    tmp = lock_file.with_name(f".{lock_file.name}.{os.getpid()}.{threading.get_ident()}")
    # Under the guard, so a lock is either made before release_own_locks looks, or never.
    with _lock_files_guard:
        if _exiting:
            raise MemoirError("memoir-tui is shutting down; the session lock was not taken")
        _lock_files.add(lock_file)
        with owned_temp(tmp):
            return _link_lock(lock_file, tmp, content)


def _link_lock(lock_file: Path, tmp: Path, content: bytes) -> bool:
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, content)
        finally:
            os.close(fd)
        try:
            os.link(tmp, lock_file)
            return True
        except FileExistsError:
            return False
        except OSError:
            return _try_create_exclusive(lock_file, content)  # filesystems without hard links
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


_HOLDER = re.compile(rb"\d+(?:@[^\s]*)?")

# JavaScript-protocol lock files this process has tried to take: on a signal,
# ``release_own_locks`` removes each that still holds our ``pid@host``.
_lock_files: set[Path] = set()
_lock_files_guard = threading.Lock()
_exiting = False


def _our_content() -> bytes:
    return f"{os.getpid()}@{socket.gethostname()}".encode()


def release_own_locks() -> list[Path]:
    """For a process stopped by a signal: remove every ``session.json.lock`` it holds
    (those holding its ``pid@host``) and take no new one. The flocks go with the
    process (the kernel drops them). Returns the lock files removed."""
    global _exiting
    removed = []
    ours = _our_content()
    with _lock_files_guard:
        _exiting = True
        for lock_file in sorted(_lock_files):
            try:
                from memoir_tui.core.safeio import open_for_reading

                with open_for_reading(lock_file) as fh:  # never blocks on a FIFO
                    held = fh.read(300).strip() == ours
            except OSError:
                continue
            if held:
                with contextlib.suppress(FileNotFoundError):
                    lock_file.unlink()
                    removed.append(lock_file)
    return removed


def sweep_lock_temps(lock_file: Path, *, older_than: float = STALE_SECONDS) -> int:
    """Remove the temp files ``_try_create`` left when killed between creating one and
    unlinking it (``.<lock>.<pid>.<thread>``): empty, or holding only a ``pid@host``,
    and older than ``older_than`` (a live one exists for microseconds). Nothing else
    in the folder is touched. Returns how many went."""
    prefix = f".{lock_file.name}."
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(lock_file.parent))
    except OSError:
        return 0
    for entry in entries:
        rest = entry.name[len(prefix) :] if entry.name.startswith(prefix) else ""
        parts = rest.split(".")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < older_than:
                continue
            if st.st_size:
                if st.st_size > 300:
                    continue
                from memoir_tui.core.safeio import open_for_reading

                with open_for_reading(entry.path) as fh:  # regular, tiny: checked again
                    if not _HOLDER.fullmatch(fh.read().strip()):
                        continue
            os.unlink(entry.path)
            removed += 1
        except OSError:
            continue
    return removed


def _try_create_exclusive(lock_file: Path, content: bytes) -> bool:
    try:
        fd = os.open(lock_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    try:
        os.write(fd, content)
    finally:
        os.close(fd)
    return True


def _break_if_abandoned(lock_file: Path, stale_seconds: float) -> bool:
    try:
        st = lock_file.lstat()
    except FileNotFoundError:
        return True
    if not stat.S_ISREG(st.st_mode):  # a FIFO, a folder, a link: no writer made it; say so now
        from memoir_tui.core.safeio import UnsafeFileError

        raise UnsafeFileError(
            errno.EINVAL,
            f"{lock_file} is not a regular file, so no writer can take the store's lock; "
            "remove it (nothing was written)",
        )
    age = time.time() - st.st_mtime
    if age > stale_seconds or _holder_is_dead(lock_file):
        with contextlib.suppress(FileNotFoundError):
            lock_file.unlink()
        return True
    return False


@contextlib.contextmanager
def store_flock(session_path: str | os.PathLike[str], *, wait_seconds: float) -> Iterator[None]:
    """Hold the flock every memoir-tui writer of this store takes first (``session.json.flock``).

    Re-entrant within a thread (one ``FileLock`` per path per process), so a
    transaction that joins an outer one in the same thread never deadlocks.
    """
    from memoir_tui.core.fsutil import private_dir

    session_path = Path(session_path)
    private_dir(session_path.parent)  # a store made here is 0700: it holds memory
    flock = _flock_for(session_path.with_name(session_path.name + ".flock"))
    started = time.monotonic()
    try:
        # Our own processes queue on the flock; a short poll keeps contended
        # writes quick (the 50 ms retry is the JS protocol's, for its file).
        flock.acquire(timeout=max(wait_seconds, 0.0), poll_interval=0.002)
    except TimeoutError:  # filelock.Timeout is a TimeoutError
        raise LockTimeoutError(
            session_path.with_name(session_path.name + ".lock"), time.monotonic() - started
        ) from None
    try:
        # A writer killed while creating the JavaScript lock leaves its temp file; no
        # writer of ours is creating one now (they hold this flock to), so sweep.
        sweep_lock_temps(session_path.with_name(session_path.name + ".lock"))
        yield
    finally:
        flock.release()


@contextlib.contextmanager
def js_session_lock(
    session_path: str | os.PathLike[str],
    *,
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
    stale_seconds: float = STALE_SECONDS,
) -> Iterator[None]:
    """Hold the JavaScript tool's ``session.json.lock`` (take ``store_flock`` first)."""
    session_path = Path(session_path)
    js_lock = session_path.with_name(session_path.name + ".lock")
    turn = session_path.with_name(session_path.name + ".flock")
    _leave_a_gap(turn)
    deadline = time.monotonic() + wait_seconds
    started = time.monotonic()
    while not _try_create(js_lock):
        if _break_if_abandoned(js_lock, stale_seconds):
            continue
        if time.monotonic() >= deadline:
            raise LockTimeoutError(js_lock, time.monotonic() - started)
        time.sleep(RETRY_SECONDS)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            js_lock.unlink()
        # When ours let it go, on the flock file every writer of ours holds: the next
        # of ours reads it in _leave_a_gap (processes share no memory).
        with contextlib.suppress(OSError):
            os.utime(turn)


def _leave_a_gap(turn: Path) -> None:
    """Sleep out what is left of ``FAIR_GAP_SECONDS`` since ours last released the lock."""
    try:
        since = time.time() - turn.stat().st_mtime
    except OSError:
        return
    if 0 <= since < FAIR_GAP_SECONDS:
        time.sleep(FAIR_GAP_SECONDS - since)


@contextlib.contextmanager
def session_lock(
    session_path: str | os.PathLike[str],
    *,
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
    stale_seconds: float = STALE_SECONDS,
) -> Iterator[None]:
    """Both layers, in their fixed order: the flock, then the JavaScript protocol's file."""
    with (
        store_flock(session_path, wait_seconds=wait_seconds),
        js_session_lock(session_path, wait_seconds=wait_seconds, stale_seconds=stale_seconds),
    ):
        yield


def lock_is_held(session_path: str | os.PathLike[str]) -> bool:
    """Whether a JavaScript-protocol lock file currently exists (informational only)."""
    path = Path(session_path)
    try:
        os.stat(path.with_name(path.name + ".lock"))
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return False
        raise
    return True
