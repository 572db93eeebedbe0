"""Proposals on the planted fixture store: each problem found, nothing else flagged."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from memoir_tui.core.door.config import ConsolidateSettings
from memoir_tui.core.services import consolidate as c

EXPECTED = {
    ("duplicate", ("store:memory/fact_api-base-url.md", "store:memory/fact_api-endpoint.md")),
    (
        "near_duplicate",
        (
            "store:memory/lesson_migrations-on-a-copy.md",
            "store:memory/lesson_rehearse-migrations.md",
        ),
    ),
    ("superseded", ("store:memory/decision_rest-api.md",)),
    ("stale_entry", ("store:memory/fact_old-staging-host.md",)),
    ("stale_action", ("session:next_actions:write the export command",)),
    ("stale_question", ("session:open_questions:do we need sso for the beta?",)),
    ("dead_link", ("store:memory/fact_deploy.md", "link:lesson_missing-page")),
    ("bloated", ("store:memory/fact_big-notes.md",)),
    ("empty", ("store:memory/fact_empty.md",)),
    ("index_oversize", ("home:.claude/projects/-work-big/memory/MEMORY.md",)),
    (
        "index_dead_lines",
        ("home:.claude/projects/-work-app/memory/MEMORY.md", "target:gone_topic.md"),
    ),
    (
        "index_missing_files",
        ("home:.claude/projects/-work-app/memory/MEMORY.md", "file:project_app.md"),
    ),
}


def by_kind(report, kind):
    found = [p for p in report.proposals if p.kind == kind]
    assert len(found) == 1, (kind, found)
    return found[0]


def test_each_planted_problem_is_found_and_nothing_else(fx):
    report = c.scan(fx.store(), home=fx.home)
    assert {(p.kind, p.refs) for p in report.proposals} == EXPECTED
    assert report.skipped == () and report.dismissed == 0
    # Tombstones, preferences, old decisions and suppressed actions are never flagged.
    text = repr(report.to_json())
    for quiet in (
        "decision_hidden-choice",
        "nowhere-at-all",
        "goal_ship-beta",
        "preference_small-prs",
        "decision_postgres",
        "Rotate the staging keys",
        "not-a-link",
        "user_role",
        "feedback_testing",
    ):
        assert quiet not in text, quiet


def test_evidence_says_why(fx):
    report = c.scan(fx.store(), home=fx.home)
    near = by_kind(report, "near_duplicate")
    assert near.score is not None and near.score >= 85
    assert (
        "-name: Run migrations" in near.evidence and "+name: Rehearse migrations" in near.evidence
    )
    assert near.paths[0].name == "lesson_migrations-on-a-copy.md"  # newer one is kept
    dup = by_kind(report, "duplicate")
    assert dup.paths[0].name == "fact_api-base-url.md" and dup.actions == ("merge", "trash", "keep")
    assert "fact_deploy.md:9: [[lesson_missing-page]]" in by_kind(report, "dead_link").evidence
    assert (
        "[[decision_graphql-api]] is decision_graphql-api.md"
        in by_kind(report, "superseded").evidence
    )
    oversize = by_kind(report, "index_oversize")
    assert "230 lines" in oversize.why and "unreachable: late_topic.md" in oversize.evidence
    assert "gone_topic.md" in by_kind(report, "index_dead_lines").evidence
    assert by_kind(report, "stale_action").session_text == "Write the export command"
    groups = [g for g, _ in report.grouped()]
    assert groups == [
        "Duplicates",
        "Near duplicates",
        "Stale",
        "Dead links",
        "Bloated",
        "Empty",
        "Host index",
    ]


def test_ids_are_stable_and_location_independent(fx, tmp_path):
    first = c.scan(fx.store(), home=fx.home)
    again = c.scan(fx.store(), home=fx.home)
    assert [p.id for p in first.proposals] == [p.id for p in again.proposals]
    moved = tmp_path / "elsewhere"
    shutil.copytree(fx.root, moved)
    other = dataclasses.replace(fx, root=moved, store_dir=moved / "store", home=moved / "home")
    assert {p.id for p in c.scan(other.store(), home=other.home).proposals} == {
        p.id for p in first.proposals
    }
    assert len({p.id for p in first.proposals}) == len(first.proposals)


def test_thresholds_are_configurable(fx):
    strict = ConsolidateSettings(near_duplicate_threshold=99, stale_entry_days=10_000)
    kinds = {p.kind for p in c.scan(fx.store(), home=fx.home, settings=strict).proposals}
    assert "near_duplicate" not in kinds and "stale_entry" not in kinds
    (fx.store_dir / "memoir-tui.toml").write_text(
        "[consolidate]\nstale_action_days = 1000\nstale_question_days = 1000\n"
    )
    kinds = {p.kind for p in c.scan(fx.store(), home=fx.home).proposals}
    assert "stale_action" not in kinds and "stale_question" not in kinds


def test_recalled_entries_are_not_stale(fx):
    old = fx.memory / "fact_old-staging-host.md"
    kinds = {p.kind for p in c.scan(fx.store(), home=fx.home, recalled=[old]).proposals}
    assert "stale_entry" not in kinds


def test_keep_is_never_proposed_again(fx):
    store = fx.store()
    report = c.scan(store, home=fx.home)
    bloated = by_kind(report, "bloated")
    result = store.consolidate.apply([bloated])  # its default action is keep
    assert result.trash is None and [a.action for a in result.applied] == ["keep"]
    store.consolidate.dismiss([by_kind(report, "index_oversize")])
    again = c.scan(store, home=fx.home)
    assert {p.kind for p in again.proposals} == {k for k, _ in EXPECTED} - {
        "bloated",
        "index_oversize",
    }
    assert again.dismissed == 2
    assert (fx.store_dir / c.DISMISSED_FILE).is_file()
    shown = c.scan(store, home=fx.home, include_dismissed=True)
    assert len(shown.proposals) == len(EXPECTED)


def test_session_items_are_never_trashed(fx):
    store = fx.store()
    report = c.scan(store, home=fx.home)
    session = [p for p in report.proposals if p.kind in ("stale_action", "stale_question")]
    assert session and all(p.paths == () and "trash" not in p.actions for p in session)
    result = store.consolidate.apply([(p, "trash") for p in session])
    assert result.trash is None and len(result.failed) == 2


def test_complete_a_stale_action_leaves_a_tombstone(fx):
    store = fx.store()
    action = by_kind(c.scan(store, home=fx.home), "stale_action")
    result = store.consolidate.apply([action])
    assert result.trash is None and result.applied[0].action == "complete"
    ws = store.working_set()
    assert "Write the export command" not in [i.text for i in ws.next_actions]
    assert "Write the export command" in [t.text for t in ws.completed_actions]


def test_empty_store_has_no_proposals(store, tmp_path):
    assert c.scan(store, home=tmp_path / "nohome").proposals == ()


def test_legacy_and_unreadable_files_are_skipped_not_fatal(fx):
    (fx.memory / "binary.md").write_bytes(b"\xff\xfe\x00junk")
    report = c.scan(fx.store(), home=fx.home)
    assert any("binary.md" in s for s in report.skipped)
    assert {(p.kind, p.refs) for p in report.proposals} == EXPECTED


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- [A](a.md) — hook", ["a.md"]),
        ("- [A](<a b.md>) and [B](sub/b.md#x)", ["a b.md", "sub/b.md"]),
        ("- [Web](https://example.com/x.md) [Anchor](#top)", []),
        ("- [Sp](my%20file.md)", ["my file.md"]),
    ],
)
def test_index_links(line, expected):
    assert c.index_links(line) == expected


def test_claude_memory_follows_claude_config_dir(fx, tmp_path):
    """With $CLAUDE_CONFIG_DIR set, Claude Code's memory lives there, not in ~/.claude."""
    moved = tmp_path / "claude-elsewhere"
    shutil.move(fx.home / ".claude", moved)
    env = {"CLAUDE_CONFIG_DIR": str(moved)}
    report = c.scan(fx.store(), home=fx.home, env=env)
    index_kinds = {p.kind for p in report.proposals if p.kind.startswith("index_")}
    assert index_kinds == {"index_oversize", "index_dead_lines", "index_missing_files"}
    oversize = by_kind(report, "index_oversize")
    assert oversize.paths[0] == moved / "projects/-work-big/memory/MEMORY.md"
    # Without the variable the moved tree is not looked for under the home.
    assert not {p.kind for p in c.scan(fx.store(), home=fx.home, env={}).proposals} & index_kinds
