"""An inotify watcher (Linux, through ctypes) for long-lived processes.

It watches the directories the index recorded and only collects what changed:
files written (re-read them) and directories whose listing changed (walk their
source again). The search thread applies those on its next query, so a warm
query never stats the corpus. Anywhere inotify is missing, or when the kernel
refuses more watches, ``Watcher.create`` returns None or ``healthy`` turns
False and ``Recall`` falls back to stat checks.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import select
import struct
import sys
import threading
from collections.abc import Callable

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

_FILE_EVENTS = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE
_DIR_EVENTS = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
_MASK = _FILE_EVENTS | _DIR_EVENTS | IN_ONLYDIR | IN_DONT_FOLLOW
_HEADER = struct.Struct("iIII")


class Watcher:
    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._wd_to_dir: dict[int, str] = {}
        self._dir_to_wd: dict[str, int] = {}
        self._files: set[str] = set()
        self._dirs: set[str] = set()
        self._lock = threading.Lock()
        self._stop_r, self._stop_w = os.pipe()
        self.healthy = True
        self.on_event: Callable[[], None] | None = None  # called after events were collected
        self._thread = threading.Thread(target=self._run, name="memoir-recall-watch", daemon=True)
        self._thread.start()

    @classmethod
    def create(cls) -> Watcher | None:
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            return None
        return cls(libc, fd)

    def sync(self, directories: list[str]) -> None:
        """Watch exactly these directories (missing ones are skipped)."""
        wanted = set(directories)
        with self._lock:
            for directory in list(self._dir_to_wd):
                if directory not in wanted:
                    wd = self._dir_to_wd.pop(directory)
                    self._wd_to_dir.pop(wd, None)
                    self._libc.inotify_rm_watch(self._fd, wd)
            for directory in wanted - set(self._dir_to_wd):
                if not os.path.isdir(directory):
                    continue
                wd = self._libc.inotify_add_watch(self._fd, os.fsencode(directory), _MASK)
                if wd < 0:
                    if ctypes.get_errno() == 28:  # ENOSPC: out of watches
                        self.healthy = False
                    continue
                self._wd_to_dir[wd] = directory
                self._dir_to_wd[directory] = wd

    def drain(self) -> tuple[set[str], set[str]]:
        """Files and directories changed since the last call.

        Events the kernel queued but the reader thread has not picked up yet
        are read here first: a write that returned before the query must be
        seen by it (the fd is non-blocking, so this never waits)."""
        self._read_pending()
        with self._lock:
            files, dirs = self._files, self._dirs
            self._files, self._dirs = set(), set()
        return files, dirs

    def pending(self) -> bool:
        """Changes collected and not yet drained (reads nothing, takes no time)."""
        with self._lock:
            return bool(self._files or self._dirs)

    @property
    def watching(self) -> int:
        return len(self._dir_to_wd)

    def _run(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self._fd, self._stop_r], [], [])
            except (OSError, ValueError):
                return
            if self._stop_r in ready:
                return
            try:
                data = os.read(self._fd, 256 * 1024)
            except BlockingIOError:
                continue
            except OSError:
                self.healthy = False
                return
            self._parse(data)

    def _read_pending(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 256 * 1024)
            except OSError:  # BlockingIOError: nothing queued; others: the thread reports
                return
            if not data:
                return
            self._parse(data)

    def _parse(self, data: bytes) -> None:
        offset = 0
        with self._lock:
            while offset + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                raw = data[offset + _HEADER.size : offset + _HEADER.size + length]
                offset += _HEADER.size + length
                name = os.fsdecode(raw.rstrip(b"\0"))
                if mask & IN_Q_OVERFLOW:
                    self._dirs.add("*")  # lost events: walk everything again
                    continue
                directory = self._wd_to_dir.get(wd)
                if directory is None:
                    continue
                if mask & IN_IGNORED:
                    self._wd_to_dir.pop(wd, None)
                    self._dir_to_wd.pop(directory, None)
                    self._dirs.add(directory)
                    continue
                if mask & _DIR_EVENTS:
                    self._dirs.add(directory)
                if name and mask & (_FILE_EVENTS | IN_MOVED_TO):
                    self._files.add(os.path.join(directory, name))
        if self.on_event is not None:
            self.on_event()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._stop_w, b"x")
        self._thread.join(timeout=2)
        for fd in (self._fd, self._stop_r, self._stop_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.healthy = False
