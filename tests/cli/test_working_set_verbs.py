"""The CLI verbs write what the MCP tools write, and say what they say.

Each verb runs as a real process in a project directory on one store; the same
call goes to the MCP tool (a server in the same directory) on a twin store.
The two session files must match but for the stamps (dates, machine ids).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from memoir_tui.mcp.server import build_server
from tests.deadlines import SAFETY_NET
from tests.paths import REPO

STAMPS = {"set_on", "added", "asked", "date", "done_at", "machine_id", "hidden_at"}


def cli(store: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=cwd,
        env={**os.environ, "MEMOIR_HOME": str(store), "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


def unstamped(store: Path) -> dict[str, Any]:
    """The session's lists without the stamps that differ between two runs."""
    current = json.loads((store / "session.json").read_text())["current"]
    return {
        key: [{k: v for k, v in item.items() if k not in STAMPS} for item in items]
        for key, items in current.items()
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = Path(os.environ["HOME"]) / "code" / "app"
    (path / ".git").mkdir(parents=True, exist_ok=True)
    (path / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:me/app.git\n')
    monkeypatch.chdir(path)  # the in-process server works for this project too
    return path


SETUP: list[tuple[str, ...]] = [
    ("goal", "Ship the CSV importer"),
    ("next", "Write the parser"),
    ("next", "Benchmark it"),
    ("ask", "Who reviews the release?"),
    ("note", "Use streaming writes", "--why", "bounded memory", "--rejected", "one big write"),
]
WRITES: list[tuple[tuple[str, ...], str, dict[str, Any]]] = [
    (("goal", "Onboard two customers"), "memoir_set_goal", {"text": "Onboard two customers"}),
    (("next", "Tag the release"), "memoir_add_next", {"text": "Tag the release"}),
    (("done", "parser"), "memoir_complete_next", {"match": "parser"}),
    (("ask", "Is the API frozen?"), "memoir_ask", {"text": "Is the API frozen?"}),
    (
        ("note", "Ship on Tuesdays", "--why", "quiet day", "--rejected", "Fridays"),
        "memoir_note",
        {"text": "Ship on Tuesdays", "why": "quiet day", "rejected": "Fridays"},
    ),
]
READS: list[tuple[tuple[str, ...], str, dict[str, Any]]] = [
    (("why", "streaming"), "memoir_why", {"query": "streaming"}),
    (("session",), "memoir_session", {}),
    (("resume",), "memoir_resume", {}),
]


async def _mcp(store: Path, name: str, args: dict[str, Any]) -> str:
    async with Client(build_server(store)) as client:
        result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    return result.content[0].text


async def _twins(tmp_path: Path, project: Path) -> tuple[Path, Path]:
    by_cli, by_mcp = tmp_path / "cli-store", tmp_path / "mcp-store"
    for args in SETUP:
        assert cli(by_cli, project, *args).returncode == 0
        assert cli(by_mcp, project, *args).returncode == 0
    return by_cli, by_mcp


@pytest.mark.parametrize("args, tool, arguments", WRITES, ids=[w[0][0] for w in WRITES])
async def test_each_write_verb_writes_what_the_tool_writes(
    tmp_path: Path, project: Path, args: tuple[str, ...], tool: str, arguments: dict[str, Any]
) -> None:
    by_cli, by_mcp = await _twins(tmp_path, project)
    proc = cli(by_cli, project, *args)
    said = await _mcp(by_mcp, tool, arguments)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == said.strip()
    assert unstamped(by_cli) == unstamped(by_mcp)
    assert any(
        item.get("project_label") == "github.com/me/app" for item in unstamped(by_cli)["goals"]
    )


@pytest.mark.parametrize("args, tool, arguments", READS, ids=[r[0][0] for r in READS])
async def test_each_read_verb_says_what_the_tool_says(
    tmp_path: Path, project: Path, args: tuple[str, ...], tool: str, arguments: dict[str, Any]
) -> None:
    by_cli, _ = await _twins(tmp_path, project)
    before = (by_cli / "session.json").read_bytes()
    proc = cli(by_cli, project, *args)
    assert proc.returncode == 0, proc.stderr
    said = await _mcp(by_cli, tool, arguments)
    assert proc.stdout.strip() == said.strip()
    assert (by_cli / "session.json").read_bytes() == before  # reading writes nothing


def test_a_refusal_is_a_sentence_and_exit_1(tmp_path: Path, project: Path) -> None:
    proc = cli(tmp_path / "store", project, "done", "anything")
    assert proc.returncode == 1
    assert proc.stderr.startswith("memoir-tui: No next action matches")
    assert "Traceback" not in proc.stderr
