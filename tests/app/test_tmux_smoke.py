"""Smoke test in a real terminal: ``python -m memoir_tui --demo`` inside tmux.

It reads the screen the way a person would, with ``capture-pane``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tests.app.tmux import PASS_THROUGH, Tmux, needs_tmux
from tests.deadlines import SAFETY_NET
from tests.paths import REPO

pytestmark = needs_tmux


def test_demo_in_a_real_terminal(tmux: Tmux, tmp_path: Path) -> None:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {k: os.environ[k] for k in PASS_THROUGH if k in os.environ}
    env.update(TMPDIR=str(tmpdir), TERM="xterm-256color", PYTHONPATH=str(REPO))
    assert "memoir-tui-tests-" in env["HOME"], "conftest's scratch HOME must be in use"
    env_flags = [flag for k, v in env.items() for flag in ("-e", f"{k}={v}")]
    # COLUMNS/LINES can leak into the tmux server's environment from a
    # non-terminal parent; Textual would trust them over the pane's real size.
    command = f"env -u COLUMNS -u LINES {sys.executable} -m memoir_tui --demo"
    tmux.run("new-session", "-d", "-s", tmux.session, "-x", "100", "-y", "30", *env_flags, command)

    # First paint: the header, the tabs, the working set and the footer.
    tmux.wait_for_text("machine: work-laptop", "Next actions", "Recently completed", "Help")
    tmux.wait_until_reading_keys()  # keys sent before that would be echoed, not read
    screen = tmux.screen()
    assert "machine: work-laptop" in screen
    assert "demo store" in screen
    assert "Goals · 3" in screen and "Recently completed · 4" in screen
    assert "Write the Alembic migration" in screen
    assert "Quit" in screen and "Help" in screen

    # The demo runs on a copy in a temporary directory, never the scratch store.
    demo_dirs = list(tmpdir.glob("memoir-demo-*"))
    assert len(demo_dirs) == 1 and (demo_dirs[0] / "session.json").is_file()
    assert not Path(env["MEMOIR_HOME"], "session.json").exists()

    # Decisions pane, then filter as you type.
    tmux.keys("2")
    tmux.wait_for_text("tombstones hidden", "Use date-fns instead", "D Purge")
    tmux.keys("/")
    time.sleep(0.2)
    tmux.type("pipx")
    screen = tmux.wait_for(
        lambda s: "Use date-fns" not in s and "1 of 12" in s and "pipx" in s, "the filter to apply"
    )
    assert "Ship the CLI through pip" in screen  # cut to its column at 100 wide

    # Leave the filter, open the hide dialog and cancel it.
    tmux.keys("Enter")
    time.sleep(0.2)
    tmux.keys("d")
    tmux.wait_for_text("Hide this decision for ever?", "every machine", "Homebrew only")
    tmux.keys("n")
    tmux.wait_for(lambda s: "Hide this decision for ever?" not in s, "the dialog to close")

    # Help, from the bindings.
    tmux.keys("?")
    tmux.wait_for_text("Decisions (this pane)", "Hide the selected decision for ever")
    tmux.keys("Escape")
    tmux.wait_for(lambda s: "Decisions (this pane)" not in s, "help to close")

    # q quits from the top; the demo copy is removed on exit.
    tmux.keys("q")
    deadline = time.monotonic() + SAFETY_NET
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tmux.alive(), "the app did not exit on q:\n" + tmux.screen()
    assert not list(tmpdir.glob("memoir-demo-*")), "the demo store was not removed"
