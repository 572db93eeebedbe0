"""Parked and archived items are shown, counted and reachable in every pane (issue 21).

Beside today's JavaScript memoir (its footprint makes its caps 3/8/5/10 ours), what a
full list pushes past the live list is parked (next actions) or archived (goals,
questions, decisions): kept in the file, shown after the live rows with its place, and
acted on like any other row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memoir_tui.app import MemoirApp
from memoir_tui.core.format.identity import identity, text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.widgets.item_table import ItemTable
from tests.app.helpers import SIZE, make_app, on_disk, open_pane, pressing, settle


def _full_store(store_dir: Path) -> Memoir:
    (store_dir / "config.json").write_text("{}")  # the JavaScript tool shares this store
    ticks = iter(range(10_000))

    def clock() -> str:  # a second a call: every item has a date of its own
        n = next(ticks)
        return f"2026-07-01T{9 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"

    store = Memoir(store_dir, machine_label="test-machine", actor="app", clock=clock)
    for n in range(10):
        store.add_next_action(f"step {n}")
    for n in range(12):
        store.note_decision(f"choice {n}", why=f"reason {n}")
    for n in range(4):
        store.add_goal(f"goal {n}")
    return Memoir(store_dir, machine_label="test-machine", actor="app")


async def test_parked_and_archived_rows_are_shown_and_reachable(store_dir: Path) -> None:
    store = _full_store(store_dir)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        actions = app.query_one("#next-actions", ItemTable)
        assert len(actions.row_keys) == 10  # 8 live, 2 parked
        assert "(2 parked)" in str(actions.title)
        row = [str(c) for c in actions.get_row(identity("step 0"))]
        assert row[0] == "[parked] step 0"
        goals = app.query_one("#goals", ItemTable)
        assert str(goals.get_row(identity("goal 0"))[0]) == "[archived] goal 0"
        # x completes a parked action like a live one.
        actions.focus()
        assert actions.move_to_key(identity("step 0"))
        await pilot.press("x")
        await settle(pilot)
        current = on_disk(store)["current"]
        assert "step 0" not in [a["text"] for a in current["parked_actions"]]
        assert "step 0" in [t["text"] for t in current["completed_actions"]]
        pane = await open_pane(pilot, DecisionsPane)
        assert len(pane.table.row_keys) == 12
        archived = [str(c) for c in pane.table.get_row(text_hash("choice 0"))]
        assert archived[0] == "[archived] choice 0"
        status = str(app.query_one("#decisions-status").render())
        assert "2 archived" in status


async def test_l_brings_a_parked_action_back_and_parks_the_oldest_live_one(
    store_dir: Path,
) -> None:
    store = _full_store(store_dir)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        actions = app.query_one("#next-actions", ItemTable)
        actions.focus()
        assert actions.move_to_key(identity("step 2"))  # live: l refuses, nothing written
        before = on_disk(store)
        await pilot.press("l")
        await settle(pilot)
        assert on_disk(store) == before
        assert actions.move_to_key(identity("step 1"))  # parked
        await pilot.press("l")
        await settle(pilot)
        current = on_disk(store)["current"]
        assert [a["text"] for a in current["parked_actions"]] == ["step 2", "step 0"]
        assert "step 1" in [a["text"] for a in current["next_actions"]]
        assert str(actions.get_row(identity("step 1"))[0]) == "step 1"
        assert str(actions.get_row(identity("step 2"))[0]) == "[parked] step 2"


@pytest.fixture
def overflow_app(store_dir: Path) -> MemoirApp:
    return make_app(_full_store(store_dir))


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_working_set_with_parked_and_archived(
    snap_compare: Any, overflow_app: MemoirApp, size: tuple[int, int]
) -> None:
    assert snap_compare(overflow_app, terminal_size=size, run_before=pressing())


def test_decisions_with_archived(snap_compare: Any, overflow_app: MemoirApp) -> None:
    assert snap_compare(overflow_app, terminal_size=(100, 30), run_before=pressing("2", "G"))
