"""The review queue: merge laws, pin / reject / near-hidden on disk, the CLI."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir_tui.core.base.errors import ForgottenDecisionError, NoMatchError
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.format.review_file import (
    CandidateStateError,
    NearHiddenError,
    load_review,
    merge_review,
)
from memoir_tui.core.services.review import near_hidden_match, similarity
from tests.conftest import examples
from tests.deadlines import SAFETY_NET

from .conftest import read_json


def cand(text: str, source: str = "user", **extra) -> dict:
    return {
        "text": text,
        "kind": "decision",
        "source": source,
        "extractor": "decision.we_will",
        "session_id": "sess-1",
        "timestamp": "2026-03-02T09:00:00.000Z",
        "project": "p-1",
        "project_label": "shop",
        "transcript": "/t/sess-1.jsonl",
        **extra,
    }


def session_decisions(store_dir: Path) -> list[dict]:
    path = store_dir / "session.json"
    return read_json(path)["current"]["decisions"] if path.exists() else []


def review_items(store_dir: Path) -> dict[str, dict]:
    return {i["text"]: i for i in read_json(store_dir / "review.json")["items"]}


# --- merge laws ---------------------------------------------------------------------------

TEXTS = ["Use uv", " use UV ", "Use ruff", "Pin deps", "Drop 3.10"]
DATES = [None, "2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z", "garbage"]


@st.composite
def review_item(draw):
    state = draw(st.sampled_from(["candidate", "pinned", "rejected", "weird"]))
    item = {"text": draw(st.sampled_from(TEXTS)), "state": state}
    for field in ("captured_at", "pinned_at", "rejected_at"):
        date = draw(st.sampled_from(DATES))
        if date is not None:
            item[field] = date
    item["source"] = draw(st.sampled_from(["user", "assistant"]))
    if draw(st.booleans()):
        item["extra"] = draw(st.integers(0, 3))
    return item


@st.composite
def review_file(draw):
    out = {"version": 1, "items": draw(st.lists(review_item(), max_size=6))}
    if draw(st.booleans()):
        out["updated_at"] = draw(st.sampled_from(DATES[1:]))
    if draw(st.booleans()):
        out["x-unknown"] = draw(st.integers(0, 2))
    return out


def keys(state: dict) -> set[str]:
    return {text_hash(i["text"]) for i in state["items"]}


@settings(max_examples=examples(60))
@given(review_file(), review_file(), review_file())
def test_merge_is_a_semilattice(a, b, c):
    ab = merge_review(a, b)
    assert ab == merge_review(b, a)
    assert merge_review(ab, c) == merge_review(a, merge_review(b, c))
    assert merge_review(ab, ab) == ab
    assert merge_review(ab, a) == ab  # absorbing a side changes nothing
    assert keys(ab) == keys(a) | keys(b)  # no silent loss
    assert len(ab["items"]) == len(keys(ab))  # one copy per identity


@settings(max_examples=examples(50))
@given(review_file(), review_file())
def test_rejection_and_pinning_are_sticky(a, b):
    merged = {text_hash(i["text"]): i for i in merge_review(a, b)["items"]}
    for side in (a, b):
        for item in side["items"]:
            winner = merged[text_hash(item["text"])]
            if item["state"] == "rejected":
                assert winner["state"] == "rejected"
            if item["state"] == "pinned":
                assert winner["state"] in ("pinned", "rejected")


def test_merge_ignores_a_newer_version_and_keeps_inputs_intact():
    mine = {"version": 1, "items": [{"text": "Use uv", "state": "candidate"}]}
    future = {"version": 2, "items": [{"text": "Use ruff", "state": "rejected"}]}
    snapshot = json.dumps([mine, future], sort_keys=True)
    merged = merge_review(mine, future)
    assert [i["text"] for i in merged["items"]] == ["Use uv"]
    assert json.dumps([mine, future], sort_keys=True) == snapshot


def test_newer_review_file_is_read_only(store, store_dir):
    (store_dir / "review.json").write_text(json.dumps({"version": 9, "items": []}))
    assert load_review(store_dir / "review.json").read_only
    with pytest.raises(Exception, match="newer"):
        store.review.enqueue([cand("We'll use uv instead of pip here.")])
    assert json.loads((store_dir / "review.json").read_text())["version"] == 9


def test_corrupt_review_file_is_copied_aside(store, store_dir):
    (store_dir / "review.json").write_text("{not json")
    store.review.enqueue([cand("We'll use uv instead of pip here.")])
    assert [p.name for p in store_dir.glob("review.json.corrupted-*")]
    assert len(read_json(store_dir / "review.json")["items"]) == 1


# --- pin / reject on disk -------------------------------------------------------------------


def test_pin_writes_the_decision_and_keeps_provenance_on_the_item(store, store_dir):
    report = store.review.enqueue([cand("We'll use uv instead of pip here.", "assistant")])
    (cid,) = report.added
    (item,) = store.review.list_items()
    assert item.badges[0] == "[assistant]" and item.assistant_sourced
    outcome = store.review.pin(cid[:8], why="fast installs", rejected="pip-tools")
    assert outcome.changed and outcome.key == text_hash("We'll use uv instead of pip here.")
    (decision,) = session_decisions(store_dir)
    assert decision["text"] == "We'll use uv instead of pip here."
    assert decision["why"] == "fast installs" and decision["rejected"] == "pip-tools"
    on_disk = review_items(store_dir)["We'll use uv instead of pip here."]
    assert on_disk["state"] == "pinned" and on_disk["pinned_at"]
    assert on_disk["pinned_key"] == outcome.key
    assert on_disk["source"] == "assistant" and on_disk["extractor"] == "decision.we_will"
    assert store.review.list_items() == []
    with pytest.raises(CandidateStateError):
        store.review.pin(cid)
    # pinning the same text again is refused as a duplicate proposal too
    again = store.review.enqueue([cand("we'll use UV instead of pip here.")])
    assert again.added == () and again.duplicates == 1


def test_pin_with_edited_text_redacts_and_records_the_wording(store, store_dir):
    (cid,) = store.review.enqueue([cand("We'll use uv instead of pip here.")]).added
    token = "ghp_" + "Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8B"
    store.review.pin(cid, text="Use uv, never pip.", why=f"the CI token is {token}")
    (decision,) = session_decisions(store_dir)
    assert decision["text"] == "Use uv, never pip."
    assert token not in json.dumps(decision) and "[REDACTED:" in decision["why"]
    item = review_items(store_dir)["We'll use uv instead of pip here."]
    assert item["pinned_text"] == "Use uv, never pip."
    for path in store_dir.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes()


def test_reject_leaves_a_tombstone_that_blocks_the_same_text(store, store_dir):
    (cid,) = store.review.enqueue([cand("We'll use Redis for caching the pages.")]).added
    outcome = store.review.reject(cid)
    assert outcome.changed
    item = review_items(store_dir)["We'll use Redis for caching the pages."]
    assert item["state"] == "rejected" and item["rejected_at"]
    assert store.review.reject(cid).changed is False
    with pytest.raises(CandidateStateError):
        store.review.pin(cid)
    again = store.review.enqueue([cand("  we'll use redis for caching the pages.  ")])
    assert again.added == () and again.duplicates == 1
    assert (
        store.review.list_items() == [] and len(store.review.list_items(states=("rejected",))) == 1
    )
    assert session_decisions(store_dir) == []
    with pytest.raises(NoMatchError):
        store.review.reject("ffffffff")
    with pytest.raises(NoMatchError):
        store.review.reject("ab")


def test_near_hidden_is_flagged_and_pin_refuses_without_force(store, store_dir):
    hidden_text = "Use PostgreSQL for the main database of the shop"
    key = store.note_decision(hidden_text).key
    store.hide_decision(key)
    report = store.review.enqueue([cand("We'll use PostgreSQL for the main database of the shop.")])
    assert report.near_hidden == 1
    (cid,) = report.added
    on_disk = review_items(store_dir)["We'll use PostgreSQL for the main database of the shop."]
    assert on_disk["near_hidden"]["key"] == key and on_disk["near_hidden"]["text"] == hidden_text
    (item,) = store.review.list_items()
    assert "[near-hidden]" in item.badges
    with pytest.raises(NearHiddenError) as err:
        store.review.pin(cid)
    assert err.value.match.key == key
    assert [d["text"] for d in session_decisions(store_dir)] == [hidden_text]  # unchanged
    assert review_items(store_dir)[item.text]["state"] == "candidate"
    store.review.pin(cid, force=True)
    texts = {d["text"]: d for d in session_decisions(store_dir)}
    assert texts[hidden_text]["hidden"] is True
    assert item.text in texts and not texts[item.text].get("hidden")
    flagged = review_items(store_dir)[item.text]
    assert flagged["state"] == "pinned" and flagged["forced"] is True


def test_purged_decisions_match_only_by_hash(store, store_dir):
    text = "We'll use MongoDB for the audit trail."
    other = "We'll use MongoDB for the audit trails."
    store.review.enqueue([cand(text)])
    (cid,) = store.review.enqueue([cand(other)]).added
    key = store.note_decision(text).key
    store.purge_decision(key)
    # the candidate holding the purged text itself is redacted and can never be pinned
    assert [i.text for i in store.review.list_items()] == [other]
    assert text not in (store_dir / "review.json").read_text()
    assert [i.text for i in store.review.list_items(states=("rejected",))] == ["[purged]"]
    # a rewording is not matched: a purged decision has no text to compare
    (item,) = store.review.list_items()
    assert item.near_hidden is None
    tombstones = store.working_set().tombstones
    assert near_hidden_match(other, tombstones) is None
    # and the exact text is never queued again once forgotten
    assert store.review.enqueue([cand(text)]).added == ()
    with pytest.raises(ForgottenDecisionError):
        store.note_decision(text)
    store.review.reject(cid)


def test_capture_drops_exact_hidden_and_known_decisions(store):
    store.note_decision("We'll use ruff for linting and formatting.")
    gone = store.note_decision("We'll use black for formatting the code.").key
    store.hide_decision(gone)
    report = store.review.enqueue(
        [
            cand("We'll use ruff for linting and formatting."),
            cand("We'll use black for formatting the code."),
        ],
    )
    assert report.added == () and report.known == 1 and report.forgotten == 1


def test_similarity_threshold_examples():
    assert (
        similarity("Use PostgreSQL for the main DB", "We'll use PostgreSQL for the main DB") >= 85
    )
    assert similarity("Use PostgreSQL for the main DB", "Use Redis for the session cache") < 85
    assert similarity("use uv", "we will use uv for everything here") < 85  # too few words


# --- CLI --------------------------------------------------------------------------------------


def cli(*args: str) -> tuple[int, str, str]:
    from memoir_tui.cli import build_parser, run_command

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = run_command(build_parser().parse_args(list(args)))
    return code, out.getvalue(), err.getvalue()


def test_cli_capture_review_pin_reject(store_dir, projects):
    code, out, _ = cli("--store", str(store_dir), "capture", "--projects-dir", str(projects))
    assert code == 0 and "10 new candidate(s) queued" in out
    code, out, _ = cli("--store", str(store_dir), "capture", "--projects-dir", str(projects))
    assert "0 new candidate(s) queued" in out
    # The fixtures' transcripts come from other projects than the one this runs in.
    code, out, err = cli("--store", str(store_dir), "review", "list", "--all-projects")
    assert code == 0 and "10 candidate(s), 5 from the assistant" in err
    lines = [line for line in out.splitlines() if not line.startswith("    ")]
    assert len(lines) == 10
    by_text = {}
    for line in lines:
        short, rest = line.split("  ", 1)
        by_text[rest] = short
        assert rest.startswith(("[user] ", "[assistant] "))
    duck = by_text["[user] We decided to use DuckDB for analytics."]
    code, out, _ = cli(
        "--store", str(store_dir), "review", "pin", duck, "--why", "fast local analytics"
    )
    assert code == 0 and "pinned" in out
    (decision,) = session_decisions(store_dir)
    assert decision["text"] == "We decided to use DuckDB for analytics."
    assert decision["why"] == "fast local analytics"
    ruff = by_text["[assistant] We'll use ruff for linting"]
    code, out, _ = cli("--store", str(store_dir), "review", "reject", ruff)
    assert code == 0 and out.startswith("rejected:")
    code, out, _ = cli("--store", str(store_dir), "review", "list", "--all", "--all-projects")
    assert "[pinned]" in out and "[rejected]" in out
    code, _, err = cli("--store", str(store_dir), "review", "pin", "zzzz")
    assert code == 1 and "no review item" in err


def test_cli_dry_run_and_near_hidden_refusal(store, store_dir, projects):
    code, out, _ = cli(
        "--store", str(store_dir), "capture", "--dry-run", "--projects-dir", str(projects)
    )
    assert code == 0 and "10 candidate(s) found (dry run" in out
    assert "[assistant] We chose FastAPI over Flask for the API layer." in out
    assert not (store_dir / "review.json").exists()
    key = store.note_decision("We chose FastAPI over Flask for the API").key
    store.hide_decision(key)
    cli("--store", str(store_dir), "capture", "--projects-dir", str(projects))
    (item,) = [i for i in store.review.list_items() if "FastAPI" in i.text]
    assert item.near_hidden is not None
    code, out, err = cli("--store", str(store_dir), "review", "pin", item.short_id)
    assert code == 1 and "--force" in err
    code, out, _ = cli("--store", str(store_dir), "review", "pin", item.short_id, "--force")
    assert code == 0 and "came from the assistant" in out


def test_cli_modules_import_neither_textual_nor_mcp(store_dir, projects):
    probe = (
        "import sys, runpy; sys.argv = ['memoir-tui', *sys.argv[1:]];\n"
        "try:\n    runpy.run_module('memoir_tui', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'mcp')]\n"
        "print('LEAK', bad, file=sys.stderr)"
    )
    args = ["capture", "--dry-run", "--projects-dir", str(projects)]
    proc = subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMOIR_HOME": str(store_dir)},
        timeout=SAFETY_NET,
    )
    assert "LEAK []" in proc.stderr, proc.stderr


def test_pin_passes_provenance_when_the_store_accepts_it(store_dir, clock):
    from memoir_tui.core.workflows.memoir import Memoir

    seen = {}

    store = Memoir(store_dir, clock=clock, machine_label="m")
    noted = store.working.note_decision

    def note_decision(text, why=None, rejected=None, *, provenance=None):
        seen.update(provenance or {})
        return noted(text, why, rejected)

    store.working.note_decision = note_decision  # what the queue hands the working set
    (cid,) = store.review.enqueue([cand("We'll use uv instead of pip here.", "assistant")]).added
    store.review.pin(cid)
    assert seen["source"] == "assistant" and seen["extractor"] == "decision.we_will"
    assert seen["session_id"] == "sess-1" and seen["project"] == "p-1"
    assert seen["captured_at"]


def test_concurrent_enqueues_lose_nothing(store):
    import threading

    texts = [f"We decided to use build tool number {n} here." for n in range(8)]
    threads = [threading.Thread(target=store.review.enqueue, args=([cand(t)],)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {i.text for i in store.review.list_items()} == set(texts)
