"""The real-home guard itself: it must notice a change, or it guards nothing."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import (
    OWNER_FILE,
    REAL_HOME,
    REAL_HOME_VAR,
    REAL_TMP_VAR,
    SCRATCH_HOME,
    SCRATCH_PREFIX,
    fingerprint,
)
from tests.inner_pytest import run_inner_pytest


def test_tests_run_on_a_scratch_home():
    assert Path(os.environ["HOME"]) == SCRATCH_HOME != REAL_HOME
    assert Path(os.environ["MEMOIR_HOME"]).is_relative_to(SCRATCH_HOME)
    # Under xdist a worker inherits the controller's scratch HOME; the real one
    # must still be the home the run was started from, never a scratch home.
    assert "memoir-tui-tests-" not in str(REAL_HOME)
    assert os.environ[REAL_HOME_VAR] == str(REAL_HOME)


def test_fingerprint_notices_added_changed_and_removed_files(tmp_path):
    memory = tmp_path / ".claude" / "projects" / "p" / "memory"
    memory.mkdir(parents=True)
    before = fingerprint(tmp_path)
    note = memory / "fact.md"
    note.write_text("x")
    added = fingerprint(tmp_path)
    assert added != before
    note.write_text("xy")
    assert fingerprint(tmp_path) != added
    note.unlink()
    (tmp_path / ".claude.json").write_text("{}")
    assert fingerprint(tmp_path) != added


INNER = """
import json, os
from pathlib import Path

def test_{n}():
    Path({record!r}, os.environ.get("PYTEST_XDIST_WORKER", "main") + "-{n}.json").write_text(
        json.dumps({{"home": os.environ["HOME"], "memoir_home": os.environ["MEMOIR_HOME"]}})
    )
    if {touch}:
        # A test that bypasses HOME and writes to the real home's memory.
        Path({fake_home!r}, ".claude", "CLAUDE.md").write_text("changed by a test")
"""


def run_inner_suite(tmp_path: Path, *args: str, touch: bool) -> subprocess.CompletedProcess[str]:
    """A pytest run of four tests with this conftest, on a fake "real" home."""
    tmp_path.mkdir(exist_ok=True)
    fake_home = tmp_path / "real-home"
    (fake_home / ".claude").mkdir(parents=True)
    (fake_home / ".claude" / "CLAUDE.md").write_text("the user's own instructions")
    record = tmp_path / "record"
    record.mkdir()
    suite = tmp_path / "suite"
    suite.mkdir()
    for n in range(4):
        text = INNER.format(
            n=n, record=str(record), fake_home=str(fake_home), touch=touch and n == 3
        )
        (suite / f"test_inner_{n}.py").write_text(text)
    env = {"HOME": str(fake_home)}  # and no real home handed down: a fresh run, as from a terminal
    return run_inner_pytest(suite, *args, env=env, drop=(REAL_HOME_VAR,))


def homes(tmp_path: Path) -> dict[str, dict[str, str]]:
    return {p.stem: json.loads(p.read_text()) for p in (tmp_path / "record").glob("*.json")}


def test_under_xdist_each_worker_has_a_scratch_home_and_the_guard_still_fails_the_run(tmp_path):
    proc = run_inner_suite(tmp_path, "-n", "2", "--dist", "each", touch=True)
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout + proc.stderr
    assert "real-home guard" in proc.stdout and ".claude/CLAUDE.md" in proc.stdout, proc.stdout
    assert "8 passed" in proc.stdout  # every test passed on both workers: the guard failed it
    seen = homes(tmp_path)
    by_worker = {name.split("-")[0]: rec["home"] for name, rec in seen.items()}
    assert set(by_worker) == {"gw0", "gw1"} and by_worker["gw0"] != by_worker["gw1"]
    for rec in seen.values():
        assert "memoir-tui-tests-" in rec["home"]
        assert Path(rec["memoir_home"]).is_relative_to(rec["home"])
        assert not Path(rec["home"]).is_relative_to(tmp_path / "real-home")


def test_in_one_process_the_guard_fails_the_run(tmp_path):
    proc = run_inner_suite(tmp_path, "-p", "no:xdist", touch=True)
    assert proc.returncode == pytest.ExitCode.TESTS_FAILED, proc.stdout + proc.stderr
    assert "real-home guard" in proc.stdout and "4 passed" in proc.stdout, proc.stdout
    proc = run_inner_suite(tmp_path / "again", "-p", "no:xdist", touch=False)
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout + proc.stderr


LEAVER = """
import json, os, tempfile
from pathlib import Path

def test_leaves_a_temporary_folder():
    kept = tempfile.mkdtemp(prefix="memoir-edit-")  # as a refused edit keeps its draft
    Path(kept, "draft.md").write_text("mine")
    Path({record!r}).write_text(json.dumps({{"kept": kept, "home": os.environ["HOME"]}}))
"""


def test_a_run_removes_its_scratch_folder_with_what_tests_left_in_tmp(tmp_path):
    """A temporary folder the code under test leaves lives in the run's scratch folder
    and goes with it; so does a killed run's folder, once its process is gone."""
    root = tmp_path / "tmp"
    root.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    abandoned = root / f"{SCRATCH_PREFIX}killed"
    (abandoned / "home").mkdir(parents=True)
    (abandoned / OWNER_FILE).write_text(f"{dead.pid} {socket.gethostname()}\n")
    living = root / f"{SCRATCH_PREFIX}running"
    living.mkdir()
    (living / OWNER_FILE).write_text(f"{os.getpid()} {socket.gethostname()}\n")
    unnamed = root / f"{SCRATCH_PREFIX}older"  # made before owners were written: kept
    unnamed.mkdir()
    suite = tmp_path / "suite"
    suite.mkdir()
    record = tmp_path / "record.json"
    (suite / "test_leaver.py").write_text(LEAVER.format(record=str(record)))
    env = {"TMPDIR": str(root), "PYTEST_DEBUG_TEMPROOT": str(tmp_path)}
    proc = run_inner_pytest(suite, "-p", "no:xdist", env=env, drop=(REAL_TMP_VAR,))
    assert proc.returncode == pytest.ExitCode.OK, proc.stdout + proc.stderr
    seen = json.loads(record.read_text())
    scratch = Path(seen["home"]).parent
    assert Path(seen["kept"]).is_relative_to(scratch) and scratch.parent == root
    assert not scratch.exists()  # and the kept folder with it
    assert not abandoned.exists()
    assert living.is_dir() and unnamed.is_dir()
    assert sorted(p.name for p in root.iterdir()) == sorted([living.name, unnamed.name])
