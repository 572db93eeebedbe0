"""``memoir_forget`` with ``everywhere`` over real stdio MCP reaches the project folders
of every root the client declares (not only the first), wherever the host started the
server, and the receipt names each folder searched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import ListRootsResult, Root

from tests.trust.test_forget_every_place import TOKEN, holders, still_there
from tests.trust.test_forget_everywhere import env_for


def project(home: Path, name: str) -> Path:
    folder = home / "work" / name
    (folder / "memory-bank").mkdir(parents=True)
    (folder / ".serena" / "memories").mkdir(parents=True)
    (folder / ".memoir").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    line = f"Deploy {name} with {TOKEN}"
    (folder / "CLAUDE.md").write_text(f"# Rules\n{line}\nUse pnpm.\n")
    (folder / "AGENTS.md").write_text(f"# Agents\n{line}\nBe brief.\n")
    (folder / "memory-bank" / "activeContext.md").write_text(f"# Context\n{line}\nTabs.\n")
    (folder / ".serena" / "memories" / "notes.md").write_text(f"{line}\nOther note.\n")
    ledger = {"version": 1, "revision": 1, "records": [{"id": "r1", "text": line}]}
    (folder / ".memoir" / "work.json").write_text(json.dumps(ledger))
    return folder


async def test_forget_everywhere_reaches_every_roots_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "memoir").mkdir(parents=True)
    alpha, beta = project(home, "alpha"), project(home, "beta")
    sub = beta / "src"  # a root inside a project: its work tree is searched
    sub.mkdir()

    async def roots(_context: object) -> ListRootsResult:
        return ListRootsResult(
            roots=[Root(uri=alpha.as_uri(), name="alpha"), Root(uri=sub.as_uri(), name="b")]
        )

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env_for(home), cwd="/"
    )
    async with (
        stdio_client(params) as (r, w),
        ClientSession(r, w, list_roots_callback=roots) as session,
    ):
        await session.initialize()
        result = await session.call_tool(
            "memoir_forget", {"text": TOKEN, "everywhere": True, "purge": True}
        )
    receipt = result.content[0].text
    assert not result.is_error, receipt
    assert TOKEN not in receipt and "nowhere" not in receipt
    # each folder searched is named
    folders = next(line for line in receipt.splitlines() if "project folders:" in line)
    assert str(alpha) in folders and str(beta) in folders
    for folder in (alpha, beta):
        assert (folder / "CLAUDE.md").read_text() == "# Rules\nUse pnpm.\n"
        assert (folder / "AGENTS.md").read_text() == "# Agents\nBe brief.\n"
        assert (folder / "memory-bank" / "activeContext.md").read_text() == "# Context\nTabs.\n"
        assert (folder / ".serena" / "memories" / "notes.md").read_text() == "Other note.\n"
    # what it must not edit (memoir's ledger) is named as still there, with its remedy
    left = holders(home, TOKEN)
    assert left == {str(alpha / ".memoir" / "work.json"), str(beta / ".memoir" / "work.json")}
    assert left <= still_there(receipt)
    assert "delete the project's .memoir/work.json" in receipt
