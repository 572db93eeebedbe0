"""Long lists: the Decisions filter runs in a worker (the newest filter's result wins) and
the table draws a window of rows with a row saying how many more match.

Nothing here is timed (bench/bench_tui_lists.py measures the speed); these assert what
is on screen against what is on disk."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Input, Label

import memoir_tui.panes.windowed_list as windowed_list
from memoir_tui.app import MemoirApp
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.rules.model import Decision
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.decisions import DECISION_ROWS, DecisionsPane, decision_text
from memoir_tui.widgets.item_table import AFTER_KEY, BEFORE_KEY
from tests.app.helpers import SIZE, open_pane, pressing, settle, type_text

HERE = "git:" + "a" * 32
ELSEWHERE = "git:" + "b" * 32
MACHINE = "00000000-0000-4000-8000-000000000001"


def write_store(root: Path, count: int) -> Path:
    """``count`` decisions: every third in another project, every fifth global; the word
    ``even`` in the text of the even ones, ``odd`` in the why of the odd ones."""
    decisions = []
    for i in range(count):
        decision: dict[str, Any] = {
            "text": f"decision {i} {'even' if i % 2 == 0 else 'plain'}",
            "why": f"reason {i} {'odd' if i % 2 else ''}".strip(),
            "machine_id": MACHINE,
            "date": f"2026-05-{1 + i // 100 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z",
        }
        if i % 5:
            decision["project"] = ELSEWHERE if i % 3 == 0 else HERE
        decisions.append(decision)
    session = {
        "version": 1,
        "machines": {MACHINE: {"label": "m", "last_seen": "2026-06-01T00:00:00.000Z"}},
        "current": {"decisions": decisions},
        "history": [],
    }
    root.mkdir(parents=True, exist_ok=True)
    (root / "session.json").write_text(json.dumps(session), encoding="utf-8")
    return root


def on_disk(root: Path, *, word: str = "", project: str | None = None) -> set[str]:
    """The keys of the decisions in ``session.json`` in scope whose text or why holds
    every word of ``word``: the oracle, read from the file, not from the app."""
    session = json.loads((root / "session.json").read_text(encoding="utf-8"))
    return {
        text_hash(d["text"])
        for d in session["current"]["decisions"]
        if (project is None or d.get("project") in (None, project))
        and all(w in f"{d['text']}\n{d.get('why', '')}" for w in word.split())
    }


def make(root: Path, *, project: str | None = None) -> MemoirApp:
    store = Memoir(root, machine_label="m", actor="app", project=project)
    return MemoirApp(store, display_path="store", poll_interval=None)


def count_label(pane: DecisionsPane) -> str:
    return str(pane.filter_bar.query_one(".filter-bar--count", Label).render())


async def every_row(pilot: Any, pane: DecisionsPane) -> list[str]:
    """The keys of every window, paging with enter on the "N more" row from the top."""
    table = pane.table
    pilot.app.set_focus(table)
    await pilot.pause()
    while table.before:  # back to the first window
        table.move_cursor(row=0)
        await pilot.press("enter")
        await settle(pilot)
    keys: list[str] = []
    while True:
        assert 0 < len(table.row_keys) <= DECISION_ROWS
        keys += table.row_keys
        if not table.after:
            return keys
        await pilot.press("G")  # the last row is the marker: "N more"
        assert table.marker_under_cursor == AFTER_KEY and table.cursor_key is None
        await pilot.press("enter")
        await settle(pilot)
        assert table.before == len(keys)


async def test_a_filter_shows_exactly_the_matching_rows_a_window_at_a_time(
    tmp_path: Path,
) -> None:
    root = write_store(tmp_path / "store", 330)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        table = pane.table
        # Without a filter: a window, and a row below saying how many more there are.
        assert len(table.row_keys) == DECISION_ROWS and table.after == 330 - DECISION_ROWS
        assert table.row_count == DECISION_ROWS + 1
        assert count_label(pane) == "330"
        await pilot.press("slash")
        await type_text(pilot, "even")
        await settle(pilot)
        expected = on_disk(root, word="even")
        assert count_label(pane) == f"{len(expected)} of 330"
        assert table.after == len(expected) - DECISION_ROWS
        shown = await every_row(pilot, pane)
        assert len(shown) == len(set(shown)) and set(shown) == expected
        # The marker above a later window goes back.
        assert table.before and table.row_count == len(table.row_keys) + 1
        table.move_cursor(row=0)
        assert table.marker_under_cursor == BEFORE_KEY
        await pilot.press("enter")
        await settle(pilot)
        assert table.before == 0 and table.cursor_key == table.row_keys[-1]
        # Words in any order, across text and why: none match both.
        app.query_one("#decision-filter Input", Input).value = "odd even"
        await settle(pilot)
        assert table.row_keys == [] and table.row_count == 0
        assert count_label(pane) == "0 of 330"
        # A filter with fewer matches than a window has no marker row.
        app.query_one("#decision-filter Input", Input).value = "decision 32"
        await settle(pilot)
        expected = on_disk(root, word="decision 32")
        assert set(table.row_keys) == expected and table.row_count == len(expected) == 13


async def test_the_rows_on_screen_are_the_decisions_on_disk_in_scope(tmp_path: Path) -> None:
    root = write_store(tmp_path / "store", 260)
    app = make(root, project=HERE)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        in_scope = on_disk(root, project=HERE)
        assert 0 < len(in_scope) < 260
        assert count_label(pane) == str(len(in_scope))
        assert set(await every_row(pilot, pane)) == in_scope
        await pilot.press("A")  # every project
        await settle(pilot)
        assert count_label(pane) == "260"
        assert set(await every_row(pilot, pane)) == on_disk(root)


async def test_a_stale_filter_result_never_overwrites_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_store(tmp_path / "store", 150)
    gates = {needle: threading.Event() for needle in ("decision 1", "decision 14")}
    started: list[str] = []
    real = windowed_list.filter_rows

    def gated(rows: Any, texts: Any, needle: str, keep: Any) -> Any:
        if needle:
            started.append(needle)
            assert gates[needle].wait(timeout=60), f"{needle!r} was never released"
        return real(rows, texts, needle, keep)

    monkeypatch.setattr(windowed_list, "filter_rows", gated)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        before = list(pane.table.row_keys)
        await pilot.press("slash")
        await type_text(pilot, "decision 1")
        await type_text(pilot, "4")
        box = app.query_one("#decision-filter Input", Input)
        assert box.value == "decision 14"  # typing never waits for a filter
        assert pane.filtering and pane.table.row_keys == before  # nothing has landed
        await until(pilot, lambda: sorted(started) == ["decision 1", "decision 14"])
        gates["decision 14"].set()  # the newer result lands first …
        await until(pilot, lambda: pane.matches is not None and pane.matches.needle != "")
        newest = on_disk(root, word="decision 14")
        assert set(pane.table.row_keys) == newest and len(newest) == 12
        assert pane.matches is not None and pane.matches.needle == "decision 14"
        gates["decision 1"].set()  # … and the older one after it is dropped
        await settle(pilot)
        assert not pane.filtering
        assert set(pane.table.row_keys) == newest
        assert count_label(pane) == "12 of 150"


async def test_clearing_the_filter_drops_a_result_still_on_its_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_store(tmp_path / "store", 50)
    gate = threading.Event()
    real = windowed_list.filter_rows

    def gated(rows: Any, texts: Any, needle: str, keep: Any) -> Any:
        if needle:
            assert gate.wait(timeout=60)
        return real(rows, texts, needle, keep)

    monkeypatch.setattr(windowed_list, "filter_rows", gated)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")
        await type_text(pilot, "even")
        await pilot.press("escape")  # cleared at once, before the filter's result
        await pilot.pause()
        assert pane.filter_text == "" and len(pane.table.row_keys) == 50
        gate.set()
        await settle(pilot)
        assert len(pane.table.row_keys) == 50 and count_label(pane) == "50"


async def test_a_jump_to_a_decision_past_the_window_shows_its_window(tmp_path: Path) -> None:
    root = write_store(tmp_path / "store", 250)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        assert pane.matches is not None
        last = pane.matches.rows[-1]
        assert last.key not in pane.table.row_keys
        pane.show_item("decisions", last.text)
        await settle(pilot)
        assert pane.table.cursor_key == last.key and pane.table.before >= DECISION_ROWS
        assert pane.selected() == last


async def until(pilot: Any, condition: Any) -> None:
    """Let the app run until ``condition()`` holds (a deadline only as a safety net)."""
    for _ in range(3000):
        if condition():
            return
        await pilot.pause()
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


@pytest.mark.parametrize("size", [(100, 30), (80, 24)], ids=["100x30", "80x24"])
def test_snapshot_the_row_saying_how_many_more(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make(write_store(tmp_path / "store", DECISION_ROWS + 20))
    assert snap_compare(app, terminal_size=size, run_before=pressing("2", "G"))


def _decision(text: str, why: str, rejected: str) -> Decision:
    return Decision(
        key=text_hash(text) if text.strip() else "k",
        text=text,
        why=why,
        rejected=rejected,
        date="",
        machine_id="",
        machine_label="",
        project="",
    )


TEXTS = st.text(alphabet="aAbBcé É\u0301ﬁ İıß\n", max_size=12)


@given(
    fields=st.lists(st.tuples(TEXTS, TEXTS, TEXTS), max_size=8),
    needle=TEXTS,
)
def test_the_worker_filter_keeps_what_the_filter_rule_keeps(
    fields: list[tuple[str, str, str]], needle: str
) -> None:
    """The folded texts (lower() for ASCII, the full fold otherwise) keep exactly the
    decisions ``Decision.matches`` keeps: case, accents and ligatures alike."""
    decisions = tuple(_decision(*f) for f in fields)
    texts = tuple(windowed_list.fold_text(decision_text(d)) for d in decisions)
    got = windowed_list.filter_rows(decisions, texts, needle, None)
    assert got == [d for d in decisions if d.matches(needle)]
