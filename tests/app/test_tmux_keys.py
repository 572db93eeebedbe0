"""Keys typed fast in a real terminal, on a real-looking store opened from a project.

The app runs as ``python -m memoir_tui`` in tmux, started in a git project
under the scratch home, on a store of its own (``--store``). Keys are sent
in one burst (one ``send-keys``), the way a person types who knows the app.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from tests.app.tmux import Tmux, exit_code, needs_tmux, start_app
from tests.deadlines import SAFETY_NET

pytestmark = needs_tmux

KEEP = "Use Postgres 16"
PURGE = "Put the API key in ocelot"
OTHER = "Deploy beta blue-green"
NEXT = "Write the Alembic migration"


def git_project(path: Path, remote: str) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


@pytest.fixture
def lived_in(tmp_path: Path) -> tuple[Path, Path]:
    """(alpha project, store root): decisions in alpha and beta, a next action in alpha."""
    home = Path(os.environ["HOME"])
    alpha = git_project(home / "code" / f"alpha-{tmp_path.name}", "git@example.com:acme/alpha.git")
    beta = git_project(home / "code" / f"beta-{tmp_path.name}", "git@example.com:acme/beta.git")
    root = tmp_path / "store"  # this test's own store, not the worker's shared one
    here = Memoir.for_directory(root, actor="cli", cwd=alpha)
    here.note_decision(KEEP)
    here.note_decision(PURGE)
    here.add_next_action(NEXT)
    Memoir.for_directory(root, actor="cli", cwd=beta).note_decision(OTHER)
    return alpha, root


def open_app(tmux: Tmux, tmp_path: Path, cwd: Path, store: Path) -> Path:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    status = start_app(tmux, ["--store", str(store)], tmpdir=tmpdir, cwd=cwd)
    tmux.wait_for_text("Next actions", "project: alpha")
    tmux.wait_until_reading_keys()  # keys sent before that would be echoed, not read
    return status


@pytest.mark.parametrize("key", ["2", "3", "9", "?", "a", "s"])
def test_a_key_right_after_q_exits_cleanly(
    tmux: Tmux, tmp_path: Path, lived_in: tuple[Path, Path], key: str
) -> None:
    alpha, root = lived_in
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("q", key)
    code = exit_code(status, tmux)
    screen = tmux.screen()
    assert code == 0, screen
    assert "Traceback" not in screen and "Error" not in screen, screen


def test_x_then_q_leaves_the_completion_on_disk(
    tmux: Tmux, tmp_path: Path, lived_in: tuple[Path, Path]
) -> None:
    alpha, root = lived_in
    status = open_app(tmux, tmp_path, alpha, root)
    # The first list with items has the focus: the next actions.
    tmux.keys("x", "q")
    assert exit_code(status, tmux) == 0, tmux.screen()
    current = json.loads((root / "session.json").read_text())["current"]
    assert [a["text"] for a in current["completed_actions"]] == [NEXT]
    assert NEXT not in [a["text"] for a in current["next_actions"]]


def test_escape_closes_only_the_dialog_it_was_typed_for(
    tmux: Tmux, tmp_path: Path, lived_in: tuple[Path, Path]
) -> None:
    alpha, root = lived_in
    status = open_app(tmux, tmp_path, alpha, root)
    # `2 d` in one burst: the dialog opens while the Decisions pane is still being built.
    # A terminal sends escape and the key after it within Textual's escape delay as one
    # sequence (escape, ? arrive as "^"), so each escape gets a short pause after it.
    tmux.keys("2", "d", "Escape")
    time.sleep(1.0)  # long enough for the dialog to have opened, had escape gone astray
    tmux.wait_for(lambda s: "Hide this decision for ever?" not in s, "escape to close it")
    tmux.keys("?")
    tmux.wait_for_text("Decisions (this pane)")  # help, over the Decisions pane
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "Decisions (this pane)" not in s, "escape to close the help")
    tmux.keys("3")
    tmux.wait_for_text("No candidates waiting")  # the Review pane
    screen = tmux.screen()
    assert "Hide this decision for ever?" not in screen, screen
    tmux.keys("q")
    assert exit_code(status, tmux) == 0
    hidden = [
        d
        for d in json.loads((root / "session.json").read_text())["current"]["decisions"]
        if d.get("hidden")
    ]
    assert hidden == []


def test_a_purge_from_another_shell_leaves_the_screen_without_a_key(
    tmux: Tmux, tmp_path: Path, lived_in: tuple[Path, Path]
) -> None:
    alpha, root = lived_in
    status = open_app(tmux, tmp_path, alpha, root)
    tmux.keys("2")
    screen = tmux.wait_for_text(KEEP, PURGE, "2 decisions")
    assert OTHER not in screen
    tmux.keys("1")
    tmux.wait_for(lambda s: PURGE not in s, "the Working set pane")
    done = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "forget", text_hash(PURGE), "--purge", "--yes"],
        env={**os.environ, "MEMOIR_HOME": str(root)},
        cwd=str(alpha),
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )
    assert done.returncode == 0, done.stderr
    tmux.keys("2")
    # How soon is speed (the store watcher's), not asserted here: the screen follows
    # the disk with no key but the pane's own.
    screen = tmux.wait_for(
        lambda s: KEEP in s and PURGE not in s and "1 decision ·" in s,
        "the purged decision to leave the screen",
    )
    # Counts match rows: one decision, drawn once.
    assert screen.count(KEEP) == 1
    tmux.keys("A")
    screen = tmux.wait_for_text(OTHER, KEEP, "all projects")
    tmux.keys("q")
    assert exit_code(status, tmux) == 0
    assert PURGE not in (root / "session.json").read_text()
