"""Atomic file writes: the one way this project replaces a file's bytes."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
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
    fsync_directory(target.parent)


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
