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
lock file waited on (never advising to remove the JavaScript tool's). A lock
file left by a holder that died on this host (its PID is written inside and no
longer exists) is broken at once instead of after 30 s; one that is not a file
(a dangling link) is an error sentence, never a spin.

Fairness: our writers wait in a FIFO (a ticket each, in ``session.json.queue/``)
for the flock, and leave the JavaScript tool a window (``FAIR_GAP_SECONDS``)
before each take only where that tool has a footprint or its lock was seen
held; elsewhere once every ``PERIODIC_GAP_SECONDS``.
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

from memoir_tui.core.base.errors import MemoirError

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
    """A lock could not be taken within the configured wait; names the one waited on."""

    def __init__(self, lock_path: Path, waited: float, holder: str = "") -> None:
        if lock_path.name.endswith(".flock"):
            text = (
                f"could not lock the store: other memoir-tui writers held {lock_path} for "
                f"the whole wait ({waited:.1f} s); nothing was written, try again"
            )
        else:
            who = f" (its holder: {holder})" if holder else ""
            text = (
                f"could not lock the session: {lock_path} is held by another program"
                f"{who} and was not released within {waited:.1f} s; nothing was written. "
                f"It is let go when its holder exits (at once on this machine) or after "
                f"{STALE_SECONDS:.0f} s; try again then"
            )
        super().__init__(text)
        self.lock_path = lock_path


class LockFileDamagedError(MemoirError):
    """``session.json.lock`` is not a file any tool's lock protocol made."""


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
        from memoir_tui.core.base.safeio import read_text_safely

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
    from memoir_tui.core.base.fsutil import owned_temp

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
                from memoir_tui.core.base.safeio import open_for_reading

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
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < older_than:
                continue
            if st.st_size:
                if st.st_size > 300:
                    continue
                from memoir_tui.core.base.safeio import open_for_reading

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
    if not stat.S_ISREG(st.st_mode):
        # A link (dangling or not), a folder, a pipe: no tool's O_EXCL create can ever
        # succeed while it is there, so waiting would spin for ever.
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        if stat.S_ISLNK(st.st_mode):
            with contextlib.suppress(OSError):
                kind += f" (to {os.readlink(lock_file)})"
        raise LockFileDamagedError(
            f"{lock_file} is {kind}, not a lock file: no tool can lock the session "
            "while it is there, so nothing was written; it was not made by a lock and "
            "has to be removed by hand"
        )
    age = time.time() - st.st_mtime
    if age > stale_seconds or _holder_is_dead(lock_file):
        with contextlib.suppress(FileNotFoundError):
            lock_file.unlink()
        return True
    return False


# --- a FIFO among our own writers ------------------------------------------------------------
#
# The flock alone is a free-for-all: every waiter polls, and one can lose to a stream
# of others until its wait runs out. So each outermost taker first draws a ticket: an
# empty file in ``session.json.queue/`` named by the time it arrived, created already
# flocked (made under a temporary name, locked, renamed in). A taker goes on to the
# store flock only once no live ticket older than its own is left, waiting on its
# predecessor's ticket alone; a ticket whose flock can be taken belongs to a writer
# that is gone (finished or killed) and is removed. The flock still decides who holds
# the store (a writer of an older version, without tickets, just competes for it);
# tickets only order the waiting, and one older than the stale age is not waited on.

QUEUE_POLL_SECONDS = 0.001
_TICKET_RE = re.compile(r"^\d{20}\.\d+\.\d+$")
_depth = threading.local()


def _queue_dir(session_path: Path) -> Path:
    return session_path.with_name(session_path.name + ".queue")


def _draw_ticket(queue: Path) -> tuple[int, str] | None:
    """Our ticket (an open, flocked fd and its name), or None when no queue can be made."""
    import fcntl

    try:
        queue.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    if queue.is_symlink() or not queue.is_dir():
        return None
    tag = f"{os.getpid()}.{threading.get_ident()}"
    tmp = queue / f"tmp.{tag}"
    try:
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        name = f"{time.time_ns():020d}.{tag}"
        os.rename(tmp, queue / name)
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return None
    return fd, name


def _wait_for_turn(queue: Path, mine: str, deadline: float) -> None:
    """Return once no live ticket older than ``mine`` is left (or at the deadline)."""
    import fcntl

    while time.monotonic() < deadline:
        try:
            names = os.listdir(queue)
        except OSError:
            return
        ahead = sorted(n for n in names if n < mine and _TICKET_RE.match(n))
        if not ahead:
            return
        pred = queue / ahead[-1]
        try:
            fd = os.open(pred, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue  # it just went
        try:
            if time.time() - os.fstat(fd).st_mtime > STALE_SECONDS:
                return  # not waited on (the flock still keeps us apart)
            while time.monotonic() < deadline:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    time.sleep(QUEUE_POLL_SECONDS)
                    continue
                # its writer is gone (finished, or killed before removing it)
                with contextlib.suppress(OSError):
                    os.unlink(pred)
                break
        finally:
            os.close(fd)


def _drop_ticket(queue: Path, ticket: tuple[int, str]) -> None:
    fd, name = ticket
    with contextlib.suppress(OSError):
        os.unlink(queue / name)
    os.close(fd)


def sweep_queue(session_path: str | os.PathLike[str], *, only_unnamed: bool = False) -> int:
    """Remove tickets (with ``only_unnamed``: only half-made ones, which nobody waits on)
    whose writers are gone. Returns how many."""
    import fcntl

    queue = _queue_dir(Path(session_path))
    removed = 0
    try:
        names = os.listdir(queue)
    except OSError:
        return 0
    for name in names:
        ticket = bool(_TICKET_RE.match(name)) and not only_unnamed
        if not (ticket or name.startswith("tmp.")):
            continue
        try:
            fd = os.open(queue / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            os.unlink(queue / name)
            removed += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _refuse_odd_flock(flock_path: Path) -> None:
    """A FIFO, a device or a socket where the store's lock file belongs is said, not
    locked on (a FIFO would even serve as a lock, and nothing would be said at all); a
    folder or a link is refused when it is opened, in a sentence of its own."""
    import stat

    from memoir_tui.core.base.safeio import UnsafeFileError, not_read_sentence

    try:
        mode = os.lstat(flock_path).st_mode
    except OSError:
        return
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        said = not_read_sentence(flock_path).replace("; not read", "")
        raise UnsafeFileError(
            errno.EINVAL,
            f"{said}, where memoir-tui's lock file belongs; move it away and run this again "
            "(nothing was changed)",
        )


@contextlib.contextmanager
def store_flock(session_path: str | os.PathLike[str], *, wait_seconds: float) -> Iterator[None]:
    """Hold the flock every memoir-tui writer of this store takes first (``session.json.flock``).

    Re-entrant within a thread (one ``FileLock`` per path per process), so a
    transaction that joins an outer one in the same thread never deadlocks. The
    outermost take waits its turn in the FIFO of our writers first.
    """
    from memoir_tui.core.base.fsutil import private_dir

    session_path = Path(session_path)
    private_dir(session_path.parent)  # a store made here is 0700: it holds memory
    flock_path = session_path.with_name(session_path.name + ".flock")
    _refuse_odd_flock(flock_path)
    flock = _flock_for(flock_path)
    started = time.monotonic()
    depths = _depth.__dict__.setdefault("by_path", {})
    outermost = not depths.get(flock_path)
    queue = _queue_dir(session_path)
    ticket = _draw_ticket(queue) if outermost else None
    try:
        if ticket is not None:
            _wait_for_turn(queue, ticket[1], started + max(wait_seconds, 0.0))
        left = max(wait_seconds - (time.monotonic() - started), 0.0)
        try:
            flock.acquire(timeout=left, poll_interval=0.002)
        except TimeoutError:  # filelock.Timeout is a TimeoutError
            raise LockTimeoutError(flock_path, time.monotonic() - started) from None
        depths[flock_path] = depths.get(flock_path, 0) + 1
        try:
            if outermost:
                # A writer killed while creating the JavaScript lock leaves its temp file;
                # no writer of ours is creating one now (they hold this flock to), so sweep.
                sweep_lock_temps(session_path.with_name(session_path.name + ".lock"))
                sweep_queue(session_path, only_unnamed=True)
            yield
        finally:
            depths[flock_path] -= 1
            flock.release()
    finally:
        if ticket is not None:
            _drop_ticket(queue, ticket)


# --- the JavaScript tool's protocol -----------------------------------------------------------

JS_SEEN = "js-seen"
"""A marker in the queue folder: the JavaScript tool's lock was once seen held here."""
PERIODIC_GAP_SECONDS = 0.35
"""Where the JavaScript tool has left no trace, ours still leave it one window this often
(a sixth of the lock's time at most, only while ours keep it busy), so even its first
write here waits under half a second and never goes unlocked."""


def _js_uses_store(session_path: Path) -> bool:
    """The JavaScript tool has a footprint here (its files, or its lock seen held)."""
    from memoir_tui.core.door.config import JS_FOOTPRINT_FILES

    folder = session_path.parent
    if any(os.path.isfile(folder / name) for name in JS_FOOTPRINT_FILES):
        return True
    return os.path.exists(_queue_dir(session_path) / JS_SEEN)


def _note_js_seen(session_path: Path, js_lock: Path) -> None:
    """Under our flock, a live lock file is never ours: remember the JavaScript tool."""
    try:
        from memoir_tui.core.base.safeio import read_file_safely

        content = read_file_safely(js_lock, max_bytes=4096)[:64].strip()
    except OSError:
        return
    if content == _our_content():
        return
    marker = _queue_dir(session_path) / JS_SEEN
    if not os.path.exists(marker):
        with contextlib.suppress(OSError):
            fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            os.close(fd)


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
    _leave_a_gap(session_path, turn)
    deadline = time.monotonic() + wait_seconds
    started = time.monotonic()
    seen = False
    while not _try_create(js_lock):
        if _break_if_abandoned(js_lock, stale_seconds):
            continue
        if not seen:
            _note_js_seen(session_path, js_lock)
            seen = True
        if time.monotonic() >= deadline:
            raise LockTimeoutError(js_lock, time.monotonic() - started, _holder(js_lock))
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


def _holder(js_lock: Path) -> str:
    try:
        from memoir_tui.core.base.safeio import read_file_safely

        content = read_file_safely(js_lock, max_bytes=4096)[:64].decode("utf-8", "replace").strip()
    except OSError:
        return ""
    if content.isdigit():
        return f"process {content}, the JavaScript memoir tool's form"
    return f"process {content}" if _HOLDER.fullmatch(content.encode()) else ""


def _leave_a_gap(session_path: Path, turn: Path) -> None:
    """Sleep out what is left of ``FAIR_GAP_SECONDS`` since ours last released the lock,
    where the JavaScript tool uses this store; elsewhere only once a
    ``PERIODIC_GAP_SECONDS``."""
    try:
        since = time.time() - turn.stat().st_mtime
    except OSError:
        return
    if not 0 <= since < FAIR_GAP_SECONDS:
        return
    if not _js_uses_store(session_path):
        mark = _queue_dir(session_path) / "gap"
        try:
            if time.time() - os.stat(mark).st_mtime < PERIODIC_GAP_SECONDS:
                return
        except FileNotFoundError:
            pass
        except OSError:
            return
        with contextlib.suppress(OSError):
            fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            os.close(fd)
            os.utime(mark)
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
