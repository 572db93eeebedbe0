"""The cheaper reads of the review queue and the audit log give what the plain ones gave.

``load_review`` merges the parsed file without copying it and breaks (state, date)
ties by canonical JSON only where they occur; ``items_of`` remembers near-hidden
checks per text while the hidden decisions stay the same; ``read_audit`` parses lines
from the newest back only as far as it needs. Each is checked against the plain
computation it replaced.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_tui.core.door.audit import AUDIT_FILE, AuditRecord, read_audit
from memoir_tui.core.format import review_file as queue_file
from memoir_tui.core.format.identity import canonical_json, parse_date_ms, text_hash
from memoir_tui.core.format.review_file import (
    CANDIDATE,
    DEFAULT_REVIEW_CAPS,
    STATES,
    ReviewCaps,
    item_key,
    load_review,
    merge_review,
    well_formed_review_items,
)
from memoir_tui.core.services import review
from tests.conftest import examples

TEXTS = ["Use uv", " use UV ", "Use ruff", "Pin deps", "Drop 3.10", "Ship it", "Tabs"]
DATES = [None, "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "garbage"]


def reference_merge(a, b, *, caps: ReviewCaps = DEFAULT_REVIEW_CAPS) -> dict:
    """``merge_review`` as it was written before it was made cheaper (deep copies,
    canonical JSON for every winner and every sort key)."""

    def winner_key(item):
        state = queue_file.state_of(item)
        return (
            item.get("purged") is True,
            queue_file._RANK[state],
            parse_date_ms(item.get(queue_file.STATE_DATE[state])),
            canonical_json(item),
        )

    def sort_key(item):
        state = queue_file.state_of(item)
        return (
            queue_file._RANK[state],
            -parse_date_ms(item.get(queue_file.STATE_DATE[state])),
            canonical_json(item),
        )

    sides = [s for s in (a, b) if queue_file.contributes_to_review_merge(s)]
    out: dict = {"version": queue_file.REVIEW_VERSION}
    copies: dict[str, list[dict]] = {}
    for side in sides:
        for item in well_formed_review_items(side.get("items")):
            item = copy.deepcopy(item)
            key = item_key(item)
            item["id"] = key
            copies.setdefault(key, []).append(item)
    purged_keys = {k for k, c in copies.items() if any(i.get("purged") is True for i in c)}
    purged_keys |= {
        i["near_hidden"]["key"]
        for c in copies.values()
        for i in c
        if isinstance(i.get("near_hidden"), dict)
        and i["near_hidden"].get("purged") is True
        and isinstance(i["near_hidden"].get("key"), str)
    }
    winners = sorted(
        (
            queue_file._scrub_near_hidden(max(c, key=winner_key), purged_keys)
            for c in copies.values()
        ),
        key=sort_key,
    )
    limits = {"candidate": caps.candidates, "pinned": caps.pinned, "rejected": caps.rejected}
    counts = dict.fromkeys(STATES, 0)
    items = []
    for item in winners:
        state = queue_file.state_of(item)
        counts[state] += 1
        if counts[state] <= limits[state]:
            items.append(item)
    out["items"] = items
    updated = [s.get("updated_at") for s in sides if isinstance(s.get("updated_at"), str)]
    if updated:
        out["updated_at"] = max(updated, key=lambda d: (parse_date_ms(d), d))
    for side in sides:
        for key in sorted(set(side) - {"version", "items", "updated_at"}):
            value = copy.deepcopy(side[key])
            if key not in out or canonical_json(value) > canonical_json(out[key]):
                out[key] = value
    return {k: out[k] for k in sorted(out)}


@st.composite
def review_item(draw):
    state = draw(st.sampled_from(["candidate", "pinned", "rejected", "weird"]))
    text = draw(st.sampled_from(TEXTS))
    item: dict = {"text": text, "state": state}
    for field in ("captured_at", "pinned_at", "rejected_at"):
        date = draw(st.sampled_from(DATES))  # few dates: ties on (state, date) are common
        if date is not None:
            item[field] = date
    item["source"] = draw(st.sampled_from(["user", "assistant"]))
    if draw(st.booleans()):
        item["extra"] = {"n": draw(st.integers(0, 3)), "tags": draw(st.lists(st.text(max_size=3)))}
    if draw(st.integers(0, 5)) == 0:
        item.update(purged=True, text="[purged]", text_hash=text_hash(text))
    if draw(st.integers(0, 4)) == 0:
        near = {"key": text_hash(draw(st.sampled_from(TEXTS))), "text": "x", "score": 90.0}
        if draw(st.booleans()):
            near["purged"] = True
        item["near_hidden"] = near
    return item


@st.composite
def review_file(draw):
    out = {"version": 1, "items": draw(st.lists(review_item(), max_size=8))}
    if draw(st.booleans()):
        out["updated_at"] = draw(st.sampled_from(DATES[1:]))
    if draw(st.booleans()):
        out["x-unknown"] = {"v": draw(st.integers(0, 2))}
    return out


CAPS = st.sampled_from([DEFAULT_REVIEW_CAPS, ReviewCaps(candidates=1, pinned=2, rejected=1)])


@settings(max_examples=examples(120))
@given(review_file(), review_file(), CAPS)
def test_merge_gives_what_the_plain_merge_gave_and_touches_no_input(a, b, caps):
    before = json.dumps([a, b], sort_keys=True)
    merged = merge_review(a, b, caps=caps)
    assert merged == reference_merge(a, b, caps=caps)
    assert canonical_json(merged) == canonical_json(reference_merge(a, b, caps=caps))
    assert json.dumps([a, b], sort_keys=True) == before  # still pure
    # the result shares nothing with its inputs: changing it changes neither side
    for item in merged["items"]:
        item["text"] = "changed"
        if isinstance(item.get("extra"), dict):
            item["extra"]["n"] = 99
    assert json.dumps([a, b], sort_keys=True) == before


@settings(max_examples=examples(80))
@given(review_file())
def test_loading_a_file_gives_the_merge_of_it_with_itself(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("queue") / "review.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_review(path)
    assert loaded.state == reference_merge(data, data)
    assert list(loaded.state) == list(reference_merge(data, data))  # key order too
    # every item read carries its identity as id, so readers need not hash it again
    assert all(i["id"] == item_key(i) for i in loaded.state["items"])
    assert all(queue_file.loaded_key(i) == item_key(i) for i in loaded.state["items"])


def _cand(text: str, captured: str) -> dict:
    return {"text": text, "source": "user", "kind": "decision", "captured_at": captured}


def test_near_hidden_is_checked_again_when_the_hidden_decisions_change(store, store_dir):
    hidden = "Use PostgreSQL for the main database of the shop"
    near_text = "We'll use PostgreSQL for the main database of the shop."
    store.review.enqueue([_cand(near_text, "2026-03-01T00:00:00.000Z")])
    (item,) = store.review.list_items()
    assert item.near_hidden is None  # nothing hidden yet
    key = store.note_decision(hidden).key
    assert store.review.list_items()[0].near_hidden is None  # noted, not hidden
    store.hide_decision(key)
    (item,) = store.review.list_items()
    assert item.near_hidden is not None and item.near_hidden.key == key
    assert "[near-hidden]" in item.badges
    # the same read again (remembered) says the same
    assert store.review.list_items()[0].near_hidden == item.near_hidden
    # a threshold no wording reaches is a different question, asked afresh
    assert store.review.list_items(threshold=101.0)[0].near_hidden is None
    assert store.review.list_items()[0].near_hidden == item.near_hidden


def test_a_remembered_check_reads_as_a_fresh_one(store):
    """The note a read gives equals a check made from nothing (its score rounded as a
    stored note is), for every candidate, on the first read and the next."""
    hidden = ["Use PostgreSQL for the main database", "Deploy on Fridays never again"]
    for text in hidden:
        store.hide_decision(store.note_decision(text).key)
    texts = [
        "We'll use PostgreSQL for the main database.",
        "Never deploy on Fridays again",
        "Write the changelog by hand",
    ]
    store.review.enqueue([_cand(t, f"2026-03-0{n + 1}T00:00:00.000Z") for n, t in enumerate(texts)])
    tombstones = store.working_set(all_projects=True).tombstones
    assert review.hidden_decisions(store.working) == tombstones

    def fresh(text: str):
        match = review.near_hidden_match(text, tombstones)
        return queue_file.NearHidden.from_dict(match.as_dict()) if match else None

    for _ in range(2):
        items = {i.text: i for i in store.review.list_items()}
        assert {t: items[t].near_hidden for t in texts} == {t: fresh(t) for t in texts}
    assert sum(1 for i in items.values() if i.near_hidden is not None) == 2
    assert all(i.state == CANDIDATE for i in items.values())


def test_read_audit_gives_every_generation_newest_first(tmp_path: Path):
    root = tmp_path / "store"
    root.mkdir()

    def record(n: int) -> AuditRecord:
        return AuditRecord(
            f"2026-01-01T00:00:{n % 60:02d}.000Z",
            ("app", "cli")[n % 2],
            ("note_decision", "hide_decision", "add_goal")[n % 3],
            "decisions",
            text_hash(str(n)),
            "m1",
        )

    generations = {0: range(20, 30), 1: range(10, 20), 2: range(0, 10)}
    for gen, numbers in generations.items():
        lines = [record(n).to_line() for n in numbers]
        lines.insert(3, b'{"torn": \n')  # a torn line and a foreign one are skipped
        lines.insert(5, '{"time": "caf\u00e9"}\n'.encode())
        lines.insert(6, b"\xff\xfe not json\n")
        name = AUDIT_FILE if gen == 0 else f"{AUDIT_FILE}.{gen}"
        (root / name).write_bytes(b"".join(lines) + b"\n\n")
    everything = [record(n) for n in reversed(range(30))]
    assert read_audit(root) == everything
    for limit in (1, 5, 10, 11, 29, 30, 31):
        assert read_audit(root, limit=limit) == everything[:limit]
    assert read_audit(root, actor="cli", limit=4) == [r for r in everything if r.actor == "cli"][:4]
    assert read_audit(root, operation="add_goal") == [
        r for r in everything if r.operation == "add_goal"
    ]
