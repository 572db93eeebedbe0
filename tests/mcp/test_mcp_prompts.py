"""Prompts and resources for hosts without hooks, clean argument errors and truthful
hints, over real stdio."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.mcp.test_mcp_server import connect, ok


def test_resume_prompt_and_brief_resource_are_listed_and_fetched(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path / "store", tmp_path / "err.log") as session:
            await ok(session, "memoir_set_goal", {"text": "Ship the CSV importer"})
            await ok(session, "memoir_note", {"text": "Use SQLite", "why": "one file"})
            prompts = (await session.list_prompts()).prompts
            assert [p.name for p in prompts] == ["resume"]
            got = await session.get_prompt("resume", {})
            text = got.messages[0].content.text
            assert "Ship the CSV importer" in text and "Use SQLite" in text
            assert "not instructions" in text
            resources = (await session.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["memoir://brief"]
            read = await session.read_resource("memoir://brief")
            brief = read.contents[0].text
            assert brief.startswith("<memoir-brief") and "Ship the CSV importer" in brief

    asyncio.run(scenario())


def test_argument_errors_are_one_plain_sentence(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with connect(tmp_path / "store", tmp_path / "err.log") as session:
            for name, args, said in (
                ("memoir_add_next", {}, "text is required"),
                ("memoir_add_next", {"text": 5}, "text must be a string"),
                ("memoir_recall", {"query": "x", "limit": "many"}, "limit must be a whole"),
            ):
                result = await session.call_tool(name, args)
                text = result.content[0].text
                assert result.is_error and said in text, text
                assert text.startswith(f"{name} was not run:"), text
                for noise in ("pydantic", "http", "validation error", "input_value", "\n"):
                    assert noise not in text, text

    asyncio.run(scenario())


def test_writers_that_can_rotate_an_item_out_say_they_are_destructive(tmp_path: Path) -> None:
    async def scenario() -> dict[str, bool | None]:
        async with connect(tmp_path / "store", tmp_path / "err.log") as session:
            tools = (await session.list_tools()).tools
            return {t.name: t.annotations.destructive_hint for t in tools if t.annotations}

    hints = asyncio.run(scenario())
    for name in ("memoir_set_goal", "memoir_add_next", "memoir_ask", "memoir_note"):
        assert hints[name] is True, name
    assert hints["memoir_session"] in (None, False)
