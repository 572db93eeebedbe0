"""The adapters as data and the one walker: what is found, and what never is."""

from __future__ import annotations

import os
from pathlib import Path

from memoir_tui.core.door.config import KNOWN_TOOLS
from memoir_tui.core.hosts.adapters import ADAPTERS, get_adapter, is_denied
from memoir_tui.core.hosts.adapters.walk import (
    Project,
    claude_project_cwd,
    sources,
    walk_source,
)
from tests.world import World

from .conftest import write


def found(world: World, **kwargs) -> dict[str, str]:
    srcs, _projects, _disc = sources(
        world.home,
        world.host_env(),
        store_root=world.store_dir,
        projects=[Project(str(world.other), "config")],
        **kwargs,
    )
    out: dict[str, str] = {}
    for src in srcs:
        for f in walk_source(src).files:
            out.setdefault(f.path, f.tool)
    return out


def test_every_known_tool_has_an_adapter():
    assert [a.name for a in ADAPTERS] == list(KNOWN_TOOLS)


def test_each_tool_layout_is_found(world: World):
    files = found(world)
    h, p = world.home, world.project
    expected = {
        world.store_dir / "memory" / "decision_postgres.md": "memoir",
        h / ".claude" / "CLAUDE.md": "claude-code",
        h / ".claude" / "rules" / "style" / "python.md": "claude-code",
        h / ".claude/projects/-not-the-real-path/memory/MEMORY.md": "claude-code",
        h / ".gemini" / "GEMINI.md": "gemini",
        h / ".codex" / "AGENTS.md": "codex",
        h / ".codeium/windsurf/memories/global_rules.md": "windsurf",
        h / ".continue/rules/review.md": "continue",
        h / ".copilot/copilot-instructions.md": "copilot",
        h / "Documents/Cline/Rules/cline.md": "cline",
        h / ".config/opencode/AGENTS.md": "agents-md",
        # project files: the project comes from the transcript's cwd, not the slug
        p / "AGENTS.md": "agents-md",
        p / "CLAUDE.md": "claude-code",
        p / ".cursor/rules/sql.mdc": "cursor",
        p / ".windsurf/rules/ws.md": "windsurf",
        p / ".github/copilot-instructions.md": "copilot",
        p / ".clinerules/01-style.md": "cline",
        p / ".continue/rules/c.md": "continue",
        p / ".rules": "zed",
        p / "CONVENTIONS.md": "aider",
        p / "GEMINI.md": "gemini",
        world.other / "AGENTS.md": "agents-md",
    }
    for path, tool in expected.items():
        assert files.get(str(path)) == tool, path


def test_cursor_global_user_rules_are_found_per_platform_folder(world: World, tmp_path: Path):
    """The JavaScript tool keeps Cursor's user rules in Cursor's user folder: Linux
    ($XDG_CONFIG_HOME, else ~/.config), macOS (~/Library/Application Support), Windows."""
    h = world.home
    linux = write(h / ".config/Cursor/User/rules/naming.md", "Prefer named exports.\n")
    mac = write(h / "Library/Application Support/Cursor/User/rules/mac.md", "Mac rule.\n")
    win = write(h / "AppData/Roaming/Cursor/User/rules/win.md", "Windows rule.\n")
    not_rules = write(h / ".config/Cursor/User/settings.md", "not a rules file\n")
    # ~/.cursor holds MCP config and the pinned block, not user rules
    stray = write(h / ".cursor/rules/stray.md", "not a documented location\n")
    files = found(world)
    for path in (linux, mac, win):
        assert files.get(str(path)) == "cursor", path
    assert str(not_rules) not in files and str(stray) not in files
    xdg = tmp_path / "xdg"
    moved = write(xdg / "Cursor/User/rules/moved.md", "XDG rule.\n")
    srcs, _, _ = sources(
        h, {**world.host_env(), "XDG_CONFIG_HOME": str(xdg)}, store_root=world.store_dir
    )
    paths = {f.path: f for s in srcs for f in walk_source(s).files}
    assert paths[str(moved)].tool == "cursor" and paths[str(moved)].always_loaded
    assert str(linux) not in paths


def test_kiro_steering_and_amazon_q_rules_are_found(world: World):
    h, p = world.home, world.project
    expected = {
        write(h / ".kiro/steering/tech.md", "Kiro global steering.\n"): "kiro",
        write(p / ".kiro/steering/product.md", "Kiro project steering.\n"): "kiro",
        write(p / ".amazonq/rules/api/style.md", "Amazon Q rule.\n"): "amazonq",
        write(p / "AmazonQ.md", "Amazon Q project context.\n"): "amazonq",
    }
    files = found(world)
    for path, tool in expected.items():
        assert files.get(str(path)) == tool, path


def test_never_crawls_home_nor_project_trees(world: World):
    files = found(world)
    assert str(world.home / "notes" / "stray.md") not in files
    assert str(world.project / "src" / "deep" / "notes.md") not in files


def test_credentials_are_never_returned(world: World):
    files = found(world)
    assert not [p for p in files if p.endswith((".credentials.json", "settings.json"))]
    for name in (".credentials.json", "settings.json", "auth.json", "id.key", "api-token.txt"):
        assert is_denied(name), name
    assert not is_denied("decision_token-rotation.md")  # a memory about tokens is fine


def test_credential_file_inside_a_rules_glob_is_not_read(world: World):
    write(world.home / ".claude" / "rules" / "server.key", "-----BEGIN KEY-----")
    write(world.home / ".claude" / "rules" / "auth.json", "{}")
    files = found(world)
    assert not [p for p in files if p.endswith(("server.key", "auth.json"))]


def test_missing_directories_are_simply_absent(tmp_path: Path):
    home = tmp_path / "empty-home"
    home.mkdir()
    srcs, _, _ = sources(home, {"HOME": str(home)}, store_root=tmp_path / "no-store")
    assert all(walk_source(s).files == [] for s in srcs)


def test_env_overrides_tool_homes(world: World, tmp_path: Path):
    codex_home = tmp_path / "codex-elsewhere"
    write(codex_home / "AGENTS.md", "codex from CODEX_HOME\n")
    env = {**world.host_env(), "CODEX_HOME": str(codex_home)}
    srcs, _, _ = sources(world.home, env, store_root=world.store_dir, tools=["codex"])
    paths = {f.path for s in srcs for f in walk_source(s).files}
    assert str(codex_home / "AGENTS.md") in paths
    assert str(world.home / ".codex" / "AGENTS.md") not in paths


def test_xdg_config_home_is_respected(world: World, tmp_path: Path):
    xdg = tmp_path / "xdg"
    write(xdg / "opencode" / "AGENTS.md", "from xdg\n")
    env = {**world.host_env(), "XDG_CONFIG_HOME": str(xdg)}
    srcs, _, _ = sources(world.home, env, store_root=world.store_dir, tools=["agents-md"])
    paths = {f.path for s in srcs for f in walk_source(s).files}
    assert str(xdg / "opencode" / "AGENTS.md") in paths


def test_symlinks_are_not_followed_out_of_a_tool_directory(world: World, tmp_path: Path):
    outside = write(tmp_path / "outside" / "secret-notes.md", "outside the tool\n")
    rules = world.home / ".claude" / "rules"
    os.symlink(outside, rules / "link-out.md")
    os.symlink(outside.parent, rules / "dir-out")
    inside = write(world.home / ".claude" / "rules" / "real.md", "inside\n")
    os.symlink(inside, rules / "link-in.md")
    srcs, _, _ = sources(
        world.home, world.host_env(), store_root=world.store_dir, tools=["claude-code"]
    )
    results = [walk_source(s) for s in srcs]
    paths = {f.path for r in results for f in r.files}
    notes = [n for r in results for n in r.notes]
    assert str(rules / "link-out.md") not in paths
    assert not [p for p in paths if "dir-out" in p]
    assert str(rules / "link-in.md") in paths
    assert any("outside" in reason for _p, reason in notes)


def test_claude_project_cwd_comes_from_a_transcript(world: World):
    slug = world.home / ".claude" / "projects" / "-not-the-real-path"
    assert claude_project_cwd(slug) == str(world.project)
    assert claude_project_cwd(world.home / "nowhere") is None


def test_cursor_filter_takes_mdc_only(world: World):
    write(world.project / ".cursor" / "rules" / "plain.md", "ignored by Cursor\n")
    files = found(world, tools=["cursor"])
    assert str(world.project / ".cursor/rules/sql.mdc") in files
    assert str(world.project / ".cursor/rules/plain.md") not in files
    # project rules must be .mdc; only the user rules folder takes .md
    assert all(
        loc.pattern.endswith(".mdc") or "*" not in loc.pattern
        for loc in get_adapter("cursor").project_files
    )
