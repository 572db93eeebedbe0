"""Purges finish: no temp file a killed writer left keeps purged words.

A writer killed between writing a temp file and renaming it leaves the temp behind
(the redo journal's temp holds base64 copies of whole files). Every transaction
sweeps ours inside the lock, and every start sweeps them too, in every folder a
commit of the store wrote into (a host's folder included).

Must show: a SIGKILL before every rename/link/fsync/unlink of a pin that writes the
text and of a ``forget --everywhere --purge`` of it (real processes), then
``forget --everywhere --purge`` of the same text: neither a byte grep nor a
base64-aware grep of every file in the scratch home finds it. And a failed cache
drop keeps its marker, says so, and is finished by the next command.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deadlines import SAFETY_NET
from tests.trust.test_forget_everywhere import CODENAME, build_world, env_for, memoir

WORD = CODENAME.lower().encode()
PURGE = ("forget", CODENAME, "--everywhere", "--purge", "--yes")

# Runs a command (a CLI command, or ``pin`` in Python) and SIGKILLs itself right before
# the MEMOIR_KILL_AT-th call of a file operation that publishes or removes a file; with
# MEMOIR_KILL_COUNT it writes how many such calls it made instead.
KILLER = """
import os, signal, sys
at = int(os.environ.get("MEMOIR_KILL_AT", "0"))
calls = 0
def wrap(name):
    real = getattr(os, name)
    def hooked(*args, **kwargs):
        global calls
        calls += 1
        if calls == at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    setattr(os, name, hooked)
for name in ("replace", "rename", "link", "fsync", "unlink"):
    wrap(name)
if sys.argv[1] == "pin":
    from memoir_tui.core.workflows.memoir import Memoir
    store = Memoir(actor="cli")
    item = next(i for i in store.review.list_items() if "Quillfeather" in i.text)
    store.review.pin(item.id)
    code = 0
else:
    from memoir_tui.__main__ import main
    code = main(sys.argv[1:])
if os.environ.get("MEMOIR_KILL_COUNT"):
    with open(os.environ["MEMOIR_KILL_COUNT"], "w") as fh:
        fh.write(str(calls))
sys.exit(code)
"""

B64 = re.compile(rb"[A-Za-z0-9+/]{12,}={0,2}")


def decoded_runs(data: bytes) -> list[bytes]:
    """Every base64 run in ``data``, decoded at each of its four alignments."""
    out = []
    for run in B64.findall(data):
        for shift in range(4):
            chunk = run[shift:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            try:
                out.append(base64.b64decode(chunk))
            except (binascii.Error, ValueError):
                continue
    return out


def holders(home: Path) -> list[str]:
    """Files under ``home`` holding the word as bytes, or (any ``*.tmp``, and any file
    at all) inside base64."""
    found = []
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            path = Path(dirpath) / name
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if WORD in data.lower() or any(WORD in d.lower() for d in decoded_runs(data)):
                found.append(str(path.relative_to(home)))
    return sorted(found)


def temps(home: Path) -> list[str]:
    return sorted(
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.name.endswith(".tmp") or ".tmp." in p.name
    )


def run_killer(home: Path, args: tuple[str, ...], at: int = 0, count: Path | None = None):
    env = {**env_for(home), "MEMOIR_KILL_AT": str(at)}
    if count is not None:
        env["MEMOIR_KILL_COUNT"] = str(count)
    return subprocess.run(
        [sys.executable, "-c", KILLER, *args],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("purge-temps") / "template"
    build_world(home)
    assert memoir(home, "recall", CODENAME).returncode == 0  # an index to drop
    return home


def fresh(template: Path, home: Path) -> Path:
    shutil.copytree(template, home, symlinks=True)
    toml = home / ".config" / "memoir" / "memoir-tui.toml"
    toml.write_text(toml.read_text().replace(str(template), str(home)))
    return home


def points(template: Path, tmp_path: Path, args: tuple[str, ...]) -> int:
    home = fresh(template, tmp_path / "count")
    counted = tmp_path / "count.txt"
    proc = run_killer(home, args, count=counted)
    assert proc.returncode == 0, proc.stderr
    shutil.rmtree(home)
    return int(counted.read_text())


@pytest.mark.parametrize("killed", ["pin", "purge"])
def test_a_kill_at_every_write_point_then_a_purge_leaves_the_text_in_no_file(
    template: Path, tmp_path: Path, killed: str
) -> None:
    args = ("pin",) if killed == "pin" else PURGE
    total = points(template, tmp_path, args)
    assert total >= 10, total  # journal, entries, host files, queue, session, caches
    left_temps = 0
    for at in range(1, total + 1):
        home = fresh(template, tmp_path / f"run{at}")
        proc = run_killer(home, args, at=at)
        assert proc.returncode == -signal.SIGKILL, (at, proc.stderr)
        left_temps += bool(temps(home))
        again = memoir(home, *PURGE)
        assert again.returncode == 0, (at, again.stderr)
        assert "Traceback" not in again.stderr
        assert holders(home) == [], (at, holders(home))
        assert temps(home) == [], (at, temps(home))
        shutil.rmtree(home)
    print(f"{killed}: {total} kill points, {left_temps} left a temp file behind")
    assert left_temps > 0  # the kills did leave temps: the sweep is what removed them


def test_a_temp_a_live_writer_holds_is_never_swept(tmp_path: Path) -> None:
    """Only abandoned temps go: one whose flock a writer holds, or whose named writer is
    alive, stays (the store's lock keeps our own writers out; this keeps anyone's)."""
    import fcntl

    from memoir_tui.core.base.fsutil import sweep_our_temps

    held = tmp_path / ".CLAUDE.md.0a1b2c3d.tmp"
    held.write_bytes(b"in flight")
    fd = os.open(held, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".x.bak.create-{sleeper.pid}-1.tmp"
        live.write_bytes(b"in flight")
        dead = tmp_path / ".x.bak.create-999999999-1.tmp"  # no such process
        dead.write_bytes(b"abandoned")
        stale = tmp_path / ".AGENTS.md.deadbeef.tmp"
        stale.write_bytes(b"abandoned")
        theirs = tmp_path / "session.json.tmp-123"  # the JavaScript tool's: never ours
        theirs.write_bytes(b"theirs")
        removed = sweep_our_temps(tmp_path)
        assert sorted(Path(p).name for p in removed) == sorted([dead.name, stale.name])
        assert held.exists() and live.exists() and theirs.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
        os.close(fd)
    assert sorted(Path(p).name for p in sweep_our_temps(tmp_path)) == sorted([held.name, live.name])


def test_a_failed_cache_drop_keeps_its_marker_says_so_and_the_next_command_finishes_it(
    template: Path, tmp_path: Path
) -> None:
    home = fresh(template, tmp_path / "home")
    cache = home / ".cache" / "memoir-tui"
    assert [p for p in cache.iterdir() if p.name.startswith("recall-")]
    failing = """
import os, sys
real = os.unlink
def unlink(path, *a, **k):
    if "recall-" in os.fspath(path):
        raise PermissionError(13, "Permission denied", os.fspath(path))
    return real(path, *a, **k)
os.unlink = unlink
from memoir_tui.__main__ import main
sys.exit(main(sys.argv[1:]))
"""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            failing,
            "forget",
            "Pay Marrowgate from the reserve",
            "--purge",
            "--yes",
        ],
        cwd=home,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "could not be dropped" in line]
    assert len(said) == 1 and "every next command tries again" in said[0], proc.stderr
    assert [p for p in cache.iterdir() if p.name.startswith("scrub-pending-")]
    assert [p for p in cache.iterdir() if p.name.startswith("recall-")]
    after = memoir(home, "status")  # any command: the drop happens now
    assert after.returncode == 0, after.stderr
    assert not [p for p in cache.iterdir() if p.name.startswith(("scrub-pending-", "recall-"))]
