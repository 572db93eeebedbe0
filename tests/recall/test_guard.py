"""Path guards for memoir_read / memoir_remember: only a tool's own files, by the walker's rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memoir_tui.core.hosts.adapters.guard import (
    PathRefused,
    claude_slug,
    read_file,
    readable_file,
    writable_file,
)
from tests.world import World

from .conftest import write


def kw(world: World, **extra):
    return {"home": world.home, "env": world.host_env(), "store_root": world.store_dir, **extra}


def test_reads_a_tools_own_files(world: World):
    found, text = read_file("claude-code", world.home / ".claude" / "CLAUDE.md", **kw(world))
    assert found.tool == "claude-code" and "linter" in text
    found = readable_file(
        "memoir", world.store_dir / "memory" / "decision_postgres.md", **kw(world)
    )
    assert found.kind == "memory"
    found = readable_file(
        "cursor",
        world.project / ".cursor" / "rules" / "sql.mdc",
        **kw(world, projects=[world.project]),
    )
    assert found.path.endswith("sql.mdc")


@pytest.mark.parametrize(
    "path",
    [
        "CLAUDE.md",  # relative
        "~/.claude/../notes/stray.md",  # escapes with ..
        "{home}/.claude/rules/../../notes/stray.md",
        "{home}/notes/stray.md",  # under $HOME, but no tool's file
        "{home}/.claude/.credentials.json",  # credentials
        "{home}/.claude/settings.json",
        "/etc/passwd",
        "{home}/.claude/CLAUDE.md\0.txt",
    ],
)
def test_refuses_everything_else(world: World, path: str):
    env = {**world.host_env()}
    raw = path.format(home=world.home)
    if raw.startswith("~"):
        raw = str(world.home) + raw[1:]
    with pytest.raises(PathRefused):
        readable_file("claude-code", raw, home=world.home, env=env, store_root=world.store_dir)


def test_refuses_another_tools_file_and_filtered_names(world: World):
    with pytest.raises(PathRefused):  # a Claude file asked for as Cursor's
        readable_file("cursor", world.home / ".claude" / "CLAUDE.md", **kw(world))
    plain = write(world.project / ".cursor" / "rules" / "plain.md", "not a Cursor rule\n")
    with pytest.raises(PathRefused):
        readable_file("cursor", plain, **kw(world, projects=[world.project]))


def test_refuses_symlinks_leading_out(world: World, tmp_path: Path):
    outside = write(tmp_path / "elsewhere" / "private.md", "private\n")
    link = world.home / ".claude" / "rules" / "sneaky.md"
    os.symlink(outside, link)
    with pytest.raises(PathRefused):
        readable_file("claude-code", link, **kw(world))
    os.symlink(outside.parent, world.home / ".claude" / "rules" / "dir")
    with pytest.raises(PathRefused):
        readable_file("claude-code", world.home / ".claude/rules/dir/private.md", **kw(world))


def test_write_targets_per_tool(world: World):
    assert writable_file("memoir", "fact_x.md", **kw(world)) == world.store_dir / "memory/fact_x.md"
    target = writable_file("claude-code", "note.md", **kw(world, project=world.project))
    # the existing project directory whose transcript names the project, not a guessed slug
    assert target == world.home / ".claude/projects/-not-the-real-path/memory/note.md"
    fresh = world.root / "src" / "new-app"
    target = writable_file("claude-code", "note.md", **kw(world, project=fresh))
    assert target.parent.parent.name == claude_slug(str(fresh))
    assert writable_file("cursor", "db.md", **kw(world, project=world.project)) == (
        world.project / ".cursor/rules/db.mdc"
    )
    assert writable_file("copilot", "py.md", **kw(world, project=world.project)).name == (
        "py.instructions.md"
    )
    with pytest.raises(PathRefused):
        writable_file("claude-code", "note.md", **kw(world))  # no global memory directory
    with pytest.raises(PathRefused):
        writable_file("zed", "note.md", **kw(world, project=world.project))


@pytest.mark.parametrize(
    "name",
    [
        "../escape.md",
        "a/b.md",
        "a\\b.md",
        "/abs/x.md",
        ".hidden.md",
        "UPPER.md",
        "notes.txt",
        "settings.json",
        "x..md",
        "",
        "credentials.md",
    ],
)
def test_write_names_are_bare_slugs_in_every_branch(world: World, name: str):
    for tool, project in (
        ("memoir", None),
        ("claude-code", world.project),
        ("cursor", world.project),
    ):
        with pytest.raises(PathRefused):
            writable_file(tool, name, **kw(world, project=project))


def test_write_never_goes_through_a_symlink(world: World, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    rules = world.project / ".windsurf" / "rules"
    for child in rules.iterdir():
        child.unlink()
    rules.rmdir()
    os.symlink(outside, rules)
    with pytest.raises(PathRefused):
        writable_file("windsurf", "x.md", **kw(world, project=world.project))
    os.symlink(outside / "t.md", world.store_dir / "memory" / "linked.md")
    with pytest.raises(PathRefused):
        writable_file("memoir", "linked.md", **kw(world))
