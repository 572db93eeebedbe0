"""A file's stamp: what says it changed, read without opening it.

Read-only (one ``stat``), so every face may use it; ``fsutil`` holds the write helpers,
which faces may not import.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class FileStamp(NamedTuple):
    """What says a file changed: its inode, modification time (ns) and size. A tuple in
    this order, so it compares equal to (and stores as) ``(ino, mtime_ns, size)``."""

    ino: int
    mtime_ns: int
    size: int


def file_stamp(path: str | os.PathLike[str]) -> FileStamp | None:
    """The stamp of a file (through a symlink), or None if it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileStamp(st.st_ino, st.st_mtime_ns, st.st_size)
