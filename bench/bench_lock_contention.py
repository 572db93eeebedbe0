"""Eight writers of ours on one store, a JavaScript-protocol writer beside them.

    .venv/bin/python bench/bench_lock_contention.py [--writes 40] [--modes all] [--json]

Each mode runs eight writers that each add ``--writes`` next actions through the
real write path (``Memoir.add_next_action``: the store flock, the FIFO ticket, the
JavaScript tool's ``session.json.lock``, read, write, audit) with the default lock
wait (10 s), while a writer following the JavaScript tool's protocol (O_EXCL
create, 50 ms retry, gives up after 5 s) takes the lock in a loop:

* ``processes``: eight Python processes;
* ``threads``: eight threads sharing one ``Memoir`` (how the app's ``MemoirApp.write``
  workers and the MCP server's tool threads write);
* ``mcp``: eight ``memoir-tui --mcp`` servers over stdio, ``memoir_add_next`` calls;
* ``mixed``: three processes, three threads and two MCP servers at once.

Each mode runs on a store without the JavaScript tool's footprint and on one with it
(its ``events.jsonl``). Reported: writes, refused, our writers' slowest write, and
the JavaScript writer's turns, slowest wait and give-ups. Scratch directories only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROCESS_WRITER = textwrap.dedent(
    """
    import json, sys, time
    from memoir_tui.core.base.errors import MemoirError
    from memoir_tui.core.workflows.memoir import Memoir
    root, tag, writes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = Memoir(root, actor="bench")
    out = {"ok": 0, "refused": 0, "waits": [], "errors": []}
    for k in range(writes):
        started = time.monotonic()
        try:
            store.add_next_action(f"{tag} write {k}")
            out["ok"] += 1
        except MemoirError as exc:
            out["refused"] += 1
            out["errors"].append(str(exc))
        out["waits"].append(time.monotonic() - started)
    print(json.dumps(out))
    """
)

JS_WRITER = textwrap.dedent(
    """
    import os, sys, time, json
    lock, stop = sys.argv[1], sys.argv[2]
    waits, gave_up = [], 0
    while not os.path.exists(stop):
        started = time.monotonic()
        while True:
            try:
                fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                break
            except FileExistsError:
                if time.monotonic() - started > 5:
                    fd = None
                    break
                time.sleep(0.05)
        if fd is None:
            gave_up += 1  # the JavaScript tool would now write unlocked
        else:
            waits.append(time.monotonic() - started)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            time.sleep(0.005)
            os.unlink(lock)
        time.sleep(0.1)
    print(json.dumps({"waits": waits, "gave_up": gave_up}))
    """
)


def _env(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "HOME": str(scratch / "home"),
            "MEMOIR_HOME": str(scratch / "store"),
            "PYTHONPATH": str(REPO),
            "XDG_CONFIG_HOME": str(scratch / "home" / ".config"),
            "XDG_CACHE_HOME": str(scratch / "home" / ".cache"),
            "XDG_DATA_HOME": str(scratch / "home" / ".local" / "share"),
        }
    )
    return env


class _Tally:
    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.ok = 0
        self.refused = 0
        self.waits: list[float] = []
        self.errors: list[str] = []

    def add(self, ok: int, refused: int, waits: list[float], errors: list[str]) -> None:
        with self.guard:
            self.ok += ok
            self.refused += refused
            self.waits += waits
            self.errors += errors


def _run_processes(n: int, root: Path, env: dict[str, str], writes: int, tally: _Tally):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PROCESS_WRITER, str(root), f"p{i}", str(writes)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(n)
    ]

    def finish() -> None:
        for p in procs:
            out, _ = p.communicate(timeout=600)
            r = json.loads(out)
            tally.add(r["ok"], r["refused"], r["waits"], r["errors"])

    return finish


def _run_threads(n: int, root: Path, writes: int, tally: _Tally):
    from memoir_tui.core.base.errors import MemoirError
    from memoir_tui.core.workflows.memoir import Memoir

    store = Memoir(root, actor="bench")

    def work(tag: str) -> None:
        ok = refused = 0
        waits: list[float] = []
        errors: list[str] = []
        for k in range(writes):
            started = time.monotonic()
            try:
                store.add_next_action(f"{tag} write {k}")
                ok += 1
            except MemoirError as exc:
                refused += 1
                errors.append(str(exc))
            waits.append(time.monotonic() - started)
        tally.add(ok, refused, waits, errors)

    threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(n)]
    for t in threads:
        t.start()

    def finish() -> None:
        for t in threads:
            t.join(timeout=600)

    return finish


def _rpc(proc: subprocess.Popen, msg: dict) -> dict | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    if "id" not in msg:
        return None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the MCP server closed its output")
        reply = json.loads(line)
        if reply.get("id") == msg["id"]:
            return reply


def _run_mcp(n: int, env: dict[str, str], writes: int, tally: _Tally):
    servers = [
        subprocess.Popen(
            [sys.executable, "-m", "memoir_tui", "--mcp"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for _ in range(n)
    ]
    for proc in servers:
        _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"},
                },
            },
        )
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})

    def work(i: int, proc: subprocess.Popen) -> None:
        ok = refused = 0
        waits: list[float] = []
        errors: list[str] = []
        for k in range(writes):
            started = time.monotonic()
            reply = _rpc(
                proc,
                {
                    "jsonrpc": "2.0",
                    "id": k + 1,
                    "method": "tools/call",
                    "params": {"name": "memoir_add_next", "arguments": {"text": f"m{i} write {k}"}},
                },
            )
            waits.append(time.monotonic() - started)
            result = (reply or {}).get("result") or {}
            text = " ".join(c.get("text", "") for c in result.get("content", []))
            if result.get("isError") or "error" in (reply or {}) or "could not lock" in text:
                refused += 1
                errors.append(text or json.dumps(reply))
            else:
                ok += 1
        tally.add(ok, refused, waits, errors)

    threads = [threading.Thread(target=work, args=(i, p)) for i, p in enumerate(servers)]
    for t in threads:
        t.start()

    def finish() -> None:
        for t in threads:
            t.join(timeout=600)
        for proc in servers:
            assert proc.stdin is not None
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    return finish


def run_mode(mode: str, writes: int, footprint: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="memoir-lock-bench-") as tmp:
        scratch = Path(tmp)
        root = scratch / "store"
        root.mkdir()
        (scratch / "home").mkdir()
        if footprint:
            (root / "events.jsonl").write_text('{"type":"session_start"}\n')
        env = _env(scratch)
        saved = dict(os.environ)
        os.environ.update({k: v for k, v in env.items() if k != "PYTHONPATH"})  # threads too
        try:
            return _run(mode, writes, footprint, scratch, root, env)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _run(
    mode: str, writes: int, footprint: bool, scratch: Path, root: Path, env: dict[str, str]
) -> dict[str, object]:
    if True:
        from memoir_tui.core.workflows.memoir import Memoir

        Memoir(root, actor="bench").add_goal("bench")  # the session exists
        stop = scratch / "stop"
        js = subprocess.Popen(
            [sys.executable, "-c", JS_WRITER, str(root / "session.json.lock"), str(stop)],
            stdout=subprocess.PIPE,
            text=True,
        )
        tally = _Tally()
        plan = {
            "processes": [("processes", 8)],
            "threads": [("threads", 8)],
            "mcp": [("mcp", 8)],
            "mixed": [("processes", 3), ("threads", 3), ("mcp", 2)],
        }[mode]
        started = time.monotonic()
        finishers = []
        for kind, n in plan:
            if kind == "processes":
                finishers.append(_run_processes(n, root, env, writes, tally))
            elif kind == "threads":
                finishers.append(_run_threads(n, root, writes, tally))
            else:
                finishers.append(_run_mcp(n, env, writes, tally))
        for finish in finishers:
            finish()
        elapsed = time.monotonic() - started
        stop.write_text("")
        out, _ = js.communicate(timeout=30)
        js_result = json.loads(out)
        js_waits = js_result["waits"]
        return {
            "mode": mode,
            "js_footprint": footprint,
            "writes": tally.ok + tally.refused,
            "refused": tally.refused,
            "errors": sorted(set(tally.errors))[:3],
            "writes_per_s": round((tally.ok + tally.refused) / elapsed, 1),
            "ours_max_s": round(max(tally.waits), 3) if tally.waits else None,
            "ours_p50_ms": round(statistics.median(tally.waits) * 1000, 1) if tally.waits else None,
            "js_turns": len(js_waits),
            "js_gave_up": js_result["gave_up"],
            "js_max_s": round(max(js_waits), 3) if js_waits else None,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=40, help="writes per writer")
    parser.add_argument("--modes", default="all", help="comma list, or all")
    parser.add_argument("--footprint", choices=("both", "yes", "no"), default="both")
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args()
    modes = ["processes", "threads", "mcp", "mixed"] if ns.modes == "all" else ns.modes.split(",")
    prints = {"both": (False, True), "yes": (True,), "no": (False,)}[ns.footprint]
    results = [run_mode(m, ns.writes, fp) for m in modes for fp in prints]
    if ns.json:
        print(json.dumps(results))
        return
    print(
        "| mode | JS footprint | writes | refused | writes/s | ours p50 ms | ours max s "
        "| JS turns | JS max wait s | JS gave up |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['mode']} | {'yes' if r['js_footprint'] else 'no'} | {r['writes']} | "
            f"{r['refused']} | {r['writes_per_s']} | {r['ours_p50_ms']} | {r['ours_max_s']} | "
            f"{r['js_turns']} | {r['js_max_s']} | {r['js_gave_up']} |"
        )
        for e in r["errors"]:
            print(f"  refusal: {e}")


if __name__ == "__main__":
    main()
