"""Recall benchmarks on generated corpora of 1k, 10k and 100k entries.

    .venv/bin/python bench/recall/bench_recall.py                 # 1k, 10k, 100k
    .venv/bin/python bench/recall/bench_recall.py --sizes 1000,10000 --runs 15 --json out.json

For each size, in a fresh temporary directory (deleted afterwards unless --keep):

1. generate the corpus in the host tools' layouts (``gen_corpus.py``);
2. **build**: ``memoir-tui index --rebuild`` in a fresh process — wall time, peak RSS;
3. **fresh query**: ``memoir-tui recall QUERY --json`` in a fresh process, end to end
   (interpreter start to exit), ``--runs`` times over varied queries, every project
   in scope (``--all-projects``) and scoped from a project's directory; each run is
   paired with an interpreter start (``python -c pass``) just before it, whose median
   shows how loaded the (shared) machine was;
4. **warm query**: one long-lived process (like the MCP server) holding a ``Recall``
   with its watcher, 200 queries after 10 warm-ups — and the same without watcher;
5. **edit pickup**: a file edited in place, then the time until a query returns the new
   word (watcher); a file replaced atomically (as memoir writes), then the next query's
   time without a watcher (directory check); and the cost of the next fresh process after
   an atomic replace;
6. **ripgrep** over the same files (``rg --hidden --no-ignore -i -n -e WORD …``), what a
   user would do instead, when ``rg`` is installed.

Medians (and p95) of wall-clock milliseconds; RSS in MB from ``wait4``/``getrusage``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import gen_corpus  # noqa: E402

QUERIES = (
    "database migration rollback",
    "redis cache",
    "auth token",
    "flaky test",
    "deploy canary",
    "webhook retry backoff",
    "secret vault credential",
    "incident postmortem",
    "queue worker timeout",
    "payment refund currency",
    "kubernetes ingress certificate",
    "search ranking synonym",
)


def _exe() -> list[str]:
    script = Path(sys.executable).with_name("memoir-tui")
    return [str(script)] if script.exists() else [sys.executable, "-m", "memoir_tui"]


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    home = root / "home"
    env.update(
        HOME=str(home),
        MEMOIR_HOME=str(home / ".config" / "memoir"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(root / "cache"),
    )
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    """Wall ms and stdout of one process."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
    wall = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd} failed: {proc.stderr.decode(errors='replace')[-2000:]}")
    return wall, proc.stdout


def _run_rss(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, bytes]:
    """Like ``_run`` but measures the child's own peak RSS with ``os.wait4``."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = (time.perf_counter() - start) * 1000
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        data = out.read()
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd} failed: {err.read().decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 1024, data


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": round(statistics.median(ordered), 1),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "min": round(ordered[0], 1),
        "max": round(ordered[-1], 1),
        "n": len(ordered),
    }


def bench_size(root: Path, size: int, runs: int) -> dict:
    result: dict = {"entries": size}
    t = time.perf_counter()
    counts = gen_corpus.generate(root, size)
    result["generate_s"] = round(time.perf_counter() - t, 1)
    result["layout"] = counts
    env = _env(root)
    exe = _exe()
    project = root / "src" / "p0000"

    wall, rss, out = _run_rss([*exe, "index", "--rebuild", "--json"], env, root)
    report = json.loads(out)
    result["build"] = {"s": round(wall / 1000, 2), "rss_mb": round(rss, 1), **report}
    db = Path(report["path"])
    result["index_mb"] = round(
        sum(os.path.getsize(f"{db}{s}") for s in ("", "-wal") if os.path.exists(f"{db}{s}")) / 1e6,
        1,
    )
    _run([*exe, "index"], env, root)  # a full check, so queries start from a checked index

    floor = [_run([sys.executable, "-c", "pass"], env, root)[0] for _ in range(5)]
    result["python_floor_ms"] = _summary(floor)
    for label, extra, cwd in (
        ("fresh_all_projects", ["--all-projects"], root),
        ("fresh_scoped", [], project),
    ):
        walls: list[float] = []
        floors: list[float] = []
        rsss: list[float] = []
        hits: list[int] = []
        for i in range(runs):
            query = QUERIES[i % len(QUERIES)].split()
            # a paired interpreter start right before: how loaded the machine is just now
            floors.append(_run([sys.executable, "-c", "pass"], env, cwd)[0])
            wall, rss, out = _run_rss([*exe, "recall", *query, "--json", *extra], env, cwd)
            walls.append(wall)
            rsss.append(rss)
            hits.append(len(json.loads(out)))
        result[label] = {
            **_summary(walls),
            "paired_floor_median": _summary(floors)["median"],
            "rss_mb": round(max(rsss), 1),
            "hits": hits[:5],
        }
        time.sleep(0.5)

    worker = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", str(root)],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
    )
    if worker.returncode != 0:
        raise RuntimeError(worker.stderr[-3000:])
    result.update(json.loads(worker.stdout))

    # the next fresh process after one file is atomically replaced (how memoir writes)
    target = root / "home" / ".config" / "memoir" / "memory" / "fact_entry-000000.md"
    walls = []
    for i in range(min(runs, 10)):
        word = f"zqfresh{i}word"
        tmp = target.with_suffix(".tmp")
        tmp.write_text(target.read_text() + f"\n{word}\n")
        os.replace(tmp, target)
        wall, _rss, out = _run_rss([*exe, "recall", word, "--json", "--all-projects"], env, root)
        assert json.loads(out), f"fresh process missed {word}"
        walls.append(wall)
    result["fresh_after_atomic_edit"] = _summary(walls)

    # the next fresh process after one file is edited in place (same inode, as an editor
    # that truncates and rewrites does): is the new word found, and how long does it take
    target = root / "home" / ".config" / "memoir" / "memory" / "fact_entry-000001.md"
    walls = []
    found = 0
    tries = min(runs, 10)
    # past full_check_files an earlier CLI query left a keeper (issue 27): wait until it
    # watches (at most 120 s), so every try is "the very next query after an edit"
    from memoir_tui.core.recall import keeper

    waited = time.perf_counter()
    while not keeper.alive(db) and time.perf_counter() - waited < 120:
        time.sleep(0.1)
    result["keeper_alive"] = keeper.alive(db)
    for i in range(tries):
        word = f"zqinplace{i}word"
        with open(target, "a", encoding="utf-8") as fh:  # same inode, new mtime and size
            fh.write(f"\n{word}\n")
        wall, _rss, out = _run_rss([*exe, "recall", word, "--json", "--all-projects"], env, root)
        found += bool(json.loads(out))
        walls.append(wall)
        time.sleep(0.3)  # each try starts clean
    result["fresh_after_inplace_edit"] = {**_summary(walls), "found": f"{found}/{tries}"}
    keeper_file = keeper.paths_for(db)[0]
    with contextlib.suppress(OSError, ValueError, IndexError):  # end this run's keeper
        os.kill(int(keeper_file.read_text().split()[0]), 15)

    rg = shutil.which("rg")
    if rg:
        walls = []
        for i in range(runs):
            words = QUERIES[i % len(QUERIES)].split()
            cmd = [rg, "--hidden", "--no-ignore", "-i", "-n"]
            for w in words:
                cmd += ["-e", w]
            cmd += [str(root / "home"), str(root / "src")]
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True)
            walls.append((time.perf_counter() - start) * 1000)
            lines = proc.stdout.count(b"\n")
        result["ripgrep"] = {**_summary(walls), "lines_last_query": lines}
    return result


def worker(root: Path) -> int:
    """The long-lived process: warm queries and edit pickup; prints JSON."""
    from memoir_tui.core.recall import Recall

    recall = Recall(None)
    out: dict = {}
    watching = recall.watch()
    out["watcher"] = watching
    for q in QUERIES[:10]:
        recall.search(q, all_projects=True)
    walls = []
    for i in range(200):
        start = time.perf_counter()
        recall.search(QUERIES[i % len(QUERIES)], all_projects=True)
        walls.append((time.perf_counter() - start) * 1000)
    out["warm_watcher"] = _summary(walls)

    # in-place edit → time until a query returns the new word (watcher)
    target = root / "home" / ".config" / "memoir" / "memory" / "fact_entry-000006.md"
    original = target.read_text()
    pickup = []
    for i in range(20):
        word = f"zqpick{i}word"
        with open(target, "w", encoding="utf-8") as fh:  # in place: same inode
            fh.write(original + f"\n{word}\n")
        start = time.perf_counter()
        while not recall.search(word, all_projects=True):
            if time.perf_counter() - start > 5:
                raise RuntimeError("edit never picked up")
        pickup.append((time.perf_counter() - start) * 1000)
    out["pickup_inplace_watcher"] = _summary(pickup)

    recall.stop_watching()
    walls = []
    for i in range(100):
        start = time.perf_counter()
        recall.search(QUERIES[i % len(QUERIES)], all_projects=True)
        walls.append((time.perf_counter() - start) * 1000)
    out["warm_no_watcher"] = _summary(walls)

    # atomic replace → the next query (no watcher: directory check) finds it
    pickup = []
    for i in range(20):
        word = f"zqatomic{i}word"
        tmp = target.with_suffix(".tmp")
        tmp.write_text(original + f"\n{word}\n")
        os.replace(tmp, target)
        start = time.perf_counter()
        hits = recall.search(word, all_projects=True)
        pickup.append((time.perf_counter() - start) * 1000)
        if not hits:
            raise RuntimeError("atomic replace not picked up by the directory check")
    out["pickup_atomic_no_watcher"] = _summary(pickup)
    target.write_text(original)
    out["worker_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    recall.close()
    print(json.dumps(out))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", type=Path, help="also write the raw results here")
    parser.add_argument("--keep", action="store_true", help="keep the generated corpora")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker)
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        root = Path(tempfile.mkdtemp(prefix=f"memoir-recall-bench-{size}-"))
        try:
            res = bench_size(root, size, args.runs)
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
        results.append(res)
        print(json.dumps(res), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
