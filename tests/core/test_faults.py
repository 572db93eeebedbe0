"""Errors are sentences: every file-system fault a command can meet ends it with one line
on stderr and a non-zero exit, never a traceback; the store stays valid (the next
command reads the same state) and nothing spins.

Faults are injected in a real subprocess (a small patch of ``os.fsync``/``os.replace``
/``os.open`` raising the errno a full disk, a failing disk or a read-only mount
raises: the tests run as root, which writes through any permission bits) or made
real as file-system objects (a folder where a file belongs, 100,000-deep nesting).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memoir_tui.core.door.transaction import JOURNAL_FILE
from tests.deadlines import SAFETY_NET

ROOT = Path(__file__).resolve().parents[2]
DEEP = 100_000

# Runs the CLI with one os function raising an errno: ``<function>:<ERRNO>`` (for
# ``open``, only opens that create a file, as on a read-only mount), only its nth call
# with ``<function>:<ERRNO>:<n>``, or ``none``.
RUNNER = """
import errno, os, sys
fault = sys.argv.pop(1)
if fault != "none":
    name, code, *nth = fault.split(":")
    err = getattr(errno, code)
    real = getattr(os, name)
    calls = [0]
    def boom(*args, **kwargs):
        if name == "open" and not (args[1] if len(args) > 1 else kwargs["flags"]) & os.O_CREAT:
            return real(*args, **kwargs)
        calls[0] += 1
        if nth and calls[0] != int(nth[0]):  # only the nth call fails
            return real(*args, **kwargs)
        where = args[0] if args and isinstance(args[0], (str, os.PathLike)) else None
        raise OSError(err, os.strerror(err), where)
    setattr(os, name, boom)
from memoir_tui.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def env_for(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "MEMOIR_HOME": str(home / "store"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PYTHONPATH": str(ROOT),
    }


def run(home: Path, fault: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", RUNNER, fault, *args],
        cwd=home,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,  # a safety net only: a spin or a wait shows as a hang here
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    proc = run(home, "none", "goal", "Ship the importer")
    assert proc.returncode == 0, proc.stderr
    # No test here has a second writer: a command that waited for the lock would wait
    # past the safety net, so "refused at once" needs no clock.
    (home / "store" / "memoir-tui.toml").write_text("[store]\nlock_wait_seconds = 3600\n")
    proc = run(home, "none", "review")  # the queue exists: a pin writes two files
    return home


def state(home: Path) -> dict:
    return json.loads((home / "store" / "session.json").read_text())["current"]


def deep_json() -> str:
    return '{"version": 1, "current": ' + "[" * DEEP + "]" * DEEP + "}"


def put_folder(name: str) -> Callable[[Path], None]:
    def make(store: Path) -> None:
        target = store / name
        if target.exists():
            target.unlink()
        target.mkdir()

    return make


def put_text(name: str, text: Callable[[], str]) -> Callable[[Path], None]:
    return lambda store: (store / name).write_text(text())


# (id, an injected os fault or "none", what to make in the store first, the command,
#  words the one-line message must hold)
FAULTS: list[tuple[str, str, Callable[[Path], None] | None, tuple[str, ...], str]] = [
    ("disk-full", "fsync:ENOSPC", None, ("goal", "Another"), "the disk is full"),
    ("disk-full-note", "fsync:ENOSPC", None, ("note", "Use SQLite"), "the disk is full"),
    ("io-error", "replace:EIO", None, ("goal", "Another"), "input/output error"),
    ("quota", "fsync:EDQUOT", None, ("next", "Write the tests"), "quota"),
    ("read-only", "open:EROFS", None, ("goal", "Another"), "read-only"),
    ("read-only-next", "open:EROFS", None, ("next", "Write the tests"), "read-only"),
    (
        "lock-is-a-folder",
        "none",
        put_folder("session.json.lock"),
        ("goal", "Another"),
        "a folder is where the lock file",
    ),
    (
        "flock-is-a-folder",
        "none",
        put_folder("session.json.flock"),
        ("goal", "Another"),
        "a folder is where a file belongs",
    ),
    (
        "machine-id-is-a-folder",
        "none",
        put_folder("machine.id"),
        ("goal", "Another"),
        "machine.id is a folder",
    ),
    (
        "deep-config",
        "none",
        put_text("memoir-tui.toml", lambda: "[caps]\ngoals = " + "[" * DEEP + "]" * DEEP),
        ("status",),
        "nested too deeply",
    ),
]


@pytest.mark.parametrize(
    ("fault", "prepare", "command", "words"),
    [pytest.param(*row[1:], id=row[0]) for row in FAULTS],
)
def test_a_fault_is_one_sentence_and_the_store_stays_valid(
    home: Path,
    fault: str,
    prepare: Callable[[Path], None] | None,
    command: tuple[str, ...],
    words: str,
) -> None:
    store = home / "store"
    before = state(home)
    if prepare is not None:
        prepare(store)
    proc = run(home, fault, *command)
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("memoir-tui: ") and words in lines[0], lines[0]
    # the store stays valid: what was there is there, and no temp file is left
    assert state(home) == before
    assert not [p for p in store.rglob("*.tmp")]
    if fault == "none" and prepare is not None:
        return  # the folder stays until a person moves it; the state was checked above
    after = run(home, "none", "status")
    assert after.returncode == 0, after.stderr


def test_reads_work_on_a_read_only_file_system(home: Path) -> None:
    for command in (("session",), ("status",), ("why", "importer")):
        proc = run(home, "open:EROFS", *command)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    ("filename", "text", "said"),
    [
        (JOURNAL_FILE, lambda: '{"version": 2, "writes": ' + "[" * DEEP + "]" * DEEP + "}", True),
        ("session.json", deep_json, True),
        ("review.json", lambda: '{"version": 1, "items": ' + "[" * DEEP + "]" * DEEP + "}", False),
    ],
    ids=["journal", "session", "review"],
)
def test_a_deeply_nested_store_file_never_bricks_the_store(
    home: Path, filename: str, text: Callable[[], str], said: bool
) -> None:
    """A 100,000-deep journal, session or queue: the command goes on (the journal is set
    aside, the session copied aside, each with a sentence; the queue reads as empty),
    and the store takes writes again."""
    store = home / "store"
    (store / filename).write_text(text())
    proc = run(home, "none", "goal", "After the damage")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    if said:
        assert any(filename in line for line in proc.stderr.splitlines()), proc.stderr
    assert "After the damage" in [g["text"] for g in state(home)["goals"]]
    again = run(home, "none", "status")
    assert again.returncode == 0 and "Traceback" not in again.stderr


UNKNOWN = """
[caps]
goals = 4
tombstone_budget_v9 = 12

[store]
lock_wait_seconds = 5
replication = "eager"

[telemetry]
enabled = false
"""


def test_a_newer_versions_config_is_read_with_a_warning_never_refused(home: Path) -> None:
    (home / "store" / "memoir-tui.toml").write_text(UNKNOWN)
    for command in (("status",), ("goal", "Read past the unknown"), ("config", "show")):
        proc = run(home, "none", *command)
        assert proc.returncode == 0, proc.stderr
        warned = [line for line in proc.stderr.splitlines() if "not known" in line]
        assert len(warned) == 3, proc.stderr
        assert any("[telemetry]" in w for w in warned)
        assert any("tombstone_budget_v9" in w and ":4:" in w for w in warned)  # its line
    shown = run(home, "none", "config", "show")
    assert "goals = 4" in shown.stdout and "lock_wait_seconds = 5.0" in shown.stdout


async def test_a_newer_versions_config_does_not_refuse_mcp_calls(
    store_dir: Path, tmp_path: Path
) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    (store_dir / "memoir-tui.toml").write_text(UNKNOWN)
    env = {
        "HOME": os.environ["HOME"],
        "MEMOIR_HOME": str(store_dir),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "MEMOIR_TUI_LOG_LEVEL": "WARNING",
    }
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        if var in os.environ:
            env[var] = os.environ[var]
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=env, cwd=ROOT
    )
    errlog_path = tmp_path / "server.log"
    with errlog_path.open("w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as session,
        ):
            await session.initialize()
            for name, args in (
                ("memoir_set_goal", {"text": "Through MCP"}),
                ("memoir_status", {}),
                ("memoir_status", {}),
            ):
                result = await session.call_tool(name, args)
                assert not result.is_error, result.content[0].text
    assert "Through MCP" in (store_dir / "session.json").read_text()
    log = errlog_path.read_text()
    assert log.count("[telemetry] is not known") == 1, log  # said once per server


def test_a_full_disk_at_any_write_of_a_commit_of_several_files_keeps_the_store_whole(
    home: Path,
) -> None:
    """A pin writes the queue and the session through the redo journal: ENOSPC at each
    fsync in turn gives one sentence, and the next command leaves either the old state
    or the whole pin, never half of it."""
    enqueue = (
        "from memoir_tui.core.workflows.memoir import Memoir\n"
        "Memoir(actor='cli').review.enqueue([{'text': 'Use SQLite', 'source': 'user'}])\n"
    )
    subprocess.run(
        [sys.executable, "-c", enqueue], env=env_for(home), check=True, timeout=SAFETY_NET
    )
    listing = run(home, "none", "review", "list")
    candidate = re.search(r"\b([0-9a-f]{6,})\b", listing.stdout)
    assert candidate, listing.stdout
    template = home.with_name("template")
    shutil.copytree(home, template)
    outcomes = set()
    for n in range(1, 25):  # (a folder's fsync failing is ignored: that pin goes through)
        shutil.rmtree(home)
        shutil.copytree(template, home)
        proc = run(home, f"fsync:ENOSPC:{n}", "review", "pin", candidate.group(1))
        assert "Traceback" not in proc.stderr, proc.stderr
        if proc.returncode == 0:
            continue
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "the disk is full" in lines[0], (n, proc.stderr)
        after = run(home, "none", "status")
        assert after.returncode == 0, after.stderr
        decided = "Use SQLite" in [d["text"] for d in state(home).get("decisions", [])]
        queue = json.loads((home / "store" / "review.json").read_text())
        pinned = [i.get("state") for i in queue["items"] if "Use SQLite" in i.get("text", "")]
        assert decided == (pinned == ["pinned"]), (n, decided, pinned)  # both or neither
        outcomes.add(decided)
    assert outcomes == {False, True}, outcomes  # failed before the journal, and after
