"""Issue 13's smaller promises, each read back from disk or screen: purge what was hidden,
the history pane, the review count on its tab, a remembered theme, help that scrolls."""

from __future__ import annotations

import os
from pathlib import Path

from textual.containers import VerticalScroll
from textual.widgets import Tab, TabbedContent

from memoir_tui.core.door.config import load_config
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import TypeToConfirmScreen
from memoir_tui.dialogs.help import HelpScreen
from memoir_tui.dialogs.history import HistoryDetailScreen
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.history import HistoryPane
from tests.app.helpers import SIZE, make_app, open_pane, settle, type_text
from tests.conftest import JulyClock

HIDDEN = "Use Redux Toolkit for client state"  # a tombstone of the demo store


def files_holding(root: Path, text: str) -> list[str]:
    found = []
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            try:
                if text.encode() in path.read_bytes():
                    found.append(str(path.relative_to(root)))
            except OSError:
                continue
    return found


async def test_d_capital_purges_a_decision_hidden_earlier(demo_store: Memoir) -> None:
    assert files_holding(demo_store.root, HIDDEN)  # hidden, but its text is still there
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("h")
        await settle(pilot)
        assert pane.table.move_to_key(text_hash(HIDDEN))
        await pilot.press("D")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        await type_text(pilot, "purge")
        await pilot.press("enter")
        await settle(pilot)
    assert files_holding(demo_store.root, HIDDEN) == []


async def test_history_pane_lists_and_filters_summaries(demo_store: Memoir) -> None:
    total = len(demo_store.working_set(all_projects=True).history)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, HistoryPane)
        assert pane.table.row_count == total > 3
        await pilot.press("slash")
        await type_text(pilot, "pipx moved")  # every word, in any order
        await settle(pilot)
        assert pane.table.row_count == 1
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, HistoryDetailScreen)
        assert "pipx" in app.screen.entry.summary


async def test_review_tab_counts_what_is_waiting(demo_store: Memoir) -> None:
    capture = Memoir(demo_store.root, clock=JulyClock(), actor="capture")
    capture.review.enqueue(
        [{"text": t, "source": "transcript"} for t in ("Use uv for Python", "Pin Node 20")]
    )
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tabs = app.query_one("#panes", TabbedContent)
        labels = [t.label_text for t in tabs.query(Tab)]
        waiting = len(demo_store.review.list_items(states=("candidate",)))
        assert any(label.startswith("3") and label.endswith(str(waiting)) for label in labels)


async def test_a_theme_chosen_is_remembered_for_the_next_run(tmp_path: Path) -> None:
    store = Memoir(tmp_path / "store", machine_label="laptop")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.theme = "nord"
        await settle(pilot)
    assert load_config(store.root).theme == "nord"
    again = make_app(Memoir(store.root, machine_label="laptop"))
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "nord"


async def test_help_scrolls_with_j_k_g_and_capital_g(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        sections = app.screen.query_one("#help-sections", VerticalScroll)
        await pilot.press("G")
        await pilot.pause()
        assert sections.scroll_y == sections.max_scroll_y > 0
        await pilot.press("k")
        await pilot.pause()
        assert sections.scroll_y == sections.max_scroll_y - 1
        await pilot.press("g")
        await pilot.pause()
        assert sections.scroll_y == 0
        await pilot.press("j")
        await pilot.pause()
        assert sections.scroll_y == 1
