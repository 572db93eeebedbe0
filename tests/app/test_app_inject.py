"""Pilot tests for the Inject pane: targets, sizes against limits, preview, diff, inject.

A scratch HOME holds the assistants' folders; the store is a copy of the
planted consolidate fixture (it has a hidden and a purged decision, a
rejected alternative and another project's items, none of which may ever
reach a target).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from memoir_tui.core.services.inject import BLOCK_END, BLOCK_START, remove_block
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen
from memoir_tui.dialogs.inject_diff import InjectDiffScreen
from memoir_tui.panes.inject import NO_TARGETS, InjectPane
from memoir_tui.panes.registry import pane_spec
from tests.app.helpers import (
    SIZE,
    eventually,
    fixture_store,
    make_app,
    messages,
    open_pane,
    pressing,
    rendered,
    settle,
)

PANE_KEY = pane_spec("inject").key
USER_TEXT = (
    "# My rules\n\nBe terse.  Trailing spaces stay.  \n\n## Below\nTabs\tand no final newline"
)
DAMAGED = "# Gemini\n\n<!-- memoir:session-block v1 -->\nno end marker here\n"
NEVER = (
    "HIDDEN-DECISION-TEXT",
    "HIDDEN-DECISION-WHY",
    "[purged]",
    "LMDB-REJECTED-ALTERNATIVE",
    "OTHER-PROJECT-DECISION",
    "Rotate the staging keys",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    (path / ".claude").mkdir(parents=True)
    (path / ".claude" / "CLAUDE.md").write_text(USER_TEXT, encoding="utf-8")
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def store(home: Path) -> Memoir:
    return fixture_store(home)


def add_windsurf_and_damaged_gemini(home: Path) -> None:
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    (home / ".gemini").mkdir()
    (home / ".gemini" / "GEMINI.md").write_text(DAMAGED, encoding="utf-8")


async def open_inject(pilot: Pilot[Any]) -> InjectPane:
    pane = await open_pane(pilot, InjectPane)
    assert pane.planned and not pane.busy
    return pane


def status(pane: InjectPane) -> str:
    return str(pane.query_one("#inject-status").render())


def row_cells(pane: InjectPane, path: Path) -> list[str]:
    return [str(c) for c in pane.table.get_row(str(path))]


async def test_inject_writes_the_block_and_keeps_the_user_text(store: Memoir, home: Path) -> None:
    claude = home / ".claude" / "CLAUDE.md"
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_inject(pilot)
        assert row_cells(pane, claude)[:2] == ["claude", "~/.claude/CLAUDE.md"]
        assert row_cells(pane, claude)[3] == "update"
        preview = pane.query_one("#inject-preview", TextArea)
        assert preview.read_only
        assert preview.text.startswith(BLOCK_START) and preview.text.endswith(BLOCK_END)
        assert "Write the export command" in preview.text
        for secret in NEVER:
            assert secret not in preview.text, secret
        assert "1 update · i writes them" in status(pane)

        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]

        written = claude.read_text(encoding="utf-8")
        assert written.count(BLOCK_START) == 1 and written.count(BLOCK_END) == 1
        start, end = written.index(BLOCK_START), written.index(BLOCK_END) + len(BLOCK_END)
        assert written[start:end] == preview.text
        assert remove_block(written) == USER_TEXT  # not a byte outside the markers changed
        assert written.startswith("# My rules\n") and written.endswith("no final newline")
        for secret in NEVER:
            assert secret not in written, secret
        # Planned again: now nothing is left to write.
        assert row_cells(pane, claude)[3] == "unchanged"
        assert "nothing to write" in status(pane)
        assert any("Block written into 1 file(s): ~/.claude/CLAUDE.md" in m for m in messages(app))
        await pilot.press("i")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert any("Nothing to write" in m for m in messages(app))
    assert claude.read_text(encoding="utf-8") == written


async def test_quitting_mid_inject_waits_for_the_block_to_be_written(
    store: Memoir, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The inject runs through the app's one write path: quitting waits for it like any write.
    import memoir_tui.app as app_module
    import memoir_tui.panes.inject as inject_pane

    monkeypatch.setattr(app_module, "QUIT_WAIT_SECONDS", 120.0)  # a safety net only
    gate, started = threading.Event(), threading.Event()
    real_apply = inject_pane.apply_inject

    def held_apply(store: Memoir, changes: Any) -> Any:
        started.set()
        assert gate.wait(30), "the test never released the inject"
        return real_apply(store, changes)

    monkeypatch.setattr(inject_pane, "apply_inject", held_apply)
    claude = home / ".claude" / "CLAUDE.md"
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_inject(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        try:
            await pilot.press("y")
            assert started.wait(30), "the inject never started"
            quitting = asyncio.ensure_future(app.action_quit())
            await eventually(pilot, lambda: app.closing, "quitting to begin")
            assert [w.group for w in app.writes_in_flight()] == ["inject-write"]
            assert not quitting.done()  # held: still waiting
            assert claude.read_text(encoding="utf-8") == USER_TEXT
        finally:
            gate.set()
        await quitting
    assert app.return_code == 0
    assert BLOCK_START in claude.read_text(encoding="utf-8")


async def test_inject_cancelled_writes_nothing(store: Memoir, home: Path) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_inject(pilot)
        await pilot.press("i")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
    assert (home / ".claude" / "CLAUDE.md").read_text(encoding="utf-8") == USER_TEXT


async def test_limits_errors_and_the_dry_run_diff(store: Memoir, home: Path) -> None:
    add_windsurf_and_damaged_gemini(home)
    windsurf = home / ".codeium" / "windsurf" / "memories" / "global_rules.md"
    gemini = home / ".gemini" / "GEMINI.md"
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_inject(pilot)
        target, path, size, state = row_cells(pane, windsurf)
        assert (target, path, state) == (
            "windsurf",
            "~/.codeium/windsurf/memories/global_rules.md",
            "create",
        )
        assert size.endswith(" / 6,000 chars")
        target, path, size, state = row_cells(pane, gemini)
        assert target == "gemini" and state.startswith("error: damaged memoir block")
        assert size == f"{len(DAMAGED)} chars"

        # The selected target's detail names the whole error; its preview is empty.
        assert pane.table.move_to_key(str(gemini))
        await pilot.pause()
        detail = rendered(pane.query_one("#inject-detail", Static))
        assert "without an end marker" in detail
        assert pane.query_one("#inject-preview", TextArea).text == ""

        # The dry run of the windsurf file: the whole new file as a diff.
        assert pane.table.move_to_key(str(windsurf))
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, InjectDiffScreen)
        diff = rendered(app.screen.query_one("#inject-diff", Static))
        assert "--- /dev/null" in diff
        assert "+++ ~/.codeium/windsurf/memories/global_rules.md" in diff
        assert f"+{BLOCK_START}" in diff
        await pilot.press("escape")
        await settle(pilot)

        await pilot.press("i")
        await settle(pilot)
        body = rendered(app.screen.query_one("#confirm-body", Static))
        assert "~/.claude/CLAUDE.md" in body and "global_rules.md" in body
        assert "GEMINI" not in body  # a damaged file is never offered
        await pilot.press("y")
        await settle(pilot)
    assert windsurf.read_text(encoding="utf-8").count(BLOCK_START) == 1
    assert gemini.read_text(encoding="utf-8") == DAMAGED  # left untouched


async def test_no_targets_explains_where_the_block_goes(store: Memoir, home: Path) -> None:
    shutil.rmtree(home / ".claude")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_inject(pilot)
        assert pane.changes == ()
        assert status(pane) == NO_TARGETS
        await pilot.press("v")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


async def test_session_change_replans_the_block(store: Memoir, home: Path) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_inject(pilot)
        preview = pane.query_one("#inject-preview", TextArea)
        assert "Ship the CSV export" not in preview.text
        store.add_next_action("Ship the CSV export")
        app.reload()
        await settle(pilot)
        assert "Ship the CSV export" in preview.text


def test_inject_pane_snapshot(snap_compare: Any, store: Memoir, home: Path) -> None:
    add_windsurf_and_damaged_gemini(home)
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=pressing(PANE_KEY))


async def test_an_item_holding_a_secret_is_left_out_and_the_pane_says_so(
    store: Memoir, home: Path
) -> None:
    # Another tool wrote a decision holding a token into session.json.
    token = "gh" + "p_" + "q7Xk2Lm9VtR4wZp8NcYh3JsGd6BfTu1EaWn5HyKe"[:36]
    session = json.loads(store.session_path.read_text())
    session["current"]["decisions"].insert(
        0, {"text": f"Deploy with {token}", "date": "2026-07-30T00:00:00.000Z"}
    )
    store.session_path.write_text(json.dumps(session, indent=2))
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_inject(pilot)
        assert "left out: they hold a secret (github-token)" in status(pane)
        assert token not in pane.query_one("#inject-preview", TextArea).text
