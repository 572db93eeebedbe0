"""Issue 15: a CLI recall never answers from a stale row, and sees an in-place edit at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.world import World

from .conftest import entry, write

REPO = Path(__file__).resolve().parents[2]


def _cli(world: World, *argv: str) -> subprocess.CompletedProcess:
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *argv],
        env=env, cwd=world.project, capture_output=True, text=True, check=True,
    )  # fmt: skip


def _edit_in_place(path: Path, text: str) -> None:
    ino = path.stat().st_ino
    with open(path, "w", encoding="utf-8") as fh:  # truncate and rewrite: same inode
        fh.write(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    assert path.stat().st_ino == ino


def test_in_place_edit_in_a_3000_file_store_is_found_by_the_very_next_cli_query(world: World):
    mem = world.store_dir / "memory"
    for i in range(3000):
        write(mem / f"fact_note-{i:04d}.md", entry("fact", f"Note {i}", f"Routine note {i}.\n"))
    _cli(world, "index", "--json")
    target = mem / "fact_note-1234.md"
    # the index's last full check was just now: nothing but freshness can find the edit
    _edit_in_place(target, entry("fact", "Note 1234", "Now it mentions the kakapo.\n"))
    hits = json.loads(_cli(world, "recall", "kakapo", "--json", "--all-projects").stdout)
    assert [h["path"] for h in hits] == [str(target)]


def test_candidates_are_rechecked_before_scoring_above_the_full_check_size(world: World):
    """Above full_check_files only candidates are stat'ed, but all of them, before scoring:
    a stale row never decides the order, even for a file that would not be shown."""
    a = write(world.store_dir / "memory" / "fact_a.md", entry("fact", "Birds", "herons herons\n"))
    b = write(world.store_dir / "memory" / "fact_b.md", entry("fact", "Other", "one heron\n"))
    with world.recall(full_check_files=0) as r:
        assert [h.path for h in r.search("heron", all_projects=True)][:2] == [str(a), str(b)]
        # b's row says "one heron" (it lost to a); its file now says much more
        _edit_in_place(b, entry("fact", "Other", "heron heron heron heron heron\n"))
        hits = r.search("heron", all_projects=True, limit=1)
        assert [h.path for h in hits] == [str(b)]


def test_above_the_full_check_size_a_keeper_journals_in_place_edits(world: World):
    """No server, too many files to stat: the first query leaves a keeper (inotify) that
    journals writes; the very next query after an in-place edit finds it."""
    import time

    from memoir_tui.core.recall import keeper

    if not keeper.can_watch():
        import pytest

        pytest.skip("inotify is Linux only")
    (world.store_dir / "memoir-tui.toml").write_text("[recall]\nfull_check_files = 0\n")
    mem = world.store_dir / "memory"
    for i in range(200):
        write(mem / f"fact_note-{i:03d}.md", entry("fact", f"Note {i}", f"Routine note {i}.\n"))
    _cli(world, "index", "--json")
    _cli(world, "recall", "routine", "--json", "--all-projects")  # leaves the keeper
    index = next((world.cache / "memoir-tui").glob("recall-*.sqlite3"))
    deadline = time.monotonic() + 60  # a safety net: the condition decides
    while not keeper.alive(index):
        assert time.monotonic() < deadline, "no keeper started"
        time.sleep(0.05)
    for n, word in enumerate(("kakapo", "takahe", "weka")):
        target = mem / f"fact_note-{n * 50:03d}.md"
        _edit_in_place(target, entry("fact", f"Note {n}", f"Now it mentions the {word}.\n"))
        hits = json.loads(_cli(world, "recall", word, "--json", "--all-projects").stdout)
        assert [h["path"] for h in hits] == [str(target)], word
    assert keeper.alive(index)  # one keeper served them all
