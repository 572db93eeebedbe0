"""The screen tells the truth: what a pane shows is on disk now, in the scope the header names.

Another process (a second ``Memoir`` on the same root) changes the files while
the app runs with its real watcher; the panes, shown or hidden, follow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.review import ReviewPane
from memoir_tui.widgets.damage_banner import DamageBanner
from memoir_tui.widgets.item_table import ItemTable
from memoir_tui.widgets.status_line import StatusLine
from memoir_tui.widgets.store_bar import StoreBar
from tests.app.helpers import SIZE, eventually, make_app, open_pane, settle
from tests.conftest import JulyClock

HERE = ("git:example.com/acme/alpha", "acme/alpha")
THERE = ("git:example.com/acme/beta", "acme/beta")
KEEP = "Use Postgres 16 for the alpha service"
PURGE = "Store the alpha API key in the ocelot vault"
OTHER = "Deploy beta with blue-green releases"
BURST = (("x", "x"), ("q", "q"), ("2", "2"), ("question_mark", "?"), ("a", "a"), ("s", "s"))


def project_store(root: Path, project: tuple[str, str], **kwargs: Any) -> Memoir:
    return Memoir(
        root,
        clock=JulyClock(),
        machine_label="laptop",
        project=project[0],
        project_label=project[1],
        **kwargs,
    )


def two_projects(root: Path) -> Memoir:
    """Two decisions in alpha (this project), one in beta; the app's store is alpha's."""
    here = project_store(root, HERE, actor="app")
    here.note_decision(KEEP)
    here.note_decision(PURGE)
    project_store(root, THERE).note_decision(OTHER)
    return here


def drawn_texts(table: ItemTable) -> list[str]:
    """The text of every row as drawn (not as given): what a person sees."""
    return [" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]


async def wait_until(pilot: Pilot[Any], condition: Any, what: str) -> None:
    await eventually(pilot, condition, what)  # the condition decides, never a clock


async def test_a_purge_from_elsewhere_is_gone_when_the_hidden_pane_is_shown_again(
    tmp_path: Path,
) -> None:
    store = two_projects(tmp_path / "store")
    app = make_app(store, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        assert any(PURGE in t for t in drawn_texts(pane.table))
        await pilot.press("1")  # Decisions is hidden now
        await settle(pilot)
        other = project_store(store.root, HERE, actor="cli")
        assert other.purge_decision(text_hash(PURGE)).changed
        await wait_until(
            pilot, lambda: all(d.text != PURGE for d in app.state.decisions), "the watcher"
        )
        await pilot.press("2")
        await settle(pilot)
        texts = drawn_texts(pane.table)
        assert not any(PURGE in t for t in texts)
        assert any(KEEP in t for t in texts)
        status = str(pane.query_one("#decisions-status", StatusLine).render())
        assert status.startswith(f"{len(texts)} decision ")
        assert pane.table.row_count == len(pane.table.row_keys) == 1


async def test_the_header_names_the_project_and_a_switches_every_pane(tmp_path: Path) -> None:
    store = two_projects(tmp_path / "store")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        bar = app.query_one(StoreBar)
        assert bar.scope == "project: alpha · 1 elsewhere · A shows all"
        assert not any(OTHER in t for t in drawn_texts(pane.table))
        await pilot.press("1", "A")  # from another pane: the switch is for every pane
        await settle(pilot)
        assert bar.scope == "all projects · this one: alpha"
        await pilot.press("2")
        await settle(pilot)
        texts = drawn_texts(pane.table)
        assert any(OTHER in t for t in texts) and any(KEEP in t for t in texts)
        await pilot.press("A")
        await settle(pilot)
        assert not any(OTHER in t for t in drawn_texts(pane.table))


async def test_a_capture_from_elsewhere_reaches_the_hidden_review_pane(tmp_path: Path) -> None:
    store = two_projects(tmp_path / "store")
    app = make_app(store, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        await pilot.press("1")
        await settle(pilot)
        capture = project_store(store.root, HERE, actor="capture")
        text = "Use uv to manage the Python toolchain"
        capture.review.enqueue([{"text": text, "source": "transcript"}])
        await wait_until(pilot, lambda: text_hash(text) in pane.table.row_keys, "the queue")
        await pilot.press("3")
        await settle(pilot)
        assert any(text in t for t in drawn_texts(pane.table))


async def test_a_corrupt_queue_is_a_banner_and_a_notice_in_the_review_pane(
    tmp_path: Path,
) -> None:
    store = two_projects(tmp_path / "store")
    garbage = b"{ this is not a review queue"
    (store.root / "review.json").write_bytes(garbage)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, ReviewPane)
        banner = app.query_one(DamageBanner)
        assert banner.display and "review.json" in banner.text
        status = str(pane.query_one("#review-status", StatusLine).render())
        assert "cannot be read" in status and "nothing is deleted" in status
    assert (store.root / "review.json").read_bytes() == garbage


async def test_a_garbage_session_is_a_banner_naming_the_kept_copy(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "session.json").write_text("not json at all")
    app = make_app(Memoir(root, clock=JulyClock(), machine_label="laptop"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        banner = app.query_one(DamageBanner)
        copies = list(root.glob("session.json.corrupted-*"))
        assert len(copies) == 1 and copies[0].read_text() == "not json at all"
        assert banner.display and copies[0].name in banner.text
        assert "could not be parsed" in banner.text
        app.clear_notifications()  # what a toast's timeout does; the banner stays
        await pilot.pause()
        assert banner.display and copies[0].name in banner.text


async def test_keys_typed_after_quit_are_ignored_and_writes_finish(tmp_path: Path) -> None:
    store = two_projects(tmp_path / "store")
    store.add_next_action("Write the migration")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#next-actions", ItemTable).focus()
        await pilot.pause()
        # One burst, nothing awaited in between: complete, quit, then keys that would
        # push a dialog, mount a pane or switch.
        for key, char in BURST:
            app.post_message(events.Key(key, char))
        await wait_until(pilot, lambda: app._exit, "the app to exit")
    assert app.return_code == 0
    done = store.load().state["current"]["completed_actions"]
    assert [c["text"] for c in done] == ["Write the migration"]
