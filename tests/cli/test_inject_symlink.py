"""``inject`` on a CLAUDE.md that is a symlink: a link out of the host's folder (to a
dotfiles checkout, a shell rc file, ``/etc/passwd``) is named with its target and left
alone, its target never printed nor written; a link inside the folder is written through
and stays a link."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.deadlines import SAFETY_NET

REPO = Path(__file__).resolve().parents[2]


def memoir(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(home),
        "MEMOIR_HOME": str(home / ".config" / "memoir"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PYTHONPATH": str(REPO),
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


def test_inject_refuses_a_claude_md_linked_out_of_its_folder_naming_link_and_target(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    dotfiles = tmp_path / "dotfiles"  # outside every host folder (and the home)
    dotfiles.mkdir()
    real = dotfiles / "CLAUDE.md"
    real.write_text("# My rules\n\nBe terse.\n")
    (home / ".claude").mkdir(parents=True)
    link = home / ".claude" / "CLAUDE.md"
    link.symlink_to(real)
    assert memoir(home, "goal", "Ship the symlink fix").returncode == 0

    dry = memoir(home, "inject", "--dry-run")
    said = dry.stdout + dry.stderr
    assert str(link) in said and str(real) in said and "outside" in said
    assert "Be terse" not in said  # a link's target content is never printed
    done = memoir(home, "inject")
    said = done.stdout + done.stderr
    assert str(link) in said and str(real) in said and "left as it is" in said
    assert real.read_text() == "# My rules\n\nBe terse.\n"
    assert link.is_symlink() and os.readlink(link) == str(real)


def test_inject_writes_through_a_link_inside_the_host_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shared = home / ".claude" / "shared"
    shared.mkdir(parents=True)
    real = shared / "CLAUDE.md"
    real.write_text("# My rules\n\nBe terse.\n")
    link = home / ".claude" / "CLAUDE.md"
    link.symlink_to(real)
    assert memoir(home, "goal", "Ship the symlink fix").returncode == 0
    done = memoir(home, "inject")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    text = real.read_text()
    assert text.startswith("# My rules\n") and "Ship the symlink fix" in text
