"""Every place a memory lives, forgotten by its owner's rules, with a receipt that
never says "nowhere" while a known place holds the text.

A scratch home holds one secret-free text and one token in every place: memoir's
session, review queue and entry files; today's memoir's canonical memory (two
revisions); memoir's project ledger and a backup; Cline's memory bank; Serena's
memories; Codex's memories (a git repository), its memory database and a session
rollout; a Claude Code transcript; the project's CLAUDE.md and AGENTS.md. After
``forget NEEDLE --everywhere --purge --yes`` a grep of the whole home finds the
needle only in files the receipt names as still holding it, each with its remedy.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.services.places import parse_canonical
from tests.deadlines import SAFETY_NET
from tests.trust.test_forget_everywhere import env_for

REPO = Path(__file__).resolve().parents[2]
TEXT = "Quillfeather"
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
MEMORY_ID = hashlib.sha256(b"shared\0launch.md").hexdigest()


def git(*args: str, cwd: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def canonical(revision: int, body: str) -> str:
    lines = [
        "---",
        f'id: "{MEMORY_ID}"',
        'name: "launch"',
        'type: "fact"',
        'project: "shared"',
        'source_tool: "memoir"',
        'updated: "2026-11-0{revision}T10:00:00.000Z"',
        'created: "2026-11-01T10:00:00.000Z"',
        f"revision: {revision}",
        'verification: "unverified"',
        "aliases:",
        '  - "launch"',
        "tags:",
        "---",
        body,
    ]
    return "\n".join(lines)


def build(home: Path) -> Path:
    """The scratch home; returns the project (a git work tree) the commands run in."""
    root = home / ".config" / "memoir"
    project = home / "work" / "app"
    for d in (root / "memory", project, home / ".codex" / "memories"):
        d.mkdir(parents=True)
    git("init", "-q", cwd=project)
    both = f"{TEXT} ships with {TOKEN} in CI"
    # memoir's session (a decision with each, as another writer left it) and queue
    now = "2026-12-01T10:00:00.000Z"
    state = {
        "version": 1,
        "current": {
            "decisions": [
                {"text": f"Ship {TEXT} behind a flag", "date": now, "id": "d1"},
                {"text": f"Deploy with {TOKEN}", "date": now, "id": "d2"},
                {"text": "Use tabs", "date": now, "id": "d3"},
            ]
        },
        "history": [],
    }
    (root / "session.json").write_text(json.dumps(state))
    review = {
        "version": 1,
        "items": [
            {
                "id": "c1",
                "text": f"Rename {TEXT} before launch",
                "source": "user",
                "extractor": "t",
                "captured_at": now,
                "status": "pending",
            }
        ],
    }
    (root / "review.json").write_text(json.dumps(review))
    (root / "memory" / "launch.md").write_text(
        f"---\nname: launch\ndescription: notes\n---\n{both}\nBuilds run nightly.\n"
    )
    # today's memoir's canonical memory, two revisions
    memories = root / "memories"
    (memories / "history" / MEMORY_ID).mkdir(parents=True)
    (memories / f"{MEMORY_ID}.md").write_text(canonical(2, f"{both}\nKeep it quiet."))
    (memories / "history" / MEMORY_ID / "0b6f.md").write_text(canonical(1, f"{TEXT} v1 {TOKEN}"))
    # memoir's project ledger and a backup
    ledger = {
        "records": [
            {"id": "r1", "kind": "decision", "text": both, "source": "user", "revision": 1}
        ],
        "retractions": [],
        "checks": [],
        "revision": 1,
        "version": 1,
    }
    (project / ".memoir" / "work-backups").mkdir(parents=True)
    (project / ".memoir" / "work.json").write_text(json.dumps(ledger, sort_keys=True, indent=2))
    (project / ".memoir" / "work-backups" / "r1-abc.json").write_text(json.dumps(ledger))
    # Cline's memory bank, Serena's memories
    (project / "memory-bank").mkdir()
    (project / "memory-bank" / "activeContext.md").write_text(f"# Context\n{both}\nTabs.\n")
    (project / ".serena" / "memories").mkdir(parents=True)
    (project / ".serena" / "memories" / "notes.md").write_text(f"{both}\nOther note.\n")
    # Codex: memories in a git repository, its memory database, a rollout
    codex = home / ".codex"
    (codex / "memories" / "notes.md").write_text(f"# Notes\n{both}\nUse tabs.\n")
    git("init", "-q", cwd=codex / "memories")
    git("add", "-A", cwd=codex / "memories")
    git("commit", "-q", "-m", "memories", cwd=codex / "memories")
    db = sqlite3.connect(codex / "memories_1.sqlite")
    db.execute("create table memories (id integer primary key, text text)")
    db.execute("insert into memories (text) values (?)", (both,))
    db.commit()
    db.close()
    rollout = codex / "sessions" / "2026" / "12" / "01" / "rollout-2026-12-01-x.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text(json.dumps({"type": "message", "content": both}) + "\n")
    # a Claude Code transcript, and the project's own files
    transcripts = home / ".claude" / "projects" / "-work-app"
    transcripts.mkdir(parents=True)
    line = {"type": "user", "cwd": str(project), "message": {"role": "user", "content": both}}
    (transcripts / "s1.jsonl").write_text(json.dumps(line) + "\n")
    (project / "CLAUDE.md").write_text(f"# Rules\n{both}\nUse pnpm.\n")
    (project / "AGENTS.md").write_text(f"# Agents\n{both}\nBe brief.\n")
    return project


def holders(home: Path, needle: str) -> set[str]:
    word = needle.lower().encode()
    out = set()
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            path = Path(dirpath) / name
            if word in path.read_bytes().lower():
                out.add(str(path))
    return out


def still_there(receipt: str) -> set[str]:
    """The files the receipt's "still there" section names."""
    section = receipt.split("still there", 1)[1].split("\nnote:", 1)[0]
    out = set()
    for line in section.splitlines()[1:]:
        if ": " in line:
            path = line.strip().split(": ", 2)[1].split(" (", 1)[0]
            out.add(path)
    return out


def cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=cwd,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


def check_after(home: Path, receipt: str, needle: str) -> None:
    left = holders(home, needle)
    named = still_there(receipt)
    # the grep finds the needle only where the receipt says it still is
    assert left <= named, sorted(left - named)
    # the places this tool must not edit are named, each with its owner's remedy
    for part in ("work.json", "work-backups", "memories_1.sqlite", "rollout-", "s1.jsonl"):
        assert any(part in p for p in named), part
    assert "codex debug clear-memories" in receipt
    assert "claude project purge" in receipt
    assert "git filter-repo --replace-text" in receipt  # the Codex memories' history
    assert "nowhere" not in receipt
    assert "not searched:" in receipt
    # edited places: gone, other lines kept
    project = home / "work" / "app"
    assert (project / "CLAUDE.md").read_text() == "# Rules\nUse pnpm.\n"
    assert (project / "memory-bank" / "activeContext.md").read_text() == "# Context\nTabs.\n"
    assert (project / ".serena" / "memories" / "notes.md").read_text() == "Other note.\n"
    assert (home / ".codex" / "memories" / "notes.md").read_text() == "# Notes\nUse tabs.\n"
    status = subprocess.run(
        ["git", "status", "--porcelain"],
        cwd=home / ".codex" / "memories",
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""  # the removal is committed
    # the canonical memory: purged as today's memoir does, its history deleted
    memories = home / ".config" / "memoir" / "memories"
    raw = (memories / f"{MEMORY_ID}.md").read_text()
    parsed = parse_canonical(raw)
    assert parsed is not None
    fields, body = parsed
    assert list(fields) == [
        "id",
        "project",
        "type",
        "hidden",
        "purged",
        "hidden_at",
        "updated",
        "revision",
    ]
    assert fields["purged"] is True and fields["hidden"] is True and fields["revision"] == 3
    assert fields["updated"] == fields["hidden_at"] and body == "[purged]"
    assert not (memories / "history" / MEMORY_ID).exists()
    assert raw.startswith(f'---\nid: "{MEMORY_ID}"\nproject: "shared"\ntype: "fact"\n')


@pytest.mark.parametrize("needle", [TEXT, TOKEN])
def test_forget_everywhere_reaches_every_place_by_its_owners_rules(
    tmp_path: Path, needle: str
) -> None:
    home = tmp_path / "home"
    project = build(home)
    before = holders(home, needle)
    assert len(before) >= 14  # (the review queue holds only the text)
    proc = cli(home, project, "forget", needle, "--everywhere", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    receipt = proc.stdout
    assert TOKEN not in receipt + proc.stderr
    check_after(home, receipt, needle)


async def test_the_same_over_real_stdio_mcp(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = build(home)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env_for(home), cwd=project
    )
    async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
        await session.initialize()
        result = await session.call_tool(
            "memoir_forget", {"text": TOKEN, "everywhere": True, "purge": True}
        )
    receipt = result.content[0].text
    assert not result.is_error, receipt
    assert TOKEN not in receipt
    check_after(home, receipt, TOKEN)


async def test_the_same_in_the_app_filter_F_and_the_typed_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memoir_tui.core.workflows.memoir import Memoir
    from memoir_tui.dialogs.confirm import TypeToConfirmScreen
    from memoir_tui.panes.decisions import DecisionsPane
    from tests.app.helpers import SIZE, make_app, open_pane, settle, type_text

    home = tmp_path / "home"
    project = build(home)
    for key, value in env_for(home).items():
        if key != "PYTHONPATH":
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    store = Memoir(home / ".config" / "memoir", actor="app")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")
        await type_text(pilot, TOKEN)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        body = str(app.screen.query_one("#confirm-body").render())
        assert TOKEN not in body and "memoir-memory" in body and "codex-rollouts" in body
        await type_text(pilot, "forget")
        await pilot.press("enter")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert app.is_running and app.screen is app.screen_stack[0]
    left = holders(home, TOKEN)
    # what the receipt names as read-only (the app shows the first of them)
    assert {Path(p).name for p in left} == {
        "work.json",
        "r1-abc.json",
        "memories_1.sqlite",
        "rollout-2026-12-01-x.jsonl",
        "s1.jsonl",
    }
    assert (project / "CLAUDE.md").read_text() == "# Rules\nUse pnpm.\n"
