"""Contract tests for ``memoir-tui --mcp`` over real stdio with the SDK's client.

Every test spawns ``python -m memoir_tui --mcp`` on a scratch store (the env is
passed explicitly: the SDK gives the child only a minimal environment) and
checks both the replies and ``session.json`` on disk. Each spawn costs about a
second, so each test spawns once and walks a whole scenario.

Regenerate the tools snapshot with ``UPDATE_MCP_SNAPSHOT=1 pytest tests/mcp/test_mcp_server.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.workflows.memoir import Memoir
from tests.paths import FIXTURES, REPO

SNAPSHOT = FIXTURES / "mcp_tools_snapshot.json"
SERVER_ARGS = ["-m", "memoir_tui", "--mcp"]

TOOLS = {
    "memoir_status",
    "memoir_session",
    "memoir_set_goal",
    "memoir_add_next",
    "memoir_complete_next",
    "memoir_note",
    "memoir_ask",
    "memoir_why",
    "memoir_forget",
    "memoir_resume",
    "memoir_review",
    "memoir_pin",
    "memoir_reject",
    "memoir_consolidate",
    "memoir_sync_status",
    "memoir_recall",
    "memoir_list",
    "memoir_read",
    "memoir_remember",
}
READ_ONLY = {
    "memoir_status",
    "memoir_session",
    "memoir_why",
    "memoir_resume",
    "memoir_review",
    "memoir_consolidate",
    "memoir_sync_status",
    "memoir_recall",
    "memoir_list",
    "memoir_read",
}
READ_SURFACES = [
    ("memoir_session", {}),
    ("memoir_resume", {}),
    ("memoir_status", {}),
]


def server_params(
    store_dir: Path, *, python_flags: tuple[str, ...] = (), log_level: str = "WARNING"
) -> StdioServerParameters:
    env = {
        "HOME": os.environ["HOME"],  # conftest's scratch home
        "MEMOIR_HOME": str(store_dir),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(REPO),
        "MEMOIR_TUI_LOG_LEVEL": log_level,
    }
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        if var in os.environ:
            env[var] = os.environ[var]
    return StdioServerParameters(
        command=sys.executable, args=[*python_flags, *SERVER_ARGS], env=env, cwd=REPO
    )


@asynccontextmanager
async def connect(
    store_dir: Path, errlog_path: Path, **kwargs: Any
) -> AsyncIterator[ClientSession]:
    with errlog_path.open("a", encoding="utf-8") as errlog:
        async with (
            stdio_client(server_params(store_dir, **kwargs), errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            yield session


async def call(session: ClientSession, name: str, args: dict[str, Any] | None = None) -> Any:
    return await session.call_tool(name, args or {})


async def ok(session: ClientSession, name: str, args: dict[str, Any] | None = None) -> str:
    result = await call(session, name, args)
    text = result.content[0].text
    assert not result.is_error, f"{name}({args}) failed: {text}"
    return text


async def refused(session: ClientSession, name: str, args: dict[str, Any]) -> str:
    result = await call(session, name, args)
    text = result.content[0].text
    assert result.is_error, f"{name}({args}) was not refused: {text}"
    return text


def on_disk(store_dir: Path) -> dict[str, Any]:
    return json.loads((store_dir / "session.json").read_text(encoding="utf-8"))


def texts(items: list[dict[str, Any]]) -> list[str]:
    return [i["text"] for i in items]


def tools_snapshot(tools: list[Any]) -> dict[str, Any]:
    return {
        t.name: {
            "input_schema": t.input_schema,
            "output_schema": t.output_schema,
            "annotations": t.annotations.model_dump(by_alias=True, exclude_none=True)
            if t.annotations
            else None,
        }
        for t in sorted(tools, key=lambda t: t.name)
    }


# --- the tool list ------------------------------------------------------------------


async def test_tools_list_matches_snapshot(store_dir: Path, tmp_path: Path) -> None:
    async with connect(store_dir, tmp_path / "stderr.log") as session:
        listed = (await session.list_tools()).tools
    names = {t.name for t in listed}
    assert names == TOOLS
    by_name = {t.name: t for t in listed}
    for name, tool in by_name.items():
        assert tool.description, name
        assert tool.annotations is not None, name
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
        assert tool.annotations.open_world_hint is False, name
        if name not in READ_ONLY:
            # forget purges; the others can rotate an item out of a full list (or drop
            # a candidate); completing an action and a new memory file cannot lose anything
            loses = name not in ("memoir_complete_next", "memoir_remember")
            assert tool.annotations.destructive_hint is loses, name
    # Argument names as the JavaScript tool's.
    assert set(by_name["memoir_note"].input_schema["properties"]) == {"text", "why", "rejected"}
    assert by_name["memoir_note"].input_schema["required"] == ["text"]
    # … plus the scope switch: items of other projects are named, never silently absent.
    assert set(by_name["memoir_forget"].input_schema["properties"]) == {
        "text",
        "purge",
        "all_projects",
        "everywhere",  # a text in every place, with a receipt (issue 16)
        "dry_run",
    }
    assert set(by_name["memoir_complete_next"].input_schema["properties"]) == {"match"}
    assert set(by_name["memoir_why"].input_schema["properties"]) == {"query", "all_projects"}
    for name in ("memoir_session", "memoir_status", "memoir_review"):
        assert set(by_name[name].input_schema["properties"]) == {"all_projects"}, name
    assert {"query"} <= set(by_name["memoir_recall"].input_schema["properties"])
    assert {"tool"} <= set(by_name["memoir_list"].input_schema["properties"])
    assert {"tool", "filepath"} <= set(by_name["memoir_read"].input_schema["properties"])
    assert {"content", "filename", "tool", "project"} <= set(
        by_name["memoir_remember"].input_schema["properties"]
    )
    assert "permanent" in by_name["memoir_forget"].description

    current = tools_snapshot(listed)
    if os.environ.get("UPDATE_MCP_SNAPSHOT") == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n", "utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert current == expected, (
        "the MCP tool surface changed; if on purpose, regenerate the snapshot with "
        "UPDATE_MCP_SNAPSHOT=1 pytest tests/mcp/test_mcp_server.py::test_tools_list_matches_snapshot"
    )


# --- every tool, text and disk ------------------------------------------------------------


async def test_every_tool_over_stdio(store_dir: Path, tmp_path: Path) -> None:
    session_file = store_dir / "session.json"
    async with connect(store_dir, tmp_path / "stderr.log") as s:
        # Reads on an empty store write nothing (not even machine.id).
        status = await call(s, "memoir_status")
        assert "no session.json yet" in status.content[0].text
        assert status.structured_content["session_file"] is False
        assert "Nothing to resume yet" in await ok(s, "memoir_resume")
        assert "(none)" in await ok(s, "memoir_session")
        assert "No decisions match" in await ok(s, "memoir_why", {"query": "anything"})
        assert sorted(p.name for p in store_dir.iterdir()) == []

        assert await ok(s, "memoir_set_goal", {"text": "  Ship the MCP server  "}) == (
            "Goal set: Ship the MCP server"
        )
        disk = on_disk(store_dir)
        [goal] = disk["current"]["goals"]
        assert goal["text"] == "Ship the MCP server"
        assert goal["set_on"] and goal["machine_id"]
        assert goal["machine_id"] in disk["machines"]

        assert await ok(s, "memoir_add_next", {"text": "Write the stdio tests"}) == (
            "Next: Write the stdio tests"
        )
        await ok(s, "memoir_add_next", {"text": "Record the bench numbers"})
        assert "nothing changed" in await ok(
            s, "memoir_add_next", {"text": "write the STDIO tests"}
        )
        # Stored oldest first, as memoir appends (FORMAT-LATEST §3).
        assert texts(on_disk(store_dir)["current"]["next_actions"]) == [
            "Write the stdio tests",
            "Record the bench numbers",
        ]

        done = await ok(s, "memoir_complete_next", {"match": "bench"})
        assert done.startswith("Completed: Record the bench numbers")
        assert "1 next action(s) still open" in done
        current = on_disk(store_dir)["current"]
        assert texts(current["next_actions"]) == ["Write the stdio tests"]
        [tomb] = current["completed_actions"]
        assert tomb["text"] == "Record the bench numbers" and tomb["done_at"]

        noted = await ok(
            s,
            "memoir_note",
            {
                "text": "Serve MCP over stdio only",
                "why": "hosts spawn the server",
                "rejected": "an HTTP daemon",
            },
        )
        assert noted == (
            "Decision recorded: Serve MCP over stdio only "
            "(why: hosts spawn the server; rejected: an HTTP daemon)"
        )
        await ok(s, "memoir_note", {"text": "Log to stderr"})
        decisions = {d["text"]: d for d in on_disk(store_dir)["current"]["decisions"]}
        assert decisions["Serve MCP over stdio only"]["why"] == "hosts spawn the server"
        assert decisions["Serve MCP over stdio only"]["rejected"] == "an HTTP daemon"
        assert decisions["Serve MCP over stdio only"]["date"]
        assert "why" not in decisions["Log to stderr"]

        assert await ok(s, "memoir_ask", {"text": "Does Zed need a restart?"}) == (
            "Question captured: Does Zed need a restart?"
        )
        assert texts(on_disk(store_dir)["current"]["open_questions"]) == [
            "Does Zed need a restart?"
        ]

        # Reads leave the file byte for byte as it was.
        before = session_file.read_bytes()
        why = await call(s, "memoir_why", {"query": "stdio"})
        assert not why.is_error
        assert why.content[0].text.startswith('1 decision(s) matching "stdio"')
        assert "why: hosts spawn the server" in why.content[0].text
        assert "rejected: an HTTP daemon" in why.content[0].text
        assert [d["text"] for d in why.structured_content["decisions"]] == [
            "Serve MCP over stdio only"
        ]

        view = await call(s, "memoir_session")
        text = view.content[0].text
        for expected in (
            "- Ship the MCP server",
            "- [ ] Write the stdio tests",
            "- Does Zed need a restart?",
            "- Serve MCP over stdio only — why: hosts spawn the server",
        ):
            assert expected in text
        assert "Record the bench numbers" not in text  # completed: never live
        assert view.structured_content["decisions_total"] == 2

        resume = await call(s, "memoir_resume")
        text = resume.content[0].text
        assert "Goal: Ship the MCP server" in text
        assert "1. Write the stdio tests" in text
        assert "Does Zed need a restart?" in text
        assert "Serve MCP over stdio only" in text
        assert "Record the bench numbers" not in text
        assert resume.structured_content["project"] is None

        status = await call(s, "memoir_status")
        assert status.structured_content["counts"] == {
            "goals": 1,
            "next_actions": 1,
            "open_questions": 1,
            "decisions": 2,
            "forgotten_decisions": 0,
            "completed_actions": 1,
            "history": 0,
            "machines": 1,
        }
        assert "1 goal(s), 1 next action(s), 1 open question(s), 2 decision(s)" in (
            status.content[0].text
        )
        assert session_file.read_bytes() == before

        forgot = await ok(s, "memoir_forget", {"text": "stderr"})
        assert forgot.startswith("Forgotten (permanent; there is no un-forget): Log to stderr")
        hidden = {d["text"]: d for d in on_disk(store_dir)["current"]["decisions"]}
        assert hidden["Log to stderr"]["hidden"] is True
        assert hidden["Log to stderr"]["hidden_at"]
        assert "hidden" not in hidden["Serve MCP over stdio only"]


# --- forgetting: a negative test on every read surface ------------------------------------------


async def _assert_absent(s: ClientSession, needles: list[str], queries: list[str]) -> None:
    surfaces = [*READ_SURFACES, *(("memoir_why", {"query": q}) for q in queries)]
    for name, args in surfaces:
        result = await call(s, name, args)
        assert not result.is_error, (name, result.content[0].text)
        blob = result.content[0].text + json.dumps(result.structured_content)
        if name == "memoir_why":
            assert result.structured_content["decisions"] == [], args
            blob = blob.replace(args["query"], "")  # the reply echoes the query
        for needle in needles:
            assert needle.lower() not in blob.lower(), f"{needle!r} leaked through {name}{args}"


async def test_forget_hides_from_every_read_surface(
    store_dir: Path, store: Memoir, tmp_path: Path
) -> None:
    store.note_decision("Cache in SQLite", why="token sk-live-123 made it fast", rejected="Redis")
    store.note_decision("Session file stays JSON", why="the JS tool reads it")
    store.note_decision("Keep tabs in the sidebar", why="users asked")
    store.add_next_action("Rotate the leaked key")
    store.add_next_action("Write the docs")
    store.complete_next_action("rotate")
    # A stale replica's copy of the completed action (added before done_at).
    raw = on_disk(store_dir)
    raw["current"]["next_actions"].append(
        {"text": "rotate the leaked key", "added": "2020-01-01T00:00:00.000Z"}
    )
    (store_dir / "session.json").write_text(json.dumps(raw), encoding="utf-8")

    async with connect(store_dir, tmp_path / "stderr.log") as s:
        # Before: visible everywhere it should be.
        assert "Cache in SQLite" in await ok(s, "memoir_session")
        assert "Cache in SQLite" in await ok(s, "memoir_why", {"query": "sqlite"})
        await _assert_absent(s, ["Rotate the leaked key"], ["rotate"])

        assert "permanent" in await ok(s, "memoir_forget", {"text": "sqlite"})
        await _assert_absent(
            s,
            ["Cache in SQLite", "sk-live-123", "Redis"],
            ["sqlite", "cache", "sk-live", "redis", "Cache in SQLite"],
        )
        assert "Keep tabs in the sidebar" in await ok(s, "memoir_session")
        # Forgetting is permanent: the same text cannot be noted again ...
        again = await refused(s, "memoir_note", {"text": "cache in sqlite"})
        assert "forgotten" in again
        # ... nor forgotten twice (it is no longer visible) ...
        assert "No visible decision" in await refused(s, "memoir_forget", {"text": "sqlite"})
        # ... but it can still be purged by its exact text (a leaked secret).
        purged = await ok(s, "memoir_forget", {"text": "Cache in SQLite", "purge": True})
        assert "purged" in purged and "sk-live-123" not in purged
        assert "sk-live-123" not in (store_dir / "session.json").read_text(encoding="utf-8")

        # Purge a visible decision directly.
        purged = await ok(s, "memoir_forget", {"text": "Session file stays", "purge": True})
        assert "Session file stays JSON" not in purged
        raw_text = (store_dir / "session.json").read_text(encoding="utf-8")
        assert "Session file stays JSON" not in raw_text
        assert "the JS tool reads it" not in raw_text
        tombs = [d for d in on_disk(store_dir)["current"]["decisions"] if d.get("hidden")]
        assert len(tombs) == 2
        assert all(d["text"] == "[purged]" and len(d["text_hash"]) == 64 for d in tombs)
        assert all("why" not in d and "rejected" not in d for d in tombs)
        await _assert_absent(
            s,
            ["Cache in SQLite", "Session file stays JSON", "the JS tool reads it", "[purged]"],
            ["session file", "json", "purged", "sqlite"],
        )
        status = await call(s, "memoir_status")
        assert status.structured_content["counts"]["decisions"] == 1
        assert status.structured_content["counts"]["forgotten_decisions"] == 2


# --- refusals -------------------------------------------------------------------------------


async def test_refusals_change_nothing(store_dir: Path, store: Memoir, tmp_path: Path) -> None:
    store.add_next_action("write tests")
    store.add_next_action("write docs")
    store.note_decision("use ruff for lint")
    store.note_decision("use ruff for format")
    session_file = store_dir / "session.json"
    before = session_file.read_bytes()
    huge = "x" * (8 * 1024 + 1)

    async with connect(store_dir, tmp_path / "stderr.log") as s:
        # Empty and whitespace-only matches: the reference would complete the first action.
        for blank in ("", " ", "\t\n  ", "\u3000"):
            assert "empty" in await refused(s, "memoir_complete_next", {"match": blank})
        ambiguous = await refused(s, "memoir_complete_next", {"match": "write"})
        assert "nothing was completed" in ambiguous
        assert "● write tests" in ambiguous and "● write docs" in ambiguous
        assert "nothing was completed" in await refused(
            s, "memoir_complete_next", {"match": "deploy"}
        )

        ambiguous = await refused(s, "memoir_forget", {"text": "ruff"})
        assert "permanent" in ambiguous and "nothing was changed" in ambiguous
        assert "● use ruff for lint" in ambiguous and "● use ruff for format" in ambiguous
        for blank in ("", "   "):
            assert "empty" in await refused(s, "memoir_forget", {"text": blank})
            assert "empty" in await refused(s, "memoir_forget", {"text": blank, "purge": True})

        for name, args in [
            ("memoir_set_goal", {"text": " "}),
            ("memoir_add_next", {"text": ""}),
            ("memoir_ask", {"text": "\n"}),
            ("memoir_note", {"text": "  "}),
            ("memoir_note", {"text": "  ", "why": "because"}),
            ("memoir_why", {"query": " "}),
        ]:
            assert "empty" in await refused(s, name, args), name

        for name, args in [
            ("memoir_set_goal", {"text": huge}),
            ("memoir_add_next", {"text": huge}),
            ("memoir_ask", {"text": huge}),
            ("memoir_note", {"text": huge}),
            ("memoir_note", {"text": "fine", "why": huge}),
            ("memoir_note", {"text": "fine", "rejected": huge}),
            ("memoir_complete_next", {"match": huge}),
            ("memoir_forget", {"text": huge}),
            ("memoir_why", {"query": huge}),
            ("memoir_resume", {"project": huge}),
            ("memoir_add_next", {"text": "é" * 4097}),  # 8194 bytes in UTF-8
        ]:
            assert "longer than 8 KB" in await refused(s, name, args), name

        # Missing or mistyped arguments are refused by validation.
        await refused(s, "memoir_set_goal", {})
        await refused(s, "memoir_forget", {"text": ["a"]})

    assert session_file.read_bytes() == before


# --- start-up hygiene ---------------------------------------------------------------------------


async def test_server_imports_neither_textual_nor_the_app(store_dir: Path, tmp_path: Path) -> None:
    """``-X importtime`` lists every module the real server process imported, to stderr."""
    errlog = tmp_path / "stderr.log"
    async with connect(
        store_dir, errlog, python_flags=("-X", "importtime"), log_level="DEBUG"
    ) as s:
        await ok(s, "memoir_set_goal", {"text": "check imports"})
        for name, args in READ_SURFACES:
            await ok(s, name, args)
        await ok(s, "memoir_why", {"query": "imports"})
    log = errlog.read_text(encoding="utf-8")
    modules = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)\s*$", log, re.M))
    assert "memoir_tui.mcp.server" in modules  # the probe works
    assert any(m.startswith("memoir_tui.core.door.") for m in modules)  # and the core ran
    assert not {m for m in modules if m == "textual" or m.startswith("textual.")}
    assert not {
        m
        for m in modules
        if m.startswith(("memoir_tui.app", "memoir_tui.panes", "memoir_tui.dialogs"))
    }
    # Our own logs reach stderr (and the protocol on stdout survived them).
    assert "memoir MCP server on stdio" in log


# --- concurrency ----------------------------------------------------------------------------------


async def test_two_servers_and_a_store_writer_lose_nothing(store_dir: Path, tmp_path: Path) -> None:
    (store_dir / "memoir-tui.toml").write_text("[caps]\nnext_actions = 1000\n", encoding="utf-8")
    writes = 100
    ready = [asyncio.Event(), asyncio.Event()]
    go = asyncio.Event()

    async def server_writer(n: int) -> None:
        async with connect(store_dir, tmp_path / f"stderr-{n}.log") as s:
            ready[n].set()
            await go.wait()
            for i in range(writes):
                await ok(s, "memoir_add_next", {"text": f"server {n} write {i}"})

    errors: list[BaseException] = []

    def store_writer() -> None:
        try:
            store = Memoir(store_dir)
            for i in range(writes):
                assert store.add_next_action(f"store write {i}").changed
        except BaseException as exc:  # reported below
            errors.append(exc)

    async def start_all() -> None:
        await asyncio.gather(*(r.wait() for r in ready))
        thread = threading.Thread(target=store_writer)
        go.set()
        thread.start()
        await asyncio.to_thread(thread.join)

    await asyncio.gather(server_writer(0), server_writer(1), start_all())
    assert not errors, errors
    actions = set(texts(on_disk(store_dir)["current"]["next_actions"]))
    expected = {f"server {n} write {i}" for n in (0, 1) for i in range(writes)}
    expected |= {f"store write {i}" for i in range(writes)}
    assert actions == expected
    assert not (store_dir / "session.json.lock").exists()
