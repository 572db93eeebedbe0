"""Pilot tests for the Review pane: pin, reject, near-hidden, bulk acts, badges, snapshot.

Every test drives the app with keys, waits for the Memoir write (and the queue
re-read) to finish, then reads ``session.json`` and ``review.json`` from disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.services.review import review_path
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.candidate import (
    CandidateDetailScreen,
    PinCandidateScreen,
    candidate_details,
)
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.help import own_bindings
from memoir_tui.panes.registry import pane_spec
from memoir_tui.panes.review import ReviewPane
from tests.app.helpers import (
    SIZE,
    demo_store_in,
    eventually,
    make_app,
    on_disk,
    open_pane,
    plain,
    pressing,
    select_text,
    settle,
    type_text,
)
from tests.conftest import JulyClock

REVIEW_KEY = pane_spec("review").key

POSTGRES = "We are going with Postgres for the reporting API"
RUFF = "Use ruff for linting and formatting"
REDUX = "Use Redux Toolkit for the client state"  # close to a hidden demo decision
PLAYWRIGHT_CI = "Run the Playwright suite on every pull request"


def candidate(text: str, source: str = "assistant", *, minute: int = 0, **extra: str) -> dict:
    item = {
        "text": text,
        "kind": "decision",
        "source": source,
        "extractor": "decision.going_with" if source == "assistant" else "instruction.remember",
        "session_id": "sess-7f3a",
        "timestamp": f"2026-06-30T10:{minute:02d}:00.000Z",
        "transcript": "/home/dev/.claude/projects/tideline/sess-7f3a.jsonl",
        "project": "p-1234abcd",
        "project_label": "tideline",
        "tool": "claude-code",
    }
    item.update(extra)
    return item


@pytest.fixture
def store(tmp_path: Path) -> Memoir:
    store = demo_store_in(tmp_path)
    store.review.enqueue(
        [
            candidate(POSTGRES, minute=4),
            candidate(RUFF, "user", minute=3),
            candidate(REDUX, minute=2),
            candidate(PLAYWRIGHT_CI, minute=1),
        ],
    )
    return store


def queue_states(store: Memoir) -> dict[str, str]:
    items = json.loads(review_path(store).read_text(encoding="utf-8"))["items"]
    return {i["text"]: i["state"] for i in items}


def queue_item(store: Memoir, text: str) -> dict[str, Any]:
    items = json.loads(review_path(store).read_text(encoding="utf-8"))["items"]
    return next(i for i in items if i["text"] == text)


def decisions_with(store: Memoir, text: str) -> list[dict[str, Any]]:
    return [d for d in on_disk(store)["current"]["decisions"] if d.get("text") == text]


# --- the queue --------------------------------------------------------------------------


async def test_queue_lists_candidates_with_provenance_badges(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        table = pane.table
        # newest said first
        assert table.row_keys == [text_hash(t) for t in (POSTGRES, RUFF, REDUX, PLAYWRIGHT_CI)]
        columns = [c.value for c in table.columns]
        assert columns == ["mark", "text", "source", "rule", "when", "project"]
        postgres = table.get_row(text_hash(POSTGRES))
        assert str(postgres[2]) == "[assistant]"
        assert str(postgres[3]) == "decision.going_with"
        assert str(postgres[4]) == "2026-06-30"
        assert str(postgres[5]) == "tideline"
        assert str(table.get_row(text_hash(RUFF))[2]) == "[user]"
        redux_text = table.get_row(text_hash(REDUX))[1]
        assert str(redux_text).startswith("[near-hidden] ")
        assert redux_text.spans and "bold" in str(redux_text.spans[0].style)  # styled as a warning
        status = str(pane.query_one("#review-status").render())
        assert "4 waiting" in status and "1 near a forgotten decision" in status


async def test_detail_shows_full_provenance(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await select_text(pilot, pane, REDUX)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(pilot.app.screen, CandidateDetailScreen)
        shown = plain(candidate_details(pilot.app.screen.item))
        for expected in (
            "[assistant] [near-hidden]",
            "decision.going_with",
            "sess-7f3a",
            "/home/dev/.claude/projects/tideline/sess-7f3a.jsonl",
            "2026-06-30 10:02 UTC",
            "Project      tideline\n",  # its label, never the internal id
            "Use Redux Toolkit for client state",  # the forgotten decision it resembles
        ):
            assert expected in shown, expected
        await pilot.press("escape")
        await settle(pilot)
        assert pilot.app.screen is pilot.app.screen_stack[0]


# --- pin and reject -------------------------------------------------------------------------


async def test_pin_with_edited_text_why_and_rejected(store: Memoir) -> None:
    edited = "Use Postgres for the reporting API"
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await select_text(pilot, pane, POSTGRES)
        await pilot.press("p")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, PinCandidateScreen)
        text = dialog.query_one("#text", Input)
        assert text.value == POSTGRES  # prefilled
        text.value = edited
        await pilot.press("enter")  # → why
        await type_text(pilot, "window functions and JSONB")
        await pilot.press("enter")  # → rejected
        await type_text(pilot, "MySQL; DuckDB")
        await pilot.press("enter")  # pins
        await settle(pilot)
        assert not isinstance(pilot.app.screen, PinCandidateScreen)
        assert text_hash(POSTGRES) not in pane.table.row_keys  # left the queue
    (decision,) = decisions_with(store, edited)
    assert decision["why"] == "window functions and JSONB"
    assert decision["rejected"] == "MySQL; DuckDB"
    assert decision["source"] == "assistant"
    assert decision["extractor"] == "decision.going_with"
    assert decision["session_id"] == "sess-7f3a"
    item = queue_item(store, POSTGRES)
    assert item["state"] == "pinned"
    assert item["pinned_text"] == edited
    assert item["pinned_key"] == text_hash(edited)


async def test_reject_asks_first_then_writes_a_tombstone(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await select_text(pilot, pane, PLAYWRIGHT_CI)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert queue_states(store)[PLAYWRIGHT_CI] == "candidate"
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert text_hash(PLAYWRIGHT_CI) not in pane.table.row_keys
        # history shows it again, greyed and read-only
        await pilot.press("h")
        await settle(pilot)
        assert text_hash(PLAYWRIGHT_CI) in pane.table.row_keys
        await select_text(pilot, pane, PLAYWRIGHT_CI)
        await pilot.press("p")
        await settle(pilot)
        assert not isinstance(pilot.app.screen, PinCandidateScreen)
    item = queue_item(store, PLAYWRIGHT_CI)
    assert item["state"] == "rejected" and item["rejected_at"].startswith("2026-07-01")
    assert decisions_with(store, PLAYWRIGHT_CI) == []


async def test_near_hidden_pin_is_refused_until_confirmed(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await select_text(pilot, pane, REDUX)
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(pilot.app.screen, PinCandidateScreen)
        assert pilot.app.screen.query(".dialog--warning")  # warned before saving
        await pilot.press("ctrl+s")
        await settle(pilot)
        # refused: nothing pinned, and an explicit confirmation is asked for
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert decisions_with(store, REDUX) == []
        assert queue_states(store)[REDUX] == "candidate"
        await pilot.press("n")
        await settle(pilot)
        assert decisions_with(store, REDUX) == []
        # second attempt, confirmed with y
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert pilot.app.screen is pilot.app.screen_stack[0]
    assert len(decisions_with(store, REDUX)) == 1
    item = queue_item(store, REDUX)
    assert item["state"] == "pinned" and item["forced"] is True


# --- bulk ------------------------------------------------------------------------------------


async def test_bulk_reject_needs_the_typed_count(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await pilot.press("space", "space", "space")  # marks the first three, moving down
        await settle(pilot)
        assert pane.marked == {text_hash(t) for t in (POSTGRES, RUFF, REDUX)}
        assert str(pane.table.get_row(text_hash(RUFF))[0]) == "●"
        await pilot.press("x")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, TypeToConfirmScreen)
        assert dialog.word == "3"
        await type_text(pilot, "2")  # the wrong count is refused
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is dialog
        assert "-shown" in dialog.query_one("#confirm-error").classes
        assert set(queue_states(store).values()) == {"candidate"}
        dialog.query_one(Input).value = ""
        await type_text(pilot, "3")
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is pilot.app.screen_stack[0]
        assert pane.marked == set()
        assert pane.table.row_keys == [text_hash(PLAYWRIGHT_CI)]
    assert queue_states(store) == {
        POSTGRES: "rejected",
        RUFF: "rejected",
        REDUX: "rejected",
        PLAYWRIGHT_CI: "candidate",
    }


async def test_bulk_pin_skips_near_hidden_and_escape_clears_marks(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await pilot.press("space", "space")
        await settle(pilot)
        await pilot.press("escape")  # clears the marks
        await settle(pilot)
        assert pane.marked == set()
        await pilot.press("g", "space", "space", "space", "space")  # all four
        await settle(pilot)
        assert len(pane.marked) == 4
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(pilot.app.screen, TypeToConfirmScreen)
        await type_text(pilot, "4")
        await pilot.press("enter")
        await settle(pilot)
        assert pane.table.row_keys == [text_hash(REDUX)]  # skipped, still waiting
    states = queue_states(store)
    assert states == {
        POSTGRES: "pinned",
        RUFF: "pinned",
        REDUX: "candidate",
        PLAYWRIGHT_CI: "pinned",
    }
    assert decisions_with(store, REDUX) == []
    (ruff,) = decisions_with(store, RUFF)
    assert ruff["source"] == "user" and ruff["extractor"] == "instruction.remember"


async def test_queue_follows_captures_made_elsewhere(store: Memoir) -> None:
    """`memoir-tui capture` in another terminal changes only review.json; the pane sees it."""
    app = make_app(store, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        capture = Memoir(store.root, clock=JulyClock(), actor="capture")
        capture.review.enqueue([candidate("Use uv to manage the Python toolchain", minute=9)])
        await eventually(
            pilot,
            lambda: text_hash("Use uv to manage the Python toolchain") in pane.table.row_keys,
            "the pane to show the capture",
        )
        assert pane.table.row_keys[0] == text_hash("Use uv to manage the Python toolchain")


# --- keys, palette, snapshot ------------------------------------------------------------------


def test_bindings_have_ids_and_key_tables() -> None:
    for cls in (ReviewPane, PinCandidateScreen, CandidateDetailScreen):
        assert "| Key(s) | Description |" in (cls.__doc__ or ""), cls.__name__
        ids = [b.id for b in own_bindings(cls)]
        assert all(i and i.split(".")[0] in ("review", "review_detail") for i in ids), ids
        assert len(ids) == len(set(ids))
    shown = [b for b in own_bindings(ReviewPane) if b.show]
    assert 3 <= len(shown) <= 5
    ids = {b.id for b in own_bindings(ReviewPane)}
    assert all(c.binding_id in ids for c in ReviewPane.COMMANDS)


def test_review_pane_snapshot(snap_compare: Any, store: Memoir) -> None:
    app = make_app(store)
    assert snap_compare(app, terminal_size=SIZE, run_before=pressing(REVIEW_KEY, "j", "space"))


async def test_near_hidden_flags_hold_through_a_filter_and_follow_a_new_hide(store: Memoir) -> None:
    """The near-hidden checks a read remembers are the ones a fresh read gives: the flagged
    candidate keeps its badge in the filtered window, and a decision hidden elsewhere while
    the pane is open flags the candidate close to it (the remembered checks are dropped)."""
    app = make_app(store, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await pilot.press("slash")
        await type_text(pilot, "Use")
        await pilot.press("enter")
        await settle(pilot)
        assert pane.table.row_keys == [text_hash(t) for t in (RUFF, REDUX)]
        assert str(pane.table.get_row(text_hash(REDUX))[1]).startswith("[near-hidden] ")
        assert not str(pane.table.get_row(text_hash(RUFF))[1]).startswith("[near-hidden]")
        other = Memoir(store.root, clock=JulyClock(), actor="cli")
        other.hide_decision(other.note_decision("Use ruff for linting and formatting code").key)
        ruff = text_hash(RUFF)
        for _ in range(80):  # a safety net: the loop ends when the pane shows the new flag
            await pilot.pause(0.05)
            if ruff in pane.table.row_keys and str(pane.table.get_row(ruff)[1]).startswith(
                "[near-hidden] "
            ):
                break
        assert pane.filter_text == "Use"
        assert pane.table.row_keys == [text_hash(t) for t in (RUFF, REDUX)]
        assert str(pane.table.get_row(ruff)[1]).startswith("[near-hidden] ")
        assert str(pane.table.get_row(text_hash(REDUX))[1]).startswith("[near-hidden] ")
        status = str(pane.query_one("#review-status").render())
        assert "2 near a forgotten decision" in status
