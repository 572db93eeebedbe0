"""forget --everywhere says which project folders it searched, and finds the one it runs in
from any of its subfolders."""

from __future__ import annotations

from pathlib import Path

from tests.hooks.helpers import make_world


def test_a_subfolder_finds_the_project_and_root_says_what_it_did_not_search(
    tmp_path: Path,
) -> None:
    w = make_world(tmp_path)
    (w.project / "AGENTS.md").write_text("# Agents\nNightjar is secret.\nRun make test.\n")
    sub = w.project / "src" / "deep"
    sub.mkdir(parents=True)
    outside = w.cli("forget", "nightjar", "--everywhere", "--dry-run", cwd=Path("/"))
    assert outside.returncode == 0
    assert "AGENTS.md" not in outside.stdout
    assert "other project folders were not searched" in outside.stdout
    assert "project folders: /\n" not in outside.stdout
    inside = w.cli("forget", "nightjar", "--everywhere", "--purge", "--yes", cwd=sub)
    assert inside.returncode == 0, inside.stdout + inside.stderr
    assert f"project folders: {w.project}" in inside.stdout
    assert (w.project / "AGENTS.md").read_text() == "# Agents\nRun make test.\n"
