"""Issue 23 items 4 and 8 on every list pane: History, Audit and Review (and Decisions)
share ``panes/windowed_list.py``: the filter runs off the UI thread, a window of rows is
drawn with a row saying how many more match, any column sorts (a key and a header click),
and ``E`` exports exactly the rows the filtered, sorted list shows.

Each store is written as a file first and the oracle is read back from that file, never
from the app. Nothing here is timed (``bench/bench_features.py --panes`` measures).
Snapshots: ``__snapshots__/test_app_list_panes/`` (``--snapshot-update`` regenerates).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Label

from memoir_tui.app import MemoirApp
from memoir_tui.core.door.audit import AUDIT_FILE, AuditRecord
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.audit import AUDIT_READ, AuditPane
from memoir_tui.panes.history import HistoryPane
from memoir_tui.panes.registry import pane_spec
from memoir_tui.panes.review import ReviewPane
from memoir_tui.panes.windowed_list import LIST_ROWS
from memoir_tui.widgets.item_table import AFTER_KEY, BEFORE_KEY, ItemTable, marker_sentence
from tests.app.helpers import SIZE, open_pane, pressing, settle, type_text

MACHINE = "00000000-0000-4000-8000-000000000001"
TEN_THOUSAND = 10_000
WORDS = ["sync", "cache", "export", "auth", "latency"]
ACTORS = ["app", "cli", "mcp", "hook"]
OPERATIONS = ["note_decision", "hide_decision", "add_goal", "complete_action"]


def stamp(i: int) -> str:
    """Distinct ISO times, later for a larger ``i``."""
    return f"2026-{1 + i // 40000 % 12:02d}-{1 + i // 1440 % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z"


def session(history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "version": 1,
        "machines": {MACHINE: {"label": "m", "last_seen": "2026-06-01T00:00:00.000Z"}},
        "current": {"decisions": []},
        "history": history or [],
    }


def write_history(root: Path, count: int) -> Path:
    """``count`` session summaries; the word ``cache`` in every fifth one's summary."""
    history = [
        {
            "date": stamp(i),
            "machine_id": MACHINE,
            "summary": f"session {i}: {WORDS[i % 5]} work {count - i}",
            "files_touched": [f"src/file{i % 7}.py"] * (i % 4),
            "duration_min": (i * 7) % 90,
        }
        for i in range(count)
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / "session.json").write_text(json.dumps(session(history)), encoding="utf-8")
    return root


def write_audit(root: Path, count: int) -> Path:
    """``count`` audit records, oldest first in the file (as appended)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "session.json").write_text(json.dumps(session()), encoding="utf-8")
    lines = b"".join(
        AuditRecord(
            stamp(i),
            ACTORS[i % 4],
            OPERATIONS[i // 4 % 4],
            "decisions",
            text_hash(f"item {i}"),
            MACHINE,
        ).to_line()
        for i in range(count)
    )
    (root / AUDIT_FILE).write_bytes(lines)
    return root


def write_review(root: Path, waiting: int, rejected: int = 0) -> Path:
    """A queue of ``waiting`` candidates and ``rejected`` rejected ones (the queue keeps up
    to 1,000 waiting and 10,000 rejected); the word ``cache`` in every fifth text."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "session.json").write_text(json.dumps(session()), encoding="utf-8")
    items = []
    for i in range(waiting + rejected):
        text = f"candidate {i}: {WORDS[i % 5]} rule {i % 3}"
        item: dict[str, Any] = {
            "id": text_hash(text),
            "text": text,
            "source": "assistant" if i % 2 else "user",
            "extractor": f"rule-{i % 3}",
            "timestamp": stamp(i),
            "captured_at": stamp(i),
            "machine_id": MACHINE,
            "state": "candidate" if i < waiting else "rejected",
        }
        if i >= waiting:
            item["rejected_at"] = stamp(i)
        items.append(item)
    (root / "review.json").write_text(json.dumps({"version": 1, "items": items}), "utf-8")
    return root


def make(root: Path) -> MemoirApp:
    store = Memoir(root, machine_label="m", actor="app")
    return MemoirApp(store, display_path="store", poll_interval=None)


def marker_text(table: ItemTable, key: str) -> list[str]:
    """The words of a marker row, across its cells."""
    return " ".join(str(c) for c in table.get_row(key)).split()


def count_label(pane: Any) -> str:
    return str(pane.filter_bar.query_one(".filter-bar--count", Label).render())


def column_cells(table: ItemTable, column: str) -> list[str]:
    """The cells of ``column`` in the rows drawn, top to bottom (marker rows left out)."""
    return [str(table.get_cell(key, column)) for key in table.row_keys]


def history_on_disk(root: Path) -> list[dict[str, Any]]:
    """The summaries in ``session.json``, newest first (the pane's own order)."""
    data = json.loads((root / "session.json").read_text(encoding="utf-8"))
    return sorted(data["history"], key=lambda h: h["date"], reverse=True)


def audit_on_disk(root: Path) -> list[dict[str, Any]]:
    """The records in ``audit.jsonl``, newest first (as logged; the app's own lines too)."""
    lines = (root / AUDIT_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in reversed(lines) if line.strip()]


def review_on_disk(root: Path, *, history: bool) -> list[dict[str, Any]]:
    items = json.loads((root / "review.json").read_text(encoding="utf-8"))["items"]
    return [i for i in items if history or i["state"] == "candidate"]


def history_key(h: dict[str, Any]) -> str:
    return text_hash(f"{h['date']}\n{h['machine_id']}\n{h['summary']}")


# --- 10,000 rows: one window drawn, the marker counts the rest -----------------------------


async def assert_one_window(pilot: Any, table: ItemTable, total: int) -> None:
    """A window of ``LIST_ROWS`` rows and a marker row counting the rest; enter on it
    shows the next window, with a marker above it."""
    assert len(table.row_keys) == LIST_ROWS
    assert table.row_count == LIST_ROWS + 1  # the window and the marker, nothing else
    assert table.after == total - LIST_ROWS and table.before == 0
    assert marker_text(table, AFTER_KEY) == marker_sentence(AFTER_KEY, total - LIST_ROWS).split()
    first = list(table.row_keys)
    pilot.app.set_focus(table)
    await pilot.press("G")
    assert table.marker_under_cursor == AFTER_KEY
    await pilot.press("enter")
    await settle(pilot)
    assert table.before == LIST_ROWS and table.after == total - 2 * LIST_ROWS
    assert table.row_count == LIST_ROWS + 2 and not set(first) & set(table.row_keys)
    assert marker_text(table, BEFORE_KEY) == marker_sentence(BEFORE_KEY, LIST_ROWS).split()


async def test_history_at_ten_thousand_draws_one_window(tmp_path: Path) -> None:
    root = write_history(tmp_path / "store", TEN_THOUSAND)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, HistoryPane)
        disk = history_on_disk(root)
        assert pane.table.row_keys == [history_key(h) for h in disk[:LIST_ROWS]]
        assert count_label(pane) == str(len(disk)) == str(TEN_THOUSAND)
        await assert_one_window(pilot, pane.table, TEN_THOUSAND)
        # a filter lands from the worker: still one window, counting what matches on disk
        await pilot.press("slash")
        await type_text(pilot, "cache work")
        await settle(pilot)
        matching = [h for h in disk if "cache work" in h["summary"]]
        assert len(matching) == TEN_THOUSAND // 5
        assert pane.table.row_keys == [history_key(h) for h in matching[:LIST_ROWS]]
        assert pane.table.after == len(matching) - LIST_ROWS
        assert count_label(pane) == f"{len(matching)} of {TEN_THOUSAND}"


async def test_audit_at_ten_thousand_draws_one_window(tmp_path: Path) -> None:
    root = write_audit(tmp_path / "store", TEN_THOUSAND + 50)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        disk = audit_on_disk(root)[:AUDIT_READ]  # the newest AUDIT_READ are read
        assert AUDIT_READ >= TEN_THOUSAND and len(disk) == len(pane.rows) == AUDIT_READ
        assert column_cells(pane.table, "operation") == [r["operation"] for r in disk[:LIST_ROWS]]
        await assert_one_window(pilot, pane.table, AUDIT_READ)
        pane.set_filters(actor="cli")
        await settle(pilot)
        by_cli = [r for r in disk if r["actor"] == "cli"]
        assert set(column_cells(pane.table, "actor")) == {"cli"}
        assert pane.table.after == len(by_cli) - LIST_ROWS
        assert count_label(pane) == str(AUDIT_READ)  # no words typed: the total


async def test_review_at_ten_thousand_draws_one_window(tmp_path: Path) -> None:
    root = write_review(tmp_path / "store", 1000, TEN_THOUSAND - 1000)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        waiting = review_on_disk(root, history=False)
        assert len(waiting) == 1000
        assert pane.table.after == len(waiting) - LIST_ROWS
        await pilot.press("h")  # pinned and rejected too: every item of the queue
        await settle(pilot)
        everything = review_on_disk(root, history=True)
        assert len(everything) == TEN_THOUSAND
        await assert_one_window(pilot, pane.table, TEN_THOUSAND)
        await pilot.press("slash")
        await type_text(pilot, "cache")
        await settle(pilot)
        matching = {i["id"] for i in everything if "cache" in i["text"]}
        assert set(pane.table.row_keys) <= matching
        assert len(pane.table.row_keys) + pane.table.after == len(matching)
        assert count_label(pane) == f"{len(matching)} of {TEN_THOUSAND}"


# --- sort: a key and a header click, read back from the table ------------------------------


async def sort_to(pilot: Any, pane: Any, column: str) -> None:
    """Press ``>`` until the list is sorted by ``column``."""
    pilot.app.set_focus(pane.table)
    for _ in range(len(pane.list_columns()) + 1):
        if pane.sort_column == column:
            return
        await pilot.press("greater_than_sign")
        await settle(pilot)
    raise AssertionError(f"> never reached {column}")


async def click_header(pilot: Any, pane: Any, column: str) -> None:
    table = pane.table
    keys = [c.key.value for c in table.ordered_columns]
    x = sum(c.get_render_width(table) for c in table.ordered_columns[: keys.index(column)])
    await pilot.click(f"#{table.id}", offset=(x + 2, 0))
    await settle(pilot)


async def test_history_sorts_by_a_key_and_a_header_click(tmp_path: Path) -> None:
    root = write_history(tmp_path / "store", 250)
    app = make(root)
    async with app.run_test(size=(130, 30)) as pilot:
        pane = await open_pane(pilot, HistoryPane)
        disk = history_on_disk(root)
        await sort_to(pilot, pane, "summary")
        by_summary = sorted(disk, key=lambda h: h["summary"].casefold())
        assert pane.table.row_keys == [history_key(h) for h in by_summary[:LIST_ROWS]]
        cells = column_cells(pane.table, "summary")
        assert cells == sorted(cells, key=str.casefold)
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert pane.table.row_keys == [history_key(h) for h in by_summary[::-1][:LIST_ROWS]]
        await click_header(pilot, pane, "minutes")  # a header click: shortest first
        assert pane.sort_column == "minutes" and not pane.sort_reverse
        minutes = [int(c) for c in column_cells(pane.table, "minutes")]
        assert minutes == sorted(minutes) and minutes[0] == 0
        await click_header(pilot, pane, "minutes")  # again: longest first
        minutes = [int(c) for c in column_cells(pane.table, "minutes")]
        assert pane.sort_reverse and minutes == sorted(minutes, reverse=True)
        assert "▼" in str(pane.table.columns["minutes"].label)
    assert history_on_disk(root) == disk  # a sort is a view: nothing written


async def test_audit_sorts_every_record_not_only_the_window(tmp_path: Path) -> None:
    root = write_audit(tmp_path / "store", 1000)
    app = make(root)
    async with app.run_test(size=(130, 30)) as pilot:
        pane = await open_pane(pilot, AuditPane)
        disk = audit_on_disk(root)
        await sort_to(pilot, pane, "actor")
        actors = column_cells(pane.table, "actor")
        # stable: every record of the first actor, in the log's order, fills the window
        first = sorted(r["actor"] for r in disk)[0]
        assert actors == [first] * LIST_ROWS
        await pilot.press("less_than_sign")
        await settle(pilot)
        last = sorted(r["actor"] for r in disk)[-1]
        assert column_cells(pane.table, "actor") == [last] * LIST_ROWS
        await click_header(pilot, pane, "operation")
        operations = column_cells(pane.table, "operation")
        assert operations == sorted(operations) and operations[0] == min(OPERATIONS)


async def test_review_sorts_by_a_key_and_a_header_click(tmp_path: Path) -> None:
    root = write_review(tmp_path / "store", 180)
    app = make(root)
    async with app.run_test(size=(130, 30)) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        disk = review_on_disk(root, history=False)
        await sort_to(pilot, pane, "text")
        by_text = sorted(disk, key=lambda i: i["text"].casefold())
        assert pane.table.row_keys == [i["id"] for i in by_text[:LIST_ROWS]]
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert pane.table.row_keys == [i["id"] for i in by_text[::-1][:LIST_ROWS]]
        await click_header(pilot, pane, "rule")
        rules = column_cells(pane.table, "rule")
        assert pane.sort_column == "rule" and rules == sorted(rules)
        assert rules == ["rule-0"] * 60 + ["rule-1"] * 40  # 60 of each rule in 180


# --- export: exactly the filtered, sorted rows, read back from the file --------------------


async def export_to(pilot: Any, path: Path) -> None:
    from memoir_tui.dialogs.export import ExportScreen

    await pilot.press("E")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ExportScreen)
    screen.query_one("#export-name", Input).value = ""
    await type_text(pilot, str(path))
    await pilot.press("enter")
    await settle(pilot)
    assert not isinstance(pilot.app.screen, ExportScreen)


def markdown_rows(path: Path) -> list[list[str]]:
    lines = [line for line in path.read_text().splitlines() if line.startswith("| ")][2:]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]


async def filter_for(pilot: Any, pane: Any, text: str) -> None:
    await pilot.press("slash")
    await type_text(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def test_history_export_writes_exactly_the_filtered_sorted_rows(tmp_path: Path) -> None:
    root = write_history(tmp_path / "store", 600)
    out = tmp_path / "history.json"
    md = tmp_path / "history.md"
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, HistoryPane)
        await filter_for(pilot, pane, "cache")
        await sort_to(pilot, pane, "summary")
        await export_to(pilot, out)
        await export_to(pilot, md)
    matching = [h for h in history_on_disk(root) if "cache" in h["summary"]]
    expected = sorted(matching, key=lambda h: h["summary"].casefold())
    assert len(expected) == 120 > LIST_ROWS  # past the window drawn: every row goes
    data = json.loads(out.read_text())
    assert [r["summary"] for r in data["rows"]] == [h["summary"] for h in expected]
    assert data["note"] == "filter: 'cache' · sorted by summary (ascending)"
    assert [r[1] for r in markdown_rows(md)] == [h["summary"] for h in expected]


async def test_audit_export_writes_exactly_the_filtered_rows(tmp_path: Path) -> None:
    root = write_audit(tmp_path / "store", 2000)
    out = tmp_path / "audit.json"
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        pane.set_filters(operation="hide_decision")
        await settle(pilot)
        await filter_for(pilot, pane, "mcp")
        await export_to(pilot, out)
    expected = [
        r for r in audit_on_disk(root) if r["operation"] == "hide_decision" and r["actor"] == "mcp"
    ]
    assert len(expected) > LIST_ROWS  # past the window drawn: every row goes
    data = json.loads(out.read_text())
    assert [(r["actor"], r["operation"]) for r in data["rows"]] == [("mcp", "hide_decision")] * len(
        expected
    )
    assert data["note"] == "filter: 'mcp' · operation: hide_decision"


async def test_review_export_writes_exactly_the_filtered_rows(tmp_path: Path) -> None:
    root = write_review(tmp_path / "store", 700, 300)
    out = tmp_path / "review.md"
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await filter_for(pilot, pane, "cache")
        await export_to(pilot, out)
    rows = markdown_rows(out)
    expected = [i for i in review_on_disk(root, history=False) if "cache" in i["text"]]
    assert len(expected) == 140 > LIST_ROWS  # past the window drawn: every row goes
    # the queue's own order: newest said first
    expected.sort(key=lambda i: i["timestamp"], reverse=True)
    assert [r[0] for r in rows] == [i["text"] for i in expected]
    assert "Candidate" in out.read_text().splitlines()[4]  # the header row, no mark column
    assert "filter: 'cache'" in out.read_text()


# --- the list's keys mean the same on every pane ------------------------------------------


@pytest.mark.parametrize("pane", ["decisions", "history", "audit", "review"])
def test_sort_and_export_keys_are_the_same_on_every_list_pane(pane: str) -> None:
    cls = pane_spec(pane).load()
    keys = {b.key: b.action for b in cls.BINDINGS if b.id and b.id.split(".")[0] == pane}
    assert keys["greater_than_sign"] == "sort_next"
    assert keys["less_than_sign"] == "sort_reverse"
    assert keys["E"] == "export"
    assert keys["slash"] == "filter"


# --- snapshots of a windowed list ---------------------------------------------------------

SIZES = [(100, 30), (80, 24)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_snapshot_windowed_history(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    app = make(write_history(tmp_path / "store", LIST_ROWS + 37))
    assert snap_compare(app, terminal_size=size, run_before=pressing(pane_spec("history").key, "G"))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_snapshot_windowed_review(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    app = make(write_review(tmp_path / "store", LIST_ROWS + 23))
    assert snap_compare(app, terminal_size=size, run_before=pressing(pane_spec("review").key, "G"))


# --- a search's jump reaches a row past the window ------------------------------------------


async def test_a_jump_to_a_summary_past_the_window_shows_its_window(tmp_path: Path) -> None:
    root = write_history(tmp_path / "store", 250)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, HistoryPane)
        oldest = history_on_disk(root)[-1]
        assert history_key(oldest) not in pane.table.row_keys
        pane.show_item("history", oldest["summary"])
        await settle(pilot)
        assert pane.table.cursor_key == history_key(oldest) and pane.table.before == 200
        assert pane.selected() is not None and pane.selected().summary == oldest["summary"]


async def test_a_jump_to_a_candidate_lands_once_the_queue_is_read(tmp_path: Path) -> None:
    from memoir_tui.core.rules.search import Hit
    from memoir_tui.dialogs.search import go_to_hit

    root = write_review(tmp_path / "store", 250)
    oldest = review_on_disk(root, history=False)[0]  # said first: the last row
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # the Review pane is not built yet: its queue is read after it is shown
        await go_to_hit(app, Hit("review", "", "candidate", oldest["text"], "candidate", None))
        await settle(pilot)
        pane = app.query_one(ReviewPane)
        assert pane.table.cursor_key == oldest["id"] and pane.table.before == 200


async def test_escape_in_review_clears_the_filter_then_the_marks(tmp_path: Path) -> None:
    root = write_review(tmp_path / "store", 30)
    app = make(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await pilot.press("space")  # mark the first row
        await settle(pilot)
        marked = set(pane.marked)
        assert len(marked) == 1
        await filter_for(pilot, pane, "cache")
        assert {
            i["id"] for i in review_on_disk(root, history=False) if "cache" in i["text"]
        } == set(pane.table.row_keys)
        await pilot.press("escape")  # the filter goes, the mark stays (as in Decisions)
        await settle(pilot)
        assert pane.filter_text == "" and pane.marked == marked and len(pane.table.row_keys) == 30
        await pilot.press("escape")  # then the marks
        await settle(pilot)
        assert pane.marked == set()
    assert len(review_on_disk(root, history=False)) == 30  # nothing written
