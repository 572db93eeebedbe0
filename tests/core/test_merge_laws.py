"""The merge laws of FORMAT §4.4 as properties over generated replicas shaped as today's
memoir writes them (projects, parked and archived lists, goal tombstones)."""

from __future__ import annotations

import copy
import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_tui.core.format.identity import identity, parse_date_ms, text_hash
from memoir_tui.core.format.items import OVERFLOW_LIST
from memoir_tui.core.format.merge import Caps, decision_key, is_hidden, item_key, merge_sessions
from tests.conftest import examples

from .strategies import sessions

BIG = Caps(goals=1000, next_actions=1000, open_questions=1000, decisions=1000, history=1000)
# ~3,000 generated pairs and triples across the laws per run; ten times as
# many under HYPOTHESIS_PROFILE=soak (tests/conftest.py).
EXAMPLES = settings(max_examples=examples(100, soak=4000))


NOW = "2030-01-01T00:00:00.000Z"  # the parked_at a merge stamps on what it parks


def m(a, b, caps=BIG):
    return merge_sessions(a, b, caps=caps, now=NOW)


def pooled(state, key):
    """A list with its overflow (archived or parked) list: where its items may be."""
    cur = state["current"]
    return list(cur.get(key, [])) + list(cur.get(OVERFLOW_LIST[key], []))


def cross_scoped(state, key):
    """Unscoped identities the cross-scope rule may take out of ``state``'s ``key`` list:
    those whose words are hidden in some project there (FORMAT-LATEST §6 step 2)."""
    scoped = {decision_key(i) for i in pooled(state, key) if is_hidden(i) and i.get("project")}
    return {f"sha256:{h}" for h in scoped}


def rendered(state):
    """What a reader sees: the visible items of every list (overflow included), without
    the stamp a merge gives what it parks."""
    out = {}
    for key in ("goals", "next_actions", "open_questions", "decisions"):
        visible = [
            json.dumps({k: v for k, v in i.items() if k != "parked_at"}, sort_keys=True)
            for i in pooled(state, key)
            if not is_hidden(i)
        ]
        out[key] = sorted(visible)
    return out


@EXAMPLES
@given(sessions(), sessions())
def test_commutative(a, b):
    assert m(a, b) == m(b, a)
    assert merge_sessions(a, b, now=NOW) == merge_sessions(b, a, now=NOW)  # default caps too


@EXAMPLES
@given(sessions(), sessions())
def test_idempotent(a, b):
    merged = m(a, b)
    assert m(merged, merged) == merged
    assert m(m(a, a), a) == m(a, a)


@EXAMPLES
@given(sessions(), sessions(), sessions())
def test_associative_without_overflow(a, b, c):
    # What a reader sees does not depend on the order of merging. (Which copy a
    # tombstone keeps may: the newest copy inherits a hiding, as the JavaScript tool
    # does, so a hidden row's content can differ; it is never shown.)
    assert rendered(m(m(a, b), c)) == rendered(m(a, m(b, c)))


@EXAMPLES
@given(sessions(), sessions())
def test_inputs_not_mutated(a, b):
    before = (copy.deepcopy(a), copy.deepcopy(b))
    merge_sessions(a, b, now=NOW)
    assert (a, b) == before


@EXAMPLES
@given(sessions(), sessions())
def test_no_silent_loss(a, b):
    # Identities are (text hash, project): a purged and a plain copy of one text in one
    # project are one identity; the same words in two projects are two.
    merged = m(a, b)
    cur = merged["current"]
    for side in (a, b):
        scoped_hidden = {
            decision_key(i)
            for s in (a, b)
            for key in ("goals", "next_actions", "open_questions", "decisions")
            for i in pooled(s, key)
            if is_hidden(i) and i.get("project")
        }
        for key, tombs in (
            ("goals", "completed_goals"),
            ("open_questions", "closed_questions"),
            ("next_actions", "completed_actions"),
            ("decisions", "retracted_decisions"),
        ):
            have = {item_key(i) for i in pooled(merged, key) + cur.get(tombs, [])}
            for i in pooled(side, key):
                if item_key(i) in have:
                    continue
                # the cross-scope rule: a hiding in some project hides the unscoped copy
                assert not i.get("project") and decision_key(i) in scoped_hidden, i
        assert set(side["machines"]) <= set(merged["machines"])


@EXAMPLES
@given(sessions(), sessions())
def test_hidden_stays_hidden_and_purged_text_never_returns(a, b):
    merged = m(a, b)
    out = {item_key(d): d for d in pooled(merged, "decisions")}
    for side in (a, b):
        for d in pooled(side, "decisions"):
            key = item_key(d)
            if key not in out:
                continue  # an unscoped copy the cross-scope rule took out
            if is_hidden(d):
                assert is_hidden(out[key])
            if "text_hash" in d:
                assert out[key]["text"] == "[purged]"
                assert "why" not in out[key] and "rejected" not in out[key]
    # and it stays so through any later merge with the old un-hidden copies
    again = {item_key(x): x for x in pooled(m(merged, a), "decisions")}
    for key, d in out.items():
        if not is_hidden(d):
            continue
        if key in again:
            assert is_hidden(again[key])
        else:
            # The cross-scope rule, as memoir applies it, takes an unscoped identity out
            # whole when its newest copy is live and some project hides the same words:
            # its tombstone goes with the live copy, and the project's hiding still holds
            # the words — they never come back live.
            assert not d.get("project"), d
            words = decision_key(d)
            assert any(
                is_hidden(x) and x.get("project") and decision_key(x) == words
                for x in again.values()
            ), d
            assert not any(not is_hidden(x) and decision_key(x) == words for x in again.values()), d


@EXAMPLES
@given(sessions(), sessions())
def test_completed_stays_completed_and_readd_survives(a, b):
    merged = m(a, b)
    done = {}
    for side in (a, b):
        for t in side["current"]["completed_actions"]:
            if not t.get("done_at"):
                continue  # a tombstone without a date is dropped, as the format says
            k = item_key(t)
            done[k] = max(done.get(k, 0), parse_date_ms(t["done_at"]))
    survivors = pooled(merged, "next_actions")
    for action in survivors:
        k = item_key(action)
        if k in done and not is_hidden(action):  # a hiding outlives a completion
            assert parse_date_ms(action.get("added")) > done[k]
    # a copy added after every completion of its identity survives (or the cross-scope
    # rule hid it: then a hidden copy of its words is there)
    kept = {item_key(x) for x in survivors}
    for side in (a, b):
        for action in pooled(side, "next_actions"):
            k = item_key(action)
            if parse_date_ms(action.get("added")) > done.get(k, -1) and k not in kept:
                assert not action.get("project")
                assert any(
                    is_hidden(x) and decision_key(x) == decision_key(action) for x in survivors
                )


@EXAMPLES
@given(sessions(), sessions())
def test_unknown_fields_survive(a, b):
    merged = m(a, b)
    for side in (a, b):
        if "x_top" in side:
            assert "x_top" in merged
        if "x_cur" in side["current"]:
            assert "x_cur" in merged["current"]


@settings(max_examples=examples(100, soak=3000))
@given(sessions(max_items=12), sessions(max_items=12))
def test_visible_caps_never_cut_tombstones(a, b):
    caps = Caps(goals=1, next_actions=1, open_questions=1, decisions=1, history=1)
    merged = merge_sessions(a, b, caps=caps, now=NOW)
    done_in = {
        item_key(t) for s in (a, b) for t in s["current"]["completed_actions"] if t.get("done_at")
    }
    assert done_in <= {item_key(t) for t in merged["current"]["completed_actions"]}
    for key in ("goals", "next_actions", "open_questions", "decisions"):
        # the cap decides only what is live; nothing is dropped for it
        assert len([i for i in merged["current"][key] if not is_hidden(i)]) <= 1
        assert rendered(merged)[key] == rendered(m(a, b))[key]
        hidden_in = {item_key(i) for s in (a, b) for i in pooled(s, key) if is_hidden(i)}
        hidden_out = {item_key(i) for i in pooled(merged, key) if is_hidden(i)}
        assert hidden_in - hidden_out <= cross_scoped(merged, key)


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
        hidden = {item_key(i) for side in (a, b) for i in pooled(side, key) if is_hidden(i)}
        for merged in (m(a, b), m(m(a, b), c), m(c, m(a, b))):
            out = {item_key(i): i for i in pooled(merged, key)}
            # never suppressed nor capped away, but for the cross-scope rule
            assert hidden - set(out) <= cross_scoped(merged, key), key
            for k in hidden & set(out):
                assert out[k]["hidden"] is True, (key, out[k])


@EXAMPLES
@given(sessions(), sessions())
def test_a_purged_identity_keeps_its_hash_and_no_text(a, b):
    merged = m(a, b)
    for key in LIVE_LISTS:
        purged = {
            item_key(i): i["text_hash"] for s in (a, b) for i in pooled(s, key) if "text_hash" in i
        }
        out = {item_key(i): i for i in pooled(merged, key)}
        for k, h in purged.items():
            if k not in out:
                assert k in cross_scoped(merged, key)
                continue
            assert out[k]["text_hash"] == h and out[k]["text"] == "[purged]", key


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
