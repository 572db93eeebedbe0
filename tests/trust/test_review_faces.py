"""The review queue through MCP (in-memory client) and the CLI, checked on disk."""

from __future__ import annotations

import json
from pathlib import Path

from mcp import Client

from memoir_tui.core.services.review import review_path
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp.server import build_server


def candidate(text: str, source: str = "assistant") -> dict:
    return {
        "text": text,
        "kind": "decision",
        "source": source,
        "extractor": "decision.going_with",
        "session_id": "sess-1",
        "timestamp": "2026-11-30T10:00:00.000Z",
        "transcript": "/t/sess-1.jsonl",
    }


async def test_review_pin_and_reject_over_mcp(store_dir: Path, store: Memoir) -> None:
    store.review.enqueue(
        [candidate("We are going with FastAPI for the API"), candidate("Use ruff", "user")]
    )
    async with Client(build_server(store_dir)) as client:
        listing = await client.call_tool("memoir_review", {})
        text = listing.content[0].text
        assert "[assistant] We are going with FastAPI" in text and "[user] Use ruff" in text
        ids = {c["text"]: c["id"] for c in listing.structured_content["candidates"]}
        pinned = await client.call_tool(
            "memoir_pin", {"id": ids["Use ruff"], "why": "one fast linter"}
        )
        assert not pinned.is_error, pinned.content[0].text
        rejected = await client.call_tool(
            "memoir_reject", {"id": ids["We are going with FastAPI for the API"]}
        )
        assert "will not be proposed again" in rejected.content[0].text
        assert "No candidates" in (await client.call_tool("memoir_review", {})).content[0].text
    (decision,) = json.loads(store.session_path.read_text())["current"]["decisions"]
    assert decision["text"] == "Use ruff" and decision["why"] == "one fast linter"
    assert decision["source"] == "user" and decision["extractor"] == "decision.going_with"
    states = {i["text"]: i["state"] for i in json.loads(review_path(store).read_text())["items"]}
    assert states == {"We are going with FastAPI for the API": "rejected", "Use ruff": "pinned"}
    # rejected is a tombstone: capturing the same text again proposes nothing
    assert store.review.enqueue([candidate("We are going with FastAPI for the API")]).added == ()


async def test_pin_near_a_forgotten_decision_is_refused_over_mcp(store_dir: Path, store: Memoir):
    store.note_decision("Deploy on Fridays with the blue pipeline")
    store.hide_decision(store.resolve_decision("fridays").key)
    store.review.enqueue([candidate("Deploy on Fridays using the blue pipeline")])
    async with Client(build_server(store_dir)) as client:
        listing = await client.call_tool("memoir_review", {})
        assert "resembles a forgotten decision" in listing.content[0].text
        (c,) = listing.structured_content["candidates"]
        refused = await client.call_tool("memoir_pin", {"id": c["id"]})
        assert refused.is_error
    assert store.working_set().decisions == ()


def test_purge_removes_the_text_from_the_review_queue_too(store: Memoir) -> None:
    from memoir_tui.core.format.review_file import merge_review

    secret_plan = "We are going with the Falcon vendor for billing"
    store.review.enqueue([candidate(secret_plan), candidate("Deploy with Falcon tooling daily")])
    old_queue = json.loads(review_path(store).read_text())  # a stale replica's copy
    store.review.pin(next(i for i in old_queue["items"] if i["text"] == secret_plan)["id"])
    store.hide_decision(store.resolve_decision("falcon vendor").key)
    store.purge_decision(store.working_set().tombstones[0].key)
    for path in store.root.rglob("*"):
        if path.is_file():
            assert "Falcon vendor" not in path.read_text(errors="replace"), path
    queue = json.loads(review_path(store).read_text())
    # merging the stale replica back never restores the text
    merged = merge_review(queue, old_queue)
    assert "Falcon vendor" not in json.dumps(merged)
    assert len(merged["items"]) == 2


def test_interrupted_writes_leave_no_temp_file_behind(store: Memoir) -> None:
    store.add_goal("first")
    stale = store.root / ".session.json.abc123.tmp"
    stale.write_text('{"text": "purged long ago"}')
    store.add_goal("second")
    assert not stale.exists()


async def test_mcp_review_says_when_the_queue_is_damaged(store_dir: Path) -> None:
    from mcp import Client

    from memoir_tui.mcp.server import build_server

    (store_dir / "review.json").write_text("{not json")
    async with Client(build_server(store_dir)) as client:
        result = await client.call_tool("memoir_review", {})
    text = result.content[0].text
    assert "cannot be read" in text and "No candidates" not in text
    assert result.structured_content["notice"]
    assert (store_dir / "review.json").read_text() == "{not json"  # a read changes nothing


def test_the_review_answer_keeps_to_the_scope_and_counts_the_rest(store_dir: Path) -> None:
    """MCP's and the CLI's listings show this project's and global candidates, as the
    Review pane does, and say how many other projects hold (all_projects shows them)."""
    from memoir_tui.core.answers import review_list

    here, there = "git:" + "a" * 32, "git:" + "b" * 32
    Memoir(store_dir).review.enqueue(
        [
            {**candidate("Use SQS for invoices"), "project": here},
            {**candidate("Static export for marketing"), "project": there},
            candidate("Prefer ripgrep everywhere"),
        ]
    )
    scoped = review_list(Memoir(store_dir, project=here))
    assert {c.text for c in scoped.data.candidates} == {
        "Use SQS for invoices",
        "Prefer ripgrep everywhere",
    }
    assert scoped.data.elsewhere == 1 and "1 more from other projects" in scoped.text
    every = review_list(Memoir(store_dir, project=here), all_projects=True)
    assert every.data.total == 3 and every.data.elsewhere == 0
    assert review_list(Memoir(store_dir)).data.total == 3  # outside any project: all
