"""Wall time of ``memoir-tui hook session-start`` against a bare Python start, and the brief's size.

    .venv/bin/python bench/bench_hook.py [--runs 15] [--json]

* wall time: spawn → exit of ``python -m memoir_tui hook session-start --host
  claude`` with a realistic event on stdin, as a host runs it, against
  ``python -c pass`` (the floor: what any Python hook costs). Runs alternate so
  drift hits both alike. On the demo store and on a 1,000-item store.
* size: the brief's characters (and what it left out) on both stores, against
  the default budget (2,000) and Claude Code's ~10,000-character cut.

Everything runs on scratch directories (HOME and MEMOIR_HOME in a temp dir).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _big_store(store: Path) -> None:
    now = "2026-12-01T10:00:00.000Z"
    items = lambda key, n, date: [  # noqa: E731
        {"text": f"{key} {i}: " + "a sentence of ordinary length " * 3, date: now} for i in range(n)
    ]
    state = {
        "version": 1,
        "current": {
            "goals": items("goal", 5, "set_on"),
            "next_actions": items("next action", 300, "added"),
            "open_questions": items("question", 195, "asked"),
            "decisions": [
                {**d, "why": "because of a reason " * 4, "rejected": "the other way"}
                for d in items("decision", 500, "date")
            ],
        },
    }
    store.mkdir(parents=True, exist_ok=True)
    (store / "session.json").write_text(json.dumps(state))
    # caps large enough that all 1,000 items stay live
    (store / "memoir-tui.toml").write_text(
        "[caps]\ngoals = 5\nnext_actions = 300\nopen_questions = 200\ndecisions = 500\n"
    )


CPU: list[float] = []  # the child's user+system CPU of the last _time call, in ms


def _time(argv: list[str], env: dict[str, str], stdin: str, cwd: Path) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr}")
    return elapsed, done.stdout


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(statistics.median(ordered), 1),
        "p95": round(ordered[max(0, round(0.95 * len(ordered)) - 1)], 1),
        "min": round(ordered[0], 1),
        "max": round(ordered[-1], 1),
        "n": len(ordered),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, object] = {
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "load": os.getloadavg()[0],
    }
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        home = scratch / "home"
        project = home / "code" / "app"
        project.mkdir(parents=True)
        stores = {"demo": scratch / "demo", "1000 items": scratch / "big"}
        shutil.copytree(REPO / "memoir_tui" / "demo", stores["demo"])
        _big_store(stores["1000 items"])
        event = json.dumps(
            {
                "session_id": "bench",
                "transcript_path": "",
                "cwd": "CWD",
                "hook_event_name": "SessionStart",
                "source": "startup",
            }
        )
        floor: list[float] = []
        floor_cpu: list[float] = []
        for name, store in stores.items():
            env = {
                "HOME": str(home),
                "MEMOIR_HOME": str(store),
                "PATH": os.environ.get("PATH", ""),
                "PYTHONPATH": str(REPO),
            }
            # the demo's items belong to its own projects: brief it from outside any
            cwd = home if name == "demo" else project
            stdin = event.replace("CWD", str(cwd))
            hook = [sys.executable, "-m", "memoir_tui", "hook", "session-start", "--host", "claude"]
            # the lean path (what hosts run) and, in the same run, the full path it replaced
            runs: dict[str, tuple[list[float], list[float]]] = {"lean": ([], []), "full": ([], [])}
            outs: dict[str, str] = {}
            for _ in range(args.runs):
                ms, _ = _time([sys.executable, "-c", "pass"], env, "", project)
                floor.append(ms)
                floor_cpu.append(CPU[-1])
                for path, extra in (("lean", {}), ("full", {"MEMOIR_TUI_HOOK_FULL": "1"})):
                    ms, outs[path] = _time(hook, {**env, **extra}, stdin, cwd)
                    runs[path][0].append(ms)
                    runs[path][1].append(CPU[-1])
            assert outs["lean"] == outs["full"], "the two paths must print the same brief"
            out = outs["lean"]
            brief = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
            left = next((line for line in brief.splitlines() if line.startswith("Left out")), "")
            for path, (wall, cpu) in runs.items():
                results[f"{name}, {path} path"] = {
                    "wall_ms": _summary(wall),
                    "cpu_ms": _summary(cpu),
                    "brief_chars": len(brief),
                    "left_out": left,
                }
        results["floor: python -c pass"] = {
            "wall_ms": _summary(floor),
            "cpu_ms": _summary(floor_cpu),
        }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    floor_row = results["floor: python -c pass"]
    floor_wall = floor_row["wall_ms"]["median"]  # type: ignore[index]
    floor_cpu_ms = floor_row["cpu_ms"]["median"]  # type: ignore[index]
    print(f"Python {results['python']}, {results['machine']}, load {results['load']:.2f}")
    print(
        "| run | wall median ms | × floor | CPU median ms | CPU × floor | CPU over floor ms "
        "| brief chars |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    names = [k for k in results if k.endswith(" path")] + ["floor: python -c pass"]
    for name in names:
        row = results[name]
        wall, cpu = row["wall_ms"], row["cpu_ms"]  # type: ignore[index]
        chars = row.get("brief_chars", "")  # type: ignore[union-attr]
        print(
            f"| {name} | {wall['median']} | {wall['median'] / floor_wall:.1f} | {cpu['median']} "
            f"| {cpu['median'] / floor_cpu_ms:.1f} | {cpu['median'] - floor_cpu_ms:+.0f} "
            f"| {chars} |"
        )
    for name in names[:-1]:
        left = results[name].get("left_out")  # type: ignore[union-attr]
        if left:
            print(f"{name}: {left}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
