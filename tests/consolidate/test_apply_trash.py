"""Apply through the trash, and restore every byte."""

from __future__ import annotations

import json

import pytest

from memoir_tui.core.format.entry_file import read_entry
from memoir_tui.core.services import consolidate as c
from memoir_tui.core.services.trash import TrashError, parse_duration
from memoir_tui.core.workflows.memoir import Memoir

from .conftest import tree_state

FILE_KINDS = {
    "duplicate",
    "near_duplicate",
    "superseded",
    "stale_entry",
    "dead_link",
    "empty",
    "index_dead_lines",
    "index_missing_files",
}


def test_apply_everything_then_restore_is_byte_identical(fx):
    store = fx.store()
    before = tree_state(fx.store_dir, fx.home)
    report = c.scan(store, home=fx.home)
    chosen = [p for p in report.proposals if p.kind in FILE_KINDS]
    chosen.append((next(p for p in report.proposals if p.kind == "bloated"), "trash"))
    result = store.consolidate.apply(chosen)
    assert result.failed == ()
    assert len(result.applied) == len(FILE_KINDS) + 1
    after_apply = tree_state(fx.store_dir, fx.home)
    assert after_apply != before
    for gone in (
        "fact_api-endpoint.md",
        "lesson_rehearse-migrations.md",
        "decision_rest-api.md",
        "fact_old-staging-host.md",
        "fact_empty.md",
        "fact_big-notes.md",
    ):
        assert not (fx.memory / gone).exists(), gone
        assert any(
            str(fx.memory / gone) == str(i.path) and i.change == "removed"
            for i in result.trash.items
        )
    index = (fx.home / ".claude/projects/-work-app/memory/MEMORY.md").read_text()
    assert "gone_topic.md" not in index and "(project_app.md) — the mobile app" in index
    # Nothing is left to do but what was not applied.
    left = {p.kind for p in c.scan(store, home=fx.home).proposals}
    assert left == {"stale_action", "stale_question", "index_oversize"}

    restored = fx.store().trash.restore(result.trash_id)
    assert restored.status == "restored"
    assert tree_state(fx.store_dir, fx.home) == before  # every byte (and mtime) is back
    assert not (fx.store_dir / "trash" / result.trash_id).exists()
    with pytest.raises(TrashError, match="already restored"):
        fx.store().trash.restore(result.trash_id)


def test_merge_unions_metadata_keeps_bodies_and_rewrites_links(fx):
    store = fx.store()
    report = c.scan(store, home=fx.home)
    dup = next(p for p in report.proposals if p.kind == "duplicate")
    near = next(p for p in report.proposals if p.kind == "near_duplicate")
    store.consolidate.apply([dup, near])

    kept = read_entry(fx.memory / "fact_api-base-url.md")
    assert kept.tags == ("api", "infra")
    assert set(kept.aliases) == {"endpoint", "API endpoint", "fact_api-endpoint"}
    assert kept.body.count("The production API is served") == 1  # identical bodies once
    assert kept.meta["updated"] == "2026-08-01T00:00:00.000Z"
    assert kept.meta["description"] == "where the production API lives"

    deploy = (fx.memory / "fact_deploy.md").read_text()
    assert "[[fact_api-base-url|the endpoint]]" in deploy and "fact_api-endpoint" not in deploy
    assert "`[[not-a-link]]`" in deploy

    lesson = read_entry(fx.memory / "lesson_migrations-on-a-copy.md")
    assert "## Run migrations on a copy of staging first" in lesson.body
    assert "## Rehearse migrations on a copy of staging first (merged from" in lesson.body
    assert "before it is merged" in lesson.body and "before merging" in lesson.body
    assert set(lesson.tags) == {"database", "migrations"}
    assert "alembic" in lesson.aliases
    assert lesson.trigger == "Writing or reviewing an Alembic migration"


def test_merge_rewrites_superseded_by_and_drops_index_lines(tmp_path):
    home = tmp_path / "home"
    mem = home / ".claude/projects/-p/memory"
    mem.mkdir(parents=True)
    body = "Deploys go through the blue/green switch on Fridays only.\n"
    (mem / "a.md").write_text(f"---\nname: A\ntype: reference\n---\n{body}")
    (mem / "b.md").write_text(f"---\nname: B\ntype: reference\n---\n{body}")
    (mem / "decision_x.md").write_text(
        "---\ntype: decision\nname: X\nwhy: y\nsuperseded_by: b\n---\nSee [[B]] and [[a]].\n"
    )
    (mem / "MEMORY.md").write_text("- [A](a.md) — one\n- [B](b.md) — two\n- [X](decision_x.md)\n")
    store = Memoir(tmp_path / "store", clock=lambda: "2026-08-01T00:00:00.000Z")
    before = tree_state(home)
    report = c.scan(store, home=home)
    dup = next(p for p in report.proposals if p.kind == "duplicate")
    assert [p.name for p in dup.paths] == ["a.md", "b.md"]
    result = store.consolidate.apply([dup])
    assert not (mem / "b.md").exists()
    assert (mem / "MEMORY.md").read_text() == "- [A](a.md) — one\n- [X](decision_x.md)\n"
    x = (mem / "decision_x.md").read_text()
    assert "superseded_by: a\n" in x and "See [[a]] and [[a]]." in x
    store.trash.restore(result.trash_id)
    assert tree_state(home) == before


def test_a_proposal_whose_files_changed_is_refused(fx):
    store = fx.store()
    report = c.scan(store, home=fx.home)
    empty = next(p for p in report.proposals if p.kind == "empty")
    stale = next(p for p in report.proposals if p.kind == "stale_entry")
    (fx.memory / "fact_empty.md").write_text("---\ntype: fact\nname: now filled\n---\nContent.\n")
    result = store.consolidate.apply([empty, stale])
    assert [pid for pid, _ in result.failed] == [empty.id]
    assert "changed since the report" in result.failed[0][1]
    assert (fx.memory / "fact_empty.md").exists()
    assert not (fx.memory / "fact_old-staging-host.md").exists()
    assert [i.path.name for i in result.trash.items] == ["fact_old-staging-host.md"]


def test_conflicting_proposals_in_one_batch_fail_alone(fx):
    store = fx.store()
    report = c.scan(store, home=fx.home)
    dup = next(p for p in report.proposals if p.kind == "duplicate")
    result = store.consolidate.apply([dup, (dup, "trash")])
    assert len(result.applied) == 1 and len(result.failed) == 1
    assert "already being removed" in result.failed[0][1]


def test_disallowed_action_fails(fx):
    store = fx.store()
    near = next(p for p in c.scan(store, home=fx.home).proposals if p.kind == "near_duplicate")
    result = store.consolidate.apply([(near, "trash")])
    assert result.trash is None and "not allowed" in result.failed[0][1]


def test_restore_refuses_to_overwrite_later_changes_unless_forced(fx):
    store = fx.store()
    empty = next(p for p in c.scan(store, home=fx.home).proposals if p.kind == "empty")
    result = store.consolidate.apply([empty])
    target = fx.memory / "fact_empty.md"
    target.write_text("someone wrote here since\n")
    trash = fx.store().trash
    with pytest.raises(TrashError, match="changed since the apply"):
        trash.restore(result.trash_id)
    assert target.read_text() == "someone wrote here since\n"
    trash.restore(result.trash_id, force=True)
    assert target.read_text().startswith("---\ntype: fact\nname: Empty placeholder")


def test_undo_last_restores_the_newest_apply(fx):
    store = fx.store()
    report = c.scan(store, home=fx.home)
    first = store.consolidate.apply([next(p for p in report.proposals if p.kind == "empty")])
    second = store.consolidate.apply([next(p for p in report.proposals if p.kind == "stale_entry")])
    assert store.consolidate.undo_last().id == second.trash_id
    assert (fx.memory / "fact_old-staging-host.md").exists()
    assert not (fx.memory / "fact_empty.md").exists()
    assert store.consolidate.undo_last().id == first.trash_id
    assert store.consolidate.undo_last() is None


def test_journal_records_paths_hashes_and_bytes(fx):
    store = fx.store()
    empty = next(p for p in c.scan(store, home=fx.home).proposals if p.kind == "empty")
    original = (fx.memory / "fact_empty.md").read_bytes()
    result = store.consolidate.apply([empty])
    lines = (fx.store_dir / "trash" / "journal.jsonl").read_text().splitlines()
    record = json.loads(lines[-1])
    assert record["op"] == "apply" and record["id"] == result.trash_id
    (item,) = record["items"]
    assert item["change"] == "removed" and item["path"] == str(fx.memory / "fact_empty.md")
    assert (fx.store_dir / "trash" / result.trash_id / item["blob"]).read_bytes() == original


def test_empty_older_than(fx):
    clock_now = ["2026-08-01T00:00:00.000Z"]
    store = fx.store(clock=lambda: clock_now[0])
    empty = next(p for p in c.scan(store, home=fx.home).proposals if p.kind == "empty")
    result = store.consolidate.apply([empty])
    trash = store.trash
    assert trash.empty(parse_duration("1d")) == []
    clock_now[0] = "2026-08-03T00:00:00.000Z"
    assert [r.id for r in trash.empty(parse_duration("1d"))] == [result.trash_id]
    assert not (fx.store_dir / "trash" / result.trash_id).exists()
    assert trash.get(result.trash_id).status == "emptied"
    with pytest.raises(TrashError, match="already emptied"):
        trash.restore(result.trash_id)


@pytest.mark.parametrize(
    ("text", "seconds"), [("30d", 2_592_000), ("12h", 43_200), ("45m", 2_700), ("2w", 1_209_600)]
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "30", "d", "1y", "-1d"])
def test_parse_duration_rejects(bad):
    with pytest.raises(TrashError):
        parse_duration(bad)


def test_trashing_a_superseded_decision_points_links_at_its_successor(fx):
    (fx.memory / "fact_history.md").write_text(
        "---\ntype: fact\nname: API history\ncreated: 2026-07-30\n---\n"
        "We started with [[decision_rest-api]] in February.\n"
    )
    store = fx.store()
    sup = next(p for p in c.scan(store, home=fx.home).proposals if p.kind == "superseded")
    result = store.consolidate.apply([sup])
    assert "links now point at [[decision_graphql-api]]" in result.applied[0].message
    assert "[[decision_graphql-api]] in February" in (fx.memory / "fact_history.md").read_text()
    dead = [p for p in c.scan(store, home=fx.home).proposals if p.kind == "dead_link"]
    assert [p.paths[0].name for p in dead] == ["fact_deploy.md"]  # the planted one only


def test_index_fixes_keep_crlf_and_every_other_line(tmp_path):
    mem = tmp_path / "home/.claude/projects/-p/memory"
    mem.mkdir(parents=True)
    (mem / "kept.md").write_text("---\nname: Kept\ndescription: stays\ntype: user\n---\nx\n")
    (mem / "new_one.md").write_text("---\nname: New one\ndescription: was missing\n---\ny\n")
    original = (
        b"# Index\r\n\r\n- [Kept](kept.md) \xe2\x80\x94 stays\r\n- [Gone](gone.md)\r\nnote\r\n"
    )
    (mem / "MEMORY.md").write_bytes(original)
    store = Memoir(tmp_path / "store", clock=lambda: "2026-08-01T00:00:00.000Z")
    report = c.scan(store, home=tmp_path / "home")
    fixes = [p for p in report.proposals if p.kind.startswith("index_")]
    assert {p.kind for p in fixes} == {"index_dead_lines", "index_missing_files"}
    result = store.consolidate.apply(fixes)
    assert (mem / "MEMORY.md").read_bytes() == (
        b"# Index\r\n\r\n- [Kept](kept.md) \xe2\x80\x94 stays\r\nnote\r\n"
        b"- [New one](new_one.md) \xe2\x80\x94 was missing\r\n"
    )
    store.trash.restore(result.trash_id)
    assert (mem / "MEMORY.md").read_bytes() == original
