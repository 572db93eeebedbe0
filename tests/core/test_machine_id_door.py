"""``machine.id`` is a file of the store: it is made through the door like any other.

A store without one gets it from a transaction (the store's lock, an audit line; refused
on a read-only store); a read (a sync status) never makes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memoir_tui.core.base.errors import ReadOnlyStoreError
from memoir_tui.core.door.audit import read_audit
from memoir_tui.core.door.lock import LockTimeoutError
from memoir_tui.core.workflows.memoir import Memoir
from tests.paths import REPO

HOLD_THE_STORE_LOCK = textwrap.dedent(
    """
    import sys
    from memoir_tui.core.door.lock import store_flock
    with store_flock(sys.argv[1], wait_seconds=30):
        print("held", flush=True)
        sys.stdin.read()  # until the test closes our input
    """
)


def test_a_first_use_outside_any_change_makes_it_through_the_door(store_dir: Path) -> None:
    store = Memoir(store_dir, machine_label="test-machine")
    machine = store.machine
    assert (store_dir / "machine.id").read_text() == machine.id
    (record,) = read_audit(store_dir)
    assert (record.operation, record.list_name, record.machine_id) == (
        "create_machine_id",
        "machine",
        machine.id,
    )
    assert Memoir(store_dir).machine.id == machine.id  # read after, never made again
    assert len(read_audit(store_dir)) == 1


def test_a_first_change_makes_it_inside_its_own_commit(store_dir: Path) -> None:
    store = Memoir(store_dir, machine_label="test-machine")
    store.add_goal("Ship v1")
    mid = (store_dir / "machine.id").read_text()
    # The commit's own line names the id it made; no second line for the file.
    assert [(r.operation, r.machine_id) for r in read_audit(store_dir)] == [("add_goals", mid)]


def test_it_waits_for_the_store_lock_and_is_not_made_without_it(store_dir: Path) -> None:
    (store_dir / "memoir-tui.toml").write_text("[store]\nlock_wait_seconds = 0.3\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_STORE_LOCK, str(store_dir / "session.json")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeoutError):
            _ = Memoir(store_dir).machine
        assert not (store_dir / "machine.id").exists()
    finally:
        holder.communicate("")
    assert Memoir(store_dir).machine.id == (store_dir / "machine.id").read_text()


def test_a_read_only_store_is_refused_and_gets_none(store_dir: Path) -> None:
    newer = {"version": 99, "current": {}}
    (store_dir / "session.json").write_text(json.dumps(newer))
    with pytest.raises(ReadOnlyStoreError):
        _ = Memoir(store_dir).machine
    assert not (store_dir / "machine.id").exists()
    assert json.loads((store_dir / "session.json").read_text()) == newer


def test_a_sync_status_read_never_makes_it(tmp_path: Path) -> None:
    from memoir_tui.core.sync.status import sync_status
    from tests.sync.helpers import make_machines

    (a,) = make_machines(tmp_path, "A")
    a.store.note_decision("Use SQLite for the cache")
    a.sync()
    (a.root / "machine.id").unlink()
    status = sync_status(Memoir(a.root))
    assert status.configured and status.machines  # the copy and its machines were read
    assert not (a.root / "machine.id").exists()
