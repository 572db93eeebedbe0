"""The host-tool registry: folders, instruction files and MCP config locations as data.

Paths are spelled out here on purpose, from ../shared/HOST_TOOLS.md, so the
registry is checked against an independent source rather than against itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memoir_tui.core.hosts.adapters import (
    ADAPTERS,
    BY_NAME,
    INSTRUCTION_FILES,
    InstructionFile,
    Root,
    mcp_hosts,
    project_memory_dirs,
    tool_dir,
    transcripts_dir,
)
from memoir_tui.core.hosts.mcp_install import UnknownToolError, get_tool, known_tools
from memoir_tui.core.services.inject import find_targets


def host(name: str):
    return next(h for h in mcp_hosts() if h.name == name)


def test_copilot_in_vscode_and_copilot_cli_are_two_hosts(tmp_path: Path) -> None:
    # HOST_TOOLS.md §1/§4.5: VS Code keeps "servers" in the profile's mcp.json and
    # .vscode/mcp.json; Copilot's portable format (Copilot CLI) keeps "mcpServers" in
    # $COPILOT_HOME/mcp-config.json (else ~/.copilot) and .mcp.json.
    home = tmp_path
    vscode = host("vscode")
    assert vscode in BY_NAME["copilot"].mcp and "copilot" in vscode.aliases
    assert (vscode.container, vscode.project) == ("servers", ".vscode/mcp.json")
    assert vscode.user_file(home, {}, "linux") == home / ".config/Code/User/mcp.json"
    assert vscode.user_file(home, {}, "darwin") == (
        home / "Library/Application Support/Code/User/mcp.json"
    )
    assert vscode.user_file(home, {}, "win32") == home / "AppData/Roaming/Code/User/mcp.json"

    cli = host("copilot-cli")
    assert cli in BY_NAME["copilot"].mcp
    # installable (issue 22); its project file is Claude Code's .mcp.json, left to that host
    assert (cli.container, cli.project, cli.installable) == ("mcpServers", None, True)
    assert cli.user_file(home, {}, "linux") == home / ".copilot/mcp-config.json"
    moved = {"COPILOT_HOME": str(tmp_path / "cp")}
    assert cli.user_file(home, moved, "linux") == tmp_path / "cp/mcp-config.json"


def test_install_offers_only_installable_hosts() -> None:
    assert get_tool("copilot").name == "vscode"
    for described in ("continue",):  # a YAML list: refused, never rewritten
        assert not host(described).installable
        with pytest.raises(UnknownToolError):
            get_tool(described)
    assert all(h.file_format in ("json", "toml") for h in known_tools())


def test_every_host_has_a_user_file_on_every_platform(tmp_path: Path) -> None:
    for h in mcp_hosts():
        for platform in ("linux", "darwin", "win32"):
            assert h.user_file(tmp_path, {}, platform).is_relative_to(tmp_path)


def test_claude_mcp_file_follows_claude_config_dir(tmp_path: Path) -> None:
    claude = host("claude-code")
    assert claude.user_file(tmp_path, {}, "linux") == tmp_path / ".claude.json"
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "moved")}
    assert claude.user_file(tmp_path, env, "linux") == tmp_path / "moved/.claude.json"


def test_environment_overrides_expand_tilde_against_the_given_home(tmp_path: Path) -> None:
    env = {"CODEX_HOME": "~/codex-home", "CLAUDE_CONFIG_DIR": "~"}
    assert tool_dir("codex", tmp_path, env) == tmp_path / "codex-home"
    assert tool_dir("claude-code", tmp_path, env) == tmp_path
    assert Root("Zed", base="appdata").resolve(tmp_path, {"APPDATA": "~/roam"}, None) == (
        tmp_path / "roam/Zed"
    )


def test_claude_code_folders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert transcripts_dir("claude-code", home, {}) == home / ".claude/projects"
    moved = tmp_path / "moved"
    env = {"CLAUDE_CONFIG_DIR": str(moved)}
    assert transcripts_dir("claude-code", home, env) == moved / "projects"
    (moved / "projects/-a/memory").mkdir(parents=True)
    (moved / "projects/-b").mkdir()  # transcripts only, no memory yet
    (moved / "projects/-c").mkdir()
    (moved / "projects/-c/memory").symlink_to(moved / "projects/-a/memory")
    assert project_memory_dirs("claude-code", home, env) == [moved / "projects/-a/memory"]
    assert project_memory_dirs("claude-code", home, {}) == []


def test_instruction_file_locate(tmp_path: Path) -> None:
    codex = InstructionFile("codex", "codex", "global", ("AGENTS.override.md", "AGENTS.md"), True)
    assert codex.locate(tmp_path / "missing") is None
    assert codex.locate(tmp_path) == tmp_path / "AGENTS.md"  # created: the last path
    (tmp_path / "AGENTS.override.md").write_text("x")
    assert codex.locate(tmp_path) == tmp_path / "AGENTS.override.md"
    cursor = InstructionFile("cursor", "cursor", "project", ("r/x.mdc",), True, requires="r")
    assert cursor.locate(tmp_path) is None
    (tmp_path / "r").mkdir()
    assert cursor.locate(tmp_path) == tmp_path / "r/x.mdc"
    covered = InstructionFile("a", "agents-md", "project", ("A.md",), covered_by=(("B", "C"),))
    (tmp_path / "A.md").write_text("x")
    assert covered.locate(tmp_path) == tmp_path / "A.md"
    (tmp_path / "C").write_text("x")
    assert covered.locate(tmp_path) is None


def test_instruction_files_match_the_notes() -> None:
    # HOST_TOOLS.md §5: the always-loaded write targets and their size budgets.
    targets = {(f.target, f.scope): f for f in INSTRUCTION_FILES}
    assert targets["claude", "global"].paths == ("CLAUDE.md",)
    assert targets["codex", "global"].paths == ("AGENTS.override.md", "AGENTS.md")
    assert (targets["codex", "global"].limit, targets["codex", "global"].unit) == (32768, "bytes")
    windsurf = targets["windsurf", "global"]
    assert (windsurf.paths, windsurf.limit) == (("memories/global_rules.md",), 6000)
    assert not targets["claude-project", "project"].create  # never switch AGENTS.md off
    assert {f.tool for f in INSTRUCTION_FILES} <= {a.name for a in ADAPTERS}


def test_inject_finds_its_files_through_the_registry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codeium/windsurf").mkdir(parents=True)
    linked, covered = tmp_path / "linked", tmp_path / "covered"
    for repo in (linked, covered):
        repo.mkdir()
        (repo / "CLAUDE.md").write_text("rules\n")
    (linked / "AGENTS.md").symlink_to("CLAUDE.md")  # one file, two names: the first wins
    (covered / "AGENTS.md").write_text("shared\n")
    (covered / "AGENTS.override.md").write_text("codex\n")  # Codex reads this instead

    found = [(t.name, t.path, t.limit) for t in find_targets(home, [linked, covered], env={})]
    assert found == [
        ("windsurf", home / ".codeium/windsurf/memories/global_rules.md", 6000),
        ("claude-project", linked / "CLAUDE.md", None),
        ("claude-project", covered / "CLAUDE.md", None),
        ("agents-md", covered / "AGENTS.override.md", 32768),
    ]
