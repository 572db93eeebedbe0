"""Verbs reach what a full list archived or parked (issue 21): why, hide, purge, done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

REPO = Path(__file__).resolve().parents[2]


def _cli(store_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", "--store", str(store_dir), *args],
        capture_output=True,
        text=True,
        cwd=os.environ["HOME"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=SAFETY_NET,
    )


def test_why_and_purge_reach_an_archived_decision(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")  # memoir's caps: 10 live decisions
    store = Memoir(store_dir)
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
    assert len(Memoir(store_dir).working_set().all_decisions) == 11


def test_done_reaches_a_parked_action(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")  # memoir's caps: 8 live next actions
    store = Memoir(store_dir)
    for n in range(9):
        store.add_next_action(f"step {n}")
    assert [a.text for a in store.working_set().parked_actions] == ["step 0"]
    done = _cli(store_dir, "done", "step 0")
    assert done.returncode == 0, done.stderr
    ws = Memoir(store_dir).working_set()
    assert ws.parked_actions == () and "step 0" in [c.text for c in ws.completed_actions]


def test_unpark_brings_a_parked_action_back_and_parks_the_oldest(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")  # memoir's caps: 8 live next actions
    store = Memoir(store_dir)
    for n in range(9):
        store.add_next_action(f"step {n}")
    out = _cli(store_dir, "unpark", "step 0")
    assert out.returncode == 0, out.stderr
    ws = Memoir(store_dir).working_set()
    assert "step 0" in [a.text for a in ws.next_actions]
    # the list stays at its cap: another action is parked instead, nothing is dropped
    assert len(ws.next_actions) == 8 and len(ws.parked_actions) == 1
    assert len(ws.all_next_actions) == 9
    assert _cli(store_dir, "unpark", "no such step").returncode == 1


def test_adding_the_words_of_a_parked_action_brings_it_back_as_memoir_does(
    store_dir: Path,
) -> None:
    """memoir's addNext: the same words only parked come back to the live list (the
    parked copy goes); the same words live change nothing."""
    (store_dir / "config.json").write_text("{}")  # memoir's caps: 8 live next actions
    store = Memoir(store_dir)
    for n in range(9):
        store.add_next_action(f"step {n}")
    outcome = store.add_next_action("Step 0")
    assert outcome.changed and "back on the live list" in outcome.message
    assert outcome.undo is None  # undoing would remove it, not park it again
    ws = Memoir(store_dir).working_set()
    assert "Step 0" in [a.text for a in ws.next_actions]
    assert [a.text for a in ws.parked_actions] == ["step 1"]
    assert len(ws.all_next_actions) == 9
    assert not store.add_next_action("step 5").changed


def test_bad_shapes_are_kept_aside_and_read(store_dir: Path) -> None:
    """A list of the wrong type is copied aside with a sentence; a malformed project id
    matches no project (but every-project views show it); a parked item without
    parked_at and an archive that repeats a live item are read as memoir reads them."""
    state = {
        "version": 1,
        "current": {
            "goals": [{"text": "g", "set_on": "2026-01-01T00:00:00.000Z", "project": "???"}],
            "parked_actions": [{"text": "p", "added": "2026-01-01T00:00:00.000Z"}],
            "decisions": [{"text": "d", "date": "2026-01-02T00:00:00.000Z"}],
            "archived_decisions": [{"text": "D", "date": "2026-01-01T00:00:00.000Z"}],
            "archived_questions": {"not": "a list"},
        },
    }
    (store_dir / "session.json").write_text(json.dumps(state))
    store = Memoir(store_dir, project="local:" + "c" * 32)
    loaded = store.load()
    assert loaded.notice and "archived_questions is not a list" in loaded.notice
    assert list(store_dir.glob("session.json.misshapen-*"))
    ws = store.working_set()
    assert ws.goals == ()  # another (malformed) project's: not here
    assert [g.text for g in store.working_set(all_projects=True).goals] == ["g"]
    assert [a.text for a in ws.parked_actions] == ["p"]
    store.add_next_action("a write")
    current = json.loads((store_dir / "session.json").read_text())["current"]
    # the archive's copy of a live decision is one decision after the next write
    assert [d["text"] for d in current["decisions"] + current["archived_decisions"]] == ["d"]
