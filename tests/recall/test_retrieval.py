"""What recall must show: ranking rules, passages, and what it never returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoir_tui.core.recall.passages import extract, highlight_spans
from memoir_tui.core.recall.text import fold, parse_query, terms
from tests.world import World

from .conftest import entry, write


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
    assert fold("bed") == "bed"
    assert fold("status") == "status"
    assert all(len(fold(w)) >= 4 for w in ("cached", "tested", "rules", "things"))
    assert fold("note") == "note" and fold("notes") == "note"  # never the stop word "not"
    assert fold("coding") == "coding"  # -ing leaves four letters, or undoubles


@pytest.mark.parametrize(
    "group",
    [
        ("log", "logs", "logging", "logged"),
        ("pod", "pods"),
        ("job", "jobs"),
        ("key", "keys"),
        ("bug", "bugs", "bugged"),
        ("run", "runs", "running"),
        ("api", "apis"),
        ("alias", "aliases"),
    ],
)
def test_short_words_fold_onto_three_letter_stems(group):
    assert len({fold(w) for w in group}) == 1, {w: fold(w) for w in group}


@pytest.mark.parametrize("word", ["bus", "gas", "is", "this", "news", "lens", "thus", "plus"])
def test_words_ending_in_s_that_are_not_plurals_keep_it(word):
    assert fold(word) == word


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


def test_prefix_reaches_the_longer_word(world: World, recall):
    write(
        world.store_dir / "memory" / "fact_sso.md",
        entry("fact", "Single sign-on", "Authentication goes through the identity provider.\n"),
    )
    hits = recall.search("auth", all_projects=True)
    assert "Single sign-on" in names(hits)
    assert any("auth*" in terms for terms in hits[0].why.values())
    assert recall.search("au", all_projects=True) == []  # under 3 characters: no prefix


def test_three_letter_word_reaches_the_longer_word(world: World, recall):
    write(
        world.store_dir / "memory" / "fact_envvars.md",
        entry("fact", "Environment variables", "Every variable a service reads has a default.\n"),
    )
    hits = recall.search("env", all_projects=True)
    assert hits and hits[0].name == "Environment variables"
    assert "env*" in hits[0].why["name"]
    assert parse_query("k8s")[0].prefix is False  # identifiers with digits: as written


def test_short_plural_meets_its_singular_in_a_search(world: World, recall):
    write(
        world.store_dir / "memory" / "lesson_pods.md",
        entry(
            "lesson", "Evicted workloads", "Pods evicted under memory pressure lacked requests.\n"
        ),
    )
    write(
        world.store_dir / "memory" / "fact_logging.md",
        entry("fact", "Retention", "Logging below info is dropped; logs are kept 30 days.\n"),
    )
    assert names(recall.search("pod", all_projects=True))[:1] == ["Evicted workloads"]
    assert names(recall.search("log", all_projects=True))[:1] == ["Retention"]


def test_rare_literal_fragment_does_not_beat_the_word_the_query_abbreviates(world: World, recall):
    mem = world.store_dir / "memory"
    write(
        mem / "fact_sync.md",
        entry("fact", "Laptop sync", "The ops-env-sync script copies dotfiles.\n"),
    )
    for i, text in enumerate(
        (
            "Environment variables are listed in each README.",
            "A new laptop gets its environment from the bootstrap script.",
            "The staging environment mirrors production.",
        )
    ):
        write(mem / f"fact_environment-{i}.md", entry("fact", f"Environment note {i}", text + "\n"))
    hits = recall.search("env", all_projects=True)
    ranked = names(hits)
    assert ranked.index("Laptop sync") > max(
        ranked.index(f"Environment note {i}") for i in range(3)
    )


def test_document_covering_all_terms_beats_one_repeating_one(world: World, recall):
    mem = world.store_dir / "memory"
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
    mem = world.store_dir / "memory"
    write(mem / "fact_body.md", entry("fact", "Misc", "We once mentioned the albatross here.\n"))
    write(mem / "fact_named.md", entry("fact", "Albatross deployment", "Details elsewhere.\n"))
    hits = recall.search("albatross", all_projects=True)
    assert names(hits)[:2] == ["Albatross deployment", "Misc"]


def test_non_markdown_files_are_discounted(world: World, recall):
    write(world.project / ".cursorrules", "Use the heron logger everywhere.\n")
    write(world.project / ".claude" / "rules" / "log.md", "Use the heron logger everywhere.\n")
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
        world.store_dir / "memory" / "fact_frontier.md",
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
    write(world.store_dir / "memory" / "fact_pelican.md", entry("fact", "Birds", body + "\n"))
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
    from memoir_tui.core.workflows.memoir import Memoir

    assert recall.search("capybara", all_projects=True)
    store = Memoir(world.store_dir, machine_label="t")
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
    from memoir_tui.core.rules.scope import project_identity
    from memoir_tui.core.workflows.memoir import Memoir

    mine = Memoir(world.store_dir, project=project_identity(world.project, home=world.home).id)
    theirs = Memoir(world.store_dir, project=project_identity(world.other, home=world.home).id)
    mine.note_decision("Use the wombat queue for checkout events", why="ordering")
    theirs.note_decision("Use the wombat ledger for billing events", why="audits")
    recall = world.recall()  # cwd: world.project
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
    from memoir_tui.core.hosts.adapters.guard import claude_slug

    folder = world.home / ".claude" / "projects" / claude_slug(str(world.other))
    write(
        folder / "memory" / "okapi.md",
        entry("fact", "Okapi invoices", "Billing sends okapi invoices monthly.\n"),
    )
    recall = world.recall(cwd=world.other)
    try:
        okapi = str(folder / "memory" / "okapi.md")
        assert recall.search("okapi invoices")[0].path == okapi
        assert okapi not in {h.path for h in recall.search("okapi", project=world.project)}
    finally:
        recall.close()
    webshop = world.recall()  # cwd: the webshop project
    try:
        assert webshop.search("okapi") == []
    finally:
        webshop.close()


def test_session_summaries_are_recalled(tmp_path) -> None:
    from memoir_tui.core.recall.extract import session_docs
    from memoir_tui.core.workflows.memoir import Memoir

    store = Memoir(tmp_path / "store")
    store.record_session_end(
        "Moved the exporter to streaming writes", ["cli/export.py"], duration_min=40
    )
    docs, _ = session_docs(store.session_path)
    (doc,) = [d for d in docs if d.type == "session"]
    assert doc.name == "Moved the exporter to streaming writes"
    assert "cli/export.py" in doc.text and "40 min" in doc.text


# --- rationale and project fields ---------------------------------------------------


def test_reasons_do_not_cost_a_decision_its_rank(world: World, recall):
    mem = world.store_dir / "memory"
    reasons = " ".join(f"reason{i}" for i in range(40))
    write(
        mem / "decision_streams.md",
        entry(
            "decision",
            "Redis streams carry domain events",
            "Services publish to streams.\n",
            description="Event transport between services",
            why=f"replayable transport; {reasons}",
            rejected="RabbitMQ, no replay; Kafka, too much to operate",
            tags="[messaging, architecture]",
        ),
    )
    write(
        mem / "next_action_lag.md",
        entry(
            "next_action",
            "Benchmark consumer lag",
            "Measure lag.\n",
            description="Event transport between services",
            added="2026-01-01",
        ),
    )
    hits = recall.search("event transport", all_projects=True)
    assert names(hits)[:2] == ["Redis streams carry domain events", "Benchmark consumer lag"]
    # reasons and tags are searchable, in a field of their own, never the description
    rabbit = recall.search("rabbitmq", all_projects=True)
    assert rabbit and rabbit[0].name == "Redis streams carry domain events"
    assert set(rabbit[0].why) == {"rationale"}
    assert "rabbitmq" not in rabbit[0].description.lower()
    # tags are labels the writer chose: they weigh as aliases do (issue 27)
    assert recall.search("messaging", all_projects=True)[0].why == {"aliases": ["messaging"]}


def test_lesson_trigger_and_how_to_apply_are_rationale(recall):
    hits = recall.search("intermittently", all_projects=True)
    assert hits and hits[0].name == "Retry flaky browser tests once"
    assert "rationale" in hits[0].why


def test_a_query_naming_a_project_reaches_its_documents(world: World, recall):
    write(world.other / ".cursor" / "rules" / "rows.mdc", "---\n---\nAppend rows, never update.\n")
    write(
        world.store_dir / "memory" / "fact_audit.md",
        entry("fact", "Audit trail", "Append audit rows to the journal.\n"),
    )
    hits = recall.search("billing append", all_projects=True)
    assert hits[0].path == str(world.other / ".cursor" / "rules" / "rows.mdc")
    assert "billing" in hits[0].why.get("project", [])


def test_a_project_name_is_not_a_word_of_the_notes_in_the_project(world: World, recall):
    """Issue 27: the project is a scope and a boost, not words every note of it shares. The
    index counts a word in the notes that write it, so a project's name is as rare as its
    notes make it; a query naming the project still reaches them (``why`` says so)."""
    for i in range(6):
        write(world.other / ".clinerules" / f"n{i}.md", f"Ledger rows note {i}.\n")
    write(
        world.store_dir / "memory" / "fact_owners.md",
        entry("fact", "Owners", "The billing service is owned by the payments team.\n"),
    )
    recall.refresh(full=True)
    conn = recall.index.conn
    stem = fold("billing")
    writers = {
        r[0]
        for r in conn.execute(
            "SELECT d.path FROM fts f JOIN docs d ON d.id = f.rowid WHERE fts MATCH ?",
            (f'"{stem}"',),
        )
    }
    assert str(world.store_dir / "memory" / "fact_owners.md") in writers
    assert not any("/.clinerules/n" in p for p in writers)  # the project's notes never say it
    assert conn.execute("SELECT doc FROM vocab WHERE term = ?", (stem,)).fetchone() == (
        len(writers),
    )
    hits = recall.search("billing ledger rows", all_projects=True)
    notes = {str(world.other / ".clinerules" / f"n{i}.md") for i in range(6)}
    assert {h.path for h in hits[:6]} == notes
    assert all("billing" in h.why.get("project", []) for h in hits[:6])


def _release_notes(world: World) -> None:
    """Two notes of the same words: a global one (newer) and the webshop's (older)."""
    write(
        world.store_dir / "memory" / "fact_release-global.md",
        entry(
            "fact", "Release checklist", "Tag it, write the changelog, announce it.\n",
            updated="2026-05-01",
        ),
    )  # fmt: skip
    write(
        world.store_dir / "memory" / "fact_release-shop.md",
        entry(
            "fact", "Release checklist", "Tag it, purge the storefront cache, announce it.\n",
            updated="2026-04-01", project=str(world.project),
        ),
    )  # fmt: skip


def test_the_current_project_weighs_a_little_more(world: World):
    _release_notes(world)
    shop = str(world.store_dir / "memory" / "fact_release-shop.md")
    common = str(world.store_dir / "memory" / "fact_release-global.md")
    with world.recall() as here:  # asked from the webshop
        assert here.search("release checklist")[0].path == shop
        assert here.search("release checklist", all_projects=True)[0].path == shop
        # a little: the better match elsewhere still comes first
        assert here.search("release checklist changelog")[0].path == common
    with world.recall(cwd=world.other) as elsewhere:  # asked from billing: recency decides
        assert elsewhere.search("release checklist", all_projects=True)[0].path == common


def test_session_items_match_by_their_project_label(world: World):
    import json

    session = json.loads((world.store_dir / "session.json").read_text())
    session["current"]["next_actions"].append(
        {
            "text": "Rotate the ledger keys",
            "added": "2026-03-01T00:00:00.000Z",
            "project": "git:github.com/acme/ledgerd",
            "project_label": "ledgerd",
        }
    )
    session["history"].append(
        {
            "date": "2026-03-03T00:00:00.000Z",
            "summary": "Tuned the okapi importer",
            "files_touched": ["importer.py"],
            "project": "git:github.com/acme/ledgerd",
            "project_label": "ledgerd",
        }
    )
    write(world.store_dir / "session.json", json.dumps(session))
    with world.recall() as r:
        found = {h.name: h for h in r.search("ledgerd", all_projects=True)}
        assert {"Rotate the ledger keys", "Tuned the okapi importer"} <= set(found)
        assert found["Tuned the okapi importer"].type == "session"  # history is searchable


def test_four_letter_abbreviation_reaches_the_full_word_before_a_fragment(world: World, recall):
    """``repo`` had prefix matching already; the fragment won on a discount and a higher IDF."""
    mem = world.store_dir / "memory"
    write(
        mem / "fact_mirror.md", entry("fact", "Mirror cron", "The tools-repo-mirror cron runs.\n")
    )
    for i in range(8):
        write(
            mem / f"fact_repository-{i}.md",
            entry("fact", f"Ownership note {i}", f"Each repository has owner {i} listed.\n"),
        )
    ranked = names(recall.search("repo", all_projects=True))
    assert ranked.index("Mirror cron") > max(ranked.index(f"Ownership note {i}") for i in range(8))


# --- issue 27: noise out of the top, questions, word forms --------------------------


def test_a_host_loaded_memory_index_comes_after_every_other_match(world: World, recall):
    from memoir_tui.core.hosts.adapters.guard import claude_slug

    folder = world.home / ".claude" / "projects" / claude_slug(str(world.project)) / "memory"
    write(folder / "fact_toggles.md", entry("fact", "Unleash toggles", "Flags live in Unleash.\n"))
    # the index repeats the words more often than the memory it points to
    write(
        folder / "MEMORY.md",
        "- [Unleash toggles](fact_toggles.md) — unleash toggles, unleash flags, unleash\n",
    )
    hits = recall.search("unleash toggles", all_projects=True)
    assert [Path(h.path).name for h in hits] == ["fact_toggles.md", "MEMORY.md"]
    # still indexed: alone, it is found
    (folder / "fact_toggles.md").unlink()
    assert [Path(h.path).name for h in recall.search("unleash", all_projects=True)] == ["MEMORY.md"]


def test_a_why_question_prefers_the_decision(world: World, recall):
    mem = world.store_dir / "memory"
    write(
        mem / "decision_queue.md",
        entry("decision", "Task queue choice", "Work moved to Dramatiq.\n", why="lost tasks"),
    )
    write(
        mem / "fact_dramatiq.md",
        entry("fact", "Worker operations", "Dramatiq runs three Dramatiq workers.\n"),
    )
    assert names(recall.search("dramatiq", all_projects=True))[0] == "Worker operations"
    assert names(recall.search("why dramatiq", all_projects=True))[0] == "Task queue choice"


def test_query_words_standing_together_earn_credit(world: World, recall):
    mem = world.store_dir / "memory"
    write(
        mem / "fact_apart.md",
        entry("fact", "Mail", "The letter queue is slow. Dead hosts are removed.\n"),
    )
    write(
        mem / "fact_together.md",
        entry("fact", "Failures", "Failed jobs land in the dead letter queue for a week.\n"),
    )
    assert names(recall.search("dead letter queue", all_projects=True))[0] == "Failures"


def test_compound_words_meet_their_parts(world: World, recall):
    mem = world.store_dir / "memory"
    write(
        mem / "fact_hook.md",
        entry("fact", "The useCartTotals hook", "Computes tax in the browser.\n"),
    )
    write(
        mem / "fact_limiter.md",
        entry("fact", "Token bucket", "The rate limiter refills every second.\n"),
    )
    assert names(recall.search("cart totals", all_projects=True)) == ["The useCartTotals hook"]
    # a joined query word no document holds splits into words documents hold
    assert names(recall.search("ratelimiter", all_projects=True)) == ["Token bucket"]
    assert parse_query("ratelimiter")[0].word == "ratelimiter"  # the index decides, not a list


@pytest.mark.parametrize(
    "group",
    [
        ("index", "indexes", "indices"),
        ("matrix", "matrices"),
        ("deploy", "deployment", "deployments"),
        ("authorize", "authorization", "authorizations"),
        ("child", "children"),
    ],
)
def test_near_forms_with_another_ending_fold_together(group):
    assert len({fold(w) for w in group}) == 1, {w: fold(w) for w in group}


def test_short_words_ending_in_ment_keep_it():
    assert fold("comment") == "comment" and fold("document") == "document"
    assert fold("payment") == "payment"
