"""Undo: every act a person can take back is taken back through the same door.

A view of what is live (texts, why, rejected of every list) is compared before the
acts and after as many undos; tombstones and stamps may differ (the format needs
them so that no replica brings back what was removed).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.base.errors import ForgottenDecisionError, MemoirError
from memoir_tui.core.door.audit import read_audit
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.format.items import Outcome
from memoir_tui.core.format.merge import merge_sessions
from memoir_tui.core.workflows.memoir import Memoir
from tests.conftest import TickingClock


def live(store: Memoir) -> dict[str, Any]:
    ws = store.working_set(all_projects=True)
    return {
        "goals": sorted(i.text for i in ws.goals),
        "next_actions": sorted(i.text for i in ws.next_actions),
        "open_questions": sorted(i.text for i in ws.open_questions),
        "decisions": sorted((d.text, d.why, d.rejected) for d in ws.decisions),
    }


def seeded(root: Path) -> Memoir:
    store = Memoir(root, clock=TickingClock(), machine_label="test-machine")
    store.add_goal("Ship the importer")
    store.add_next_action("Write the migration")
    store.add_next_action("Benchmark the parser")
    store.ask_question("Who owns the release?")
    store.note_decision("Use SQLite for the cache", why="local first", rejected="Redis")
    return store


ACTS = {
    "add goal": lambda s: s.add_goal("Onboard two customers"),
    "add action": lambda s: s.add_next_action("Tag the release"),
    "ask": lambda s: s.ask_question("Is the API frozen?"),
    "complete": lambda s: s.complete_next_action("migration"),
    "remove goal": lambda s: s.remove_item("goals", "importer"),
    "remove action": lambda s: s.remove_item("next_actions", "parser"),
    "close question": lambda s: s.close_question("release"),
    "close as decision": lambda s: s.close_question(
        "release", answer="Priya owns the release", as_decision=True
    ),
    "reword goal": lambda s: s.reword_item("goals", "importer", "Ship the CSV importer"),
    "respell goal": lambda s: s.reword_item("goals", "importer", "SHIP THE IMPORTER"),
    "note": lambda s: s.note_decision("Ship on Tuesdays", why="quiet day"),
    "re-note": lambda s: s.note_decision("Use SQLite for the cache", why="one file"),
    "edit why": lambda s: s.edit_decision(text_hash("Use SQLite for the cache"), why="simpler"),
    "edit rejected": lambda s: s.edit_decision(text_hash("Use SQLite for the cache"), rejected=""),
    "retract": lambda s: s.retract_decision(text_hash("Use SQLite for the cache")),
}


@pytest.mark.parametrize("act", sorted(ACTS))
def test_each_act_is_undone(act: str, tmp_path: Path) -> None:
    store = seeded(tmp_path / "store")
    before = live(store)
    outcome: Outcome = ACTS[act](store)
    assert outcome.changed and outcome.undo is not None, outcome
    assert live(store) != before
    undone = store.undo(outcome.undo)
    assert undone.changed, undone.message
    assert live(store) == before
    ops = [r.operation for r in read_audit(store.root, limit=3)]
    assert "undo" in ops  # the inverse is recorded, like any change


def test_acts_that_cannot_be_undone_say_so(tmp_path: Path) -> None:
    store = seeded(tmp_path / "store")
    key = text_hash("Use SQLite for the cache")
    assert store.hide_decision(key).undo is None
    store = seeded(tmp_path / "other")
    reworded = store.edit_decision(key, text="Use DuckDB for the cache")
    assert reworded.undo is None and "cannot be undone" in reworded.message
    assert store.purge_decision(text_hash("Use DuckDB for the cache")).undo is None


def test_a_full_list_archives_what_it_pushes_out_and_undo_brings_it_back(tmp_path: Path) -> None:
    store = seeded(tmp_path / "store")
    (tmp_path / "store" / "memoir-tui.toml").write_text("[caps]\ngoals = 1\n")
    store = Memoir(tmp_path / "store", clock=TickingClock(2_000_000_000_000))
    assert store.would_rotate("goals") == ("Ship the importer",)
    outcome = store.add_goal("A second goal")
    assert outcome.rotated == ("Ship the importer",)
    ws = store.working_set()
    assert [g.text for g in ws.goals] == ["A second goal"]
    assert [g.text for g in ws.archived_goals] == ["Ship the importer"]
    assert ws.completed_goals == ()
    store.undo(outcome.undo)
    assert [g.text for g in store.working_set().goals] == ["Ship the importer"]


def test_a_reopened_action_survives_a_merge_with_a_stale_replica(tmp_path: Path) -> None:
    store = seeded(tmp_path / "store")
    stale = json.loads(store.session_path.read_text())
    outcome = store.complete_next_action("migration")
    store.undo(outcome.undo)
    mine = json.loads(store.session_path.read_text())
    for merged in (merge_sessions(mine, stale), merge_sessions(stale, mine)):
        texts = [a["text"] for a in merged["current"]["next_actions"]]
        assert "Write the migration" in texts  # the revival is later than its tombstone
    # And a removed goal stays removed against the stale copy.
    store.remove_item("goals", "importer")
    mine = json.loads(store.session_path.read_text())
    assert merge_sessions(stale, mine)["current"]["goals"] == []


def test_a_retracted_decision_stays_out_of_a_merge_but_may_be_noted_again(tmp_path: Path) -> None:
    store = seeded(tmp_path / "store")
    stale = json.loads(store.session_path.read_text())
    store.retract_decision(text_hash("Use SQLite for the cache"))
    mine = json.loads(store.session_path.read_text())
    assert merge_sessions(stale, mine)["current"]["decisions"] == []
    store.note_decision("Use SQLite for the cache", why="again")  # not forgotten: allowed
    assert [d.why for d in store.working_set().decisions] == ["again"]


def test_undo_of_an_undo_refused_on_a_forgotten_decision(tmp_path: Path) -> None:
    store = seeded(tmp_path / "store")
    outcome = store.edit_decision(text_hash("Use SQLite for the cache"), why="simpler")
    store.hide_decision(text_hash("Use SQLite for the cache"))
    with pytest.raises(ForgottenDecisionError):
        store.undo(outcome.undo)


ACT_NAMES = sorted(ACTS)


@given(st.lists(st.sampled_from(ACT_NAMES), max_size=8))
def test_any_acts_then_as_many_undos_leave_what_is_live_as_it_was(acts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = seeded(Path(tmp) / "store")
        before = live(store)
        undos = []
        for act in acts:
            try:
                outcome = ACTS[act](store)
            except MemoirError:
                continue  # this act does not apply any more (e.g. already completed)
            if outcome.changed and outcome.undo is not None:
                undos.append(outcome.undo)
        for undo in reversed(undos):
            store.undo(undo)
        assert live(store) == before
