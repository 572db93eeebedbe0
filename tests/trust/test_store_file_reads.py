"""session.json and review.json are read as regular files only, and a purged decision's
text never comes back out of review.json (issue 16).

A FIFO named session.json or review.json hangs no command (real processes, each with a
deadline); a symlink leading out of the store is not followed. A purge that reached only
the session (made by another tool, or killed between two commits) leaves the queue's
copy of the text unread: loading drops it, the next write of the queue removes it, and
sync never sends it on.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memoir_tui.core.format.review_file import load_review
from memoir_tui.core.format.session import load_session
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import HANG_NET
from tests.paths import REPO

NOT_REGULAR = "not-regular"  # the loader's damage kind for a FIFO, a device, a link out

DEADLINE = HANG_NET  # a FIFO hang is for ever: this only ends it
SECRET_WORDS = "Adopt the wobbegong vendor for billing"

fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _run(tmp_path: Path, store: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "HOME": str(tmp_path / "home"),
        "MEMOIR_HOME": str(store),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    try:
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=DEADLINE,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memoir-tui {' '.join(args)} hung on a FIFO")


@fifos
@pytest.mark.parametrize(
    "args",
    [("status",), ("validate",), ("note", "Use uv"), ("review", "list"), ("recall", "uv")],
)
def test_a_fifo_named_session_json_hangs_no_command(tmp_path: Path, args) -> None:
    store = tmp_path / "store"
    store.mkdir()
    os.mkfifo(store / "session.json")
    proc = _run(tmp_path, store, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    if args[0] == "note":
        assert proc.returncode == 1 and "not a regular file" in proc.stderr
    assert stat.S_ISFIFO(os.lstat(store / "session.json").st_mode)  # never written over


@fifos
@pytest.mark.parametrize("args", [("status",), ("review", "list"), ("note", "Use uv")])
def test_a_fifo_named_review_json_hangs_no_command(tmp_path: Path, args) -> None:
    store = tmp_path / "store"
    Memoir(store).note_decision("Use ruff")
    os.mkfifo(store / "review.json")
    proc = _run(tmp_path, store, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    if args[0] == "note":
        assert proc.returncode == 0, proc.stderr  # the queue is not part of a note
    assert stat.S_ISFIFO(os.lstat(store / "review.json").st_mode)


@fifos
def test_loaders_refuse_a_fifo_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "session.json")
    os.mkfifo(tmp_path / "review.json")
    got: dict[str, object] = {}

    def attempt() -> None:
        got["session"] = load_session(tmp_path / "session.json")
        got["review"] = load_review(tmp_path / "review.json")

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=DEADLINE)
    if worker.is_alive():  # unblock the reader (open it for writing), then fail
        for name in ("session.json", "review.json"):
            with contextlib.suppress(OSError):
                os.close(os.open(tmp_path / name, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=DEADLINE)
        pytest.fail("a loader blocked on a FIFO")
    loaded = got["session"]
    assert loaded.read_only and loaded.damage == NOT_REGULAR
    assert "not a regular file" in (loaded.notice or "")
    review = got["review"]
    assert review.read_only and review.damaged and review.state["items"] == []


def test_a_symlink_leading_out_of_the_store_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"version": 1, "current": {"goals": [{"text": "outside"}]}}))
    store = tmp_path / "store"
    store.mkdir()
    (store / "session.json").symlink_to(outside)
    loaded = load_session(store / "session.json")
    assert loaded.damage == NOT_REGULAR and loaded.read_only
    assert loaded.state["current"]["goals"] == []
    inside = store / "real.json"
    inside.write_text(outside.read_text())
    (store / "session.json").unlink()
    (store / "session.json").symlink_to(inside)  # a link within its folder is read
    assert load_session(store / "session.json").state["current"]["goals"][0]["text"] == "outside"


@pytest.fixture
def half_purged(tmp_path: Path) -> Memoir:
    """A store whose session has purged a decision that review.json still holds as text."""
    store = Memoir(tmp_path / "store")
    store.note_decision(SECRET_WORDS, why="cheap")
    key = store.resolve_decision(SECRET_WORDS).key
    review = {
        "version": 1,
        "items": [
            {"id": "x", "text": SECRET_WORDS, "state": "candidate", "why": "cheap"},
            {"id": "y", "text": "Keep the capybara queue", "state": "candidate"},
            {
                "id": "z",
                "text": "Adopt the wobbegong vendor for invoices",
                "state": "candidate",
                "near_hidden": {"key": key, "text": SECRET_WORDS, "score": 90.0},
            },
        ],
    }
    before = json.dumps(review)
    store.purge_decision(key)
    # as if the queue's half of the purge never happened
    (store.root / "review.json").write_text(before, encoding="utf-8")
    assert SECRET_WORDS in (store.root / "review.json").read_text()
    return store


def test_loading_the_queue_drops_a_purged_decisions_text(half_purged: Memoir) -> None:
    loaded = load_review(half_purged.root / "review.json")
    assert loaded.redacted
    blob = json.dumps(loaded.state)
    assert SECRET_WORDS not in blob
    texts = [i["text"] for i in loaded.state["items"]]
    assert "Keep the capybara queue" in texts
    purged = [i for i in loaded.state["items"] if i.get("purged")]
    assert len(purged) == 1 and purged[0]["state"] == "rejected"  # never pinned again
    assert "Adopt the wobbegong vendor for invoices" in texts  # only its note is redacted


def test_the_next_queue_write_removes_it_from_disk(half_purged: Memoir) -> None:
    half_purged.review.enqueue([{"text": "Ship the narwhal exporter"}])
    text = (half_purged.root / "review.json").read_text()
    assert SECRET_WORDS not in text and "Ship the narwhal exporter" in text


def test_sync_never_sends_the_queues_copy(half_purged: Memoir) -> None:
    from memoir_tui.core.sync.apply import local_files
    from memoir_tui.core.sync.layout import REVIEW

    files, _skipped = local_files(half_purged)
    assert SECRET_WORDS.encode() not in files[REVIEW]
    assert b"Keep the capybara queue" in files[REVIEW]


def test_the_review_command_does_not_show_it(half_purged: Memoir, tmp_path: Path) -> None:
    proc = _run(tmp_path, half_purged.root, "review", "list", "--all")
    assert proc.returncode == 0, proc.stderr
    assert SECRET_WORDS not in proc.stdout and "capybara" in proc.stdout
