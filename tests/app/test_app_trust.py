"""What the app can be trusted with (issue 23): undo that never reaches back past an act
it cannot take back, focus that stays in the pane, keys read as typed, and a read-only or
damaged store that shows what it holds, never "empty".

The real-terminal versions of the key and undo stories are in ``test_tmux_trust.py``;
these run under Pilot, read the file on disk after each act, and need no tmux.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, Select

from memoir_tui.app import MemoirApp
from memoir_tui.core.format.identity import identity, text_hash
from memoir_tui.core.rules.model import working_set
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen
from memoir_tui.dialogs.forms import GLOBAL, KEEP, EditDecisionScreen
from memoir_tui.dialogs.items import RewordScreen
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.entries import EntriesPane
from memoir_tui.panes.working_set import WorkingSetPane
from memoir_tui.widgets.item_table import ItemTable
from tests.app.helpers import SIZE, make_app, on_disk, open_pane, pressing, settle, type_text
from tests.app.world import AppWorld
from tests.conftest import JulyClock

NOTE = "Ship the CLI through pipx"


def hidden_texts(store: Memoir) -> set[str]:
    return {
        d["text"] for d in on_disk(store)["current"]["decisions"] if d.get("hidden") and "text" in d
    }


def live_decisions(store: Memoir) -> set[str]:
    return {d.text for d in working_set(on_disk(store), all_projects=True).all_decisions}


# --- undo -------------------------------------------------------------------------------


async def test_u_after_a_hide_stops_there_and_keeps_the_note(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, NOTE)
        await pilot.press("ctrl+s", "ctrl+s")  # the second: "no why given" is asked once
        await settle(pilot)
        assert NOTE in live_decisions(demo_store)
        pane.table.focus()
        victim = next(k for k in pane.table.row_keys if k != text_hash(NOTE))
        assert pane.table.move_to_key(victim)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        hidden_after_hide = hidden_texts(demo_store)
        before_u = on_disk(demo_store)
        await pilot.press("u")
        await settle(pilot)
        # Nothing changed on disk: neither the hide (it cannot be undone) nor the note
        # (it is older than the hide, and u never reaches past the last act).
        assert on_disk(demo_store) == before_u
        assert NOTE in live_decisions(demo_store)
        assert hidden_texts(demo_store) == hidden_after_hide
        # And a second u does not reach back either.
        await pilot.press("u")
        await settle(pilot)
        assert on_disk(demo_store) == before_u


async def test_an_undoable_act_after_an_irreversible_one_is_undone(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("d", "y")
        await settle(pilot)
        assert hidden_texts(demo_store)
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, NOTE)
        await pilot.press("ctrl+s", "ctrl+s")
        await settle(pilot)
        assert NOTE in live_decisions(demo_store)
        pane.table.focus()
        await pilot.press("u")
        await settle(pilot)
        assert NOTE not in live_decisions(demo_store)  # the last act, taken back


# --- focus ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["tab", "shift+tab"])
async def test_tab_and_shift_tab_go_round_the_pane_and_never_leave_it(
    demo_store: Memoir, key: str
) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.query_one(WorkingSetPane)
        lists = [t.id for t in pane.query(ItemTable)]
        seen = []
        for _ in range(2 * len(lists) + 1):
            await pilot.press(key)
            await settle(pilot)
            focused = app.focused
            assert focused is not None and pane in focused.ancestors, focused
            seen.append(focused.id)
        assert set(seen) == set(lists)  # every list, round and round


async def test_tab_brings_a_stray_focus_back_into_the_pane(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.set_focus(None)
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is not None
        assert app.query_one(WorkingSetPane) in app.focused.ancestors


# --- keys -------------------------------------------------------------------------------


async def test_option_character_in_a_list_is_escape_then_the_digit(demo_store: Memoir) -> None:
    """Textual reads escape and 1 arriving together as "¡" (WezTerm's Option+1)."""
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        app.post_message(events.Key("inverted_exclamation_mark", "¡"))
        await settle(pilot)
        assert app.query_one("#panes").active == "working-set"


async def test_option_character_typed_in_a_text_box_stays_a_character(
    demo_store: Memoir,
) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        app.post_message(events.Key("inverted_exclamation_mark", "¡"))
        await settle(pilot)
        assert app.screen.query_one("#text", Input).value == "¡"


# --- a store this version may not write ----------------------------------------------


def make_newer(store: Memoir) -> bytes:
    """The store's session as a newer memoir would write it: version 99."""
    state = json.loads(store.session_path.read_text(encoding="utf-8"))
    state["version"] = 99
    state["future_field"] = {"what": "this version does not know"}
    store.session_path.write_text(json.dumps(state), encoding="utf-8")
    return store.session_path.read_bytes()


async def test_a_newer_store_lists_what_it_holds_read_only(demo_store: Memoir) -> None:
    expected = live_decisions(demo_store)
    assert expected
    before = make_newer(demo_store)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "-empty" not in app.query_one(WorkingSetPane).classes  # no "store is empty"
        pane = await open_pane(pilot, DecisionsPane)
        assert set(pane.table.row_keys) == {text_hash(t) for t in expected}
        # Every change is refused and said; the file is untouched.
        await pilot.press("d", "y")
        await settle(pilot)
    assert demo_store.session_path.read_bytes() == before


async def test_a_damaged_store_does_not_say_it_is_empty(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "session.json").write_text('{"version": 1, "current": {"decisions": [', "utf-8")
    app = MemoirApp(Memoir(root, machine_label="laptop"), poll_interval=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "-empty" not in app.query_one(WorkingSetPane).classes


@pytest.fixture
def newer_store(demo_store: Memoir, monkeypatch: pytest.MonkeyPatch) -> Memoir:
    import memoir_tui.core.format.session as session

    monkeypatch.setattr(session, "_now_ms", lambda: 1785542400000)  # the copy's name
    monkeypatch.setenv("HOME", str(demo_store.root.parent))  # the banner says ~/store/…
    make_newer(demo_store)
    return demo_store


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_newer_store_decisions_snapshot(
    snap_compare: Any, newer_store: Memoir, size: tuple[int, int]
) -> None:
    assert snap_compare(make_app(newer_store), terminal_size=size, run_before=pressing("2"))


# --- items keep their project -----------------------------------------------------------

PROJECT = "local:" + "a" * 32
GLOBAL_ACTION = "Rotate the signing keys"
GLOBAL_QUESTION = "Should offline edits merge per field?"
NEXT_HERE = "Write the Alembic migration"


def project_store(tmp_path: Path) -> Memoir:
    """A store opened inside a project, holding a global next action (completed) and a
    global question, both written outside any project."""
    root = tmp_path / "store"
    outside = Memoir(root, actor="cli", clock=JulyClock())
    outside.add_next_action(GLOBAL_ACTION)
    outside.complete_next_action(GLOBAL_ACTION)
    outside.ask_question(GLOBAL_QUESTION)
    return Memoir(root, actor="app", clock=JulyClock(), project=PROJECT, project_label="alpha")


def on_list(store: Memoir, list_key: str, text: str) -> dict[str, Any]:
    items = on_disk(store)["current"][list_key]
    return next(i for i in items if i.get("text") == text)


async def test_reopening_a_global_completion_inside_a_project_keeps_it_global(
    tmp_path: Path,
) -> None:
    store = project_store(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("A")  # every project: the global completion is listed
        await settle(pilot)
        table = app.query_one("#completed", ItemTable)
        table.focus()
        assert table.move_to_key(f"next_actions:{identity(GLOBAL_ACTION)}")
        await pilot.press("x")
        await settle(pilot)
    assert "project" not in on_list(store, "next_actions", GLOBAL_ACTION)


async def test_a_global_question_edited_inside_a_project_stays_global(tmp_path: Path) -> None:
    store = project_store(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#questions", ItemTable)
        table.focus()
        assert table.move_to_key(identity(GLOBAL_QUESTION))
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("end")
        await type_text(pilot, " Or per record?")
        await pilot.press("enter")
        await settle(pilot)
    assert "project" not in on_list(store, "open_questions", f"{GLOBAL_QUESTION} Or per record?")


async def test_moving_an_item_is_an_explicit_choice_in_the_edit_dialog(tmp_path: Path) -> None:
    store = project_store(tmp_path)
    store.add_next_action(NEXT_HERE)
    assert on_list(store, "next_actions", NEXT_HERE)["project"] == PROJECT
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#next-actions", ItemTable)
        table.focus()
        assert table.move_to_key(identity(NEXT_HERE))
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, RewordScreen)
        assert dialog.query_one("#project", Select).value == KEEP  # editing never moves it
        dialog.query_one("#project", Select).value = GLOBAL
        await pilot.press("ctrl+s")
        await settle(pilot)
        moved = on_list(store, "next_actions", NEXT_HERE)
        assert "project" not in moved and "project_label" not in moved
        left = on_disk(store)["current"]["completed_actions"]
        assert [(t.get("project"), t.get("reason")) for t in left if t["text"] == NEXT_HERE] == [
            (PROJECT, "moved")
        ]
        await pilot.press("u")
        await settle(pilot)
    back = [a for a in on_disk(store)["current"]["next_actions"] if a["text"] == NEXT_HERE]
    assert [a.get("project") for a in back] == [PROJECT]


def test_edit_item_rewords_and_moves_in_one_commit_and_one_undo(tmp_path: Path) -> None:
    store = project_store(tmp_path)
    store.add_next_action(NEXT_HERE)
    outcome = store.edit_item("next_actions", NEXT_HERE, "Renamed action", project=None)
    assert outcome.changed and outcome.undo is not None
    renamed = on_list(store, "next_actions", "Renamed action")
    assert "project" not in renamed
    assert store.undo(outcome.undo).changed
    live = [(a["text"], a.get("project")) for a in on_disk(store)["current"]["next_actions"]]
    assert live == [(NEXT_HERE, PROJECT)]
    # Only the text: the project stays.
    kept = store.edit_item("next_actions", NEXT_HERE, "Reworded only")
    assert kept.changed
    assert on_list(store, "next_actions", "Reworded only")["project"] == PROJECT


DECISION_HERE = "Use SQLite in WAL mode"


async def test_moving_a_decision_to_global_is_a_choice_and_u_brings_it_back(
    tmp_path: Path,
) -> None:
    store = project_store(tmp_path)
    store.note_decision(DECISION_HERE, "one file", "LevelDB")
    key = text_hash(DECISION_HERE)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        assert pane.table.move_to_key(key)
        await pilot.press("e")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, EditDecisionScreen)
        assert dialog.query_one("#project", Select).value == KEEP
        dialog.query_one("#project", Select).value = GLOBAL
        await pilot.press("ctrl+s")
        await settle(pilot)
        moved = [
            d for d in on_disk(store)["current"]["decisions"] if d.get("text") == DECISION_HERE
        ]
        assert [(d.get("project"), d.get("why"), d.get("rejected")) for d in moved] == [
            (None, "one file", "LevelDB")
        ]
        await pilot.press("u")
        await settle(pilot)
    back = [d for d in on_disk(store)["current"]["decisions"] if d.get("text") == DECISION_HERE]
    assert [(d.get("project"), d.get("why")) for d in back] == [(PROJECT, "one file")]


def test_editing_a_decision_why_never_moves_it(tmp_path: Path) -> None:
    outside = Memoir(tmp_path / "store", actor="cli", clock=JulyClock())
    outside.note_decision(DECISION_HERE)  # global
    store = project_store(tmp_path)
    assert store.edit_decision(text_hash(DECISION_HERE), why="one file").changed
    after = [d for d in on_disk(store)["current"]["decisions"] if d.get("text") == DECISION_HERE]
    assert [(d.get("project"), d.get("why")) for d in after] == [(None, "one file")]


def test_a_global_question_answered_as_a_decision_inside_a_project_stays_global(
    tmp_path: Path,
) -> None:
    store = project_store(tmp_path)
    closed = store.close_question(GLOBAL_QUESTION, answer="Per record", as_decision=True)
    assert closed.changed
    noted = [d for d in on_disk(store)["current"]["decisions"] if d.get("text") == "Per record"]
    assert [d.get("project") for d in noted] == [None]
    store.ask_question("Which queue for the mailer?")  # a question of this project
    store.close_question("Which queue for the mailer?", answer="SQS", as_decision=True)
    assert on_list(store, "decisions", "SQS")["project"] == PROJECT


def test_a_pinned_candidate_keeps_the_project_it_was_captured_in(tmp_path: Path) -> None:
    store = project_store(tmp_path)
    other = "git:" + "b" * 32
    store.review.enqueue(
        [
            {
                "text": "Use Terraform for the staging stack",
                "kind": "decision",
                "source": "assistant",
                "extractor": "decision.going_with",
                "session_id": "sess-1",
                "timestamp": "2026-06-30T10:00:00.000Z",
                "project": other,
                "project_label": "acme/billing",
            }
        ]
    )
    (item,) = store.review.list_items()
    assert store.review.pin(item.id).changed
    pinned = on_list(store, "decisions", "Use Terraform for the staging stack")
    assert (pinned["project"], pinned.get("project_label")) == (other, "acme/billing")


async def test_ctrl_y_does_again_what_u_took_back_until_a_new_act(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    goals = lambda: [g["text"] for g in on_disk(demo_store)["current"]["goals"]]  # noqa: E731
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#goals", ItemTable)
        table.focus()
        await settle(pilot)
        goal = goals()[0]
        assert table.move_to_key(identity(goal))
        await pilot.press("d", "y")
        await settle(pilot)
        assert goal not in goals()
        await pilot.press("u")
        await settle(pilot)
        assert goal in goals()
        await pilot.press("ctrl+y")
        await settle(pilot)
        assert goal not in goals()  # removed again
        await pilot.press("u")
        await settle(pilot)
        assert goal in goals()  # and the redo is undone like any act
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, "A new goal")
        await pilot.press("enter")
        await settle(pilot)
        before = on_disk(demo_store)
        await pilot.press("ctrl+y")  # a new act ended what could be redone
        await settle(pilot)
        assert on_disk(demo_store) == before


async def test_u_after_an_editor_edit_says_so_and_keeps_the_earlier_act(
    world: AppWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "bin" / "append-editor"
    script.parent.mkdir(parents=True)
    script.write_text('#!/bin/sh\nprintf "\\nAppended by the test editor.\\n" >> "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    actions = lambda: [a["text"] for a in on_disk(world.store)["current"]["next_actions"]]  # noqa: E731
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#next-actions", ItemTable).focus()
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, "Earlier act")
        await pilot.press("enter")
        await settle(pilot)
        assert "Earlier act" in actions()
        pane = await open_pane(pilot, EntriesPane)
        assert pane.table.row_keys
        pane.table.focus()
        await pilot.press("e")
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert "Earlier act" in actions()  # u did not reach past the edit
