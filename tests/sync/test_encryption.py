"""Encrypted remotes: round trip, and every kind of damage rejected without local change."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memoir_tui.core.sync import (
    IntegrityError,
    ModeMismatchError,
    PassphraseError,
    WrongPassphraseError,
    init_sync,
    run_sync,
    sync_status,
)
from memoir_tui.core.sync.crypto import MAGIC, KdfParams, Keys, read_key_file
from memoir_tui.core.sync.layout import BLOB_DIR, MANIFEST

from .helpers import (
    all_git_objects,
    make_machines,
    remote_head,
    tamper,
    tree_bytes,
    write_entry,
)

SECRET_TEXT = "the launch date is the ninth"


@pytest.fixture
def pair(tmp_path):
    a, b = make_machines(tmp_path, "AB", encrypted=True)
    a.store.add_goal(SECRET_TEXT)
    a.store.note_decision("Encrypt the remote", why="it is shared")
    write_entry(a.root, "fact_one", "first entry body")
    write_entry(a.root, "fact_two", "second entry body")
    a.sync()
    return a, b


def _manifest_paths(a) -> dict[str, str]:
    """hashed name → logical path, decrypted with A's keys (the test knows the passphrase)."""
    from memoir_tui.core.sync.layout import MANIFEST_PATH

    header = json.loads(_remote_file(a.remote, "memoir-sync.json"))
    keys = Keys(a.passphrase, KdfParams.from_json(header["kdf"]))
    raw = keys.open(MANIFEST_PATH, _remote_file(a.remote, MANIFEST), header["format_version"])
    return {h: info["path"] for h, info in json.loads(raw)["files"].items()}


def _remote_file(remote: Path, path: str) -> bytes:
    from .helpers import remote_file

    return remote_file(remote, path)


def test_round_trip_and_only_ciphertext_on_the_remote(pair):
    a, b = pair
    b.sync()
    assert b.view() == a.view()
    assert SECRET_TEXT in b.view()["goals"]
    objects = all_git_objects(a.remote)
    for text in (SECRET_TEXT, "first entry body", "Encrypt the remote", "fact_one", "session"):
        assert text.encode() not in objects
    header = json.loads(_remote_file(a.remote, "memoir-sync.json"))
    assert header["encrypted"] is True and header["kdf"]["name"] == "scrypt"
    assert "passphrase" not in json.dumps(header).lower()
    paths = _manifest_paths(a)
    assert sorted(paths.values()) == [
        "machines.json",
        "memory/fact_one.md",
        "memory/fact_two.md",
        "session.json",
    ]
    blob = _remote_file(a.remote, BLOB_DIR + next(iter(paths)))
    assert blob.startswith(MAGIC)
    # Nothing secret in the local config either.
    assert a.passphrase not in (a.root / "sync.json").read_text()
    assert sync_status(b.store).encrypted


def _assert_rejected_without_change(b, error, match=None):
    before = tree_bytes(b.root)
    with pytest.raises(error, match=match) as info:
        b.pull()
    assert tree_bytes(b.root) == before
    status = sync_status(b.store)
    assert status.last_ok is False and str(info.value) in (status.last_result or "")
    return info.value


def _store_with_local_work(b):
    b.store.add_goal("B's own goal")
    write_entry(b.root, "fact_b", "B's entry")


def test_wrong_passphrase(pair):
    a, b = pair
    _store_with_local_work(b)
    b.passphrase = "not the passphrase"
    err = _assert_rejected_without_change(b, WrongPassphraseError, "wrong passphrase")
    assert "not the passphrase" not in str(err)
    b.passphrase = a.passphrase
    b.sync()
    assert SECRET_TEXT in b.view()["goals"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "swap", "manifest", "drop"])
def test_damaged_remote_is_rejected(pair, tmp_path, damage):
    a, b = pair
    _store_with_local_work(b)
    paths = _manifest_paths(a)
    by_path = {p: h for h, p in paths.items()}
    session_blob = BLOB_DIR + by_path["session.json"]
    entry_blob = BLOB_DIR + by_path["memory/fact_one.md"]

    def edit(work: Path) -> None:
        if damage == "flip":
            data = bytearray((work / session_blob).read_bytes())
            data[len(data) // 2] ^= 0x01
            (work / session_blob).write_bytes(bytes(data))
        elif damage == "truncate":
            data = (work / entry_blob).read_bytes()
            (work / entry_blob).write_bytes(data[: len(data) - 7])
        elif damage == "swap":
            x, y = (work / session_blob).read_bytes(), (work / entry_blob).read_bytes()
            (work / session_blob).write_bytes(y)
            (work / entry_blob).write_bytes(x)
        elif damage == "manifest":
            data = bytearray((work / MANIFEST).read_bytes())
            data[-1] ^= 0x80
            (work / MANIFEST).write_bytes(bytes(data))
        elif damage == "drop":
            os.unlink(work / entry_blob)

    tamper(a.remote, tmp_path, edit)
    _assert_rejected_without_change(b, IntegrityError)


def test_blob_swapped_with_a_copy_of_itself_under_another_name_is_caught(pair, tmp_path):
    """The name is bound by the associated data, not only by the manifest's digest."""
    a, _b = pair
    header = json.loads(_remote_file(a.remote, "memoir-sync.json"))
    keys = Keys(a.passphrase, KdfParams.from_json(header["kdf"]))
    sealed = keys.seal("memory/fact_one.md", b"same bytes", 1)
    assert keys.open("memory/fact_one.md", sealed, 1) == b"same bytes"
    with pytest.raises(IntegrityError, match="swapped"):
        keys.open("memory/fact_two.md", sealed, 1)
    with pytest.raises(IntegrityError):
        keys.open("memory/fact_one.md", sealed, 2)  # the format version is bound too
    with pytest.raises(IntegrityError, match="truncated"):
        keys.open("memory/fact_one.md", sealed[:20], 1)
    with pytest.raises(IntegrityError, match="header"):
        keys.open("memory/fact_one.md", b"X" * 64, 1)


def test_subkeys_are_separate_and_nonces_fresh():
    params = KdfParams.new(2**10)
    keys = Keys("pass", params)
    one, two = keys.seal("session.json", b"x", 1), keys.seal("session.json", b"x", 1)
    assert one != two and one[: len(MAGIC)] == MAGIC
    assert len({one[len(MAGIC) : len(MAGIC) + 12], two[len(MAGIC) : len(MAGIC) + 12]}) == 2
    assert keys.name_for("session.json") != keys.name_for("review.json")
    assert keys._content != keys._names != keys._check
    other = Keys("pass", KdfParams.new(2**10))  # another salt
    assert other.name_for("session.json") != keys.name_for("session.json")
    with pytest.raises(WrongPassphraseError):
        Keys("wrong", params).verify_key_check(keys.key_check(1), 1)


def test_passphrase_sources(tmp_path, monkeypatch):
    a, b = make_machines(tmp_path, "AB", encrypted=True)
    a.store.add_goal("from A")
    a.sync()
    monkeypatch.setenv("MEMOIR_PASSPHRASE", a.passphrase)
    run_sync(b.store, "pull")
    assert "from A" in b.view()["goals"]
    monkeypatch.delenv("MEMOIR_PASSPHRASE")
    with pytest.raises(PassphraseError, match="MEMOIR_PASSPHRASE"):
        run_sync(b.store, "pull")
    key = tmp_path / "key"
    key.write_text(a.passphrase + "\n")
    key.chmod(0o644)
    with pytest.raises(PassphraseError, match="too open"):
        read_key_file(key)
    with pytest.raises(PassphraseError, match="too open"):
        run_sync(b.store, "pull", key_file=str(key))
    key.chmod(0o600)
    assert read_key_file(key) == a.passphrase
    run_sync(b.store, "pull", key_file=str(key))


def test_mode_mismatch_is_refused(tmp_path):
    a, _b = make_machines(tmp_path, "AB", encrypted=True)
    a.store.add_goal("x")
    a.sync()
    from memoir_tui.core.workflows.memoir import Memoir

    plain = Memoir(tmp_path / "plain", machine_label="P")
    with pytest.raises(ModeMismatchError, match="--encrypt"):
        init_sync(plain, str(a.remote), work_dir=str(tmp_path / "work-P"))
    assert not (tmp_path / "plain" / "sync.json").exists()
    head = remote_head(a.remote)
    with pytest.raises(WrongPassphraseError):
        init_sync(
            plain,
            str(a.remote),
            encrypt=True,
            passphrase="wrong",
            work_dir=str(tmp_path / "work-P"),
        )
    assert remote_head(a.remote) == head
