"""The real-home guard itself: it must notice a change, or it guards nothing."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import REAL_HOME, SCRATCH_HOME, fingerprint


def test_tests_run_on_a_scratch_home():
    assert Path(os.environ["HOME"]) == SCRATCH_HOME != REAL_HOME
    assert Path(os.environ["MEMOIR_HOME"]).is_relative_to(SCRATCH_HOME)


def test_fingerprint_notices_added_changed_and_removed_files(tmp_path):
    memory = tmp_path / ".claude" / "projects" / "p" / "memory"
    memory.mkdir(parents=True)
    before = fingerprint(tmp_path)
    note = memory / "fact.md"
    note.write_text("x")
    added = fingerprint(tmp_path)
    assert added != before
    note.write_text("xy")
    assert fingerprint(tmp_path) != added
    note.unlink()
    (tmp_path / ".claude.json").write_text("{}")
    assert fingerprint(tmp_path) != added
