"""Pilot tests for the Sync pane against a real local bare git remote.

Sync runs real git in a thread worker; the tests wait for every worker, then
check both the pane and the remote (``git --git-dir REMOTE log``).
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, ProgressBar, RichLog, Static, TabbedContent

import memoir_tui.core.sync as sync_core
from memoir_tui.app import PANES
from memoir_tui.core.base.gitexe import git_env
from memoir_tui.core.sync import init_sync
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.help import own_bindings
from memoir_tui.dialogs.passphrase import PassphraseScreen
from memoir_tui.panes.registry import pane_spec
from memoir_tui.panes.sync import SyncPane
from tests.app.helpers import (
    SIZE,
    eventually,
    make_app,
    open_pane,
    plain,
    pressing,
    settle,
    shown_keys,
    type_text,
)
from tests.conftest import JulyClock

SYNC_KEY = pane_spec("sync").key
PASSPHRASE = "correct horse battery staple"


def git(*args: str) -> str:
    out = subprocess.run(
        ["git", *args], capture_output=True, text=True, env=git_env(), timeout=60, check=True
    )
    return out.stdout


def remote_log(remote: Path) -> list[str]:
    """Commit subjects on the remote's sync branch (empty when it has none)."""
    if not git("--git-dir", str(remote), "branch", "--list", "main").strip():
        return []
    return git("--git-dir", str(remote), "log", "--format=%s", "main").splitlines()


@pytest.fixture
def store(demo_store: Memoir) -> Memoir:
    return demo_store


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    git("init", "--bare", "--quiet", str(path))
    return path


def summary(pane: SyncPane) -> str:
    return plain(pane.query_one("#sync-summary", Static).content)


def log_text(pane: SyncPane) -> str:
    return "\n".join(strip.text for strip in pane.query_one(RichLog).lines)


async def test_not_configured_shows_how_to_set_up_and_no_sync_keys(
    store: Memoir, remote: Path
) -> None:
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, SyncPane, focus_table=False)
        assert not pane.configured
        text = plain(pane.query_one("#sync-setup-text", Static).content)
        assert "Sync is not set up" in text
        assert "sync init REMOTE [--encrypt]" in text
        assert pane.query_one("#sync-setup").display and not pane.query_one("#sync-main").display
        keys = shown_keys(pilot.app)
        assert "F" in keys and not {"S", "P", "L"} & keys
        await pilot.press("S", "P", "L")
        await settle(pilot)
        assert pane.running is None and not log_text(pane)
        # set up from a terminal while the app runs; F reads the status again
        init_sync(store, str(remote))
        await pilot.press("F")
        await settle(pilot)
        assert pane.configured and pane.query_one("#sync-main").display
        assert pilot.app.focused is pane.machines_table
        assert {"S", "P", "L", "F"} <= shown_keys(pilot.app)


async def test_sync_pushes_to_a_real_remote(store: Memoir, remote: Path) -> None:
    init_sync(store, str(remote))
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, SyncPane, focus_table=False)
        assert pane.configured
        assert "Last sync    never" in summary(pane)
        assert "12 file(s) changed here, not pushed" in summary(pane)
        assert {"S", "P", "L", "F"} <= shown_keys(pilot.app)
        await pilot.press("S")
        await settle(pilot)
        status = pane.status
        assert status is not None and status.last_ok is True and status.last_action == "sync"
        text = summary(pane)
        assert "· sync · ok · pushed" in text
        assert "Ahead        0" in text
        assert pane.machines_table.row_keys == [store.machine.id]
        assert pane.query_one(ProgressBar).percentage == 1.0
        log = log_text(pane)
        assert "sync: started" in log and "pushing" in log and "sync: ok" in log
    (subject,) = remote_log(remote)
    assert subject.startswith("memoir sync from work-laptop")


def hold_the_sync(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Make the next sync say it is waiting, then wait until the test sets the event."""
    gate = threading.Event()
    real_sync = sync_core.run_sync

    def held_sync(store: Memoir, mode: sync_core.SyncMode, **kwargs: Any) -> sync_core.SyncResult:
        assert mode == "sync"
        kwargs["progress"]("waiting for the test", 0.01)
        assert gate.wait(30), "the test never released the sync"
        return real_sync(store, mode, **kwargs)

    monkeypatch.setattr(sync_core, "run_sync", held_sync)
    return gate


async def test_ui_stays_responsive_while_the_worker_runs(
    store: Memoir, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_sync(store, str(remote))
    gate = hold_the_sync(monkeypatch)
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, SyncPane, focus_table=False)
        await pilot.press("S")
        try:
            # the worker is blocked in git-land; the UI still answers keys
            await eventually(
                pilot,
                lambda: "waiting for the test" in str(pane.query_one("#sync-activity").render()),
                "the sync's progress line",
            )
            assert pane.running == "sync"
            tabs = pilot.app.query_one(TabbedContent)
            await pilot.press("1")
            await pilot.pause()
            assert tabs.active == PANES[0].pane_id
            await pilot.press(SYNC_KEY)
            await pilot.pause()
            assert tabs.active == "sync"
            assert "S" not in shown_keys(pilot.app)  # dimmed while a sync runs
            await pilot.press("S", "P")  # refused quietly; no second worker
            await pilot.pause()
            running = [w for w in pilot.app.workers if w.group == "sync-run"]
            assert len(running) == 1 and not running[0].is_finished
            assert remote_log(remote) == []
        finally:
            gate.set()
        await settle(pilot)
        assert pane.running is None
        assert pane.status is not None and pane.status.last_ok is True
    assert len(remote_log(remote)) == 1


async def test_quitting_mid_sync_waits_for_the_push_to_land(
    store: Memoir, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The sync runs through the app's one write path: quitting waits for it like any write.
    import memoir_tui.app as app_module

    monkeypatch.setattr(app_module, "QUIT_WAIT_SECONDS", 120.0)  # a safety net only
    init_sync(store, str(remote))
    gate = hold_the_sync(monkeypatch)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, SyncPane, focus_table=False)
        await pilot.press("S")
        try:
            await eventually(pilot, lambda: pane.running == "sync", "the sync to start")
            quitting = asyncio.ensure_future(app.action_quit())
            await eventually(pilot, lambda: app.closing, "quitting to begin")
            await pilot.pause()
            assert [w.group for w in app.writes_in_flight()] == ["sync-run"]
            assert not quitting.done() and remote_log(remote) == []  # held: still waiting
        finally:
            gate.set()
        await quitting
    assert app.return_code == 0
    assert len(remote_log(remote)) == 1


async def test_fetch_then_pull_shows_what_the_merge_did(
    store: Memoir, remote: Path, tmp_path: Path
) -> None:
    init_sync(store, str(remote))
    other = Memoir(tmp_path / "other", clock=JulyClock(), machine_label="home-desktop")
    (tmp_path / "other").mkdir()
    init_sync(other, str(remote))
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, SyncPane, focus_table=False)
        await pilot.press("P")
        await settle(pilot)
        assert pane.status is not None and pane.status.last_ok
        # another machine pulls, adds a decision and pushes
        sync_core.run_sync(other, "pull")
        other.note_decision("Pin Node to the active LTS release", "predictable upgrades")
        sync_core.run_sync(other, "push")
        await pilot.press("F")
        await settle(pilot)
        assert pane.status.behind == 1
        assert "fetched: 1 remote commit(s) not merged" in log_text(pane)
        await pilot.press("L")
        await settle(pilot)
        status = pane.status
        assert status.last_action == "pull" and status.last_ok and status.behind == 0
        assert status.last_merge is not None and status.last_merge.items_added == 1
        assert "1 item(s) added" in summary(pane)
        labels = {m.label for m in status.machines}
        assert labels == {"work-laptop", "home-desktop"}
        # the pull reloaded the app: the decision is live in the store and the app
        assert any(d.text.startswith("Pin Node") for d in pilot.app.state.decisions)


async def test_encrypted_remote_asks_for_the_passphrase(store: Memoir, remote: Path) -> None:
    init_sync(store, str(remote), encrypt=True, scrypt_n=2**10, passphrase=PASSPHRASE)
    async with make_app(store).run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, SyncPane, focus_table=False)
        assert "Encryption   on" in summary(pane)
        await pilot.press("S")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, PassphraseScreen)
        assert remote_log(remote) == []
        for text in (PASSPHRASE, "not the same"):
            assert isinstance(pilot.app.focused, Input) and pilot.app.focused.password
            await type_text(pilot, text)
            await pilot.press("enter")
        await settle(pilot)
        assert pilot.app.screen is dialog  # the two differ: refused
        repeat = dialog.query_one("#repeat", Input)
        repeat.value = PASSPHRASE
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert pilot.app.screen is pilot.app.screen_stack[0]
        assert pane.status is not None and pane.status.last_ok is True
    assert remote_log(remote) == ["memoir sync"]  # encrypted: no machine name in the clear
    files = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", "main")
    assert "session.json" not in files  # names are hashed too


def test_bindings_have_ids_and_key_tables() -> None:
    for cls in (SyncPane, PassphraseScreen):
        assert "| Key(s) | Description |" in (cls.__doc__ or ""), cls.__name__
    ids = [b.id for b in own_bindings(SyncPane)]
    assert all(i and i.startswith("sync.") for i in ids) and len(ids) == len(set(ids))
    assert all(c.binding_id in ids for c in SyncPane.COMMANDS)


def test_sync_pane_snapshot(
    snap_compare: Any,
    store: Memoir,
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # the remote shows as ~/remote.git
    init_sync(store, str(remote))
    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=pressing(SYNC_KEY, "S"))
