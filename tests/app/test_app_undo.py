"""Every act of the Working set and Decisions panes, then ``u``: the file on disk each time.

Each test reads ``session.json`` as the JavaScript tool would (the file, not the
app's state) after the act and after the undo.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input

from memoir_tui.core.format.identity import identity, text_hash
from memoir_tui.core.rules.model import working_set
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen
from memoir_tui.dialogs.forms import AddItemScreen, EditDecisionScreen
from memoir_tui.dialogs.items import CloseQuestionScreen, ItemDetailScreen, RewordScreen
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.widgets.item_table import ItemTable
from tests.app.helpers import (
    SIZE,
    eventually,
    make_app,
    messages,
    on_disk,
    open_pane,
    settle,
    type_text,
)

GOAL = "Ship offline-first sync for the Tideline web app"
QUESTION = "Should offline edits merge per field or per record when both sides changed?"
ACTION = "Write the Alembic migration that adds updated_at to entries"
DECISION = "Ship the CLI through pipx, not as a PyInstaller binary"


def live(store: Memoir) -> dict[str, list[str]]:
    """What each list shows, read from the file on disk."""
    ws = working_set(on_disk(store), all_projects=True)
    return {
        "goals": [g.text for g in ws.goals],
        "next_actions": [a.text for a in ws.next_actions],
        "open_questions": [q.text for q in ws.open_questions],
        "completed": [c.text for c in ws.completed_actions],
        "decisions": [f"{d.text} | {d.why} | {d.rejected}" for d in ws.decisions],
    }


async def focus_row(pilot: Pilot[Any], table_id: str, text: str) -> None:
    table = pilot.app.query_one(f"#{table_id}", ItemTable)
    table.focus()
    # What left a list is keyed by the list it left (an action and a goal may share a text).
    key = f"next_actions:{identity(text)}" if table_id == "completed" else identity(text)
    assert table.move_to_key(key), text
    await pilot.pause()


async def undo(pilot: Pilot[Any]) -> None:
    await pilot.press("u")
    await settle(pilot)


async def test_remove_a_goal_then_undo(demo_store: Memoir) -> None:
    before = live(demo_store)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "goals", GOAL)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert GOAL not in live(demo_store)["goals"]
        removed = on_disk(demo_store)["current"]["completed_goals"]
        assert [(g["text"], g["reason"]) for g in removed] == [(GOAL, "removed")]
        await undo(pilot)
    assert sorted(live(demo_store)["goals"]) == sorted(before["goals"])


async def test_complete_an_action_then_undo(demo_store: Memoir) -> None:
    before = live(demo_store)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "next-actions", ACTION)
        await pilot.press("x")
        await settle(pilot)
        assert ACTION not in live(demo_store)["next_actions"]
        assert ACTION in live(demo_store)["completed"]
        assert any("u undoes it" in m for m in messages(app))
        await undo(pilot)
    after = live(demo_store)
    assert sorted(after["next_actions"]) == sorted(before["next_actions"])
    assert after["completed"] == before["completed"]


async def test_u_typed_while_an_act_is_saved_takes_back_that_act(
    demo_store: Memoir, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys typed fast: ``u`` right after confirming a removal, while its write is still in
    flight, takes back the removal once it is saved, never the act before it."""
    saving = threading.Event()
    release = threading.Event()
    real = Memoir.remove_item

    def held(self: Memoir, list_key: str, text: str) -> Any:
        saving.set()
        assert release.wait(timeout=60), "the removal was never released"
        return real(self, list_key, text)

    monkeypatch.setattr(Memoir, "remove_item", held)
    app = make_app(demo_store)
    try:
        await u_during_a_removal(app, saving, release)
    finally:
        release.set()  # a failing assertion never leaves the write thread waiting
    after = live(demo_store)
    assert GOAL in after["goals"]  # the removal was undone …
    assert ACTION in after["completed"] and ACTION not in after["next_actions"]  # … only it


async def u_during_a_removal(app: Any, saving: threading.Event, release: threading.Event) -> None:
    demo_store = app.store
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "next-actions", ACTION)
        await pilot.press("x")
        await settle(pilot)
        assert ACTION in live(demo_store)["completed"]
        await focus_row(pilot, "goals", GOAL)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await eventually(pilot, saving.is_set, "the removal's write to start")
        await pilot.press("u")  # the removal is not on the undo stack yet
        await pilot.pause()
        assert ACTION in live(demo_store)["completed"]  # nothing older was taken back
        release.set()
        await settle(pilot)


async def test_keys_typed_after_a_waiting_u_wait_behind_it(
    demo_store: Memoir, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``d y u x`` in one burst while the removal is saved: ``u`` takes back the removal and
    ``x`` completes the action after it (it ran first, and ``u`` took back the ``x``)."""
    saving = threading.Event()
    release = threading.Event()
    real = Memoir.remove_item

    def held(self: Memoir, list_key: str, text: str) -> Any:
        saving.set()
        assert release.wait(timeout=60), "the removal was never released"
        return real(self, list_key, text)

    monkeypatch.setattr(Memoir, "remove_item", held)
    app = make_app(demo_store)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await focus_row(pilot, "goals", GOAL)
            await pilot.press("d")
            await settle(pilot)
            await pilot.press("y")
            await eventually(pilot, saving.is_set, "the removal's write to start")
            await focus_row(pilot, "next-actions", ACTION)
            await pilot.press("u", "x")
            await pilot.pause()
            assert ACTION in live(demo_store)["next_actions"]  # x waits behind u
            release.set()
            await settle(pilot)
    finally:
        release.set()
    after = live(demo_store)
    assert GOAL in after["goals"]  # the removal was undone …
    assert ACTION in after["completed"] and ACTION not in after["next_actions"]  # … then x


async def test_reopen_a_completed_action_then_undo(demo_store: Memoir) -> None:
    done = live(demo_store)["completed"][0]
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "completed", done)
        await pilot.press("x")
        await settle(pilot)
        assert done in live(demo_store)["next_actions"]
        await undo(pilot)
    assert done not in live(demo_store)["next_actions"]


async def test_reword_an_action_then_undo(demo_store: Memoir) -> None:
    before = live(demo_store)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "next-actions", ACTION)
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, RewordScreen)
        app.screen.query_one("#text", Input).value = "Write the Alembic migration for updated_at"
        await pilot.press("enter")
        await settle(pilot)
        actions = live(demo_store)["next_actions"]
        assert "Write the Alembic migration for updated_at" in actions and ACTION not in actions
        # The new wording says what it replaced.
        await focus_row(pilot, "next-actions", "Write the Alembic migration for updated_at")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ItemDetailScreen)
        assert app.screen.item.reworded_from == text_hash(ACTION)
        await pilot.press("escape")
        await undo(pilot)
    assert sorted(live(demo_store)["next_actions"]) == sorted(before["next_actions"])


async def test_close_a_question_with_its_answer_as_a_decision_then_undo(
    demo_store: Memoir,
) -> None:
    before = live(demo_store)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "questions", QUESTION)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, CloseQuestionScreen)
        await type_text(pilot, "Per field, last writer wins")
        app.screen.query_one("#as-decision", Checkbox).value = True
        await pilot.press("enter")
        await settle(pilot)
        now = live(demo_store)
        assert QUESTION not in now["open_questions"]
        assert any(d.startswith("Per field, last writer wins") for d in now["decisions"])
        closed = on_disk(demo_store)["current"]["closed_questions"]
        assert closed[0]["answer"] == "Per field, last writer wins"
        await undo(pilot)
    after = live(demo_store)
    assert sorted(after["open_questions"]) == sorted(before["open_questions"])
    assert after["decisions"] == before["decisions"]


async def test_add_to_a_full_list_names_what_it_pushes_out_first(demo_store: Memoir) -> None:
    config = demo_store.config
    demo_store.config = replace(
        config, caps=replace(config.caps, goals=len(live(demo_store)["goals"]))
    )
    oldest = live(demo_store)["goals"][-1]
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await focus_row(pilot, "goals", GOAL)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AddItemScreen)
        await type_text(pilot, "Cut the 2.0 release branch")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, AddItemScreen)  # asked first, nothing written
        assert oldest in str(app.screen.query_one("#dialog-error").render())
        assert "Cut the 2.0 release branch" not in live(demo_store)["goals"]
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, AddItemScreen)
        goals = live(demo_store)["goals"]
        assert "Cut the 2.0 release branch" in goals and oldest not in goals
        # What the full list pushed past the live list is archived: kept and shown.
        archived = on_disk(demo_store)["current"]["archived_goals"]
        assert [g["text"] for g in archived] == [oldest]
        goals_table = app.query_one("#goals", ItemTable)
        row = [str(c) for c in goals_table.get_row(identity(oldest))]
        assert row[0] == f"[archived] {oldest}"


async def test_edit_a_decision_why_in_place_then_undo(demo_store: Memoir) -> None:
    before = live(demo_store)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        assert pane.table.move_to_key(text_hash(DECISION))
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, EditDecisionScreen)
        app.screen.query_one("#why", Input).value = "One command, isolated environments"
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = next(d for d in live(demo_store)["decisions"] if d.startswith(DECISION + " |"))
        assert "One command, isolated environments" in saved
        await undo(pilot)
    # The same decisions, word for word (the undone edit is dated now, so it sorts first).
    assert sorted(live(demo_store)["decisions"]) == sorted(before["decisions"])


async def test_rewording_a_decision_warns_before_hiding_the_old_text(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        assert pane.table.move_to_key(text_hash(DECISION))
        await pilot.press("e")
        await settle(pilot)
        app.screen.query_one("#text", Input).value = "Ship the CLI through uv tool"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, EditDecisionScreen)
        assert "cannot be undone" in str(app.screen.query_one("#dialog-error").render())
        assert demo_store.session_path.read_bytes() == before  # nothing yet
        await pilot.press("escape")
        await settle(pilot)
    assert demo_store.session_path.read_bytes() == before


async def test_u_with_nothing_done_says_so(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await undo(pilot)
        assert any("Nothing to undo" in m for m in messages(app))
    assert demo_store.session_path.read_bytes() == before


async def test_the_cursor_goes_to_what_was_just_added(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, "Tag the 1.0 release")
        await pilot.press("enter")
        await settle(pilot)
        table = app.query_one("#next-actions", ItemTable)
        assert app.focused is table and table.cursor_key == identity("Tag the 1.0 release")
        await pilot.press("x")  # acts on it, not on the row the cursor was on before
        await settle(pilot)
    assert "Tag the 1.0 release" in live(demo_store)["completed"]
