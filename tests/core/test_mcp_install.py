"""Registering memoir-tui's MCP server in host tools' config files.

Every test works on ``tmp_path`` (HOME, project and config files); the real
home is never read: ``home`` and ``env`` are passed explicitly, and one test
makes ``Path.home()`` explode to prove the planners never reach for it. The
text edits themselves are tested in ``tests/core/test_config_splice.py``, the
command's output and exit codes in ``tests/commands/test_install_mcp.py``.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.hosts.mcp_install import (
    BACKUP_SUFFIX,
    ConfigChange,
    ConfigParseError,
    ConfigRefusedError,
    InvalidProjectError,
    McpInstallError,
    ServerSpec,
    StaleConfigError,
    UnknownToolError,
    UnsupportedScopeError,
    backup_path_for,
    get_tool,
    known_tools,
    manual_snippet,
    plan_install,
    plan_uninstall,
    resolve_config_path,
)
from tests.core.test_config_splice import strip_jsonc
from tests.paths import FIXTURES as TEST_FIXTURES

FIXTURES = TEST_FIXTURES / "mcp_configs"


def apply_change(change: ConfigChange) -> Path | None:
    """The one write, through a scratch store's door (as the command does)."""
    from memoir_tui.core.hosts.mcp_install import apply_change as apply_through
    from memoir_tui.core.workflows.memoir import Memoir

    return apply_through(Memoir(actor="cli"), change)


NO_ENV: dict[str, str] = {}
SERVERS_KEY = {
    "claude-code": "mcpServers",
    "cursor": "mcpServers",
    "gemini": "mcpServers",
    "codex": "mcp_servers",
    "vscode": "servers",
    "windsurf": "mcpServers",
    "zed": "context_servers",
}
ALL_TOOLS = tuple(SERVERS_KEY)


# --------------------------------------------------------------------------- helpers


def load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8").lstrip("\ufeff")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return json.loads(strip_jsonc(text))


def expected_entry(tool: str, server: ServerSpec | None = None) -> dict[str, Any]:
    server = server or ServerSpec()
    entry: dict[str, Any] = {}
    if tool in ("claude-code", "vscode"):
        entry["type"] = "stdio"
    if tool == "zed":
        entry["source"] = "custom"
    entry["command"] = server.command
    entry["args"] = list(server.args)
    if tool == "codex":  # more than Codex's 10 s default: a loaded machine starts us slower
        entry["startup_timeout_sec"] = 30
    if server.env:
        entry["env"] = dict(server.env)
    return entry


def without_ours(data: dict[str, Any], key: str, name: str = "memoir-tui") -> dict[str, Any]:
    data = json.loads(json.dumps(data, default=str))
    servers = data.get(key)
    if isinstance(servers, dict):
        servers.pop(name, None)
        if not servers:
            del data[key]
    return data


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def place(tool: str, fixture: str, home: Path, project: Path | None) -> Path:
    path = resolve_config_path(tool, home=home, project=project, env=NO_ENV, platform="linux")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((FIXTURES / fixture).read_bytes())
    return path


def install(tool: str, home: Path, project: Path | None = None, **kw: Any) -> ConfigChange:
    kw.setdefault("env", NO_ENV)
    kw.setdefault("platform", "linux")
    return plan_install(tool, home=home, project=project, **kw)


def uninstall(tool: str, home: Path, project: Path | None = None, **kw: Any) -> ConfigChange:
    kw.setdefault("env", NO_ENV)
    kw.setdefault("platform", "linux")
    return plan_uninstall(tool, home=home, project=project, **kw)


def files_under(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# --------------------------------------------------------------------------- tools + paths


def test_tool_names_and_aliases() -> None:
    # The adapters' order; hosts they describe but install-mcp does not edit are left out.
    assert [t.name for t in known_tools()] == [
        "claude-code",
        "claude-desktop",
        "cursor",
        "windsurf",
        "gemini",
        "codex",
        "vscode",
        "copilot-cli",
        "cline",
        "zed",
        "kiro",
        "opencode",
    ]
    assert get_tool("claude").name == "claude-code"
    assert get_tool("Claude-Code").name == "claude-code"
    assert get_tool("copilot").name == "vscode"


def test_unknown_tool_lists_the_known_ones(home: Path) -> None:
    with pytest.raises(UnknownToolError) as err:
        install("emacs", home)
    message = str(err.value)
    assert "'emacs'" in message
    for name in ALL_TOOLS:
        assert name in message
    assert "alias claude" in message and "alias copilot" in message
    assert isinstance(err.value, McpInstallError)


@pytest.mark.parametrize(
    ("tool", "user_rel", "project_rel"),
    [
        ("claude-code", ".claude.json", ".mcp.json"),
        ("cursor", ".cursor/mcp.json", ".cursor/mcp.json"),
        ("gemini", ".gemini/settings.json", ".gemini/settings.json"),
        ("codex", ".codex/config.toml", ".codex/config.toml"),
        ("vscode", ".config/Code/User/mcp.json", ".vscode/mcp.json"),
        ("windsurf", ".codeium/windsurf/mcp_config.json", None),
        ("zed", ".config/zed/settings.json", ".zed/settings.json"),
    ],
)
def test_config_paths_per_scope(
    tool: str, user_rel: str, project_rel: str | None, home: Path, project: Path
) -> None:
    user = resolve_config_path(tool, home=home, env=NO_ENV, platform="linux")
    assert user == home / user_rel
    if project_rel is None:
        with pytest.raises(UnsupportedScopeError, match="no project-level"):
            resolve_config_path(tool, home=home, project=project, env=NO_ENV)
    else:
        assert resolve_config_path(tool, home=home, project=project, env=NO_ENV) == (
            project / project_rel
        )


def test_paths_respect_environment_overrides(home: Path, tmp_path: Path) -> None:
    env = {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-dir"),
        "CODEX_HOME": "~/codex-home",
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    assert resolve_config_path("claude", home=home, env=env) == tmp_path / "claude-dir/.claude.json"
    assert resolve_config_path("codex", home=home, env=env) == home / "codex-home/config.toml"
    linux = {"env": env, "platform": "linux"}
    assert resolve_config_path("zed", home=home, **linux) == tmp_path / "xdg/zed/settings.json"
    assert resolve_config_path("vscode", home=home, **linux) == tmp_path / "xdg/Code/User/mcp.json"
    # A relative XDG_CONFIG_HOME is invalid per the spec and ignored.
    relative = {"XDG_CONFIG_HOME": "relative/dir"}
    assert resolve_config_path("zed", home=home, env=relative, platform="linux") == (
        home / ".config/zed/settings.json"
    )


def test_platform_specific_user_files(home: Path, tmp_path: Path) -> None:
    mac = {"env": NO_ENV, "platform": "darwin"}
    assert resolve_config_path("vscode", home=home, **mac) == (
        home / "Library/Application Support/Code/User/mcp.json"
    )
    assert resolve_config_path("zed", home=home, **mac) == home / ".config/zed/settings.json"
    win = {"env": {"APPDATA": str(tmp_path / "roaming")}, "platform": "win32"}
    assert (
        resolve_config_path("vscode", home=home, **win) == tmp_path / "roaming/Code/User/mcp.json"
    )
    assert resolve_config_path("zed", home=home, **win) == tmp_path / "roaming/Zed/settings.json"
    assert resolve_config_path("zed", home=home, env=NO_ENV, platform="win32") == (
        home / "AppData/Roaming/Zed/settings.json"
    )


def test_missing_project_directory_is_refused(home: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidProjectError, match="does not exist"):
        install("cursor", home, tmp_path / "no-such-project")
    assert not (tmp_path / "no-such-project").exists()


def test_planners_never_use_the_real_home(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def boom() -> Path:
        raise AssertionError("Path.home() must not be called")

    monkeypatch.setattr(Path, "home", staticmethod(boom))
    monkeypatch.setenv("HOME", str(tmp_path / "not-this-one"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "nor-this"))
    for tool in ALL_TOOLS:
        change = install(tool, home)
        assert change.path.is_relative_to(home)
        apply_change(change)
    assert not (tmp_path / "not-this-one").exists()
    assert not (tmp_path / "nor-this").exists()


# --------------------------------------------------------------------------- fresh files


@pytest.mark.parametrize(
    ("tool", "scope"),
    [(t, s) for t in ALL_TOOLS for s in ("user", "project") if (t, s) != ("windsurf", "project")],
)
def test_install_creates_a_missing_file_with_parents(
    tool: str, scope: str, home: Path, project: Path
) -> None:
    proj = project if scope == "project" else None
    change = install(tool, home, proj)
    assert change.old_text is None
    assert change.changed
    assert change.diff.startswith("--- /dev/null\n")
    assert not change.path.exists()  # planning writes nothing
    assert apply_change(change) is None  # nothing existed, so no backup
    data = load(change.path)
    assert data[SERVERS_KEY[tool]]["memoir-tui"] == expected_entry(tool)
    assert not backup_path_for(change.path).exists()


def test_fresh_json_and_toml_text(home: Path) -> None:
    apply_change(install("claude-code", home))
    assert (home / ".claude.json").read_text() == (
        "{\n"
        '  "mcpServers": {\n'
        '    "memoir-tui": {\n'
        '      "type": "stdio",\n'
        '      "command": "memoir-tui",\n'
        '      "args": [\n'
        '        "--mcp"\n'
        "      ]\n"
        "    }\n"
        "  }\n"
        "}\n"
    )
    apply_change(install("codex", home))
    assert (home / ".codex/config.toml").read_text() == (
        '[mcp_servers.memoir-tui]\ncommand = "memoir-tui"\nargs = ["--mcp"]\n'
        "startup_timeout_sec = 30\n"
    )


# --------------------------------------------------------------------------- round trips

ROUND_TRIPS = [
    ("claude-code", "user", "claude.json"),
    ("claude-code", "project", "mcp.json"),
    ("cursor", "user", "cursor_mcp.json"),
    ("cursor", "project", "cursor_mcp.json"),
    ("gemini", "user", "gemini_settings.json"),
    ("gemini", "project", "gemini_settings.json"),
    ("codex", "user", "codex_config.toml"),
    ("codex", "project", "codex_config.toml"),
    ("vscode", "user", "vscode_mcp.json"),
    ("vscode", "project", "vscode_mcp.json"),
    ("windsurf", "user", "windsurf_mcp_config.json"),
    ("zed", "user", "zed_settings.jsonc"),
    ("zed", "project", "zed_settings_with_servers.jsonc"),
]


@pytest.mark.parametrize(("tool", "scope", "fixture"), ROUND_TRIPS)
def test_round_trip_restores_the_original_bytes(
    tool: str, scope: str, fixture: str, home: Path, project: Path
) -> None:
    proj = project if scope == "project" else None
    path = place(tool, fixture, home, proj)
    original = path.read_bytes()
    before = load(path)
    key = SERVERS_KEY[tool]
    server = ServerSpec(env={"MEMOIR_HOME": str(home / "store")})

    change = install(tool, home, proj, server=server)
    assert change.changed and change.path == path
    assert change.old_text == original.decode()
    assert change.diff.startswith(f"--- {path}\n+++ {path}\n")
    backup = apply_change(change)
    assert backup == path.with_name(path.name + BACKUP_SUFFIX)
    assert backup.read_bytes() == original

    after = load(path)
    assert after[key]["memoir-tui"] == expected_entry(tool, server)
    assert without_ours(after, key) == without_ours(before, key)
    if isinstance(before.get(key), dict) and "memoir" in before[key]:
        assert after[key]["memoir"] == before[key]["memoir"]  # the JS tool's entry is untouched

    again = install(tool, home, proj, server=server)
    assert not again.changed and again.diff == ""

    removal = uninstall(tool, home, proj)
    assert removal.changed
    assert apply_change(removal) is None  # the first backup already exists and is kept
    assert path.read_bytes() == original
    assert backup.read_bytes() == original
    assert not uninstall(tool, home, proj).changed


def test_all_comments_survive_in_jsonc(home: Path, project: Path) -> None:
    for fixture, proj in (
        ("zed_settings.jsonc", None),
        ("zed_settings_with_servers.jsonc", project),
    ):
        path = place("zed", fixture, home, proj)
        original = path.read_text()
        comments = re.findall(r"//[^\n]*|/\*.*?\*/", original, flags=re.S)
        assert comments
        apply_change(install("zed", home, proj))
        installed = path.read_text()
        for comment in comments:
            assert comment in installed
        # Nothing of the original was lost: deleting our lines gives it back.
        assert all(line in installed.splitlines() for line in original.splitlines())


# --------------------------------------------------------------------------- idempotence


@pytest.mark.parametrize(("tool", "scope", "fixture"), ROUND_TRIPS)
def test_second_install_writes_nothing(
    tool: str, scope: str, fixture: str, home: Path, project: Path
) -> None:
    proj = project if scope == "project" else None
    path = place(tool, fixture, home, proj)
    apply_change(install(tool, home, proj))
    first = path.read_bytes()
    stat = path.stat()
    snapshot = files_under(path.parent)

    second = install(tool, home, proj)
    assert second.changed is False
    assert second.old_text == second.new_text == first.decode()
    assert apply_change(second) is None
    assert path.read_bytes() == first
    assert path.stat().st_ino == stat.st_ino and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert files_under(path.parent) == snapshot  # no new backup, no temp files


def test_install_twice_on_a_missing_file_is_byte_identical(home: Path) -> None:
    for tool in ALL_TOOLS:
        apply_change(install(tool, home))
        path = resolve_config_path(tool, home=home, env=NO_ENV, platform="linux")
        first = path.read_bytes()
        assert not install(tool, home).changed
        assert path.read_bytes() == first
        assert not backup_path_for(path).exists()


# --------------------------------------------------------------------------- updates + backups


def test_update_replaces_only_managed_keys_and_keeps_user_extras(home: Path) -> None:
    path = home / ".codeium/windsurf/mcp_config.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "memoir-tui": {
                        "command": "/old/memoir-tui",
                        "args": ["--mcp"],
                        "env": {"STALE": "1"},
                        "disabled": False,
                        "autoApprove": ["memoir_search"],
                    },
                    "memoir": {"command": "npx", "args": ["@memoir/cli"]},
                }
            },
            indent=2,
        )
        + "\n"
    )
    server = ServerSpec(command="/opt/bin/memoir-tui", args=["--mcp", "--quiet"])
    apply_change(install("windsurf", home, server=server))
    servers = load(path)["mcpServers"]
    assert servers["memoir-tui"] == {
        "command": "/opt/bin/memoir-tui",
        "args": ["--mcp", "--quiet"],
        "disabled": False,
        "autoApprove": ["memoir_search"],
    }
    assert servers["memoir"] == {"command": "npx", "args": ["@memoir/cli"]}
    assert list(servers) == ["memoir-tui", "memoir"]  # updated in place, order kept
    assert not install("windsurf", home, server=server).changed


def test_backup_keeps_the_pre_memoir_original_across_changes(home: Path) -> None:
    path = place("cursor", "cursor_mcp.json", home, None)
    original = path.read_bytes()
    backup = apply_change(install("cursor", home))
    assert backup == backup_path_for(path) and backup.name == "mcp.json.memoir-tui.bak"
    # A changed spec rewrites the config but never the backup.
    other = ServerSpec.python_module("/usr/bin/python3", env={"MEMOIR_HOME": "/srv/m"})
    assert apply_change(install("cursor", home, server=other)) is None
    assert load(path)["mcpServers"]["memoir-tui"] == {
        "command": "/usr/bin/python3",
        "args": ["-m", "memoir_tui", "--mcp"],
        "env": {"MEMOIR_HOME": "/srv/m"},
    }
    assert apply_change(uninstall("cursor", home)) is None
    assert backup.read_bytes() == original
    assert path.read_bytes() == original


def test_backup_keeps_permissions_and_the_config_keeps_its_mode(home: Path) -> None:
    path = place("claude-code", "claude.json", home, None)
    path.chmod(0o600)
    backup = apply_change(install("claude-code", home))
    assert backup is not None
    assert backup.stat().st_mode & 0o777 == 0o600
    assert path.stat().st_mode & 0o777 == 0o600


def test_stale_plan_is_refused(home: Path) -> None:
    path = place("gemini", "gemini_settings.json", home, None)
    change = install("gemini", home)
    path.write_text(path.read_text().replace("GitHub", "Dracula"))
    edited = path.read_bytes()
    with pytest.raises(StaleConfigError, match="changed since"):
        apply_change(change)
    assert path.read_bytes() == edited
    assert not backup_path_for(path).exists()


def test_symlinked_config_is_written_through(home: Path, monkeypatch) -> None:
    """A dotfiles checkout inside the home: written through, the link kept."""
    monkeypatch.setenv("HOME", str(home))
    real = home / "dotfiles" / "zed-settings.json"
    real.parent.mkdir()
    real.write_bytes((FIXTURES / "zed_settings.jsonc").read_bytes())
    link = home / ".config/zed/settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    apply_change(install("zed", home))
    assert link.is_symlink()
    assert "memoir-tui" in load(real)["context_servers"]
    assert backup_path_for(link).read_bytes() == (FIXTURES / "zed_settings.jsonc").read_bytes()


def test_a_config_linked_out_of_the_home_is_named_and_left(
    home: Path, tmp_path: Path, monkeypatch
) -> None:
    from memoir_tui.core.base.safeio import LinkOutsideError

    monkeypatch.setenv("HOME", str(home))
    real = tmp_path / "elsewhere" / "zed-settings.json"
    real.parent.mkdir()
    before = (FIXTURES / "zed_settings.jsonc").read_bytes()
    real.write_bytes(before)
    link = home / ".config/zed/settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    with pytest.raises(LinkOutsideError) as caught:
        apply_change(install("zed", home))
    assert str(link) in str(caught.value) and str(real) in str(caught.value)
    assert real.read_bytes() == before and not backup_path_for(link).exists()


# --------------------------------------------------------------------------- what we leave alone


def test_claude_project_scoped_entries_are_not_ours_to_touch(home: Path) -> None:
    path = place("claude-code", "claude.json", home, None)
    before = load(path)["projects"]
    apply_change(install("claude-code", home))
    apply_change(uninstall("claude-code", home))
    assert load(path)["projects"] == before
    assert load(path)["projects"]["/home/dev/src/app"]["mcpServers"]["memoir-tui"]


def test_uninstall_removes_only_ours_and_keeps_the_js_memoir_entry(home: Path) -> None:
    path = home / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_text(
        '{\n  "mcpServers": {\n    "memoir-tui": {"command": "x"},\n'
        '    "memoir": {"command": "npx"}\n  }\n}\n'
    )
    apply_change(uninstall("cursor", home))
    assert path.read_text() == '{\n  "mcpServers": {\n    "memoir": {"command": "npx"}\n  }\n}\n'


def test_uninstall_of_a_missing_file_or_entry_changes_nothing(home: Path) -> None:
    change = uninstall("gemini", home)
    assert change.old_text is None and change.new_text is None and not change.changed
    assert apply_change(change) is None
    assert not change.path.exists()
    path = place("gemini", "gemini_settings.json", home, None)
    assert not uninstall("gemini", home).changed
    path.write_text('{"mcpServers": {"memoir": {"command": "npx"}}}')
    assert not uninstall("gemini", home).changed


@pytest.mark.parametrize(
    ("tool", "original"),
    [
        ("cursor", '{\n  "mcpServers": {}\n}\n'),
        ("vscode", '{\n\t"servers": {},\n\t"inputs": []\n}\n'),
        ("claude-code", '{"numStartups": 1, "mcpServers": {}}'),
    ],
)
def test_existing_empty_containers_round_trip(tool: str, original: str, home: Path) -> None:
    path = resolve_config_path(tool, home=home, env=NO_ENV, platform="linux")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(original)
    apply_change(install(tool, home))
    assert load(path)[SERVERS_KEY[tool]]["memoir-tui"] == expected_entry(tool)
    apply_change(uninstall(tool, home))
    if tool == "claude-code":
        # Shared settings file: an emptied container goes (install usually created it).
        assert path.read_text() == '{"numStartups": 1}'
    else:
        assert path.read_text() == original


def test_dedicated_file_keeps_an_emptied_container(home: Path) -> None:
    apply_change(install("cursor", home))
    apply_change(uninstall("cursor", home))
    assert (home / ".cursor/mcp.json").read_text() == '{\n  "mcpServers": {}\n}\n'


# --------------------------------------------------------------------------- empty files


def test_empty_file_counts_as_an_empty_config(home: Path) -> None:
    path = home / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_text("")
    change = install("cursor", home)
    assert change.old_text == ""
    backup = apply_change(change)
    assert backup is not None and backup.read_bytes() == b""
    assert load(path)["mcpServers"]["memoir-tui"] == expected_entry("cursor")


# --------------------------------------------------------------------------- refusals

BROKEN = [
    ("cursor", "{not json", "invalid JSON at line 1, column 2"),
    ("cursor", '{"mcpServers": {}', "unterminated object"),
    ("cursor", "[1, 2]", "top level is not a JSON object"),
    ("cursor", '"just a string"', "top level is not a JSON object"),
    ("cursor", '{"mcpServers": []}', "'mcpServers' is not a JSON object"),
    ("claude-code", '{"mcpServers": "memoir"}', "'mcpServers' is not a JSON object"),
    ("vscode", '{"servers": null, "inputs": []}', "'servers' is not a JSON object"),
    ("zed", '{\n  /* unterminated\n  "a": 1\n}', "unterminated /* comment"),
    ("zed", '{"a": 1} trailing', "unexpected text after the top-level value"),
    ("gemini", '{"a": NaN}', "invalid JSON"),
    ("codex", "model = \n", "invalid TOML"),
    ("codex", "[mcp_servers]\n[mcp_servers]\n", "invalid TOML"),
    ("codex", "mcp_servers = 3\n", "'mcp_servers' is not a table"),
    ("codex", "[[mcp_servers]]\nname = 'x'\n", "'mcp_servers' is not a table"),
]


@pytest.mark.parametrize(("tool", "content", "reason"), BROKEN)
@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_unparseable_files_are_left_byte_identical(
    tool: str, content: str, reason: str, action: str, home: Path
) -> None:
    path = resolve_config_path(tool, home=home, env=NO_ENV, platform="linux")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    planner = install if action == "install" else uninstall
    with pytest.raises(ConfigParseError) as err:
        planner(tool, home)
    assert err.value.path == path
    assert reason in err.value.reason
    assert str(path) in str(err.value)
    assert path.read_text() == content
    assert files_under(path.parent) == {path.name: content.encode()}


def test_non_utf8_file_is_refused(home: Path) -> None:
    path = home / ".cursor/mcp.json"
    path.parent.mkdir()
    path.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(ConfigParseError, match="not UTF-8"):
        install("cursor", home)
    assert path.read_bytes() == b'{"a": "\xff"}'


def test_directory_in_place_of_the_config_is_refused(home: Path) -> None:
    (home / ".cursor/mcp.json").mkdir(parents=True)
    with pytest.raises(ConfigParseError, match="is a directory"):
        install("cursor", home)


def test_codex_inline_mcp_servers_table_is_refused(home: Path) -> None:
    path = home / ".codex/config.toml"
    path.parent.mkdir()
    content = 'mcp_servers = { other = { command = "x" } }\n'
    path.write_text(content)
    with pytest.raises(ConfigRefusedError, match="invalid"):
        install("codex", home)
    assert path.read_text() == content


# --------------------------------------------------------------------------- TOML specifics


def test_codex_table_in_the_middle_is_replaced_and_neighbours_kept(home: Path) -> None:
    path = home / ".codex/config.toml"
    path.parent.mkdir()
    path.write_text(
        'model = "x"\n'
        "\n"
        '[mcp_servers."memoir-tui"]\n'
        'command = "/old/path/memoir-tui"\n'
        'args = ["--mcp"]\n'
        "startup_timeout_sec = 20  # user-tuned\n"
        "\n"
        "# env for our server\n"
        '[mcp_servers."memoir-tui".env]\n'
        'MEMOIR_HOME = "/old"\n'
        "\n"
        "# Settings for the other server\n"
        "[mcp_servers.other]\n"
        'command = "other"\n'
    )
    server = ServerSpec(command="C:\\Tools\\memoir-tui.exe", env={"MEMOIR_HOME": 'q"uo\\te ü'})
    apply_change(install("codex", home, server=server))
    text = path.read_text()
    assert text == (
        'model = "x"\n'
        "\n"
        "# Settings for the other server\n"
        "[mcp_servers.other]\n"
        'command = "other"\n'
        "\n"
        "[mcp_servers.memoir-tui]\n"
        'command = "C:\\\\Tools\\\\memoir-tui.exe"\n'
        'args = ["--mcp"]\n'
        "startup_timeout_sec = 20\n"
        'env = { MEMOIR_HOME = "q\\"uo\\\\te ü" }\n'
    )
    entry = tomllib.loads(text)["mcp_servers"]["memoir-tui"]
    assert entry == {
        "command": "C:\\Tools\\memoir-tui.exe",
        "args": ["--mcp"],
        "startup_timeout_sec": 20,
        "env": {"MEMOIR_HOME": 'q"uo\\te ü'},
    }
    assert not install("codex", home, server=server).changed
    apply_change(uninstall("codex", home))
    assert path.read_text() == (
        'model = "x"\n\n# Settings for the other server\n[mcp_servers.other]\ncommand = "other"\n'
    )


def test_server_spec_values_survive_every_format(home: Path) -> None:
    server = ServerSpec(
        command="/Users/zoë/My Tools/memoir-tui",
        args=["--mcp", 'say "hi"', "tab\there", "línea\nnueva"],
        env={"MEMOIR_HOME": "C:\\memoir", "WEIRD KEY": "ü"},
    )
    for tool in ALL_TOOLS:
        apply_change(install(tool, home, server=server))
        path = resolve_config_path(tool, home=home, env=NO_ENV, platform="linux")
        assert load(path)[SERVERS_KEY[tool]]["memoir-tui"] == expected_entry(tool, server)
        assert not install(tool, home, server=server).changed


def test_server_spec_is_frozen_and_normalised() -> None:
    spec = ServerSpec(args=["--mcp"], env={"A": "1"})
    assert spec.args == ("--mcp",)
    assert hash(spec) == hash(ServerSpec(args=("--mcp",), env={"A": "1"}))
    with pytest.raises(TypeError):
        spec.env["B"] = "2"  # type: ignore[index]
    with pytest.raises(ValueError, match="command"):
        ServerSpec(command="")
    module = ServerSpec.python_module("/py")
    assert (module.command, module.args) == ("/py", ("-m", "memoir_tui", "--mcp"))


def test_custom_server_name(home: Path) -> None:
    server = ServerSpec(name="memoir-tui-dev")
    apply_change(install("codex", home, server=server))
    apply_change(install("codex", home))
    data = tomllib.loads((home / ".codex/config.toml").read_text())
    assert set(data["mcp_servers"]) == {"memoir-tui", "memoir-tui-dev"}
    apply_change(uninstall("codex", home, server=server))
    data = tomllib.loads((home / ".codex/config.toml").read_text())
    assert set(data["mcp_servers"]) == {"memoir-tui"}


def test_manual_snippets() -> None:
    assert json.loads(manual_snippet("copilot")) == {
        "servers": {"memoir-tui": expected_entry("vscode")}
    }
    assert tomllib.loads(manual_snippet("codex")) == {
        "mcp_servers": {"memoir-tui": expected_entry("codex")}
    }


# --------------------------------------------------------------------------- more hosts

# Lived-in files as each host writes them (its docs' shapes): other servers, the host's
# own keys, comments where the host tolerates them.
LIVED_IN = {
    ("claude-desktop", "user"): (
        ".config/Claude/claude_desktop_config.json",
        '{\n  "mcpServers": {\n    "filesystem": {\n      "command": "npx",\n'
        '      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]\n    }\n'
        '  },\n  "preferences": { "quickEntryShortcut": "off" }\n}\n',
    ),
    ("copilot-cli", "user"): (
        ".copilot/mcp-config.json",
        '{\n  "mcpServers": {\n    "playwright": {\n      "type": "local",\n'
        '      "command": "npx",\n      "args": ["@playwright/mcp@latest"],\n'
        '      "tools": ["*"]\n    }\n  }\n}\n',
    ),
    ("cline", "user"): (
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        '{\n\t"mcpServers": {\n\t\t"github": {\n\t\t\t"command": "docker",\n'
        '\t\t\t"args": ["run", "-i", "ghcr.io/github/github-mcp-server"],\n'
        '\t\t\t"disabled": false,\n\t\t\t"autoApprove": []\n\t\t}\n\t}\n}',
    ),
    ("kiro", "user"): (
        ".kiro/settings/mcp.json",
        '{\n  "mcpServers": {\n    "fetch": {\n      "command": "uvx",\n'
        '      "args": ["mcp-server-fetch"],\n      "disabled": false,\n'
        '      "autoApprove": []\n    }\n  }\n}\n',
    ),
    ("kiro", "project"): (".kiro/settings/mcp.json", '{\n  "mcpServers": {}\n}\n'),
}


@pytest.mark.parametrize(("tool", "scope"), list(LIVED_IN), ids=[f"{t}-{s}" for t, s in LIVED_IN])
def test_new_hosts_install_and_uninstall_byte_exact_in_lived_in_files(
    tool: str, scope: str, home: Path, project: Path
) -> None:
    rel, text = LIVED_IN[(tool, scope)]
    proj = project if scope == "project" else None
    path = (project if proj else home) / rel
    assert resolve_config_path(tool, home=home, project=proj, env=NO_ENV, platform="linux") == path
    path.parent.mkdir(parents=True)
    path.write_text(text)
    before = json.loads(text)
    server = ServerSpec(command="/opt/memoir-tui", env={"MEMOIR_HOME": "/srv/memoir"})
    apply_change(install(tool, home, proj, server=server))
    after = json.loads(path.read_text())
    entry = after["mcpServers"]["memoir-tui"]
    assert entry["command"] == "/opt/memoir-tui" and entry["args"] == ["--mcp"]
    assert entry["env"] == {"MEMOIR_HOME": "/srv/memoir"}
    if tool == "copilot-cli":
        assert entry["type"] == "local" and entry["tools"] == ["*"]
    others = {k: v for k, v in after["mcpServers"].items() if k != "memoir-tui"}
    assert others == before["mcpServers"]
    assert {k: v for k, v in after.items() if k != "mcpServers"} == {
        k: v for k, v in before.items() if k != "mcpServers"
    }
    assert not install(tool, home, proj, server=server).changed
    apply_change(uninstall(tool, home, proj))
    assert path.read_text() == text


def test_claude_desktop_lives_in_each_platforms_app_data(home: Path) -> None:
    mac = resolve_config_path("claude-desktop", home=home, env=NO_ENV, platform="darwin")
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    win = resolve_config_path(
        "claude-desktop", home=home, env={"APPDATA": str(home / "AD")}, platform="win32"
    )
    assert win == home / "AD" / "Claude" / "claude_desktop_config.json"


OPENCODE = """{
  "$schema": "https://opencode.ai/config.json",
  // my servers
  "mcp": {
    "everything": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],
    },
  },
  "theme": "opencode",
}
"""


def test_opencode_gets_its_own_entry_shape_and_goes_away_byte_exact(home: Path) -> None:
    path = home / ".config" / "opencode" / "opencode.json"
    assert resolve_config_path("opencode", home=home, env=NO_ENV, platform="linux") == path
    path.parent.mkdir(parents=True)
    path.write_text(OPENCODE)
    server = ServerSpec(command="/opt/memoir-tui", env={"MEMOIR_HOME": "/srv/memoir"})
    apply_change(install("opencode", home, server=server))
    from memoir_tui.core.hosts.config_splice import parse_jsonc_value

    data = parse_jsonc_value(path.read_text())
    assert data["mcp"]["memoir-tui"] == {
        "type": "local",
        "command": ["/opt/memoir-tui", "--mcp"],
        "enabled": True,
        "timeout": 30_000,  # OpenCode's own 5 s is less than our start-up under load
        "environment": {"MEMOIR_HOME": "/srv/memoir"},
    }
    assert data["mcp"]["everything"]["command"][0] == "npx" and data["theme"] == "opencode"
    assert "// my servers" in path.read_text()
    assert not install("opencode", home, server=server).changed
    apply_change(uninstall("opencode", home))
    assert path.read_text() == OPENCODE
