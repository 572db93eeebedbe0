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
    merged = m(a, b)
    cur = merged["current"]
    for side in (a, b):
        for key in ("goals", "open_questions"):
            have = {identity(i["text"]) for i in cur[key]}
            assert {identity(i["text"]) for i in side["current"][key]} <= have
        live_or_done = {identity(i["text"]) for i in cur["next_actions"] + cur["completed_actions"]}
        assert {identity(i["text"]) for i in side["current"]["next_actions"]} <= live_or_done
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
            k = identity(t["text"])
            done[k] = max(done.get(k, 0), parse_date_ms(t["done_at"]))
    for action in cur["next_actions"]:
        k = identity(action["text"])
        if k in done:
            assert parse_date_ms(action.get("added")) > done[k]
    # a copy added after every completion of its identity survives
    for side in (a, b):
        for action in side["current"]["next_actions"]:
            k = identity(action["text"])
            if parse_date_ms(action.get("added")) > done.get(k, -1):
                assert k in {identity(x["text"]) for x in cur["next_actions"]}


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
    assert len(merged["current"]["next_actions"]) <= 1


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
