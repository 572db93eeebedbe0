"""Issue 15's friction: a hint when the scope hides matches; the MCP server's index is
built in the background at start and answers from what it has meanwhile, saying so."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memoir_tui.mcp.tools.recall import recall
from memoir_tui.mcp.warm_recall import WarmRecall
from tests.deadlines import SAFETY_NET
from tests.world import World

from .conftest import write

REPO = Path(__file__).resolve().parents[2]


def _cli(world: World, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", "recall", *argv],
        env=env, cwd=cwd, capture_output=True, text=True, check=True,
    )  # fmt: skip


def test_outside_any_project_every_project_is_searched_and_inside_a_miss_says_where(
    world: World,
):
    # "platypus" is only in the billing project (its AGENTS.md and an entry of its own).
    # Outside any project (home) every project is searched, as the README says (issue 27)
    out = _cli(world, world.home, "platypus", "--json")
    assert len(json.loads(out.stdout)) == 2 and "other projects" not in out.stderr
    # inside another project a miss says where the matches are
    out = _cli(world, world.project, "platypus")
    assert out.stdout == ""
    assert "nothing found for 'platypus'" in out.stderr
    assert "2 matches in other projects (billing 2): --all-projects" in out.stderr
    # JSON keeps stdout a list; the hint goes to stderr
    out = _cli(world, world.project, "platypus", "--json")
    assert out.stdout.strip() == "[]" and "--all-projects" in out.stderr
    # nothing anywhere: no hint
    out = _cli(world, world.project, "xylophonist")
    assert "other projects" not in out.stderr
    assert "platypus" in _cli(world, world.project, "platypus", "--all-projects").stdout.lower()


@pytest.fixture
def served(world: World, monkeypatch: pytest.MonkeyPatch):
    for key, value in world.cli_env().items():
        monkeypatch.setenv(key, value)
    from memoir_tui.core.workflows.memoir import Memoir

    warms: list[WarmRecall] = []

    def make() -> WarmRecall:
        warm = WarmRecall(world.store_dir, cwd=world.project)
        warms.append(warm)
        return warm

    yield Memoir(world.store_dir), make
    for warm in warms:
        warm.close()


def test_mcp_recall_answers_from_the_index_while_the_background_build_runs(
    world: World, served, monkeypatch: pytest.MonkeyPatch
):
    store, make = served
    first = make()
    first.get()  # an index exists from an earlier server
    first.close()
    write(
        world.store_dir / "memory" / "fact_new.md", "---\ntype: fact\nname: Kea\n---\nkea parrot\n"
    )

    release = threading.Event()
    real_make = WarmRecall._make

    def slow_make(self):
        release.wait(20)
        return real_make(self)

    monkeypatch.setattr(WarmRecall, "_make", slow_make)
    warm = make()
    warm.start()
    assert warm.building()
    reply = recall(store, warm, "postgres", all_projects=True)
    assert "still being built" in reply.text
    assert reply.data.complete is False
    assert reply.data.hits and reply.data.hits[0].name == "Postgres is the primary database"
    # the new file is not indexed yet: the answer says it may be incomplete, not wrong
    assert not recall(store, warm, "kea", all_projects=True).data.hits
    release.set()
    warm.get()
    done = recall(store, warm, "kea", all_projects=True)
    assert done.data.complete and "still being built" not in done.text
    assert [h.name for h in done.data.hits] == ["Kea"]


def test_mcp_interim_answer_leaves_out_files_changed_since_indexed(
    world: World, served, monkeypatch: pytest.MonkeyPatch
):
    store, make = served
    first = make()
    first.get()
    first.close()
    # hidden in the file itself after the index last read it: the stale row must not show
    path = world.store_dir / "memory" / "decision_postgres.md"
    path.write_text(path.read_text().replace("---\n", "---\nhidden: true\n", 1))
    release = threading.Event()
    real_make = WarmRecall._make
    monkeypatch.setattr(WarmRecall, "_make", lambda self: (release.wait(20), real_make(self))[1])
    warm = make()
    warm.start()
    reply = recall(store, warm, "postgres", all_projects=True)
    assert reply.data.complete is False
    assert str(path) not in [h.path for h in reply.data.hits]
    release.set()


def test_mcp_miss_in_scope_counts_other_projects(world: World, served):
    store, make = served
    reply = recall(store, make(), "platypus")
    assert reply.data.hits == [] and reply.data.elsewhere == {"billing": 2}
    assert "2 matches in other projects (billing 2): all_projects=true" in reply.text


def test_served_process_starts_the_build_at_once(world: World, served):
    from memoir_tui.mcp import server

    built: list[WarmRecall] = []
    real_start = WarmRecall.start

    def spy(self):
        built.append(self)
        real_start(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(WarmRecall, "start", spy)
        server.build_server(world.store_dir)
        assert built == []  # tests and in-process servers stay lazy
        server.build_server(world.store_dir, warm_recall=True)
        assert len(built) == 1
    built[0].get()
    assert built[0].get().index.file_count() > 0
    built[0].close()


def test_a_watching_server_keeps_the_index_current_for_the_cli(world: World, served):
    """Above full_check_files a CLI query cannot see an in-place edit by itself; a server
    that watches applies it to the shared index at once, so the CLI's next query can."""
    import os
    import time

    config = world.store_dir / "memoir-tui.toml"
    config.write_text(config.read_text() + "full_check_files = 0\n")
    _store, make = served
    warm = make()
    if not warm.get().status().watching:
        pytest.skip("no inotify here")
    path = world.store_dir / "memory" / "fact_k8s-cluster.md"
    ino = path.stat().st_ino
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("The kakapo pool runs the batch jobs.\n")
    assert path.stat().st_ino == ino
    # The watching server applies it to the shared index and the CLI then finds it; how
    # soon is the server's speed, so the CLI is asked until then (no fixed wait).
    deadline = time.monotonic() + SAFETY_NET  # a safety net: the condition decides
    out = _cli(world, world.project, "kakapo", "--json", "--all-projects")
    while str(path) not in out.stdout:
        assert time.monotonic() < deadline, out.stderr
        time.sleep(0.2)
        out = _cli(world, world.project, "kakapo", "--json", "--all-projects")
    assert os.path.exists(path)
