"""The index is a cache: incremental, rebuildable, safe to delete or corrupt, shared."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from memoir_tui.core.recall.index import cache_dir, index_path
from tests.deadlines import SAFETY_NET
from tests.world import World

from .conftest import entry, write


def bump(path: Path) -> None:
    """Make sure a rewrite is visible to mtime checks on coarse clocks."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def test_cache_lives_in_the_user_cache_dir(tmp_path: Path):
    assert cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "memoir-tui"
    a = index_path(tmp_path / "s1", tmp_path, tmp_path)
    b = index_path(tmp_path / "s2", tmp_path, tmp_path)
    assert a != b and a.parent == tmp_path and a.suffix == ".sqlite3"


def test_in_place_edit_new_file_and_delete_are_picked_up(world: World):
    with world.recall() as r:
        assert r.search("gannet", all_projects=True) == []
        note = world.store_dir / "memory" / "fact_cluster.md"
        write(note, entry("fact", "Seabirds", "The gannet dives.\n"))
        assert r.search("gannet", all_projects=True)[0].name == "Seabirds"
        # edit in place (same inode): the directory's mtime does not change
        with open(note, "r+", encoding="utf-8") as fh:
            fh.write(entry("fact", "Seabirds", "The cormorant dives.\n"))
            fh.truncate()
        bump(note)
        assert r.search("gannet", all_projects=True) == []
        assert r.search("cormorant", all_projects=True)
        note.unlink()
        assert r.search("cormorant", all_projects=True) == []


def test_directory_level_check_still_verifies_returned_files(world: World):
    # full_check_files=0: every query checks directories only, plus the files it returns
    with world.recall(full_check_files=0) as r:
        r.refresh(full=True)
        note = world.store_dir / "memory" / "decision_postgres.md"
        text = note.read_text()
        with open(note, "w", encoding="utf-8") as fh:  # in place
            fh.write(text.replace("JSONB support", "JSONB and heron support"))
        bump(note)
        hit = r.search("postgres", all_projects=True)[0]
        assert "heron" in hit.passage
        new = world.project / ".claude" / "rules" / "fresh.md"  # a new directory + file
        write(new, "Kittiwake rule.\n")
        assert r.search("kittiwake")


def test_a_second_process_sees_the_first_ones_index(world: World):
    with world.recall() as first:
        first.refresh()
        assert first.search("postgres", all_projects=True)
    with world.recall() as second:
        report = second.refresh()
        assert report.added == 0 and report.updated == 0
        assert second.search("postgres", all_projects=True)


def test_deleting_the_cache_costs_only_a_rebuild(world: World):
    with world.recall() as r:
        r.refresh()
        path = r.index.path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with world.recall() as r:
        assert r.search("postgres", all_projects=True)


@pytest.mark.parametrize("garbage", [b"not a database at all" * 100, b""], ids=["garbage", "empty"])
def test_a_corrupt_cache_is_rebuilt(world: World, garbage: bytes):
    with world.recall() as r:
        r.refresh()
        path = r.index.path
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(garbage)
    with world.recall() as r:
        assert r.search("postgres", all_projects=True)


def test_a_corrupted_page_is_rebuilt(world: World):
    with world.recall() as r:
        r.refresh()
        path = r.index.path
        r.index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    for i in range(4096, len(data), 97):  # scribble over every page but the header
        data[i] = (data[i] + 91) % 256
    path.write_bytes(bytes(data))
    with world.recall() as r:
        r.refresh()
        assert r.search("postgres", all_projects=True)


def test_rebuild_and_status(world: World):
    with world.recall() as r:
        report = r.rebuild()
        assert report.added > 20
        status = r.status()
        assert status.exists and status.files >= report.added
        assert status.by_tool["memoir"] >= 4 and "cursor" in status.by_tool


def test_oversized_files_are_skipped_with_a_note(world: World):
    big = world.store_dir / "memory" / "fact_huge.md"
    write(big, entry("fact", "Huge", "walrus " * 100_000))
    with world.recall() as r:
        assert r.search("walrus", all_projects=True) == []
        notes = dict(r.status().notes)
        assert "larger than" in notes[str(big)]


def test_concurrent_refreshes_from_two_threads(world: World):
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with world.recall() as r:
                for _ in range(3):
                    r.refresh(full=True)
                    assert r.search("postgres", all_projects=True)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with world.recall() as r:
        hits = r.search("postgres database", all_projects=True)
        assert len([h for h in hits if h.name == "Postgres is the primary database"]) == 1


def test_watcher_picks_up_changes_without_stat_walks(world: World):
    with world.recall() as r:
        if not r.watch():
            pytest.skip("inotify is not available here")
        assert r.status().watching
        note = world.store_dir / "memory" / "fact_puffin.md"
        write(note, entry("fact", "Puffins", "The puffin nests in burrows.\n"))
        deadline = time.monotonic() + SAFETY_NET  # a safety net: the condition decides
        while not r.search("puffin", all_projects=True) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert r.search("puffin", all_projects=True)
        with open(note, "w", encoding="utf-8") as fh:  # in place
            fh.write(entry("fact", "Puffins", "The auk nests in burrows.\n"))
        deadline = time.monotonic() + SAFETY_NET  # a safety net: the condition decides
        while not r.search("auk", all_projects=True) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert r.search("auk", all_projects=True)
        assert r.search("puffin nests", all_projects=True)[0].passage.count("auk") == 1


def test_entries_lists_documents_without_hidden_ones(world: World):
    with world.recall() as r:
        listed = r.entries(all_projects=True)
        tools = {e.tool for e in listed}
        assert {"memoir", "claude-code", "cursor", "agents-md"} <= tools
        assert not [e for e in listed if "Zanzibar" in e.name or "ocelot" in e.name]
        cursor = next(e for e in listed if e.tool == "cursor")
        assert cursor.always_loaded and cursor.description.startswith("SQL migration")
        assert [e.tool for e in r.entries(tools=["memoir"], all_projects=True)] == ["memoir"] * len(
            r.entries(tools=["memoir"], all_projects=True)
        )


def test_linux_cache_dir_matches_platformdirs(monkeypatch: pytest.MonkeyPatch):
    import sys

    from platformdirs import user_cache_dir

    if not sys.platform.startswith("linux"):
        pytest.skip("the shortcut is Linux-only")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert cache_dir({"HOME": os.environ["HOME"]}) == Path(user_cache_dir("memoir-tui"))


def test_full_check_files_comes_from_config(world: World):
    from memoir_tui.core.door.config import ConfigError, load_config

    config_file = world.store_dir / "memoir-tui.toml"
    config_file.write_text("[recall]\nfull_check_files = 0\n")
    with world.recall() as r:
        assert r.index.full_check_files == 0
    config_file.write_text("[recall]\nfull_check_files = -1\n")
    with pytest.raises(ConfigError, match="full_check_files"):
        load_config(world.store_dir)


def test_read_and_write_target_through_the_service(world: World):
    from memoir_tui.core.hosts.adapters.guard import PathRefused

    with world.recall() as r:
        _path, text = r.read("cursor", world.project / ".cursor" / "rules" / "sql.mdc")
        assert "applied migration" in text
        with pytest.raises(PathRefused):
            r.read("cursor", world.home / ".claude" / ".credentials.json")
        target = r.write_target("claude-code", "lesson_x.md", project=world.project)
        assert target.parent.name == "memory" and str(world.home) in str(target)
        write(target, entry("lesson", "Ostrich lesson", "Ostriches run.\n"))
        r.notify_changed([target])
        assert r.search("ostrich")[0].path == str(target)


def test_an_older_schema_is_replaced_in_place(world: World):
    import sqlite3

    with world.recall() as r:
        path = r.index.path
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE docs(x)")
        conn.execute("PRAGMA user_version = 1")
    with world.recall() as r:
        assert r.search("postgres", all_projects=True)


def test_processes_racing_on_a_fresh_cache(world: World):
    import subprocess
    import sys

    env = world.cli_env()
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    cmd = [sys.executable, "-m", "memoir_tui", "recall", "postgres", "--json", "--all-projects"]
    procs = [
        subprocess.Popen(
            cmd, env=env, cwd=world.project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
        assert b"decision_postgres.md" in out
    with world.recall() as r:
        names = [h.name for h in r.search("postgres database", all_projects=True)]
        assert names.count("Postgres is the primary database") == 1


def test_a_different_scope_gets_its_own_database(world: World, tmp_path: Path):
    from memoir_tui.core.recall import Recall

    with world.recall() as a:
        env = {**world.host_env(), "CODEX_HOME": str(tmp_path / "codex")}
        with Recall(world.store_dir, home=world.home, env=env, cache_dir=world.cache) as b:
            assert a.index.path != b.index.path
        with world.recall() as c:
            assert a.index.path == c.index.path
