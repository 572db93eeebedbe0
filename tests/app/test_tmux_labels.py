"""Projects whose labels share a prefix, told apart in a real 80-column terminal.

Three git projects (``acme/tideline-web``, ``other/tideline-web`` and
``acme/tideline-web-admin``) each note a decision through the CLI's own
project scoping; the app is opened in the first, ``A`` shows every project, and
the Decisions pane must show each project's full label on screen.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from memoir_tui.core.workflows.memoir import Memoir
from tests.app.tmux import Tmux, exit_code, needs_tmux, start_app

pytestmark = needs_tmux

REMOTES = {  # folder → its origin
    "web": "git@github.com:acme/tideline-web.git",
    "fork": "git@github.com:other/tideline-web.git",
    "admin": "git@github.com:acme/tideline-web-admin.git",
}


def git_project(path: Path, remote: str) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


def test_labels_sharing_a_prefix_are_told_apart_at_80_columns(tmux: Tmux, tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    root = tmp_path / "store"
    folders = {}
    for name, remote in REMOTES.items():
        folders[name] = git_project(home / "code" / f"{name}-{tmp_path.name}", remote)
        Memoir.for_directory(root, actor="cli", cwd=folders[name]).note_decision(f"Use {name}")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    status = start_app(
        tmux, ["--store", str(root)], tmpdir=tmpdir, cwd=folders["web"], size=(80, 24)
    )
    tmux.wait_for_text("project: acme/tideline-web")
    tmux.wait_until_reading_keys()  # keys sent before that would be echoed, not read
    tmux.keys("A")
    tmux.wait_for_text("all projects · this one: acme/tideline-web")
    tmux.keys("2")
    screen = tmux.wait_for_text("Use admin", "Project")
    rows = {
        line.split()[1]: line.rstrip()
        for line in screen.splitlines()
        if line.strip().startswith("Use ")
    }
    assert rows["web"].endswith(" acme/tideline-web"), screen
    assert rows["fork"].endswith(" other/tideline-web"), screen
    assert rows["admin"].endswith(" tideline-web-admin"), screen
    tmux.keys("q")
    assert exit_code(status, tmux) == 0, tmux.screen()
