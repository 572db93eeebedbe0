"""Pilot tests for the Consolidate pane: mark, apply, undo, keep, details — asserted on disk.

Each test copies the planted fixture store (``tests/fixtures/consolidate_store``)
under a scratch HOME (``~/.config/memoir``, beside Claude Code's memory folders),
opens the pane, waits for the scan worker, drives it with keys and then reads
the files.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from memoir_tui.core.services import consolidate as core
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.proposal import ProposalDetailScreen
from memoir_tui.panes.consolidate import GROUP_KEY, ConsolidatePane
from memoir_tui.panes.registry import pane_spec
from memoir_tui.widgets.side_by_side import DiffColumn, SideBySideDiff, align, changed_rows
from tests.app.helpers import (
    CONSOLIDATE_FIXTURE,
    SIZE,
    fixture_store,
    make_app,
    messages,
    open_pane,
    pressing,
    rendered,
    select,
    settle,
    type_text,
)
from tests.consolidate.conftest import BOOKKEEPING

PANE_KEY = pane_spec("consolidate").key


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    shutil.copytree(CONSOLIDATE_FIXTURE / "home", path)
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def store(home: Path) -> Memoir:
    return fixture_store(home)


def tree_digests(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root``, the store's trash folder excluded."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "trash"]
        for name in filenames:
            if any(fnmatch.fnmatch(name, pattern) for pattern in BOOKKEEPING):
                continue
            full = Path(dirpath) / name
            out[str(full.relative_to(root))] = hashlib.sha256(full.read_bytes()).hexdigest()
    return out


async def open_consolidate(pilot: Pilot[Any]) -> ConsolidatePane:
    pane = await open_pane(pilot, ConsolidatePane)
    assert pane.report is not None and not pane.scanning
    return pane


def proposal(pane: ConsolidatePane, kind: str) -> core.Proposal:
    assert pane.report is not None
    found = [p for p in pane.report.proposals if p.kind == kind]
    assert len(found) == 1, (kind, found)
    return found[0]


# --- scanning and the list -----------------------------------------------------------


async def test_scan_runs_in_a_worker_and_lists_groups(
    store: Memoir, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real_scan = core.scan

    def spy(*args: Any, **kwargs: Any) -> core.Report:
        threads.append(threading.current_thread())
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(core, "scan", spy)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert threads == []  # nothing is scanned before the pane is shown
        pane = await open_consolidate(pilot)
        assert len(threads) == 1 and threads[0] is not threading.main_thread()
        report = pane.report
        assert report is not None and len(report.proposals) == 12
        keys = pane.table.row_keys
        headings = [k.removeprefix(GROUP_KEY) for k in keys if k.startswith(GROUP_KEY)]
        assert headings == [g for g, _ in report.grouped()]
        assert [k for k in keys if not k.startswith(GROUP_KEY)] == [p.id for p in report.proposals]
        # The cursor starts on the first proposal, not on a heading.
        assert pane.table.cursor_key == report.proposals[0].id
        status = str(pane.query_one("#consolidate-status").render())
        assert "12 proposals · 0 marked" in status
        # Host-index titles name the file under ~, not as an internal reference.
        index = proposal(pane, "index_dead_lines")
        row = pane.table.get_row(index.id)
        assert "~/.claude/projects/-work-app/memory/MEMORY.md" in str(row[1])
        # space on a heading marks (and unmarks) the whole group.
        await select(pilot, pane, GROUP_KEY + "Stale")
        await pilot.press("space")
        stale = {p.id for p in report.proposals if p.group == "Stale"}
        assert len(stale) == 4 and pane.marked == stale
        assert "4 marked" in str(pane.table.get_row(GROUP_KEY + "Stale")[1])
        await pilot.press("space")
        assert pane.marked == set()
        await pilot.press("r")
        await settle(pilot)
        assert len(threads) == 2


# --- apply and undo ----------------------------------------------------------------------


async def test_apply_two_marked_then_undo_restores_every_byte(store: Memoir, home: Path) -> None:
    memory = store.memory_dir
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        before = tree_digests(home)
        dup = proposal(pane, "duplicate")
        near = proposal(pane, "near_duplicate")
        assert pane.table.cursor_key == dup.id
        await pilot.press("space", "j", "j", "space")
        assert pane.marked == {dup.id, near.id}

        await pilot.press("X")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        assert app.screen.word == "2"
        await type_text(pilot, "2")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]

        # On disk: the copies are in the trash, the keepers merged.
        assert not (memory / "fact_api-endpoint.md").exists()
        assert not (memory / "lesson_rehearse-migrations.md").exists()
        assert (memory / "fact_api-base-url.md").exists()
        lesson = (memory / "lesson_migrations-on-a-copy.md").read_text(encoding="utf-8")
        assert "(merged from lesson_rehearse-migrations.md)" in lesson
        record = store.trash.last_active()
        assert record is not None
        assert {p.name for p in record.removed} == {
            "fact_api-endpoint.md",
            "lesson_rehearse-migrations.md",
        }
        assert (store.root / "trash" / record.id).is_dir()
        # The pane rescanned, and says where the files went and how to undo.
        assert pane.report is not None and len(pane.report.proposals) == 10
        assert dup.id not in pane.table.row_keys and near.id not in pane.table.row_keys
        assert pane.marked == set()
        status = str(pane.query_one("#consolidate-status").render())
        assert f"trash {record.id}: u undoes it" in status
        assert any(record.id in m and "u undoes it" in m for m in messages(app))

        await pilot.press("U")  # the trash's last apply, asking first
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        body = rendered(app.screen.query_one("#confirm-body", Static))
        assert record.id in body
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert tree_digests(home) == before  # every file byte-identical
        assert store.trash.get(record.id).status == "restored"
        assert pane.report is not None and len(pane.report.proposals) == 12
        assert any("Undone: trash " + record.id in m for m in messages(app))


async def test_u_undoes_an_apply_files_and_session_alike(store: Memoir, home: Path) -> None:
    before = tree_digests(home)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        await pilot.press("space", "j", "space", "X")
        await settle(pilot)
        await type_text(pilot, "2")
        await pilot.press("enter")
        await settle(pilot)
        assert tree_digests(home) != before
        await pilot.press("u")  # the app's undo: no question, it is this session's act
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert pane.report is not None and len(pane.report.proposals) == 12
    after = tree_digests(home)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    # Every entry file is back byte for byte; what changed is the record of it all.
    assert all(p.startswith(".config/memoir/") for p in changed), changed
    assert not [p for p in changed if p.endswith(".md")], changed


async def test_a_wrong_count_refuses_and_changes_nothing(store: Memoir, home: Path) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        before = tree_digests(home)
        await pilot.press("space", "j", "j", "space", "X")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        await type_text(pilot, "3")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)  # still asking
        assert "-shown" in app.screen.query_one("#confirm-error").classes
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert len(pane.marked) == 2  # the marks stay for another try
    assert tree_digests(home) == before
    assert not (store.root / "trash").exists()


async def test_apply_uses_the_action_chosen_with_c_and_undo_can_be_refused(
    store: Memoir,
) -> None:
    memory = store.memory_dir
    keeper = (memory / "fact_api-base-url.md").read_bytes()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        dup = proposal(pane, "duplicate")
        await pilot.press("c")  # merge → trash
        assert pane.action_for(dup) == "trash"
        assert str(pane.table.get_row(dup.id)[2]) == "trash"
        await pilot.press("space", "X")
        await settle(pilot)
        await type_text(pilot, "1")
        await pilot.press("enter")
        await settle(pilot)
        assert not (memory / "fact_api-endpoint.md").exists()
        assert (memory / "fact_api-base-url.md").read_bytes() == keeper  # trashed, not merged
        await pilot.press("U")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
        assert pane.undo_record is not None
    assert not (memory / "fact_api-endpoint.md").exists()
    assert store.trash.records()[0].status == "active"


async def test_apply_and_undo_with_nothing_to_do_only_explain(store: Memoir, home: Path) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_consolidate(pilot)
        before = tree_digests(home)
        await pilot.press("X")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert any("Nothing is marked" in m for m in messages(app))
        await pilot.press("U")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert any("no apply is left in the trash" in m for m in messages(app))
        await pilot.press("u")
        await settle(pilot)
        assert any("Nothing to undo in this session" in m for m in messages(app))
    assert tree_digests(home) == before


# --- keep ----------------------------------------------------------------------------------


async def test_keep_dismisses_the_marked_proposal(store: Memoir, home: Path) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        before = tree_digests(home)
        bloated = proposal(pane, "bloated")
        await select(pilot, pane, bloated.id)
        await pilot.press("space", "K")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # cancelled: nothing is written
        await settle(pilot)
        assert not (store.root / core.DISMISSED_FILE).exists()
        await pilot.press("K")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert bloated.id not in pane.table.row_keys
        assert pane.report is not None and pane.report.dismissed == 1
        assert "1 kept earlier" in str(pane.query_one("#consolidate-status").render())
    data = json.loads((store.root / core.DISMISSED_FILE).read_text(encoding="utf-8"))
    assert list(data["dismissed"]) == [bloated.id]
    after = tree_digests(home)
    assert after.pop(f".config/memoir/{core.DISMISSED_FILE}")
    assert after == before  # no entry file was touched


# --- details -------------------------------------------------------------------------------


async def test_near_duplicate_detail_shows_a_side_by_side_diff(store: Memoir) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        near = proposal(pane, "near_duplicate")
        await select(pilot, pane, near.id)
        await pilot.press("enter")
        await settle(pilot)
        detail = app.screen
        assert isinstance(detail, ProposalDetailScreen)
        diff = detail.query_one(SideBySideDiff)
        assert diff.left_title == "kept: ~/.config/memoir/memory/lesson_migrations-on-a-copy.md"
        assert (
            diff.right_title == "merged in: ~/.config/memoir/memory/lesson_rehearse-migrations.md"
        )
        left = [r.left.text for r in diff.rows if r.left]
        right = [r.right.text for r in diff.rows if r.right]
        keep_text = (store.memory_dir / "lesson_migrations-on-a-copy.md").read_text()
        other_text = (store.memory_dir / "lesson_rehearse-migrations.md").read_text()
        assert left == keep_text.splitlines() and right == other_text.splitlines()
        name_row = next(r for r in diff.rows if r.left and r.left.text.startswith("name:"))
        assert name_row.tag == "replace"
        assert name_row.right and name_row.right.text.startswith("name: Rehearse migrations")
        assert name_row.left.changed and name_row.right.changed
        assert diff.changed > 0
        # The two columns scroll together.
        left_column = detail.query_one("#diff-left", DiffColumn)
        right_column = detail.query_one("#diff-right", DiffColumn)
        assert app.focused is left_column
        await pilot.press("end")
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        assert left_column.scroll_y > 0
        assert right_column.scroll_y == left_column.scroll_y
        # space marks the proposal and closes the details.
        await pilot.press("space")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert pane.marked == {near.id}


async def test_other_details_show_why_and_evidence(store: Memoir) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_consolidate(pilot)
        dead = proposal(pane, "dead_link")
        await select(pilot, pane, dead.id)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ProposalDetailScreen)
        assert not app.screen.query(SideBySideDiff)
        evidence = rendered(app.screen.query_one("#proposal-evidence", Static))
        assert "~/.config/memoir/memory/fact_deploy.md:9: [[lesson_missing-page]]" in evidence
        facts = rendered(app.screen.query_one("#proposal-facts", Static))
        assert "Why" in facts and "unlink" in facts
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0] and pane.marked == set()


async def test_palette_offers_consolidate_commands_with_keys(store: Memoir) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        for title, key in {
            "consolidate: mark": "space",
            "consolidate: apply marked": "X",
            "consolidate: keep marked": "K",
            "consolidate: undo last apply": "U",
            "consolidate: rescan": "r",
            "consolidate: details": "⏎",
        }.items():
            assert title in commands, title
            assert commands[title].endswith(f"key {key}"), (title, commands[title])


# --- the side-by-side alignment -----------------------------------------------------------


def test_align_pairs_lines_and_fills_gaps() -> None:
    rows = align(["a", "b", "c", "d"], ["a", "B", "c", "x", "d"])
    assert [r.tag for r in rows] == ["equal", "replace", "equal", "insert", "equal"]
    assert rows[3].left is None and rows[3].right is not None and rows[3].right.number == 4
    assert rows[1].left is not None and rows[1].left.changed == ((0, 1),)
    assert changed_rows(rows) == 2
    uneven = align(["1", "2", "3"], ["9"])
    assert [(r.tag, bool(r.left), bool(r.right)) for r in uneven] == [
        ("replace", True, True),
        ("delete", True, False),
        ("delete", True, False),
    ]


# --- snapshot --------------------------------------------------------------------------------


def test_consolidate_pane_snapshot(snap_compare: Any, store: Memoir) -> None:
    app = make_app(store)
    assert snap_compare(
        app, terminal_size=(100, 30), run_before=pressing(PANE_KEY, "space", "j", "j")
    )
