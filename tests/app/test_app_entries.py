"""Pilot tests for the Entries pane: browse by tool, type and project; detail; $EDITOR.

The scratch home of ``tests/app/world.py`` (store entries, Claude Code memory and
instructions, a second project, a decision hidden through ``Memoir``) is
browsed here. An ``EDITOR`` script stands in for a person editing a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Markdown, Static

from memoir_tui.core.door.audit import read_audit
from memoir_tui.dialogs.entry import EntryScreen
from memoir_tui.dialogs.help import own_bindings
from memoir_tui.panes.entries import ANY, EVERY, GLOBAL, SCOPE, EntriesPane
from memoir_tui.panes.registry import pane_spec
from memoir_tui.ui.entry_document import editor_command
from tests.app.helpers import SIZE, messages, open_pane, pressing, rendered, select, settle, write
from tests.app.world import HIDDEN_DECISION, AppWorld

LESSON = "Rehearse migrations on a copy"
BILLING = "Billing ledger namespace"


@pytest.fixture
def editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$EDITOR: a script that appends a line to the file it is given."""
    script = write(
        tmp_path / "bin" / "append-editor",
        '#!/bin/sh\nprintf "\\nAppended by the test editor.\\n" >> "$1"\n',
    )
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    return script


async def open_entries(pilot: Pilot[Any]) -> EntriesPane:
    pane = await open_pane(pilot, EntriesPane)
    assert pane.snapshot is not None and not pane.snapshot.error
    return pane


async def select_name(pilot: Pilot[Any], pane: EntriesPane, name: str) -> None:
    await select(pilot, pane, key_of(pane, name))
    selected = pane.selected()
    assert selected is not None and selected.name == name


def rows(pane: EntriesPane) -> list[tuple[str, ...]]:
    """(name, type, tool, project) of every row shown."""
    table = pane.table
    return [tuple(str(c) for c in table.get_row(key))[:4] for key in table.row_keys]


def names(pane: EntriesPane) -> list[str]:
    return [r[0] for r in rows(pane)]


def key_of(pane: EntriesPane, name: str) -> str:
    assert pane.snapshot is not None
    return next(e.key for e in pane.snapshot.entries if e.name == name)


# --- browsing ---------------------------------------------------------------------------------


async def test_lists_this_projects_and_global_files_and_A_widens(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_entries(pilot)
        shown = names(pane)
        assert {"Cluster layout", LESSON, "Deploy pipeline", "Global", "Agents"} <= set(shown)
        # Working-set items are not files; the hidden decision's file is never listed.
        assert HIDDEN_DECISION not in shown
        assert "Use the capybara queue for kubernetes batch jobs" not in shown
        # Another project's entry is out of scope by default.
        assert BILLING not in shown
        row = dict((r[0], r) for r in rows(pane))
        assert row["Deploy pipeline"] == (
            "Deploy pipeline",
            "fact",
            "claude-code",
            "webshop",  # its label: the folder name, unique among the projects
        )
        assert row["Cluster layout"][3] == "global"

        await pilot.press("A")
        await pilot.pause()
        assert pane.filter.project == EVERY and BILLING in names(pane)
        assert HIDDEN_DECISION not in names(pane)
        assert pane.select("project").value == EVERY
        await pilot.press("A")
        await pilot.pause()
        assert pane.filter.project == SCOPE and BILLING not in names(pane)

        # p cycles: this project + global, every project, global only, then each project.
        await pilot.press("w", "w")
        await pilot.pause()
        assert pane.filter.project == GLOBAL
        assert {r[3] for r in rows(pane)} == {"global"}
        assert BILLING not in names(pane)
        await pilot.press("w")  # the first named project: ~/src/billing
        await pilot.pause()
        assert pane.filter.project == str(world.other)
        assert names(pane) == [BILLING]
        status = str(pane.query_one("#entries-status").render())
        assert "project: ~/src/billing" in status


async def test_tool_and_type_filters(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_entries(pilot)
        tools = [v for _, v in pane._options["tool"]]
        assert tools[0] == ANY and {"claude-code", "memoir", "agents-md"} <= set(tools)
        while pane.filter.tool != "claude-code":
            await pilot.press("t")
            await pilot.pause()
        assert pane.select("tool").value == "claude-code"
        assert {r[2] for r in rows(pane)} == {"claude-code"}
        assert {"Deploy pipeline", "Global"} <= set(names(pane))
        while pane.filter.type != "fact":
            await pilot.press("y")
            await pilot.pause()
        assert names(pane) == ["Deploy pipeline"]

        # The selectors are the same filters, for the mouse.
        pane.select("tool").value = "memoir"
        await settle(pilot)
        assert pane.filter.tool == "memoir"
        assert names(pane) == ["Cluster layout"]
        pane.select("type").value = ANY
        await settle(pilot)
        assert {r[1] for r in rows(pane)} == {"fact", "decision", "lesson"}

        # / filters by name, description or path; escape clears it.
        pane.select("tool").value = ANY
        await settle(pilot)
        await pilot.press("slash")
        assert isinstance(pilot.app.focused, Input)
        await pilot.press(*"webshop ships")
        await pilot.pause()
        assert names(pane) == ["Deploy pipeline"]  # its description: How the webshop ships
        await pilot.press("enter", "escape")
        await pilot.pause()
        assert pane.filter.text == "" and len(names(pane)) > 1


# --- the detail view -----------------------------------------------------------------------


async def test_detail_shows_frontmatter_table_and_findings(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_entries(pilot)
        await select_name(pilot, pane, LESSON)
        assert "~/.config/memoir/memory/lesson_rehearse-migrations.md" in rendered(
            pane.query_one("#entries-preview", Static)
        )
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EntryScreen)
        document = screen.document
        assert document is not None and document.findings is not None
        assert {(f.severity, f.rule) for f in document.findings} == {
            ("error", "lesson.trigger"),
            ("error", "lesson.how_to_apply"),
        }
        findings = rendered(screen.query_one("#entry-findings", Static))
        assert "lesson.trigger" in findings and "lesson without `trigger` (required)" in findings
        table = screen.frontmatter_table
        assert table.display and table.row_count == 3
        assert dict(table.items) == {
            "type": "lesson",
            "name": LESSON,
            "created": "2026-04-10",
        }
        body = screen.query_one("#entry-body", Markdown)
        assert body.source.startswith("# Rehearse migrations")
        assert "type: lesson" not in body.source
        await pilot.press("escape")
        await settle(pilot)

        # A valid entry: no findings. An instruction file: not checked, no frontmatter.
        await select_name(pilot, pane, "Cluster layout")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, EntryScreen)
        assert app.screen.document is not None and app.screen.document.findings == ()
        assert "No findings" in rendered(app.screen.query_one("#entry-findings", Static))
        await pilot.press("escape")
        await settle(pilot)
        await select_name(pilot, pane, "Global")
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EntryScreen)
        assert screen.document is not None and screen.document.findings is None
        assert "Not checked" in rendered(screen.query_one("#entry-findings", Static))
        assert not screen.frontmatter_table.display
        assert "Always run the linter" in screen.query_one("#entry-body", Markdown).source


async def test_e_in_the_detail_edits_and_the_view_reads_it_again(
    world: AppWorld, editor: Path
) -> None:
    path = world.memory / "lesson_rehearse-migrations.md"
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_entries(pilot)
        await select_name(pilot, pane, LESSON)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EntryScreen)
        body = screen.query_one("#entry-body", Markdown)
        assert "Appended by the test editor." not in body.source
        await pilot.press("e")
        await settle(pilot)
        assert path.read_text(encoding="utf-8").endswith("\nAppended by the test editor.\n")
        assert "Appended by the test editor." in body.source
        assert screen.edited
        # The editor worked on a private copy; the edit came in through the store's door.
        (record,) = read_audit(world.store.root, limit=1)
        assert (record.operation, record.actor) == ("edit_entry", world.store.actor)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


async def test_e_in_the_list_edits_and_the_list_reads_it_again(
    world: AppWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(
        tmp_path / "bin" / "rename-editor",
        "#!/bin/sh\nsed -i 's/^name: .*/name: Rehearse migrations on staging/' \"$1\"\n",
    )
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", f"{script} --wait")  # $EDITOR may carry arguments
    assert editor_command() == [str(script), "--wait"]
    monkeypatch.setenv("EDITOR", str(script))
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_entries(pilot)
        await select_name(pilot, pane, LESSON)
        await pilot.press("e")
        await settle(pilot)
        assert "Rehearse migrations on staging" in names(pane)
        assert LESSON not in names(pane)
        selected = pane.selected()
        assert selected is not None and selected.name == "Rehearse migrations on staging"


async def test_e_without_editor_says_how_to_set_it(
    world: AppWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    path = world.memory / "lesson_rehearse-migrations.md"
    before = path.read_bytes()
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_entries(pilot)
        await select_name(pilot, pane, LESSON)
        await pilot.press("e")
        await settle(pilot)
        assert any("$EDITOR is not set" in m and "export EDITOR=" in m for m in messages(pilot.app))
        monkeypatch.setenv("EDITOR", str(world.home / "no-such-editor"))
        await pilot.press("e")
        await settle(pilot)
        assert any("Could not start $EDITOR" in m for m in messages(pilot.app))
    assert path.read_bytes() == before


# --- keys, palette, snapshot -----------------------------------------------------------------


def test_bindings_have_ids_and_key_tables() -> None:
    assert "| Key(s) | Description |" in (EntriesPane.__doc__ or "")
    ids = [b.id for b in own_bindings(EntriesPane)]
    assert all(i and i.startswith("entries.") for i in ids), ids
    assert len(ids) == len(set(ids)) and "entries.open_editor" in ids
    shown = [b for b in own_bindings(EntriesPane) if b.show]
    assert 3 <= len(shown) <= 5
    assert all(c.binding_id in set(ids) for c in EntriesPane.COMMANDS)


def test_entries_pane_snapshot(snap_compare: Any, world: AppWorld) -> None:
    assert snap_compare(
        world.app(), terminal_size=SIZE, run_before=pressing(pane_spec("entries").key, "G", "k")
    )
