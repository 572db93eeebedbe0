"""The recall-side MCP tools: memoir_recall, memoir_list, memoir_read, memoir_remember.

Most tests use the SDK's in-memory client over ``build_server``, on a scratch
HOME seeded with host-tool files (Claude Code's global and project memory, the
store's own ``memory/``, a second project's files), a scratch cache, and the
working directory inside the seeded project. One test spawns the real stdio
server. The negative tests check that a hidden decision, a completed action
and another project's entries never come back, and that every path-guard case
of memoir_read and memoir_remember is refused with a tool error.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.hosts.adapters.guard import claude_slug
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp import warm_recall as recall_tools
from memoir_tui.mcp.server import build_server
from tests.paths import REPO
from tests.world import World

FAKE_TOKEN = "ghp_" + "R4nd0mT0k3nV4lu3" * 2 + "abcd"  # a GitHub token's shape, not a real one


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def entry(type_: str, name: str, body: str, **extra: Any) -> str:
    lines = ["---", f"type: {type_}", f"name: {name}"]
    for key, value in extra.items():
        if isinstance(value, list | tuple):
            lines.append(f"{key}:")
            lines += [f"  - {v}" for v in value]
        else:
            lines.append(f"{key}: {value}")
    return "\n".join([*lines, "---"]) + "\n" + body


def claude_memory(w: World) -> Path:
    """Claude Code's memory folder of the seeded project (its slug is never reversed)."""
    return w.claude / "projects" / "-webshop-slug" / "memory"


HIDDEN_DECISION = "Adopt the zanzibar vendor for authorization"


def seed(root: Path) -> World:
    home = root / "home"
    w = World.under(root)
    write(w.store_dir / "memoir-tui.toml", f'[recall]\nproject_roots = ["{w.other}"]\n')
    mem = w.store_dir / "memory"
    # reachable only through its aliases: neither word is in its name or body
    write(
        mem / "fact_cluster-layout.md",
        entry(
            "fact",
            "Cluster layout",
            "Three node pools run in eu-west.\n\nThe ingress controller is nginx.\n",
            aliases=["kubernetes", "k8s"],
        ),
    )
    write(
        mem / "fact_kube-notes.md",
        entry("fact", "Operations notes", "We once tried kubernetes dashboards.\n"),
    )
    # forgotten in the session (below): the same decision as an entry file
    write(
        mem / "decision_zanzibar.md",
        entry("decision", HIDDEN_DECISION, "The zanzibar vendor handles authorization.\n"),
    )
    # hidden in its own frontmatter
    write(
        mem / "decision_wombat.md",
        entry(
            "decision",
            "Use the wombat cache",
            "wombat cache for sessions\n",
            hidden="true",
            hidden_at="2026-05-01T00:00:00Z",
        ),
    )
    write(
        mem / "next_action_quokka.md",
        entry(
            "next_action",
            "Ship the quokka exporter",
            "quokka export pipeline\n",
            added="2026-01-01",
            done_at="2026-02-01",
        ),
    )
    # another project's entry and file: out of scope from webshop
    write(
        mem / "fact_billing-only.md",
        entry(
            "fact",
            "Invoices are numbered per tenant",
            "The platypus scheme numbers invoices.\n",
            project=str(w.other),
        ),
    )
    write(w.other / "AGENTS.md", "Billing agents file: platypus ledger rules.\n")

    write(w.claude / "CLAUDE.md", "# Global\n\nAlways run the linter before committing.\n")
    write(w.claude / "rules" / "style.md", "# Style\n\nUse type hints everywhere.\n")
    write(w.claude / ".credentials.json", '{"token": "not-a-real-credential"}')
    write(w.claude / "settings.json", '{"apiKeyHelper": "helper"}')
    slug_dir = claude_memory(w).parent
    write(
        slug_dir / "abc.jsonl",
        json.dumps({"type": "summary"})
        + "\n"
        + json.dumps({"type": "user", "cwd": str(w.project)}),
    )
    write(claude_memory(w) / "MEMORY.md", "# Memory\n\n- [caching](caching.md)\n")
    write(
        claude_memory(w) / "caching.md",
        entry(
            "fact",
            "Cache product pages",
            "Product pages are cached in Redis for five minutes.\n",
            description="redis page cache",
        ),
    )
    write(w.project / "CLAUDE.md", "# Webshop\n\nThe checkout service talks to Stripe.\n")
    write(root / "elsewhere" / "private.md", "private notes outside every tool\n")
    write(home / "notes" / "stray.md", "A stray file outside every tool.\n")
    return w


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    w = seed(tmp_path)
    for key, value in w.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(w.project)
    store = Memoir(w.store_dir)
    store.note_decision(HIDDEN_DECISION, why="fine-grained checks")
    store.note_decision("Keep the capybara queue", why="at-least-once delivery")
    store.add_next_action("Finish the narwhal dashboard")
    store.complete_next_action("narwhal")
    yield w
    recall_tools.close_all()  # every server's watcher thread and index connection


def hide(w: World, text: str) -> None:
    store = Memoir(w.store_dir)
    store.hide_decision(store.resolve_decision(text).key)


async def call(client: Client, name: str, args: dict[str, Any]) -> Any:
    return await client.call_tool(name, args)


async def ok(client: Client, name: str, args: dict[str, Any]) -> Any:
    result = await client.call_tool(name, args)
    assert not result.is_error, f"{name}({args}) failed: {result.content[0].text}"
    return result


async def refused(client: Client, name: str, args: dict[str, Any]) -> str:
    result = await client.call_tool(name, args)
    text = result.content[0].text
    assert result.is_error, f"{name}({args}) was not refused: {text}"
    return text


def blob(result: Any) -> str:
    return result.content[0].text + json.dumps(result.structured_content or {})


# --- the tool surface -----------------------------------------------------------------


async def test_tools_carry_the_javascript_names_and_arguments(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    schema = {name: listed[name].input_schema for name in listed}
    assert set(schema["memoir_recall"]["properties"]) == {
        "query",
        "limit",
        "tool",
        "project",
        "all_projects",
        "type",
        "since",
    }
    assert schema["memoir_recall"]["required"] == ["query"]
    # the agent is asked for paraphrases when it remembers (concept questions find them)
    aliases = schema["memoir_remember"]["properties"]["aliases"]["description"]
    assert "paraphrase" in aliases and "paraphrase" not in listed["memoir_recall"].description
    limit = schema["memoir_recall"]["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 30, 8)
    assert set(schema["memoir_list"]["properties"]) >= {"tool"}
    assert set(schema["memoir_read"]["properties"]) == {"tool", "filepath", "path"}
    assert set(schema["memoir_remember"]["properties"]) == {
        "content",
        "filename",
        "tool",
        "project",
        "aliases",
        "tags",
    }
    assert set(schema["memoir_remember"]["required"]) == {"content", "filename"}
    for name in ("memoir_recall", "memoir_list", "memoir_read"):
        assert listed[name].annotations.read_only_hint is True, name
    remember = listed["memoir_remember"].annotations
    assert remember.read_only_hint is False and remember.destructive_hint is False


# --- memoir_recall ----------------------------------------------------------------------


async def test_recall_ranks_the_alias_only_entry_first_without_frontmatter(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        result = await ok(client, "memoir_recall", {"query": "kubernetes"})
    hits = result.structured_content["hits"]
    assert hits[0]["path"] == str(world.store_dir / "memory" / "fact_cluster-layout.md")
    assert hits[0]["tool"] == "memoir" and hits[0]["type"] == "fact"
    assert "aliases" in hits[0]["why"] and hits[0]["score"] > 0
    assert any(h["path"].endswith("fact_kube-notes.md") for h in hits[1:])
    for hit in hits:
        assert "---" not in hit["passage"] and "type:" not in hit["passage"]
        assert "aliases:" not in hit["passage"]
    text = result.content[0].text
    assert text.startswith('2 passage(s) for "kubernetes"')
    assert "1. Cluster layout  [memoir · fact]" in text
    assert "│ Three node pools run in eu-west." in text
    assert "matched: aliases kubernetes" in text


async def test_recall_filters_by_tool_and_limit(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        result = await ok(client, "memoir_recall", {"query": "redis cache", "tool": "claude"})
        hits = result.structured_content["hits"]
        assert hits and {h["tool"] for h in hits} == {"claude-code"}
        assert hits[0]["path"] == str(claude_memory(world) / "caching.md")
        one = await ok(client, "memoir_recall", {"query": "kubernetes", "limit": 1})
        assert len(one.structured_content["hits"]) == 1
        for bad in (0, 31):
            await refused(client, "memoir_recall", {"query": "x", "limit": bad})
        assert "empty" in await refused(client, "memoir_recall", {"query": "  "})
        assert "unknown tool" in await refused(
            client, "memoir_recall", {"query": "x", "tool": "emacs"}
        )
        nothing = await ok(client, "memoir_recall", {"query": "xylophonequartz"})
        assert nothing.structured_content["hits"] == []
        assert nothing.content[0].text.startswith('Nothing found for "xylophonequartz"')


async def test_recall_filters_by_type_and_since_and_breaks_ties_by_recency(world: World) -> None:
    mem = world.store_dir / "memory"
    for name, date in (("old", "2020-01-01"), ("new", "2026-04-01")):
        write(
            mem / f"decision_heron-{name}.md",
            entry("decision", f"Heron {name}", "heron policy\n", created=date),
        )
    write(mem / "fact_heron-fact.md", entry("fact", "Heron fact", "heron policy\n"))
    stale = mem / "fact_heron-fact.md"
    os.utime(stale, (1_500_000_000, 1_500_000_000))  # 2017: a file with no date of its own
    async with Client(build_server(world.store_dir)) as client:
        every = await ok(client, "memoir_recall", {"query": "heron policy"})
        names = [h["name"] for h in every.structured_content["hits"]]
        assert set(names) == {"Heron old", "Heron new", "Heron fact"}
        # equal scores: the newer first
        assert names.index("Heron new") < names.index("Heron old")
        typed = await ok(client, "memoir_recall", {"query": "heron", "type": "decision"})
        assert {h["type"] for h in typed.structured_content["hits"]} == {"decision"}
        recent = await ok(client, "memoir_recall", {"query": "heron", "since": "2025-01-01"})
        assert [h["name"] for h in recent.structured_content["hits"]] == ["Heron new"]
        week = await ok(client, "memoir_recall", {"query": "heron", "since": "30d"})
        assert week.structured_content["hits"] == []
        assert "date or duration" in await refused(
            client, "memoir_recall", {"query": "heron", "since": "last tuesday"}
        )


async def test_recall_never_returns_hidden_completed_or_out_of_scope(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        # Before forgetting: the decision (session item and entry file) is found.
        before = await ok(client, "memoir_recall", {"query": "zanzibar"})
        assert HIDDEN_DECISION in blob(before)
        hide(world, HIDDEN_DECISION)  # while the server's index is warm
        for query in ("zanzibar", "zanzibar vendor authorization", HIDDEN_DECISION):
            result = await ok(client, "memoir_recall", {"query": query, "all_projects": True})
            assert result.structured_content["hits"] == [], query
        for query, needle in (
            ("wombat", "wombat"),  # hidden in its own frontmatter
            ("quokka", "quokka"),  # completed (entry file)
            ("narwhal", "narwhal"),  # completed (session)
        ):
            result = await ok(client, "memoir_recall", {"query": query, "all_projects": True})
            assert result.structured_content["hits"] == [], query
            assert needle not in json.dumps(result.structured_content["hits"])

        # Another project's entry and file: absent by default, found when asked for.
        mine = await ok(client, "memoir_recall", {"query": "platypus"})
        assert mine.structured_content["hits"] == []
        assert "platypus" not in json.dumps(mine.structured_content["hits"])
        assert "all_projects=true" in mine.content[0].text
        theirs = await ok(client, "memoir_recall", {"query": "platypus", "all_projects": True})
        paths = {h["path"] for h in theirs.structured_content["hits"]}
        assert paths == {
            str(world.store_dir / "memory" / "fact_billing-only.md"),
            str(world.other / "AGENTS.md"),
        }
        named = await ok(
            client, "memoir_recall", {"query": "platypus", "project": str(world.other)}
        )
        assert len(named.structured_content["hits"]) == 2
        # The live decision next to the hidden one still shows.
        live = await ok(client, "memoir_recall", {"query": "capybara"})
        assert "Keep the capybara queue" in blob(live)


# --- memoir_list --------------------------------------------------------------------------


async def test_list_by_tool_without_hidden_or_out_of_scope(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        everything = await ok(client, "memoir_list", {})
        data = everything.structured_content
        paths = {e["path"] for e in data["entries"]}
        assert str(world.claude / "CLAUDE.md") in paths
        assert str(claude_memory(world) / "caching.md") in paths
        assert str(world.project / "CLAUDE.md") in paths
        assert str(world.store_dir / "memory" / "fact_cluster-layout.md") in paths
        for absent in (
            "decision_wombat.md",
            "next_action_quokka.md",
            "fact_billing-only.md",
            ".credentials.json",
            "settings.json",
            "session.json",
        ):
            assert not any(p.endswith(absent) for p in paths), absent
        assert str(world.other / "AGENTS.md") not in paths
        assert data["by_tool"]["claude-code"] >= 4 and data["total"] == len(data["entries"])
        text = everything.content[0].text
        assert "Claude Code — claude-code" in text and "memoir store — memoir" in text
        assert f"- Cache product pages [fact, project {world.project}] — redis page cache" in text

        claude = await ok(client, "memoir_list", {"tool": "claude"})
        entries = claude.structured_content["entries"]
        assert claude.structured_content["tool"] == "claude-code"
        assert entries and {e["tool"] for e in entries} == {"claude-code"}
        caching = next(e for e in entries if e["path"].endswith("caching.md"))
        assert (caching["name"], caching["type"], caching["description"]) == (
            "Cache product pages",
            "fact",
            "redis page cache",
        )

        # Forgotten through the session: the entry file with that decision disappears too.
        memoir = await ok(client, "memoir_list", {"tool": "memoir"})
        assert any(e["name"] == HIDDEN_DECISION for e in memoir.structured_content["entries"])
        hide(world, HIDDEN_DECISION)
        memoir = await ok(client, "memoir_list", {"tool": "memoir"})
        assert not any(e["name"] == HIDDEN_DECISION for e in memoir.structured_content["entries"])
        assert "zanzibar" not in blob(memoir).lower()

        every = await ok(client, "memoir_list", {"all_projects": True})
        paths = {e["path"] for e in every.structured_content["entries"]}
        assert str(world.other / "AGENTS.md") in paths


# --- memoir_read --------------------------------------------------------------------------


async def test_read_returns_a_tools_file(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        hit = (await ok(client, "memoir_recall", {"query": "redis"})).structured_content["hits"][0]
        text = await ok(client, "memoir_read", {"tool": hit["tool"], "filepath": hit["path"]})
        text = text.content[0].text
        assert text.startswith(f"── claude-code / {claude_memory(world) / 'caching.md'} ──")
        assert "Product pages are cached in Redis" in text
        # The JavaScript tool's form: relative to the tool's directory; also `path`.
        relative = await ok(client, "memoir_read", {"tool": "claude", "filepath": "CLAUDE.md"})
        assert "Always run the linter" in relative.content[0].text
        nested = await ok(client, "memoir_read", {"tool": "claude", "path": "rules/style.md"})
        assert "Use type hints" in nested.content[0].text
        store_file = await ok(
            client, "memoir_read", {"tool": "memoir", "filepath": "memory/fact_cluster-layout.md"}
        )
        assert "aliases:" in store_file.content[0].text  # the whole file, as it is


async def test_read_refuses_every_path_guard_case(world: World) -> None:
    os.symlink(world.root / "elsewhere" / "private.md", world.claude / "rules" / "sneaky.md")
    os.symlink(world.root / "elsewhere", world.claude / "rules" / "linked")
    home = world.home
    cases = [
        ("claude", "../notes/stray.md"),  # ..
        ("claude", "rules/../CLAUDE.md"),
        ("claude", f"{home}/.claude/rules/../../notes/stray.md"),
        ("claude", "~/.claude/../notes/stray.md"),
        ("claude", "/etc/passwd"),  # absolute, outside
        ("claude", f"{home}/notes/stray.md"),  # under $HOME, no tool's file
        ("claude", str(world.root / "elsewhere" / "private.md")),
        ("claude", "a/b.md"),  # separators where nothing is
        ("claude", f"{home}/.claude/rules/sneaky.md"),  # a symlink leading out
        ("claude", "rules/sneaky.md"),
        ("claude", "rules/linked/private.md"),  # through a symlinked directory
        ("claude", ".credentials.json"),  # credentials and settings
        ("claude", f"{home}/.claude/.credentials.json"),
        ("claude", "settings.json"),
        ("claude", f"{home}/.claude/settings.json"),
        ("cursor", f"{home}/.claude/CLAUDE.md"),  # another tool's file
        ("memoir", str(world.store_dir / "session.json")),
        ("memoir", str(world.store_dir / "memoir-tui.toml")),
        ("memoir", "memory/decision_wombat.md"),  # a hidden decision, by path
        ("memoir", "memory/next_action_quokka.md"),  # a completed action, by path
        ("claude", "CLAUDE.md\0.txt"),
    ]
    async with Client(build_server(world.store_dir)) as client:
        for tool, path in cases:
            message = await refused(client, "memoir_read", {"tool": tool, "filepath": path})
            assert "private notes" not in message and "not-a-real-credential" not in message
        # forgotten in the session: its entry file is refused by path too
        args = {"tool": "memoir", "filepath": "memory/decision_zanzibar.md"}
        assert "zanzibar" in (await ok(client, "memoir_read", args)).content[0].text
        hide(world, HIDDEN_DECISION)
        assert "forgotten decision" in await refused(client, "memoir_read", args)
        assert "unknown tool" in await refused(
            client, "memoir_read", {"tool": "emacs", "filepath": "init.md"}
        )
        assert "empty" in await refused(client, "memoir_read", {"tool": "claude"})
        await refused(client, "memoir_read", {"filepath": "CLAUDE.md"})  # tool is required


# --- memoir_remember ----------------------------------------------------------------------


async def test_remember_writes_a_bare_name_entry_and_recall_finds_it(world: World) -> None:
    target = world.store_dir / "memory" / "deploy-flow.md"
    async with Client(build_server(world.store_dir)) as client:
        reply = await ok(
            client,
            "memoir_remember",
            {
                "content": "# Deploy flow\n\nReleases go out through the blue-green pipeline.\n",
                "filename": "deploy-flow.md",
                "aliases": ["rollout", "shipping"],
                "tags": ["ops"],
            },
        )
        assert reply.content[0].text.startswith(f"Remembered in {target} (memoir store)")
        assert reply.content[0].text.endswith("memoir_recall finds it now.")
        text = target.read_text(encoding="utf-8")
        assert text.startswith("---\ntype: fact\nname: Deploy flow\ncreated: ")
        assert "aliases:\n  - rollout\n  - shipping\ntags:\n  - ops\n---\n# Deploy flow\n" in text
        from memoir_tui.core.format.entry_file import read_entry

        parsed = read_entry(target)
        assert (parsed.type, parsed.aliases, parsed.tags) == (
            "fact",
            ("rollout", "shipping"),
            ("ops",),
        )
        assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]

        # at once, through the warm index: by an alias only the frontmatter holds
        hits = (await ok(client, "memoir_recall", {"query": "rollout"})).structured_content["hits"]
        assert hits[0]["path"] == str(target)
        assert "---" not in hits[0]["passage"]

        # never replaces a file: the JavaScript tool overwrites, this refuses
        again = await refused(
            client, "memoir_remember", {"content": "other text", "filename": "deploy-flow.md"}
        )
        assert "already exists" in again
        assert target.read_text(encoding="utf-8") == text

        # as the JavaScript tool, a name without a suffix gets .md
        await ok(client, "memoir_remember", {"content": "Canary first.", "filename": "canary"})
        assert (world.store_dir / "memory" / "canary.md").is_file()

    records = [
        json.loads(line)
        for line in (world.store_dir / "audit.jsonl").read_text(encoding="utf-8").splitlines()
        if '"remember"' in line
    ]
    assert [r["identity_hash"] for r in records] == [
        text_hash("deploy-flow.md"),
        text_hash("canary.md"),
    ]
    assert all(r["actor"] == "mcp" and r["list"] == "entries" for r in records)


async def test_remember_in_each_branch_stays_inside_the_target(world: World) -> None:
    async with Client(build_server(world.store_dir)) as client:
        # Claude Code, project branch: that project's memory directory (found by transcript)
        await ok(
            client,
            "memoir_remember",
            {
                "content": "The search box uses the meilisearch index.",
                "filename": "search.md",
                "tool": "claude",
                "project": str(world.project),
            },
        )
        target = claude_memory(world) / "search.md"
        assert target.is_file()
        hits = (await ok(client, "memoir_recall", {"query": "meilisearch"})).structured_content
        assert hits["hits"][0]["path"] == str(target)

        # Claude Code without a project: the home directory's project memory (as the JS tool)
        reply = await ok(
            client,
            "memoir_remember",
            {"content": "Prefers short answers.", "filename": "style.md", "tool": "claude-code"},
        )
        assert "outside this server's project scope" in reply.content[0].text
        home_memory = world.claude / "projects" / claude_slug(str(world.home)) / "memory"
        assert (home_memory / "style.md").is_file()
        # another project's memory than this server's: the reply says how to find it
        reply = await ok(client, "memoir_recall", {"query": "short answers"})
        assert reply.structured_content["hits"] == []
        reply = await ok(client, "memoir_recall", {"query": "short answers", "all_projects": True})
        assert reply.structured_content["hits"][0]["path"] == str(home_memory / "style.md")

        # Cursor, project branch: the project's rules with Cursor's suffix
        await ok(
            client,
            "memoir_remember",
            {
                "content": "Migrations are append-only.",
                "filename": "db.md",
                "tool": "cursor",
                "project": "webshop",
            },
        )
        assert (world.project / ".cursor" / "rules" / "db.mdc").is_file()

        # The store with a project: the store's memory/, scoped by frontmatter
        await ok(
            client,
            "memoir_remember",
            {
                "content": "---\ntype: lesson\ndescription: invoices\n---\nCheck the ibex totals.\n",
                "filename": "ibex.md",
                "project": str(world.other),
            },
        )
        from memoir_tui.core.format.entry_file import read_entry

        ibex = read_entry(world.store_dir / "memory" / "ibex.md")
        assert (ibex.type, ibex.project, ibex.description) == (
            "lesson",
            str(world.other),
            "invoices",
        )
        assert ibex.name == "ibex"
        mine = await ok(client, "memoir_recall", {"query": "ibex"})
        assert mine.structured_content["hits"] == []  # another project's
        theirs = await ok(client, "memoir_recall", {"query": "ibex", "all_projects": True})
        assert theirs.structured_content["hits"][0]["path"].endswith("ibex.md")

        # A project memoir does not know is refused (nothing is created for it).
        stranger = world.root / "src" / "stranger"
        stranger.mkdir()
        message = await refused(
            client,
            "memoir_remember",
            {"content": "x", "filename": "x.md", "tool": "cursor", "project": str(stranger)},
        )
        assert "not a project memoir knows" in message
        assert not (stranger / ".cursor").exists()


@pytest.mark.parametrize("tool", ["memoir", "claude", "cursor"])
async def test_remember_refuses_bad_names_secrets_and_blank_content(
    world: World, tool: str
) -> None:
    def snapshot() -> set[str]:
        return {
            str(p)
            for base in (world.root / "home", world.root / "src", Path("/etc"))
            if base.exists()
            for p in base.rglob("*")
            if "audit" not in p.name and ".cache" not in p.parts
        }

    project = {"memoir": None, "claude": str(world.project), "cursor": str(world.project)}[tool]
    base = {"tool": tool, **({"project": project} if project else {})}
    async with Client(build_server(world.store_dir)) as client:
        await ok(client, "memoir_recall", {"query": "warm up the index"})
        before = snapshot()
        for name in ("../x.md", "/etc/x.md", "a/b.md", "x.txt", ".x.md", "settings.json", "x..md"):
            message = await refused(
                client, "memoir_remember", {**base, "content": "a memory", "filename": name}
            )
            assert "bare file name" in message or "reserved" in message, name
        secret = await refused(
            client,
            "memoir_remember",
            {**base, "content": f"the deploy token is {FAKE_TOKEN}", "filename": "token-note.md"},
        )
        assert "github" in secret.lower() and FAKE_TOKEN not in secret
        secret_alias = await refused(
            client,
            "memoir_remember",
            {**base, "content": "fine", "filename": "alias.md", "aliases": [FAKE_TOKEN]},
        )
        assert FAKE_TOKEN not in secret_alias
        for blank in ("", "   ", "\n\t \n", "---\ntype: fact\n---\n  \n"):
            message = await refused(
                client, "memoir_remember", {**base, "content": blank, "filename": "blank.md"}
            )
            assert "empty" in message
        assert snapshot() == before


# --- one real stdio server ----------------------------------------------------------------


async def test_memoir_recall_over_stdio(world: World, tmp_path: Path) -> None:
    hide(world, HIDDEN_DECISION)
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
            # the server builds its index in the background from the start and answers
            # from what it has meanwhile, saying so; it completes within seconds
            for _attempt in range(200):
                result = await session.call_tool("memoir_recall", {"query": "kubernetes"})
                assert not result.is_error, result.content[0].text
                if result.structured_content["complete"]:
                    break
                assert "still being built" in result.content[0].text
                await anyio.sleep(0.1)
            assert result.structured_content["complete"]
            hits = result.structured_content["hits"]
            assert hits[0]["path"] == str(world.store_dir / "memory" / "fact_cluster-layout.md")
            assert "---" not in hits[0]["passage"]
            for query in ("zanzibar", "platypus"):
                result = await session.call_tool("memoir_recall", {"query": query})
                assert not result.is_error
                assert result.structured_content["hits"] == [], query
