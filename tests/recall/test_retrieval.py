"""What recall must show: ranking rules, passages, and what it never returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoir_tui.core.recall.passages import extract, highlight_spans
from memoir_tui.core.recall.text import fold, parse_query, terms

from .conftest import World, entry, write


@pytest.fixture
def recall(world: World):
    r = world.recall()
    yield r
    r.close()


def names(hits) -> list[str]:
    return [h.name for h in hits]


# --- folding ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "group",
    [
        ("cache", "caches", "cached", "caching"),
        ("migrate", "migrated", "migrating", "migration", "migrations"),
        ("policy", "policies"),
        ("deploy", "deploys", "deployed", "deploying"),
        ("test", "tests", "testing", "tested"),
    ],
)
def test_plural_ing_ed_fold_together(group):
    assert len({fold(w) for w in group}) == 1, {w: fold(w) for w in group}


def test_folding_keeps_a_stem_of_four_characters():
    assert fold("uses") == "uses"  # "use" would be 3
    assert fold("bed") == "bed"
    assert fold("status") == "status"
    assert all(len(fold(w)) >= 4 for w in ("cached", "tested", "rules", "things"))


def test_query_drops_stop_words_and_marks_prefixes():
    q = parse_query("What do we know about auth in k8s?")
    assert [t.word for t in q] == ["auth", "k8s"]
    assert q[0].prefix and not q[1].prefix


# --- ranking --------------------------------------------------------------------------


def test_alias_only_entry_ranks_first(recall):
    hits = recall.search("kubernetes", all_projects=True)
    assert hits and hits[0].name == "Cluster layout"
    assert "aliases" in hits[0].why
    # the alias appears nowhere in the file's body
    assert "kubernetes" not in Path(hits[0].path).read_text().split("---")[-1].lower()


def test_four_letter_prefix_reaches_the_longer_word(world: World, recall):
    write(
        world.store / "memory" / "fact_sso.md",
        entry("fact", "Single sign-on", "Authentication goes through the identity provider.\n"),
    )
    hits = recall.search("auth", all_projects=True)
    assert "Single sign-on" in names(hits)
    assert any("auth*" in terms for terms in hits[0].why.values())
    assert recall.search("aut", all_projects=True) == []  # under 4 characters: no prefix


def test_document_covering_all_terms_beats_one_repeating_one(world: World, recall):
    mem = world.store / "memory"
    write(
        mem / "fact_all-three.md",
        entry("fact", "Release notes", "The gateway retries webhook deliveries with backoff.\n"),
    )
    for i in range(3):
        write(
            mem / f"fact_hammer-{i}.md",
            entry(
                "fact",
                f"Gateway notes {i}",
                "gateway gateway gateway gateway gateway gateway gateway gateway.\n" * 3,
            ),
        )
    hits = recall.search("gateway webhook backoff", all_projects=True)
    assert hits[0].name == "Release notes"


def test_nonsense_query_returns_nothing(recall):
    assert recall.search("qzxvbnm wqkjhg", all_projects=True) == []
    assert recall.search("", all_projects=True) == []
    assert recall.search("?!", all_projects=True) == []


def test_fields_outrank_body(world: World, recall):
    mem = world.store / "memory"
    write(mem / "fact_body.md", entry("fact", "Misc", "We once mentioned the albatross here.\n"))
    write(mem / "fact_named.md", entry("fact", "Albatross deployment", "Details elsewhere.\n"))
    hits = recall.search("albatross", all_projects=True)
    assert names(hits)[:2] == ["Albatross deployment", "Misc"]


def test_non_markdown_files_are_discounted(world: World, recall):
    write(world.proj / ".cursorrules", "Use the heron logger everywhere.\n")
    write(world.proj / ".claude" / "rules" / "log.md", "Use the heron logger everywhere.\n")
    hits = recall.search("heron logger")
    assert [Path(h.path).name for h in hits[:2]] == ["log.md", ".cursorrules"]


def test_hit_carries_file_tool_type_score_and_why(world: World, recall):
    hit = recall.search("postgres", all_projects=True)[0]
    assert Path(hit.path).is_absolute() and hit.path.endswith("decision_postgres.md")
    assert (hit.tool, hit.type) == ("memoir", "decision")
    assert hit.score > 0 and "name" in hit.why
    assert set(hit.to_json()) >= {"path", "tool", "type", "score", "passage", "why"}


# --- passages ---------------------------------------------------------------------------


def test_passages_never_contain_frontmatter(world: World, recall):
    write(
        world.store / "memory" / "fact_frontier.md",
        entry(
            "fact",
            "Frontier cache",
            "Intro line.\nThe frontier cache sits in front of the API.\n",
            description="frontier cache tier",
            aliases=("frontier",),
        ),
    )
    for hit in recall.search("frontier cache type name", all_projects=True, limit=20):
        assert "---" not in hit.passage
        assert "type:" not in hit.passage and "aliases:" not in hit.passage


def test_passages_respect_the_budget_and_document_order(world: World, recall):
    long_line = "filler " * 400
    body = "\n".join(
        [*(f"line {i} about nothing" for i in range(40)), "the pelican rule applies", long_line]
        + [f"more {i}" for i in range(40)]
        + ["second pelican mention", "end"]
    )
    write(world.store / "memory" / "fact_pelican.md", entry("fact", "Birds", body + "\n"))
    for budget in (60, 200, 700):
        hit = recall.search("pelican", all_projects=True, budget=budget)[0]
        assert len(hit.passage.encode()) <= budget
        assert "pelican" in hit.passage
    hit = recall.search("pelican", all_projects=True, budget=700)[0]
    assert hit.passage.index("pelican rule") < hit.passage.index("second pelican")
    assert "…" in hit.passage  # two windows, not adjacent


def test_extract_merges_adjacent_windows_and_adds_context():
    lines = ["---", "type: fact", "---", "a", "alpha one", "b", "alpha two", "c", "d", "e"]
    p = extract(lines, 3, parse_query("alpha"), 700)
    assert p.text == "a\nalpha one\nb\nalpha two\nc"
    assert p.lines == ((4, 8),)


def test_extract_without_body_match_shows_the_opening():
    lines = ["---", "aliases: [zebra]", "---", "", "First line.", "Second line."]
    p = extract(lines, 3, parse_query("zebra"), 700)
    assert p.text == "First line.\nSecond line."


def test_highlight_spans_mark_matching_words():
    text = "Caching and authentication"
    spans = highlight_spans(text, parse_query("cached auth"))
    assert [text[a:b] for a, b in spans] == ["Caching", "authentication"]
    assert terms("Caching") == ["cach"]


# --- never returned ------------------------------------------------------------------------


def test_hidden_decisions_are_never_returned(recall):
    # hidden in the session, and hidden in an entry file
    assert recall.search("ocelot vault", all_projects=True) == []
    assert recall.search("zanzibar vendor", all_projects=True) == []
    assert not [e for e in recall.entries(all_projects=True) if "ocelot" in e.name.lower()]


def test_visible_session_decisions_and_live_actions_are_returned(recall):
    hits = recall.search("capybara queue", all_projects=True)
    assert hits and hits[0].type == "decision" and hits[0].path.endswith("session.json")
    assert "at-least-once" in hits[0].passage
    assert names(recall.search("wombat migration guide", all_projects=True))[0].startswith(
        "Write the wombat"
    )


def test_completed_actions_are_never_returned(recall):
    assert recall.search("narwhal dashboard", all_projects=True) == []
    assert recall.search("quokka exporter", all_projects=True) == []


def test_hiding_a_decision_later_removes_it(world: World, recall):
    from memoir_tui.core.store import Store

    assert recall.search("capybara", all_projects=True)
    store = Store(world.store, machine_label="t")
    store.hide_decision(store.resolve_decision("capybara").key)
    assert recall.search("capybara", all_projects=True) == []


def test_out_of_scope_project_files_are_absent_by_default(world: World, recall):
    # the cwd is the webshop project: billing's files are out of scope
    assert recall.search("platypus") == []
    assert recall.search("platypus", project=world.other)
    assert recall.search("platypus", all_projects=True)
    # the webshop's own project files and the global ones are in scope
    assert recall.search("checkout stripe")
    assert recall.search("linter committing")


def test_tool_filter(recall):
    hits = recall.search("rule", tools=["cursor"], all_projects=True)
    assert hits and {h.tool for h in hits} == {"cursor"}


def test_project_by_name(world: World, recall):
    # "billing" is a configured project root; its name is enough
    assert recall.search("platypus", project="billing")
    assert recall.search("platypus", project="webshop") == []


def test_session_items_are_scoped_by_the_stores_project_ids(world: World):
    """Store stamps items with core.scope ids; recall scopes them the same way."""
    from memoir_tui.core.scope import project_identity
    from memoir_tui.core.store import Store

    mine = Store(world.store, project=project_identity(world.proj, home=world.home).id)
    theirs = Store(world.store, project=project_identity(world.other, home=world.home).id)
    mine.note_decision("Use the wombat queue for checkout events", why="ordering")
    theirs.note_decision("Use the wombat ledger for billing events", why="audits")
    recall = world.recall()  # cwd: world.proj
    texts = [h.name for h in recall.search("wombat events")]
    assert "Use the wombat queue for checkout events" in texts
    assert not any("ledger" in t for t in texts)
    assert any("ledger" in h.name for h in recall.search("wombat", project=world.other))
    everywhere = {h.name for h in recall.search("wombat events", all_projects=True)}
    assert {
        "Use the wombat queue for checkout events",
        "Use the wombat ledger for billing events",
    } <= everywhere


def test_claude_memory_of_a_project_without_transcripts_is_in_its_scope(world: World):
    """Before its first session a Claude Code project folder names no directory;
    its folder name (the path with every other character turned into '-') does."""
    from memoir_tui.core.adapters.guard import claude_slug

    folder = world.home / ".claude" / "projects" / claude_slug(str(world.other))
    write(
        folder / "memory" / "okapi.md",
        entry("fact", "Okapi invoices", "Billing sends okapi invoices monthly.\n"),
    )
    recall = world.recall(cwd=world.other)
    try:
        okapi = str(folder / "memory" / "okapi.md")
        assert recall.search("okapi invoices")[0].path == okapi
        assert okapi not in {h.path for h in recall.search("okapi", project=world.proj)}
    finally:
        recall.close()
    webshop = world.recall()  # cwd: the webshop project
    try:
        assert webshop.search("okapi") == []
    finally:
        webshop.close()


def test_session_summaries_are_recalled(tmp_path) -> None:
    from memoir_tui.core.recall.extract import session_docs
    from memoir_tui.core.store import Store

    store = Store(tmp_path / "store")
    store.record_session_end(
        "Moved the exporter to streaming writes", ["cli/export.py"], duration_min=40
    )
    docs, _ = session_docs(store.session_path)
    (doc,) = [d for d in docs if d.type == "session"]
    assert doc.name == "Moved the exporter to streaming writes"
    assert "cli/export.py" in doc.text and "40 min" in doc.text
