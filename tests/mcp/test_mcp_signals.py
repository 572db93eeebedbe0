"""SIGTERM and SIGINT stop ``memoir-tui --mcp`` cleanly (issue 16), with a real process.

The server is spawned over stdio and spoken to in JSON-RPC by hand (so the test owns
stdin and can leave it open), fed a stream of writes, and signalled mid-stream. After
it exits: no ``session.json.lock``, no ``*.tmp`` in the store, ``session.json`` valid
JSON holding every write whose reply came back. SIGINT with stdin still open must end
it within seconds; a call stuck past the grace period (waiting for another tool's lock)
does not keep it alive, and that other tool's lock is left alone.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET
from tests.paths import REPO

WRITES = 150


class Server:
    def __init__(self, store: Path, cwd: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO), "MEMOIR_HOME": str(store)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memoir_tui", "--mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(cwd / "server.log", "wb"),  # noqa: SIM115 - closed with the process
            cwd=cwd,
            env=env,
        )
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "id" in message:
                self.replies.put(message)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def initialize(self) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "signal-test", "version": "1"},
                },
            }
        )
        reply = self.replies.get(timeout=SAFETY_NET)
        assert reply["id"] == 0 and "result" in reply, reply
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def note(self, number: int, text: str) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": "memoir_note", "arguments": {"text": text}},
            }
        )

    def acknowledged(self) -> dict[int, bool]:
        """Replies so far: id → the call succeeded."""
        out = {}
        while True:
            try:
                reply = self.replies.get_nowait()
            except queue.Empty:
                return out
            result = reply.get("result") or {}
            out[reply["id"]] = "error" not in reply and not result.get("isError")


def text_of(i: int) -> str:
    return f"Signal test decision number {i}"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    root.mkdir()
    (root / "memoir-tui.toml").write_text("[caps]\ndecisions = 1000\n", encoding="utf-8")
    Memoir(root).note_decision("Written before the server started")
    return root


def _debris(store: Path) -> list[Path]:
    return [p for p in store.rglob("*") if p.name.endswith(".tmp") or p.name == "session.json.lock"]


def _stop_mid_stream(store: Path, tmp_path: Path, signum: int, *, close_stdin: bool) -> None:
    server = Server(store, tmp_path)
    try:
        server.initialize()
        for i in range(1, WRITES + 1):
            server.note(i, text_of(i))
        acked: dict[int, bool] = {}
        deadline = time.monotonic() + SAFETY_NET
        while len(acked) < 10 and time.monotonic() < deadline:  # writes are under way
            acked.update(server.acknowledged())
            time.sleep(0.005)
        assert len(acked) >= 10, "the server answered no writes"
        server.proc.send_signal(signum)
        if close_stdin:
            assert server.proc.stdin is not None
            server.proc.stdin.close()
        # With stdin left open a server that did not stop would run for ever: the
        # safety net turns that into a failure, no clock decides.
        code = server.proc.wait(timeout=SAFETY_NET)
        server.reader.join(timeout=SAFETY_NET)
        acked.update(server.acknowledged())
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    log = (tmp_path / "server.log").read_text(errors="replace")
    assert code == {signal.SIGTERM: 0, signal.SIGINT: 130}[signum], log
    assert "Traceback" not in log, log
    assert _debris(store) == []
    state = json.loads((store / "session.json").read_text(encoding="utf-8"))
    stored = {d["text"] for d in state["current"]["decisions"]}
    ok = {i for i, success in acked.items() if success}
    assert ok, "no write was acknowledged"
    missing = sorted(i for i in ok if text_of(i) not in stored)
    assert missing == [], f"acknowledged writes lost: {missing}"
    assert "Written before the server started" in stored
    # the calls after the signal were refused or never answered, not half written
    assert len(ok) < WRITES or len(stored) == WRITES + 1


def test_sigterm_mid_write_leaves_no_lock_no_temp_and_no_lost_write(
    store: Path, tmp_path: Path
) -> None:
    _stop_mid_stream(store, tmp_path, signal.SIGTERM, close_stdin=False)


def test_sigint_with_stdin_left_open_exits_within_seconds(store: Path, tmp_path: Path) -> None:
    _stop_mid_stream(store, tmp_path, signal.SIGINT, close_stdin=False)


JS_HOLDER = """
import os, socket, sys, time
path = sys.argv[1]
with open(path, "x") as fh:  # the JavaScript tool's lock: created exclusively, its PID inside
    fh.write(str(os.getpid()))
print("held", flush=True)
time.sleep(3600)  # killed by the test
"""


def _flock_held_by_another(store: Path) -> bool:
    """Another process holds the store's flock (taken before the JavaScript lock)."""
    try:
        fd = os.open(store / "session.json.flock", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # lets go of it, had it been taken
    return False


def test_a_call_stuck_past_the_grace_period_does_not_keep_the_server_alive(
    store: Path, tmp_path: Path
) -> None:
    lock = store / "session.json.lock"
    with (store / "memoir-tui.toml").open("a", encoding="utf-8") as fh:
        fh.write("[store]\nlock_wait_seconds = 3600\n")  # the call waits for ever
    holder = subprocess.Popen(
        [sys.executable, "-c", JS_HOLDER, str(lock)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    server = Server(store, tmp_path)
    try:
        server.initialize()
        server.note(1, text_of(1))
        deadline = time.monotonic() + SAFETY_NET
        while not _flock_held_by_another(store):  # the call is in flight, waiting
            assert time.monotonic() < deadline, "the call never took the store's flock"
            time.sleep(0.01)
        before = (store / "session.json").read_bytes()
        server.proc.send_signal(signal.SIGTERM)
        # The call would wait for ever: a server that waited for it never exits.
        assert server.proc.wait(timeout=SAFETY_NET) == 0
        # the other tool's lock is not ours: kept; nothing half written
        assert lock.read_text() == str(holder.pid)
        assert (store / "session.json").read_bytes() == before
        assert [p for p in store.rglob("*.tmp")] == []
    finally:
        holder.kill()
        holder.wait()
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
