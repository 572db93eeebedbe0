"""The redo journal is ours alone: recovery rolls forward only a journal this machine's
writer recorded for this store, and sets anything else aside with a sentence.

A planted journal (any version, any shape, a replay of one of ours, one naming a
path outside the store) never writes a byte: every command leaves the file it names
byte-identical, renames the journal aside and tells the user once. Commands are real
processes with a scratch HOME.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memoir_tui.core.door.transaction import JOURNAL_FILE, SET_ASIDE, commit_record_path
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

ROOT = Path(__file__).resolve().parents[2]
EVIL = b"echo owned\n"


def env_for(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "MEMOIR_HOME": str(home / ".config" / "memoir"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PYTHONPATH": str(ROOT),
    }


def memoir(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=home,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


def write(path: str, data: bytes) -> dict[str, object]:
    return {"path": path, "data": base64.b64encode(data).decode(), "mode": 0o644}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    store = home / ".config" / "memoir"
    store.mkdir(parents=True)
    (home / ".bashrc").write_bytes(b"# mine\nexport PATH=$HOME/bin:$PATH\n")
    assert memoir(home, "goal", "Ship the importer").returncode == 0
    return home


def aside(store: Path) -> list[str]:
    return sorted(p.name for p in store.iterdir() if p.name.startswith(JOURNAL_FILE + SET_ASIDE))


def planted(home: Path, kind: str) -> bytes:
    """A journal someone who can write into the store folder might leave there."""
    store = home / ".config" / "memoir"
    bashrc = str(home / ".bashrc")
    outside = str(home / "outside.txt")
    v1 = {"version": 1, "op": "x", "writes": [write(bashrc, EVIL), write(outside, EVIL)]}
    v2 = {
        "version": 2,
        "op": "x",
        "store": str(store),
        "host_files": [bashrc, outside],
        "writes": [write(bashrc, EVIL), write(outside, EVIL)],
    }
    if kind == "version-1":
        return json.dumps(v1).encode()
    if kind == "version-2-unrecorded":
        return json.dumps(v2).encode()
    if kind == "future-version":
        return json.dumps({**v2, "version": 99}).encode()
    if kind == "dotdot-path":
        sneaky = str(store / ".." / ".." / ".." / ".bashrc")
        return json.dumps({**v2, "host_files": [], "writes": [write(sneaky, EVIL)]}).encode()
    if kind == "deep":
        return b'{"version": 2, "writes": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    raise AssertionError(kind)


KINDS = ["version-1", "version-2-unrecorded", "future-version", "dotdot-path", "deep"]


@pytest.mark.parametrize("command", [("status",), ("goal", "Another goal")])
@pytest.mark.parametrize("kind", KINDS)
def test_a_planted_journal_writes_nothing_is_set_aside_and_said(
    home: Path, kind: str, command: tuple[str, ...]
) -> None:
    store = home / ".config" / "memoir"
    (home / "outside.txt").write_bytes(b"untouched\n")
    before = {p: (home / p).read_bytes() for p in (".bashrc", "outside.txt")}
    session = (store / "session.json").read_bytes()
    journal = planted(home, kind)
    (store / JOURNAL_FILE).write_bytes(journal)

    result = memoir(home, *command)

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    for name, data in before.items():
        assert (home / name).read_bytes() == data, name  # byte-identical
    if command == ("status",):
        assert (store / "session.json").read_bytes() == session
    assert not (store / JOURNAL_FILE).exists()
    [name] = aside(store)
    assert (store / name).read_bytes() == journal  # kept as it was, for a person to look at
    told = [line for line in result.stderr.splitlines() if "set aside" in line]
    assert len(told) == 1 and name in told[0] and "nothing in it was applied" in told[0]
    again = memoir(home, "status")  # said once: the next command is quiet
    assert again.returncode == 0 and "set aside" not in again.stderr


def test_a_directory_or_a_link_where_the_journal_belongs_is_set_aside(home: Path) -> None:
    store = home / ".config" / "memoir"
    (store / JOURNAL_FILE).mkdir()
    result = memoir(home, "goal", "Despite a folder")
    assert result.returncode == 0, result.stderr
    assert "not a regular file" in result.stderr
    assert (store / aside(store)[0]).is_dir()
    (store / JOURNAL_FILE).symlink_to(home / ".bashrc")
    result = memoir(home, "note", "Use SQLite", "--why", "local first")
    assert result.returncode == 0, result.stderr
    assert "a link in its place" in result.stderr
    assert (home / ".bashrc").read_bytes().startswith(b"# mine")
    assert "Use SQLite" in memoir(home, "status").stdout


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
    store.purge_decision(store.working_set().decisions[0].key)
    """
)


def test_our_own_journal_is_rolled_forward_once_and_a_replay_is_set_aside(home: Path) -> None:
    store = home / ".config" / "memoir"
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(store)],
        env=env_for(home),
        capture_output=True,
        timeout=SAFETY_NET,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    journal = (store / JOURNAL_FILE).read_bytes()
    recorded = home / ".local" / "share" / "memoir-tui" / "commits"
    [entry] = list(recorded.iterdir())
    assert entry.stat().st_mode & 0o777 == 0o600
    assert recorded.stat().st_mode & 0o777 == 0o700
    assert entry.read_text().split()[0] == hashlib.sha256(journal).hexdigest()

    first = memoir(home, "status")  # ours: completed, not set aside
    assert first.returncode == 0 and "set aside" not in first.stderr
    assert not (store / JOURNAL_FILE).exists() and not aside(store)
    assert not entry.exists()
    assert "Use SQLite for the cache" not in (store / "session.json").read_text()
    purged = (store / "session.json").read_bytes()

    (store / JOURNAL_FILE).write_bytes(journal)  # the same journal again: a replay
    again = memoir(home, "status")
    assert "set aside" in again.stderr
    assert (store / "session.json").read_bytes() == purged


def test_a_journal_from_another_store_is_not_applied_here(tmp_path: Path) -> None:
    """Copied from a store it was recorded for: the record names that store, not this."""
    first, second = tmp_path / "a", tmp_path / "b"
    Memoir(first).add_goal("One")
    Memoir(second).add_goal("Two")
    journal = first / JOURNAL_FILE
    journal.write_text("{}")
    digest = hashlib.sha256(b"{}").hexdigest()
    record = commit_record_path(first)
    record.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    record.write_text(f"{digest} {first}\n")
    record.chmod(0o600)
    shutil.copy(journal, second / JOURNAL_FILE)
    before = (second / "session.json").read_bytes()
    Memoir(second).add_next_action("Anything")
    assert not (second / JOURNAL_FILE).exists() and aside(second)
    assert (
        json.loads((second / "session.json").read_bytes())["current"]["goals"]
        == json.loads(before)["current"]["goals"]
    )


def test_a_recorded_journal_with_an_undeclared_outside_path_is_set_aside(
    tmp_path: Path,
) -> None:
    """Defence in depth: even a recorded journal writes outside the store only the files
    it declared."""
    store_dir = tmp_path / "store"
    store = Memoir(store_dir)
    store.add_goal("One")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"untouched\n")
    payload = {
        "version": 2,
        "op": "x",
        "store": str(store_dir),
        "host_files": [],
        "writes": [write(str(outside), EVIL)],
    }
    data = json.dumps(payload).encode()
    (store_dir / JOURNAL_FILE).write_bytes(data)
    record = commit_record_path(store_dir)
    record.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    record.write_text(f"{hashlib.sha256(data).hexdigest()} {store_dir}\n")
    record.chmod(0o600)
    store.add_goal("Two")
    assert outside.read_bytes() == b"untouched\n"
    assert aside(store_dir)
    from memoir_tui.core.door.transaction import take_notices

    [note] = take_notices(store_dir)
    assert "outside the store it did not declare" in note
