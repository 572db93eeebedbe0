"""Entry files: frontmatter subset, types, legacy dialects, rewriting, directory merge."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoir_tui.core.format import frontmatter
from memoir_tui.core.format.entry_file import (
    ENTRY_TYPES,
    OPAQUE,
    EntryError,
    parse_entry,
    plan_entry_merge,
    read_entry,
    render_entry,
)
from memoir_tui.core.format.frontmatter import FrontmatterError
from tests.conftest import examples


def write_entry(path, meta, body) -> None:
    """What the store's services write: the rendered bytes (tests bypass the door here)."""
    path.write_bytes(render_entry(path, meta, body))


def entry(text, name="x.md", tmp=None):
    return parse_entry((tmp or __import__("pathlib").Path("/nowhere")) / name, text)


def test_dates_stay_the_strings_written(tmp_path):
    text = (
        "---\ntype: fact\nname: n\ncreated: 2026-04-18\nupdated: 2026-04-18T08:22:36Z\n---\nbody\n"
    )
    e = entry(text)
    assert e.meta["created"] == "2026-04-18"
    assert e.meta["updated"] == "2026-04-18T08:22:36Z"
    path = tmp_path / "fact_x.md"
    write_entry(path, e.meta, e.body)
    assert "created: 2026-04-18\n" in path.read_text()
    assert read_entry(path).meta == e.meta


def test_unknown_keys_kept_in_order_on_rewrite(tmp_path):
    text = "---\nzeta: 1\ntype: decision\nname: n\nalpha: [a, b]\nmid:\n  inner: v\nwhy: because\n---\n# B\n"
    e = entry(text)
    meta = dict(e.meta)
    meta["why"] = "a better reason"
    path = tmp_path / "decision_x.md"
    write_entry(path, meta, e.body)
    again = read_entry(path)
    assert list(again.meta) == ["zeta", "type", "name", "alpha", "mid", "why"]
    assert again.meta["mid"] == {"inner": "v"} and again.meta["alpha"] == ["a", "b"]
    assert again.body == "# B\n"


@pytest.mark.parametrize("entry_type", ENTRY_TYPES)
def test_all_six_types(entry_type):
    e = entry(f"---\ntype: {entry_type}\nname: thing\n---\n")
    assert e.type == entry_type and not e.legacy


@pytest.mark.parametrize(
    ("text", "expected_type", "dialect"),
    [
        ("---\nname: n\nmetadata:\n  type: fact\n---\n", "fact", "metadata.type"),
        ("---\ntype: user\nname: n\n---\n", "preference", "type: user"),
        ("---\ntype: reference\nname: n\n---\n", "fact", "type: reference"),
        ("---\ntype: project\nname: n\n---\n", OPAQUE, "type: project"),
        ("# Just a heading\n\nsome text\n", OPAQUE, "no frontmatter"),
    ],
)
def test_legacy_dialects(text, expected_type, dialect):
    e = entry(text)
    assert e.type == expected_type
    assert dialect in e.dialects and e.legacy


def test_feedback_becomes_lesson_with_trigger_and_how_to_apply():
    text = (
        "---\nname: tests\ndescription: when writing tests\ntype: feedback\noriginSessionId: abc\n---\n"
        "Use real files.\n\n**Why:** mocks lied.\n**How to apply:** never mock the filesystem\n"
    )
    e = entry(text)
    assert e.type == "lesson" and e.legacy
    assert e.trigger == "when writing tests"
    assert e.how_to_apply == "never mock the filesystem"
    assert e.origin["session_id"] == "abc"


def test_nested_origin_session_id():
    e = entry("---\nname: n\nmetadata:\n  type: reference\n  originSessionId: s1\n---\n")
    assert e.origin["session_id"] == "s1" and e.type == "fact"


def test_no_frontmatter_named_by_first_h1():
    assert entry("intro\n# The Title\nbody").name == "The Title"


def test_writer_rejects_what_the_subset_forbids(tmp_path):
    with pytest.raises(FrontmatterError, match="deeper"):
        frontmatter.dump_meta({"origin": {"tool": {"deep": 1}}})
    with pytest.raises(FrontmatterError, match="plain values"):
        frontmatter.dump_meta({"tags": [{"a": 1}]})
    with pytest.raises(FrontmatterError):
        frontmatter.dump_meta({"bad key!": 1})
    with pytest.raises(EntryError, match="slugs"):
        render_entry(tmp_path / "Bad Name.md", {"type": "fact"}, "")


def test_multiline_text_is_written_without_block_scalars():
    text = frontmatter.dump_meta({"why": "line one\nline two", "x": "yes", "y": "a: b", "z": "#c"})
    assert "|" not in text and ">" not in text
    assert frontmatter.parse(f"---\n{text}---\n").meta == {
        "why": "line one\nline two",
        "x": "yes",
        "y": "a: b",
        "z": "#c",
    }


def test_anchors_and_block_scalars_are_read_then_written_in_the_subset(tmp_path):
    text = "---\ntype: fact\nname: &n shared\nalias_of: *n\ndescription: |\n  two\n  lines\n---\n"
    e = entry(text)
    assert e.meta["alias_of"] == "shared"
    path = tmp_path / "fact_a.md"
    write_entry(path, e.meta, e.body)
    written = path.read_text()
    assert "&" not in written and "*n" not in written and "|" not in written
    assert read_entry(path).meta == e.meta


scalars = st.one_of(st.text(max_size=30), st.integers(), st.booleans(), st.none())
metas = st.dictionaries(
    st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
    st.one_of(
        scalars,
        st.lists(st.one_of(st.text(max_size=15), st.integers()), max_size=3),
        st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), scalars, max_size=3),
    ),
    max_size=6,
)


@settings(max_examples=examples(150, soak=3000))
@given(metas, st.text(max_size=80))
def test_writer_round_trips_the_subset(meta, body):
    text = frontmatter.render(meta, body)
    parsed = frontmatter.parse(text)
    if meta:
        assert parsed.meta == meta and parsed.body == body
    else:
        assert text == body


@settings(
    max_examples=examples(150, soak=3000),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(raw=st.binary(max_size=200))
def test_fuzzed_files_never_crash_a_read(tmp_path, raw):
    path = tmp_path / "fuzz.md"
    path.write_bytes(b"---\n" + raw)
    try:
        e = read_entry(path)
    except EntryError as err:
        assert "UTF-8" in str(err)
    else:
        assert e.type in (*ENTRY_TYPES, OPAQUE)
    assert path.read_bytes() == b"---\n" + raw


@given(st.text(max_size=200))
def test_fuzzed_frontmatter_text_never_crashes(text):
    parsed = frontmatter.parse("---\n" + text + "\n---\nbody")
    assert isinstance(parsed.meta, dict)


def test_oversized_file_is_skipped_with_a_note(tmp_path):
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * (1024 * 1024 + 1))
    with pytest.raises(EntryError, match="larger than"):
        read_entry(path)


# --- merging two directories ------------------------------------------------------


def _write(directory, name, text):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(text)


def test_entry_merge_plan(tmp_path):
    local, remote = tmp_path / "local", tmp_path / "remote"
    _write(local, "fact_same.md", "---\ntype: fact\nname: same\n---\nsame\n")
    _write(remote, "fact_same.md", "---\ntype: fact\nname: same\n---\nsame\n")
    _write(remote, "fact_new.md", "---\ntype: fact\nname: new\n---\n")
    _write(local, "fact_edit.md", "---\ntype: fact\nname: e\nupdated: 2026-01-01\n---\nold\n")
    _write(remote, "fact_edit.md", "---\ntype: fact\nname: e\nupdated: 2026-02-01\n---\nnew\n")
    _write(local, "fact_mine.md", "---\ntype: fact\nname: m\nupdated: 2026-03-01\n---\nmine\n")
    _write(remote, "fact_mine.md", "---\ntype: fact\nname: m\nupdated: 2026-02-01\n---\ntheirs\n")
    na = "---\ntype: next_action\nname: a\nadded: 2026-01-01\n{done}---\n"
    _write(local, "next_action_a.md", na.format(done=""))
    _write(remote, "next_action_a.md", na.format(done="done_at: 2026-01-05\n"))
    _write(local, "next_action_b.md", na.format(done="done_at: 2026-01-05\n"))
    _write(remote, "next_action_b.md", na.format(done=""))
    revived = "---\ntype: next_action\nname: c\nadded: 2026-02-01\n---\n"
    _write(local, "next_action_c.md", na.format(done="done_at: 2026-01-05\n"))
    _write(remote, "next_action_c.md", revived)
    before = {p.name: p.read_bytes() for p in local.iterdir()}
    plan = {c.link_name: c.action for c in plan_entry_merge(local, remote)}
    assert plan == {
        "fact_new": "add",
        "fact_edit": "replace",
        "next_action_a": "replace",
        "next_action_c": "replace",
    }
    assert {p.name: p.read_bytes() for p in local.iterdir()} == before  # writes nothing
    assert os.listdir(remote)
