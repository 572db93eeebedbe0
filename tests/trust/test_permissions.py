"""What holds memory is private: the store's folder (when we make it), the copies kept
aside of damaged or newer files, and the recall index (it holds entry text) are 0600
files in 0700 folders, whatever the umask and even where chmod is not possible."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_tui.core.format.review_file import load_review
from memoir_tui.core.format.session import load_session
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def loose_umask():
    old = os.umask(0)  # the worst case: nothing masked
    try:
        yield
    finally:
        os.umask(old)


def test_a_store_folder_we_create_is_0700(tmp_path, loose_umask):
    store = Memoir(tmp_path / "fresh" / "store")
    store.note_decision("Use SQLite", why="simple")
    assert mode(store.root) == 0o700
    assert mode(store.session_path) == 0o600


@pytest.mark.parametrize(
    "content, kind",
    [
        (b"{not json", "corrupted"),
        (json.dumps({"version": 1, "current": {"decisions": {"a": 1}}}).encode(), "misshapen"),
        (json.dumps({"version": 99, "current": {}}).encode(), "pre-migration"),
    ],
)
def test_quarantine_copies_are_0600_from_their_first_instant(
    tmp_path, loose_umask, monkeypatch, content, kind
):
    path = tmp_path / "session.json"
    path.write_bytes(content)
    os.chmod(path, 0o600)

    def no_chmod(*_a, **_k):
        raise PermissionError("chmod is not possible here")

    monkeypatch.setattr(os, "chmod", no_chmod)  # the copy must not need one
    loaded = load_session(path)
    assert loaded.backup is not None and loaded.backup.name.startswith(f"session.json.{kind}-")
    assert loaded.backup.read_bytes() == content
    assert mode(loaded.backup) == 0o600


def test_a_review_queue_kept_aside_is_0600(tmp_path, loose_umask, monkeypatch):
    path = tmp_path / "review.json"
    path.write_bytes(b"{torn")
    monkeypatch.setattr(os, "chmod", lambda *a, **k: (_ for _ in ()).throw(PermissionError()))
    loaded = load_review(path, quarantine=True)
    (copy,) = tmp_path.glob("review.json.corrupted-*")
    assert mode(copy) == 0o600 and copy.read_bytes() == b"{torn"
    assert loaded is not None


def _recall(tmp_path: Path, umask: int) -> subprocess.CompletedProcess:
    env = os.environ.copy()
    env.update(
        HOME=str(tmp_path / "home"),
        MEMOIR_HOME=str(tmp_path / "store"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    probe = (
        f"import os, runpy, sys; os.umask({umask}); sys.argv = ['memoir-tui', 'recall', 'hello']\n"
        "runpy.run_module('memoir_tui', run_name='__main__')"
    )
    return subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=SAFETY_NET
    )


def test_the_recall_index_is_0600_in_a_0700_folder(tmp_path):
    memory = tmp_path / "store" / "memory"
    memory.mkdir(parents=True)
    (memory / "fact_hello.md").write_text("---\ntype: fact\nname: hello\n---\nhello world\n")
    (tmp_path / "home").mkdir()
    proc = _recall(tmp_path, 0)
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / "cache" / "memoir-tui"
    databases = [p for p in folder.iterdir() if p.name.startswith("recall-")]
    assert databases, list(folder.iterdir())
    assert mode(folder) == 0o700
    for db in databases:  # the database and its -wal / -shm
        assert mode(db) == 0o600, db.name


def test_an_old_world_readable_index_is_made_private(tmp_path):
    memory = tmp_path / "store" / "memory"
    memory.mkdir(parents=True)
    (memory / "fact_hello.md").write_text("---\ntype: fact\nname: hello\n---\nhello world\n")
    (tmp_path / "home").mkdir()
    assert _recall(tmp_path, 0o022).returncode == 0
    folder = tmp_path / "cache" / "memoir-tui"
    os.chmod(folder, 0o755)
    for db in folder.iterdir():
        os.chmod(db, 0o644)
    assert _recall(tmp_path, 0o022).returncode == 0
    assert mode(folder) == 0o700
    assert all(mode(db) == 0o600 for db in folder.iterdir() if db.name.startswith("recall-"))
