"""Loading, quarantining, migrating and saving session.json."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoir_tui.core.base.errors import ReadOnlyStoreError
from memoir_tui.core.format.session import (
    MIGRATIONS,
    ReadOnlySessionError,
    empty_session,
    load_session,
    migrate_session,
    save_session,
)
from memoir_tui.core.format.validate import ERROR, validate_session_data
from tests.conftest import examples


def test_missing_file_is_an_empty_valid_state(tmp_path):
    loaded = load_session(tmp_path / "session.json")
    assert loaded.state["current"]["decisions"] == []
    assert not loaded.read_only and loaded.notice is None
    assert not (tmp_path / "session.json").exists()


def test_unparseable_is_copied_aside_and_three_newest_kept(tmp_path):
    path = tmp_path / "session.json"
    originals = []
    for n in range(5):
        data = f'{{"broken": {n}'.encode()
        originals.append(data)
        path.write_bytes(data)
        loaded = load_session(path)
        assert loaded.state["current"]["goals"] == []
        assert loaded.backup is not None and loaded.backup.read_bytes() == data
        assert path.read_bytes() == data  # the original is never rewritten by a load
    copies = sorted(tmp_path.glob("session.json.corrupted-*"))
    assert len(copies) == 3
    assert {c.read_bytes() for c in copies} == set(originals[-3:])


def test_newer_version_goes_read_only_and_is_never_replaced(tmp_path, store_dir, clock):
    from memoir_tui.core.workflows.memoir import Memoir

    path = store_dir / "session.json"
    newer = {"version": 2, "current": {"decisions": [{"text": "from the future"}]}, "x": 1}
    raw = json.dumps(newer).encode()
    path.write_bytes(raw)
    loaded = load_session(path)
    assert loaded.read_only and "newer memoir format" in loaded.notice
    assert loaded.state["current"]["decisions"] == []  # not interpreted
    assert loaded.backup.read_bytes() == raw
    assert load_session(path).notice is None  # told once
    store = Memoir(store_dir, clock=clock)
    with pytest.raises(ReadOnlyStoreError):
        store.add_goal("anything")
    with pytest.raises(ReadOnlySessionError):
        save_session(path, empty_session())
    assert path.read_bytes() == raw
    assert len(list(store_dir.glob("session.json.pre-migration-*"))) == 1  # re-reads reuse the copy


def test_ladder_migrates_old_files_and_keeps_unknown_fields():
    old = {"current": {"goals": [{"text": "g", "mine": 1}]}, "custom": {"a": 1}}
    future, state = migrate_session(old)
    assert not future
    assert state["version"] == 1 and state["custom"] == {"a": 1}
    assert state["current"]["goals"] == [{"text": "g", "mine": 1}]
    assert state["current"]["completed_actions"] == []
    assert set(MIGRATIONS) == {0}


@pytest.mark.parametrize(
    "raw", [None, [], "x", 3, {"version": "1"}, {"version": float("nan")}, {"version": -4}]
)
def test_migration_never_throws(raw):
    future, state = migrate_session(raw)
    assert not future and state["version"] == 1


def test_save_is_atomic_and_keeps_unknown_fields_at_every_level(tmp_path):
    path = tmp_path / "session.json"
    state = empty_session("2026-01-01T00:00:00.000Z")
    state["top_extra"] = [1, 2]
    state["current"]["cur_extra"] = {"k": "v"}
    state["current"]["goals"].append({"text": "g", "set_on": "2026-01-01", "item_extra": True})
    state["machines"]["m"] = {"label": "l", "last_seen": "2026-01-01", "machine_extra": 5}
    state["history"].append({"date": "2026-01-01", "summary": "s", "history_extra": "h"})
    save_session(path, state, now="2026-01-02T00:00:00.000Z")
    again = load_session(path).state
    assert again["top_extra"] == [1, 2]
    assert again["current"]["cur_extra"] == {"k": "v"}
    assert again["current"]["goals"][0]["item_extra"] is True
    assert again["machines"]["m"]["machine_extra"] == 5
    assert again["history"][0]["history_extra"] == "h"
    assert again["updated_at"] == "2026-01-02T00:00:00.000Z"
    assert [p.name for p in tmp_path.iterdir()] == ["session.json"]  # no temp file left


# --- fuzzing ---------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)
session_like = st.fixed_dictionaries(
    {},
    optional={
        "version": st.one_of(st.integers(-2, 3), st.text(max_size=3), st.none(), st.floats()),
        "created_at": json_values,
        "machines": json_values,
        "current": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {},
                optional={
                    k: json_values
                    for k in ("goals", "next_actions", "decisions", "completed_actions")
                },
            ),
        ),
        "history": json_values,
    },
)


def _check_load_leaves_valid_store(path, raw: bytes):
    path.write_bytes(raw)
    loaded = load_session(path)
    assert path.read_bytes() == raw  # the original bytes are never lost
    if loaded.read_only:
        return
    findings = validate_session_data(path, json.loads(json.dumps(loaded.state)))
    # a loaded state may carry odd items, but its shape is always valid
    assert not [f for f in findings if f.severity == ERROR and f.rule.startswith("session.")]
    save_session(path, loaded.state)
    assert load_session(path).state["current"].keys() >= {"goals", "decisions"}


@settings(
    max_examples=examples(150, soak=3000),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(raw=st.binary(max_size=300))
def test_random_bytes_never_crash_a_load(tmp_path, raw):
    path = tmp_path / "fuzz" / "session.json"
    path.parent.mkdir(exist_ok=True)
    _check_load_leaves_valid_store(path, raw)


@settings(
    max_examples=examples(150, soak=3000),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=session_like, cut=st.integers(0, 400))
def test_wrong_types_and_truncations_never_crash_a_load(tmp_path, data, cut):
    path = tmp_path / "fuzz2" / "session.json"
    path.parent.mkdir(exist_ok=True)
    raw = json.dumps(data).encode()
    _check_load_leaves_valid_store(path, raw)
    _check_load_leaves_valid_store(path, raw[:cut])


def test_huge_and_deep_values_never_crash(tmp_path):
    path = tmp_path / "session.json"
    _check_load_leaves_valid_store(path, b"[" * 100_000 + b"]" * 100_000)
    big = {"version": 1, "current": {"goals": [{"text": "x" * 2_000_000}]}}
    _check_load_leaves_valid_store(path, json.dumps(big).encode())
    _check_load_leaves_valid_store(path, b'{"version": 1e400}')
    assert len(list(tmp_path.glob("session.json.corrupted-*"))) <= 3
    assert os.path.exists(path)
