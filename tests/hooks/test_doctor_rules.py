"""The doctor applies each host's own rules, and writes nothing while it does.

Every scenario breaks one thing on purpose, runs ``memoir-tui doctor`` from the
project (a real process, the hooks run through ``sh -c``), and checks the
verdict on that row and that not one byte under the scratch home or the store
changed (hashes of every file and the list of every path, before and after).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.deadlines import SAFETY_NET
from tests.hooks.helpers import make_world
from tests.world import World


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = make_world(tmp_path)
    # hosts that keep their config under XDG's folder (OpenCode) read it in this home
    monkeypatch.setenv("XDG_CONFIG_HOME", str(w.home / ".config"))
    assert w.cli("goal", "Ship the CSV importer").returncode == 0
    return w


def _snapshot(*roots: Path) -> dict[str, str]:
    seen: dict[str, str] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_symlink():
                seen[str(path)] = "link:" + os.readlink(path)
            elif path.is_file():
                seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                seen[str(path)] = "dir"
    return seen


def _doctor(world: World) -> tuple[int, list[str]]:
    """Run the doctor in the project; assert it wrote nothing; its lines."""
    before = _snapshot(world.home, world.store_dir)
    done = world.cli("doctor", timeout=SAFETY_NET)
    assert "Traceback" not in done.stderr, done.stderr
    assert _snapshot(world.home, world.store_dir) == before, "the doctor wrote something"
    return done.returncode, done.stdout.splitlines()


def _gemini_lifecycle_match(matcher: object, trigger: str) -> bool:
    """Gemini CLI's rule (packages/core/src/hooks/hookPlanner.ts): no matcher, "" or
    "*" match all; a lifecycle event's trigger must equal the matcher exactly."""
    if not matcher:
        return True
    assert isinstance(matcher, str)
    text = matcher.strip()
    return text in ("", "*") or text == trigger


def test_what_install_hooks_gemini_writes_fires_for_every_source(world: World) -> None:
    assert world.cli("install-hooks", "gemini").returncode == 0
    groups = json.loads((world.home / ".gemini" / "settings.json").read_text())["hooks"][
        "SessionStart"
    ]
    for source in ("startup", "resume", "clear"):
        firing = [g for g in groups if _gemini_lifecycle_match(g.get("matcher"), source)]
        assert len(firing) == 1, (source, groups)
        assert "hook session-start --host gemini" in firing[0]["hooks"][0]["command"]


def _set_gemini_matcher(world: World) -> None:
    assert world.cli("install-hooks", "gemini").returncode == 0
    path = world.home / ".gemini" / "settings.json"
    data = json.loads(path.read_text())
    data["hooks"]["SessionStart"][0]["matcher"] = "startup|resume|clear"
    path.write_text(json.dumps(data, indent=2))


def _claude_local_off(world: World) -> None:
    assert world.cli("install-hooks", "claude").returncode == 0
    local = world.project / ".claude" / "settings.local.json"
    local.parent.mkdir(parents=True, exist_ok=True)
    local.write_text('{"disableAllHooks": true}\n')


def _gemini_named_off(world: World) -> None:
    assert world.cli("install-hooks", "gemini").returncode == 0
    project = world.project / ".gemini" / "settings.json"
    project.parent.mkdir(parents=True)
    project.write_text('{"hooksConfig": {"disabled": ["memoir-tui-session-start"]}}\n')


def _codex_feature_off(world: World) -> None:
    assert world.cli("install-hooks", "codex").returncode == 0
    (world.home / ".codex" / "config.toml").write_text("[features]\nhooks = false\n")


def trusted_hashes(hooks_json: Path) -> str:
    """What Codex's /hooks writes when the user trusts each handler of ``hooks_json``:
    ``[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash``, the hash being
    re-derived here from the file's raw JSON (codex-rs/hooks discovery.rs
    ``command_hook_hash``: the event's label, the group's matcher, the one handler with
    its timeout explicit, canonical JSON, SHA-256)."""
    labels = {"SessionStart": "session_start", "Stop": "stop"}
    out = []
    for event, groups in json.loads(hooks_json.read_text())["hooks"].items():
        for g, group in enumerate(groups):
            for h, handler in enumerate(group["hooks"]):
                identity: dict[str, object] = {
                    "event_name": labels[event],
                    "hooks": [
                        {
                            "type": "command",
                            "command": handler["command"],
                            "timeout": handler.get("timeout", 600),
                            "async": handler.get("async", False),
                        }
                    ],
                }
                if "matcher" in group and event != "Stop":
                    identity["matcher"] = group["matcher"]
                canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
                digest = hashlib.sha256(canonical.encode()).hexdigest()
                key = f"{hooks_json}:{labels[event]}:{g}:{h}"
                out.append(f'[hooks.state."{key}"]\ntrusted_hash = "sha256:{digest}"\n')
    return "".join(out)


def _codex_project_untrusted(world: World) -> None:
    done = world.cli("install-hooks", "codex", "--project", str(world.project))
    assert (world.project / ".codex" / "hooks.json").exists(), done.stdout


def _gemini_folder_untrusted(world: World) -> None:
    (world.home / ".gemini").mkdir()
    (world.home / ".gemini" / "settings.json").write_text(
        '{"security": {"folderTrust": {"enabled": true}}}\n'
    )
    (world.home / ".gemini" / "trustedFolders.json").write_text(
        json.dumps({str(world.home / "elsewhere"): "TRUST_FOLDER"})
    )
    world.cli("install-hooks", "gemini", "--project", str(world.project))
    assert (world.project / ".gemini" / "settings.json").exists()


def _gemini_too_slow(world: World) -> None:
    assert world.cli("install-hooks", "gemini").returncode == 0
    path = world.home / ".gemini" / "settings.json"
    path.write_text(path.read_text().replace('"timeout": 10000', '"timeout": 1'))


def _claude_json_corrupt(world: World) -> None:
    (world.home / ".claude.json").write_text('{"mcpServers": {"memoir-tui": ')


def _session_damaged(world: World) -> None:
    (world.store_dir / "session.json").write_text("{not json")


def _session_newer(world: World) -> None:
    (world.store_dir / "session.json").write_text('{"version": 99, "current": {}}')


def _codex_slow_start(world: World) -> None:
    path = world.home / ".codex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "memoir_tui", "--mcp"]
    path.write_text(
        f'[mcp_servers.memoir-tui]\ncommand = "{argv[0]}"\nargs = {json.dumps(argv[1:])}\n'
        "startup_timeout_sec = 0.001\n"
        + f'env = {{ PYTHONPATH = "{world.process_env()["PYTHONPATH"]}" }}\n'
    )


def _our_server(world: World) -> dict[str, object]:
    """Our server as a stdio entry that starts here (this venv's Python)."""
    return {
        "command": sys.executable,
        "args": ["-m", "memoir_tui", "--mcp"],
        "env": {"PYTHONPATH": world.process_env()["PYTHONPATH"]},
    }


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))


def _opencode_slow_start(world: World) -> None:
    server = _our_server(world)
    entry = {
        "type": "local",
        "command": [server["command"], *server["args"]],  # type: ignore[list-item]
        "environment": server["env"],
        "timeout": 1,  # ms: OpenCode's own knob
    }
    _write_json(
        world.home / ".config" / "opencode" / "opencode.json", {"mcp": {"memoir-tui": entry}}
    )


def _claude_code_slow_start(world: World) -> None:
    _write_json(world.home / ".claude.json", {"mcpServers": {"memoir-tui": _our_server(world)}})
    _write_json(world.home / ".claude" / "settings.json", {"env": {"MCP_TIMEOUT": "1"}})


def _gemini_slow_start(world: World) -> None:
    entry = {**_our_server(world), "timeout": 1}
    _write_json(world.home / ".gemini" / "settings.json", {"mcpServers": {"memoir-tui": entry}})


def _codex_hook_unapproved(world: World) -> None:
    done = world.cli("install-hooks", "codex")
    assert done.returncode == 0, done.stdout  # a next step there, not a failure
    assert "WARN  hook codex SessionStart: Codex CLI runs a new hook only once" in done.stdout


def _codex_project_mcp_untrusted(world: World) -> None:
    world.cli("install-mcp", "codex", "--project", str(world.project))
    assert (world.project / ".codex" / "config.toml").exists()


def _gemini_project_mcp_untrusted(world: World) -> None:
    _write_json(
        world.home / ".gemini" / "settings.json", {"security": {"folderTrust": {"enabled": True}}}
    )
    world.cli("install-mcp", "gemini", "--project", str(world.project))
    assert (world.project / ".gemini" / "settings.json").exists()


def _claude_project_untrusted(world: World) -> None:
    world.cli("install-hooks", "claude", "--project", str(world.project))
    assert (world.project / ".claude" / "settings.json").exists()


def _claude_mcpjson_untrusted(world: World) -> None:
    world.cli("install-mcp", "claude-code", "--project", str(world.project))
    assert (world.project / ".mcp.json").exists()


def _claude_mcpjson_declined(world: World) -> None:
    _claude_mcpjson_untrusted(world)
    record = {"hasTrustDialogAccepted": True, "disabledMcpjsonServers": ["memoir-tui"]}
    _write_json(world.home / ".claude.json", {"projects": {str(world.project): record}})


ROWS: list[tuple[str, Callable[[World], None], str, str]] = [
    (
        "gemini-pipe-matcher",
        _set_gemini_matcher,
        "FAIL  hook gemini SessionStart: Gemini CLI would never run it",
        "by exact string",
    ),
    (
        "claude-local-disable",
        _claude_local_off,
        "FAIL  hooks claude: hooks are turned off: disableAllHooks = true in",
        "settings.local.json",
    ),
    (
        "gemini-disabled-name",
        _gemini_named_off,
        "FAIL  hook gemini SessionStart: Gemini CLI skips it",
        "hooksConfig.disabled",
    ),
    (
        "codex-features-off",
        _codex_feature_off,
        "FAIL  hooks codex: hooks are turned off: features.hooks = false",
        "config.toml",
    ),
    (
        "codex-untrusted-project",
        _codex_project_untrusted,
        "FAIL  hooks codex: Codex reads",
        "not trusted",
    ),
    (
        "gemini-untrusted-folder",
        _gemini_folder_untrusted,
        "FAIL  hooks gemini: Gemini CLI runs a project's hooks only in a trusted folder",
        "trustedFolders.json",
    ),
    ("hook-over-timeout", _gemini_too_slow, "FAIL  hook gemini SessionStart: exit 0", "cut it off"),
    ("corrupt-claude-json", _claude_json_corrupt, "FAIL  mcp claude-code:", "cannot be parsed"),
    ("damaged-session", _session_damaged, "FAIL  store:", "cannot be parsed"),
    ("newer-session", _session_newer, "FAIL  store: read-only", "newer memoir format"),
    ("codex-slow-start", _codex_slow_start, "FAIL  mcp codex:", "startup_timeout_sec"),
    ("opencode-slow-start", _opencode_slow_start, "FAIL  mcp opencode:", '"timeout": '),
    ("claude-code-slow-start", _claude_code_slow_start, "FAIL  mcp claude-code:", "MCP_TIMEOUT="),
    ("gemini-slow-start", _gemini_slow_start, "FAIL  mcp gemini:", '"timeout": '),
    (
        "codex-hook-not-approved",
        _codex_hook_unapproved,
        "FAIL  hook codex SessionStart: Codex CLI runs a new hook only once you trust it",
        "open /hooks",
    ),
    (
        "claude-project-untrusted",
        _claude_project_untrusted,
        "FAIL  hooks claude: Claude Code runs a project's hooks",
        "hasTrustDialogAccepted = true",
    ),
    (
        "claude-mcpjson-untrusted",
        _claude_mcpjson_untrusted,
        "FAIL  mcp claude-code: Claude Code runs a project's hooks and MCP servers",
        "accept the trust dialog",
    ),
    (
        "codex-project-mcp-untrusted",
        _codex_project_mcp_untrusted,
        "FAIL  mcp codex: Codex reads a project's own settings only in a trusted project",
        'trust_level = "trusted"',
    ),
    (
        "gemini-project-mcp-untrusted",
        _gemini_project_mcp_untrusted,
        "FAIL  mcp gemini: Gemini CLI runs a project's hooks only in a trusted folder",
        '"TRUST_FOLDER"',
    ),
    (
        "claude-mcpjson-declined",
        _claude_mcpjson_declined,
        "FAIL  mcp claude-code: Claude Code will not start it",
        "disabledMcpjsonServers",
    ),
]


@pytest.mark.parametrize(("name", "setup", "prefix", "words"), ROWS, ids=[r[0] for r in ROWS])
def test_each_broken_thing_fails_and_nothing_is_written(
    world: World, name: str, setup: Callable[[World], None], prefix: str, words: str
) -> None:
    setup(world)
    code, lines = _doctor(world)
    found = [line for line in lines if line.startswith(prefix)]
    assert found, "\n".join(lines)
    assert words in found[0], found[0]
    assert code == 1


def test_a_later_settings_level_turns_hooks_back_on(world: World) -> None:
    _claude_local_off(world)
    (world.home / ".claude" / "settings.json").write_text(
        (world.home / ".claude" / "settings.json")
        .read_text()
        .replace('"hooks"', '"disableAllHooks": true, "hooks"', 1)
    )
    (world.project / ".claude" / "settings.local.json").write_text('{"disableAllHooks": false}')
    code, lines = _doctor(world)
    assert not [line for line in lines if "turned off" in line], lines
    assert code == 0, "\n".join(lines)


def test_a_trusted_codex_project_passes(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # a project's hooks name memoir-tui from PATH: put this venv's console script there
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    _codex_project_untrusted(world)
    (world.home / ".codex").mkdir(exist_ok=True)
    (world.home / ".codex" / "config.toml").write_text(
        f'[projects."{world.project}"]\ntrust_level = "trusted"\n'
        + trusted_hashes(world.project / ".codex" / "hooks.json")
    )
    _, lines = _doctor(world)
    assert [line for line in lines if line.startswith("PASS  hook codex SessionStart")], lines
    assert not [line for line in lines if "not trusted" in line]


def test_our_flock_held_is_named_by_its_own_name(world: World) -> None:
    flock = world.store_dir / "session.json.flock"
    assert flock.exists()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys\n"
            f"f = open({str(flock)!r}, 'rb')\n"
            "fcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        _, lines = _doctor(world)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=SAFETY_NET)
    [line] = [line for line in lines if line.startswith("WARN  store lock:")]
    assert "session.json.flock is held" in line
    assert not [line for line in lines if "session.json.lock" in line]


def test_a_slow_start_names_the_knob_that_raises_it(world: World) -> None:
    _opencode_slow_start(world)
    _, lines = _doctor(world)
    [line] = [line for line in lines if line.startswith("FAIL  mcp opencode:")]
    path = world.home / ".config" / "opencode" / "opencode.json"
    assert "slower than the 0.001 s" in line and "timeout = 1 ms" in line, line
    assert 'raise it: "timeout": ' in line and f"memoir-tui entry of {path}" in line, line
    assert "install-mcp opencode writes it" in line


def test_claude_code_reads_mcp_timeout_from_its_settings(world: World) -> None:
    _claude_code_slow_start(world)
    _, lines = _doctor(world)
    [line] = [line for line in lines if line.startswith("FAIL  mcp claude-code:")]
    assert '"env": {"MCP_TIMEOUT": "1"} in' in line, line
    assert '"env": {"MCP_TIMEOUT": "' in line.split("raise it:")[1], line


def test_a_trusted_parent_folder_and_an_approved_server_pass(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    _claude_project_untrusted(world)
    _claude_mcpjson_untrusted(world)
    record = {"hasTrustDialogAccepted": True}
    _write_json(world.home / ".claude.json", {"projects": {str(world.project.parent): record}})
    _write_json(
        world.project / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["memoir-tui"]}
    )
    # the project's settings file keeps its hooks: only the approval was added beside it
    code, lines = _doctor(world)
    said = ("trust dialog", "hasTrustDialogAccepted", "approve")
    assert not [line for line in lines if any(w in line for w in said)], lines
    assert [line for line in lines if line.startswith("PASS  hook claude SessionStart")], lines
    assert code == 0, "\n".join(lines)


def test_a_project_server_not_yet_approved_is_a_warning(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    _claude_mcpjson_untrusted(world)
    _write_json(
        world.home / ".claude.json",
        {"projects": {str(world.project): {"hasTrustDialogAccepted": True}}},
    )
    _, lines = _doctor(world)
    [line] = [line for line in lines if line.startswith("WARN  mcp claude-code:")]
    local = world.project / ".claude" / "settings.local.json"
    assert f'"enabledMcpjsonServers": ["memoir-tui"] to {local}' in line, line


def test_a_trusted_codex_hook_passes_and_a_changed_one_warns(world: World) -> None:
    assert world.cli("install-hooks", "codex").returncode == 0
    hooks_json = world.home / ".codex" / "hooks.json"
    config = world.home / ".codex" / "config.toml"
    config.write_text(trusted_hashes(hooks_json))
    _, lines = _doctor(world)
    assert not [line for line in lines if "hook codex" in line and "trust" in line], lines
    assert [line for line in lines if line.startswith("PASS  hook codex SessionStart")], lines
    config.write_text(trusted_hashes(hooks_json).replace('"sha256:', '"sha256:0', 1))
    _, lines = _doctor(world)
    [line] = [line for line in lines if line.startswith("WARN  hook codex SessionStart:")]
    assert "trust it again" in line
