"""Two projects' memories never leak into each other, on every surface.

Each surface is opened the way a person or an agent opens it: the CLI and the
MCP server run as real processes whose working directory is the project, and
the app runs on a Memoir opened for the project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.rules.scope import project_identity
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

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
    a = Memoir.for_directory(store_dir, actor="cli", cwd=alpha)
    b = Memoir.for_directory(store_dir, actor="cli", cwd=beta)
    a.add_goal("ALPHA-GOAL")
    a.add_next_action("ALPHA-STEP")
    a.note_decision("ALPHA-DECISION", why="alpha reasons")
    b.add_goal("BETA-GOAL")
    b.note_decision("BETA-DECISION", why="beta reasons")
    Memoir.for_directory(store_dir, actor="cli", cwd=home).add_goal("GLOBAL-GOAL")  # everyone's
    return alpha, beta


def cli(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_cli_status_is_scoped_to_the_working_directory(two_projects):
    alpha, beta = two_projects
    a, b = cli(alpha, "status"), cli(beta, "status")
    assert "ALPHA-GOAL" in a and "ALPHA-DECISION" in a and "GLOBAL-GOAL" in a
    assert "BETA" not in a
    assert "BETA-GOAL" in b and "GLOBAL-GOAL" in b and "ALPHA" not in b
    # … and says what it leaves out, never silently.
    assert "scope: beta (and global items); 3 more in other projects" in b
    everything = cli(alpha, "status", "--all-projects")
    assert "ALPHA-GOAL" in everything and "BETA-GOAL" in everything
    assert "ALPHA-GOAL" not in cli(alpha, "status", "--as-of", "2000-01-01")
    assert "ALPHA-GOAL" in cli(alpha, "status", "--as-of", "2999-01-01")


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=SAFETY_NET,
    )


def test_writes_are_stamped_with_the_project_and_its_name(two_projects, store_dir):
    _alpha, beta = two_projects
    decisions = json.loads((store_dir / "session.json").read_text())["current"]["decisions"]
    home = Path(os.environ["HOME"])
    beta_id = project_identity(beta, home=home).id
    (beta_decision,) = [d for d in decisions if d["text"] == "BETA-DECISION"]
    assert beta_decision["project"] == beta_id
    assert beta_decision["project_label"] == "~/code/beta"
    # From the home directory (outside any project) nothing is stamped: it is global.
    goals = json.loads((store_dir / "session.json").read_text())["current"]["goals"]
    assert "project" not in next(g for g in goals if g["text"] == "GLOBAL-GOAL")


def test_forget_by_substring_is_scoped_by_exact_text_reaches_every_project(two_projects):
    alpha, beta = two_projects
    # A substring only matches this project's decisions, and says where the others are.
    proc = run_cli(alpha, "forget", "BETA-DEC", "--yes")
    assert proc.returncode == 1 and "1 in other projects" in proc.stderr
    # The exact text (or its hash) is found wherever it was written: a leaked secret can
    # be forgotten from any directory.
    proc = run_cli(alpha, "forget", "beta-decision", "--yes", "--purge")
    assert proc.returncode == 0, proc.stderr
    assert "project:  beta" in proc.stdout
    assert "BETA-DECISION" not in cli(beta, "status", "--all-projects")
    # --all-projects lets a substring reach them all.
    assert run_cli(alpha, "forget", "ALPHA-DEC", "--all-projects", "--yes").returncode == 0


@pytest.mark.parametrize("where", ["home", "root"])
def test_outside_any_project_the_cli_sees_every_project(two_projects, where):
    cwd = Path(os.environ["HOME"]) if where == "home" else Path("/")
    out = cli(cwd, "status")
    assert "ALPHA-GOAL" in out and "BETA-GOAL" in out and "GLOBAL-GOAL" in out


def _server(cwd: Path, store_dir: Path) -> StdioServerParameters:
    return StdioServerParameters(
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


async def _mcp_texts(cwd: Path, store_dir: Path) -> str:
    out = []
    async with (
        stdio_client(_server(cwd, store_dir)) as (read, write),
        ClientSession(read, write) as session,
    ):
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
    # Scoped answers name what they leave out.
    assert "Other projects hold 3 more item(s)" in b and "all_projects=true" in b


async def test_mcp_all_projects_reads_and_forgets_from_outside_any_project(two_projects, store_dir):
    _alpha, beta = two_projects
    async with (
        stdio_client(_server(beta, store_dir)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        scoped = await session.call_tool("memoir_session", {})
        assert scoped.structured_content["scope"] == {"project": "beta", "other_projects": 3}
        everything = await session.call_tool("memoir_session", {"all_projects": True})
        texts = {d["text"]: d["project"] for d in everything.structured_content["decisions"]}
        assert texts["ALPHA-DECISION"] == "alpha"
        assert texts["BETA-DECISION"] == "beta"
        why = await session.call_tool("memoir_why", {"query": "alpha"})
        assert why.structured_content["decisions"] == []
        assert why.structured_content["other_projects_matching"] == 1
        assert "all_projects=true" in why.content[0].text
        why = await session.call_tool("memoir_why", {"query": "alpha", "all_projects": True})
        assert [d["text"] for d in why.structured_content["decisions"]] == ["ALPHA-DECISION"]
    # A server started in "/" (as several hosts start it) works for every project.
    async with (
        stdio_client(_server(Path("/"), store_dir)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        session_view = await session.call_tool("memoir_session", {})
        assert session_view.structured_content["scope"]["project"] is None
        assert {"ALPHA-DECISION", "BETA-DECISION"} <= {
            d["text"] for d in session_view.structured_content["decisions"]
        }
        forgot = await session.call_tool("memoir_forget", {"text": "ALPHA-DECISION", "purge": True})
        assert not forgot.is_error and "purged" in forgot.content[0].text
    raw = (store_dir / "session.json").read_text()
    assert "ALPHA-DECISION" not in raw and "BETA-DECISION" in raw


async def test_app_shows_only_its_project(two_projects, store_dir):
    from memoir_tui.app import MemoirApp

    alpha, _ = two_projects
    home = Path(os.environ["HOME"])
    app = MemoirApp(Memoir(store_dir, project=project_identity(alpha, home=home).id, actor="app"))
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
    store = Memoir(store_dir, clock=clock)
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


async def test_two_projects_over_real_stdio_keep_the_same_words_apart(two_projects, store_dir):
    """Identity is (text, project): two servers, one per project, on one store."""
    alpha, beta = two_projects

    async def call(cwd: Path, name: str, args: dict) -> str:
        async with (
            stdio_client(_server(cwd, store_dir)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(name, args)
            return result.content[0].text

    assert "Next:" in await call(alpha, "memoir_add_next", {"text": "Ship the release"})
    # The same words in beta are beta's own item, not "already a next action".
    assert "Next:" in await call(beta, "memoir_add_next", {"text": "Ship the release"})
    on_disk = json.loads((store_dir / "session.json").read_text())["current"]
    copies = [a for a in on_disk["next_actions"] if a["text"] == "Ship the release"]
    assert len({a["project"] for a in copies}) == 2
    # Completing it in beta never completes alpha's.
    assert "Completed" in await call(beta, "memoir_complete_next", {"match": "ship the"})
    alpha_view = await call(alpha, "memoir_session", {})
    assert "Ship the release" in alpha_view and "ALPHA-STEP" in alpha_view
    beta_view = await call(beta, "memoir_session", {})
    assert "Ship the release" not in beta_view
    # Beta cannot complete what only alpha holds; the refusal says where it is.
    refused = await call(beta, "memoir_complete_next", {"match": "ALPHA-STEP"})
    assert "project alpha (not shown" in refused and "not shown here" in refused
    assert "ALPHA-STEP" in await call(alpha, "memoir_session", {})


async def test_a_client_that_declares_roots_scopes_a_server_started_in_root(tmp_path: Path):
    """Started in / (as several hosts start servers), the server stamps and scopes by the
    client's first root, not by where it runs (issue 21)."""
    from mcp.types import ListRootsResult, Root

    from memoir_tui.core.rules.scope import project_identity

    home = Path(os.environ["HOME"])
    shop = make_project(home / "work", "shop", "git@github.com:Acme/Shop.git")
    store = tmp_path / "store"
    store.mkdir()

    async def roots(_context: object) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=shop.as_uri(), name="shop")])

    async with (
        stdio_client(_server(Path("/"), store)) as (read, write),
        ClientSession(read, write, list_roots_callback=roots) as session,
    ):
        await session.initialize()
        reply = await session.call_tool("memoir_add_next", {"text": "Tag the release"})
        assert not reply.is_error, reply.content[0].text
        status = (await session.call_tool("memoir_status", {})).content[0].text
    [action] = json.loads((store / "session.json").read_text())["current"]["next_actions"]
    expected = project_identity(shop, home=home)
    assert action["project"] == expected.id
    assert expected.id.startswith("git:") and len(expected.id) == 36
    assert "Scope: project Shop (and" in status
