"""The header says which caps are in force when they are not memoir-tui's defaults."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Label

from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.widgets.store_bar import StoreBar
from tests.app.helpers import SIZE, make_app, settle


async def test_the_header_names_the_javascript_caps_and_why(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")
    app = make_app(Memoir(store_dir, machine_label="test-machine", actor="app"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.query_one(StoreBar)
        label = bar.query_one("#store-bar-caps", Label)
        assert str(label.content) == (
            "caps: JavaScript memoir's (3/8/5/10) — its files are in this store; "
            "set [caps] to change"
        )
        assert label.display


async def test_the_header_shows_no_caps_note_on_our_defaults(store_dir: Path) -> None:
    app = make_app(Memoir(store_dir, machine_label="test-machine", actor="app"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.query_one("#store-bar-caps", Label).display
