"""``memoir-tui merge LOCAL REMOTE -o OUT`` (issue 16): onto a store through its door.

OUT a store's ``session.json``: both locks (a lock another real process holds makes the
merge wait, or fail once ``lock_wait_seconds`` runs out, writing nothing), the store's
``[caps]``, and a merge with what the store holds under the lock, so racing writers
lose nothing. OUT anywhere else: never over a file from a newer format (kept
byte-identical, exit 1, said so).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from memoir_tui.core.format.session import empty_session
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET
from tests.paths import REPO

WHEN = "2026-03-01T00:00:00.000Z"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def merge(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", "merge", *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=SAFETY_NET,
    )


def session_with(decisions: list[str]) -> dict:
    state = empty_session()
    state["current"]["decisions"] = [{"text": t, "date": WHEN, "why": "because"} for t in decisions]
    return state


def write_json(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def decisions(path: Path) -> set[str]:
    return {d["text"] for d in json.loads(path.read_text())["current"]["decisions"]}


def test_a_newer_output_file_stays_byte_identical(tmp_path: Path) -> None:
    local = write_json(tmp_path / "a.json", session_with(["Use uv"]))
    out = tmp_path / "out.json"
    out.write_bytes(b'{"version": 99,  "future": {"kept": true}}\n')
    before = out.read_bytes()
    proc = merge(str(local), str(local), "-o", str(out))
    assert proc.returncode == 1
    assert "newer memoir format" in proc.stderr and "refusing to overwrite" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert out.read_bytes() == before

    # a store's session.json from the future: the store is read-only, nothing written
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    session = store_dir / "session.json"
    session.write_bytes(before)
    proc = merge(str(local), str(local), "-o", str(session))
    assert proc.returncode == 1 and "read-only" in proc.stderr
    assert session.read_bytes() == before


def test_the_stores_caps_apply_not_the_defaults(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    store = Memoir(store_dir)
    (store_dir / "memoir-tui.toml").write_text("[caps]\ndecisions = 200\n", encoding="utf-8")
    texts = [f"Decision number {i}" for i in range(100)]
    local = write_json(tmp_path / "local.json", session_with(texts))
    remote = write_json(tmp_path / "remote.json", session_with([]))
    proc = merge(str(local), str(remote), "-o", str(store.session_path))
    assert proc.returncode == 0, proc.stderr
    assert decisions(store.session_path) == set(texts)  # not cut to the default 50


HOLDER = textwrap.dedent(
    """
    import sys, time
    from memoir_tui.core.workflows.memoir import Memoir
    store = Memoir(sys.argv[1], actor="holder")
    with store.transaction("hold") as tx:
        tx.session["current"]["decisions"].append(
            {"text": "Written while holding the lock", "date": "2026-03-02T00:00:00.000Z"}
        )
        print("held", flush=True)
        time.sleep(float(sys.argv[2]))
    print("released", flush=True)
    """
)


def _hold(store_dir: Path, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store_dir), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_lock_held_by_another_process_makes_merge_wait_and_keep_its_write(
    tmp_path: Path,
) -> None:
    store = Memoir(tmp_path / "store")
    store.note_decision("Use uv")
    remote = write_json(tmp_path / "remote.json", session_with(["From the remote"]))
    # the inputs are read now; the holder commits its decision before merge gets the lock
    holder = _hold(store.root, 2.0)
    started = time.monotonic()
    proc = merge(str(store.session_path), str(remote), "-o", str(store.session_path))
    waited = time.monotonic() - started
    assert holder.wait(timeout=SAFETY_NET) == 0
    assert proc.returncode == 0, proc.stderr
    assert waited >= 1.0  # it waited for the lock rather than writing under it
    assert decisions(store.session_path) == {
        "Use uv",
        "From the remote",
        "Written while holding the lock",
    }


def test_a_lock_held_too_long_makes_merge_fail_writing_nothing(tmp_path: Path) -> None:
    store = Memoir(tmp_path / "store")
    store.note_decision("Use uv")
    (store.root / "memoir-tui.toml").write_text(
        "[store]\nlock_wait_seconds = 0.5\n", encoding="utf-8"
    )
    remote = write_json(tmp_path / "remote.json", session_with(["From the remote"]))
    holder = _hold(store.root, 4.0)
    try:
        before = store.session_path.read_bytes()
        proc = merge(str(store.session_path), str(remote), "-o", str(store.session_path))
        assert proc.returncode == 1
        assert "lock" in proc.stderr.lower() and "Traceback" not in proc.stderr
        assert store.session_path.read_bytes() == before
    finally:
        holder.wait(timeout=SAFETY_NET)
    assert "From the remote" not in decisions(store.session_path)


MERGER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from memoir_tui.__main__ import main
    session, scratch = Path(sys.argv[1]), Path(sys.argv[2])
    for i in range(50):
        remote = scratch / f"remote-{i}.json"
        remote.write_text(json.dumps({"version": 1, "current": {"decisions": [
            {"text": f"merged {i}", "date": "2026-03-01T00:00:00.000Z"}]}}))
        assert main(["merge", str(session), str(remote), "-o", str(session)]) == 0
    """
)
NOTER = textwrap.dedent(
    """
    import sys
    from memoir_tui.core.workflows.memoir import Memoir
    for i in range(50):
        Memoir(sys.argv[1], actor="noter").note_decision(f"noted {i}")
    """
)


def test_racing_writers_lose_nothing(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    store = Memoir(tmp_path / "store")
    (store.root / "memoir-tui.toml").write_text("[caps]\ndecisions = 500\n", encoding="utf-8")
    store.note_decision("first")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MERGER, str(store.session_path), str(scratch)], env=_env()
        ),
        subprocess.Popen([sys.executable, "-c", NOTER, str(store.root)], env=_env()),
    ]
    for proc in procs:
        assert proc.wait(timeout=SAFETY_NET) == 0
    expected = {"first"} | {f"merged {i}" for i in range(50)} | {f"noted {i}" for i in range(50)}
    assert decisions(store.session_path) == expected
    assert not list(store.root.glob("*.tmp")) and not (store.root / "session.json.lock").exists()
