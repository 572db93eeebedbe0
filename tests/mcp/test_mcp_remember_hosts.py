"""memoir_remember(tool=…) writes what each host loads (issue 14).

Over the SDK's client (in memory, and one real stdio server), on the scratch world of
``test_mcp_recall``: Cursor rules get ``alwaysApply: true`` and a ``description``,
Copilot instructions ``applyTo: "**"``, Windsurf rules ``trigger: always_on``, Kiro
steering ``inclusion: always``; a Claude Code memory gets its line in that folder's
``MEMORY.md`` in the same commit (updated, never duplicated); a folder the host does
not read is refused, naming the ones it does; ``Build Notes.md`` becomes
``build-notes.md``; and the reply says where the host will (and will not) see it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.format import frontmatter
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp import warm_recall as recall_tools
from memoir_tui.mcp.server import build_server
from tests.mcp.test_mcp_recall import claude_memory, ok, refused, seed
from tests.paths import REPO
from tests.world import World


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    w = seed(tmp_path)
    for key, value in w.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(w.project)
    Memoir(w.store_dir)  # the store exists
    yield w
    recall_tools.close_all()


def meta_of(path: Path) -> dict:
    parsed = frontmatter.parse(path.read_text(encoding="utf-8"))
    assert not parsed.error
    return parsed.meta


def audit_ops(w: World) -> list[str]:
    path = w.store_dir / "audit.jsonl"
    if not path.exists():
        return []
    return [json.loads(line)["operation"] for line in path.read_text().splitlines()]


async def remember(client: Client, **args: object) -> str:
    result = await ok(client, "memoir_remember", dict(args))
    return result.content[0].text


async def test_cursor_rule_is_always_applied_and_described(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        reply = await remember(
            client,
            content="# Migrations\n\nMigrations are append-only; never edit a shipped one.\n",
            filename="db.md",
            tool="cursor",
            project="webshop",
        )
    rule = world.project / ".cursor" / "rules" / "db.mdc"
    # Cursor's keys first; alwaysApply a real boolean (the string "true" is not honoured)
    assert "\nalwaysApply: true\n" in rule.read_text(encoding="utf-8")
    meta = meta_of(rule)
    assert meta["description"] == "Migrations are append-only; never edit a shipped one."
    assert meta["alwaysApply"] is True
    assert list(meta)[:2] == ["description", "alwaysApply"]
    assert meta["type"] == "fact" and meta["name"] == "Migrations"
    assert "Cursor applies this rule to every Agent and Chat request in project" in reply
    assert str(world.project) in reply and "alwaysApply" in reply


@pytest.mark.parametrize(
    ("tool", "relative", "key", "value", "says"),
    [
        ("copilot", ".github/instructions/py.instructions.md", "applyTo", "**", "every request"),
        ("windsurf", ".windsurf/rules/py.md", "trigger", "always_on", "every conversation"),
        ("kiro", ".kiro/steering/py.md", "inclusion", "always", "every interaction"),
        ("continue", ".continue/rules/py.md", "alwaysApply", True, "every Agent and Chat"),
    ],
)
async def test_each_host_gets_its_activation_frontmatter(
    world: World, tool: str, relative: str, key: str, value: object, says: str
) -> None:
    async with Client(build_server(world.store_dir)) as client:
        reply = await remember(
            client,
            content="Type hints everywhere; mypy strict.\n",
            filename="py.md",
            tool=tool,
            project=str(world.project),
        )
    target = world.project / relative
    meta = meta_of(target)
    assert meta[key] == value
    assert next(iter(meta)) == key
    assert says in reply and str(target) in reply
    if tool == "copilot":  # written as YAML wants a glob: quoted
        assert 'applyTo: "**"\n' in target.read_text(encoding="utf-8")


async def test_a_windsurf_lesson_keeps_its_trigger_text_in_the_body(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        await remember(
            client,
            content="---\ntype: lesson\ntrigger: before a release\n---\nRun the smoke suite.\n",
            filename="release.md",
            tool="windsurf",
            project=str(world.project),
        )
    target = world.project / ".windsurf" / "rules" / "release.md"
    assert meta_of(target)["trigger"] == "always_on"
    assert "before a release" in target.read_text(encoding="utf-8")


async def test_claude_memory_gets_its_index_line_in_the_same_commit(world: World) -> None:
    index = claude_memory(world) / "MEMORY.md"
    before_ops = audit_ops(world)
    async with Client(build_server(world.store_dir)) as client:
        reply = await remember(
            client,
            content="---\ndescription: meilisearch backs the search box\n---\n"
            "# Search\n\nThe search box uses the meilisearch index.\n",
            filename="search.md",
            tool="claude",
            project=str(world.project),
        )
    assert (claude_memory(world) / "search.md").is_file()
    assert index.read_text(encoding="utf-8") == (
        "# Memory\n\n- [caching](caching.md)\n"
        "- [Search](search.md) — meilisearch backs the search box\n"
    )
    assert meta_of(claude_memory(world) / "search.md")["description"] == (
        "meilisearch backs the search box"
    )
    # one commit wrote both: one audit line
    assert audit_ops(world)[len(before_ops) :] == ["remember"]
    assert "Claude Code loads the first 200 lines or 25 KB of this folder's MEMORY.md" in reply
    assert "This file is listed there (MEMORY.md line 4)" in reply
    assert str(world.project) in reply


async def test_a_stale_index_line_is_updated_not_duplicated(world: World) -> None:
    index = claude_memory(world) / "MEMORY.md"
    index.write_text(
        "# Memory\n\n- [Old search](search.md) — gone\n- [caching](caching.md)\n"
        "* [again](./search.md)\n",
        encoding="utf-8",
    )
    async with Client(build_server(world.store_dir)) as client:
        await remember(
            client,
            content="The search box uses meilisearch.\n",
            filename="search.md",
            tool="claude",
            project=str(world.project),
        )
    lines = index.read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if "search.md" in line] == [
        "- [search](search.md) — The search box uses meilisearch."
    ]
    assert lines.index("- [search](search.md) — The search box uses meilisearch.") == 2
    assert "- [caching](caching.md)" in lines


async def test_a_new_memory_folder_gets_a_new_index(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        await remember(
            client, content="Prefers short answers.\n", filename="style.md", tool="claude"
        )
    from memoir_tui.core.hosts.adapters.guard import claude_slug

    folder = world.claude / "projects" / claude_slug(str(world.home)) / "memory"
    assert (folder / "MEMORY.md").read_text(encoding="utf-8") == (
        "- [style](style.md) — Prefers short answers.\n"
    )


async def test_an_index_past_the_loaded_limit_is_said(world: World) -> None:
    index = claude_memory(world) / "MEMORY.md"
    index.write_text(
        "".join(f"- [n{i}](n{i}.md) — note {i}\n" for i in range(200)), encoding="utf-8"
    )
    async with Client(build_server(world.store_dir)) as client:
        reply = await remember(
            client,
            content="One more.\n",
            filename="late.md",
            tool="claude",
            project=str(world.project),
        )
    assert index.read_text(encoding="utf-8").splitlines()[-1].startswith("- [late](late.md)")
    assert "listed at line 201" in reply and "will not see this file" in reply
    assert "This file is listed there" not in reply


async def test_a_secret_in_the_index_hook_writes_neither_file(world: World) -> None:
    index = claude_memory(world) / "MEMORY.md"
    before = index.read_bytes()
    token = "ghp_" + "R4nd0mT0k3nV4lu3" * 2 + "abcd"
    async with Client(build_server(world.store_dir)) as client:
        message = await refused(
            client,
            "memoir_remember",
            {
                "content": f"---\ndescription: {token}\n---\nbody\n",
                "filename": "leak.md",
                "tool": "claude",
                "project": str(world.project),
            },
        )
    assert token not in message
    assert index.read_bytes() == before
    assert not (claude_memory(world) / "leak.md").exists()


@pytest.mark.parametrize(
    ("tool", "names"),
    [
        ("windsurf", ("global_rules.md", ".windsurf/rules")),
        ("codex", ("AGENTS.md",)),
        ("cursor", (".cursor/rules",)),
        ("gemini", ("GEMINI.md",)),
    ],
)
async def test_folders_a_host_does_not_read_are_refused_naming_those_it_does(
    world: World, tool: str, names: tuple[str, ...]
) -> None:
    def everything() -> set[Path]:
        return {p for p in world.home.rglob("*") if ".cache" not in p.parts}

    before = everything()
    async with Client(build_server(world.store_dir)) as client:
        message = await refused(
            client, "memoir_remember", {"content": "a memory", "filename": "x.md", "tool": tool}
        )
    assert "has no global folder it reads new memory files from" in message
    for name in names:
        assert name in message, (name, message)
    assert everything() == before
    assert not (world.home / ".codeium" / "windsurf" / "memories" / "x.md").exists()
    assert not (world.home / ".codex" / "memories" / "x.md").exists()


async def test_capitalised_names_are_written_as_slugs(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        reply = await remember(client, content="Notes.\n", filename="Build Notes.md")
        assert (world.store_dir / "memory" / "build-notes.md").is_file()
        assert 'The file name "Build Notes.md" was written as build-notes.md.' in reply
        await remember(client, content="Café.\n", filename="Café Déjà Vu")
        assert (world.store_dir / "memory" / "cafe-deja-vu.md").is_file()
        await remember(
            client,
            content="x\n",
            filename="Release Checklist.md",
            tool="cursor",
            project=str(world.project),
        )
        assert (world.project / ".cursor" / "rules" / "release-checklist.mdc").is_file()
        for bad in ("../Build Notes.md", "Notes/../x.md", ".Hidden.md", "Notes.txt", "***"):
            message = await refused(client, "memoir_remember", {"content": "x", "filename": bad})
            assert "bare file name" in message, bad
    leaked = [p for p in world.root.rglob("*") if p.name.lower() in ("x.md", "hidden.md")]
    assert leaked == []


async def test_remember_for_claude_over_stdio(world: World, tmp_path: Path) -> None:
    env = {**world.env(), "PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env, cwd=world.project
    )
    with (tmp_path / "stderr.log").open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write_stream),
            ClientSession(read, write_stream, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            result = await session.call_tool(
                "memoir_remember",
                {
                    "content": "Deploys go through the blue-green pipeline.\n",
                    "filename": "Deploy Flow.md",
                    "tool": "claude",
                    "project": str(world.project),
                },
            )
            assert not result.is_error, result.content[0].text
            text = result.content[0].text
            assert "This file is listed there (MEMORY.md line 4)" in text
            result = await session.call_tool(
                "memoir_remember",
                {"content": "x", "filename": "y.md", "tool": "cursor"},
            )
            assert result.is_error and ".cursor/rules" in result.content[0].text
    assert (claude_memory(world) / "deploy-flow.md").is_file()
    assert (
        (claude_memory(world) / "MEMORY.md")
        .read_text(encoding="utf-8")
        .endswith("- [Deploy Flow](deploy-flow.md) — Deploys go through the blue-green pipeline.\n")
    )
