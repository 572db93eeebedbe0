"""The merge laws of FORMAT §4.4 as properties over generated replicas."""

from __future__ import annotations

import copy
import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_tui.core.identity import identity, parse_date_ms, text_hash
from memoir_tui.core.merge import Caps, decision_key, is_hidden, merge_sessions
from tests.conftest import examples

from .strategies import sessions

BIG = Caps(goals=1000, next_actions=1000, open_questions=1000, decisions=1000, history=1000)
# ~3,000 generated pairs and triples across the laws per run; ten times as
# many under HYPOTHESIS_PROFILE=soak (tests/conftest.py).
EXAMPLES = settings(max_examples=examples(400))


def m(a, b, caps=BIG):
    return merge_sessions(a, b, caps=caps)


@EXAMPLES
@given(sessions(), sessions())
def test_commutative(a, b):
    assert m(a, b) == m(b, a)
    assert merge_sessions(a, b) == merge_sessions(b, a)  # with the default caps too


@EXAMPLES
@given(sessions(), sessions())
def test_idempotent(a, b):
    merged = m(a, b)
    assert m(merged, merged) == merged
    assert m(m(a, a), a) == m(a, a)


@EXAMPLES
@given(sessions(), sessions(), sessions())
def test_associative_without_overflow(a, b, c):
    assert m(m(a, b), c) == m(a, m(b, c))


@EXAMPLES
@given(sessions(), sessions())
def test_inputs_not_mutated(a, b):
    before = (copy.deepcopy(a), copy.deepcopy(b))
    merge_sessions(a, b)
    assert (a, b) == before


@EXAMPLES
@given(sessions(), sessions())
def test_no_silent_loss(a, b):
    # Identities as hashes (decision_key works on every list): a purged copy and a
    # plain copy of one text are one identity.
    merged = m(a, b)
    cur = merged["current"]
    for side in (a, b):
        for key, tombs in (("goals", "completed_goals"), ("open_questions", "closed_questions")):
            have = {decision_key(i) for i in cur[key] + cur.get(tombs, [])}
            assert {decision_key(i) for i in side["current"][key]} <= have
        live_or_done = {decision_key(i) for i in cur["next_actions"] + cur["completed_actions"]}
        assert {decision_key(i) for i in side["current"]["next_actions"]} <= live_or_done
        keys = {decision_key(d) for d in cur["decisions"]}
        assert {decision_key(d) for d in side["current"]["decisions"]} <= keys
        assert set(side["machines"]) <= set(merged["machines"])


@EXAMPLES
@given(sessions(), sessions())
def test_hidden_stays_hidden_and_purged_text_never_returns(a, b):
    merged = m(a, b)
    out = {decision_key(d): d for d in merged["current"]["decisions"]}
    for side in (a, b):
        for d in side["current"]["decisions"]:
            key = decision_key(d)
            if is_hidden(d):
                assert is_hidden(out[key])
            if "text_hash" in d:
                assert out[key]["text"] == "[purged]"
                assert "why" not in out[key] and "rejected" not in out[key]
    # and it stays so through any later merge with the old un-hidden copies
    again = m(merged, a)
    for key, d in out.items():
        if is_hidden(d):
            assert is_hidden({decision_key(x): x for x in again["current"]["decisions"]}[key])


@EXAMPLES
@given(sessions(), sessions())
def test_completed_stays_completed_and_readd_survives(a, b):
    merged = m(a, b)
    cur = merged["current"]
    done = {}
    for side in (a, b):
        for t in side["current"]["completed_actions"]:
            k = decision_key(t)
            done[k] = max(done.get(k, 0), parse_date_ms(t["done_at"]))
    for action in cur["next_actions"]:
        k = decision_key(action)
        if k in done and not is_hidden(action):  # a hiding outlives a completion
            assert parse_date_ms(action.get("added")) > done[k]
    # a copy added after every completion of its identity survives
    for side in (a, b):
        for action in side["current"]["next_actions"]:
            k = decision_key(action)
            if parse_date_ms(action.get("added")) > done.get(k, -1):
                assert k in {decision_key(x) for x in cur["next_actions"]}


@EXAMPLES
@given(sessions(), sessions())
def test_unknown_fields_survive(a, b):
    merged = m(a, b)
    for side in (a, b):
        if "x_top" in side:
            assert "x_top" in merged
        if "x_cur" in side["current"]:
            assert "x_cur" in merged["current"]


@settings(max_examples=examples(300))
@given(sessions(max_items=12), sessions(max_items=12))
def test_visible_caps_never_cut_tombstones(a, b):
    caps = Caps(goals=1, next_actions=1, open_questions=1, decisions=1, history=1)
    merged = merge_sessions(a, b, caps=caps)
    hidden_in = {decision_key(d) for s in (a, b) for d in s["current"]["decisions"] if is_hidden(d)}
    hidden_out = {decision_key(d) for d in merged["current"]["decisions"] if is_hidden(d)}
    assert hidden_in <= hidden_out
    done_in = {identity(t["text"]) for s in (a, b) for t in s["current"]["completed_actions"]}
    assert done_in <= {identity(t["text"]) for t in merged["current"]["completed_actions"]}
    assert len([d for d in merged["current"]["decisions"] if not is_hidden(d)]) <= 1
    for key in ("goals", "next_actions", "open_questions"):
        assert len([i for i in merged["current"][key] if not is_hidden(i)]) <= 1
        hidden_in = {decision_key(i) for s in (a, b) for i in s["current"][key] if is_hidden(i)}
        assert hidden_in <= {decision_key(i) for i in merged["current"][key] if is_hidden(i)}


def test_tombstoned_actions_filtered_before_the_cap():
    """The reference caps first, so a merge can keep fewer live actions than allowed."""
    ts = "2026-01-0{}T00:00:00.000Z"
    a = {
        "version": 1,
        "current": {
            "next_actions": [{"text": f"old {i}", "added": ts.format(2)} for i in range(3)]
        },
    }
    b = {
        "version": 1,
        "current": {
            "next_actions": [{"text": "live", "added": ts.format(1)}],
            "completed_actions": [{"text": f"old {i}", "done_at": ts.format(3)} for i in range(3)],
        },
    }
    merged = merge_sessions(a, b, caps=Caps(next_actions=1))
    assert [x["text"] for x in merged["current"]["next_actions"]] == ["live"]


def test_date_tie_is_deterministic():
    one = {"text": "X", "date": "2026-01-01T00:00:00.000Z", "why": "a"}
    two = {"text": "x", "date": "2026-01-01T00:00:00.000Z", "why": "b"}
    a = {"version": 1, "current": {"decisions": [one]}}
    b = {"version": 1, "current": {"decisions": [two]}}
    assert merge_sessions(a, b) == merge_sessions(b, a)


def test_unparseable_dates_are_the_epoch_everywhere():
    a = {"version": 1, "current": {"goals": [{"text": "g", "set_on": "garbage", "v": 1}]}}
    b = {"version": 1, "current": {"goals": [{"text": "g", "v": 2}]}}  # missing
    c = {"version": 1, "current": {"goals": [{"text": "g", "set_on": "2026-01-01", "v": 3}]}}
    assert merge_sessions(a, c)["current"]["goals"][0]["v"] == 3
    assert merge_sessions(b, c)["current"]["goals"][0]["v"] == 3
    # garbage and missing tie at the epoch; the tie-break is still total
    assert merge_sessions(a, b) == merge_sessions(b, a)


def test_two_hidings_keep_the_earliest_and_purged_form_first():
    base = {"text": "Use Redis", "date": "2026-01-01T00:00:00.000Z"}
    late = {**base, "hidden": True, "hidden_at": "2026-03-01T00:00:00.000Z"}
    early = {**base, "hidden": True, "hidden_at": "2026-02-01T00:00:00.000Z"}
    merged = merge_sessions(
        {"version": 1, "current": {"decisions": [late]}},
        {"version": 1, "current": {"decisions": [early]}},
    )
    assert merged["current"]["decisions"][0]["hidden_at"] == early["hidden_at"]
    purged = {
        "text": "[purged]",
        "text_hash": text_hash("use redis"),
        "hidden": True,
        "hidden_at": "2026-04-01T00:00:00.000Z",
    }
    merged = merge_sessions(
        {"version": 1, "current": {"decisions": [early, purged]}},
        {
            "version": 1,
            "current": {"decisions": [{**base, "date": "2027-01-01T00:00:00.000Z", "why": "w"}]},
        },
    )
    (only,) = merged["current"]["decisions"]
    assert only["text"] == "[purged]" and "why" not in only
    assert "Use Redis" not in json.dumps(merged)


def test_hidden_is_honoured_when_truthy():
    a = {
        "version": 1,
        "current": {"decisions": [{"text": "d", "hidden": "yes", "hidden_at": "2026-01-01"}]},
    }
    b = {"version": 1, "current": {"decisions": [{"text": "d", "date": "2027-01-01"}]}}
    (d,) = merge_sessions(a, b)["current"]["decisions"]
    assert d["hidden"] is True


def test_newer_version_contributes_nothing():
    ours = {"version": 1, "current": {"goals": [{"text": "mine", "set_on": "2026-01-01"}]}}
    theirs = {"version": 2, "current": {"goals": [{"text": "alien", "set_on": "2026-01-01"}]}}
    merged = merge_sessions(ours, theirs)
    assert [g["text"] for g in merged["current"]["goals"]] == ["mine"]
    assert merge_sessions(theirs, ours) == merged


def test_identity_uses_javascript_trim_and_lowercase():
    # U+0085 and U+001C are not JavaScript whitespace; U+3000 and U+FEFF are.
    assert identity("\u3000Hello\ufeff") == "hello"
    assert identity("\x85Hello") == "\x85hello"
    assert identity("Straße") == "straße"  # toLowerCase, not casefold
    assert text_hash("  Use SQLite ") == text_hash("use sqlite")
    # sha256("use sqlite"), as Node computes it
    assert text_hash("use sqlite") == hashlib.sha256(b"use sqlite").hexdigest()


@given(st.text())
def test_text_hash_never_raises(text):
    assert len(text_hash(text)) == 64


LIVE_LISTS = ("goals", "next_actions", "open_questions", "decisions")


@EXAMPLES
@given(sessions(), sessions(), sessions())
def test_hidden_is_sticky_on_every_list(a, b, c):
    """Any hidden copy hides the merged item, whatever the dates (the JavaScript tool keeps
    hidden sticky on every list), and it stays hidden through later merges with live copies."""
    for key in LIVE_LISTS:
        hidden = {decision_key(i) for side in (a, b) for i in side["current"][key] if is_hidden(i)}
        for merged in (m(a, b), m(m(a, b), c), m(c, m(a, b))):
            out = {decision_key(i): i for i in merged["current"][key]}
            assert hidden <= set(out), key  # never suppressed nor capped away
            for k in hidden:
                assert out[k]["hidden"] is True, (key, out[k])


@EXAMPLES
@given(sessions(), sessions())
def test_a_purged_identity_keeps_its_hash_and_no_text(a, b):
    merged = m(a, b)
    for key in LIVE_LISTS:
        purged = {i["text_hash"] for s in (a, b) for i in s["current"][key] if "text_hash" in i}
        out = {decision_key(i): i for i in merged["current"][key]}
        for h in purged:
            assert out[h]["text_hash"] == h and out[h]["text"] == "[purged]", key


def _one(key, item):
    return {"version": 1, "current": {key: [item]}}


def test_a_hidden_goal_action_or_question_beats_a_newer_live_copy():
    for key, field in (("goals", "set_on"), ("next_actions", "added"), ("open_questions", "asked")):
        hidden = {"text": "Ship it", field: "2026-01-01T00:00:00.000Z", "hidden": True,
                  "hidden_at": "2026-01-02T00:00:00.000Z"}  # fmt: skip
        newer = {"text": "ship it", field: "2026-06-01T00:00:00.000Z", "why": "again"}
        for merged in (
            m(_one(key, hidden), _one(key, newer)),
            m(_one(key, newer), _one(key, hidden)),
        ):
            (only,) = merged["current"][key]
            assert only["hidden"] is True and only["hidden_at"] == hidden["hidden_at"], key


def test_a_hidden_action_survives_its_completion_and_a_later_readd():
    hidden = {"text": "Deploy", "added": "2026-01-01T00:00:00.000Z", "hidden": True}
    done = {"version": 1, "current": {"completed_actions": [
        {"text": "deploy", "done_at": "2026-02-01T00:00:00.000Z"}]}}  # fmt: skip
    readd = _one("next_actions", {"text": "Deploy", "added": "2026-03-01T00:00:00.000Z"})
    merged = m(m(_one("next_actions", hidden), done), readd)
    (only,) = merged["current"]["next_actions"]
    assert only["hidden"] is True


def test_a_purged_tombstone_keeps_its_hash_beside_a_live_purged_marker():
    """A malformed live item whose text is literally ``[purged]`` used to win the tie on
    goals, actions and questions and take the tombstone's ``text_hash`` with it."""
    tomb = {"text": "[purged]", "text_hash": text_hash("secret plan"), "hidden": True,
            "hidden_at": "2026-01-01T00:00:00.000Z"}  # fmt: skip
    other = {**tomb, "text_hash": text_hash("another plan")}
    marker = {"text": "[purged]"}
    for key in LIVE_LISTS:
        a = {"version": 1, "current": {key: [tomb, other]}}
        for merged in (m(a, _one(key, marker)), m(_one(key, marker), a)):
            hashes = {i.get("text_hash") for i in merged["current"][key]}
            assert {tomb["text_hash"], other["text_hash"]} <= hashes, key
