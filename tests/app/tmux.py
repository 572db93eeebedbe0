"""A real terminal for the app: a private tmux server, read the way a person reads it.

Runs on its own server (``-L``) so it never touches the user's tmux sessions,
with the scratch HOME/MEMOIR_HOME/XDG/TMPDIR from conftest passed through
explicitly (a tmux server does not inherit the test's environment).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.deadlines import SAFETY_NET
from tests.paths import REPO

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

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
            timeout=SAFETY_NET,
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

    def reading_keys(self) -> bool:
        """The app has put its terminal in raw mode: a key sent now is read, not echoed
        by the line discipline (and lost) as one sent before it."""
        tty = self.run("display-message", "-p", "-t", self.session, "#{pane_tty}").stdout
        done = subprocess.run(
            ["stty", "-a", "-F", tty.strip()], capture_output=True, text=True, timeout=SAFETY_NET
        )
        return done.returncode == 0 and "-icanon" in done.stdout.split()

    def wait_until_reading_keys(self) -> None:
        """Poll until the app reads keys (the safety net only turns a hang into a failure)."""
        deadline = time.monotonic() + SAFETY_NET
        while not self.reading_keys():
            if time.monotonic() > deadline:
                raise AssertionError("the app never read keys; the screen was:\n" + self.screen())
            time.sleep(0.05)

    def wait_for(
        self, predicate: Callable[[str], bool], what: str, timeout: float = SAFETY_NET
    ) -> str:
        """Poll until the screen passes ``predicate``; ``timeout`` is a safety net."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")

    def wait_for_text(self, *texts: str, timeout: float = SAFETY_NET) -> str:
        """Poll until every text is on screen (a repaint can be half done)."""
        return self.wait_for(lambda s: all(t in s for t in texts), repr(texts), timeout)


def app_env(tmpdir: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in PASS_THROUGH if k in os.environ}
    env.update(TMPDIR=str(tmpdir), TERM="xterm-256color", PYTHONPATH=str(REPO))
    assert "memoir-tui-tests-" in env["HOME"], "conftest's scratch HOME must be in use"
    return env


def start_app(
    tmux: Tmux,
    args: list[str],
    *,
    tmpdir: Path,
    cwd: Path,
    size: tuple[int, int] = (100, 30),
    env: dict[str, str] | None = None,
) -> Path:
    """Run ``python -m memoir_tui ARGS`` in ``cwd``; returns the file its exit code lands in.

    The pane stays after the app exits (``remain-on-exit``), so what it printed
    last, a traceback for instance, can still be read.
    """
    status = tmpdir / f"exit-{uuid.uuid4().hex[:6]}"
    full_env = {**app_env(tmpdir), **(env or {})}
    env_flags = [flag for k, v in full_env.items() for flag in ("-e", f"{k}={v}")]
    # COLUMNS/LINES can leak into the tmux server's environment from a
    # non-terminal parent; Textual would trust them over the pane's real size.
    app = shlex.join([sys.executable, "-m", "memoir_tui", *args])
    command = f"cd {shlex.quote(str(cwd))} && env -u COLUMNS -u LINES {app}; echo $? > {status}"
    tmux.run("new-session", "-d", "-s", tmux.session, "-x", str(size[0]), "-y", str(size[1]))
    tmux.run("set-option", "-t", tmux.session, "remain-on-exit", "on")
    tmux.run("respawn-pane", "-k", "-t", tmux.session, *env_flags, "sh", "-c", command)
    return status


def exit_code(status: Path, tmux: Tmux, timeout: float = SAFETY_NET) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if status.exists() and status.read_text().strip():
            return int(status.read_text())
        time.sleep(0.05)
    raise AssertionError("the app did not exit; the screen was:\n" + tmux.screen())
