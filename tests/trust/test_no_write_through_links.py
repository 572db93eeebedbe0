"""No write follows a link it didn't make: for every writer, a symlink planted where it
writes, pointing at a file (or a folder) outside the scratch home; after the act the
outside file is byte-identical (the folder holds nothing new) and the user was told,
with a sentence naming the link and its target. Real processes for the CLI and MCP."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_tui.core.base.safeio import LinkOutsideError
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET
from tests.paths import REPO

PRECIOUS = b"root:x:0:0:root:/root:/bin/bash\nThe codename is zebra-42\n"


class LinkTrap:
    """A scratch home and store beside a precious file outside both, and the links
    planted to lure a writer there (not a world of tests/world.py: nothing is seeded)."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.store = tmp_path / "store"
        self.outside = tmp_path / "outside"  # outside the scratch home and the store
        self.project = self.home / "work" / "app"
        (self.project / ".git").mkdir(parents=True)
        (self.home / ".claude").mkdir()
        self.outside.mkdir()
        self.victim = self.outside / "passwd"
        self.victim.write_bytes(PRECIOUS)
        self.original = PRECIOUS
        self.env = {
            **os.environ,
            "HOME": str(self.home),
            "MEMOIR_HOME": str(self.store),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "PYTHONPATH": str(REPO),
        }
        self.env.pop("CLAUDE_CONFIG_DIR", None)

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            cwd=self.project,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=SAFETY_NET,
        )

    def link(self, where: Path, target: Path | None = None) -> Path:
        where.parent.mkdir(parents=True, exist_ok=True)
        where.symlink_to(target or self.victim)
        return where

    def untouched(self) -> None:
        assert self.victim.read_bytes() == self.original
        assert sorted(p.name for p in self.outside.iterdir()) == ["passwd"]


@pytest.fixture
def trap(tmp_path: Path) -> LinkTrap:
    w = LinkTrap(tmp_path)
    assert w.run("goal", "Ship the zebra-42 release").returncode == 0
    return w


def told(proc: subprocess.CompletedProcess[str], link: Path, target: Path) -> None:
    said = proc.stdout + proc.stderr
    assert str(link) in said and str(target) in said, said
    assert "Traceback" not in said, said


def test_inject_through_a_linked_claude_md(trap: LinkTrap) -> None:
    link = trap.link(trap.home / ".claude" / "CLAUDE.md")
    dry = trap.run("inject", "--dry-run")
    told(dry, link, trap.victim)
    assert "root:x:0:0" not in dry.stdout + dry.stderr  # the target's content: never shown
    told(trap.run("inject"), link, trap.victim)
    trap.untouched()


def test_forget_everywhere_purge_never_edits_an_entry_linked_out(trap: LinkTrap) -> None:
    link = trap.link(trap.store / "memory" / "fact_zebra.md")
    dry = trap.run("forget", "zebra-42", "--everywhere", "--purge", "--dry-run")
    told(dry, link, trap.victim)
    assert "The codename is" not in dry.stdout + dry.stderr  # the target's text: never shown
    proc = trap.run("forget", "zebra-42", "--everywhere", "--purge", "--yes")
    told(proc, link, trap.victim)
    assert "The codename is" not in proc.stdout + proc.stderr
    # the receipt says it was left, and it was
    assert [x for x in proc.stdout.splitlines() if str(link) in x and "link-out" in x]
    trap.untouched()


def test_forget_everywhere_keeps_no_trash_through_a_linked_trash_folder(trap: LinkTrap) -> None:
    (trap.store / "memory").mkdir(exist_ok=True)
    (trap.store / "memory" / "fact_zebra.md").write_text(
        "---\ntype: fact\nname: zebra\n---\nThe codename is zebra-42\nkept line\n"
    )
    link = trap.link(trap.store / "trash", trap.outside)
    proc = trap.run("forget", "zebra-42", "--everywhere", "--yes")
    assert proc.returncode != 0
    told(proc, link, trap.outside)
    trap.untouched()


def test_consolidate_writes_no_trash_record_through_a_linked_trash_folder(
    tmp_path: Path,
) -> None:
    w = LinkTrap(tmp_path)
    shutil.copytree(REPO / "tests" / "fixtures" / "consolidate_store" / "store", w.store)
    report = json.loads(w.run("consolidate", "--json").stdout)
    (dup,) = [p for p in report["proposals"] if p["kind"] == "duplicate"][:1]
    link = w.link(w.store / "trash", w.outside)
    proc = w.run("consolidate", "--apply", dup["id"], "--action", "trash", "--yes")
    told(proc, link, w.outside)
    w.untouched()


def test_audit_log_linked_out(trap: LinkTrap) -> None:
    audit = trap.store / "audit.jsonl"
    audit.unlink()
    link = trap.link(audit)
    proc = trap.run("note", "Another note")
    told(proc, link, trap.victim)
    trap.untouched()


def test_capture_state_linked_out(trap: LinkTrap) -> None:
    transcripts = trap.home / ".claude" / "projects" / "-work-app"
    transcripts.mkdir(parents=True)
    line = {
        "type": "user",
        "sessionId": "s1",
        "message": {"role": "user", "content": "We decided to use SQLite for the cache."},
    }
    (transcripts / "0001.jsonl").write_text(json.dumps(line) + "\n")
    link = trap.link(trap.store / "capture-state.json")
    proc = trap.run("capture")
    told(proc, link, trap.victim)
    trap.untouched()


@pytest.mark.parametrize(
    "args, where",
    [
        (("install-mcp", "claude-code"), ".claude.json"),
        (("install-hooks", "claude"), ".claude/settings.json"),
    ],
)
def test_install_into_a_linked_host_config(trap: LinkTrap, args, where) -> None:
    trap.original = b'{"keep": true}\n'  # valid JSON: the link, not the parse, refuses
    trap.victim.write_bytes(trap.original)
    link = trap.link(trap.home / where)
    proc = trap.run(*args)
    told(proc, link, trap.victim)
    trap.untouched()


def test_recall_cache_folder_linked_out(trap: LinkTrap) -> None:
    cache = Path(trap.env["XDG_CACHE_HOME"]) / "memoir-tui"
    link = trap.link(cache, trap.outside)
    proc = trap.run("index")
    told(proc, link, trap.outside)
    trap.untouched()


def test_purge_marker_never_written_through_a_linked_cache_folder(trap: LinkTrap) -> None:
    cache = Path(trap.env["XDG_CACHE_HOME"]) / "memoir-tui"
    trap.link(cache, trap.outside)
    trap.run("forget", "zebra-42", "--purge", "--yes")
    trap.untouched()


def test_editor_never_opens_an_entry_linked_out(trap: LinkTrap, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(trap.home))
    link = trap.link(trap.store / "memory" / "fact_zebra.md")
    store = Memoir(trap.store)
    with pytest.raises(LinkOutsideError) as caught:
        store.entries.begin_edit(link)
    assert str(link) in str(caught.value) and str(trap.victim) in str(caught.value)
    trap.untouched()


def test_remember_into_a_memory_folder_linked_out(trap: LinkTrap) -> None:
    memory = trap.store / "memory"
    if memory.exists():
        shutil.rmtree(memory)
    link = trap.link(memory, trap.outside)
    call = {
        "name": "memoir_remember",
        "arguments": {
            "content": "# Zebra\n\nThe release train.",
            "filename": "zebra",
            "tool": "memoir",
        },
    }
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "links", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call},
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoir_tui", "--mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=trap.project,
        env=trap.env,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    reply = None
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if message.get("id") is None:
                continue
            for raw in proc.stdout:
                got = json.loads(raw)
                if got.get("id") == message["id"]:
                    reply = got
                    break
    finally:
        proc.stdin.close()
        proc.wait(timeout=SAFETY_NET)
    assert reply is not None
    text = json.dumps(reply)
    assert str(link) in text and str(trap.outside) in text, text
    trap.untouched()
