"""The core behind issue 23's features: export formatting and writing, sorting, "since
last session", kept receipts, a memory index's dead lines, a candidate's conversation."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.capture.context import context_around
from memoir_tui.core.door.audit import AuditRecord
from memoir_tui.core.rules.listing import next_column, sort_decisions
from memoir_tui.core.rules.model import Decision
from memoir_tui.core.services.export import (
    ExportError,
    ExportExistsError,
    ExportTable,
    export_table,
    format_for,
    render,
)
from memoir_tui.core.services.memory_index import without_links
from memoir_tui.core.services.receipts import FORGOTTEN, kept_lines, redact
from memoir_tui.core.services.since import boundary, since_last_session

# a GitHub token shape the scanner knows (built, so this file holds none)
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

cells = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


def table_of(rows: list[tuple[str, str]]) -> ExportTable:
    return ExportTable("T", (("a", "A"), ("b", "B")), tuple(rows))


def _md_cells(line: str) -> list[str]:
    """A Markdown table line split on its unescaped pipes, escapes undone."""
    out, cur, esc = [], "", False
    for ch in line.strip()[1:-1]:
        if esc:
            cur += ch
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == "|":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [c.strip() for c in out]


one_line = cells.filter(lambda c: "\n" not in c and "\r" not in c and "<br>" not in c)


@given(st.lists(st.tuples(cells, cells), max_size=8))
def test_markdown_has_one_line_per_row_whatever_the_cells_hold(rows: list[tuple[str, str]]):
    text, _withheld = render(table_of(rows), "markdown")
    lines = [line for line in text.split("\n") if line.startswith("|")]
    assert len(lines) == len(rows) + 2  # header, separator, one per row


@given(st.lists(st.tuples(one_line, one_line), max_size=8))
def test_markdown_cells_read_back_as_written(rows: list[tuple[str, str]]):
    text, withheld = render(table_of(rows), "markdown")
    lines = [line for line in text.split("\n") if line.startswith("|")][2:]
    for line, row in zip(lines, rows, strict=True):
        if withheld:
            break
        assert _md_cells(line) == [c.strip() for c in row]


@given(st.lists(st.tuples(cells, cells), max_size=8))
def test_json_round_trips_the_rows(rows: list[tuple[str, str]]):
    text, withheld = render(table_of(rows), "json")
    data = json.loads(text)
    assert len(data["rows"]) == len(rows)
    if not withheld:
        assert [(r["a"], r["b"]) for r in data["rows"]] == rows


def test_a_row_holding_a_secret_is_withheld_in_both_formats():
    table = table_of([("Use tabs", "style"), (f"deploy key {TOKEN}", "ci")])
    for fmt in ("markdown", "json"):
        text, withheld = render(table, fmt)
        assert withheld == 1 and TOKEN not in text and "withheld" in text and "Use tabs" in text


def test_format_follows_the_name():
    assert format_for("x.JSON") == "json"
    assert format_for("x.md") == format_for("x.txt") == "markdown"


def test_export_refuses_what_is_not_the_persons_own_plain_file(tmp_path: Path):
    table = table_of([("a", "b")])
    mine = tmp_path / "out.md"
    mine.write_text("mine\n")
    with pytest.raises(ExportExistsError):
        export_table(table, str(mine))
    assert mine.read_text() == "mine\n"
    export_table(table, str(mine), overwrite=True)
    assert mine.read_text().startswith("# T")
    os.mkfifo(tmp_path / "fifo.md")
    with pytest.raises(ExportError, match="not a regular file"):
        export_table(table, str(tmp_path / "fifo.md"), overwrite=True)
    store = tmp_path / "store"
    store.mkdir()
    with pytest.raises(ExportError, match="inside the store"):
        export_table(table, str(store / "x.md"), store_root=store)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "rc").write_text("keep\n")
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "out.md").symlink_to(elsewhere / "rc")
    with pytest.raises(ExportError, match="link"):
        export_table(table, str(folder / "out.md"), overwrite=True)
    assert (elsewhere / "rc").read_text() == "keep\n"
    with pytest.raises(ExportError, match="does not exist"):
        export_table(table, str(tmp_path / "nope" / "x.md"))
    result = export_table(table, "rel.json", cwd=tmp_path)
    assert result.path == tmp_path / "rel.json" and result.fmt == "json"
    assert (tmp_path / "rel.json").stat().st_mode & 0o077 == 0


# --- sorting -----------------------------------------------------------------------------


def decision(text: str, date: str, machine: str = "m") -> Decision:
    return Decision(text, text, "", "", date, "id", machine, "")


def test_sort_is_stable_and_reversible():
    ds = [
        decision("b", "2026-01-02T00:00:00Z", "x"),
        decision("a", "2026-01-03T00:00:00Z", "x"),
        decision("C", "2026-01-01T00:00:00Z", "y"),
    ]
    assert [d.text for d in sort_decisions(ds, "text")] == ["a", "b", "C"]
    assert [d.text for d in sort_decisions(ds, "date", reverse=True)] == ["a", "b", "C"]
    assert [d.text for d in sort_decisions(ds, "machine")] == ["b", "a", "C"]  # ties keep order
    assert [d.text for d in sort_decisions(ds, None, reverse=True)] == ["C", "a", "b"]
    assert next_column(None, ["text", "why"]) == "text"
    assert next_column("text", ["text", "why"]) == "why"
    assert next_column("why", ["text", "why"]) is None


# --- since last session --------------------------------------------------------------------


def rec(time: str, operation: str, actor: str = "cli", key: str = "") -> AuditRecord:
    return AuditRecord(time, actor, operation, "decisions" if key else "", key, "m1")


KEY = "a" * 64


def test_since_starts_at_the_last_open_before_this_one():
    records = [  # newest first, as read_audit gives them
        rec("2026-07-02T10:00:00Z", "app_open", "app"),  # this app
        rec("2026-07-02T09:00:00Z", "hide_decision", "mcp", KEY),
        rec("2026-07-02T08:00:00Z", "note_decision", "cli", KEY),
        rec("2026-07-01T10:00:00Z", "app_open", "app"),  # the previous session
        rec("2026-07-01T09:00:00Z", "note_decision", "cli", KEY),
    ]
    report = since_last_session(records, opened_at="2026-07-02T10:00:00Z")
    assert report.since == "2026-07-01T10:00:00Z"
    assert [r.operation for r in report.records] == ["hide_decision", "note_decision"]
    assert dict(report.counts) == {"added": 1, "hidden": 1}
    assert dict(report.by_actor) == {"mcp": 1, "cli": 1}
    # a hook's session start counts as well
    hook = [rec("2026-07-02T09:30:00Z", "session_start", "hook"), *records]
    assert boundary(hook, opened_at="2026-07-02T10:00:00Z")[0] == "2026-07-02T09:30:00Z"


def test_a_pin_is_one_act_though_it_logs_two_lines():
    records = [
        rec("2026-07-02T09:00:00Z", "pin_candidate", "app", KEY),  # one commit, two lines
        rec("2026-07-02T09:00:00Z", "note_decision", "app", KEY),
        rec("2026-07-02T08:00:00Z", "note_decision", "app", "b" * 64),
        rec("2026-07-01T10:00:00Z", "app_open", "app"),
    ]
    report = since_last_session(records, opened_at="2026-07-02T10:00:00Z")
    assert dict(report.counts) == {"added": 2}
    assert dict(report.by_actor) == {"app": 2}


def test_since_falls_back_to_the_last_summary_then_the_whole_log():
    records = [
        rec("2026-07-02T09:00:00Z", "capture_candidate", "capture", KEY),
        rec("2026-07-01T09:00:00Z", "record_session_end"),
        rec("2026-06-30T09:00:00Z", "sync_apply", "sync"),
    ]
    report = since_last_session(records)
    assert report.since == "2026-07-01T09:00:00Z" and "summary" in report.basis
    assert dict(report.counts) == {"captured": 1}
    whole = since_last_session(records[2:])
    assert whole.since == "" and dict(whole.counts) == {"synced": 1}
    assert since_last_session([]).summary == "Nothing changed since then."


# --- receipts ----------------------------------------------------------------------------


@given(st.text(min_size=1, max_size=12).filter(str.strip), st.lists(cells, max_size=5))
def test_a_kept_receipt_never_holds_the_forgotten_text(needle: str, pieces: list[str]):
    lines = [needle.join(pieces), f"removed /x/{needle}.md", f"note: {needle.upper()} stays"]
    kept = "\n".join(kept_lines(lines, needle))
    assert needle.lower() not in kept.lower()


def test_redact_keeps_the_rest():
    assert (
        redact("ship Quill now; quill later", "quill") == f"ship {FORGOTTEN} now; {FORGOTTEN} later"
    )


# --- a memory index's dead lines -------------------------------------------------------------

names = st.from_regex(r"[a-z]{1,6}\.md", fullmatch=True)


@given(st.lists(st.one_of(names, cells.filter(lambda c: "\n" not in c and "\r" not in c))), names)
def test_only_the_lines_linking_the_removed_file_go(entries: list[str], removed: str):
    lines = [f"- [T]({e}) — hook\n" if e.endswith(".md") else e + "\n" for e in entries]
    new, dropped = without_links("".join(lines), removed)
    kept = [line for line in lines if line != f"- [T]({removed}) — hook\n"]
    assert new == "".join(kept) and dropped == len(lines) - len(kept)


# --- a candidate's conversation ----------------------------------------------------------------


def test_the_conversation_is_read_only_inside_the_home(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    outside = tmp_path / "t.jsonl"
    outside.write_text(
        json.dumps({"type": "user", "uuid": "u", "message": {"content": "hello there"}}) + "\n"
    )
    link = home / "t.jsonl"
    link.symlink_to(outside)
    got = context_around(str(link), "u", "hello there", home=home)
    assert not got.lines and "not read" in got.note
    os.mkfifo(home / "fifo.jsonl")
    got = context_around(str(home / "fifo.jsonl"), "u", "x", home=home)  # never blocks
    assert not got.lines and got.note
    secret = home / "s.jsonl"
    secret.write_text(
        json.dumps({"type": "user", "uuid": "u", "message": {"content": f"key {TOKEN}"}}) + "\n"
    )
    got = context_around(str(secret), "u", "", home=home)
    assert TOKEN not in got.lines[0].text and "withheld" in got.lines[0].text


def test_every_face_keeps_the_receipt_of_a_forget(store):
    from memoir_tui.core.services.receipts import RECEIPTS_FILE, read_receipts

    store.note_decision("Ship Quillfeather behind a flag", why="Quillfeather is secret")
    store.note_decision("Use tabs")
    receipt = store.forget.apply("quillfeather", purge=True)  # the CLI's and MCP's call
    assert receipt.changed
    kept = read_receipts(store)
    assert [k.operation for k in kept] == ["forget_everywhere"]
    assert "quillfeather" not in (store.root / RECEIPTS_FILE).read_text().lower()
    assert any("session" in line for line in kept[0].lines)
    store.forget.apply("quillfeather", purge=True, dry_run=True)  # a dry run keeps none
    store.forget.apply("nothing holds this")  # nor a forget that found nothing
    assert len(read_receipts(store)) == 1


@given(
    st.lists(st.tuples(cells, cells), max_size=6),
    st.sets(st.integers(min_value=0, max_value=5)),
    st.sampled_from(["plain", "split", "url"]),
)
def test_the_one_pass_scan_withholds_exactly_the_rows_a_row_by_row_scan_would(
    rows: list[tuple[str, str]], holders: set[int], how: str
):
    from memoir_tui.core.rules.withhold import secret_in
    from memoir_tui.core.services.export import withhold_rows

    rows = list(rows)
    for n in sorted(holders):
        if n < len(rows):
            if how == "split":  # a key split between the two fields
                rows[n] = (rows[n][0] + " " + TOKEN[:14], TOKEN[14:] + " " + rows[n][1])
            elif how == "url":
                rows[n] = (rows[n][0] + " ghp%5F" + TOKEN[4:], rows[n][1])
            else:
                rows[n] = (f"{rows[n][0]} {TOKEN}", rows[n][1])
    out, withheld = withhold_rows(table_of(rows))
    expected = [secret_in(*row) is not None for row in rows]
    assert [o != row for o, row in zip(out, rows, strict=True)] == expected
    assert withheld == sum(expected)
