"""Regular files only, on every read path: a FIFO or a device where a memory file or a
transcript should be is never read (a FIFO blocks its reader for ever, ``/dev/zero``
never ends). The commands run in real processes, each with a deadline."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memoir_tui.core.base.fsutil import (
    FileTooLargeError,
    NotRegularFileError,
    open_regular,
    read_regular,
)
from tests.deadlines import HANG_NET

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

DEADLINE = HANG_NET  # every command here finishes in well under a second; a hang never


def _env(tmp_path: Path) -> dict[str, str]:
    env = os.environ.copy()
    env.update(
        HOME=str(tmp_path / "home"),
        MEMOIR_HOME=str(tmp_path / "store"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    return env


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            capture_output=True,
            text=True,
            env=_env(tmp_path),
            timeout=DEADLINE,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memoir-tui {' '.join(args)} hung on a FIFO or a device")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A store whose memory/ holds a FIFO and a link to /dev/zero beside a good entry, and a
    Claude Code projects folder whose transcripts are a FIFO and a link to /dev/zero."""
    memory = tmp_path / "store" / "memory"
    memory.mkdir(parents=True)
    (memory / "fact_ok.md").write_text("---\ntype: fact\nname: ok\n---\nhello there\n")
    os.mkfifo(memory / "fact_fifo.md")
    (memory / "fact_zero.md").symlink_to("/dev/zero")
    project = tmp_path / "home" / ".claude" / "projects" / "-work-app"
    project.mkdir(parents=True)
    os.mkfifo(project / "0001.jsonl")
    (project / "0002.jsonl").symlink_to("/dev/zero")
    return tmp_path


def test_validate_reports_a_fifo_and_a_device_and_reads_neither(hostile):
    proc = _run(hostile, "validate")
    assert proc.returncode == 1
    for name in ("fact_fifo.md", "fact_zero.md"):
        (line,) = [x for x in proc.stdout.splitlines() if name in x]
        assert "not a regular file" in line
    assert "fact_ok.md" not in proc.stdout


@pytest.mark.parametrize("args", [("index",), ("recall", "hello"), ("capture",)])
def test_index_recall_and_capture_skip_fifo_transcripts(hostile, args):
    proc = _run(hostile, *args)
    assert proc.returncode == 0, proc.stderr
    if args[0] == "recall":
        assert "fact_ok.md" in proc.stdout


def test_open_regular_refuses_fifos_devices_and_directories_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    for path in (fifo, zero, tmp_path, Path("/dev/null")):
        done = threading.Event()

        def attempt(path=path, done=done):
            with pytest.raises(NotRegularFileError, match="not a regular file"):
                open_regular(path)
            done.set()

        worker = threading.Thread(target=attempt, daemon=True)
        worker.start()
        worker.join(DEADLINE)
        assert done.is_set(), f"{path} was opened (or the open blocked)"


def test_a_symlink_is_followed_only_when_asked(tmp_path):
    real = tmp_path / "real.md"
    real.write_bytes(b"hi")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert read_regular(link, max_bytes=10) == b"hi"
    with pytest.raises(NotRegularFileError):
        read_regular(link, max_bytes=10, follow_symlinks=False)


def test_read_regular_caps_what_it_reads(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2048)
    assert read_regular(big, max_bytes=2048) == b"x" * 2048
    with pytest.raises(FileTooLargeError):
        read_regular(big, max_bytes=1024)


def test_a_fifo_swapped_in_after_the_check_is_still_refused(tmp_path, monkeypatch):
    """The descriptor is checked too: a FIFO put in place between the check and the open
    is caught (and the open, non-blocking, does not wait for a writer)."""
    import memoir_tui.core.base.fsutil as fsutil

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    regular = os.stat(__file__)
    monkeypatch.setattr(fsutil.os, "stat", lambda *a, **k: regular)
    with pytest.raises(NotRegularFileError):
        open_regular(fifo)
