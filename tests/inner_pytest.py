"""Run pytest on a small inner suite, in a fresh process, with this suite's conftest.

For the tests of the suite's own machinery (the real-home guard, the
Hypothesis profiles): ``tests/conftest.py`` is loaded as a plugin, the inner
suite's files are written by the test, and the plugins the inner tests do not
need are left out (each costs seconds in every process).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from tests.deadlines import SAFETY_NET
from tests.paths import REPO

LEAN = ("no:cacheprovider", "no:hypothesispytest", "no:asyncio", "no:textual-snapshot", "no:syrupy")


def run_inner_pytest(
    suite: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    drop: Iterable[str] = (),
) -> subprocess.CompletedProcess[str]:
    """``pytest ARGS SUITE``; ``env`` is added to this environment, less ``drop``
    and anything of pytest-xdist's (a nested run is a fresh run, not a worker)."""
    drop = set(drop)
    base = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("PYTEST_")}
    plugins = [flag for name in ("tests.conftest", *LEAN) for flag in ("-p", name)]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugins, "--rootdir", str(suite), *args, str(suite)],
        cwd=REPO,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )
