"""A writer killed while taking the JavaScript lock leaves its temp file behind; the next
transaction sweeps such files once they are stale (and touches nothing else)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from memoir_tui.core.door.lock import STALE_SECONDS
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

# A real writer, stopped for good between creating its temp file and writing its PID.
KILLED_WRITER = """
import os, sys, time
from pathlib import Path
import memoir_tui.core.door.lock as lock
def stall(fd, data):
    print("created", flush=True)
    time.sleep(600)
os.write = stall
lock._try_create(Path(sys.argv[1]))
"""


def _leave_a_temp_by_sigkill(store_dir: Path) -> Path:
    lock_file = store_dir / "session.json.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(lock_file)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "created"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=SAFETY_NET)
    (leftover,) = store_dir.glob(".session.json.lock.*")
    assert leftover.stat().st_size == 0 and not lock_file.exists()
    return leftover


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_stale_empty_temp_left_by_a_kill_is_swept_by_the_next_transaction(store_dir):
    store = Memoir(store_dir)
    store.note_decision("Use SQLite", why="simple")
    leftover = _leave_a_temp_by_sigkill(store_dir)
    fresh = store_dir / ".session.json.lock.4242.99"  # a writer mid-create, just now
    fresh.write_bytes(b"")
    holder = store_dir / ".session.json.lock.4243.7"  # killed after writing its PID
    holder.write_bytes(b"4243@somehost")
    other = store_dir / ".session.json.lock.notes"  # not one of ours
    other.write_bytes(b"")
    prose = store_dir / ".session.json.lock.4244.8"  # not a lock's content
    prose.write_bytes(b"keep me, I am not a pid")
    for path in (leftover, holder, other, prose):
        _age(path, STALE_SECONDS * 10)

    store.note_decision("Use ruff", why="fast")

    assert not leftover.exists() and not holder.exists()
    assert fresh.exists() and other.exists() and prose.exists()
    assert {d.text for d in store.working_set().decisions} == {"Use SQLite", "Use ruff"}


def test_a_fresh_temp_is_left_alone(store_dir):
    store = Memoir(store_dir)
    leftover = _leave_a_temp_by_sigkill(store_dir)
    store.note_decision("Use SQLite", why="simple")
    assert leftover.exists()  # younger than the stale threshold: maybe a live writer's
