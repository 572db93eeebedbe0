"""The real JavaScript memoir writing beside us on one store.

``MEMOIR_JS_312`` names a clone of memoir 3.12 with its ``node_modules`` installed
(``npm install --ignore-scripts``); ``MEMOIR_JS_LATEST`` a rebuilt copy of today's
memoir (3.13+ ``src/session``). Without them (and node) these tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deadlines import SAFETY_NET

NODE = shutil.which("node")


def _memoir_js(var: str) -> Path:
    root = os.environ.get(var)
    if not root or not NODE or not (Path(root) / "bin" / "memoir.js").is_file():
        pytest.skip(f"set {var} to a memoir checkout with node_modules installed")
    return Path(root)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMOIR_HOME")}
    env.update(HOME=str(home), DO_NOT_TRACK="1", MEMOIR_TELEMETRY="0")
    env.pop("MEMOIR_PROJECT_ROOT", None)
    return env


def _js(root: Path, home: Path, *args: str) -> None:
    subprocess.run(
        [NODE, str(root / "bin" / "memoir.js"), *args],
        cwd=home,
        env=_env(home),
        check=True,
        capture_output=True,
        timeout=SAFETY_NET,
    )


def _ours(home: Path, *args: str) -> None:
    env = _env(home)
    env["MEMOIR_HOME"] = str(home / ".config" / "memoir")
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr


def _texts(home: Path, *lists: str) -> list[str]:
    current = json.loads((home / ".config" / "memoir" / "session.json").read_text())["current"]
    return [i.get("text") for key in lists for i in current.get(key, [])]


@pytest.mark.parametrize("var", ["MEMOIR_JS_312", "MEMOIR_JS_LATEST"])
def test_our_newest_items_survive_the_next_memoir_write(tmp_path: Path, var: str) -> None:
    root = _memoir_js(var)
    home = tmp_path / "home"
    home.mkdir()
    for n in range(1, 9):
        _js(root, home, "next", f"n{n}")
    for n in range(1, 6):
        _js(root, home, "ask", f"q{n}")
    _ours(home, "next", "tui-9")
    _ours(home, "ask", "tui-q")
    _js(root, home, "next", "n9")
    _js(root, home, "ask", "q6")
    actions = _texts(home, "next_actions", "parked_actions")
    questions = _texts(home, "open_questions", "archived_questions")
    # memoir 3.12 trims from the front of the stored order, 3.13+ parks and archives:
    # either way what we wrote (newer than its oldest) is still in the file.
    assert "tui-9" in actions and "n9" in actions
    assert "tui-q" in questions and "q6" in questions
