"""Every test runs on a scratch HOME and store; the real home is guarded.

The environment is switched at import time, before any test module (or a
subprocess it spawns) can resolve ``~``. At the end of the session the guard
re-fingerprints the real home's memory directories and fails the run if
anything there changed.

Hypothesis profiles are registered here too: ``quick`` (every run, CI's
too) and ``soak`` (ten times the examples), picked by ``HYPOTHESIS_PROFILE``.

Under pytest-xdist this module is imported by the controller and again by
every worker. The workers are started by the controller after this import, so
they inherit its scratch HOME; the real home is therefore handed down in
``MEMOIR_TUI_TESTS_REAL_HOME`` and each worker makes a scratch HOME of its own.
The guard runs in the controller (or in a run without workers), whose
before/after fingerprints bracket every worker's whole run.

Each process's scratch folder also holds its temporary files (``TMPDIR`` and
``tempfile.tempdir`` point into it; pytest's own ``tmp_path`` stays where it
was), so what the code under test leaves there (an editor's draft kept after a
refusal, a demo store) goes with the folder at the end. The folder goes at the
end of the session and, for anything else that imports this module, at exit;
one whose run was killed names its process in ``owner``, and the next run
removes it once that process is gone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REAL_HOME_VAR = "MEMOIR_TUI_TESTS_REAL_HOME"
REAL_HOME = Path(
    os.environ.setdefault(REAL_HOME_VAR, os.environ.get("HOME") or os.path.expanduser("~"))
)
GUARDED = (
    ".config/memoir",
    ".config/memoir-tui",
    ".claude",
    ".claude.json",
    ".cursor",
    ".gemini",
    ".codex",
    ".codeium",
    ".continue",
    ".copilot",
    ".config/zed",
    ".config/Code/User/mcp.json",
    ".aider.conf.yml",
    ".cache/memoir-tui",
    ".local/share/memoir-tui",
    ".local/state/memoir-tui",
)
_MAX_FILES = 50_000


def fingerprint(home: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file under the guarded paths, bounded in count."""
    prints: dict[str, tuple[int, int]] = {}
    for rel in GUARDED:
        root = home / rel
        if not os.path.lexists(root):
            continue
        if root.is_file() or root.is_symlink():
            st = root.lstat()
            prints[rel] = (st.st_size, st.st_mtime_ns)
            continue
        for dirpath, _dirnames, filenames in os.walk(root):
            st = os.lstat(dirpath)
            prints[os.path.relpath(dirpath, home) + "/"] = (0, st.st_mtime_ns)
            for name in filenames:
                full = os.path.join(dirpath, name)
                try:
                    st = os.lstat(full)
                except OSError:
                    continue
                prints[os.path.relpath(full, home)] = (st.st_size, st.st_mtime_ns)
                if len(prints) > _MAX_FILES:
                    return prints
    return prints


SCRATCH_PREFIX = "memoir-tui-tests-"
OWNER_FILE = "owner"
REAL_TMP_VAR = "MEMOIR_TUI_TESTS_REAL_TMP"
REAL_TMP = Path(os.environ.setdefault(REAL_TMP_VAR, tempfile.gettempdir()))


def _owner_line() -> str:
    return f"{os.getpid()} {socket.gethostname()}\n"


def sweep_abandoned(root: Path) -> list[Path]:
    """Remove the scratch folders under ``root`` whose owner process is gone (a run that
    was killed); one whose owner lives, is elsewhere or is not named is left alone."""
    host = socket.gethostname()
    removed = []
    for path in root.glob(SCRATCH_PREFIX + "*"):
        try:
            pid_text, owner_host = (path / OWNER_FILE).read_text().split()
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if owner_host != host or pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        except OSError:
            continue  # alive (another user's)
    return removed


_BEFORE = fingerprint(REAL_HOME)
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
sweep_abandoned(REAL_TMP)
SCRATCH = Path(
    tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{_WORKER + '-' if _WORKER else ''}", dir=REAL_TMP)
)
(SCRATCH / OWNER_FILE).write_text(_owner_line())
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)
SCRATCH_TMP = SCRATCH / "tmp"
SCRATCH_TMP.mkdir()
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(REAL_TMP))  # tmp_path stays put
os.environ["TMPDIR"] = str(SCRATCH_TMP)
tempfile.tempdir = str(SCRATCH_TMP)
SCRATCH_HOME = SCRATCH / "home"
SCRATCH_HOME.mkdir()
os.environ["HOME"] = str(SCRATCH_HOME)
os.environ["MEMOIR_HOME"] = str(SCRATCH_HOME / ".config" / "memoir")
os.environ["XDG_CONFIG_HOME"] = str(SCRATCH_HOME / ".config")
os.environ["XDG_CACHE_HOME"] = str(SCRATCH_HOME / ".cache")
os.environ["XDG_DATA_HOME"] = str(SCRATCH_HOME / ".local" / "share")
os.environ["XDG_STATE_HOME"] = str(SCRATCH_HOME / ".local" / "state")
for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "MEMOIR_PASSPHRASE"):
    os.environ.pop(var, None)


@pytest.hookimpl(trylast=True)  # after the plugins that still read their temp files
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(SCRATCH, ignore_errors=True)
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller guards the whole run
    after = fingerprint(REAL_HOME)
    if after != _BEFORE:
        changed = sorted(k for k in set(after) | set(_BEFORE) if after.get(k) != _BEFORE.get(k))
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        message = "real-home guard: tests changed files under the real home: " + ", ".join(
            changed[:20]
        )
        if reporter is not None:
            reporter.write_line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# --- Hypothesis profiles ------------------------------------------------------------

PROFILE_VAR = "HYPOTHESIS_PROFILE"
QUICK_EXAMPLES = 100
# Both profiles turn off Hypothesis's timing checks (the per-example deadline
# and the too_slow health check): on a loaded machine, with a worker per core,
# they fail tests for being slow, not wrong. --durations shows what is slow.
settings.register_profile(
    "quick",
    max_examples=QUICK_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,  # a failure in CI prints what reproduces it (no example database there)
)
SOAK_FACTOR = 10
settings.register_profile(
    "soak", settings.get_profile("quick"), max_examples=SOAK_FACTOR * QUICK_EXAMPLES
)
PROFILES = ("quick", "soak")
PROFILE = os.environ.get(PROFILE_VAR, "quick")
if PROFILE in PROFILES:
    settings.load_profile(PROFILE)


def examples(quick: int, soak: int | None = None) -> int:
    """``quick`` examples under the quick profile, ``soak`` under the soak profile.

    For a test whose examples cost more or less than most: ``@settings(max_examples=
    examples(150))`` runs 150 by default and 1,500 under ``HYPOTHESIS_PROFILE=soak``;
    ``examples(100, soak=4000)`` keeps the default run short and the soak deep. Another
    profile scales between the two (below quick: ``quick`` scaled down alike).
    Every ``max_examples`` in tests/ is written through this (a guard in
    tests/test_hypothesis_profiles.py).
    """
    soak = SOAK_FACTOR * quick if soak is None else soak
    scale = settings.default.max_examples / QUICK_EXAMPLES
    if scale <= 1:
        return max(1, round(quick * scale))
    return max(1, round(quick + (soak - quick) * (scale - 1) / (SOAK_FACTOR - 1)))


# Workers per core for ``-n auto`` (pyproject's addopts). Much of the suite waits on a
# child (tmux, an MCP server, a hook, git): with one worker per core the cores idle
# through those waits. Measured on 2 cores, idle (2,359 tests): 1 per core 440 s,
# 2 per core 347 s, 3 per core 373 s (bench/README.md, "The test suite's wall time").
WORKERS_PER_CORE = 2


@pytest.hookimpl(optionalhook=True)  # a run with -p no:xdist has no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def pytest_configure(config: pytest.Config) -> None:
    if PROFILE not in PROFILES:
        raise pytest.UsageError(f"{PROFILE_VAR}={PROFILE!r}: the profiles are {PROFILES}")
    if "MERGE_EXAMPLES" in os.environ:
        raise pytest.UsageError(
            f"MERGE_EXAMPLES is gone: {PROFILE_VAR}=soak runs every property test longer"
        )


def pytest_report_header(config: pytest.Config) -> str:
    name = settings.get_current_profile_name()
    return f"hypothesis profile {name!r} ({PROFILE_VAR}=soak for the long soak)"


@pytest.fixture
def store_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty store directory; ``MEMOIR_HOME`` points at it."""
    path = tmp_path / "store"
    path.mkdir()
    monkeypatch.setenv("MEMOIR_HOME", str(path))
    return path


class TickingClock:
    """A deterministic clock: each call is one second after the last."""

    def __init__(self, start_ms: int = 1_780_000_000_000) -> None:
        self.ms = start_ms

    def __call__(self) -> str:
        from memoir_tui.core.format.identity import iso_from_ms

        self.ms += 1000
        return iso_from_ms(self.ms)


class JulyClock(TickingClock):
    """Ticks from 2026-07-01 09:00 UTC, after every date in the demo fixtures."""

    def __init__(self) -> None:
        super().__init__(1_782_896_400_000)


@pytest.fixture
def clock() -> TickingClock:
    return TickingClock()


@pytest.fixture
def store(store_dir: Path, clock: TickingClock):
    from memoir_tui.core.workflows.memoir import Memoir

    return Memoir(store_dir, clock=clock, machine_label="test-machine")


def store_past_its_caps(store_dir: Path):
    """A store whose every visible cap is 1 and that holds an "old" and a "new" goal,
    next action, question and decision: the old ones parked or archived."""
    from memoir_tui.core.workflows.memoir import Memoir

    (store_dir / "memoir-tui.toml").write_text(
        "[caps]\ngoals = 1\nnext_actions = 1\nopen_questions = 1\ndecisions = 1\n"
    )
    store = Memoir(store_dir)
    for kind in ("old", "new"):
        store.add_goal(f"{kind} goal")
        store.add_next_action(f"{kind} step")
        store.ask_question(f"{kind} question?")
        store.note_decision(f"{kind} decision", why="measured")
    return store
