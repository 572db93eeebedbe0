"""Every snapshot file belongs to a test that compares against it, and back.

syrupy fails a run on unused snapshots only when it sees the whole run in one
process: under pytest-xdist each worker sees a part, so syrupy 4.8 skips the
check. This test does it instead, from a collection of the snapshot tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.deadlines import SAFETY_NET
from tests.paths import REPO, TESTS

PLUGIN = """
import json

def pytest_collection_finish(session):
    with open({out!r}, "w") as fh:
        json.dump({{i.nodeid: "snap_compare" in i.fixturenames for i in session.items}}, fh)
"""


def snapshot_files() -> set[Path]:
    return {p for p in TESTS.rglob("__snapshots__/*/*") if p.is_file()}


def collected(tmp_path: Path, modules: list[Path]) -> dict[str, bool]:
    """node id → whether the test takes ``snap_compare``, for every test in ``modules``."""
    out = tmp_path / "collected.json"
    (tmp_path / "collect_plugin.py").write_text(PLUGIN.format(out=str(out)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    args = ["--collect-only", "-q", "-n0", "-p", "collect_plugin", "-p", "no:cacheprovider"]
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *args, *map(str, modules)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


def test_every_snapshot_has_its_test_and_every_snapshot_test_its_snapshot(tmp_path):
    files = snapshot_files()
    assert files, "no snapshots found: has the layout changed?"
    expected: dict[str, Path] = {}
    for path in files:
        assert path.suffix == ".svg", path
        module = path.parent.parent.parent / (path.parent.name + ".py")
        assert module.is_file(), f"{path.relative_to(REPO)}: no test module {module.name} beside it"
        expected[f"{module.relative_to(REPO)}::{path.stem}"] = path
    modules = {p.parent.parent.parent / (p.parent.name + ".py") for p in files}
    modules |= {p for p in TESTS.rglob("test_*.py") if "snap_compare" in p.read_text()}
    modules.discard(Path(__file__).resolve())
    tests = collected(tmp_path, sorted(modules))
    taking = {node for node, takes in tests.items() if takes}
    unused = sorted(str(expected[n].relative_to(REPO)) for n in set(expected) - taking)
    missing = sorted(taking - set(expected))
    assert not unused, f"snapshots no test compares against: {unused}"
    assert not missing, f"snapshot tests without a snapshot file: {missing}"
