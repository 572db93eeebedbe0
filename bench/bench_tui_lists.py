"""Lists at 10,000 decisions: key echo, filter result, first pane visit, first paint.

Every measure is taken for the app and for its floor, a bare Textual app with a
DataTable of the same rows, driven the same way in the same run (scenarios are
interleaved, each in a fresh interpreter, so a load spike hits both alike):

* **first paint**: spawn → the first screen idle (composed, laid out, rendered),
  ``App.run(headless=True, size=(100, 30), auto_pilot=…)`` as in
  ``bench_tui_startup.py``. Floors: ``floor`` is a bare app (header, a DataTable
  holding the 10,000 decision rows, footer); ``floor-12`` the same with 12 rows
  (the bare app of ``bench_tui_startup.py``: the strict floor). Textual's idle
  test compares the process's CPU time with the clock, so it also waits for the
  app's first read in its worker: for us this is "the rows on screen and idle".
  *First frame* is spawn → the first frame handed to the driver (headless: the
  screen composed, laid out and rendered, then not written): for us the shell
  with its lists saying "reading…".
* **first frame on a terminal** (``tty-*``): ``python -m memoir_tui --store …``
  (argument parsing, imports, the real start-up) and the bare 12-row app on a
  100×30 pseudo-terminal, from spawn until the first frame is written (the text
  "Next actions": for us the shell, its lists saying "reading…") and until the
  Working set's rows are written ("action 19:", the newest next action; the bare
  app has both at once).
* **first pane visit**: from the first screen, press ``2`` and time until the
  decisions table has drawn its rows and the app is idle. Floor: a bare app with
  two tabs whose second tab (a filter Input and a DataTable of the 10,000 rows)
  is mounted when first shown.
* **key echo**: with the filter box focused, one key is sent to the driver (as a
  terminal would) and the time until the box holds it is taken; keys are sent
  one at a time, each after the previous key's result has landed.
* **filter result**: the same key, until the list shows the result for the text
  typed so far (the count and the rows), and the app is idle. The floor filters
  and redraws the DataTable on the UI thread (clear, add the matching rows).
* **burst**: a word typed at 40 ms a key without waiting; the time from the last
  key to the final result on screen (a stale result may never show).

Run from the repository root::

    .venv/bin/python bench/bench_tui_lists.py            # --runs 5 --decisions 10000; --json

Scratch HOME/MEMOIR_HOME only; never the real store.
"""

from __future__ import annotations

import argparse
import contextlib
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

WORDS = ["sync", "cache", "export", "auth", "dashboard", "latency", "pagination",
         "migration", "flag", "release"]  # fmt: skip
TYPED = "cache m"
"""Typed one key at a time: ``c`` matches every row, ``cache`` a fifth, ``cache m`` a tenth."""
BURST = "latency"
"""Typed in one burst after clearing the box."""
CAP = 100
"""Rows the strict floor draws (the app's ``DECISION_ROWS``, read in ``main``)."""

CHILD = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from pathlib import Path
root, scenario = Path(sys.argv[1]), sys.argv[2]
TYPED, BURST, CAP = sys.argv[3], sys.argv[4], int(sys.argv[5])
rows = json.loads((root / "rows.json").read_text())  # [key, text, why, rejected, date, machine]
from textual import events
from textual.app import App
from textual._wait import wait_for_idle
from textual.widgets import DataTable, Footer, Header, Input, TabbedContent, TabPane
floor = scenario.startswith("floor")
FRAMES = []  # when the first frame was handed to the driver (headless: not written)
display = App._display

def first_frame(self, screen, renderable):
    if renderable is not None and not FRAMES and not self._batch_count:
        FRAMES.append(time.perf_counter())
    return display(self, screen, renderable)

App._display = first_frame
limit = CAP if scenario == "floor-capped" else None  # the strict floor draws a window too
if not floor:
    from memoir_tui.app import MemoirApp
    from memoir_tui.core.workflows.memoir import Memoir
imported = time.perf_counter()

def matching(text):
    words = text.lower().split()
    return [r for r in rows if all(w in "\n".join(r[1:4]).lower() for w in words)]

class Floor(App):
    BINDINGS = [
        ("1", "first", "first"), ("2", "second", "second"), ("slash", "filter", "filter"),
        ("escape", "leave", "leave"),
    ]

    def compose(self):
        yield Header()
        if scenario == "floor-paint":
            yield DataTable(id="t")
        elif scenario == "floor-12":
            yield DataTable(id="t")
        else:
            with TabbedContent(id="tabs"):
                with TabPane("1 first", id="one"):
                    yield DataTable(id="first")
                yield TabPane("2 second", id="two")
        yield Footer()

    def on_mount(self):
        for table in self.query(DataTable):
            table.add_columns("Decision", "Why", "Rejected", "Date", "Machine")
            count = 12 if scenario == "floor-12" else (len(rows) if table.id == "t" else 12)
            table.add_rows([r[1:] for r in rows[:count]])

    async def action_second(self):
        pane = self.query_one("#two", TabPane)
        if not pane.children:
            table = DataTable(id="t", cursor_type="row", zebra_stripes=True)
            await pane.mount(Input(id="filter"), table)
            table.add_columns("Decision", "Why", "Rejected", "Date", "Machine")
            table.add_rows([r[1:] for r in rows[:limit]])
        self.query_one("#tabs", TabbedContent).active = "two"
        self.query_one("#t", DataTable).focus()

    def action_first(self):
        self.query_one("#tabs", TabbedContent).active = "one"
        self.query_one("#first", DataTable).focus()

    def action_leave(self):
        self.query_one("#filter", Input).value = ""
        self.query_one("#t", DataTable).focus()

    def action_filter(self):
        self.query_one("#filter", Input).focus()

    def on_input_changed(self, event):
        table = self.query_one("#t", DataTable)
        table.clear()
        table.add_rows([r[1:] for r in matching(event.value)[:limit]])

def box(app):
    if floor:
        return app.query_one("#filter", Input)
    return app.query_one("#decision-filter Input", Input)

def result_shown(app, text):
    expected = len(matching(text))
    if floor:
        return app.query_one("#t", DataTable).row_count == min(expected, limit or expected)
    pane = app.query_one("#decisions-pane")
    label = str(pane.query_one(".filter-bar--count").render())
    want = f"{expected} of" if text else f"{len(rows)}"
    return label.startswith(want) and pane.table.drawn_up_to_date and pane.table.row_count > 0

def visited(app):
    if floor:
        tables = app.query("#t")
        return bool(tables) and tables.first().row_count == len(rows[:limit])
    # the pane is in the DOM before its table is composed: look for the table itself
    tables = app.query("#decisions-pane #decisions-table")
    return bool(tables) and tables.first().row_count > 0 and tables.first().drawn_up_to_date

def back(app):
    if floor:
        return app.query_one("#tabs", TabbedContent).active == "one"
    return app.focused is not None and app.focused.id == "next-actions"

async def until(condition, limit=120.0, idle=True):
    start = time.perf_counter()
    while not condition():
        if time.perf_counter() - start > limit:
            raise TimeoutError("never shown")
        await asyncio.sleep(0.001)
    if idle:
        await wait_for_idle(0)
    return (time.perf_counter() - start) * 1000

def send(app, key, char):
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)

async def auto_pilot(pilot):
    app = pilot.app
    await pilot.pause()
    shown = time.perf_counter()
    out = {"paint_ms": (shown - t0) * 1000, "import_ms": (imported - t0) * 1000,
           "cpu_ms": time.process_time() * 1000, "frame_ms": (FRAMES[0] - t0) * 1000}
    if not floor:  # the first read, in a worker at 10,000 decisions, has landed
        await until(lambda: app.state is not None and not getattr(app, "reading", False))
    out["rows_ms"] = (time.perf_counter() - t0) * 1000
    if scenario in ("ours", "floor", "floor-capped"):
        start = time.perf_counter()
        send(app, "2", "2")
        await until(lambda: visited(app))
        out["visit_ms"] = (time.perf_counter() - start) * 1000
        send(app, "slash", "/")
        await until(lambda: app.focused is box(app))
        echo, result = [], []
        typed = ""
        for ch in TYPED:
            typed += ch
            start = time.perf_counter()
            send(app, "space" if ch == " " else ch, ch)
            echo.append(await until(lambda: box(app).value == typed, idle=False))
            now = typed
            await until(lambda: result_shown(app, now))
            result.append((time.perf_counter() - start) * 1000)
            await asyncio.sleep(0.05)
        out["echo_ms"], out["result_ms"] = echo, result
        box(app).value = ""
        await until(lambda: result_shown(app, ""))
        await asyncio.sleep(0.1)
        for ch in BURST:
            start = time.perf_counter()  # the last key's
            send(app, ch, ch)
            await asyncio.sleep(0.04)
        await until(lambda: box(app).value == BURST and result_shown(app, BURST))
        out["burst_ms"] = (time.perf_counter() - start) * 1000
        await asyncio.sleep(0.1)
        send(app, "escape", "\x1b")  # leave the box (and clear it)
        await until(lambda: not isinstance(app.focused, Input))
        start = time.perf_counter()
        send(app, "1", "1")
        await until(lambda: back(app))
        out["back_ms"] = (time.perf_counter() - start) * 1000
    print("RESULT " + json.dumps(out), flush=True)
    app.exit()

if floor:
    app = Floor()
else:
    app = MemoirApp(Memoir(root, machine_label="bench"), display_path="bench", poll_interval=None)
app.run(headless=True, size=(100, 30), auto_pilot=auto_pilot)
"""


def decisions_session(count: int) -> dict[str, Any]:
    """The large store of ``bench_tui_startup.py`` with ``count`` visible decisions."""
    from bench_tui_startup import large_session

    session = large_session()
    ids = list(session["machines"])

    def stamp(i: int) -> str:
        return (
            f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z"
        )

    session["current"]["decisions"] = [
        {
            "text": f"decision {i}: {WORDS[i % 10]} {WORDS[i * 7 % 10]} follow-up",
            "why": f"because of measurement {i} in the {WORDS[i * 3 % 10]} work",
            "rejected": f"alternative {i}; doing nothing",
            "machine_id": ids[i % 3],
            "date": stamp(i),
        }
        for i in range(count)
    ]
    return session


def make_store(base: Path, count: int) -> Path:
    sys.path.insert(0, str(REPO))
    from memoir_tui.core.workflows.memoir import Memoir

    root = base / "store"
    root.mkdir(parents=True)
    (root / "session.json").write_text(json.dumps(decisions_session(count)), encoding="utf-8")
    # The rows as the app shows them (newest first), for the floor and the expected counts.
    store = Memoir(root, machine_label="bench")
    ws = store.view(store.load().state, all_projects=True)
    rows = [
        [d.key, d.text, d.why, d.rejected, d.date[:10], d.machine_label] for d in ws.all_decisions
    ]
    reads = []
    for _ in range(3):  # what the app does on the UI thread before its first screen
        start = time.perf_counter()
        store.view(store.load().state, all_projects=True)
        reads.append((time.perf_counter() - start) * 1000)
    READ_MS.append(statistics.median(reads))
    (root / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    return root


TTY_MARKERS = {"frame_ms": b"Next actions", "rows_ms": b"action 19:"}
"""The first frame (the Working set's title: for us "Next actions · reading…" until the
read lands) and its rows (the floor's first column is titled and filled the same way)."""

TTY_FLOOR = r"""
import json, sys
from pathlib import Path
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
            table.add_row(f"action {19 - i}: row", "2026-06-01")

Floor().run()
"""


def run_in_terminal(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Spawn ``argv`` on a 100×30 pseudo-terminal; time until each marker is written."""
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
    times: dict[str, float] = {}
    try:
        while time.perf_counter() - start < 60 and len(times) < len(TTY_MARKERS):
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                seen += os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            now = (time.perf_counter() - start) * 1000
            for name, marker in TTY_MARKERS.items():
                if name not in times and marker in seen:
                    times[name] = now
        os.write(master, b"\x11")  # ctrl+q
        with contextlib.suppress(subprocess.TimeoutExpired):  # else killed below
            proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    if len(times) < len(TTY_MARKERS):
        raise RuntimeError(f"{argv}: never drew {TTY_MARKERS}\n{seen[-2000:]!r}")
    return times


def run_once(root: Path, scenario: str, env: dict[str, str]) -> dict[str, Any]:
    if scenario == "tty-ours":
        return run_in_terminal([sys.executable, "-m", "memoir_tui", "--store", str(root)], env)
    if scenario == "tty-floor-12":
        return run_in_terminal([sys.executable, "-c", TTY_FLOOR], env)
    # stderr goes to a file: a traceback larger than a pipe's buffer must not block the child
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(root), scenario, TYPED, BURST, str(CAP)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
            cwd=REPO,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("RESULT "):
                result: dict[str, Any] = json.loads(line.removeprefix("RESULT "))
                proc.wait(timeout=60)
                return result
        proc.wait(timeout=60)
        errors.seek(0)
        raise RuntimeError(f"{scenario}: no result\n{errors.read()[-4000:]}")


PAINT_SCENARIOS = ("ours-paint", "floor-paint", "floor-12", "tty-ours", "tty-floor-12")
SCENARIOS = (
    "ours",
    "floor",
    "floor-capped",
    "ours-paint",
    "floor-paint",
    "floor-12",
    "tty-ours",
    "tty-floor-12",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="print raw numbers as JSON")
    parser.add_argument(
        "--paint-only",
        action="store_true",
        help="only the first-paint scenarios (a few seconds a round: more rounds for the noise)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="memoir-bench-lists-") as scratch:
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
        # The warm-up runs write the .pyc files an installed app has (a shell that sets
        # PYTHONDONTWRITEBYTECODE would otherwise compile our modules in every run).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        root = make_store(base, args.decisions)
        run_once(root, "ours-paint", env)  # warm the OS file cache and .pyc files
        run_once(root, "floor-paint", env)
        run_once(root, "tty-ours", env)
        scenarios = PAINT_SCENARIOS if args.paint_only else SCENARIOS
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in scenarios}
        for _ in range(args.runs):
            for name in scenarios:  # interleaved, so load spikes hit all alike
                results[name].append(run_once(root, name, env))

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    report(results, args)
    return 0


def med(values: list[float]) -> float:
    return statistics.median(values)


def report(results: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> None:
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, runs={args.runs}, "
        f"decisions={args.decisions}, window={CAP}, load average {os.getloadavg()[0]:.2f}; "
        f"session read + working_set view: {READ_MS[0]:.0f} ms"
    )

    def cell(values: list[float]) -> str:
        return f"{med(values):.0f} ({min(values):.0f}–{max(values):.0f})"

    def row(name: str, pick: Any, goal: str, *, floors: tuple[str, str]) -> None:
        mine = [pick(r) for r in results[OURS_OF[floors]]]
        base = [pick(r) for r in results[floors[0]]]
        strict = [pick(r) for r in results[floors[1]]]
        print(
            f"| {name} | {cell(mine)} | {cell(base)} | {med(mine) / med(base):.2f} | "
            f"{cell(strict)} | {med(mine) / med(strict):.2f} | {goal} |"
        )

    print(
        "| measure | ours ms: median (min–max) | floor: 10,000-row table | ×floor "
        "| strict floor | ×strict | goal |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    paint = ("floor-paint", "floor-12")
    row("first frame (ours: the shell, reading…)", lambda r: r["frame_ms"], "≤ 1.3×",
        floors=paint)  # fmt: skip
    row("first paint: rows on screen, idle", lambda r: r["paint_ms"], "≤ 1.3×", floors=paint)
    mine, strict = results["tty-ours"], results["tty-floor-12"]
    for name, key in (("first frame (shell, reading…)", "frame_ms"), ("rows", "rows_ms")):
        a, b = [r[key] for r in mine], [r[key] for r in strict]
        print(f"| terminal: {name} | {cell(a)} | | | {cell(b)} | {med(a) / med(b):.2f} | ≤ 1.3× |")
    # Each round's ratio to the floor run beside it: steadier when the load drifts.
    notes = []
    for name, ours, floor, key in (
        ("first frame", "ours-paint", "floor-12", "frame_ms"),
        ("rows on screen, idle", "ours-paint", "floor-12", "paint_ms"),
        ("terminal: first frame", "tty-ours", "tty-floor-12", "frame_ms"),
        ("terminal: rows", "tty-ours", "tty-floor-12", "rows_ms"),
    ):
        paired = [a[key] / b[key] for a, b in zip(results[ours], results[floor], strict=True)]
        spread = f"{med(paired):.2f} ({min(paired):.2f}–{max(paired):.2f})"
        notes.append(f"paired ×strict, {name}: {spread}")
    if not args.paint_only:
        rest_of_table(row)
    print("\n".join(["", *notes]))


def rest_of_table(row: Any) -> None:
    act = ("floor", "floor-capped")
    row("first visit to Decisions", lambda r: r["visit_ms"], "≤ 2×", floors=act)
    for i in range(len(TYPED)):
        row(f"key echo, key {i + 1} `{TYPED[: i + 1]}`", lambda r, i=i: r["echo_ms"][i],
            "≤ 50 ms", floors=act)  # fmt: skip
    for i in range(len(TYPED)):
        row(f"filter result, key {i + 1} `{TYPED[: i + 1]}`", lambda r, i=i: r["result_ms"][i],
            "≤ 100 ms", floors=act)  # fmt: skip
    row("key echo, worst key of a run", lambda r: max(r["echo_ms"]), "≤ 50 ms", floors=act)
    row("filter result, worst key of a run", lambda r: max(r["result_ms"]), "≤ 100 ms",
        floors=act)  # fmt: skip
    row(f"burst `{BURST}` at 40 ms a key: last key → result", lambda r: r["burst_ms"],
        "≤ 100 ms", floors=act)  # fmt: skip
    row("switch back to the first pane", lambda r: r["back_ms"], "", floors=act)


READ_MS: list[float] = []
"""The store's read and ``working_set`` view, in this process (context for first paint)."""

OURS_OF = {("floor-paint", "floor-12"): "ours-paint", ("floor", "floor-capped"): "ours"}


if __name__ == "__main__":
    sys.exit(main())
