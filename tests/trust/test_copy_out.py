"""A secret already in a session (written by another tool) is never copied out of it:
not by ``merge`` (stdout, ``-o`` a file, ``-o`` another store) nor by a sync pull.

Every fake token is assembled from pieces, so this file holds none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings

from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.format.merge import merge_sessions
from memoir_tui.core.rules.withhold import withhold_secrets
from memoir_tui.core.workflows.memoir import Memoir
from tests.conftest import examples
from tests.core.strategies import sessions
from tests.deadlines import SAFETY_NET

TOKEN = "gh" + "p_" + "q7Xk2Lm9VtR4wZp8NcYh3JsGd6BfTu1EaWn5"
WHEN = "2026-05-01T00:00:00.000Z"


def _session(**current) -> dict:
    base = {"goals": [], "next_actions": [], "completed_actions": [], "open_questions": []}
    return {
        "version": 1,
        "created_at": WHEN,
        "updated_at": WHEN,
        "machines": {},
        "current": {**base, "decisions": [], **current},
        "history": [],
    }


def _dirty() -> dict:
    state = _session(
        decisions=[
            {"text": "Use SQLite", "date": WHEN, "why": "simple"},
            {"text": "Deploy with " + TOKEN, "date": WHEN},
            {"text": "Old way", "date": WHEN, "why": "used " + TOKEN, "hidden": True},
        ],
        next_actions=[{"text": "Rotate " + TOKEN, "added": WHEN}],
        completed_actions=[{"text": "Push with " + TOKEN, "done_at": WHEN}],
    )
    state["history"] = [{"date": WHEN, "machine_id": "m", "summary": "pushed " + TOKEN}]
    state["x_notes"] = {"token": TOKEN}
    return state


def test_live_items_are_held_back_and_tombstones_come_purged():
    out, notes = withhold_secrets(_dirty())
    assert TOKEN[6:] not in json.dumps(out)
    cur = out["current"]
    assert [d["text"] for d in cur["decisions"]] == ["Use SQLite", "[purged]"]
    hidden = cur["decisions"][1]
    assert hidden["hidden"] is True and hidden["text_hash"] == text_hash("Old way")
    assert "why" not in hidden
    assert cur["next_actions"] == []
    (done,) = cur["completed_actions"]
    assert done == {
        "text": "[purged]",
        "text_hash": text_hash("Push with " + TOKEN),
        "done_at": WHEN,
    }
    assert out["history"] == [] and "x_notes" not in out
    assert all("github-token" in n for n in notes) and len(notes) == 5
    assert not any(TOKEN[6:] in n for n in notes)


def test_a_purged_completion_still_suppresses_the_stale_action():
    stale = _session(next_actions=[{"text": "push with " + TOKEN, "added": "2026-04-01"}])
    out, _ = withhold_secrets(_dirty())
    merged = merge_sessions(stale, out)
    assert merged["current"]["next_actions"] == []


@settings(max_examples=examples(200))
@given(sessions())
def test_a_session_without_secrets_passes_unchanged(state):
    out, notes = withhold_secrets(state)
    assert out == state and notes == []


def _run(*args: str, store: Path | None = None) -> subprocess.CompletedProcess:
    env = os.environ.copy()
    if store is not None:
        env["MEMOIR_HOME"] = str(store)
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=SAFETY_NET,
    )


def test_merge_to_stdout_or_a_file_leaves_the_secret_behind(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_session(goals=[{"text": "Ship", "set_on": WHEN}])))
    b.write_text(json.dumps(_dirty()))
    proc = _run("merge", str(a), str(b))
    assert proc.returncode == 0, proc.stderr
    assert TOKEN[6:] not in proc.stdout
    merged = json.loads(proc.stdout)
    assert {d["text"] for d in merged["current"]["decisions"]} == {"Use SQLite", "[purged]"}
    assert "decisions: 2 items held back, holding a secret (github-token)" in proc.stderr
    assert TOKEN[6:] not in proc.stderr

    out = tmp_path / "out.json"
    proc = _run("merge", str(b), str(a), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert TOKEN[6:] not in out.read_text()


def test_merge_onto_a_store_copies_in_no_secret(tmp_path):
    store_dir = tmp_path / "store"
    store = Memoir(store_dir)
    store.note_decision("Use uv")
    remote = tmp_path / "remote.json"
    remote.write_text(json.dumps(_dirty()))
    proc = _run("merge", str(store.session_path), str(remote), "-o", str(store.session_path))
    assert proc.returncode == 0, proc.stderr
    text = store.session_path.read_text()
    assert TOKEN[6:] not in text and "Use uv" in text and "Use SQLite" in text
    assert "github-token" in proc.stderr and TOKEN[6:] not in proc.stderr


def test_sync_pull_copies_in_no_secret(store, tmp_path):
    from memoir_tui.core.sync.apply import apply_snapshot
    from memoir_tui.core.sync.layout import SESSION

    store.note_decision("Use uv")
    files = {SESSION: json.dumps(_dirty()).encode()}
    report = apply_snapshot(store, files, tmp_path / "staging")
    text = store.session_path.read_text()
    assert TOKEN[6:] not in text and "Use SQLite" in text and "Use uv" in text
    assert any("decisions" in n and "github-token" in n for n in report.notes)
    assert not any(TOKEN[6:] in n for n in report.notes)
