"""A change journal for CLI queries at any size, kept without a server.

Past ``full_check_files`` a CLI query cannot stat every file (≈ 1 s per 100k
files here) and a directory's mtime does not change when a file in it is
edited in place. So after answering, the CLI leaves a *keeper* behind: a
detached child that watches the index's directories with inotify and appends
every file written to a journal beside the index (``…sqlite3-changes``, 0600),
then checks every file once (edits made before it watched), and exits after
``IDLE_SECONDS`` without a query.

The next query asks the keeper to catch up before it reads the journal: it
creates a marker file in the cache directory, which the keeper also watches.
One inotify queue keeps its events in order, so when the keeper has written the
marker's line every write that finished before the marker was created is in
the journal. The query re-reads those files (``recheck``) and answers. When no
keeper answers in time (none alive, no inotify, a queue overflow) the query
falls back to what it did before: directories, candidates, a detached check.

Files: ``…sqlite3-keeper`` (the keeper's pid and state), ``…sqlite3-changes``
(paths, one a line; ``sync <token>`` lines), ``…sqlite3-sync-<token>`` (a
marker, removed by the query). All are caches: purge drops them with the index.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

IDLE_SECONDS = 600.0  # the keeper exits after this long without a query
SYNC_TIMEOUT = 2.0  # a query waits at most this long for the keeper to catch up
_WAKE = 30.0


def paths_for(index_path: Path) -> tuple[Path, Path]:
    """(keeper file, journal) beside the index."""
    return Path(f"{index_path}-keeper"), Path(f"{index_path}-changes")


def _write_private(path: Path, text: str) -> None:
    from memoir_tui.core.base.safeio import write_file_safely

    write_file_safely(path, text.encode("utf-8"), within=path.parent, mode=0o600)


def _read(path: Path) -> str:
    """A keeper file's text (safeio: a regular file only, never blocks; bounded)."""
    from memoir_tui.core.base.safeio import read_text_safely

    return read_text_safely(path, max_bytes=64 * 1024 * 1024, errors="replace")


def alive(index_path: Path) -> bool:
    """A keeper is watching for this index (its process lives and says so)."""
    keeper, _journal = paths_for(index_path)
    try:
        pid_text, state = _read(keeper).split()[:2]
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    if state != "watching":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def can_watch() -> bool:
    """inotify is there (Linux): a keeper can journal writes."""
    import sys

    return sys.platform.startswith("linux")


def catch_up(index_path: Path, *, timeout: float = SYNC_TIMEOUT) -> list[str] | None:
    """Paths the keeper saw written (every write finished before this call), or None
    when no keeper answered: the caller then checks files the old way."""
    if not alive(index_path):
        return None
    keeper, journal = paths_for(index_path)
    with contextlib.suppress(OSError):
        os.utime(keeper)  # a query: the keeper stays
    token = secrets.token_hex(8)
    marker = Path(f"{index_path}-sync-{token}")
    try:
        from memoir_tui.core.base.safeio import create_exclusive

        create_exclusive(marker, b"", within=marker.parent)
    except OSError:
        return None
    want = f"sync {token}"
    deadline = time.monotonic() + timeout
    delay = 0.001
    try:
        while True:
            try:
                lines = _read(journal).splitlines()
            except OSError:
                lines = []
            if want in lines:
                return sorted({ln for ln in lines if ln and not ln.startswith("sync ")})
            if time.monotonic() >= deadline or not alive(index_path):
                return None
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
    finally:
        with contextlib.suppress(OSError):
            marker.unlink()


def run(
    index_path: Path,
    directories: Callable[[], list[str]],
    full_check: Callable[[], object],
    *,
    idle: float = IDLE_SECONDS,
) -> int:
    """The keeper's body (in a detached child): watch, check once, journal, exit when idle.

    Returns an exit code; never raises for an ordinary failure."""
    from memoir_tui.core.recall.watch import Watcher

    keeper, journal = paths_for(index_path)
    watcher = Watcher.create()
    if watcher is None:
        full_check()
        return 0
    wake = threading.Event()
    watcher.on_event = wake.set
    cache_dir = str(index_path.parent)
    prefix = f"{index_path.name}-sync-"
    try:
        watcher.sync([*directories(), cache_dir])
        if not watcher.healthy:
            full_check()
            return 0
        _write_private(journal, "")
        _write_private(keeper, f"{os.getpid()} watching\n")
        full_check()  # edits made before the watch began
        with contextlib.suppress(OSError):
            os.utime(keeper)
        while True:
            wake.wait(_WAKE)
            wake.clear()
            files, dirs = watcher.drain()
            if "*" in dirs or not watcher.healthy:
                return 0  # events were lost: queries fall back to checking files
            try:  # purged, rebuilt or taken over: stop before writing anything
                mine = _read(keeper).split()[0] == str(os.getpid())
            except (OSError, IndexError):
                mine = False
            if not mine or not index_path.exists():
                return 0
            if dirs - {cache_dir}:  # new or removed directories: watch what the index has
                with contextlib.suppress(Exception):
                    watcher.sync([*directories(), cache_dir])
            paths = [f for f in files if os.path.dirname(f) != cache_dir]
            syncs = [
                f"sync {os.path.basename(f)[len(prefix) :]}"
                for f in files
                if os.path.dirname(f) == cache_dir and os.path.basename(f).startswith(prefix)
            ]
            if paths or syncs:
                from memoir_tui.core.base.safeio import open_for_append

                fd = open_for_append(journal, within=journal.parent)
                with os.fdopen(fd, "a", encoding="utf-8") as fh:
                    fh.write("".join(f"{p}\n" for p in sorted(paths)))
                    fh.write("".join(f"{s}\n" for s in syncs))
            try:
                last = keeper.stat().st_mtime
            except OSError:
                return 0
            if time.time() - last > idle:
                return 0
    finally:
        watcher.close()
        with contextlib.suppress(OSError, IndexError):
            if _read(keeper).split()[0] == str(os.getpid()):
                keeper.unlink()
