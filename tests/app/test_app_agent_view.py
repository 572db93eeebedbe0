"""Pilot tests for the Agent view pane: what each host loads at session start.

A scratch HOME holds Claude Code's folders (a CLAUDE.md, a MEMORY.md longer
than the 200 lines Claude Code reads, our session-start hook), a Windsurf
rules file past its 6,000 characters and a project with Cursor rules, one
always applied and one not.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.format.identity import identity
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.agent_view import AgentViewPane
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.registry import pane_spec
from memoir_tui.panes.working_set import WorkingSetPane
from tests.app.helpers import SIZE, make_app, open_pane, pressing, settle
from tests.paths import REPO

PANE_KEY = pane_spec("agent-view").key


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    path = home / "code" / "app"
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:me/app.git\n')
    monkeypatch.chdir(path)
    (path / "CLAUDE.md").write_text("# App\n\nRun the tests before pushing.\n")
    # Claude Code names a project's folder by its path, every other character a dash
    memory = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(path))
    (memory / "memory").mkdir(parents=True)
    index = "".join(f"- [Note {i}](note{i}.md) — hook {i}\n" for i in range(1, 251))
    (memory / "memory" / "MEMORY.md").write_text(index)
    rules = path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "always.mdc").write_text("---\nalwaysApply: true\n---\nUse tabs.\n")
    (rules / "manual.mdc").write_text("---\nalwaysApply: false\n---\nSECRET-MANUAL-RULE\n")
    windsurf = home / ".codeium" / "windsurf" / "memories"
    windsurf.mkdir(parents=True)
    (windsurf / "global_rules.md").write_text("w" * 5990 + "\nPAST-THE-LIMIT\n")
    store_dir = tmp_path / "store"
    env = {"HOME": str(home), "MEMOIR_HOME": str(store_dir), "PYTHONPATH": str(REPO), "PATH": ""}
    for args in (
        ("goal", "Ship the CSV importer"),
        ("note", "Use streaming writes", "--why", "bounded memory"),
        ("install-hooks", "claude"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            cwd=path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return path


@pytest.fixture
def store(project: Path, tmp_path: Path) -> Memoir:
    return Memoir.for_directory(tmp_path / "store", actor="app", cwd=project)


def lines(pane: AgentViewPane) -> list[tuple[str, str]]:
    table = pane.lines_table
    out = []
    for key in table.row_keys:
        row = table.get_row(key)
        out.append((str(row[0]), str(row[1])))
    return out


async def open_view(pilot: Any) -> AgentViewPane:
    pane = await open_pane(pilot, AgentViewPane)
    await settle(pilot)
    assert pane.views is not None
    return pane


async def test_claude_code_shows_the_brief_and_marks_what_memory_md_cuts(store: Memoir) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_view(pilot)
        assert pane.hosts_table.cursor_key == "claude-code"
        shown = lines(pane)
        text = "\n".join(line for _, line in shown)
        assert "Ship the CSV importer" in text  # the brief, from the working set
        assert "Run the tests before pushing." in text  # CLAUDE.md
        past = [line for where, line in shown if "past limit" in where]
        assert past[0] == "- [Note 201](note201.md) — hook 201" and len(past) == 50
        assert any("250 lines / 200 lines" in line for _, line in shown)


async def test_each_host_loads_what_it_loads(store: Memoir) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_view(pilot)
        assert pane.hosts_table.move_to_key("cursor")
        await settle(pilot)
        text = "\n".join(line for _, line in lines(pane))
        assert "Use tabs." in text and "SECRET-MANUAL-RULE" not in text  # only alwaysApply
        assert pane.hosts_table.move_to_key("windsurf")
        await settle(pilot)
        shown = lines(pane)
        assert [line for where, line in shown if "past limit" in where] == ["PAST-THE-LIMIT"]
        assert pane.hosts_table.move_to_key("codex")
        await settle(pilot)
        status = str(pane.query_one("#agent-status").render())
        assert "install-hooks codex" in status  # no brief without our hook, and it says so


async def test_enter_on_a_brief_line_goes_to_the_item(store: Memoir) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_view(pilot)
        await pilot.press("enter")  # from the hosts to the lines
        table = pane.lines_table
        key = next(k for k in table.row_keys if "Use streaming writes" in str(table.get_row(k)[1]))
        assert table.move_to_key(key)
        await pilot.press("enter")
        await settle(pilot)
        decisions = app.query_one(DecisionsPane)
        assert app.focused is decisions.table
        assert decisions.selected() is not None
        assert decisions.selected().text == "Use streaming writes"
        await pilot.press(PANE_KEY)
        await settle(pilot)
        key = next(k for k in table.row_keys if "Ship the CSV importer" in str(table.get_row(k)[1]))
        assert table.move_to_key(key)
        table.focus()
        await pilot.press("enter")
        await settle(pilot)
        working = app.query_one(WorkingSetPane)
        assert app.focused is working.table("goals")
        assert working.table("goals").cursor_key == identity("Ship the CSV importer")


async def test_the_brief_follows_the_disk(store: Memoir, project: Path) -> None:
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_view(pilot)
        assert "Ship the CSV importer" in "\n".join(line for _, line in lines(pane))
        session = json.loads(store.session_path.read_text())
        session["current"]["goals"] = []
        store.session_path.write_text(json.dumps(session))
        app.reload()
        await settle(pilot)
        assert "Ship the CSV importer" not in "\n".join(line for _, line in lines(pane))


def test_agent_view_snapshot(snap_compare: Any, store: Memoir) -> None:
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=pressing(PANE_KEY))
