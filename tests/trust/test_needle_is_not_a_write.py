"""A needle is not a write: forget, recall and why take a pasted token, and no face
echoes it, stores it or audits it (the token shows as ``[REDACTED:github-token]``).

The token is put in the places another tool could have left it (a decision noted by
the JavaScript tool, a rule file), then forgotten by pasting it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.format.identity import iso_now
from tests.trust.test_forget_everywhere import env_for, holders, memoir

# a GitHub token shape, built so this file holds no literal token
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
DECISION = f"Deploy with {TOKEN} until the vault is ready"


def plant(home: Path) -> Path:
    """A session whose decision holds the token (as another writer left it) and a
    Claude Code memory line holding it."""
    root = home / ".config" / "memoir"
    root.mkdir(parents=True)
    state = {
        "version": 1,
        "current": {
            "goals": [],
            "next_actions": [],
            "open_questions": [],
            "decisions": [
                {"text": DECISION, "date": iso_now(), "id": "d1"},
                {"text": "Use tabs", "date": iso_now(), "id": "d2"},
            ],
        },
        "history": [],
    }
    (root / "session.json").write_text(json.dumps(state))
    rules = home / ".claude"
    rules.mkdir()
    claude_md = rules / "CLAUDE.md"
    claude_md.write_text(f"# Me\nUse tabs.\nCI token: {TOKEN}\n")
    return claude_md


@pytest.mark.parametrize("needle", [TOKEN, DECISION])
def test_forget_everywhere_takes_a_pasted_token_and_never_prints_it(
    tmp_path: Path, needle: str
) -> None:
    home = tmp_path / "home"
    claude_md = plant(home)
    proc = memoir(home, "forget", needle, "--everywhere", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert TOKEN not in proc.stdout + proc.stderr
    assert "[REDACTED:github-token]" in proc.stdout
    session = (home / ".config" / "memoir" / "session.json").read_text()
    assert TOKEN not in session and "Use tabs" in session
    if needle == TOKEN:  # the whole decision's text is not in the rule file
        assert claude_md.read_text() == "# Me\nUse tabs.\n"
        assert holders(home, TOKEN.lower().encode()) == []
    status = memoir(home, "status")
    assert "Use tabs" in status.stdout


def test_forget_one_decision_by_its_text_with_the_token(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(home)
    proc = memoir(home, "forget", DECISION, "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert TOKEN not in proc.stdout + proc.stderr
    session = (home / ".config" / "memoir" / "session.json").read_text()
    assert TOKEN not in session and "Use tabs" in session
    audit = (home / ".config" / "memoir" / "audit.jsonl").read_text()
    assert TOKEN not in audit


def test_recall_and_why_take_a_token_and_never_echo_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plant(home)
    recall = memoir(home, "recall", TOKEN)
    assert recall.returncode in (0, 1), recall.stderr
    assert "will not store" not in recall.stderr
    why = memoir(home, "why", TOKEN)
    assert "will not store" not in why.stderr
    assert TOKEN not in why.stderr


async def test_mcp_forget_recall_and_why_take_the_token(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude_md = plant(home)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env_for(home), cwd=home
    )
    async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        for tool in ("memoir_recall", "memoir_why"):
            reply = await session.call_tool(tool, {"query": TOKEN})
            text = reply.content[0].text
            assert not reply.is_error, text
            assert f'"{TOKEN}"' not in text  # the query is never echoed as typed
            assert "will not store" not in text
        result = await session.call_tool(
            "memoir_forget", {"text": TOKEN, "everywhere": True, "purge": True}
        )
        text = result.content[0].text
        assert not result.is_error, text
        assert TOKEN not in text and "[REDACTED:github-token]" in text
    assert claude_md.read_text() == "# Me\nUse tabs.\n"
    assert holders(home, TOKEN.lower().encode()) == []
