"""mypy is part of the suite: the modules `[tool.mypy] files` names type-check clean.

The list lives in pyproject.toml (one place), so this test, a developer's bare
`python -m mypy` and CI check the same files with the same settings.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _configured_files() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["mypy"]["files"])


def test_configured_files_exist():
    files = _configured_files()
    assert files, "[tool.mypy] files names no module"
    missing = [f for f in files if not (ROOT / f).exists()]
    assert not missing, f"[tool.mypy] files names modules that are not there: {missing}"


def test_mypy_is_clean_on_configured_files(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the [test] extra)")
    proc = subprocess.run(
        # A scratch cache: the run leaves nothing in the work tree and never reads a
        # stale cache another checkout left behind.
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    # It read the configured files (not, say, none because the config went unread).
    checked = re.search(r"no issues found in (\d+) source files?", output)
    assert checked, output
    assert int(checked.group(1)) >= len(_configured_files()), output
