"""Pilot tests for the Audit pane: newest first, filters, resolved text, forgotten items.

The log is written by real ``Memoir`` mutations from several faces (actors) on
one store and one clock; the pane must list them newest first, resolve each
identity hash to the item's current text, and never show a forgotten text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.demo import DEMO_MACHINE_LABEL
from memoir_tui.core.door.audit import AuditRecord, append_audit
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.help import own_bindings
from memoir_tui.panes.audit import FORGOTTEN, GONE, NO_ITEM, AuditPane, AuditRow
from memoir_tui.panes.registry import pane_spec
from tests.app.helpers import (
    DEMO_MACHINE_ID,
    SIZE,
    demo_store_in,
    make_app,
    open_pane,
    pressing,
    settle,
    type_text,
)

CHANGELOG = "Write the changelog for 0.9"
RENOVATE = "Adopt Renovate for dependency updates"
ONCALL = "Who owns the on-call rota?"
SECRET_PLAN = "Move the docs to the Falcon wiki"  # hidden: must never be shown
PURGED_PLAN = "Bill customers through the Osprey gateway"  # purged
CANDIDATE = "We are going with Grafana for dashboards"


@pytest.fixture
def store(tmp_path: Path) -> Memoir:
    """A demo store with a log written by four faces; returns the app's Memoir."""
    app = demo_store_in(tmp_path)
    root, clock = app.root, app.clock

    def face(actor: str) -> Memoir:
        return Memoir(root, clock=clock, machine_label=DEMO_MACHINE_LABEL, actor=actor)

    cli, mcp, capture = face("cli"), face("mcp"), face("capture")
    cli.add_next_action(CHANGELOG)  # 1
    mcp.note_decision(RENOVATE, "grouped PRs")  # 2
    app.ask_question(ONCALL)  # 3
    cli.note_decision(SECRET_PLAN)  # 4
    cli.hide_decision(text_hash(SECRET_PLAN))  # 5
    mcp.note_decision(PURGED_PLAN)  # 6
    mcp.hide_decision(text_hash(PURGED_PLAN))  # 7
    mcp.purge_decision(text_hash(PURGED_PLAN))  # 8
    capture.review.enqueue([{"text": CANDIDATE, "source": "assistant", "extractor": "x.y"}])  # 9
    mcp.complete_next_action(CHANGELOG)  # 10
    # 11: an item that no longer exists anywhere
    append_audit(
        root,
        AuditRecord(
            time=clock(),
            actor="cli",
            operation="add_goals",
            list_name="goals",
            identity_hash=text_hash("a goal that was edited away"),
            machine_id=DEMO_MACHINE_ID,
        ),
    )
    return app


def shown(pane: AuditPane) -> list[tuple[str, str, str]]:
    """(actor, operation, item) of each row in table order."""
    by_key: dict[str, AuditRow] = {r.key: r for r in pane.rows}
    return [
        (by_key[k].record.actor, by_key[k].record.operation, by_key[k].item)
        for k in pane.table.row_keys
    ]


def table_text(pane: AuditPane) -> str:
    table = pane.table
    return "\n".join(
        " | ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)
    )


async def test_lists_mutations_newest_first_with_resolved_text(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        assert shown(pane) == [
            ("cli", "add_goals", GONE),
            ("mcp", "complete_next_action", CHANGELOG),  # the completed action's text
            ("capture", "capture_candidate", CANDIDATE),  # the review queue's text
            ("mcp", "purge_decision", FORGOTTEN),
            ("mcp", "hide_decision", FORGOTTEN),
            ("mcp", "note_decision", FORGOTTEN),
            ("cli", "hide_decision", FORGOTTEN),
            ("cli", "note_decision", FORGOTTEN),
            ("app", "add_open_questions", ONCALL),
            ("mcp", "note_decision", RENOVATE),
            ("cli", "add_next_actions", CHANGELOG),
        ]
        times = [str(pane.table.get_row_at(i)[0]) for i in range(pane.table.row_count)]
        assert times == sorted(times, reverse=True)
        first = pane.table.get_row_at(0)
        assert str(first[0]).startswith("2026-07-01 09:0")  # UTC, to the second
        assert str(first[-1]) == "work-laptop"  # the machine id resolved to its label
        # a forgotten decision's text is on no row and nowhere on the screen
        screen = pilot.app.export_screenshot()
        for forgotten in (SECRET_PLAN, PURGED_PLAN, "Falcon", "Osprey"):
            assert forgotten not in table_text(pane)
            assert forgotten not in screen
        assert FORGOTTEN in table_text(pane)
        status = str(pane.query_one("#audit-status").render())
        assert "11 of 11 records" in status


async def test_filters_by_actor_operation_and_text(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        assert pane.actors == ("app", "capture", "cli", "mcp")
        await pilot.press("b")  # app
        await settle(pilot)
        assert shown(pane) == [("app", "add_open_questions", ONCALL)]
        await pilot.press("b", "b")  # capture, then cli
        await settle(pilot)
        assert pane.actor == "cli"
        assert {a for a, _, _ in shown(pane)} == {"cli"} and len(shown(pane)) == 4
        await pilot.press("o")  # first operation in the log, in order: add_goals
        await settle(pilot)
        assert shown(pane) == [("cli", "add_goals", GONE)]
        while pane.operation != "note_decision":
            await pilot.press("o")
        await settle(pilot)
        assert shown(pane) == [("cli", "note_decision", FORGOTTEN)]
        await pilot.press("b")  # mcp, still note_decision
        await settle(pilot)
        assert shown(pane) == [
            ("mcp", "note_decision", FORGOTTEN),
            ("mcp", "note_decision", RENOVATE),
        ]
        await pilot.press("escape")  # clears every filter
        await settle(pilot)
        assert (pane.actor, pane.operation, len(shown(pane))) == (None, None, 11)
        # free text, as you type
        await pilot.press("slash")
        await settle(pilot)
        await type_text(pilot, "renovate")
        await settle(pilot)
        assert shown(pane) == [("mcp", "note_decision", RENOVATE)]
        # forgotten text cannot be found by searching for it
        pane.filter_bar.input.value = "falcon"
        await settle(pilot)
        assert shown(pane) == []
        await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.focused is pane.table


async def test_refreshes_after_a_write_from_the_app(store: Memoir) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        pilot.app.write(lambda s: s.add_goal("Ship 1.0 by August"))
        await settle(pilot)
        assert shown(pane)[0] == ("app", "add_goals", "Ship 1.0 by August")
        assert len(pane.rows) == 12


async def test_empty_log_says_so(demo_store: Memoir) -> None:
    async with make_app(demo_store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        assert pane.table.row_count == 0
        assert "No changes recorded yet" in str(pane.query_one("#audit-status").render())
        await pilot.press("b", "o")  # nothing to cycle through: no error
        await settle(pilot)
        assert (pane.actor, pane.operation) == (None, None)


def test_bindings_have_ids_and_key_tables() -> None:
    assert "| Key(s) | Description |" in (AuditPane.__doc__ or "")
    bindings = own_bindings(AuditPane)
    ids = [b.id for b in bindings]
    assert all(i and i.startswith("audit.") for i in ids) and len(ids) == len(set(ids))
    assert all(c.binding_id in ids for c in AuditPane.COMMANDS)
    assert len({NO_ITEM, GONE, FORGOTTEN}) == 3  # a != b != c never compared a with c


def test_audit_pane_snapshot(snap_compare: Any, store: Memoir) -> None:
    assert snap_compare(
        make_app(store), terminal_size=SIZE, run_before=pressing(pane_spec("audit").key)
    )


def test_parked_and_archived_items_keep_their_text_in_the_log(store_dir: Path) -> None:
    """A full list parks or archives its oldest item: it still exists, so the log names
    it by its text, never "(gone)"."""
    from memoir_tui.core.door.audit import read_audit
    from memoir_tui.panes.audit import resolve_rows
    from tests.conftest import store_past_its_caps

    store = store_past_its_caps(store_dir)
    ws = store.working_set()
    assert ws.archived_goals and ws.parked_actions and ws.archived_decisions
    shown = {row.item for row in resolve_rows(store, read_audit(store_dir))}
    assert {"old goal", "old step", "old question?", "old decision"} <= shown
    assert GONE not in shown


async def test_in_a_project_the_status_says_the_log_is_every_projects(store_dir: Path) -> None:
    store = Memoir(store_dir, project="git:" + "a" * 32, project_label="acme/shop")
    store.add_goal("Ship it")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, AuditPane)
        await settle(pilot)
        assert "every project (one log per store)" in pane.status_text(len(pane.rows))
        await pilot.press("A")
        await settle(pilot)
        assert "every project" not in pane.status_text(len(pane.rows))
