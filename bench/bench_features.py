"""The core of the list features at 10,000 decisions: sort, one search, export.

    .venv/bin/python bench/bench_features.py [--rows 10000] [--rounds 5]

Best wall time of ``--rounds`` (CPU-bound, single-threaded): sorting by text and by
date (``core/listing.py``, run on every redraw of a sorted Decisions list), building the
search index once per dialog and each search after it (``core/search.py``, off the UI
thread), and rendering an export with its secret scan (``core/export.py``).
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

from memoir_tui.core.export import decision_table, render  # noqa: E402
from memoir_tui.core.listing import sort_decisions  # noqa: E402
from memoir_tui.core.model import Decision  # noqa: E402
from memoir_tui.core.search import build_index, search_index  # noqa: E402

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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
