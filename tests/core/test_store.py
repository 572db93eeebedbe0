"""Store: every mutation through one door, checked on the file on disk."""

from __future__ import annotations

import json
import re

import pytest

from memoir_tui.core.base.errors import (
    AmbiguousMatchError,
    EmptyTextError,
    ForgottenDecisionError,
    NoMatchError,
    TextTooLongError,
)
from memoir_tui.core.door.store import default_store_dir
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir

UUID = re.compile(r"^[0-9a-f-]{36}$")


def disk(store: Memoir) -> dict:
    return json.loads(store.session_path.read_text())


def test_default_location_is_the_javascript_tools(monkeypatch, tmp_path):
    assert default_store_dir({"HOME": "/h"}) == default_store_dir({"HOME": "/h", "MEMOIR_HOME": ""})
    assert str(default_store_dir({"HOME": "/h"})) == "/h/.config/memoir"
    assert str(default_store_dir({"HOME": "/h", "MEMOIR_HOME": "/s"})) == "/s"


def test_adds_stamp_machine_and_date(store):
    store.add_goal("Ship v1")
    store.add_next_action("Write docs")
    store.ask_question("Which licence?")
    state = disk(store)
    (mid,) = state["machines"]
    assert UUID.match(mid) and state["machines"][mid]["label"] == "test-machine"
    assert (store.root / "machine.id").read_text() == mid
    cur = state["current"]
    assert cur["goals"][0]["machine_id"] == mid and cur["goals"][0]["set_on"]
    assert cur["next_actions"][0]["added"] and cur["open_questions"][0]["asked"]


def test_next_actions_dedupe_by_identity(store):
    assert store.add_next_action("Write docs").changed
    again = store.add_next_action("  write DOCS ")
    assert not again.changed and "already listed" in again.message
    assert len(disk(store)["current"]["next_actions"]) == 1


def test_complete_by_identity_or_unique_substring(store):
    store.add_next_action("Write docs")
    store.add_next_action("Write tests")
    store.add_next_action("docs")
    before = store.session_path.read_bytes()
    with pytest.raises(AmbiguousMatchError) as err:
        store.complete_next_action("write")
    assert sorted(err.value.candidates) == ["Write docs", "Write tests"]
    for bad in ("", "   ", "\u3000"):
        with pytest.raises(EmptyTextError):
            store.complete_next_action(bad)
    with pytest.raises(NoMatchError):
        store.complete_next_action("deploy")
    assert store.session_path.read_bytes() == before  # refusals change nothing
    assert store.complete_next_action("docs").message == "completed: docs"  # exact beats substring
    assert store.complete_next_action("tests").changed
    cur = disk(store)["current"]
    assert [a["text"] for a in cur["next_actions"]] == ["Write docs"]
    assert {t["text"] for t in cur["completed_actions"]} == {"docs", "Write tests"}
    assert [a.text for a in store.working_set().next_actions] == ["Write docs"]


def test_readding_after_completion_is_a_revival(store):
    store.add_next_action("Deploy")
    store.complete_next_action("Deploy")
    store.add_next_action("Deploy")
    assert [a.text for a in store.working_set().next_actions] == ["Deploy"]


def test_decisions_hide_and_purge(store):
    store.note_decision("Use SQLite", why="local first", rejected="Postgres")
    store.note_decision("Use Textual", why="best TUI")
    key = store.resolve_decision("sqlite").key
    assert key == text_hash("use sqlite")
    store.hide_decision(key)
    d = {x["text"]: x for x in disk(store)["current"]["decisions"]}["Use SQLite"]
    assert d["hidden"] is True and d["hidden_at"] and d["date"]
    assert [x.text for x in store.working_set().decisions] == ["Use Textual"]
    assert not store.hide_decision(key).changed
    with pytest.raises(ForgottenDecisionError):
        store.note_decision("use sqlite")
    store.purge_decision(key)
    raw = store.session_path.read_text()
    assert "Use SQLite" not in raw and "local first" not in raw and "Postgres" not in raw
    (purged,) = [x for x in disk(store)["current"]["decisions"] if x.get("text_hash")]
    assert purged == {
        "text": "[purged]",
        "text_hash": key,
        "hidden": True,
        "hidden_at": d["hidden_at"],  # purging keeps the original hiding time
        "machine_id": d["machine_id"],
        "date": d["date"],
    }
    with pytest.raises(ForgottenDecisionError):
        store.note_decision("Use SQLite")


def test_purge_without_prior_hide_hides_too(store):
    store.note_decision("Drop Python 3.10")
    store.purge_decision(text_hash("drop python 3.10"))
    (d,) = disk(store)["current"]["decisions"]
    assert d["hidden"] is True and d["hidden_at"] and d["text"] == "[purged]"


def test_resolve_decision_refuses_ambiguity(store):
    store.note_decision("Use uv for envs")
    store.note_decision("Use ruff for lint")
    with pytest.raises(AmbiguousMatchError) as err:
        store.resolve_decision("use")
    assert len(err.value.candidates) == 2


def test_text_bounds(store):
    with pytest.raises(EmptyTextError):
        store.add_goal(" \t\n")
    with pytest.raises(TextTooLongError):
        store.note_decision("x" * 9000)
    assert not store.session_path.exists()


def test_caps_rotate_oldest_and_report_it(store_dir, clock):
    (store_dir / "memoir-tui.toml").write_text("[caps]\ngoals = 2\n")
    store = Memoir(store_dir, clock=clock)
    store.add_goal("one")
    store.add_goal("two")
    outcome = store.add_goal("three")
    assert outcome.rotated == ("one",)
    assert [g.text for g in store.working_set().goals] == ["three", "two"]


def test_session_end_goes_to_history(store):
    store.record_session_end("Did the merge", files_touched=["a.py"], duration_min=12)
    (h,) = disk(store)["history"]
    assert (
        h["summary"] == "Did the merge"
        and h["files_touched"] == ["a.py"]
        and h["duration_min"] == 12
    )


def test_unknown_fields_survive_a_store_write(store):
    store.session_path.write_text(
        json.dumps(
            {
                "version": 1,
                "created_at": "2026-01-01T00:00:00.000Z",
                "updated_at": "2026-01-01T00:00:00.000Z",
                "machines": {},
                "current": {
                    "goals": [],
                    "next_actions": [{"text": "a", "added": "2026-01-01", "x": 1}],
                    "open_questions": [],
                    "decisions": [],
                    "parked_actions": [{"text": "p"}],
                },
                "history": [],
                "extension": {"keep": True},
            }
        )
    )
    store.add_goal("g")
    state = disk(store)
    assert state["extension"] == {"keep": True}
    assert state["current"]["parked_actions"] == [{"text": "p"}]
    assert state["current"]["next_actions"][0]["x"] == 1


def test_reads_never_create_files(store):
    store.working_set()
    assert store.known_machine() is None
    assert list(store.root.iterdir()) == []


# --- trust: audit, secrets, provenance, scope, validity -------------------------------


def test_every_mutation_is_audited_without_text(store_dir, clock):
    from memoir_tui.core.door.audit import read_audit

    store = Memoir(store_dir, clock=clock, actor="app")
    store.add_goal("Ship the secret project")
    store.add_next_action("Tell nobody")
    store.complete_next_action("nobody")
    store.note_decision("Codename Falcon", why="sounds fast")
    store.hide_decision(text_hash("codename falcon"))
    store.purge_decision(text_hash("codename falcon"))
    store.record_session_end("worked on Falcon")
    assert store.add_next_action("Tell nobody").changed  # a revival after completion
    ops = [r.operation for r in reversed(read_audit(store_dir))]
    assert ops == [
        "add_goals",
        "add_next_actions",
        "complete_next_action",
        "note_decision",
        "hide_decision",
        "purge_decision",
        "record_session_end",
        "add_next_actions",  # the revival after completion
    ]
    records = read_audit(store_dir)
    assert {r.actor for r in records} == {"app"}
    assert all(r.machine_id == store.machine.id for r in records)
    raw = (store_dir / "audit.jsonl").read_text()
    for word in ("secret project", "nobody", "Falcon", "sounds fast"):
        assert word not in raw


def test_unchanged_outcomes_are_not_audited(store):
    from memoir_tui.core.door.audit import read_audit

    store.add_goal("once")
    store.add_goal("ONCE")
    assert len(read_audit(store.root)) == 1


def test_secrets_are_refused_before_anything_is_written(store):
    from memoir_tui.core.format.secrets import SecretFoundError

    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with pytest.raises(SecretFoundError) as err:
        store.note_decision("Deploy with the bot", why=f"token is {token}")
    assert token not in str(err.value)
    with pytest.raises(SecretFoundError):
        store.add_next_action(f"rotate {token}")
    assert not store.session_path.exists()


def test_provenance_is_kept_as_fields(store):
    store.note_decision(
        "Use FastAPI",
        why="async",
        provenance={
            "source": "assistant",
            "extractor": "decision.going_with",
            "session_id": "s1",
            "junk": "x",
        },
    )
    (d,) = disk(store)["current"]["decisions"]
    assert d["source"] == "assistant" and d["extractor"] == "decision.going_with"
    assert d["session_id"] == "s1" and "junk" not in d
    assert d["why"] == "async"  # provenance is never folded into why
    assert store.working_set().decisions[0].source == "assistant"
    with pytest.raises(EmptyTextError):
        store.note_decision("x", provenance={"source": "robot"})


def test_two_projects_never_see_each_other(store_dir, clock):
    alpha = Memoir(store_dir, clock=clock, project="path:aaaa")
    beta = Memoir(store_dir, clock=clock, project="path:bbbb")
    alpha.add_goal("alpha goal")
    alpha.note_decision("alpha decision")
    beta.add_next_action("beta step")
    assert [g.text for g in alpha.working_set().goals] == ["alpha goal"]
    assert beta.working_set().goals == () and beta.working_set().decisions == ()
    assert [a.text for a in beta.working_set().next_actions] == ["beta step"]
    assert alpha.working_set().next_actions == ()
    assert len(beta.working_set(all_projects=True).goals) == 1
    assert {d["project"] for d in disk(alpha)["current"]["decisions"]} == {"path:aaaa"}


def test_validity_window(store_dir, clock):
    store = Memoir(store_dir, clock=clock)
    store.note_decision("Freeze deploys", valid_from="2000-01-01", valid_until="2000-12-31")
    store.note_decision("Use the new API", valid_from="2999-01-01")
    store.note_decision("Always true", valid_until="2999-01-01")
    assert [d.text for d in store.working_set().decisions] == ["Always true"]
    from memoir_tui.core.base.errors import InvalidDateError

    with pytest.raises(InvalidDateError):
        store.note_decision("bad", valid_from="someday")
    with pytest.raises(InvalidDateError):
        store.note_decision("bad", valid_from="2026-02-01", valid_until="2026-01-01")


def test_the_filter_matches_all_words_in_any_order_ignoring_case_and_accents() -> None:
    from memoir_tui.core.format.items import matches_words

    assert matches_words("cache sqlite", "Use SQLite", "for the cache")
    assert matches_words("creme BRULEE", "Crème brûlée on Fridays")
    assert not matches_words("cache redis", "Use SQLite", "for the cache")
    assert matches_words("   ", "anything")


def test_dates_in_messages_read_as_a_person_reads_them(store) -> None:
    from memoir_tui.core.base.errors import ForgottenDecisionError

    store.note_decision("Ship on Fridays")
    store.hide_decision(store.find_decision("Ship on Fridays").key)
    with pytest.raises(ForgottenDecisionError) as err:
        store.note_decision("ship on fridays")
    assert re.search(r"forgotten on \d{1,2} \w{3} \d{4}, \d\d:\d\d UTC;", str(err.value))
    assert "T" not in str(err.value).split("forgotten on ")[1][:20]


def test_a_note_names_only_what_it_archives_not_what_was_archived_before(store_dir, clock):
    (store_dir / "memoir-tui.toml").write_text("[caps]\ndecisions = 2\n")
    store = Memoir(store_dir, clock=clock)
    for i in range(1, 5):
        store.note_decision(f"decision {i}")
    assert [d.text for d in store.working_set().archived_decisions] == ["decision 2", "decision 1"]
    outcome = store.note_decision("decision 5")
    assert outcome.rotated == ("decision 3",)
    assert "decision 1" not in outcome.message and "decision 3" in outcome.message
