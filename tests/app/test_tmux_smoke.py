"""Smoke test in a real terminal: ``python -m memoir_tui --demo`` inside tmux.

Runs on a private tmux server (``-L``) so it never touches the user's tmux
sessions, with the scratch HOME/MEMOIR_HOME/XDG/TMPDIR from conftest passed
through explicitly (a tmux server does not inherit the test's environment).
It reads the screen the way a person would, with ``capture-pane``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.paths import REPO

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PASS_THROUGH = (
    "HOME",
    "MEMOIR_HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "PATH",
    "LANG",
    "LC_ALL",
)


class Tmux:
    def __init__(self, socket: str, session: str) -> None:
        self.socket = socket
        self.session = session

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=20,
        )

    def screen(self) -> str:
        out = self.run("capture-pane", "-p", "-t", self.session, check=False)
        return out.stdout

    def alive(self) -> bool:
        return self.run("has-session", "-t", self.session, check=False).returncode == 0

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", self.session, "-l", text)

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")

    def wait_for_text(self, *texts: str, timeout: float = 20.0) -> str:
        """Poll until every text is on screen (a repaint can be half done)."""
        return self.wait_for(lambda s: all(t in s for t in texts), repr(texts), timeout)


@pytest.fixture
def tmux(tmp_path: Path):
    socket = f"memoir-test-{uuid.uuid4().hex[:8]}"
    t = Tmux(socket, "memoir")
    yield t
    # Only our private server: ends the session we started and nothing else.
    t.run("kill-server", check=False)


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
    time.sleep(0.3)  # keys sent right after the first paint can be lost
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
        lambda s: "Use date-fns" not in s and "1 of 12" in s, "the filter to apply"
    )
    assert "Ship the CLI through pipx" in screen

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
    deadline = time.monotonic() + 15
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tmux.alive(), "the app did not exit on q:\n" + tmux.screen()
    assert not list(tmpdir.glob("memoir-demo-*")), "the demo store was not removed"
