"""Time from process launch to the TUI's first screen, headless.

Each run spawns a fresh interpreter (nothing warm, no shared imports) that
builds the app on a store and runs it headless with an auto-pilot; when the
pilot first sees the message queue idle (the first screen is composed,
laid out and rendered) the child prints a marker and exits. The parent times
spawn → marker. Shutdown is not counted. The child also reports the CPU time
its process has used by then (``time.process_time()``, interpreter start-up
included): steadier than wall time when other jobs share the machine.

Scenarios:

* ``floor``: a bare Textual app (header, a 12-row DataTable, footer) in the
  same harness: what any Textual app costs here;
* ``shape``: a bare Textual app with our first screen's widgets (header, nine
  tabs, four titled 12-row tables, footer): what this layout costs in Textual
  before any of our code runs;
* ``demo``: a fresh copy of the shipped demo store (12 visible decisions);
* ``large``: a generated store with 1,000 history entries and every list at
  its cap (5 goals, 20 next actions, 10 questions, 50 visible decisions,
  1,000 hidden decisions, 1,000 completed actions);
* ``large+decisions``: the large store, then switch to the decisions pane
  and show the decisions and tombstones (time until that is on screen);
* ``tty: floor`` and ``tty: --demo``: the bare app and the real
  ``memoir-tui --demo`` command on a 100×30 pseudo-terminal, timed from spawn
  until the text "Next actions" has been written to the terminal (first paint
  as a person sees it; no harness inside the process).

Run from the repository root::

    .venv/bin/python bench/bench_tui_startup.py            # --runs 9; --json for raw numbers

It runs on scratch HOME/MEMOIR_HOME directories, never the real store.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys, time
t0 = time.perf_counter()
from pathlib import Path
root, scenario = Path(sys.argv[1]), sys.argv[2]
if scenario in ("floor", "shape"):
    from textual.app import App
    from textual.containers import Vertical
    from textual.widgets import DataTable, Footer, Header, Label, TabbedContent, TabPane

    class Floor(App):
        def compose(self):
            yield Header()
            if scenario == "floor":
                yield DataTable()
            else:  # our first screen's widgets: nine tabs, four titled tables
                with TabbedContent():
                    for i in range(9):
                        with TabPane(f"{i + 1} Pane {i + 1}", id=f"pane-{i}"):
                            if i == 0:
                                with Vertical():
                                    for _ in range(4):
                                        yield Label("title")
                                        yield DataTable(cursor_type="row", zebra_stripes=True)
            yield Footer()

        def on_mount(self):
            for table in self.query(DataTable):
                table.add_columns("text", "date")
                for i in range(12):
                    table.add_row(f"row {i}", "2026-06-01")
else:
    from memoir_tui.app import MemoirApp
    from memoir_tui.core.workflows.memoir import Memoir
imported = time.perf_counter()

async def auto_pilot(pilot):
    await pilot.pause()
    if scenario.endswith("+decisions"):
        await pilot.press("2", "t")
        await pilot.pause()
    shown = time.perf_counter()
    print(f"FIRST-SCREEN import_ms={(imported - t0) * 1000:.1f} "
          f"app_ms={(shown - imported) * 1000:.1f} "
          f"cpu_ms={time.process_time() * 1000:.1f}", flush=True)
    pilot.app.exit()

if scenario in ("floor", "shape"):
    app = Floor()
else:
    app = MemoirApp(Memoir(root, machine_label="bench"), display_path="bench", poll_interval=None)
app.run(headless=True, size=(100, 30), auto_pilot=auto_pilot)
"""


TTY_FLOOR = r"""
from textual.app import App
from textual.widgets import DataTable, Footer, Header

class Floor(App):
    BINDINGS = [("ctrl+q", "quit", "Quit")]

    def compose(self):
        yield Header()
        yield DataTable()
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns("Next actions", "date")
        for i in range(12):
            table.add_row(f"row {i}", "2026-06-01")

Floor().run()
"""

TTY_MARKER = b"Next actions"
"""Text on both terminal scenarios' first screen (the demo's next-actions table title)."""


def large_session(history: int = 1000) -> dict[str, Any]:
    """Every list at the default caps, plus 1,000 of each tombstone kind."""

    def stamp(day: int, minute: int) -> str:
        return f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:00.000Z"

    machines = {
        f"00000000-0000-4000-8000-00000000000{i}": {
            "label": f"machine-{i}",
            "last_seen": stamp(300, i),
        }
        for i in range(3)
    }
    ids = list(machines)
    words = [
        "sync",
        "cache",
        "export",
        "auth",
        "dashboard",
        "latency",
        "pagination",
        "migration",
        "flag",
        "release",
    ]

    def text(kind: str, i: int) -> str:
        return f"{kind} {i}: {words[i % len(words)]} {words[(i * 7) % len(words)]} follow-up"

    current = {
        "goals": [
            {"text": text("goal", i), "machine_id": ids[i % 3], "set_on": stamp(200, i)}
            for i in range(5)
        ],
        "next_actions": [
            {"text": text("action", i), "machine_id": ids[i % 3], "added": stamp(210, i)}
            for i in range(20)
        ],
        "open_questions": [
            {"text": text("question", i), "machine_id": ids[i % 3], "asked": stamp(220, i)}
            for i in range(10)
        ],
        "completed_actions": [
            {"text": text("done", i), "done_at": stamp(i // 10, i)} for i in range(1000)
        ],
        "decisions": [
            {
                "text": text("decision", i),
                "why": f"because of measurement {i} in the {words[i % len(words)]} work",
                "rejected": f"alternative {i}; doing nothing",
                "machine_id": ids[i % 3],
                "date": stamp(230, i),
            }
            for i in range(50)
        ]
        + [
            {
                "text": text("forgotten", i),
                "why": "superseded",
                "machine_id": ids[i % 3],
                "date": stamp(i // 10, i),
                "hidden": True,
                "hidden_at": stamp(250, i),
            }
            for i in range(1000)
        ],
    }
    return {
        "version": 1,
        "created_at": stamp(0, 0),
        "updated_at": stamp(300, 0),
        "machines": machines,
        "current": current,
        "history": [
            {
                "date": stamp(i // 4, i),
                "machine_id": ids[i % 3],
                "summary": f"session {i}: worked on {words[i % len(words)]}",
                "files_touched": [f"src/{words[i % len(words)]}.py"],
                "duration_min": 20 + i % 90,
            }
            for i in range(history)
        ],
    }


def make_stores(base: Path) -> dict[str, Path]:
    sys.path.insert(0, str(REPO))
    from memoir_tui.core.demo import create_demo_store

    demo = create_demo_store(base / "demo")
    large = base / "large"
    large.mkdir()
    (large / "session.json").write_text(json.dumps(large_session(), indent=2), encoding="utf-8")
    return {
        "floor": demo,
        "shape": demo,
        "demo": demo,
        "large": large,
        "large+decisions": large,
    }


def run_once(root: Path, scenario: str, env: dict[str, str]) -> dict[str, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), scenario],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("FIRST-SCREEN"):
            elapsed = (time.perf_counter() - start) * 1000
            fields = dict(part.split("=") for part in line.split()[1:])
            proc.wait(timeout=30)
            return {"total_ms": elapsed, **{k: float(v) for k, v in fields.items()}}
    proc.wait(timeout=30)
    raise RuntimeError(f"{scenario}: no first screen\n{proc.stderr.read() if proc.stderr else ''}")


def run_in_terminal(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Spawn ``argv`` on a 100×30 pseudo-terminal; time until the marker is drawn.

    This is first paint as a person sees it: interpreter start, argument
    parsing, (for the demo) copying the demo store, imports, and Textual
    writing its first frame to a real terminal.
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**env, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"},
        cwd=REPO,
        start_new_session=True,
    )
    os.close(slave)
    seen = b""
    elapsed: float | None = None
    try:
        while time.perf_counter() - start < 30:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                seen += os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if TTY_MARKER in seen:
                elapsed = (time.perf_counter() - start) * 1000
                break
        os.write(master, b"\x11")  # ctrl+q
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    if elapsed is None:
        raise RuntimeError(f"{argv}: never drew {TTY_MARKER!r}\n{seen[-2000:]!r}")
    return {"total_ms": elapsed}


TTY_SCENARIOS: dict[str, list[str]] = {
    "tty: floor": [sys.executable, "-c", TTY_FLOOR],
    "tty: --demo": [sys.executable, "-m", "memoir_tui", "--demo"],
}


def summarise(samples: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(samples),
        "min": min(samples),
        "max": max(samples),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", action="store_true", help="print raw numbers as JSON")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="memoir-bench-") as scratch:
        base = Path(scratch)
        home = base / "home"
        home.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "MEMOIR_HOME": str(home / ".config" / "memoir"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "PYTHONPATH": str(REPO),
        }
        # The warm-up run writes the .pyc files an installed app has (a shell that sets
        # PYTHONDONTWRITEBYTECODE would otherwise compile our modules in every run).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        stores = make_stores(base / "stores")
        run_once(stores["demo"], "demo", env)  # warm the OS file cache and .pyc files
        results: dict[str, list[dict[str, float]]] = {name: [] for name in stores}
        results.update({name: [] for name in TTY_SCENARIOS})
        for _ in range(args.runs):
            for name, root in stores.items():  # interleaved, so load spikes hit all alike
                results[name].append(run_once(root, name, env))
            for name, argv in TTY_SCENARIOS.items():
                results[name].append(run_in_terminal(argv, env))

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, runs={args.runs}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{'scenario':<18} {'launch→first screen ms':>24} {'min':>8} {'max':>8} "
        f"{'imports ms':>11} {'app ms':>8} {'CPU ms':>8}"
    )
    for name, runs in results.items():
        total = summarise([r["total_ms"] for r in runs])
        parts = [
            f"{statistics.median(r[key] for r in runs):>{width}.0f}" if key in runs[0] else ""
            for key, width in (("import_ms", 11), ("app_ms", 8), ("cpu_ms", 8))
        ]
        print(
            f"{name:<18} {total['median']:>24.0f} {total['min']:>8.0f} {total['max']:>8.0f} "
            + " ".join(parts)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
