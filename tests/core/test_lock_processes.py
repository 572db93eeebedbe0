"""The lock with real processes: no lost update, no torn file, JS protocol honoured."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.door.lock import STALE_SECONDS, LockTimeoutError, session_lock
from memoir_tui.core.format.session import empty_session, load_session, save_session
from tests.deadlines import SAFETY_NET

CYCLE = textwrap.dedent(
    """
    import sys
    from memoir_tui.core.door.lock import session_lock
    from memoir_tui.core.format.session import load_session, save_session
    path, cycles = sys.argv[1], int(sys.argv[2])
    for _ in range(cycles):
        with session_lock(path, wait_seconds=600):
            state = load_session(path).state
            state["counter"] = state.get("counter", 0) + 1
            save_session(path, state)
    """
)


def _spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", *args], env=os.environ.copy())


def test_eight_processes_lose_no_update(tmp_path):
    path = tmp_path / "session.json"
    save_session(path, {**empty_session(), "counter": 0})
    procs = [_spawn(CYCLE, str(path), "200") for _ in range(8)]
    for p in procs:
        assert p.wait(timeout=SAFETY_NET) == 0
    assert json.loads(path.read_text())["counter"] == 8 * 200


KILLABLE = textwrap.dedent(
    """
    import sys
    from memoir_tui.core.door.lock import session_lock
    from memoir_tui.core.format.session import load_session, save_session
    path = sys.argv[1]
    announced = False
    while True:
        with session_lock(path, wait_seconds=600):
            state = load_session(path).state
            state["counter"] = state.get("counter", 0) + 1
            state["ballast"] = "x" * 200_000  # a big write widens the window to tear
            save_session(path, state)
        if not announced:  # the parent kills only once cycles are running
            print("cycling", flush=True)
            announced = True
    """
)


def test_sigkill_mid_cycle_leaves_no_torn_file_and_no_long_block(tmp_path):
    path = tmp_path / "session.json"
    save_session(path, {**empty_session(), "counter": 0})
    for delay in (0.0, 0.02, 0.05, 0.11, 0.17):
        proc = subprocess.Popen(
            [sys.executable, "-c", KILLABLE, str(path)],
            env=os.environ.copy(),
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout.readline().strip() == "cycling"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        state = json.loads(path.read_text())  # parses: never torn
        assert state["version"] == 1
        # Taken within a wait below the 30 s stale bound: the flock died with its
        # holder and a lock file naming a dead PID is broken at once.
        with session_lock(path, wait_seconds=STALE_SECONDS - 5):
            pass
    assert load_session(path).state["counter"] >= 1


def test_a_javascript_holder_makes_us_wait(tmp_path):
    path = tmp_path / "session.json"
    lock_file = tmp_path / "session.json.lock"
    holder = _spawn("import time; time.sleep(3600)")  # a live PID, as the JS tool writes
    try:
        fd = os.open(lock_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        os.write(fd, str(holder.pid).encode())
        os.close(fd)
        started = time.monotonic()
        with pytest.raises(LockTimeoutError) as err, session_lock(path, wait_seconds=0.5):
            pass
        assert time.monotonic() - started >= 0.45
        assert str(lock_file) in str(err.value)
        assert isinstance(err.value, MemoirError)

        releaser = _spawn(f"import time, os; time.sleep(0.6); os.unlink({str(lock_file)!r})")
        started = time.monotonic()
        with session_lock(path, wait_seconds=SAFETY_NET):
            waited = time.monotonic() - started
            assert lock_file.exists()  # now it is ours
            assert lock_file.read_text().startswith(f"{os.getpid()}@")
        assert waited >= 0.4
        assert not lock_file.exists()  # removed on release, as the JS tool expects
        releaser.wait()
    finally:
        holder.kill()
        holder.wait()


def test_stale_lock_is_broken_after_the_bound(tmp_path):
    path = tmp_path / "session.json"
    lock_file = tmp_path / "session.json.lock"
    lock_file.write_text("")  # no PID: only age can tell
    old = time.time() - 31
    os.utime(lock_file, (old, old))
    with session_lock(path, wait_seconds=1):
        pass


def test_never_writes_without_the_lock(tmp_path, store_dir, clock):
    from memoir_tui.core.workflows.memoir import Memoir

    (store_dir / "memoir-tui.toml").write_text("[store]\nlock_wait_seconds = 0.3\n")
    holder = _spawn("import time; time.sleep(3600)")
    try:
        (store_dir / "session.json.lock").write_text(str(holder.pid))
        store = Memoir(store_dir, clock=clock)
        with pytest.raises(LockTimeoutError):
            store.add_goal("must not land")
        assert not (store_dir / "session.json").exists()
    finally:
        holder.kill()
        holder.wait()


BUSY = textwrap.dedent(
    """
    import os, sys, time
    import memoir_tui.core.door.lock as lock
    path, stop = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        lock.FAIR_GAP_SECONDS = float(sys.argv[3])
    announced = False
    while not os.path.exists(stop):  # busy until the test says stop, however long
        with lock.session_lock(path, wait_seconds=600):
            time.sleep(0.002)  # a write
        if not announced:
            print("writing", flush=True)
            announced = True
    """
)
# The JavaScript tool's protocol: O_EXCL create, retry every 50 ms. The real tool gives
# up after 5 s (then writes unlocked); this one keeps trying, so a starved writer shows
# as one that never finishes (the test's safety net), not as a clock running out.
JS_WRITER = textwrap.dedent(
    """
    import os, sys, time
    lock, turns = sys.argv[1], int(sys.argv[2])
    for _ in range(turns):
        while True:
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                break
            except FileExistsError:
                time.sleep(0.05)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        time.sleep(0.005)
        os.unlink(lock)
        time.sleep(0.1)
    print("done", flush=True)
    """
)


def test_eight_busy_writers_never_starve_the_javascript_tool(tmp_path):
    # Eight of ours keep the lock busy for as long as the JavaScript writer needs; it
    # must still get each of its ten turns. How soon each comes is speed, measured in
    # bench/bench_lock_contention.py (the JS writer's longest wait, against its 5 s),
    # not asserted here; the order that makes it come (the gap after each of ours) is
    # checked without clocks in tests/core/test_lock_fairness.py.
    path = tmp_path / "session.json"
    stop = tmp_path / "stop"
    save_session(path, empty_session())
    busy = [
        subprocess.Popen(
            [sys.executable, "-c", BUSY, str(path), str(stop)],
            env=os.environ.copy(),
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    try:
        for proc in busy:  # all eight are writing
            assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        js = subprocess.run(
            [sys.executable, "-c", JS_WRITER, str(path) + ".lock", "10"],
            capture_output=True,
            text=True,
            timeout=SAFETY_NET,  # a starved writer never finishes
        )
        assert js.returncode == 0 and js.stdout.strip() == "done", js.stderr
        assert all(proc.poll() is None for proc in busy)  # they were busy all along
    finally:
        stop.touch()
        for proc in busy:
            proc.wait(timeout=SAFETY_NET)
            assert proc.stdout is not None
            proc.stdout.close()
