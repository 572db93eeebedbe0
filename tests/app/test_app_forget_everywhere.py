"""Decisions pane, ``F`` (palette: "decisions: forget everywhere…"): every place listed,
a typed word, then the text is gone from the session, the queue and a host file."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import TypeToConfirmScreen
from memoir_tui.panes.decisions import DecisionsPane
from tests.app.helpers import SIZE, make_app, open_pane, settle, type_text

TEXT = "Ship Quillfeather behind a flag"


async def test_forget_everywhere_lists_the_places_and_needs_the_typed_word(
    store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    agents = project / "AGENTS.md"
    agents.write_text("# Agents\nNever say quillfeather in commits.\nBe brief.\n")
    (store_dir / "memoir-tui.toml").write_text(f'[recall]\nproject_roots = ["{project}"]\n')
    store = Memoir(store_dir, machine_label="test-machine", actor="app")
    store.note_decision(TEXT)
    store.note_decision("Use tabs")
    store.review.enqueue([{"text": "Rename Quillfeather", "source": "user", "extractor": "t"}])
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")  # the filter's text is what is forgotten
        await type_text(pilot, "quillfeather")
        await pilot.press("enter")  # back to the table, the filter kept
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "AGENTS.md" in body and "review" in body and "decisions" in body
        await type_text(pilot, "nope")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)  # refused, still open
        assert "quillfeather" in agents.read_text()
        app.screen.query_one("Input").value = ""
        await type_text(pilot, "forget")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
    assert agents.read_text() == "# Agents\nBe brief.\n"
    assert "quillfeather" not in store.session_path.read_text().lower()
    assert "quillfeather" not in (store_dir / "review.json").read_text().lower()
    assert [d.text for d in store.working_set().decisions] == ["Use tabs"]


def test_the_key_is_free_in_the_pane_and_the_app() -> None:
    from memoir_tui.app import MemoirApp

    pane_keys = [b.key for b in DecisionsPane.BINDINGS]
    assert pane_keys.count("F") == 1
    assert "F" not in [b.key for b in MemoirApp.BINDINGS]
