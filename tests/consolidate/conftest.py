"""A copy of the planted fixture store (and a home with Claude Code memory) per test."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "consolidate_store"
NOW = "2026-08-01T00:00:00.000Z"


@dataclass
class Fx:
    root: Path
    store_dir: Path
    home: Path

    @property
    def memory(self) -> Path:
        return self.store_dir / "memory"

    def store(self, clock=lambda: NOW):
        from memoir_tui.core.workflows.memoir import Memoir

        return Memoir(self.store_dir, clock=clock, machine_label="test-machine")


@pytest.fixture
def fx(tmp_path: Path) -> Fx:
    root = tmp_path / "fx"
    shutil.copytree(FIXTURE, root)
    return Fx(root, root / "store", root / "home")


# The store's own bookkeeping, which every change adds to: the audit log, the
# machine's id (made by the first audited change) and the lock files.
BOOKKEEPING = ("audit.jsonl*", "machine.id", "*.flock", "*.lock")


def tree_state(
    *roots: Path, skip: tuple[str, ...] = ("trash", "session.json.queue")
) -> dict[str, tuple[str, int]]:
    """sha256 and mtime of every memory file under the roots (trash and bookkeeping left out)."""
    out: dict[str, tuple[str, int]] = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in skip]
            for name in filenames:
                if any(fnmatch.fnmatch(name, pattern) for pattern in BOOKKEEPING):
                    continue
                full = Path(dirpath) / name
                digest = hashlib.sha256(full.read_bytes()).hexdigest()
                out[str(full)] = (digest, full.stat().st_mtime_ns)
    return out
