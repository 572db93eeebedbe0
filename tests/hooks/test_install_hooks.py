"""``install-hooks`` / ``uninstall-hooks`` / ``hooks status`` on real files in a scratch home."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from memoir_tui.core.hosts import config_splice
from tests.deadlines import SAFETY_NET
from tests.hooks.helpers import make_world
from tests.world import World

SETTINGS = """{
  "model": "opus",
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          { "type": "command", "command": "echo hello" }
        ]
      }
    ],
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./guard.sh" } ] }
    ]
  },
  "permissions": { "allow": ["Bash(ls:*)"] }
}
"""


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = make_world(tmp_path)
    w.cli("goal", "Ship the CSV importer")
    return w


def _settings(world: World) -> Path:
    path = world.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_install_reinstall_doctor_uninstall_on_a_lived_in_settings_file(world: World) -> None:
    path = _settings(world)
    path.write_text(SETTINGS)
    path.chmod(0o640)
    done = world.cli("install-hooks", "claude")
    assert done.returncode == 0, done.stdout + done.stderr
    for event in ("SessionStart", "Stop", "PreCompact", "SessionEnd"):
        assert f"PASS  hook claude {event}: exit 0" in done.stdout  # the live check
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert data["hooks"]["PreToolUse"] == json.loads(SETTINGS)["hooks"]["PreToolUse"]
    starts = data["hooks"]["SessionStart"]
    assert starts[0] == {
        "matcher": "startup",
        "hooks": [{"type": "command", "command": "echo hello"}],
    }
    assert starts[1]["matcher"] == "startup|resume|clear"
    assert "hook session-start --host claude" in starts[1]["hooks"][0]["command"]
    assert data["hooks"]["Stop"][0]["hooks"][0]["async"] is True
    # surgical: the user's lines are still there byte for byte
    for line in SETTINGS.splitlines()[:9]:
        assert line in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert (path.parent / "settings.json.memoir-tui.bak").read_text() == SETTINGS

    installed = path.read_bytes()
    again = world.cli("install-hooks", "claude")
    assert again.returncode == 0 and "already installed" in again.stdout
    assert path.read_bytes() == installed

    doctor = world.cli("doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert "PASS  hook claude SessionStart" in doctor.stdout

    status = world.cli("hooks", "status")
    assert "SessionStart:" in status.stdout and "hook stop --host claude" in status.stdout

    gone = world.cli("uninstall-hooks", "claude")
    assert gone.returncode == 0, gone.stdout
    assert path.read_text() == SETTINGS
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_the_installed_session_start_hook_briefs_through_the_shell(world: World) -> None:
    """The registered command, run as Claude Code runs it, prints the brief."""
    import subprocess

    assert world.cli("install-hooks", "claude").returncode == 0
    data = json.loads(_settings(world).read_text())
    command = data["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    event = {"cwd": str(world.project), "hook_event_name": "SessionStart", "source": "startup"}
    done = subprocess.run(
        command,
        shell=True,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=world.process_env(),
        cwd=world.project,
        timeout=SAFETY_NET,
    )
    assert done.returncode == 0
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Ship the CSV importer" in context


@pytest.mark.parametrize(
    "text",
    [
        '{"hooks": {"SessionStart": [ }',  # not JSON
        '{"hooks": []}',  # hooks not an object
        '{"hooks": {"SessionStart": {"hooks": []}}}',  # an event that is not a list
        '{"hooks": {"Stop": ["echo"]}}',  # a group that is not an object
        "[1, 2]",
        "\xff\xfe",
    ],
)
def test_a_malformed_file_is_refused_unchanged(world: World, text: str) -> None:
    path = _settings(world)
    path.write_bytes(
        text.encode("utf-8", errors="surrogateescape") if text != "\xff\xfe" else b"\xff\xfe"
    )
    before = path.read_bytes()
    done = world.cli("install-hooks", "claude")
    assert done.returncode == 1
    assert "refusing" in done.stdout and "left untouched" in done.stdout
    assert path.read_bytes() == before
    assert not (path.parent / "settings.json.memoir-tui.bak").exists()


def test_dry_run_writes_nothing(world: World) -> None:
    path = _settings(world)
    path.write_text(SETTINGS)
    done = world.cli("install-hooks", "claude", "--dry-run")
    assert done.returncode == 0 and "+++ " in done.stdout and "dry run" in done.stdout
    assert path.read_text() == SETTINGS


def test_a_group_shared_with_the_users_handler_keeps_theirs(world: World) -> None:
    path = _settings(world)
    assert world.cli("install-hooks", "claude").returncode == 0
    data = json.loads(path.read_text())
    data["hooks"]["SessionStart"][0]["hooks"].append({"type": "command", "command": "./mine.sh"})
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert world.cli("uninstall-hooks", "claude").returncode == 0
    left = json.loads(path.read_text())
    assert left["hooks"] == {
        "SessionStart": [
            {
                "matcher": "startup|resume|clear",
                "hooks": [{"type": "command", "command": "./mine.sh"}],
            }
        ]
    }


def test_the_javascript_memoirs_hooks_are_named(world: World) -> None:
    path = _settings(world)
    js = {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "npx memoir hook session-start"}]}
            ]
        }
    }
    path.write_text(json.dumps(js, indent=2) + "\n")
    done = world.cli("install-hooks", "claude")
    assert done.returncode == 0
    assert "JavaScript memoir's hook" in done.stdout and "one" in done.stdout.lower()
    data = json.loads(path.read_text())
    assert data["hooks"]["SessionStart"][0] == js["hooks"]["SessionStart"][0]  # left alone
    status = world.cli("hooks", "status")
    assert "JavaScript memoir's hook, SessionStart: npx memoir hook session-start" in status.stdout


def test_project_scope_and_the_other_hosts(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # a project's hooks name memoir-tui from PATH: put this venv's console script there
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert world.cli("install-hooks", "claude", "--project", str(world.project)).returncode == 0
    project_file = world.project / ".claude" / "settings.json"
    assert "hook session-start --host claude" in project_file.read_text()
    # meant to be committed: memoir-tui from PATH, no path of this machine's
    for group in json.loads(project_file.read_text())["hooks"].values():
        command = group[0]["hooks"][0]["command"]
        assert command.startswith("memoir-tui hook "), command
        assert str(world.home) not in command and "/" not in command.split(" hook ")[0]

    gemini = world.cli("install-hooks", "gemini")
    assert gemini.returncode == 0, gemini.stdout
    entry = json.loads((world.home / ".gemini" / "settings.json").read_text())["hooks"][
        "SessionStart"
    ][0]
    handler = entry["hooks"][0]
    assert handler["timeout"] == 10_000 and handler["name"] == "memoir-tui-session-start"
    settings = json.loads((world.home / ".gemini" / "settings.json").read_text())
    assert {"AfterAgent", "PreCompress", "SessionEnd"} <= set(settings["hooks"])

    codex = world.cli("install-hooks", "codex")
    assert codex.returncode == 0, codex.stdout
    assert "trust" in codex.stdout  # Codex asks before it runs a new hook
    hooks = json.loads((world.home / ".codex" / "hooks.json").read_text())["hooks"]
    assert list(hooks) == ["SessionStart", "Stop"]


def test_a_host_setting_that_turns_hooks_off_fails_the_doctor(world: World) -> None:
    path = _settings(world)
    path.write_text('{"disableAllHooks": true}\n')
    done = world.cli("install-hooks", "claude")
    assert done.returncode == 1
    assert "FAIL  hooks claude" in done.stdout and "disableAllHooks = true" in done.stdout
    assert world.cli("doctor").returncode == 1


# --- the array splices the installer rests on ---------------------------------------------

LAYOUTS = [
    '{\n  "hooks": {\n    "Stop": [\n      {"hooks": []}\n    ]\n  }\n}\n',
    '{\n\t"hooks": {\n\t\t"Stop": [{"hooks": []}, {"matcher": "x", "hooks": []}]\n\t}\n}',
    '{\n    "hooks": {\n        // mine\n        "Stop": [\n            {"hooks": []}, // keep\n        ],\n    },\n}\n',
    '{"hooks": {"Stop": []}, "other": 1}',
    '{"other": 1}',
]


@pytest.mark.parametrize("text", LAYOUTS)
def test_append_then_remove_gives_back_the_bytes(text: str) -> None:
    value = {"hooks": [{"type": "command", "command": "memoir-tui hook stop --host claude"}]}
    added = config_splice.append_json_array_item(text, "hooks", "Stop", value)
    assert config_splice.parse_jsonc_value(added)["hooks"]["Stop"][-1] == value
    index = len(config_splice.parse_jsonc_value(added)["hooks"]["Stop"]) - 1
    removed = config_splice.remove_json_array_item(added, "hooks", "Stop", index)
    if '"Stop": []' in text:  # an array we made non-empty goes back empty … or away
        assert config_splice.parse_jsonc_value(removed).get("hooks", {}).get("Stop", []) == []
    else:
        assert removed == text


def test_hook_files_are_private_when_we_create_them(world: World) -> None:
    assert world.cli("install-hooks", "codex").returncode == 0
    created = world.home / ".codex" / "hooks.json"
    assert stat.S_IMODE(created.stat().st_mode) & 0o077 == 0
    assert os.access(created, os.R_OK)


def test_project_mcp_files_name_memoir_tui_from_path_and_codex_waits_long_enough(
    world: World,
) -> None:
    done = world.cli("install-mcp", "claude-code", "--project", str(world.project))
    assert "meant to be committed" in done.stdout, done.stdout
    # what the host will ask of the user, said as next steps
    assert "WARN  mcp claude-code: Claude Code runs a project's hooks and MCP servers" in (
        done.stdout
    )
    assert "WARN  mcp claude-code: Claude Code asks you to approve memoir-tui" in done.stdout
    entry = json.loads((world.project / ".mcp.json").read_text())["mcpServers"]["memoir-tui"]
    assert entry["command"] == "memoir-tui" and "env" not in entry
    assert str(world.home) not in (world.project / ".mcp.json").read_text()
    assert world.cli("install-mcp", "codex").returncode in (0, 1)
    import tomllib

    codex = tomllib.loads((world.home / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["memoir-tui"]["startup_timeout_sec"] >= 30


@pytest.mark.parametrize("host", ["claude-desktop", "copilot-cli", "cline", "kiro", "opencode"])
def test_new_hosts_register_with_a_live_handshake_and_go_away_byte_exact(
    world: World, host: str
) -> None:
    done = world.cli("install-mcp", host)
    assert done.returncode == 0, done.stdout + done.stderr
    # PASS, or WARN where the host has a start-up limit and a loaded machine took over half
    verdicts = (f"PASS  mcp {host}:", f"WARN  mcp {host}:")
    [line] = [ln for ln in done.stdout.splitlines() if ln.startswith(verdicts)]
    assert "memoir answered" in line
    doctor = world.cli("doctor")
    assert [ln for ln in doctor.stdout.splitlines() if ln.startswith(verdicts)], doctor.stdout
    gone = world.cli("uninstall-mcp", host)
    assert gone.returncode == 0, gone.stdout
    assert "Removed" in gone.stdout


def test_continue_yaml_is_refused_with_what_to_add_by_hand(world: World) -> None:
    config = world.home / ".continue" / "config.yaml"
    config.parent.mkdir()
    text = "name: mine\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: other\n    command: x\n"
    config.write_text(text)
    done = world.cli("install-mcp", "continue")
    assert done.returncode == 2
    said = done.stdout + done.stderr
    assert "refuses rather than rewrite" in said and "~/.continue/config.yaml" in said
    assert "  - name: memoir-tui" in said
    assert config.read_text() == text
