"""Pilot tests for every action of the working-set and decisions panes.

Each test drives the app with keys, waits for the Memoir write to finish and
then reads ``session.json`` from disk: what the person did must be on disk.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, Label, Static

from memoir_tui.core.format.identity import identity, text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.forms import (
    AddDecisionScreen,
    AddItemScreen,
    DecisionDetailScreen,
    SessionEndScreen,
)
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.working_set import WorkingSetPane
from memoir_tui.widgets.item_table import ItemTable
from tests.app.helpers import (
    DEMO_MACHINE_ID,
    SIZE,
    decision_on_disk,
    fill,
    make_app,
    messages,
    on_disk,
    open_pane,
    rendered,
    select_text,
    settle,
    texts,
    type_text,
)

PIPX = "Ship the CLI through pipx, not as a PyInstaller binary"
NEWEST_ACTION = "Write the Alembic migration that adds updated_at to entries"


# --- working set ------------------------------------------------------------------


async def test_add_next_action_from_the_focused_list(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused is app.query_one("#next-actions")
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AddItemScreen)
        assert app.screen.kind == "next_action"
        await type_text(pilot, "Ask Priya about the flag rollout")
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, AddItemScreen)
        table = app.query_one("#next-actions", ItemTable)
        assert identity("Ask Priya about the flag rollout") in table.row_keys
    actions = on_disk(demo_store)["current"]["next_actions"]
    added = [a for a in actions if a["text"] == "Ask Priya about the flag rollout"]
    assert len(added) == 1
    assert added[0]["machine_id"] == DEMO_MACHINE_ID
    assert added[0]["added"].startswith("2026-07-01")


async def test_add_goal_from_the_goals_list(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#goals", ItemTable).focus()
        await pilot.press("a")
        await settle(pilot)
        assert app.screen.kind == "goal"
        await type_text(pilot, "Onboard two beta customers")
        await pilot.press("enter")
        await settle(pilot)
        assert identity("Onboard two beta customers") in app.query_one("#goals", ItemTable).row_keys
    goals = on_disk(demo_store)["current"]["goals"]
    assert "Onboard two beta customers" in texts(goals)
    assert "Onboard two beta customers" not in texts(on_disk(demo_store)["current"]["next_actions"])


async def test_add_question_switching_kind_in_the_dialog(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("ctrl+o")
        await type_text(pilot, "Who owns the release checklist?")
        await pilot.press("enter")
        await settle(pilot)
    current = on_disk(demo_store)["current"]
    assert "Who owns the release checklist?" in texts(current["open_questions"])
    assert "Who owns the release checklist?" not in texts(current["next_actions"])


async def test_add_dialog_refuses_blank_text_and_escape_cancels(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", "space", "enter")
        await settle(pilot)
        assert isinstance(app.screen, AddItemScreen)
        assert "-shown" in app.screen.query_one("#dialog-error").classes
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, AddItemScreen)
    assert demo_store.session_path.read_bytes() == before


@pytest.mark.parametrize("key", ["x"])
async def test_complete_next_action(demo_store: Memoir, key: str) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#next-actions", ItemTable)
        assert table.cursor_key == identity(NEWEST_ACTION)
        await pilot.press(key)
        await settle(pilot)
        assert identity(NEWEST_ACTION) not in table.row_keys
        assert (
            "next_actions:" + identity(NEWEST_ACTION)
            in app.query_one("#completed", ItemTable).row_keys
        )
        # The cursor stays where it was: on the next action now in that row.
        assert table.cursor_row == 0
    current = on_disk(demo_store)["current"]
    assert NEWEST_ACTION not in texts(current["next_actions"])
    done = [c for c in current["completed_actions"] if c["text"] == NEWEST_ACTION]
    assert len(done) == 1 and done[0]["done_at"].startswith("2026-07-01")


async def test_space_marks_and_never_completes(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
    assert demo_store.session_path.read_bytes() == before


async def test_record_session_end(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, SessionEndScreen)
        await fill(pilot, "CSV export done", "cli/export.py, cli/tests/test_export.py", "45")
        await settle(pilot)
        assert not isinstance(app.screen, SessionEndScreen)
    history = on_disk(demo_store)["history"]
    newest = history[0]
    assert newest["summary"] == "CSV export done"
    assert newest["files_touched"] == ["cli/export.py", "cli/tests/test_export.py"]
    assert newest["duration_min"] == 45
    assert newest["machine_id"] == DEMO_MACHINE_ID
    assert len(history) == 13


async def test_session_end_requires_a_summary(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s", "ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, SessionEndScreen)
        assert "-shown" in app.screen.query_one("#dialog-error").classes
        await pilot.press("escape")
        await settle(pilot)
    assert demo_store.session_path.read_bytes() == before


# --- decisions ------------------------------------------------------------------------


async def test_add_decision_with_why_and_rejected(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, AddDecisionScreen)
        await fill(
            pilot,
            "Use Sentry for error tracking",
            "Source maps and release tracking",
            "Rollbar; self-hosted GlitchTip",
        )
        await settle(pilot)
        assert text_hash("Use Sentry for error tracking") in pane.table.row_keys
    saved = decision_on_disk(demo_store, "Use Sentry for error tracking")
    assert saved["why"] == "Source maps and release tracking"
    assert saved["rejected"] == "Rollbar; self-hosted GlitchTip"
    assert saved["machine_id"] == DEMO_MACHINE_ID
    assert "hidden" not in saved


async def test_add_decision_nudges_for_why_then_saves_without(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, "Pin Node to 22 LTS")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, AddDecisionScreen)  # nudged, still open
        error = app.screen.query_one("#dialog-error")
        assert "why" in str(error.render()) and "-shown" in error.classes
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, AddDecisionScreen)
    saved = decision_on_disk(demo_store, "Pin Node to 22 LTS")
    assert "why" not in saved and "rejected" not in saved


async def test_filter_as_you_type_over_text_why_and_rejected(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        assert pane.table.row_count == 12
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(app.focused, Input)
        await pilot.press(*"pipx")  # typed key by key: only in the text of one decision
        await settle(pilot)
        assert pane.table.row_keys == [text_hash(PIPX)]
        app.focused.value = ""
        await type_text(pilot, "ANTIVIRUS")  # only in its why (case-insensitive)
        await settle(pilot)
        assert pane.table.row_keys == [text_hash(PIPX)]
        app.focused.value = ""
        await settle(pilot)
        assert pane.table.row_count == 12
        await type_text(pilot, "homebrew")  # only in its rejected
        await settle(pilot)
        assert pane.table.row_keys == [text_hash(PIPX)]
        await pilot.press("enter")  # keep the filter, back to the list
        await settle(pilot)
        assert app.focused is pane.table and pane.filter_text == "homebrew"
        await pilot.press("escape")  # clears
        await settle(pilot)
        assert pane.table.row_count == 12 and pane.filter_text == ""
        # Letters typed into the filter are text, not commands.
        await pilot.press("slash", "d", "q")
        await settle(pilot)
        assert app.is_running and pane.filter_text == "dq"
        await pilot.press("escape")
        await settle(pilot)
        assert pane.filter_text == "" and app.focused is pane.table
    assert demo_store.session_path.read_bytes() == before


async def test_detail_view_shows_the_decision_in_full(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DecisionDetailScreen)
        assert app.screen.decision.text == PIPX
        assert app.screen.decision.rejected == "PyInstaller single-file binary; Homebrew only"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


async def test_hide_with_y(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        row = pane.table.cursor_row
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        # The dialog shows the decision in full, what was rejected included.
        body = rendered(app.screen.query_one("#confirm-body", Static)).splitlines()
        assert any(line.startswith("Text") and PIPX in line for line in body), body
        rejected = [line for line in body if line.startswith("Rejected")]
        assert rejected and rejected[0].endswith("PyInstaller single-file binary; Homebrew only")
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert text_hash(PIPX) not in pane.table.row_keys
        assert pane.table.cursor_row == row  # the next decision moved up under the cursor
        assert all(d.text != PIPX for d in app.state.decisions)
    saved = decision_on_disk(demo_store, PIPX)
    assert saved["hidden"] is True
    assert saved["hidden_at"].startswith("2026-07-01")
    assert saved["why"]  # hiding keeps the text; only purge removes it


@pytest.mark.parametrize("key", ["n", "escape"])
async def test_hide_cancelled(demo_store: Memoir, key: str) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(key)
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert text_hash(PIPX) in pane.table.row_keys
    assert demo_store.session_path.read_bytes() == before
    assert "hidden" not in decision_on_disk(demo_store, PIPX)


async def test_hide_dialog_enter_defaults_to_cancel(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("d", "enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
    assert demo_store.session_path.read_bytes() == before


@pytest.mark.parametrize("typed", ["purge", "Ship the CLI"])
async def test_purge_with_the_typed_word_or_first_words(demo_store: Memoir, typed: str) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        await type_text(pilot, typed)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert text_hash(PIPX) not in pane.table.row_keys
        await pilot.press("h")  # even as a tombstone, the text is gone
        await settle(pilot)
        tomb = next(d for d in app.state.tombstones if d.key == text_hash(PIPX))
        assert tomb.purged and tomb.text == "[purged]"
    saved = decision_on_disk(demo_store, PIPX)
    assert saved["text"] == "[purged]"
    assert saved["text_hash"] == text_hash(PIPX)
    assert saved["hidden"] is True and saved["hidden_at"].startswith("2026-07-01")
    assert "why" not in saved and "rejected" not in saved
    raw = demo_store.session_path.read_text(encoding="utf-8")
    assert PIPX not in raw and "PyInstaller builds tripped antivirus" not in raw


@pytest.mark.parametrize(
    ("typed", "accepted"),
    [
        ("purge", True),
        ("  PURGE ", True),
        ("Purge.", True),
        ("ship the cli", True),
        ("Ship  the CLI through pipx,", True),
        (PIPX, True),
        ("", False),
        ("yes", False),
        ("ship", False),
        ("ship the", False),
        ("the CLI through", False),
        ("ship the clix", False),
        ("purge it", False),
    ],
)
def test_purge_confirmation_words(typed: str, accepted: bool) -> None:
    screen = TypeToConfirmScreen("t", "b", warning="w", word="purge", phrase=PIPX)
    assert screen.phrase_hint == "Ship the CLI"
    assert screen.accepts(typed) is accepted


async def test_purge_refuses_without_the_word(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("D")
        await settle(pilot)
        for attempt in ("", "yes", "ship", "the CLI through"):
            screen = app.screen
            assert isinstance(screen, TypeToConfirmScreen)
            screen.query_one(Input).value = attempt
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen is screen, attempt  # refused: still open
            error = screen.query_one("#confirm-error")
            assert "-shown" in error.classes
            assert "Not confirmed" in str(error.render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert text_hash(PIPX) in pane.table.row_keys
    assert demo_store.session_path.read_bytes() == before


async def test_tombstone_toggle_is_read_only(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        redux = text_hash("Use Redux Toolkit for client state")
        assert redux not in pane.table.row_keys
        await pilot.press("h")
        await settle(pilot)
        keys = pane.table.row_keys
        assert len(keys) == 15 and redux in keys
        purged = "eeb8088ad21f6298471ef657b5aa89d0c296627b5b83db116afe2353f60422d0"
        assert purged in keys
        assert [c.value for c in pane.table.columns][-1] == "hidden_at"
        # No hide, edit or un-hide on a tombstone: a warning, no dialog (D, the purge
        # of a hidden decision, is tested with the purges).
        pane.table.move_to_key(redux)
        await pilot.pause()
        for key in ("d", "e"):
            await pilot.press(key)
            await settle(pilot)
            assert app.screen is app.screen_stack[0]
        assert any("can never be edited or un-hidden" in m for m in messages(app))
        # The detail view still opens, marked as a tombstone.
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, DecisionDetailScreen) and app.screen.decision.hidden
        await pilot.press("escape", "h")
        await settle(pilot)
        assert len(pane.table.row_keys) == 12 and redux not in pane.table.row_keys
    assert demo_store.session_path.read_bytes() == before


async def test_core_errors_become_notifications(demo_store: Memoir) -> None:
    """Noting a forgotten decision again is refused by the core; the app says why."""
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await pilot.press("a")
        await settle(pilot)
        await type_text(pilot, "Use Redux Toolkit for client state")
        await pilot.press("tab")
        await type_text(pilot, "why")
        await pilot.press("tab")
        await type_text(pilot, "rejected")
        await pilot.press("enter")
        await settle(pilot)
        # The refusal is said inside the dialog, which stays open with what was typed.
        assert isinstance(app.screen, AddDecisionScreen)
        error = str(app.screen.query_one("#dialog-error", Label).render())
        assert "forgotten" in error and "Traceback" not in error
        assert app.screen.query_one("#text", Input).value == "Use Redux Toolkit for client state"
        assert app.screen.query_one("#why", Input).value == "why"
        assert app.is_running
    assert demo_store.session_path.read_bytes() == before


async def test_working_set_pane_never_shows_completed_as_live(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.query_one(WorkingSetPane)
        live = set(pane.table("next-actions").row_keys)
        done = set(pane.table("completed").row_keys)
        assert len(live) == 6 and len(done) == 4 and not live & done
