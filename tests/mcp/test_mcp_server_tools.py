"""The MCP tools in-process: the SDK's in-memory client over ``build_server``.

Fast checks of behaviour the stdio contract tests do not walk: re-reading per
call, caps and rotation notices, project filtering, read-only stores, config
errors, forgetting by hash, and a property test of blank-text refusals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from memoir_tui.core import answers
from memoir_tui.core.base.errors import AmbiguousMatchError, EmptyTextError, MemoirError
from memoir_tui.core.format.identity import JS_WHITESPACE, text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.mcp.server import build_server
from tests.conftest import examples


async def call(store_dir: Path, name: str, args: dict[str, Any] | None = None) -> Any:
    async with Client(build_server(store_dir)) as client:
        return await client.call_tool(name, args or {})


async def text_of(store_dir: Path, name: str, args: dict[str, Any] | None = None) -> str:
    result = await call(store_dir, name, args)
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def write_config(store_dir: Path, body: str) -> None:
    (store_dir / "memoir-tui.toml").write_text(body, encoding="utf-8")


async def test_state_and_config_are_reread_on_every_call(store_dir: Path, store: Memoir) -> None:
    async with Client(build_server(store_dir)) as client:
        first = await client.call_tool("memoir_session", {})
        assert first.structured_content["goals"] == []
        store.add_goal("Goal written by another process")
        second = await client.call_tool("memoir_session", {})
        assert [g["text"] for g in second.structured_content["goals"]] == [
            "Goal written by another process"
        ]
        status = await client.call_tool("memoir_status", {})
        assert status.structured_content["caps"]["goals"] == 5
        write_config(store_dir, "[caps]\ngoals = 1\n")
        status = await client.call_tool("memoir_status", {})
        assert status.structured_content["caps"]["goals"] == 1
        assert status.structured_content["config_file"].endswith("memoir-tui.toml")
        reply = await client.call_tool("memoir_set_goal", {"text": "A newer goal"})
        assert "holds 1 live; the oldest archived (still listed)" in reply.content[0].text
        assert '"Goal written by another process"' in reply.content[0].text


async def test_add_next_names_what_rotated_out(store_dir: Path, store: Memoir) -> None:
    write_config(store_dir, "[caps]\nnext_actions = 2\n")
    store = Memoir(store_dir, clock=store.clock)
    store.add_next_action("oldest")
    store.add_next_action("middle")
    reply = await text_of(store_dir, "memoir_add_next", {"text": "newest"})
    assert reply == (
        "Next: newest\nThe next-actions list holds 2 live; the oldest parked "
        '(still listed; unpark brings it back): "oldest"'
    )
    assert [i.text for i in store.working_set().next_actions] == ["newest", "middle"]


async def test_resume_filters_by_project(store_dir: Path, store: Memoir) -> None:
    from memoir_tui.core.rules.scope import current_project, project_identity

    home = Path.home()
    alpha = project_identity(Path("/srv/alpha"), home=home).id
    beta = project_identity(Path("/srv/beta"), home=home).id
    store.add_goal("global goal")
    store.add_next_action("alpha step")
    store.add_next_action("beta step")
    store.note_decision("alpha decision", why="alpha reasons")
    store.note_decision("beta decision")
    store.note_decision("here decision")
    raw = json.loads(store.session_path.read_text(encoding="utf-8"))
    for item in raw["current"]["next_actions"] + raw["current"]["decisions"]:
        prefix = item["text"].split()[0]
        item["project"] = {"alpha": alpha, "beta": beta, "here": current_project().id}[prefix]
    store.session_path.write_text(json.dumps(raw), encoding="utf-8")

    result = await call(store_dir, "memoir_resume", {"project": "/srv/alpha/"})
    text = result.content[0].text
    assert text.startswith("# Hand-off — /srv/alpha/")
    assert "global goal" in text and "alpha step" in text and "alpha decision" in text
    assert "beta" not in text and "here" not in text
    assert result.structured_content["project"] == "/srv/alpha/"
    # By scope id too; without a project, the server's own project (its cwd) and global items.
    assert "beta step" in await text_of(store_dir, "memoir_resume", {"project": beta})
    mine = await text_of(store_dir, "memoir_resume", {"project": "   "})
    assert "here decision" in mine and "global goal" in mine
    assert "alpha" not in mine and "beta" not in mine


async def test_resume_is_compact_and_points_to_the_rest(store_dir: Path, store: Memoir) -> None:
    for n in range(8):
        store.note_decision(f"decision {n}", why="w" * 1000)
    store.record_session_end("did the first part", ["a.py", "b.py"], 42)
    text = await text_of(store_dir, "memoir_resume")
    assert "decision 7" in text and "decision 2" not in text
    assert "3 more via memoir_why" in text
    assert "w" * 300 not in text and "…" in text
    assert "did the first part (42 min; files: a.py, b.py)" in text


async def test_newer_format_store_is_read_only(store_dir: Path) -> None:
    (store_dir / "session.json").write_text(
        json.dumps({"version": 99, "current": {"goals": [{"text": "future goal"}]}}),
        encoding="utf-8",
    )
    before = (store_dir / "session.json").read_bytes()
    refused = await call(store_dir, "memoir_set_goal", {"text": "a goal"})
    assert refused.is_error and "read-only" in refused.content[0].text
    status = await call(store_dir, "memoir_status")
    assert status.structured_content["read_only"] is True
    assert "Read-only: yes" in status.content[0].text
    session = await text_of(store_dir, "memoir_session")
    assert "read-only" in session
    assert (store_dir / "session.json").read_bytes() == before


async def test_broken_config_is_a_clear_tool_error(store_dir: Path) -> None:
    write_config(store_dir, "[caps]\ngoals = 0\n")
    result = await call(store_dir, "memoir_status")
    assert result.is_error
    assert "memoir-tui.toml:2" in result.content[0].text
    assert "caps.goals" in result.content[0].text


async def test_forget_by_identity_hash_then_purge_by_hash(store_dir: Path, store: Memoir) -> None:
    store.note_decision("Use the hash as identity")
    key = text_hash("Use the hash as identity")
    reply = await text_of(store_dir, "memoir_forget", {"text": key.upper()})
    assert reply.startswith("Forgotten (permanent")
    assert store.working_set().decisions == ()
    reply = await text_of(store_dir, "memoir_forget", {"text": key, "purge": True})
    assert reply.startswith("Forgotten and purged")
    [tomb] = store.working_set().tombstones
    assert tomb.purged and tomb.key == key
    again = await call(store_dir, "memoir_forget", {"text": key, "purge": True})
    # Idempotent: a purge named by its hash again changes nothing and says so.
    assert not again.is_error and "already purged" in again.content[0].text


async def test_forgotten_decisions_are_not_purged_by_substring(
    store_dir: Path, store: Memoir
) -> None:
    """Purging a forgotten decision needs its exact text: no candidate list can leak it."""
    store.note_decision("secret sauce recipe")
    await text_of(store_dir, "memoir_forget", {"text": "sauce"})
    result = await call(store_dir, "memoir_forget", {"text": "sauce", "purge": True})
    assert result.is_error and "secret" not in result.content[0].text


async def test_why_matches_phrases_and_all_words(store_dir: Path, store: Memoir) -> None:
    store.note_decision("Use SQLite for the local cache", why="fast", rejected="Redis")
    store.note_decision("Keep the cache warm")
    result = await call(store_dir, "memoir_why", {"query": "sqlite cache"})
    assert [d["text"] for d in result.structured_content["decisions"]] == [
        "Use SQLite for the local cache"
    ]
    assert "rejected: Redis" in result.content[0].text
    result = await call(store_dir, "memoir_why", {"query": "CACHE"})
    assert len(result.structured_content["decisions"]) == 2


async def test_note_again_updates_and_duplicates_are_no_ops(store_dir: Path, store: Memoir) -> None:
    store.note_decision("Ship on Fridays")
    reply = await text_of(store_dir, "memoir_note", {"text": "ship on fridays", "why": "rested"})
    assert reply == "Decision updated: ship on fridays (why: rested)"
    assert [d.why for d in store.working_set().decisions] == ["rested"]
    store.add_goal("one goal")
    assert "nothing changed" in await text_of(store_dir, "memoir_set_goal", {"text": "ONE GOAL"})
    store.ask_question("why?")
    assert "nothing changed" in await text_of(store_dir, "memoir_ask", {"text": "why?"})


async def test_status_reports_the_lock_and_writes_nothing(store_dir: Path) -> None:
    (store_dir / "session.json.lock").write_text("123", encoding="utf-8")
    status = await call(store_dir, "memoir_status")
    assert status.structured_content["lock_held"] is True
    assert status.structured_content["machine_id"] is None
    assert "Lock: session.json.lock is held" in status.content[0].text
    assert sorted(p.name for p in store_dir.iterdir()) == ["session.json.lock"]


def test_refusal_text_lists_candidates() -> None:
    err = AmbiguousMatchError("2 match", ["a", "b"])
    assert answers.refusal_text(err) == "2 match\n● a\n● b"
    assert answers.refusal_text(EmptyTextError("text is empty")) == "text is empty"


BLANK = st.text(alphabet=JS_WHITESPACE, max_size=20)
WRITERS = [
    lambda s, t: answers.set_goal(s, t),
    lambda s, t: answers.add_next(s, t),
    lambda s, t: answers.ask(s, t),
    lambda s, t: answers.note(s, t, "why"),
    lambda s, t: answers.complete_next(s, t),
    lambda s, t: answers.forget(s, t),
    lambda s, t: answers.forget(s, t, True),
    lambda s, t: answers.why(s, t),
]


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blank=BLANK)
def test_blank_text_is_refused_by_every_tool(store: Memoir, blank: str) -> None:
    """Whitespace-only arguments are refused before anything is read or written."""
    for writer in WRITERS:
        with pytest.raises(MemoirError, match="empty"):
            writer(store, blank)
    assert not store.session_path.exists()
