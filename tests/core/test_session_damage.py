"""Damage is kept and said, never silently dropped: wrong shapes, non-finite numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoir_tui.core.format.session import MISSHAPEN, NEWER_VERSION, UNREADABLE, load_session
from memoir_tui.core.workflows.memoir import Memoir


@pytest.mark.parametrize(
    "raw, problem",
    [
        ({"version": 1, "current": {"decisions": {"a": {"text": "x"}}}}, "current.decisions"),
        ({"version": 1, "current": {}, "history": {"0": {"summary": "x"}}}, "history"),
        ({"version": "1", "current": {"goals": [{"text": "g"}]}}, "version"),
        ({"version": 1, "current": [1, 2]}, "current is not"),
    ],
)
def test_a_wrong_shape_is_copied_aside_before_the_next_write(
    store: Memoir, raw: dict, problem: str
) -> None:
    data = json.dumps(raw).encode()
    store.session_path.parent.mkdir(parents=True, exist_ok=True)
    store.session_path.write_bytes(data)
    loaded = store.load()
    assert loaded.damage == MISSHAPEN and problem in (loaded.notice or "")
    assert loaded.backup is not None and loaded.backup.read_bytes() == data
    assert loaded.backup.stat().st_mode & 0o777 == 0o600
    store.add_goal("After the damage")  # the write replaces the file; the copy stays
    assert loaded.backup.read_bytes() == data
    assert len(list(store.root.glob("session.json.misshapen-*"))) == 1


def test_a_string_version_above_ours_is_newer_not_zero(store: Memoir) -> None:
    store.session_path.parent.mkdir(parents=True, exist_ok=True)
    store.session_path.write_text('{"version": "2", "current": {}}')
    assert load_session(store.session_path).damage == NEWER_VERSION


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_refused_on_read_and_never_written(
    store: Memoir, token: str
) -> None:
    text = '{"version": 1, "current": {}, "x": ' + token + "}"
    store.session_path.parent.mkdir(parents=True, exist_ok=True)
    store.session_path.write_text(text)
    loaded = store.load()
    assert loaded.damage == UNREADABLE and loaded.backup.read_text() == text
    store.add_goal("Fresh")
    assert token not in store.session_path.read_text()
    json.loads(store.session_path.read_text(), parse_constant=pytest.fail)


def test_status_says_when_the_session_is_damaged(store_dir: Path) -> None:
    import subprocess
    import sys

    (store_dir / "session.json").write_text('{"version": 1, "current": {"goals": {}}}')
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "status"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "wrong shape" in proc.stderr and "misshapen" in proc.stderr
