"""core.remember and the name guard: the parts memoir_remember is built from (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoir_tui.core.door.transaction import FileExistsRefusal
from memoir_tui.core.hosts.adapters import get_adapter
from memoir_tui.core.hosts.adapters.guard import PathRefused, normalise_filename
from memoir_tui.core.services.remember import (
    IndexLine,
    for_host,
    hook_of,
    index_line,
    index_position,
    with_index_line,
)
from memoir_tui.core.workflows.memoir import Memoir


@pytest.mark.parametrize(
    ("given", "slug"),
    [
        ("Build Notes.md", "build-notes.md"),
        ("Build Notes", "build-notes.md"),
        ("  README.MD ", "readme.md"),
        ("Déjà vu — notes.md", "deja-vu-notes.md"),
        ("v1.2 plan.md", "v1.2-plan.md"),
        ("auth_setup.md", "auth_setup.md"),
        ("already-a-slug.md", "already-a-slug.md"),
    ],
)
def test_ordinary_names_become_slugs(given: str, slug: str) -> None:
    assert normalise_filename(given) == slug


@pytest.mark.parametrize(
    "given",
    [
        "",
        "  ",
        "../x.md",
        "a/b.md",
        "a\\b.md",
        "/etc/x.md",
        ".hidden.md",
        "x..md",
        "x.txt",
        "settings.json",
        "***.md",
        "a\0b.md",
        "..",
        "~/x.md",
    ],
)
def test_names_that_are_paths_or_empty_are_refused(given: str) -> None:
    with pytest.raises(PathRefused):
        normalise_filename(given)


def test_host_frontmatter_comes_first_and_keeps_what_it_displaces() -> None:
    meta = {"type": "lesson", "name": "Smoke", "trigger": "before a release"}
    out, body = for_host(get_adapter("windsurf"), meta, "Run the smoke suite.\n")
    assert next(iter(out)) == "trigger" and out["trigger"] == "always_on"
    assert body == "**Trigger:** before a release\n\nRun the smoke suite.\n"
    out, _ = for_host(get_adapter("cursor"), {"type": "fact", "name": "N"}, "# N\n\nText.\n")
    assert out == {"description": "Text.", "alwaysApply": True, "type": "fact", "name": "N"}
    out, _ = for_host(get_adapter("copilot"), {"type": "fact", "name": "N"}, "x\n")
    assert out["applyTo"] == "**"
    assert for_host(get_adapter("memoir"), {"name": "N"}, "x\n") == ({"name": "N"}, "x\n")


def test_hook_is_one_short_line() -> None:
    assert hook_of({"description": "  two\n words "}, "body") == "two words"
    assert hook_of({}, "# Title\n\n> Quoted first line\nmore\n") == "Quoted first line"
    assert hook_of({}, "# Only a heading\n") == "Only a heading"
    long = hook_of({}, "word " * 100)
    assert len(long) == 150 and long.endswith("…")


def test_index_line_is_added_updated_never_duplicated() -> None:
    target = Path("/m/memory/search.md")
    entry = index_line(
        get_adapter("claude-code"), target, {"name": "Search [beta]"}, "Uses meili.\n"
    )
    assert entry == IndexLine(
        Path("/m/memory/MEMORY.md"), "search.md", r"- [Search \[beta\]](search.md) — Uses meili."
    )
    assert with_index_line("", entry) == entry.line + "\n"
    assert with_index_line("# Memory\n", entry) == f"# Memory\n{entry.line}\n"
    old = (
        "# M\n- [old](search.md) — x\n- [a](a.md)\n* [dup](./search.md)\n- [searchy](searchy.md)\n"
    )
    assert with_index_line(old, entry) == (
        f"# M\n{entry.line}\n- [a](a.md)\n- [searchy](searchy.md)\n"
    )
    again = with_index_line(with_index_line(old, entry), entry)
    assert again.count("(search.md)") == 1


def test_index_position_honours_the_hosts_lines_and_bytes() -> None:
    claude = get_adapter("claude-code")
    short = "- [a](a.md)\n- [b](b.md)\n"
    assert index_position(claude, short, "b.md") == (2, True)
    assert index_position(claude, short, "c.md") == (0, False)
    many = "".join(f"- [n{i}](n{i}.md)\n" for i in range(201))
    assert index_position(claude, many, "n199.md") == (200, True)
    assert index_position(claude, many, "n200.md") == (201, False)
    wide = "x" * (25 * 1024) + "\n- [late](late.md)\n"
    assert index_position(claude, wide, "late.md") == (2, False)


def test_create_with_an_index_is_one_commit_or_nothing(tmp_path: Path) -> None:
    store = Memoir(tmp_path / "store")
    folder = tmp_path / "claude" / "memory"
    folder.mkdir(parents=True)
    index = folder / "MEMORY.md"
    index.write_text("- [a](a.md)\n", encoding="utf-8")
    target = folder / "b.md"
    store.entries.create(
        target,
        {"type": "fact", "name": "b"},
        "b\n",
        op="remember",
        index=(index, lambda old: old + "- [b](b.md)\n"),
    )
    assert index.read_text(encoding="utf-8") == "- [a](a.md)\n- [b](b.md)\n"
    audit = (store.root / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(audit) == 1
    # refused (the file exists): the index is not touched either
    with pytest.raises(FileExistsRefusal):
        store.entries.create(
            target,
            {"type": "fact", "name": "b"},
            "other\n",
            op="remember",
            index=(index, lambda old: old + "- [b2](b.md)\n"),
        )
    assert index.read_text(encoding="utf-8") == "- [a](a.md)\n- [b](b.md)\n"
