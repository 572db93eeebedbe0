"""core.shutdown: what a process stopped by a signal releases (in a child process, since
the release is for good: no new lock or temp file is started after it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.deadlines import SAFETY_NET
from tests.paths import REPO

CHILD = textwrap.dedent(
    """
    import json, os, sys, threading
    from pathlib import Path
    from memoir_tui.core.base import fsutil
    from memoir_tui.core.door.lock import js_session_lock, session_lock
    from memoir_tui.core.door.shutdown import release_for_exit

    session = Path(sys.argv[1])
    held, done = threading.Event(), threading.Event()

    def holder():
        with js_session_lock(session, wait_seconds=5):
            held.set()
            done.wait(10)

    t = threading.Thread(target=holder, daemon=True)
    t.start()
    held.wait(10)
    # a temp file being written right now (as atomic_write_bytes registers its own)
    temp = session.with_name(".session.json.abcd.tmp")
    ctx = fsutil.owned_temp(temp)
    ctx.__enter__()
    temp.write_bytes(b"half")
    other = session.with_name("session.json.lock.other")
    released = release_for_exit()
    out = {
        "locks": [str(p) for p in released.locks],
        "temps": list(released.temps),
        "lock_exists": session.with_name("session.json.lock").exists(),
        "temp_exists": temp.exists(),
    }
    try:
        with session_lock(session, wait_seconds=1):
            out["new_lock"] = "taken"
    except Exception as err:
        out["new_lock"] = type(err).__name__ + ": " + str(err)
    try:
        fsutil.atomic_write_bytes(session.with_name("x.json"), b"{}")
        out["new_write"] = "written"
    except OSError as err:
        out["new_write"] = type(err).__name__
    print(json.dumps(out))
    os._exit(0)
    """
)


def test_release_for_exit_drops_our_lock_and_temps_and_starts_nothing_new(tmp_path: Path):
    session = tmp_path / "session.json"
    session.write_text("{}")
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(session)],
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["locks"] == [str(tmp_path / "session.json.lock")]
    assert out["temps"] == [str(tmp_path / ".session.json.abcd.tmp")]
    assert not out["lock_exists"] and not out["temp_exists"]
    assert out["new_lock"].startswith("MemoirError: memoir-tui is shutting down")
    assert out["new_write"] == "ProcessExitingError"
    assert not (tmp_path / "x.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "session.json",
        "session.json.flock",
        "session.json.queue",  # the writers' FIFO (core/lock.py), no ticket left in it
    ]
    assert not [n for n in os.listdir(tmp_path / "session.json.queue") if n[0].isdigit()]


def test_a_lock_another_process_holds_is_not_released(tmp_path: Path):
    session = tmp_path / "session.json"
    lock = tmp_path / "session.json.lock"
    lock.write_text("12345@another-host")
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from memoir_tui.core.door.lock import js_session_lock
        from memoir_tui.core.door.shutdown import release_for_exit
        try:
            with js_session_lock(Path(sys.argv[1]), wait_seconds=0.2):
                pass
        except Exception:
            pass
        print(len(release_for_exit().locks))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(session)],
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"
    assert lock.read_text() == "12345@another-host"
