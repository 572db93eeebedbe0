"""The core of the list features at 10,000 decisions: sort, one search, export; and, with
``--panes``, the History, Audit and Review panes at 10,000 rows against a bare Textual
DataTable of the same rows in the same run.

    .venv/bin/python bench/bench_features.py [--rows 10000] [--rounds 5]
    .venv/bin/python bench/bench_features.py --panes [--rows 10000] [--runs 3] [--json]

Best wall time of ``--rounds`` (CPU-bound, single-threaded): sorting by text and by
date (``core/listing.py``, run on every redraw of a sorted Decisions list), building the
search index once per dialog and each search after it (``core/search.py``, off the UI
thread), and rendering an export with its secret scan (``core/export.py``).

``--panes`` (each scenario a fresh interpreter, scenarios interleaved so a load spike
hits all alike; a scratch HOME, never the real store): one store holds 10,000 session
summaries, 10,000 audit records and a review queue of 1,000 waiting candidates and
9,000 rejected ones. For each pane, from the first screen:

* **first visit**: press the pane's key; until its table has drawn its rows and the
  app is idle (Review: its 1,000 waiting; then ``h``, every one of the 10,000, is
  timed as its own row).
* **filter result**: ``/``, then a word (``TYPED``) one key at a time (each after the previous
  result landed); per key, from sending it to the driver until the list shows the
  result for the text so far and the app is idle. Key echo: until the box holds it.

Floors, driven the same way: ``floor`` a bare app whose second tab (an Input and a
DataTable of the same rows, as the pane's cells) is mounted when first shown and
refiltered on the UI thread per key (clear, add every match); ``floor-capped`` the
same drawing at most 100 rows (the strict floor: a window, as the panes draw).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from memoir_tui.core.rules.listing import sort_decisions  # noqa: E402
from memoir_tui.core.rules.model import Decision  # noqa: E402
from memoir_tui.core.rules.search import build_index, search_index  # noqa: E402
from memoir_tui.core.services.export import decision_table, render  # noqa: E402

PANES = ("history", "audit", "review")
TYPED = {"history": "cache", "audit": "hide", "review": "cache"}
"""Typed one key at a time in each pane (a word a fifth or a quarter of the rows hold)."""
FLOOR_CAP = 100

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "sqlite",
    "postgres",
    "cache",
    "queue",
    "flag",
    "tabs",
    "docs",
    "ci",
    "build",
]


class _State:
    """The fields the search reads from a working set."""

    all_goals = next_actions = parked_actions = open_questions = archived_questions = ()
    history = ()

    def __init__(self, decisions: tuple[Decision, ...]) -> None:
        self.all_decisions = decisions


def best_ms(run: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--panes", action="store_true", help="the panes against bare Textual")
    parser.add_argument("--runs", type=int, default=3, help="with --panes: runs per scenario")
    parser.add_argument("--json", action="store_true", help="with --panes: raw numbers")
    args = parser.parse_args()
    if args.panes:
        panes_bench(args)
        return
    rng = random.Random(1)
    decisions = tuple(
        Decision(
            f"k{i}",
            " ".join(rng.choices(WORDS, k=8)) + f" {i}",
            "because " + rng.choice(WORDS),
            "",
            f"2026-0{1 + i % 9}-1{i % 10}T00:00:00Z",
            "m",
            "laptop",
            "",
        )
        for i in range(args.rows)
    )
    state = _State(decisions)
    index = build_index(state)  # type: ignore[arg-type]
    rows = args.rows
    print(
        f"sort {rows} by text      {best_ms(lambda: sort_decisions(decisions, 'text'), args.rounds):8.1f} ms"
    )
    print(
        f"sort {rows} by date      {best_ms(lambda: sort_decisions(decisions, 'date'), args.rounds):8.1f} ms"
    )
    print(f"search index, once      {best_ms(lambda: build_index(state), args.rounds):8.1f} ms")  # type: ignore[arg-type]
    print(
        f"each search after it    {best_ms(lambda: search_index(index, 'sqlite cache'), args.rounds):8.1f} ms"
    )
    table = decision_table(decisions)
    print(f"export (markdown+scan)  {best_ms(lambda: render(table, 'markdown'), 1):8.1f} ms")


# --- the panes at 10,000 rows against a bare Textual DataTable ----------------------------

PANE_CHILD = r"""
import asyncio, json, sys, time
from pathlib import Path
root, pane_id, scenario, TYPED, CAP = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
data = json.loads((root / f"rows-{pane_id}.json").read_text())  # {"columns", "waiting", "rows"}
from textual import events
from textual.app import App
from textual._wait import wait_for_idle
from textual.widgets import DataTable, Footer, Header, Input, TabbedContent, TabPane
floor = scenario.startswith("floor")
limit = CAP if scenario == "floor-capped" else None
if not floor:
    from memoir_tui.app import MemoirApp
    from memoir_tui.core.workflows.memoir import Memoir
    from memoir_tui.panes.registry import pane_spec
    from memoir_tui.core.workflows.memoir import Memoir
rows = data["rows"]
folded = ["\n".join(r).lower() for r in rows]

def matching(text, pool):
    words = text.lower().split()
    return [r for r, f in pool if all(w in f for w in words)]

class Floor(App):
    BINDINGS = [("2", "second", "second"), ("slash", "filter", "filter"), ("h", "everything", "all")]

    def compose(self):
        yield Header()
        with TabbedContent(id="tabs"):
            with TabPane("1 first", id="one"):
                yield DataTable(id="first")
            yield TabPane("2 second", id="two")
        yield Footer()

    def on_mount(self):
        first = self.query_one("#first", DataTable)
        first.add_columns(*data["columns"])
        first.add_rows(rows[:12])
        self.pool = list(zip(rows[: data["waiting"]], folded))

    def draw(self, text):
        table = self.query_one("#t", DataTable)
        table.clear()
        table.add_rows(matching(text, self.pool)[:limit])

    async def action_second(self):
        pane = self.query_one("#two", TabPane)
        table = DataTable(id="t", cursor_type="row", zebra_stripes=True)
        await pane.mount(Input(id="filter"), table)
        table.add_columns(*data["columns"])
        self.query_one("#tabs", TabbedContent).active = "two"
        self.draw("")
        table.focus()

    def action_everything(self):
        self.pool = list(zip(rows, folded))
        self.draw("")

    def action_filter(self):
        self.query_one("#filter", Input).focus()

    def on_input_changed(self, event):
        self.draw(event.value)

def pane(app):
    return app.query_one(f"#{pane_id}-pane")

def box(app):
    return app.query_one("#filter" if floor else f"#{pane_id}-pane FilterBar Input", Input)

def shown(app, text, count=None):
    if floor:
        table = app.query("#t")
        if not table or box(app).value != text:
            return False
        want = len(matching(text, app.pool)) if count is None else count
        return table.first().row_count == min(want, limit or want)
    found = app.query(f"#{pane_id}-pane")
    if not found:
        return False
    p = found.first()
    view = getattr(p, "view", None)
    return (view is not None and not p.filtering and view.needle == text
            and (count is None or pane_id == "audit" or len(view.rows) == count)
            and p.table.drawn_up_to_date
            and (p.table.row_count > 0 or not view.rows) and p.filter_text == text)

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
    await asyncio.sleep(0.2)
    out = {}
    key = "2" if floor else pane_spec(pane_id).key
    start = time.perf_counter()
    send(app, key, key)
    await until(lambda: shown(app, "", data["waiting"]))
    out["visit_ms"] = (time.perf_counter() - start) * 1000
    if pane_id == "review":
        start = time.perf_counter()
        send(app, "h", "h")
        await until(lambda: shown(app, "", len(rows)))
        out["everything_ms"] = (time.perf_counter() - start) * 1000
    send(app, "slash", "/")
    await until(lambda: app.focused is box(app))
    echo, result = [], []
    typed = ""
    for ch in TYPED:
        typed += ch
        start = time.perf_counter()
        send(app, ch, ch)
        echo.append(await until(lambda: box(app).value == typed, idle=False))
        now = typed
        await until(lambda: shown(app, now))
        result.append((time.perf_counter() - start) * 1000)
        await asyncio.sleep(0.05)
    out["echo_ms"], out["result_ms"] = echo, result
    print("RESULT " + json.dumps(out), flush=True)
    app.exit()

if floor:
    app = Floor()
else:
    app = MemoirApp(Memoir(root, machine_label="bench"), display_path="bench", poll_interval=None)
app.run(headless=True, size=(120, 35), auto_pilot=auto_pilot)
"""


def pane_store(base: Path, count: int) -> Path:
    """One store: ``count`` session summaries, ``count`` audit records, a queue of 1,000
    waiting candidates and ``count - 1000`` rejected; and each pane's rows as it shows
    them (``rows-<pane>.json``), for the floors."""
    import json

    from memoir_tui.core.door.audit import AUDIT_FILE, AuditRecord
    from memoir_tui.core.format.identity import text_hash
    from memoir_tui.core.workflows.memoir import Memoir
    from memoir_tui.panes.audit import AUDIT_COLUMNS, audit_cells, resolve_rows
    from memoir_tui.panes.history import HISTORY_COLUMNS, history_row
    from memoir_tui.panes.review import REVIEW_COLUMNS, source_label

    machine = "00000000-0000-4000-8000-000000000001"

    def stamp(i: int) -> str:
        return f"2026-{1 + i // 40000 % 12:02d}-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z"

    root = base / "store"
    root.mkdir(parents=True)
    history = [
        {
            "date": stamp(i),
            "machine_id": machine,
            "summary": f"session {i}: {' '.join(random.Random(i).choices(WORDS, k=6))}",
            "files_touched": [f"src/{WORDS[i % len(WORDS)]}.py"],
            "duration_min": i % 90,
        }
        for i in range(count)
    ]
    session = {
        "version": 1,
        "machines": {machine: {"label": "laptop", "last_seen": stamp(count)}},
        "current": {"decisions": []},
        "history": history,
    }
    (root / "session.json").write_text(json.dumps(session), encoding="utf-8")
    ops = ("note_decision", "hide_decision", "add_goal", "complete_action")
    actors = ("app", "cli", "mcp", "hook")
    (root / AUDIT_FILE).write_bytes(
        b"".join(
            AuditRecord(
                stamp(i), actors[i % 4], ops[i // 4 % 4], "decisions", text_hash(str(i)), machine
            ).to_line()
            for i in range(count)
        )
    )
    waiting = min(1000, count)
    items = []
    for i in range(count):
        text = f"candidate {i}: {' '.join(random.Random(-i).choices(WORDS, k=6))}"
        item = {
            "id": text_hash(text),
            "text": text,
            "source": "assistant" if i % 2 else "user",
            "extractor": f"rule-{i % 3}",
            "timestamp": stamp(i),
            "captured_at": stamp(i),
            "machine_id": machine,
            "state": "candidate" if i < waiting else "rejected",
        }
        if i >= waiting:
            item["rejected_at"] = stamp(i)
        items.append(item)
    (root / "review.json").write_text(json.dumps({"version": 1, "items": items}), "utf-8")

    store = Memoir(root, machine_label="bench")
    ws = store.working_set(all_projects=True)
    from memoir_tui.core.door.audit import read_audit

    audit = resolve_rows(store, read_audit(root, limit=count))
    queue = store.review.items_of(store.review.load(), states=("candidate", "rejected"))
    queue.sort(key=lambda i: i.state != "candidate")  # the waiting first, as ``h`` adds
    tables = {
        "history": (
            HISTORY_COLUMNS,
            len(ws.history),
            [[str(c) for c in history_row(e).cells] for e in ws.history],
        ),
        "audit": (AUDIT_COLUMNS, len(audit), [list(audit_cells(r)) for r in audit]),
        "review": (
            REVIEW_COLUMNS[1:],
            waiting,
            [[i.text, source_label(i), i.extractor, i.timestamp[:10], "global"] for i in queue],
        ),
    }
    for name, (columns, shown, rows) in tables.items():
        (root / f"rows-{name}.json").write_text(
            json.dumps({"columns": [c.label for c in columns], "waiting": shown, "rows": rows}),
            encoding="utf-8",
        )
    return root


def run_pane(root: Path, pane: str, scenario: str, env: dict[str, str]) -> dict[str, object]:
    import json
    import subprocess
    import tempfile

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                PANE_CHILD,
                str(root),
                pane,
                scenario,
                TYPED[pane],
                str(FLOOR_CAP),
            ],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=env,
            cwd=REPO,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("RESULT "):
                result: dict[str, object] = json.loads(line.removeprefix("RESULT "))
                proc.wait(timeout=60)
                return result
        proc.wait(timeout=60)
        errors.seek(0)
        raise RuntimeError(f"{pane} {scenario}: no result\n{errors.read()[-4000:]}")


def panes_bench(args: argparse.Namespace) -> None:
    import json
    import os
    import statistics
    import tempfile

    scenarios = ("ours", "floor", "floor-capped")
    with tempfile.TemporaryDirectory(prefix="memoir-bench-panes-") as scratch:
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
        root = pane_store(base, args.rows)
        run_pane(root, "history", "ours", env)  # warm the OS file cache and .pyc files
        results = {(p, s): [] for p in PANES for s in scenarios}
        for _ in range(args.runs):
            for pane in PANES:
                for scenario in scenarios:  # interleaved, so load spikes hit all alike
                    results[pane, scenario].append(run_pane(root, pane, scenario, env))
    if args.json:
        print(json.dumps({f"{p} {s}": r for (p, s), r in results.items()}, indent=2))
        return
    med = statistics.median
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, runs={args.runs}, "
        f"rows={args.rows}, typed a key at a time, load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(
        "| pane | measure | ours ms: median (min–max) | floor: bare table, every row "
        "| ×floor | strict floor: 100 rows | ×strict |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")

    def cell(values: list[float]) -> str:
        return f"{med(values):.0f} ({min(values):.0f}–{max(values):.0f})"

    for pane in PANES:
        measures = [("first visit", lambda r: r["visit_ms"])]
        if pane == "review":
            measures[0] = ("first visit (1,000 waiting)", lambda r: r["visit_ms"])
            measures.append((f"h: all {args.rows:,} rows", lambda r: r["everything_ms"]))
        word = TYPED[pane]
        measures += [
            (f"filter result, key {i + 1} `{word[: i + 1]}`", lambda r, i=i: r["result_ms"][i])
            for i in range(len(word))
        ]
        measures += [
            ("filter result, worst key", lambda r: max(r["result_ms"])),
            ("key echo, worst key", lambda r: max(r["echo_ms"])),
        ]
        for name, pick in measures:
            mine = [pick(r) for r in results[pane, "ours"]]
            floor = [pick(r) for r in results[pane, "floor"]]
            strict = [pick(r) for r in results[pane, "floor-capped"]]
            print(
                f"| {pane} | {name} | {cell(mine)} | {cell(floor)} | "
                f"{med(mine) / med(floor):.2f} | {cell(strict)} | {med(mine) / med(strict):.2f} |"
            )


if __name__ == "__main__":
    main()
