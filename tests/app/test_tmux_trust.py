"""Undo that never reaches back, items that keep their project, keys that are never lost:
in a real terminal (tmux), with real keys, each outcome read from the disk.

Keys are sent in one burst (one ``send-keys``) where the issue says "in one burst"; the
tests then wait for the state (the file on disk, or the screen), never for a time: the
deadlines are only a safety net on a machine shared by many.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.workflows.memoir import Memoir
from tests.app.tmux import Tmux, exit_code, needs_tmux, start_app
from tests.deadlines import SAFETY_NET

pytestmark = needs_tmux

KEEP = "Use Postgres 16"
HIDE = "Put the API key in ocelot"
NOTE = "Ship the CLI through pipx"
NEXT = "Write the Alembic migration"
QUESTION = "Should offline edits merge per field"
CANDIDATES = (
    "Use ruff for linting and formatting",
    "Run the Playwright suite on every pull request",
    "Use Redux Toolkit for the client state",
)
DEADLINE = SAFETY_NET


def git_project(path: Path, remote: str) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


@pytest.fixture
def alpha_store(tmp_path: Path) -> tuple[Path, Path]:
    """(the alpha project, a store of this test's own): two of alpha's decisions, one of
    its next actions, and a global question (asked outside any project)."""
    home = Path(os.environ["HOME"])
    alpha = git_project(home / "code" / f"alpha-{tmp_path.name}", "git@example.com:acme/alpha.git")
    root = tmp_path / "store"
    here = Memoir.for_directory(root, actor="cli", cwd=alpha)
    here.note_decision(KEEP)
    here.note_decision(HIDE)
    here.add_next_action(NEXT)
    Memoir(root, actor="cli").ask_question(QUESTION)  # no project: global
    return alpha, root


def open_app(tmux: Tmux, tmp_path: Path, cwd: Path, store: Path) -> Path:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    status = start_app(tmux, ["--store", str(store)], tmpdir=tmpdir, cwd=cwd)
    tmux.wait_for_text("Next actions", "project: alpha", timeout=DEADLINE)
    tmux.wait_until_reading_keys()  # keys sent before that would be echoed, not read
    return status


def session(root: Path) -> dict[str, Any]:
    return json.loads((root / "session.json").read_text(encoding="utf-8"))


def review(root: Path) -> dict[str, str]:
    items = json.loads((root / "review.json").read_text(encoding="utf-8"))["items"]
    return {i["text"]: i["state"] for i in items}


def wait_disk(read: Callable[[], Any], ok: Callable[[Any], bool], what: str) -> Any:
    deadline = time.monotonic() + DEADLINE
    value = None
    while time.monotonic() < deadline:
        try:
            value = read()
        except (OSError, ValueError):  # not written yet
            value = None
        if value is not None and ok(value):
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; last read: {value!r}")


def decisions(root: Path) -> dict[str, dict[str, Any]]:
    return {d["text"]: d for d in session(root)["current"]["decisions"] if "text" in d}


def quit_app(tmux: Tmux, status: Path) -> None:
    tmux.keys("C-q")
    assert exit_code(status, tmux, timeout=DEADLINE) == 0, tmux.screen()


def test_u_after_a_hide_says_it_cannot_be_undone_and_keeps_the_note(
    tmux: Tmux, tmp_path: Path, alpha_store: tuple[Path, Path]
) -> None:
    alpha, root = alpha_store
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("2")
    tmux.wait_for_text("2 decisions", timeout=DEADLINE)
    tmux.keys("a")
    tmux.wait_for_text("Note a decision", timeout=DEADLINE)
    tmux.type(NOTE)
    tmux.keys("C-s")
    tmux.wait_for_text("save again to go ahead", timeout=DEADLINE)  # no why: asked once
    tmux.keys("C-s")
    wait_disk(lambda: decisions(root), lambda d: NOTE in d, "the note on disk")
    tmux.wait_for(lambda s: "Note a decision" not in s, "the dialog to close", DEADLINE)
    # The filter puts the cursor on the decision to hide (not on the note just added).
    tmux.keys("/")
    tmux.type("ocelot")
    tmux.keys("Enter")
    tmux.wait_for(lambda s: "ocelot" in s and KEEP not in s, "the filter")
    tmux.keys("d")
    tmux.wait_for_text("Hide this decision for ever?", timeout=DEADLINE)
    tmux.keys("y")
    wait_disk(lambda: decisions(root), lambda d: d[HIDE].get("hidden"), "the hide on disk")
    tmux.keys("u")
    tmux.wait_for_text("cannot be undone", timeout=DEADLINE)
    quit_app(tmux, status)
    after = decisions(root)
    assert NOTE in after and not after[NOTE].get("hidden"), after
    assert after[HIDE].get("hidden") is True


def test_u_after_a_bulk_reject_leaves_the_pin(
    tmux: Tmux, tmp_path: Path, alpha_store: tuple[Path, Path]
) -> None:
    alpha, root = alpha_store
    queued = Memoir.for_directory(root, actor="cli", cwd=alpha)
    queued.review.enqueue(
        [
            {
                "text": text,
                "kind": "decision",
                "source": "assistant",
                "extractor": "decision.going_with",
                "session_id": "sess-7f3a",
                "timestamp": f"2026-06-30T10:0{minute}:00.000Z",
                "tool": "claude-code",
            }
            for minute, text in enumerate(CANDIDATES)
        ]
    )
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("3")
    tmux.wait_for_text(*(c[:12] for c in CANDIDATES), timeout=DEADLINE)
    tmux.keys("p")
    tmux.wait_for_text("Pin", "Why", timeout=DEADLINE)
    tmux.keys("C-s")
    pinned = wait_disk(
        lambda: review(root), lambda r: "pinned" in r.values(), "the pin in the queue file"
    )
    first = next(t for t, state in pinned.items() if state == "pinned")
    wait_disk(lambda: decisions(root), lambda d: first in d, "the pinned decision")
    # The queue is read again after the pin: mark only once the pinned row has left the
    # list, or a mark can land on it under load.
    others = [c for c in CANDIDATES if c != first]
    tmux.wait_for(
        lambda s: (
            first[:12] not in s.split("Candidate", 1)[-1] and all(c[:12] in s for c in others)
        ),
        "the pinned candidate gone from the Review list",
    )
    tmux.keys("space", "space")
    tmux.wait_for_text("2 marked", timeout=DEADLINE)
    tmux.keys("x")
    tmux.wait_for_text("Reject 2 marked candidates?", timeout=DEADLINE)
    tmux.type("2")
    tmux.keys("Enter")
    wait_disk(
        lambda: review(root),
        lambda r: sorted(r.values()) == ["pinned", "rejected", "rejected"],
        "the bulk reject on disk",
    )
    tmux.keys("u")
    tmux.wait_for_text("cannot be undone", timeout=DEADLINE)
    quit_app(tmux, status)
    assert sorted(review(root).values()) == ["pinned", "rejected", "rejected"]
    assert first in decisions(root) and not decisions(root)[first].get("hidden")


def test_a_global_question_edited_inside_a_project_stays_global(
    tmux: Tmux, tmp_path: Path, alpha_store: tuple[Path, Path]
) -> None:
    alpha, root = alpha_store
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.wait_for_text(QUESTION, timeout=DEADLINE)
    # Tab goes round the pane's lists: goals, next actions, questions.
    tmux.keys("Tab")
    tmux.keys("e")
    tmux.wait_for_text("Edit: Open question", timeout=DEADLINE)
    tmux.keys("End")
    tmux.type(" or per record?")
    tmux.keys("Enter")
    edited = f"{QUESTION} or per record?"
    questions = wait_disk(
        lambda: {q["text"]: q for q in session(root)["current"]["open_questions"]},
        lambda q: edited in q,
        "the edited question on disk",
    )
    quit_app(tmux, status)
    assert "project" not in questions[edited], questions[edited]
    assert QUESTION not in questions


def test_a_then_a_word_in_one_burst_saves_the_whole_word(
    tmux: Tmux, tmp_path: Path, alpha_store: tuple[Path, Path]
) -> None:
    alpha, root = alpha_store
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("a", *"lowercase", "Enter")
    wait_disk(
        lambda: [a["text"] for a in session(root)["current"]["next_actions"]],
        lambda texts: len(texts) == 2,
        "the new next action",
    )
    quit_app(tmux, status)
    assert [a["text"] for a in session(root)["current"]["next_actions"]][-1] == "lowercase"


def test_escape_then_1_in_one_burst_goes_to_pane_1(
    tmux: Tmux, tmp_path: Path, alpha_store: tuple[Path, Path]
) -> None:
    alpha, root = alpha_store
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("2")
    tmux.wait_for_text("2 decisions", "/ filter decisions", timeout=DEADLINE)
    tmux.keys("Escape", "1")  # one read: "\x1b1", which Textual decodes as "¡"
    tmux.wait_for_text("Next actions · 1", timeout=DEADLINE)
    quit_app(tmux, status)


def test_escape_closes_the_dialog_and_the_key_after_it_still_counts(
    tmux: Tmux, tmp_path: Path, alpha_store: tuple[Path, Path]
) -> None:
    alpha, root = alpha_store
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("2", "d", "Escape", "?", "Escape", "3")  # one burst
    tmux.wait_for_text("No candidates waiting", timeout=DEADLINE)
    screen = tmux.screen()
    assert "Hide this decision for ever?" not in screen, screen
    assert "Decisions (this pane)" not in screen, screen  # help closed too
    quit_app(tmux, status)
    assert not any(d.get("hidden") for d in decisions(root).values())
