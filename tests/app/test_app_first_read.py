"""The first read of a large store lands after the first screen, and the screen never lies.

A ``session.json`` over ``READ_IN_WORKER_BYTES`` is read in a worker once the shell is
painted. Until it lands the Working set pane says it is reading (never "This store is
empty", never a count) and the header claims nothing it has not read; then the rows,
the banners and the welcome box (only for a truly empty store) are what is on disk.
The worker's read is held at a gate here, so "before it lands" is a state, not a race.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import memoir_tui.app as app_module
from memoir_tui.app import MemoirApp
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.working_set import SECTIONS, WorkingSetPane
from memoir_tui.widgets.damage_banner import DamageBanner
from memoir_tui.widgets.item_table import ItemTable
from memoir_tui.widgets.store_bar import StoreBar
from tests.app.helpers import SIZE, make_app, messages, on_disk, settle, type_text

MACHINE = "00000000-0000-4000-8000-000000000001"
GATE_SECONDS = 10.0  # a safety net only: the test opens the gate itself


def large_session(decisions: int = 1200) -> dict[str, Any]:
    """More than ``READ_IN_WORKER_BYTES`` of session: goals, actions, questions, decisions."""

    def stamp(i: int) -> str:
        return f"2026-06-{1 + i % 28:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00.000Z"

    return {
        "version": 1,
        "machines": {MACHINE: {"label": "laptop", "last_seen": stamp(0)}},
        "current": {
            "goals": [
                {"text": f"goal {i}", "machine_id": MACHINE, "set_on": stamp(i)} for i in range(3)
            ],
            "next_actions": [
                {"text": f"action {i}", "machine_id": MACHINE, "added": stamp(i)} for i in range(7)
            ],
            "open_questions": [
                {"text": f"question {i}", "machine_id": MACHINE, "asked": stamp(i)}
                for i in range(2)
            ],
            "decisions": [
                {
                    "text": f"decision {i}: keep the cache warm for the dashboard",
                    "why": f"because measurement {i} showed the cold path costs seconds " * 2,
                    "rejected": f"alternative {i}; doing nothing",
                    "machine_id": MACHINE,
                    "date": stamp(i),
                }
                for i in range(decisions)
            ],
        },
        "history": [],
    }


def write_session(root: Path, session: dict[str, Any]) -> Memoir:
    root.mkdir(parents=True, exist_ok=True)
    (root / "session.json").write_text(json.dumps(session), encoding="utf-8")
    return Memoir(root, machine_label="laptop", actor="app")


class Gate:
    """Holds the first read's worker until the test opens it."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.open = threading.Event()
        self.reads = 0

    def wrap(self, load: Callable[..., Any]) -> Callable[..., Any]:
        def held(app: MemoirApp, all_projects: bool) -> Any:
            if threading.current_thread() is not threading.main_thread():
                self.reads += 1
                self.arrived.set()
                assert self.open.wait(GATE_SECONDS), "the test never opened the gate"
            return load(app, all_projects)

        return held


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Gate]:
    gate = Gate()
    monkeypatch.setattr(MemoirApp, "_load_session", gate.wrap(MemoirApp._load_session))
    yield gate
    gate.open.set()  # never leave a worker waiting


async def until_held(gate: Gate) -> None:
    # The worker starts after the first refresh; the gate says when it is waiting.
    import asyncio

    for _ in range(int(GATE_SECONDS / 0.01)):
        if gate.arrived.is_set():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the first read never started in its worker")


def titles(app: MemoirApp) -> dict[str, str]:
    pane = app.query_one(WorkingSetPane)
    return {table_id: str(pane.query_one(f"#{table_id}", ItemTable).title) for table_id in SECTIONS}


async def test_a_large_store_paints_reading_then_its_rows(tmp_path: Path, gate: Gate) -> None:
    store = write_session(tmp_path / "store", large_session())
    assert store.session_path.stat().st_size > app_module.READ_IN_WORKER_BYTES
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await until_held(gate)
        await pilot.pause()
        pane = app.query_one(WorkingSetPane)
        # Before the read lands: reading, in every list; nothing says empty or counts.
        assert app.reading and app.state is None
        assert all(t.endswith("· reading…") for t in titles(app).values()), titles(app)
        assert "-empty" not in pane.classes
        assert not pane.query_one("#welcome").display
        assert all(pane.query_one(f"#{t}", ItemTable).row_count == 0 for t in SECTIONS)
        bar = app.query_one(StoreBar)
        assert bar.scope == "" and not bar.read_only
        # The keys still work while it reads: the first pane has the focus.
        assert app.focused is pane.query_one("#next-actions", ItemTable)
        gate.open.set()
        await settle(pilot)
        assert not app.reading and app.state is not None
        assert titles(app) == {
            "goals": "Goals · 3",
            "next-actions": "Next actions · 7",
            "questions": "Open questions · 2",
            "completed": "Recently completed · 0",
        }
        shown = pane.query_one("#next-actions", ItemTable).row_keys
        assert len(shown) == 7
        assert len(app.state.all_decisions) == 1200
        assert "-empty" not in pane.classes
    assert gate.reads == 1


async def test_an_empty_store_read_in_a_worker_greets_only_once_read(
    tmp_path: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "READ_IN_WORKER_BYTES", 0)  # this small file too
    store = write_session(tmp_path / "store", {"version": 1, "current": {}})
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await until_held(gate)
        await pilot.pause()
        pane = app.query_one(WorkingSetPane)
        assert "-empty" not in pane.classes and not pane.query_one("#welcome").display
        gate.open.set()
        await settle(pilot)
        assert "-empty" in pane.classes and pane.query_one("#welcome").display
        assert titles(app)["next-actions"] == "Next actions · 0 · a adds one"


async def test_a_newer_store_read_in_a_worker_lists_what_it_holds_read_only(
    tmp_path: Path, gate: Gate
) -> None:
    session = large_session()
    session["version"] = 99
    store = write_session(tmp_path / "store", session)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await until_held(gate)
        await pilot.pause()
        assert not app.query_one(StoreBar).read_only  # not claimed before it is read
        gate.open.set()
        await settle(pilot)
        assert app.query_one(StoreBar).read_only
        assert app.query_one(DamageBanner).display
        assert titles(app)["next-actions"] == "Next actions · 7"
        assert "-empty" not in app.query_one(WorkingSetPane).classes


async def test_keys_typed_while_it_reads_are_not_lost(tmp_path: Path, gate: Gate) -> None:
    store = write_session(tmp_path / "store", large_session())
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await until_held(gate)
        await pilot.press("a")
        await type_text(pilot, "lowercase")
        await pilot.press("enter")
        await pilot.pause()
        assert app.reading  # all of it typed before the read landed
        # The write went through its own worker while the read was held.
        for _ in range(int(GATE_SECONDS / 0.01)):
            if "lowercase" in {a["text"] for a in on_disk(store)["current"]["next_actions"]}:
                break
            await pilot.pause(0.01)
        assert app.reading and titles(app)["next-actions"] == "Next actions · reading…"
        gate.open.set()
        await settle(pilot)
        pane = app.query_one(WorkingSetPane)
        assert titles(app)["next-actions"] == "Next actions · 8", messages(app)
        assert "lowercase" in {a["text"] for a in on_disk(store)["current"]["next_actions"]}
        assert len(pane.query_one("#next-actions", ItemTable).row_keys) == 8


class DecisionCount:
    """Counts the ``Decision`` objects ``working_set`` builds (and where)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import memoir_tui.core.rules.model as model

        self.built = 0
        self.threads: set[str] = set()
        real = model.Decision

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.built += 1
            self.threads.add(threading.current_thread().name)
            return real(*args, **kwargs)

        monkeypatch.setattr(model, "Decision", counted)


async def test_the_rows_land_without_building_a_decision(
    tmp_path: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first screen shows no decision: they are built when first asked for, and the
    # answer is the whole list then (the same rows, counts and order as ever).
    monkeypatch.setattr(app_module, "IMPORT_PANES_AFTER", 3600.0)  # no warm-up in this test
    count = DecisionCount(monkeypatch)
    session = large_session()
    session["current"]["decisions"][5]["hidden"] = True
    store = write_session(tmp_path / "store", session)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await until_held(gate)
        gate.open.set()
        await settle(pilot)
        assert not app.reading and app.state is not None
        assert titles(app)["next-actions"] == "Next actions · 7"
        assert count.built == 0
        decisions = app.state.all_decisions
        assert len(decisions) == 1199 and len(app.state.tombstones) == 1
        assert [d.date for d in decisions] == sorted((d.date for d in decisions), reverse=True)
        assert app.state.tombstones[0].text.startswith("decision 5:")
        assert count.built == 1200  # once each, the tombstone included
        assert len(app.state.decisions) == 1199 and count.built == 1200  # cached


async def test_after_the_rows_the_decisions_and_entry_stamps_are_made_off_the_ui(
    tmp_path: Path, gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memoir_tui.ui.store_watch import EntriesChanged, SessionChanged

    monkeypatch.setattr(app_module, "IMPORT_PANES_AFTER", 0.01)  # soon
    count = DecisionCount(monkeypatch)
    store = write_session(tmp_path / "store", large_session())
    app = make_app(store, import_panes_after=0.01)  # its timer too (make_app has none)
    async with app.run_test(size=SIZE) as pilot:
        await until_held(gate)
        # The read is stamped before it; the entry folders wait for after the rows.
        assert app.watcher.seen(SessionChanged) and not app.watcher.seen(EntriesChanged)
        gate.open.set()
        await settle(pilot)
        for _ in range(int(GATE_SECONDS / 0.01)):  # their timers, then their workers
            if app.watcher.seen(EntriesChanged) and count.built == 1200:
                break
            await pilot.pause(0.01)
        await settle(pilot)
        assert app.watcher.seen(EntriesChanged)
        assert count.built == 1200 and threading.main_thread().name not in count.threads
        assert len(app.state.all_decisions) == 1200 and count.built == 1200
