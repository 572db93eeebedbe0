"""Fair among our own writers: a FIFO ticket, the JavaScript gap only where that tool
is, refusals that name the lock waited on, and no spin on a lock that is not a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

from memoir_tui.core.door import lock
from memoir_tui.core.door.lock import LockTimeoutError, session_lock, store_flock
from memoir_tui.core.format.session import empty_session, save_session
from memoir_tui.core.workflows.memoir import Memoir
from tests.paths import REPO

DEADLINE = 120.0  # a safety net only: nothing below decides by time


def _wait_until(predicate, what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not predicate():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.01)


def _tickets(session_path) -> list[str]:
    try:
        names = os.listdir(lock._queue_dir(session_path))
    except FileNotFoundError:
        return []
    return sorted(n for n in names if lock._TICKET_RE.match(n))


HOLDER = textwrap.dedent(
    """
    import os, sys, time
    from memoir_tui.core.door.lock import session_lock
    path, go = sys.argv[1], sys.argv[2]
    with session_lock(path, wait_seconds=600):
        print("holding", flush=True)
        while not os.path.exists(go):
            time.sleep(0.01)
    """
)
WRITER = textwrap.dedent(
    """
    import sys
    from memoir_tui.core.door.lock import session_lock
    path, log, tag = sys.argv[1], sys.argv[2], sys.argv[3]
    with session_lock(path, wait_seconds=600):
        with open(log, "a") as fh:
            fh.write(tag + "\\n")
    """
)


def test_our_writers_take_the_store_in_the_order_they_came(tmp_path):
    path = tmp_path / "session.json"
    save_session(path, empty_session())
    go, log = tmp_path / "go", tmp_path / "order.log"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(go)], stdout=subprocess.PIPE, text=True
    )
    writers = []
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        for i in range(5):
            writers.append(
                subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(log), f"w{i}"])
            )
            # the next one comes only once this one has drawn its ticket
            _wait_until(lambda n=i + 2: len(_tickets(path)) == n, f"writer {i}'s ticket")
        go.write_text("")
        for w in writers:
            assert w.wait(timeout=DEADLINE) == 0
        assert holder.wait(timeout=DEADLINE) == 0
    finally:
        for p in (holder, *writers):
            if p.poll() is None:
                p.kill()
                p.wait()
    assert log.read_text().split() == [f"w{i}" for i in range(5)]
    assert _tickets(path) == []  # each took its ticket away


def test_a_killed_writers_ticket_does_not_hold_up_the_queue(tmp_path):
    path = tmp_path / "session.json"
    save_session(path, empty_session())
    go = tmp_path / "go"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(go)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    holder.kill()  # SIGKILL while holding: its ticket file stays behind
    holder.wait()
    assert len(_tickets(path)) == 1
    with session_lock(path, wait_seconds=DEADLINE):
        pass
    assert _tickets(path) == []


def test_the_gap_is_left_only_where_the_javascript_tool_is(tmp_path, monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(lock.time, "sleep", slept.append)
    monkeypatch.setattr(lock, "FAIR_GAP_SECONDS", 3600.0)  # every take is "just after"
    monkeypatch.setattr(lock, "PERIODIC_GAP_SECONDS", 3600.0)
    path = tmp_path / "session.json"
    save_session(path, empty_session())

    def takes(n: int) -> int:
        slept.clear()
        for _ in range(n):
            with session_lock(path, wait_seconds=5):
                pass
        return sum(1 for s in slept if s > 1)

    # no footprint: one window now and then (the periodic one), not one per write
    assert takes(6) <= 1
    # its event log is here: a window before every take
    (tmp_path / "events.jsonl").write_text("{}\n")
    assert takes(6) == 6
    (tmp_path / "events.jsonl").unlink()
    assert takes(6) <= 1
    # its lock seen held (a bare PID): from then on, a window before every take
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (tmp_path / "session.json.lock").write_text(str(holder.pid))
        monkeypatch.setattr(lock.time, "sleep", lambda s: os.unlink(tmp_path / "session.json.lock"))
        with session_lock(path, wait_seconds=5):
            pass
    finally:
        holder.kill()
        holder.wait()
    monkeypatch.setattr(lock.time, "sleep", slept.append)
    assert takes(6) == 6


def test_a_refusal_names_the_lock_waited_on_and_never_says_to_remove_the_js_lock(tmp_path):
    path = tmp_path / "session.json"
    save_session(path, empty_session())
    js_lock = tmp_path / "session.json.lock"
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        js_lock.write_text(str(holder.pid))
        try:
            with session_lock(path, wait_seconds=0.3):
                raise AssertionError("taken while the JavaScript tool held it")
        except LockTimeoutError as err:
            text = str(err)
        assert str(js_lock) in text and f"process {holder.pid}" in text
        assert "remove" not in text.lower()
    finally:
        holder.kill()
        holder.wait()
        js_lock.unlink()
    # ours held the store flock for the whole wait: that file is the one named
    blocker = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(tmp_path / "go")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert blocker.stdout is not None and blocker.stdout.readline().strip() == "holding"
        try:
            with store_flock(path, wait_seconds=0.3):
                raise AssertionError("taken while another writer held it")
        except LockTimeoutError as err:
            text = str(err)
        assert "session.json.flock" in text and "session.json.lock" not in text
        assert "remove" not in text.lower()
    finally:
        (tmp_path / "go").write_text("")
        blocker.wait(timeout=DEADLINE)


def test_a_dangling_link_as_the_lock_is_a_sentence_not_a_spin(tmp_path, store_dir, clock):
    store = Memoir(store_dir, clock=clock)
    store.note_decision("Use tabs", why="the team does")
    (store_dir / "session.json.lock").symlink_to(store_dir / "nowhere")
    before = (store_dir / "session.json").read_bytes()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memoir_tui",
            "--store",
            str(store_dir),
            "forget",
            "Use tabs",
            "--yes",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=DEADLINE,  # before the fix it spun at 100 % CPU for ever
    )
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr + proc.stdout
    message = proc.stderr.strip()  # (stdout shows the decision, as before any forget)
    assert "session.json.lock is a symbolic link" in message and "nowhere" in message
    assert len(message.splitlines()) == 1, message
    assert (store_dir / "session.json").read_bytes() == before


def test_eight_writers_of_every_kind_are_never_refused(tmp_path):
    """The contention run (bench/bench_lock_contention.py): processes, threads sharing a
    Memoir (the app's and the MCP server's write path) and MCP servers, beside a
    JavaScript-protocol writer. Nothing refused, and that writer never gives up."""
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "bench_lock_contention.py"),
            "--writes",
            "8",
            "--modes",
            "processes,mixed",
            "--footprint",
            "no",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,  # a safety net
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert proc.returncode == 0, proc.stderr
    for run in json.loads(proc.stdout):
        assert run["writes"] == 64, run
        assert run["refused"] == 0, run
        assert run["js_gave_up"] == 0, run
