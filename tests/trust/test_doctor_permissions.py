"""The doctor checks the store's permissions and kinds and prints the exact fix command;
it never changes a mode itself. A store first made by the JavaScript tool (0755 folder,
0644 files) is named as such."""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_tui.core.loop.doctor import FAIL, PASS, WARN, check_permissions
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET
from tests.paths import REPO


def modes(root: Path) -> dict[str, int]:
    return {
        str(p.relative_to(root)): stat.S_IMODE(os.lstat(p).st_mode)
        for p in [root, *root.rglob("*")]
    }


@pytest.fixture
def store(tmp_path: Path) -> Memoir:
    s = Memoir(tmp_path / "store")
    s.note_decision("Use SQLite", why="simple")
    return s


def js_made(root: Path) -> None:
    """What the JavaScript tool leaves: a 0755 folder, 0644 files, its events log."""
    (root / "events.jsonl").write_text("{}\n")
    os.chmod(root, 0o755)
    for p in root.iterdir():
        if p.is_file():
            os.chmod(p, 0o644)


def test_a_store_we_made_passes(store: Memoir) -> None:
    (check,) = check_permissions(store)
    assert check.status == PASS and "0700" in check.detail


def test_a_store_the_javascript_tool_made_warns_names_it_and_prints_the_fix(
    store: Memoir,
) -> None:
    js_made(store.root)
    before = modes(store.root)
    (check,) = check_permissions(store)
    assert check.status == WARN
    assert "0755" in check.detail and "JavaScript tool" in check.detail
    assert "session.json" in check.detail  # the readable files are named
    assert f"chmod -R go-rwx {shlex.quote(str(store.root))}" in check.detail
    assert modes(store.root) == before  # never fixed silently


def test_the_printed_fix_fixes_it(store: Memoir) -> None:
    js_made(store.root)
    (check,) = check_permissions(store)
    command = check.detail.split("fix: ", 1)[1]
    subprocess.run(command, shell=True, check=True)
    (after,) = check_permissions(store)
    assert after.status == PASS


def test_a_folder_others_may_write_fails(store: Memoir) -> None:
    os.chmod(store.root, 0o777)
    checks = check_permissions(store)
    assert [c.status for c in checks] == [FAIL]
    assert "others may write" in checks[0].detail and "chmod -R go-rwx" in checks[0].detail


def test_a_writable_file_inside_fails_even_in_a_private_folder(store: Memoir) -> None:
    os.chmod(store.session_path, 0o666)
    (check,) = check_permissions(store)
    assert check.status == FAIL and "session.json (0666)" in check.detail


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_and_a_link_out_are_named(store: Memoir, tmp_path: Path) -> None:
    os.mkfifo(store.root / "machine.id.fifo")
    (store.root / "outside.md").symlink_to("/etc/hostname")
    checks = {c.area + c.status: c for c in check_permissions(store)}
    fifo = checks["store files" + FAIL].detail
    assert "machine.id.fifo" in fifo and f"rm -r {store.root / 'machine.id.fifo'}" in fifo
    assert "outside.md → /etc/hostname" in checks["store files" + WARN].detail


def test_the_doctor_command_prints_it(store: Memoir, tmp_path: Path) -> None:
    js_made(store.root)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "MEMOIR_HOME": str(store.root),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": str(REPO),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("WARN  permissions")]
    assert "JavaScript tool" in line and "chmod -R go-rwx" in line
