"""Issue 23 item 8, the features people reach for: sort, mark and hide many, one search
across every pane, export of a filtered list, "since last session", kept receipts, the
conversation around a captured candidate.

Each act is checked on disk after it (``session.json``, the exported file). The
snapshots of the new views are in ``__snapshots__/test_app_features/`` (regenerate with
``.venv/bin/python -m pytest -n0 tests/app/test_app_features.py --snapshot-update``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.app import MemoirApp
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.export import ExportScreen
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.review import ReviewPane
from tests.app.helpers import (
    SIZE,
    decision_on_disk,
    make_app,
    messages,
    on_disk,
    open_pane,
    pressing,
    select_text,
    settle,
    type_text,
)
from tests.app.tmux import Tmux, exit_code, needs_tmux, start_app

SIZES = [(100, 30), (80, 24)]
size_ids = [f"{w}x{h}" for w, h in SIZES]
PIPX = "Ship the CLI through pipx, not as a PyInstaller binary"
SQLITE = "Use SQLite in WAL mode for the CLI's local cache"
TAILWIND = "Style the web app with Tailwind"


def live_texts(store: Memoir) -> set[str]:
    return {
        d["text"]
        for d in on_disk(store)["current"]["decisions"]
        if not d.get("hidden") and d["text"] != "[purged]"
    }


# --- sort -----------------------------------------------------------------------------


async def test_sort_by_a_key_and_by_a_header_click(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        stored = list(pane.table.row_keys)
        by_text = sorted(app.state.all_decisions, key=lambda d: d.text.casefold())
        await pilot.press("greater_than_sign")  # the first column: the decision's text
        await settle(pilot)
        assert pane.sort_column == "text"
        assert pane.table.row_keys == [d.key for d in by_text]
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert pane.table.row_keys == [d.key for d in reversed(by_text)]
        # the header says which column and which way
        assert "▼" in str(pane.table.columns["text"].label)
        # a click on the Date header sorts by date, oldest first; again: newest first
        await pilot.click("#decisions-table", offset=(_column_x(pane, "date") + 2, 0))
        await settle(pilot)
        assert pane.sort_column == "date" and not pane.sort_reverse
        dates = [app.state.all_decisions[stored.index(k)].date for k in pane.table.row_keys]
        assert dates == sorted(dates)
        # the export follows the order shown
        assert pane.matches is not None
        assert [d.key for d in pane.matches.rows] == pane.table.row_keys
    # sorting is a view: nothing written
    assert demo_store.session_path.read_bytes() == before


def _column_x(pane: DecisionsPane, key: str) -> int:
    x = 0
    for column in pane.table.ordered_columns:
        if column.key.value == key:
            return x
        x += column.get_render_width(pane.table)
    raise AssertionError(key)


# --- mark and hide many ---------------------------------------------------------------


async def test_space_marks_and_d_hides_the_marked_after_a_typed_count(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        for text in (PIPX, SQLITE):
            await select_text(pilot, pane, text)
            await pilot.press("space")
            await settle(pilot)
        assert pane.marked == {text_hash(PIPX), text_hash(SQLITE)}
        # marking never acts
        assert {PIPX, SQLITE} <= live_texts(demo_store)
        # marks outlive a filter that hides one of them
        await pilot.press("slash")
        await type_text(pilot, "pipx")
        await pilot.press("enter")
        await settle(pilot)
        assert pane.table.row_keys == [text_hash(PIPX)]
        assert pane.marked == {text_hash(PIPX), text_hash(SQLITE)}
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        await type_text(pilot, "3")  # the wrong count is refused
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        assert {PIPX, SQLITE} <= live_texts(demo_store)
        app.focused.value = ""  # type: ignore[union-attr]
        await type_text(pilot, "2")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        assert pane.marked == set()
    live = live_texts(demo_store)
    assert PIPX not in live and SQLITE not in live and TAILWIND in live
    for text in (PIPX, SQLITE):
        saved = decision_on_disk(demo_store, text)
        assert saved["hidden"] is True
    ops = [
        json.loads(line)["operation"]
        for line in (demo_store.root / "audit.jsonl").read_text().splitlines()
    ]
    assert ops.count("hide_decision") == 2


async def test_escape_clears_the_marks_and_hides_nothing(demo_store: Memoir) -> None:
    before = demo_store.session_path.read_bytes()
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("space", "escape")
        await settle(pilot)
        assert pane.marked == set()
        await select_text(pilot, pane, PIPX)
        await pilot.press("d")  # no marks: the one row, with its own yes/no dialog
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot)
    assert demo_store.session_path.read_bytes() == before


# --- export ---------------------------------------------------------------------------


async def export_to(pilot: Any, app: MemoirApp, path: Path) -> None:
    await pilot.press("E")
    await settle(pilot)
    assert isinstance(app.screen, ExportScreen)
    app.focused.value = ""  # type: ignore[union-attr]
    await type_text(pilot, str(path))
    await pilot.press("enter")
    await settle(pilot)


async def test_export_writes_exactly_the_filtered_rows(demo_store: Memoir, tmp_path: Path) -> None:
    app = make_app(demo_store)
    md = tmp_path / "out" / "cli.md"
    md.parent.mkdir()
    js = tmp_path / "out" / "cli.json"
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")
        await type_text(pilot, "cli")
        await pilot.press("enter")
        await settle(pilot)
        shown = [pane._by_key[k] for k in pane.table.row_keys]
        assert 1 < len(shown) < 12
        await export_to(pilot, app, md)
        assert app.screen is app.screen_stack[0]
        await export_to(pilot, app, js)
    text = md.read_text()
    table_rows = [line for line in text.splitlines() if line.startswith("| ")][2:]
    assert len(table_rows) == len(shown)
    for row, decision in zip(table_rows, shown, strict=True):
        assert row.startswith("| " + decision.text + " |")
    assert "filter: 'cli'" in text
    data = json.loads(js.read_text())
    assert [r["text"] for r in data["rows"]] == [d.text for d in shown]
    assert data["rows"][0]["why"] == shown[0].why


async def test_export_asks_before_replacing_and_refuses_a_link_out(
    demo_store: Memoir, tmp_path: Path
) -> None:
    mine = tmp_path / "mine.md"
    mine.write_text("my own notes\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = outside / "rc"
    target.write_text("keep me\n")
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "link.md").symlink_to(target)
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await export_to(pilot, app, mine)
        assert isinstance(app.screen, ConfirmScreen)  # asks first
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        assert mine.read_text() == "my own notes\n"
        await pilot.press("escape")
        await settle(pilot)
        await export_to(pilot, app, folder / "link.md")
        assert isinstance(app.screen, ExportScreen)  # refused inside the dialog
        error = str(app.screen.query_one("#export-error").render())
        assert "link" in error
        await pilot.press("escape")
        await settle(pilot)
        await export_to(pilot, app, mine)
        await pilot.press("y")  # replace it
        await settle(pilot)
    assert target.read_text() == "keep me\n"
    assert mine.read_text().startswith("# Decisions")


# --- snapshots ------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_export_dialog(snap_compare: Any, demo_store: Memoir, size: tuple[int, int]) -> None:
    app = make_app(demo_store)
    assert snap_compare(app, terminal_size=size, run_before=pressing("2", "E"))


# --- one search across every pane ----------------------------------------------------


async def test_search_lists_matches_from_every_pane_and_jumps_to_the_row(
    demo_store: Memoir,
) -> None:
    from memoir_tui.dialogs.search import SearchScreen
    from memoir_tui.panes.working_set import WorkingSetPane

    demo_store.review.enqueue(
        [{"text": "Adopt pipx for the docs tooling", "source": "user", "extractor": "test"}]
    )
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        await type_text(pilot, "pipx")
        await settle(pilot)
        found = app.screen.found
        assert {h.pane_id for h in found.hits} == {"decisions", "review", "history"}
        assert [h.text for h in found.hits if h.pane_id == "decisions"] == [PIPX]
        # into the results, onto the decision, enter: the Decisions pane, its row
        await pilot.press("down")
        await settle(pilot)
        table = app.screen.table
        row = next(n for n, h in enumerate(found.hits) if h.pane_id == "decisions")
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        pane = app.query_one(DecisionsPane)
        assert app.current_pane() is pane
        assert pane.table.cursor_key == text_hash(PIPX)
        assert app.focused is pane.table
        # a next action, in the working set's own list
        await pilot.press("ctrl+f")
        await settle(pilot)
        await type_text(pilot, "alembic migration updated_at")
        await settle(pilot)
        hits = app.screen.found.hits
        assert [h.kind for h in hits] == ["next action"]
        await pilot.press("enter", "enter")
        await settle(pilot)
        ws = app.query_one(WorkingSetPane)
        assert app.current_pane() is ws
        assert ws.table("next-actions").cursor_key == hits[0].text.lower()
        # a candidate: the Review pane, first shown now, reads its queue, then the row
        await pilot.press("ctrl+f")
        await settle(pilot)
        await type_text(pilot, "docs tooling")
        await settle(pilot)
        assert [h.kind for h in app.screen.found.hits] == ["candidate"]
        await pilot.press("enter", "enter")
        await settle(pilot)
        review = app.query_one(ReviewPane)
        assert app.current_pane() is review
        assert review.table.cursor_key == text_hash("Adopt pipx for the docs tooling")


# --- since last session --------------------------------------------------------------


async def test_since_last_session_lists_what_changed_after_the_last_open(
    demo_store: Memoir,
) -> None:
    from memoir_tui.core.services.since import record_open
    from memoir_tui.dialogs.since import SinceScreen

    demo_store.note_decision("Before the last session")
    record_open(demo_store)  # the previous session opened here
    demo_store.note_decision("Noted from the CLI since")
    demo_store.hide_decision(text_hash(TAILWIND))
    cli = Memoir(demo_store.root, clock=demo_store.clock, actor="mcp")
    cli.add_next_action("Asked by an agent since")
    # what a sync brought from home-desktop (the audit logs one line for a whole pull)
    data = on_disk(demo_store)
    data["current"]["decisions"].insert(
        0,
        {
            "text": "Written on the desktop after the last session",
            "machine_id": "a91d7e44-2c0b-4f8a-8e36-5b7f1d9c0a62",
            "date": "2026-07-01T12:00:00.000Z",
        },
    )
    demo_store.session_path.write_text(json.dumps(data))
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        assert isinstance(app.screen, SinceScreen)
        view = app.screen.view
        assert view is not None and view.report is not None
        assert view.report.basis.startswith("since the app was opened last")
        items = [r.item for r in view.rows]
        assert "Noted from the CLI since" in items and "Asked by an agent since" in items
        assert "Before the last session" not in items
        assert [(a.text, a.machine_label) for a in view.arrived] == [
            ("Written on the desktop after the last session", "home-desktop")
        ]
        assert dict(view.report.counts) == {"added": 2, "hidden": 1}
        assert dict(view.report.by_actor) == {"app": 2, "mcp": 1}
        text = str(app.screen.query_one("#since-summary").render())
        assert "2 added · 1 hidden" in text
        assert "1 item arrived by sync from other machines: home-desktop 1" in text
        # enter on a row goes to the item in its pane
        row = next(r for r in view.rows if r.item == "Noted from the CLI since")
        table = app.screen.query_one("#since-table")
        table.move_to_key(row.key)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        pane = app.query_one(DecisionsPane)
        assert app.current_pane() is pane
        assert pane.table.cursor_key == text_hash("Noted from the CLI since")


def _since_store(store: Memoir) -> Memoir:
    from memoir_tui.core.services.since import record_open

    record_open(store)
    store.note_decision("Noted since the last session")
    store.hide_decision(text_hash(TAILWIND))
    return store


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_since_view(snap_compare: Any, demo_store: Memoir, size: tuple[int, int]) -> None:
    app = make_app(_since_store(demo_store))
    assert snap_compare(app, terminal_size=size, run_before=pressing("W"))


async def test_search_keeps_to_the_scope_the_header_names(store_dir: Path) -> None:
    """Inside a project, candidates of another project are not found until A shows all."""
    from memoir_tui.dialogs.search import SearchScreen

    here, there = "git:" + "a" * 32, "git:" + "b" * 32
    for project in (here, there):
        Memoir(store_dir).review.enqueue(
            [
                {
                    "text": f"Adopt pipx in {project[4:8]}",
                    "source": "user",
                    "extractor": "test",
                    "project": project,
                }
            ]
        )
    store = Memoir(store_dir, actor="app", project=here, project_label="alpha")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for shown_all, expected in ((False, {"Adopt pipx in aaaa"}), (True, None)):
            if shown_all:
                await pilot.press("A")
                await settle(pilot)
            await pilot.press("ctrl+f")
            await settle(pilot)
            assert isinstance(app.screen, SearchScreen)
            await type_text(pilot, "pipx")
            await settle(pilot)
            found = {h.text for h in app.screen.found.hits if h.pane_id == "review"}
            assert found == (expected or {"Adopt pipx in aaaa", "Adopt pipx in bbbb"})
            await pilot.press("escape")
            await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_search_view(snap_compare: Any, demo_store: Memoir, size: tuple[int, int]) -> None:
    async def search_cli(pilot: Any) -> None:
        await type_text(pilot, "cli")

    app = make_app(demo_store)
    assert snap_compare(app, terminal_size=size, run_before=pressing("ctrl+f", search_cli))


# --- receipts, and MEMORY.md's dead line --------------------------------------------------

CODENAME = "Quillfeather"


async def test_forget_removes_the_memory_file_its_index_line_and_keeps_a_receipt(
    store_dir: Path, tmp_path: Path
) -> None:
    import os

    from memoir_tui.core.hosts.adapters.guard import claude_slug
    from memoir_tui.core.services.receipts import RECEIPTS_FILE
    from memoir_tui.dialogs.receipts import ReceiptsScreen
    from memoir_tui.panes.audit import AuditPane

    project = tmp_path / "proj"
    project.mkdir()
    (store_dir / "memoir-tui.toml").write_text(f'[recall]\nproject_roots = ["{project}"]\n')
    home = Path(os.environ["HOME"])
    memory = home / ".claude" / "projects" / claude_slug(str(project)) / "memory"
    memory.mkdir(parents=True)
    (memory / "launch.md").write_text(
        f"---\nname: launch\ndescription: launch notes\n---\nThe {CODENAME} launch is in May.\n"
    )
    index = memory / "MEMORY.md"
    index.write_text("- [Launch](launch.md) — launch notes\n- [Style](style.md) — tabs\n")
    (memory / "style.md").write_text("Use tabs.\n")
    store = Memoir(store_dir, machine_label="test-machine", actor="app")
    store.note_decision(f"Ship {CODENAME} behind a flag")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")
        await type_text(pilot, CODENAME.lower())
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        await type_text(pilot, "forget")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]
        toast = messages(app)[-1]
        assert "nowhere else" not in toast and "receipt" in toast
        # the receipt, in full, in the Audit pane
        await open_pane(pilot, AuditPane)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReceiptsScreen)
        body = str(app.screen.query_one("#receipt-body").render())
        assert "MEMORY.md" in body and "launch.md" in body
        assert CODENAME.lower() not in body.lower()
    assert not (memory / "launch.md").exists()
    assert index.read_text() == "- [Style](style.md) — tabs\n"
    kept = (store_dir / RECEIPTS_FILE).read_text()
    assert CODENAME.lower() not in kept.lower() and "MEMORY.md" in kept


async def test_purge_keeps_a_receipt_listed_in_audit(demo_store: Memoir) -> None:
    from memoir_tui.core.services.receipts import read_receipts
    from memoir_tui.dialogs.receipts import ReceiptsScreen
    from memoir_tui.panes.audit import AuditPane

    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await select_text(pilot, pane, PIPX)
        await pilot.press("D")
        await settle(pilot)
        await type_text(pilot, "purge")
        await pilot.press("enter")
        await settle(pilot)
        await open_pane(pilot, AuditPane)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReceiptsScreen)
        assert [r.operation for r in app.screen.receipts] == ["purge_decision"]
        body = str(app.screen.query_one("#receipt-body").render())
        assert text_hash(PIPX)[:12] in body and "PyInstaller" not in body
    assert [r.title for r in read_receipts(demo_store)] == [
        f"purge decision {text_hash(PIPX)[:12]}…"
    ]


# --- the conversation around a captured candidate -----------------------------------------


def _record(kind: str, uuid: str, parent: str | None, text: str) -> str:
    content: Any = text if kind == "user" else [{"type": "text", "text": text}]
    return json.dumps(
        {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s1",
            "timestamp": "2026-06-30T10:00:00.000Z",
            "message": {"role": kind, "content": content, "id": f"m-{uuid}"},
        }
    )


async def test_candidate_detail_shows_the_transcript_lines_around_it(demo_store: Memoir) -> None:
    import os

    from memoir_tui.dialogs.candidate import CandidateDetailScreen

    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / "-work-app"
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "s1.jsonl"
    turns = [
        ("user", "u1", None, "How should we ship the docs?"),
        ("assistant", "a1", "u1", "GitBook or MkDocs both work."),
        ("user", "u2", "a1", "Let's go with MkDocs for the docs site, not GitBook."),
        ("assistant", "a2", "u2", "Noted: MkDocs it is."),
        ("user", "u3", "a2", "Now the changelog."),
        ("assistant", "a3", "u3", "Far later reply, out of the window."),
    ]
    transcript.write_text("\n".join(_record(*t) for t in turns) + "\n")
    candidate = "Let's go with MkDocs for the docs site, not GitBook."
    demo_store.review.enqueue(
        [
            {
                "text": candidate,
                "source": "user",
                "extractor": "test",
                "transcript": str(transcript),
                "message_uuid": "u2",
            }
        ]
    )
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await select_text(pilot, pane, candidate)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CandidateDetailScreen)
        shown = str(app.screen.query_one("#candidate-context").render())
    lines = shown.splitlines()
    assert lines[0].endswith("How should we ship the docs?")
    assert "▶ you: " + candidate in lines
    assert "Far later reply" not in shown
    assert len(lines) == 5  # two before, the candidate, two after


async def test_candidate_detail_says_when_the_transcript_is_gone(demo_store: Memoir) -> None:
    from memoir_tui.dialogs.candidate import CandidateDetailScreen

    demo_store.review.enqueue(
        [
            {
                "text": "Use uv for the builds",
                "source": "user",
                "extractor": "test",
                "transcript": "/nonexistent/s.jsonl",
                "message_uuid": "x",
            }
        ]
    )
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await select_text(pilot, pane, "Use uv for the builds")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CandidateDetailScreen)
        shown = str(app.screen.query_one("#candidate-context").render())
    assert "not read" in shown or "gone" in shown


async def test_audit_export_writes_the_records_the_filters_show(
    demo_store: Memoir, tmp_path: Path
) -> None:
    from memoir_tui.panes.audit import AuditPane

    demo_store.note_decision("Noted for the audit export")
    demo_store.hide_decision(text_hash(TAILWIND))
    out = tmp_path / "audit.json"
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        pane.set_filters(operation="hide_decision")
        await settle(pilot)
        matching = pane.matching_rows()
        assert [r.record.operation for r in matching] == ["hide_decision"]
        await export_to(pilot, app, out)
    data = json.loads(out.read_text())
    assert [r["operation"] for r in data["rows"]] == ["hide_decision"]
    assert data["note"] == "operation: hide_decision"


def test_receipts_view(snap_compare: Any, demo_store: Memoir) -> None:
    from memoir_tui.core.services.receipts import purge_decision_kept

    purge_decision_kept(demo_store.working, text_hash(PIPX))
    app = make_app(demo_store)
    assert snap_compare(app, terminal_size=(100, 30), run_before=pressing("9", "R"))


async def test_audit_sorts_by_a_key_and_a_header_click(demo_store: Memoir) -> None:
    from memoir_tui.panes.audit import AuditPane

    demo_store.note_decision("Zebra crossing first")
    demo_store.note_decision("Aardvark second")
    cli = Memoir(demo_store.root, clock=demo_store.clock, actor="cli")
    cli.note_decision("Middle by the CLI")
    app = make_app(demo_store)
    async with app.run_test(size=(130, 30)) as pilot:
        pane = await open_pane(pilot, AuditPane)
        newest_first = [r.key for r in pane.matching_rows()]
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert pane.table.row_keys == newest_first[::-1]
        await pilot.press("less_than_sign", "greater_than_sign", "greater_than_sign")
        await settle(pilot)  # time, then actor
        assert pane.sort_column == "actor"
        actors = [r.record.actor for r in pane.matching_rows()]
        assert actors == sorted(actors) and pane.table.row_keys == [
            r.key for r in pane.matching_rows()
        ]
        x = sum(
            c.get_render_width(pane.table)
            for c in pane.table.ordered_columns[
                : [c.key.value for c in pane.table.ordered_columns].index("item")
            ]
        )
        await pilot.click("#audit-table", offset=(x + 2, 0))
        await settle(pilot)
        assert pane.sort_column == "item"
        items = [r.item.casefold() for r in pane.matching_rows()]
        assert items == sorted(items)


async def test_search_finds_memory_files_once_entries_is_read(demo_store: Memoir) -> None:
    from memoir_tui.dialogs.search import SearchScreen
    from memoir_tui.panes.entries import EntriesPane

    (demo_store.memory_dir / "fact_zebra-crossings.md").write_text(
        "---\ntype: fact\nname: Zebra crossings\ndescription: where the office is\n"
        "created: 2026-03-02\nupdated: 2026-05-10\nscope: global\n---\nNear the park.\n"
    )
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        entries = await open_pane(pilot, EntriesPane)
        listed = entries.visible_entries()
        wanted = next(e for e in listed if e.key != entries.table.cursor_key)
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        await type_text(pilot, wanted.name)
        await settle(pilot)
        hits = [h for h in app.screen.found.hits if h.pane_id == "entries"]
        assert [h.ref for h in hits] == [wanted]
        table = app.screen.table
        await pilot.press("down")
        table.move_cursor(row=app.screen.found.hits.index(hits[0]))
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_pane() is entries
        assert entries.table.cursor_key == hits[0].ref.key


async def test_the_app_logs_its_open_unless_the_store_is_read_only(demo_store: Memoir) -> None:
    from memoir_tui.core.door.audit import read_audit

    app = make_app(demo_store)
    app.log_open = True
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert [r.operation for r in read_audit(demo_store.root)] == ["app_open"]
    first_open = read_audit(demo_store.root)[0].time
    # the next app: its own open is not "the last session"; the first one's is
    from memoir_tui.dialogs.since import SinceScreen

    demo_store.note_decision("Noted between the two sessions")
    app = make_app(demo_store)
    app.log_open = True
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        assert isinstance(app.screen, SinceScreen) and app.screen.view is not None
        report = app.screen.view.report
        assert report is not None and report.since == first_open
        assert [r.item for r in app.screen.view.rows] == ["Noted between the two sessions"]
    data = on_disk(demo_store)
    data["version"] = 99  # a newer memoir's store: read-only, nothing of ours is written
    demo_store.session_path.write_text(json.dumps(data))
    before = read_audit(demo_store.root)
    app = make_app(demo_store)
    app.log_open = True
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
    assert read_audit(demo_store.root) == before


# --- in a real terminal --------------------------------------------------------------------


@needs_tmux
def test_in_a_real_terminal_marked_rows_hide_at_once_and_the_open_is_logged(
    tmux: Tmux, tmp_path: Path
) -> None:
    import os
    import subprocess

    from memoir_tui.core.door.audit import read_audit

    home = Path(os.environ["HOME"])
    project = home / "code" / f"alpha-{tmp_path.name}"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    root = tmp_path / "store"
    here = Memoir.for_directory(root, actor="cli", cwd=project)
    for text in ("Keep this one", "Hide the second", "Hide the first"):
        here.note_decision(text)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    status = start_app(tmux, ["--store", str(root)], tmpdir=tmpdir, cwd=project)
    tmux.wait_for_text("Next actions")
    tmux.wait_until_reading_keys()  # keys sent before that would be echoed, not read
    # newest first: the two at the top marked in one burst, then d; the typed count once
    # the dialog shows (a key typed as a dialog opens is item 5's, not this test's)
    tmux.keys("2")
    tmux.wait_for_text("filter decisions")
    tmux.keys("Space", "Space", "d")
    tmux.wait_for_text("Hide 2 marked decisions for ever?")
    tmux.keys("2", "Enter")
    # On disk, not the toast: a toast goes when its time is up, whoever looked.
    tmux.wait_for(lambda s: len(hidden_in(root)) == 2, "the bulk hide on disk")
    tmux.keys("W")
    tmux.wait_for_text("Since last session", "2 hidden")
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "Since last session" not in s, "escape to close it")
    tmux.keys("q")
    assert exit_code(status, tmux) == 0, tmux.screen()
    assert hidden_in(root) == {"Hide the first", "Hide the second"}
    assert "app_open" in [r.operation for r in read_audit(root)]


def hidden_in(root: Path) -> set[str]:
    """The texts of the hidden decisions in ``root``'s session file."""
    current = json.loads((root / "session.json").read_text())["current"]
    return {d["text"] for d in current["decisions"] if d.get("hidden")}


async def test_slash_searches_everything_where_a_pane_has_no_filter(demo_store: Memoir) -> None:
    from memoir_tui.dialogs.search import SearchScreen

    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)  # the working set: no filter of its own
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("escape")
        await settle(pilot)
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")  # here it is the list's filter
        await settle(pilot)
        assert app.screen is app.screen_stack[0] and app.focused is pane.filter_bar.query_one(
            "Input"
        )
