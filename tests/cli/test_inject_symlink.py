"""``inject`` on a CLAUDE.md that is a symlink (a dotfiles manager's): written through
the link, which stays a link, and ``--dry-run`` names only the host's own path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
        timeout=60,
    )


def test_inject_writes_through_a_symlinked_claude_md_and_dry_run_names_only_the_link(
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
    assert dry.returncode == 0, dry.stderr
    assert str(link) in dry.stdout and "Ship the symlink fix" in dry.stdout
    assert str(dotfiles) not in dry.stdout + dry.stderr
    assert real.read_text() == "# My rules\n\nBe terse.\n"

    done = memoir(home, "inject")
    assert done.returncode == 0, done.stderr
    assert str(dotfiles) not in done.stdout + done.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    text = real.read_text()
    assert text.startswith("# My rules\n") and "Ship the symlink fix" in text
    assert text.endswith("Be terse.\n")
