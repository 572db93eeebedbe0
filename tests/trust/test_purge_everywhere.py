"""Purging a decision that was hidden earlier takes its words out of every file.

The home holds everything a real one would: the store with a pinned candidate
and a copy kept aside of a damaged session, a recall index that has read the
decision, and a sync copy that has pushed it. The decision is hidden first (the
text stays in the tombstone), then purged from the CLI or from an MCP server
started in the home directory. Afterwards no file under the home holds the
text, the why or the rejected alternative.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.sync import init_sync, run_sync
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET
from tests.sync.helpers import TEST_SCRYPT_N, make_remote

REPO = Path(__file__).resolve().parents[2]
TEXT = "Pay the Falconridge vendor from the reserve account"
WHY = "Falconridge-why: cheaper than the card"
REJECTED = "Falconridge-rejected: the corporate card"
WORDS = (b"Falconridge",)


def env_for(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "MEMOIR_HOME": str(home / ".config" / "memoir"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PYTHONPATH": str(REPO),
    }


def memoir(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=home,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


def holders(home: Path) -> list[str]:
    """Every file under ``home`` that still holds one of the words."""
    found = []
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            path = Path(dirpath) / name
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(w in data for w in WORDS):
                found.append(str(path.relative_to(home)))
    return found


@pytest.fixture
def lived_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Memoir]:
    home = tmp_path / "home"
    home.mkdir()
    for key, value in env_for(home).items():
        if key != "PYTHONPATH":
            monkeypatch.setenv(key, value)
    store = Memoir(home / ".config" / "memoir", actor="cli")
    # A candidate pinned from the queue: the queue keeps the words too.
    store.review.enqueue([{"text": TEXT, "source": "user", "extractor": "test"}])
    (item,) = store.review.list_items()
    store.review.pin(item.id, why=WHY, rejected=REJECTED)
    # A copy of a damaged session kept aside, from before.
    (store.root / "session.json.corrupted-1780000000000").write_bytes(
        store.session_path.read_bytes()[:-40]
    )
    # Recall has read it (the index holds its words) …
    assert TEXT in memoir(home, "recall", "Falconridge vendor").stdout
    # … and a sync copy has pushed it to a remote outside the home.
    init_sync(store, str(make_remote(tmp_path)), scrypt_n=TEST_SCRYPT_N)
    run_sync(store, "sync")
    store.hide_decision(text_hash(TEXT))
    assert holders(home), "the setup should hold the words somewhere"
    return home, store


def test_purge_from_the_cli_by_a_substring_of_a_hidden_decision(lived_in) -> None:
    home, store = lived_in
    proc = memoir(home, "forget", "falconridge vendor", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "hidden already" in proc.stdout and "purged" in proc.stdout
    assert holders(home) == []
    assert store.working_set().tombstones[0].purged
    # The caches rebuild from the files, without the words.
    assert "Falconridge" not in memoir(home, "recall", "Falconridge vendor").stdout
    assert holders(home) == []


async def test_purge_from_an_mcp_server_started_in_the_home_directory(lived_in) -> None:
    home, store = lived_in
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env_for(home), cwd=home
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("memoir_forget", {"text": TEXT, "purge": True})
    assert not result.is_error, result.content[0].text
    assert holders(home) == []
    assert store.working_set().tombstones[0].purged
