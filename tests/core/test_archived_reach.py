"""Verbs reach what a full list archived or parked (issue 21): why, hide, purge, done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memoir_tui.core.store import Store

REPO = Path(__file__).resolve().parents[2]


def _cli(store_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", "--store", str(store_dir), *args],
        capture_output=True,
        text=True,
        cwd=os.environ["HOME"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )


def test_why_and_purge_reach_an_archived_decision(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")  # memoir's caps: 10 live decisions
    store = Store(store_dir)
    store.note_decision("Keep the ledger in SQLite", why="one file", rejected="Postgres")
    for n in range(11):
        store.note_decision(f"filler decision {n}")
    current = json.loads((store_dir / "session.json").read_text())["current"]
    assert "Keep the ledger in SQLite" in [d["text"] for d in current["archived_decisions"]]
    why = _cli(store_dir, "why", "ledger")
    assert why.returncode == 0 and "Keep the ledger in SQLite" in why.stdout
    purged = _cli(store_dir, "forget", "Keep the ledger in SQLite", "--purge", "--yes")
    assert purged.returncode == 0, purged.stderr
    for path in store_dir.rglob("*"):
        if path.is_file():
            assert b"ledger in SQLite" not in path.read_bytes(), path
    assert len(Store(store_dir).working_set().all_decisions) == 11


def test_done_reaches_a_parked_action(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")  # memoir's caps: 8 live next actions
    store = Store(store_dir)
    for n in range(9):
        store.add_next_action(f"step {n}")
    assert [a.text for a in store.working_set().parked_actions] == ["step 0"]
    done = _cli(store_dir, "done", "step 0")
    assert done.returncode == 0, done.stderr
    ws = Store(store_dir).working_set()
    assert ws.parked_actions == () and "step 0" in [c.text for c in ws.completed_actions]
