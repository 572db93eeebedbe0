"""memoir_sync_status over the in-memory MCP client: read-only, credentials masked."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcp import Client

from memoir_tui.core.sync import init_sync, run_sync
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp.server import build_server


async def test_sync_status_tool(tmp_path: Path, store_dir: Path, store: Memoir) -> None:
    async with Client(build_server(store_dir)) as client:
        text = (await client.call_tool("memoir_sync_status", {})).content[0].text
    assert "not set up" in text
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    init_sync(store, str(remote))
    store.add_goal("synced goal")
    run_sync(store, "sync")
    before = sorted(p.name for p in store_dir.iterdir())
    async with Client(build_server(store_dir)) as client:
        text = (await client.call_tool("memoir_sync_status", {})).content[0].text
    assert str(remote) in text and "encryption" in text.lower()
    assert "synced goal" not in text
    assert sorted(p.name for p in store_dir.iterdir()) == before
