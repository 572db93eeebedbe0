"""The one door: every change is one transaction — locked, atomic, audited, refusable.

These tests drive ``Memoir.transaction`` and the services through their public
faces and read the files on disk afterwards. Kills are real processes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memoir_tui.core.base.errors import ReadOnlyStoreError
from memoir_tui.core.door.audit import read_audit
from memoir_tui.core.door.transaction import (
    JOURNAL_FILE,
    FileExistsRefusal,
    TransactionError,
    open_transaction,
)
from memoir_tui.core.format.items import FILES, REVIEW, SESSION
from memoir_tui.core.format.secrets import SecretFoundError
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape


def audit_ops(store: Memoir) -> list[str]:
    return [r.operation for r in reversed(read_audit(store.root))]


def test_a_change_is_written_and_audited_once(store: Memoir) -> None:
    store.add_goal("Ship the importer")
    on_disk = json.loads(store.session_path.read_text())
    assert [g["text"] for g in on_disk["current"]["goals"]] == ["Ship the importer"]
    assert audit_ops(store) == ["add_goals"]


def test_nothing_changed_writes_nothing_and_audits_nothing(store: Memoir) -> None:
    store.add_goal("Ship the importer")
    before = store.session_path.read_bytes()
    assert not store.add_goal("ship the importer ").changed  # same identity
    assert store.session_path.read_bytes() == before
    assert audit_ops(store) == ["add_goals"]


def test_an_exception_inside_writes_nothing(store: Memoir) -> None:
    store.add_goal("Keep me")
    before = store.session_path.read_bytes()
    with pytest.raises(RuntimeError), store.transaction("boom") as tx:
        tx.session["current"]["goals"].clear()
        raise RuntimeError("changed my mind")
    assert store.session_path.read_bytes() == before


def test_files_must_be_declared(store: Memoir) -> None:
    with (
        pytest.raises(TransactionError, match="did not declare 'review'"),
        store.transaction("x", files=(SESSION,)) as tx,
    ):
        tx.review  # noqa: B018 - the access is the point


def test_a_newer_session_refuses_every_transaction(store: Memoir) -> None:
    newer = b'{"version": 99, "current": {}}'
    store.session_path.parent.mkdir(parents=True, exist_ok=True)
    store.session_path.write_bytes(newer)
    for files in ((SESSION,), (REVIEW,), (FILES,)):
        with (
            pytest.raises(ReadOnlyStoreError, match="newer memoir format"),
            store.transaction("x", files=files),
        ):
            pass
    with pytest.raises(ReadOnlyStoreError):
        store.review.enqueue([{"text": "Use SQLite", "source": "user"}])
    with pytest.raises(ReadOnlyStoreError):
        store.entries.create(store.memory_dir / "fact_x.md", {"type": "fact", "name": "x"}, "x\n")
    assert store.session_path.read_bytes() == newer
    assert not (store.root / "review.json").exists()
    assert not (store.memory_dir / "fact_x.md").exists()


def test_files_of_one_commit_land_together(store: Memoir) -> None:
    a, b = store.root / "memory" / "a.md", store.root / "memory" / "b.md"
    with store.transaction("two", files=(SESSION, FILES)) as tx:
        tx.write_text(a, "A\n")
        tx.write_text(b, "B\n")
        tx.session["current"]["goals"].append({"text": "g", "set_on": store.clock()})
    assert a.read_text() == "A\n" and b.read_text() == "B\n"
    assert not (store.root / JOURNAL_FILE).exists()
    assert audit_ops(store) == ["two"]


def test_a_new_secret_is_refused_an_old_one_is_not_copied_in_again(store: Memoir) -> None:
    path = store.memory_dir / "fact_token.md"
    with (
        pytest.raises(SecretFoundError, match=r"fact_token\.md"),
        store.transaction("leak", files=(FILES,)) as tx,
    ):
        tx.write_text(path, f"the token is {TOKEN}\n")
    assert not path.exists()
    # A file that already holds one (another tool wrote it) can still be edited around it.
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"old: {TOKEN}\n")
    with store.transaction("edit", files=(FILES,)) as tx:
        tx.write_text(path, f"old: {TOKEN}\nnew line\n")
    assert path.read_text().endswith("new line\n")


def test_an_exclusive_create_never_replaces(store: Memoir) -> None:
    path = store.memory_dir / "fact_a.md"
    with pytest.raises(FileExistsRefusal), store.transaction("create", files=(FILES,)) as tx:
        tx.create(path, b"mine\n")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"theirs\n")  # appears while the transaction is open
    assert path.read_bytes() == b"theirs\n"


def test_a_symlinked_file_is_written_through_its_link(store: Memoir, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "CLAUDE.md"
    real.parent.mkdir()
    real.write_text("# mine\n")
    link = tmp_path / "CLAUDE.md"
    link.symlink_to(real)
    with store.transaction("inject", files=(FILES,)) as tx:
        tx.write_text(link, "# mine\nblock\n")
    assert link.is_symlink() and real.read_text() == "# mine\nblock\n"


def test_an_inner_transaction_joins_the_outer_one(store: Memoir) -> None:
    with store.transaction("outer", files=(REVIEW,)) as tx:
        assert open_transaction(store.root) is tx
        store.add_goal("Inside")  # joins, taking the session's lock
        assert (store.root / "session.json.lock").exists()
        assert not store.session_path.exists()  # nothing lands before the outer commits
    assert open_transaction(store.root) is None
    assert [g.text for g in store.working_set().goals] == ["Inside"]
    assert not (store.root / "session.json.lock").exists()


def test_a_pin_is_one_commit(store: Memoir, monkeypatch: pytest.MonkeyPatch) -> None:
    store.review.enqueue([{"text": "Use SQLite for the cache", "source": "user"}])
    (item,) = store.review.list_items()
    review_before = (store.root / "review.json").read_bytes()
    from memoir_tui.core.door import transaction

    real = transaction._apply

    def fail_on_session(writes):
        writes = list(writes)
        if any(w.path == store.session_path for w in writes):
            raise OSError("disk full")
        real(writes)

    monkeypatch.setattr(transaction, "_apply", fail_on_session)
    with pytest.raises(OSError):
        store.review.pin(item.id)
    monkeypatch.setattr(transaction, "_apply", real)
    # Nothing landed: neither the pinned state nor the decision …
    assert (store.root / "review.json").read_bytes() == review_before
    assert store.working_set().decisions == ()
    # … but the journal holds the whole commit, and the next transaction completes it.
    journal = store.root / JOURNAL_FILE
    assert journal.exists()
    store.add_next_action("Anything")
    assert not journal.exists()
    assert store.review.get_item(item.id).state == "pinned"
    assert [d.text for d in store.working_set().decisions] == ["Use SQLite for the cache"]


KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from memoir_tui.core.door import transaction
    from memoir_tui.core.workflows.memoir import Memoir

    real = transaction._apply
    def apply_one_then_die(writes):
        writes = list(writes)
        if len(writes) < 2:
            return real(writes)
        real(writes[:1])
        os.kill(os.getpid(), signal.SIGKILL)
    transaction._apply = apply_one_then_die

    store = Memoir(sys.argv[1], actor="cli")
    store.review.enqueue([{"text": "Use SQLite for the cache", "source": "user"}])
    store.note_decision("Use SQLite for the cache", why="local first")
    key = store.working_set().decisions[0].key
    store.purge_decision(key)   # session + review in one commit: killed half way
    """
)


def test_a_commit_killed_half_way_is_completed_by_the_next(store_dir: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(store_dir)],
        cwd=ROOT,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=SAFETY_NET,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    journal = store_dir / JOURNAL_FILE
    assert journal.exists() and journal.stat().st_mode & 0o777 == 0o600
    # Killed half way: the queue is redacted, the session not yet.
    assert "Use SQLite for the cache" not in (store_dir / "review.json").read_text()
    assert "Use SQLite for the cache" in (store_dir / "session.json").read_text()
    store = Memoir(store_dir, actor="cli")
    store.add_goal("Next change")  # any transaction rolls the journal forward first
    assert not journal.exists()
    for name in ("session.json", "review.json"):
        assert "Use SQLite for the cache" not in (store_dir / name).read_text(), name
    assert store.working_set().tombstones[0].purged
    assert "recover_commit" in audit_ops(store)


def test_an_unreadable_journal_was_never_published_and_is_dropped(store: Memoir) -> None:
    store.add_goal("Before")
    before = store.session_path.read_bytes()
    (store.root / JOURNAL_FILE).write_text('{"version": 1, "writes": [')
    store.add_next_action("After")
    assert not (store.root / JOURNAL_FILE).exists()
    assert (
        json.loads(before)["current"]["goals"]
        == json.loads(store.session_path.read_text())["current"]["goals"]
    )


def test_after_commit_hooks_run_outside_the_locks(
    store: Memoir, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memoir_tui.core.door.context import AfterCommitHook

    seen = []

    def hook(s: Memoir, commit) -> None:
        seen.append((commit.op, commit.session_changed, open_transaction(s.root)))

    spec = AfterCommitHook("probe", "x:y", enabled=lambda config: True)
    monkeypatch.setattr(store, "after_commit_hooks", (spec,))
    monkeypatch.setattr(AfterCommitHook, "load", lambda self: hook)
    store.add_goal("Hooked")
    assert not store.add_goal("Hooked").changed  # nothing changed: no hook
    assert seen == [("add_goals", True, None)]
