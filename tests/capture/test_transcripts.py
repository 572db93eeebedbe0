"""Parsing Claude Code transcripts: kinds, incremental reads, order, grouping, human text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoir_tui.core.capture.transcripts import (
    COMPACTION,
    PRIMARY,
    SUBAGENT,
    conversation_messages,
    dag_order,
    human_text,
    is_primary_transcript,
    read_head_records,
    read_new_records,
    transcript_kind,
    walk_transcripts,
)

from .conftest import FIXTURES, SHARED_TRANSCRIPTS, SHOP_SESSION, record, write_jsonl


def test_walker_classifies_every_layout_with_the_one_predicate():
    kinds = {tf.path.relative_to(FIXTURES).as_posix(): tf.kind for tf in walk_transcripts(FIXTURES)}
    assert kinds == {
        f"-home-dev-shop/{SHOP_SESSION}.jsonl": PRIMARY,
        f"-home-dev-shop/{SHOP_SESSION}/subagents/agent-a1b2c3d.jsonl": SUBAGENT,
        "-home-dev-shop/agent-a9f8e7d.jsonl": SUBAGENT,
        "-home-dev-shop/agent-acompact-5e6f7a.jsonl": COMPACTION,
        # an ordinary name, but its first record is a sidechain: caught by content
        "-home-dev-shop/copied-subagent-transcript.jsonl": SUBAGENT,
        # v1 layout: inline sidechains later in a main file do not make it a subagent's
        "-home-dev-legacy/7e3d0a11-0000-4000-8000-000000000002.jsonl": PRIMARY,
    }
    # The walker's verdict is the public predicate's verdict.
    for tf in walk_transcripts(FIXTURES):
        head = read_head_records(tf.path)
        assert is_primary_transcript(tf.path, head, root=FIXTURES) == (tf.kind == PRIMARY)


def test_predicate_path_rules_and_root(tmp_path):
    assert transcript_kind(tmp_path / "agent-x1.jsonl") == SUBAGENT
    assert transcript_kind(tmp_path / "agent-acompact-9f.jsonl") == COMPACTION
    assert transcript_kind(tmp_path / "s" / "subagents" / "workflows" / "r" / "x.jsonl") == SUBAGENT
    # a folder named "subagents" above the walk's root does not count
    root = tmp_path / "subagents" / "projects"
    assert transcript_kind(root / "slug" / "s.jsonl", root=root) == PRIMARY
    assert transcript_kind(tmp_path / "s.jsonl", [{"type": "user", "agentId": "acompact-1"}]) == (
        COMPACTION
    )
    # non-DAG records (summary titles, snapshots) do not decide; the first DAG record does
    head = [{"type": "summary", "summary": "x"}, {"type": "user", "isSidechain": False}]
    assert transcript_kind(tmp_path / "s.jsonl", head) == PRIMARY


@pytest.mark.skipif(not SHARED_TRANSCRIPTS.is_dir(), reason="../shared/transcripts is absent")
def test_real_transcripts_are_classified():
    kinds = {tf.path.name: tf.kind for tf in walk_transcripts(SHARED_TRANSCRIPTS)}
    assert kinds["spotter_subagent_agent-a7be2f0.jsonl"] == SUBAGENT  # by content alone
    assert kinds["ccviewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"] == PRIMARY  # v1 inline
    assert kinds["ccviewer_1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"] == PRIMARY
    assert kinds["spotter_tool_heavy.jsonl"] == PRIMARY


@pytest.mark.skipif(not SHARED_TRANSCRIPTS.is_dir(), reason="../shared/transcripts is absent")
def test_real_transcripts_human_turns_and_grouping():
    path = SHARED_TRANSCRIPTS / "spotter_tool_heavy.jsonl"
    result = read_new_records(path, 0, max_bytes=1 << 24)
    assert result.next_offset == path.stat().st_size and not result.truncated_tail
    messages = conversation_messages(result.records, transcript=str(path))
    users = [m.text for m in messages if m.source == "user"]
    # slash-command wrappers, the caveat (isMeta), tool results and interruptions are gone
    assert users == [
        "start phoenix in background",
        "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
        "websearch xterm.js tmux interactions",
    ]
    # one API response split over several lines is one message
    ids = [m.message_id for m in messages if m.source == "assistant"]
    assert len(ids) == len(set(ids))
    # the v1 file's inline sidechain prose never shows up in the main conversation
    v1 = SHARED_TRANSCRIPTS / "ccviewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    texts = " ".join(
        m.text for m in conversation_messages(read_new_records(v1, 0, max_bytes=1 << 24).records)
    )
    assert "Package.json Analysis Summary" not in texts
    assert "CLAUDE.md" in texts
    # and a subagent file has no main-conversation records at all (defence in depth)
    sub = SHARED_TRANSCRIPTS / "spotter_subagent_agent-a7be2f0.jsonl"
    assert conversation_messages(read_new_records(sub, 0, max_bytes=1 << 24).records) == []


def test_messages_follow_parent_uuid_group_by_message_id_and_keep_the_newest_edit():
    path = FIXTURES / "-home-dev-shop" / f"{SHOP_SESSION}.jsonl"
    records = read_new_records(path, 0, max_bytes=1 << 20).records
    messages = conversation_messages(records, transcript=str(path))
    grouped = [m for m in messages if m.message_id == "msg_01CCCC"]
    assert len(grouped) == 1
    # the file holds part 2 before part 1; parentUuid order puts part 1 first
    assert grouped[0].text == (
        "Understood: the linter runs before every commit from now on.\n\n"
        "Renamed the `users` table to `accounts` as agreed."
    )
    assert grouped[0].uuid == "a-0005"
    users = [m.text for m in messages if m.source == "user"]
    assert "We decided to use DuckDB for analytics." in users
    assert not any("MySQL" in u for u in users)  # the edited-away turn
    assert not any("Kafka" in m.text for m in messages)  # isCompactSummary
    assert not any("MongoDB" in m.text for m in messages)  # tool result
    assert not any("Cobol" in m.text for m in messages)  # <system-reminder>
    assert "From now on, run the linter before every commit." in users
    assert all(m.session_id == SHOP_SESSION and m.cwd == "/home/dev/shop" for m in messages)


def test_dag_order_places_children_after_parents_and_survives_cycles():
    a = {"uuid": "a", "parentUuid": None}
    b = {"uuid": "b", "parentUuid": "a"}
    c = {"uuid": "c", "parentUuid": "b"}
    assert [r["uuid"] for r in dag_order([c, b, a])] == ["a", "b", "c"]
    x = {"uuid": "x", "parentUuid": "y"}
    y = {"uuid": "y", "parentUuid": "x"}
    assert {r["uuid"] for r in dag_order([x, y, a])} <= {"a", "x", "y"}


def test_human_text_refuses_tool_results_meta_and_wrappers():
    block = [{"type": "tool_result", "tool_use_id": "t", "content": "we'll use X"}]
    assert human_text(record("1", None, "user", block)) is None
    mixed = [*block, {"type": "text", "text": "Remember that the key is X."}]
    assert human_text(record("1", None, "user", mixed)) is None
    assert human_text(record("1", None, "user", "hi there", toolUseResult={"x": 1})) is None
    assert human_text(record("1", None, "user", "hi there", isMeta=True)) is None
    assert human_text(record("1", None, "user", "hi", isSidechain=True)) is None
    assert human_text(record("1", None, "user", "hi", agentId="a1")) is None
    wrapped = "<command-name>/x</command-name><command-args>we'll use Y</command-args>"
    assert human_text(record("1", None, "user", wrapped)) is None
    cut = "keep this<system-reminder>we'll use Z"  # unterminated envelope: cut to the end
    assert human_text(record("1", None, "user", cut)) == "keep this"
    assert (
        human_text(record("1", None, "user", "[Request interrupted by user for tool use]")) is None
    )


def test_truncated_last_line_is_not_consumed_until_complete(tmp_path):
    path = tmp_path / "s.jsonl"
    first = json.dumps(record("1", None, "user", "one")) + "\n"
    second = json.dumps(record("2", "1", "user", "two")) + "\n"
    path.write_text(first + second[:25])
    r1 = read_new_records(path, 0, max_bytes=1 << 20)
    assert [r["uuid"] for r in r1.records] == ["1"]
    assert r1.truncated_tail and r1.next_offset == len(first)
    path.write_text(first + second)
    r2 = read_new_records(path, r1.next_offset, max_bytes=1 << 20)
    assert [r["uuid"] for r in r2.records] == ["2"] and not r2.truncated_tail
    assert r2.next_offset == len(first) + len(second)


def test_complete_last_line_without_newline_and_bad_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    good = json.dumps(record("1", None, "user", "one"))
    path.write_text("not json\n[1, 2]\n" + good)
    r = read_new_records(path, 0, max_bytes=1 << 20)
    assert [x["uuid"] for x in r.records] == ["1"] and r.bad_lines == 2
    assert r.next_offset == path.stat().st_size and not r.truncated_tail


def test_reads_are_bounded_but_a_huge_line_still_advances(tmp_path):
    path = tmp_path / "s.jsonl"
    write_jsonl(path, [record(str(i), None, "user", "x" * 100) for i in range(10)])
    r = read_new_records(path, 0, max_bytes=500)
    assert 0 < len(r.records) < 10 and not r.truncated_tail
    big = tmp_path / "big.jsonl"
    write_jsonl(big, [record("1", None, "user", "y" * 5000), record("2", "1", "user", "z")])
    r = read_new_records(big, 0, max_bytes=100)
    assert [x["uuid"] for x in r.records] == ["1"]
    assert r.next_offset > 5000


def test_walker_does_not_follow_symlinks_and_ignores_other_files(tmp_path):
    root = tmp_path / "projects"
    (root / "slug" / "memory").mkdir(parents=True)
    (root / "slug" / "memory" / "MEMORY.md").write_text("# memory\n")
    write_jsonl(root / "slug" / "s.jsonl", [record("1", None, "user", "hello")])
    outside = tmp_path / "outside.jsonl"
    write_jsonl(outside, [record("1", None, "user", "hello")])
    (root / "slug" / "link.jsonl").symlink_to(outside)
    found = [tf.path.name for tf in walk_transcripts(root)]
    assert found == ["s.jsonl"]
    assert list(walk_transcripts(tmp_path / "missing")) == []


def test_read_head_records_skips_the_partial_piece(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": "1"}) + "\n" + '{"type": "us')
    assert read_head_records(path) == [{"type": "user", "uuid": "1"}]
    assert read_head_records(Path(tmp_path / "nope.jsonl")) == []
