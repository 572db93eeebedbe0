"""Two projects' memories never leak into each other, on every surface.

Each surface is opened the way a person or an agent opens it: the CLI and the
MCP server run as real processes whose working directory is the project, and
the app runs on a Store opened for the project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.scope import project_identity
from memoir_tui.core.store import Store

REPO = Path(__file__).resolve().parents[2]


def make_project(root: Path, name: str, remote: str | None) -> Path:
    project = root / name
    (project / ".git").mkdir(parents=True, exist_ok=True)
    config = "[core]\n\tbare = false\n"
    if remote:
        config += f'[remote "origin"]\n\turl = {remote}\n'
    (project / ".git" / "config").write_text(config)
    return project


@pytest.fixture
def two_projects(tmp_path: Path, store_dir: Path):
    home = Path(os.environ["HOME"])
    alpha = make_project(home / "code", "alpha", "git@github.com:me/alpha.git")
    beta = make_project(home / "code", "beta", None)
    a = Store(store_dir, project=project_identity(alpha, home=home).id)
    b = Store(store_dir, project=project_identity(beta, home=home).id)
    a.add_goal("ALPHA-GOAL")
    a.add_next_action("ALPHA-STEP")
    a.note_decision("ALPHA-DECISION", why="alpha reasons")
    b.add_goal("BETA-GOAL")
    b.note_decision("BETA-DECISION", why="beta reasons")
    Store(store_dir).add_goal("GLOBAL-GOAL")  # no project: everyone's
    return alpha, beta


def cli(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_cli_status_is_scoped_to_the_working_directory(two_projects):
    alpha, beta = two_projects
    a, b = cli(alpha, "status"), cli(beta, "status")
    assert "ALPHA-GOAL" in a and "ALPHA-DECISION" in a and "GLOBAL-GOAL" in a
    assert "BETA" not in a
    assert "BETA-GOAL" in b and "GLOBAL-GOAL" in b and "ALPHA" not in b
    everything = cli(alpha, "status", "--all-projects")
    assert "ALPHA-GOAL" in everything and "BETA-GOAL" in everything
    assert "ALPHA-GOAL" not in cli(alpha, "status", "--as-of", "2000-01-01")
    assert "ALPHA-GOAL" in cli(alpha, "status", "--as-of", "2999-01-01")


def test_cli_writes_are_stamped_with_the_project(two_projects, store_dir):
    alpha, beta = two_projects
    cli(beta, "forget", "BETA-DECISION", "--yes")  # scoped: it can only see beta's
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "forget", "BETA-DECISION", "--yes"],
        cwd=alpha,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert proc.returncode == 1  # from alpha, beta's decision does not exist
    decisions = json.loads((store_dir / "session.json").read_text())["current"]["decisions"]
    home = Path(os.environ["HOME"])
    beta_id = project_identity(beta, home=home).id
    assert {d["project"] for d in decisions if d["text"] == "BETA-DECISION"} == {beta_id}


async def _mcp_texts(cwd: Path, store_dir: Path) -> str:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memoir_tui", "--mcp"],
        env={
            "HOME": os.environ["HOME"],
            "MEMOIR_HOME": str(store_dir),
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(REPO),
        },
        cwd=str(cwd),
    )
    out = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, args in (
            ("memoir_session", {}),
            ("memoir_resume", {}),
            ("memoir_why", {"query": "DECISION"}),
            ("memoir_status", {}),
        ):
            result = await session.call_tool(name, args)
            out.append(result.content[0].text)
    return "\n".join(out)


async def test_mcp_read_surfaces_are_scoped_to_the_servers_project(two_projects, store_dir):
    alpha, beta = two_projects
    a = await _mcp_texts(alpha, store_dir)
    assert "ALPHA-DECISION" in a and "ALPHA-GOAL" in a and "GLOBAL-GOAL" in a
    assert "BETA" not in a
    b = await _mcp_texts(beta, store_dir)
    assert "BETA-DECISION" in b and "ALPHA" not in b


async def test_app_shows_only_its_project(two_projects, store_dir):
    from memoir_tui.app import MemoirApp

    alpha, _ = two_projects
    home = Path(os.environ["HOME"])
    app = MemoirApp(Store(store_dir, project=project_identity(alpha, home=home).id, actor="app"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        texts = [g.text for g in app.state.goals] + [d.text for d in app.state.decisions]
    assert "ALPHA-GOAL" in texts and "GLOBAL-GOAL" in texts
    assert not any("BETA" in t for t in texts)


def test_home_directory_is_its_own_project(tmp_path):
    home = tmp_path / "h"
    home.mkdir()
    ident = project_identity(home, home=home)
    assert ident.kind == "home" and ident.id and ident.id != ""
    sub = home / "notes"
    sub.mkdir()
    assert project_identity(sub, home=home).id != ident.id


def test_as_of_shows_what_was_believed_then(store_dir, clock):
    store = Store(store_dir, clock=clock)
    store.note_decision("Use MySQL")
    store.add_next_action("Benchmark both")
    middle = clock.ms
    store.note_decision("Use Postgres")
    store.add_next_action("Migrate the data")
    store.note_decision("Use MySQL replicas")
    store.hide_decision(store.resolve_decision("replicas").key)
    then = store.working_set(at_ms=middle)
    assert [d.text for d in then.decisions] == ["Use MySQL"]
    assert [a.text for a in then.next_actions] == ["Benchmark both"]
    now = store.working_set()
    assert [d.text for d in now.decisions] == ["Use Postgres", "Use MySQL"]
    # forgetting is never undone by asking about the past
    assert "Use MySQL replicas" not in [d.text for d in store.working_set(at_ms=clock.ms).decisions]
