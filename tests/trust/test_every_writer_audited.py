"""Every writer of a store file leaves an audit line on disk (through its public face).

The README promises one for every change; these are the writers that used to
write none: consolidate apply and undo, trash restore, inject, sync apply,
MCP ``memoir_remember`` and an ``$EDITOR`` edit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.door.audit import read_audit
from memoir_tui.core.workflows.memoir import Memoir

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "consolidate_store"


def ops(store_root: Path) -> list[str]:
    """Audit operations on disk, oldest first."""
    return [r.operation for r in reversed(read_audit(store_root))]


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Memoir, Path]:
    root = tmp_path / "fx"
    shutil.copytree(FIXTURE, root)
    monkeypatch.setenv("HOME", str(root / "home"))
    return Memoir(root / "store", machine_label="test-machine"), root / "home"


def test_consolidate_apply_and_undo_and_trash_restore(planted: tuple[Memoir, Path]) -> None:
    store, home = planted
    report = store.consolidate.scan(home=home)
    empty = next(p for p in report.proposals if p.kind == "empty")
    stale = next(p for p in report.proposals if p.kind == "stale_entry")
    first = store.consolidate.apply([empty])
    assert ops(store.root) == ["consolidate_trash"]
    store.consolidate.apply([stale])
    store.consolidate.undo_last()
    assert ops(store.root)[-1] == "trash_restore"
    store.trash.restore(first.trash_id)
    assert ops(store.root) == [
        "consolidate_trash",
        "consolidate_trash",
        "trash_restore",
        "trash_restore",
    ]
    records = read_audit(store.root)
    assert all(r.actor == "cli" and r.machine_id == store.machine.id for r in records)


def test_inject_writes_are_audited_per_file(planted: tuple[Memoir, Path]) -> None:
    from memoir_tui.core.services.inject import apply_inject, plan_inject

    store, home = planted
    (home / ".claude").mkdir(exist_ok=True)
    store.add_goal("Ship the importer")
    changes = apply_inject(store, plan_inject(store, home=home, env={}))
    written = [c for c in changes if c.changed]
    assert written and ops(store.root)[-len(written) :] == ["inject_write"] * len(written)


def test_sync_apply_is_audited(tmp_path: Path) -> None:
    from tests.sync.helpers import make_machines

    a, b = make_machines(tmp_path, "AB")
    a.store.note_decision("Use SQLite for the cache")
    a.sync()
    b.sync()
    assert "sync_apply" in ops(b.root)


async def test_mcp_remember_is_audited(store_dir: Path) -> None:
    from mcp import Client

    from memoir_tui.mcp.server import build_server

    async with Client(build_server(store_dir)) as client:
        result = await client.call_tool(
            "memoir_remember",
            {"content": "The staging host is staging-2.", "filename": "staging-host.md"},
        )
    assert not result.is_error, result.content
    assert ops(store_dir) == ["remember"]
    assert (store_dir / "memory" / "staging-host.md").is_file()


def test_an_editor_edit_is_written_through_the_door_and_audited(store: Memoir) -> None:
    entry = store.memory_dir / "fact_host.md"
    entry.parent.mkdir(parents=True)
    entry.write_text("---\ntype: fact\nname: host\n---\nstaging-1\n")
    edit = store.entries.begin_edit(entry)
    assert edit.draft != entry and edit.draft.stat().st_mode & 0o777 == 0o600
    edit.draft.write_text("---\ntype: fact\nname: host\n---\nstaging-2\n")  # the editor
    assert entry.read_text().endswith("staging-1\n")  # nothing lands before it is brought in
    outcome = store.entries.finish_edit(edit)
    assert outcome.changed and entry.read_text().endswith("staging-2\n")
    assert not edit.draft.exists()
    assert ops(store.root) == ["edit_entry"]


def test_an_edit_racing_another_writer_is_refused_and_kept(store: Memoir) -> None:
    entry = store.memory_dir / "fact_host.md"
    entry.parent.mkdir(parents=True)
    entry.write_text("one\n")
    edit = store.entries.begin_edit(entry)
    edit.draft.write_text("mine\n")
    entry.write_text("theirs\n")  # another tool wrote it meanwhile
    with pytest.raises(MemoirError, match="changed on disk"):
        store.entries.finish_edit(edit)
    assert entry.read_text() == "theirs\n" and edit.draft.read_text() == "mine\n"
    assert ops(store.root) == []
    store.entries.discard_edit(edit)


def test_an_unchanged_edit_writes_nothing(store: Memoir) -> None:
    entry = store.memory_dir / "fact_host.md"
    entry.parent.mkdir(parents=True)
    entry.write_text("one\n")
    edit = store.entries.begin_edit(entry)
    assert not store.entries.finish_edit(edit).changed
    assert ops(store.root) == [] and not edit.draft.exists()
