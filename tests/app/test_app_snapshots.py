"""SVG snapshots of each pane and of the hide and purge dialogs, at 100×30 and 80×24.

Deterministic on purpose: a fresh copy of the shipped demo fixtures, a fixed
machine label, a fixed header path, a fixed clock, no file watcher, and no
blinking cursors (``demo_store``, ``make_app`` and ``pressing`` of tests/app). Regenerate with
``.venv/bin/python -m pytest -n0 tests/app/test_app_snapshots.py --snapshot-update``.

These are plain ``def`` tests: ``snap_compare`` runs its own event loop.
"""

from __future__ import annotations

from typing import Any

import pytest

from memoir_tui.app import MemoirApp
from memoir_tui.core.workflows.memoir import Memoir
from tests.app.helpers import make_app, pressing

SIZES = [(100, 30), (80, 24)]
size_ids = [f"{w}x{h}" for w, h in SIZES]


@pytest.fixture
def snapshot_app(demo_store: Memoir) -> MemoirApp:
    return make_app(demo_store)


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_working_set_pane(
    snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing())


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_decisions_pane(snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing("2", "j", "j"))


def test_decisions_with_tombstones(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    assert snap_compare(snapshot_app, terminal_size=(100, 30), run_before=pressing("2", "h", "G"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_hide_confirm_dialog(
    snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing("2", "j", "d"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_purge_dialog(snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing("2", "D"))


def test_purge_dialog_refusal(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    presses = ("2", "D", "n", "o", "p", "e", "enter")
    assert snap_compare(snapshot_app, terminal_size=(100, 30), run_before=pressing(*presses))


def test_help_screen(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    assert snap_compare(snapshot_app, terminal_size=(100, 30), run_before=pressing("question_mark"))


def test_add_item_dialog(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    assert snap_compare(snapshot_app, terminal_size=(80, 24), run_before=pressing("a", "ctrl+g"))


# --- issue 13's views: history, an item in full, closing a question, the welcome ---------


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_history_pane(snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing("0", "j"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_item_detail(snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing("enter"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_close_question_dialog(
    snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=pressing("tab", "x"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_welcome_on_an_empty_store(snap_compare: Any, tmp_path: Any, size: tuple[int, int]) -> None:
    empty = Memoir(tmp_path / "store", machine_label="laptop")
    assert snap_compare(make_app(empty), terminal_size=size, run_before=pressing())
