"""SVG snapshots of each pane and of the hide and purge dialogs, at 100×30 and 80×24.

Deterministic on purpose: a fresh copy of the shipped demo fixtures, a fixed
machine label, a fixed header path, a fixed clock, no file watcher, and no
blinking cursors. Regenerate with
``.venv/bin/python -m pytest -n0 tests/app/test_app_snapshots.py --snapshot-update``.

These are plain ``def`` tests: ``snap_compare`` runs its own event loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from memoir_tui.app import MemoirApp
from memoir_tui.core.demo import DEMO_MACHINE_LABEL, create_demo_store
from memoir_tui.core.identity import iso_from_ms, parse_date_ms
from memoir_tui.core.store import Store

SIZES = [(100, 30), (80, 24)]
size_ids = [f"{w}x{h}" for w, h in SIZES]


def fixed_clock() -> Callable[[], str]:
    ms = parse_date_ms("2026-07-01T09:00:00.000Z")

    def clock() -> str:
        nonlocal ms
        ms += 1000
        return iso_from_ms(ms)

    return clock


@pytest.fixture
def snapshot_app(tmp_path: Path) -> MemoirApp:
    root = create_demo_store(tmp_path / "store")
    store = Store(root, clock=fixed_clock(), machine_label=DEMO_MACHINE_LABEL)
    return MemoirApp(store, display_path="~/.config/memoir", poll_interval=None)


def keys(*presses: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Press keys, let everything settle, and stop input cursors from blinking."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        for key in presses:
            await pilot.press(key)
            await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_working_set_pane(
    snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=keys())


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_decisions_pane(snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=keys("2", "j", "j"))


def test_decisions_with_tombstones(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    assert snap_compare(snapshot_app, terminal_size=(100, 30), run_before=keys("2", "t", "G"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_hide_confirm_dialog(
    snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]
) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=keys("2", "j", "d"))


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_purge_dialog(snap_compare: Any, snapshot_app: MemoirApp, size: tuple[int, int]) -> None:
    assert snap_compare(snapshot_app, terminal_size=size, run_before=keys("2", "D"))


def test_purge_dialog_refusal(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    presses = ("2", "D", "n", "o", "p", "e", "enter")
    assert snap_compare(snapshot_app, terminal_size=(100, 30), run_before=keys(*presses))


def test_help_screen(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    assert snap_compare(snapshot_app, terminal_size=(100, 30), run_before=keys("question_mark"))


def test_add_item_dialog(snap_compare: Any, snapshot_app: MemoirApp) -> None:
    assert snap_compare(snapshot_app, terminal_size=(80, 24), run_before=keys("a", "ctrl+g"))
