"""``memoir-tui doctor``: checks that run the real thing, and fail when it fails."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.hooks.helpers import make_world
from tests.world import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = make_world(tmp_path)
    w.cli("goal", "Ship the CSV importer")
    return w


def _lines(out: str, prefix: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(prefix)]


def test_install_mcp_ends_with_a_live_handshake_and_doctor_repeats_it(world: World) -> None:
    done = world.cli("install-mcp", "claude-code")
    assert done.returncode == 0, done.stdout + done.stderr
    # PASS, or WARN when a loaded machine took over half of Claude Code's 30 s to start it
    assert _lines(done.stdout, "PASS  mcp claude-code: memoir answered;") or _lines(
        done.stdout, "WARN  mcp claude-code: memoir answered;"
    )
    doctor = world.cli("doctor")
    assert doctor.returncode == 0, doctor.stdout
    [line] = _lines(doctor.stdout, "PASS  mcp claude-code") or _lines(
        doctor.stdout, "WARN  mcp claude-code"
    )
    assert "tools in" in line and " ms " in line
    assert "the 30 s claude-code waits for a server to start (MCP_TIMEOUT unset)" in line


def test_a_registration_that_cannot_start_fails(world: World) -> None:
    path = world.home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"memoir-tui": {"command": "/nowhere/memoir-tui"}}}))
    doctor = world.cli("doctor")
    assert doctor.returncode == 1
    assert _lines(doctor.stdout, "FAIL  mcp cursor: /nowhere/memoir-tui")


def test_a_server_that_does_not_speak_mcp_fails(world: World) -> None:
    path = world.home / ".cursor" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"mcpServers": {"memoir-tui": {"command": "/bin/cat", "args": []}}}))
    doctor = world.cli("doctor")
    assert doctor.returncode == 1
    [line] = _lines(doctor.stdout, "FAIL  mcp cursor")
    assert "no answer" in line or "no memoir_session" in line


def test_a_hook_whose_program_is_gone_fails(world: World) -> None:
    assert world.cli("install-hooks", "claude").returncode == 0
    path = world.home / ".claude" / "settings.json"
    text = path.read_text()
    data = json.loads(text)
    old = data["hooks"]["Stop"][0]["hooks"][0]["command"]
    path.write_text(text.replace(json.dumps(old)[1:-1], "/gone/memoir-tui hook stop --host claude"))
    doctor = world.cli("doctor")
    assert doctor.returncode == 1
    assert _lines(doctor.stdout, "FAIL  hook claude Stop: '/gone/memoir-tui' is not found")
    assert _lines(doctor.stdout, "PASS  hook claude SessionStart")


def test_store_problems_are_named(world: World) -> None:
    lock = world.store_dir / "session.json.lock"
    lock.write_text(json.dumps({"pid": 999999, "ts": 0}))
    old = time.time() - 3600
    os.utime(lock, (old, old))
    (world.store_dir / "session.json.corrupted-1700000000000").write_text("{")
    doctor = world.cli("doctor")
    assert doctor.returncode == 1
    assert _lines(doctor.stdout, "FAIL  store lock: session.json.lock (the write lock")
    assert _lines(doctor.stdout, "WARN  store: 1 quarantined copy(ies) kept")


def test_a_newer_store_is_read_only_and_fails(world: World) -> None:
    (world.store_dir / "session.json").write_text('{"version": 99, "current": {}}')
    doctor = world.cli("doctor")
    assert doctor.returncode == 1
    assert _lines(doctor.stdout, "FAIL  store: read-only")


def test_doctor_writes_nothing(world: World) -> None:
    assert world.cli("install-hooks", "claude").returncode == 0
    (world.store_dir / "memoir-tui.toml").write_text("[inject]\nenabled = true\n")
    claude_md = world.home / ".claude" / "CLAUDE.md"
    before = {p: p.read_bytes() for p in world.store_dir.rglob("*") if p.is_file()}
    world.cli("doctor")
    after = {p: p.read_bytes() for p in world.store_dir.rglob("*") if p.is_file()}
    assert after == before
    assert not claude_md.exists()  # the synthetic session-start did not inject
