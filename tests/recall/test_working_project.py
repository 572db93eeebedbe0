"""The current project is always recallable: from a fresh home with no transcripts, a
recall started inside a git project finds its own CLAUDE.md and AGENTS.md lines first;
the same through the MCP server started in / with that project as the client's root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import ListRootsResult, Root

from tests.trust.test_forget_everywhere import env_for


def project(home: Path) -> Path:
    shop = home / "work" / "shop"
    shop.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=shop, check=True)
    (shop / "CLAUDE.md").write_text("# Shop\nUse pnpm for every install.\n")
    (shop / "AGENTS.md").write_text("# Agents\nRun pnpm test before a commit.\n")
    return shop


def test_recall_inside_a_project_finds_its_own_files_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shop = project(home)
    sub = shop / "src"
    sub.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "recall", "pnpm"],
        cwd=sub,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    firsts = [line for line in proc.stdout.splitlines() if line.startswith(("1.", "2."))]
    assert len(firsts) == 2
    assert str(shop / "CLAUDE.md") in proc.stdout and str(shop / "AGENTS.md") in proc.stdout
    assert not (home / ".claude").exists()  # no transcript named it


async def test_the_mcp_server_started_in_root_recalls_its_clients_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shop = project(home)

    async def roots(_context: object) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=shop.as_uri(), name="shop")])

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env_for(home), cwd="/"
    )
    async with (
        stdio_client(params) as (r, w),
        ClientSession(r, w, list_roots_callback=roots) as session,
    ):
        await session.initialize()
        reply = await session.call_tool("memoir_recall", {"query": "pnpm"})
    text = reply.content[0].text
    assert not reply.is_error, text
    first = text.split("\n2. ")[0]
    assert str(shop / "CLAUDE.md") in first or str(shop / "AGENTS.md") in first
    assert str(shop / "CLAUDE.md") in text and str(shop / "AGENTS.md") in text
