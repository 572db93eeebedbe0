"""Atomic file writes (the one way this project replaces a file's bytes), and reads
that open regular files only."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

# Temp files this process is writing now (by path): removed by ``remove_own_temps`` when
# the process is stopped by a signal. Each is registered before it is created, and once
# the process is exiting no new one is created, so none can appear after that sweep.
_own_temps: set[str] = set()
_own_temps_guard = threading.Lock()
_exiting = False


class ProcessExitingError(OSError):
    """The process is shutting down: no new temp file (and so no write) is started."""


@contextlib.contextmanager
def owned_temp(path: str | os.PathLike[str]) -> Iterator[str]:
    """Register ``path`` as this process's temp file while the block runs (create it
    inside); ``remove_own_temps`` removes it if the process exits meanwhile."""
    name = os.fspath(path)
    with _own_temps_guard:
        if _exiting:
            raise ProcessExitingError(errno.ECANCELED, "the process is shutting down", name)
        _own_temps.add(name)
    try:
        yield name
    finally:
        with _own_temps_guard:
            _own_temps.discard(name)


def remove_own_temps() -> list[str]:
    """For a process stopped by a signal: remove every temp file it is writing and
    start no new one. Returns the paths removed."""
    global _exiting
    with _own_temps_guard:
        _exiting = True
        names = sorted(_own_temps)
        _own_temps.clear()
    removed = []
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
            removed.append(name)
    return removed


class NotRegularFileError(OSError):
    """A FIFO, a device, a socket or a directory where a file was expected: never read
    (a FIFO blocks its reader for ever, ``/dev/zero`` never ends)."""


class FileTooLargeError(OSError):
    """A regular file larger than the reader's cap."""


def open_regular(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file (after following a symlink
    unless ``follow_symlinks`` is False, when a symlink is refused).

    The kind is checked before opening (so a device is never opened) and again on the
    open descriptor (so a swap in between is caught); the open is non-blocking, so a
    FIFO put there meanwhile cannot hang it. Raises ``NotRegularFileError`` (an
    ``OSError``: a caller that skips unreadable files skips these too).
    """
    before = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(before.st_mode):
        raise NotRegularFileError(errno.EINVAL, "not a regular file", os.fspath(path))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file", os.fspath(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(
    path: str | os.PathLike[str], *, max_bytes: int, follow_symlinks: bool = True
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (``open_regular``'s checks);
    a larger one raises ``FileTooLargeError`` after reading no more than the cap."""
    with open_regular(path, follow_symlinks=follow_symlinks) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileTooLargeError(
            errno.EFBIG, f"larger than {max_bytes // 1024:,} KB", os.fspath(path)
        )
    return data


_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, mode: int | None = None
) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old or the new bytes, never a mix.

    The temp file lives in the same directory (rename is only atomic within a
    filesystem), is fsynced before the rename, and the directory is fsynced
    after it so the rename itself survives a crash. An existing file's
    permission bits are kept unless ``mode`` is given.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = target.stat().st_mode & 0o7777
    while True:
        candidate = target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
        with owned_temp(candidate) as tmp:
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC, 0o600)
            except FileExistsError:
                continue
            try:
                # Held until the rename: a sweep (``sweep_our_temps``) leaves a temp file
                # whose lock is held alone, so an in-flight write is never swept.
                _hold_temp_lock(fd)
                with os.fdopen(fd, "wb", closefd=False) as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                if mode is not None:
                    os.chmod(tmp, mode)
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                raise
            finally:
                os.close(fd)
        break
    fsync_directory(target.parent)


def private_dir(path: str | os.PathLike[str], *, tighten: bool = False) -> Path:
    """Make sure ``path`` exists; a folder created here (the last one) is 0700, and with
    ``tighten`` (a folder only we use, such as a cache) an existing one is made 0700 too.
    A folder holding memory is nobody else's to list."""
    target = Path(path)
    target.mkdir(mode=0o700, parents=True, exist_ok=True)
    if tighten:
        with contextlib.suppress(OSError):
            if stat.S_IMODE(os.stat(target).st_mode) & 0o077:
                os.chmod(target, 0o700)
    return target


def private_file(path: str | os.PathLike[str]) -> None:
    """Make ``path`` exist as a 0600 file (created so, never readable by others for an
    instant), or make an existing one 0600."""
    try:
        fd = os.open(
            path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600
        )
    except FileExistsError:
        with contextlib.suppress(OSError):
            if stat.S_IMODE(os.stat(path).st_mode) & 0o077:
                os.chmod(path, 0o600)
        return
    os.close(fd)


def write_new_private(path: str | os.PathLike[str], data: bytes) -> None:
    """Create ``path`` (never replacing one: ``FileExistsError``) as a 0600 file holding
    ``data``, durable before it returns."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Make a rename in ``directory`` durable (best effort where unsupported)."""
    try:
        dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(dfd)
    finally:
        os.close(dfd)


def sweep_stale_temps(path: str | os.PathLike[str]) -> int:
    """Remove temp files an interrupted ``atomic_write_*`` of ``path`` left behind.

    Call it only while holding the lock that guards ``path``: then no writer is
    mid-write, so every ``.<name>.*.tmp`` sibling is abandoned. They matter
    because one may hold text that was purged since.
    """
    target = Path(path)
    removed = 0
    try:
        siblings = list(target.parent.glob(f".{target.name}.*.tmp"))
    except OSError:
        return 0
    for stale in siblings:
        with contextlib.suppress(OSError):
            stale.unlink()
            removed += 1
    return removed


# --- our temp files, and sweeping the ones a killed process left -----------------------
#
# Every temp file this project writes beside a file is named after it, so a sweep can
# tell ours from anyone else's by name alone (the JavaScript tool's own temp,
# ``session.json.tmp-<pid>``, has no leading dot and is never ours):
#
# * ``.<name>.<8 hex>.tmp`` — an atomic write of ``<name>`` (the journal, entries,
#   host files, the trash: every write); held under an ``flock`` until its rename;
# * ``.<name>.create-<pid>-<thread>.tmp`` — an exclusive create's staging copy
#   (``<name>`` may itself be ``x.bak``: ``.x.bak.create-….tmp``);
# * ``.machine.id.<32 hex>`` — the first run's machine identity before it is linked.
#
# A killed writer leaves one behind, holding the new bytes: text a later purge removed
# from the file itself may survive there, so they are swept inside the store's lock
# and at every start — never one a live process is writing.

OUR_TEMP_PATTERNS = (
    re.compile(r"^\..+\.[0-9a-f]{8}\.tmp$", re.DOTALL),
    re.compile(r"^\..+\.create-(?P<pid>\d+)-\d+\.tmp$", re.DOTALL),
    re.compile(r"^\.machine\.id\.[0-9a-f]{32}$"),
)


def is_our_temp(name: str) -> bool:
    """Whether a file name is one of this project's temp files (``OUR_TEMP_PATTERNS``)."""
    return any(p.match(name) for p in OUR_TEMP_PATTERNS)


def _hold_temp_lock(fd: int) -> None:
    with contextlib.suppress(ImportError, OSError):
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's live process
        return True
    return True


def _remove_if_abandoned(path: str) -> bool:
    """Unlink an abandoned temp: not one this process is writing, not one whose named
    writer is alive, not one whose ``flock`` a writer holds. True if it went."""
    with _own_temps_guard:
        if path in _own_temps:
            return False
    found = OUR_TEMP_PATTERNS[1].match(os.path.basename(path))
    if found and _pid_alive(int(found.group("pid"))):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except FileNotFoundError:
        return False
    except OSError:  # a link (never followed) or unreadable: the name alone decides
        fd = -1
    try:
        if fd >= 0:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return False  # a folder or a FIFO with our name: not a temp of ours
            try:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:
                pass
            except OSError:
                return False  # a writer holds it: in flight
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        if fd >= 0:
            os.close(fd)


def sweep_our_temps(directory: str | os.PathLike[str]) -> list[str]:
    """Remove the temp files of ours (``OUR_TEMP_PATTERNS``) that no live writer owns from
    ``directory`` (not below it); returns their paths. Call it holding the store's lock,
    so none of our writers of that store is between creating one and renaming it."""
    try:
        with os.scandir(directory) as entries:
            names = [e.name for e in entries if is_our_temp(e.name)]
    except OSError:
        return []
    removed = []
    for name in names:
        path = os.path.join(os.fspath(directory), name)
        if _remove_if_abandoned(path):
            removed.append(path)
    return removed
