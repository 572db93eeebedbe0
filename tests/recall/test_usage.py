"""The recall usage log: what recall returned, so consolidate never calls it stale."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from memoir_tui.core.recall import usage

HOUR = 3_600_000
T0 = 1_780_000_000_000  # 2026-05-28


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}


def test_record_then_recalled_since(tmp_path):
    env, store = env_for(tmp_path), tmp_path / "store"
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    usage.record_recalled(store, [a], env=env, now_ms=T0)
    usage.record_recalled(store, [b], env=env, now_ms=T0 + 5 * HOUR)
    assert usage.recalled_since(store, T0, env=env) == {a, b}
    assert usage.recalled_since(store, T0 + HOUR, env=env) == {b}
    assert usage.recalled_since(tmp_path / "other-store", 0, env=env) == set()
    path = usage.usage_path(store, env=env)
    assert path.parent == tmp_path / "state" / "memoir-tui"
    data = json.loads(path.read_text())
    assert data["version"] == 1 and set(data["paths"]) == {str(a), str(b)}


def test_falls_back_to_home_local_state(tmp_path):
    home = tmp_path / "home"
    path = usage.usage_path(tmp_path / "store", env={}, home=home)
    assert path.parent == home / ".local" / "state" / "memoir-tui"


def test_a_repeated_recall_within_the_hour_writes_nothing(tmp_path):
    env, store, a = env_for(tmp_path), tmp_path / "store", tmp_path / "a.md"
    usage.record_recalled(store, [a], env=env, now_ms=T0)
    path = usage.usage_path(store, env=env)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    usage.record_recalled(store, [a], env=env, now_ms=T0 + HOUR - 1)
    assert path.stat().st_mtime_ns == 1_000_000_000
    usage.record_recalled(store, [a], env=env, now_ms=T0 + HOUR)
    assert path.stat().st_mtime_ns != 1_000_000_000
    assert usage.recalled_since(store, T0 + HOUR, env=env) == {a}


def test_a_corrupt_file_is_empty_and_never_raises(tmp_path):
    env, store, a = env_for(tmp_path), tmp_path / "store", tmp_path / "a.md"
    path = usage.usage_path(store, env=env)
    path.parent.mkdir(parents=True)
    for junk in ("{not json", "[1, 2]", '{"paths": 3}', "\xff"):
        path.write_text(junk)
        assert usage.recalled_since(store, 0, env=env) == set()
    usage.record_recalled(store, [a], env=env, now_ms=T0)
    assert usage.recalled_since(store, 0, env=env) == {a}


def test_an_unwritable_state_dir_is_ignored(tmp_path):
    blocker = tmp_path / "state"
    blocker.write_text("a file where the directory should be")
    env = {"XDG_STATE_HOME": str(blocker)}
    usage.record_recalled(tmp_path / "store", [tmp_path / "a.md"], env=env, now_ms=T0)
    assert usage.recalled_since(tmp_path / "store", 0, env=env) == set()


def test_search_records_its_entry_hits(world):
    env = {**world.host_env(), "XDG_STATE_HOME": str(world.root / "state")}
    from memoir_tui.core.recall import Recall

    with Recall(
        world.store_dir, home=world.home, env=env, cache_dir=world.cache, cwd=world.project
    ) as r:
        assert r.search("wombat")  # a session-only hit: nothing recorded
        assert usage.recalled_since(world.store_dir, 0, env=env) == set()
        hits = r.search("nginx ingress")
    assert any(h.path.endswith("fact_k8s-cluster.md") for h in hits)
    recalled = usage.recalled_since(world.store_dir, 0, env=env)
    assert world.store_dir / "memory" / "fact_k8s-cluster.md" in recalled
    assert all(p.name != "session.json" for p in recalled)


def test_consolidate_skips_an_old_entry_recall_returned(tmp_path):
    from memoir_tui.core.recall import Recall
    from memoir_tui.core.services import consolidate as c
    from memoir_tui.core.workflows.memoir import Memoir

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "consolidate_store"
    shutil.copytree(fixture, tmp_path / "fx")
    store_dir, home = tmp_path / "fx" / "store", tmp_path / "fx" / "home"
    env = {"HOME": str(home), "XDG_STATE_HOME": str(tmp_path / "state")}
    store = Memoir(store_dir, clock=lambda: "2026-08-01T00:00:00.000Z")
    old = "store:memory/fact_old-staging-host.md"

    def stale() -> set[tuple[str, ...]]:
        report = c.scan(store, home=home, env=env)
        return {p.refs for p in report.proposals if p.kind == "stale_entry"}

    assert stale() == {(old,)}
    with Recall(store_dir, home=home, env=env, cache_dir=tmp_path / "cache") as r:
        hits = r.search("tern-01 staging")
    assert any(h.path.endswith("fact_old-staging-host.md") for h in hits)
    assert stale() == set()
    # an explicit list still wins over the log
    kinds = {p.kind for p in c.scan(store, home=home, env=env, recalled=()).proposals}
    assert "stale_entry" in kinds
