"""Extraction rules, the quality gate, provenance and redaction."""

from __future__ import annotations

import pytest

from memoir_tui.core.capture.extract import (
    ProjectRef,
    extract_from_message,
    match_rule,
    quality_problem,
    split_sentences,
)
from memoir_tui.core.capture.transcripts import Message


def msg(text: str, source: str = "user") -> Message:
    return Message(
        source=source,
        text=text,
        uuid="u-1",
        session_id="sess-1",
        timestamp="2026-03-02T09:00:00.000Z",
        cwd="/home/dev/notes",
        transcript="/t/sess-1.jsonl",
    )


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("We'll use uv instead of pip for this project.", "decision.we_will"),
        ("We decided to drop Python 3.10 support.", "decision.decided"),
        ("Decided to keep the monorepo layout.", "decision.decided"),
        ("Going with Textual instead of urwid for the UI.", "decision.going_with"),
        ("We're going with SQLite for the cache.", "decision.going_with"),
        ("We chose Hypothesis for property tests.", "choice.chose"),
        ("Use httpx instead of requests in new code.", "choice.instead_of"),
        ("Prefer dataclasses over attrs in the core.", "choice.instead_of"),
        ("Rename the settings module to config everywhere.", "rename"),
        ("The worker is now called the scheduler.", "rename"),
        ("Remember that staging deploys need a manual approval.", "instruction.remember"),
        ("From now on, write commit messages in English.", "instruction.from_now_on"),
        ("Always run the tests before pushing.", "instruction.always_never"),
        ("Never commit directly to the main branch.", "instruction.always_never"),
    ],
)
def test_rules_fire(sentence, rule):
    found = match_rule(sentence, "user")
    assert found is not None and found.id == rule
    assert quality_problem(sentence) is None


def test_assistant_narration_and_user_only_rules():
    assert match_rule("Let me use Glob instead of find.", "assistant") is None
    assert match_rule("I'll use the Read tool instead of cat.", "assistant") is None
    assert match_rule("Always run the tests before pushing.", "assistant") is None
    assert match_rule("We'll use uv instead of pip for this project.", "assistant") is not None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Use uv.", "too short"),
        ("We'll use " + "very " * 80 + "long text.", "too long"),
        ("Decision: uvicorn, gunicorn.", "too few words"),
        ("It will use Redis for caching the sessions.", "starts with a pronoun"),
        ("This means we'll use Redis everywhere.", "starts with a pronoun"),
        ("That is why we'll use Redis everywhere.", "starts with a pronoun"),
        ("Should we use Redis for caching the pages", "a question"),
        ("We'll use Redis for caching, right?", "a question"),
        ("We'll use Redis | for caching the pages.", "a table cell"),
        ("# We'll use Redis for caching the pages", "markdown debris"),
        ("We'll use **Redis for caching the pages.", "markdown debris"),
        ("We'll use [Redis](https://redis.io) for caching.", "markdown debris"),
        ("We'll use <b>Redis</b> for caching the pages.", "markdown debris"),
        ("We'll use Redis (for caching the pages.", "unbalanced brackets"),
        ("We'll use \"Redis for caching the pages.", "unbalanced quotes"),
        ("We'll use `Redis for caching the pages.", "unbalanced quotes"),
        ("We'll use Redis for caching and…", "truncated"),
        ("We'll use Redis for caching the pages...", "truncated"),
        ("We'll use Redis for caching instead of", "truncated"),
        ("We'll use Redis for caching the pag-", "truncated"),
        ("We'll use Redis for caching, and we'", "truncated"),
        ("We'll use ${A}/${B}/${C}/${D}/${E}/${F} here", "mostly symbols or code"),
    ],
)
def test_quality_gate_rejects_fragments(text, problem):
    assert quality_problem(text) == problem


def test_sentences_drop_code_fences_and_split_lines():
    text = "We'll use uv. Then ruff.\n```\nwe'll use make\n```\n- Prefer httpx over requests"
    assert split_sentences(text) == [
        "We'll use uv.",
        "Then ruff.",
        "- Prefer httpx over requests",
    ]


def test_candidate_carries_provenance_fields():
    project = ProjectRef(id="p-123", kind="git", label="notes")
    (c,) = extract_from_message(
        msg("Sounds good. We'll use uv instead of pip for this project."), project=project
    )
    item = c.to_item()
    assert item["source"] == "user"
    assert item["extractor"] == "decision.we_will"
    assert item["session_id"] == "sess-1"
    assert item["timestamp"] == "2026-03-02T09:00:00.000Z"
    assert item["project"] == "p-123" and item["project_label"] == "notes"
    assert item["transcript"] == "/t/sess-1.jsonl"
    assert item["message_uuid"] == "u-1"
    assert item["tool"] == "claude-code"
    assert item["redacted"] is False
    assert len(item["id"]) == 64


def test_secrets_are_redacted_before_anything_leaves_extraction():
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    pem = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "-----END OPENSSH PRIVATE KEY-----"
    )
    text = f"Remember that the deploy key is {token} for releases.\nFrom now on use this:\n{pem}"
    cands = extract_from_message(msg(text, "assistant"))
    assert cands, "the instruction itself is still a (redacted, assistant) candidate"
    for c in cands:
        assert token not in c.text and "b3BlbnNzaC1rZXkt" not in c.text
        assert c.source == "assistant"
    remember = next(c for c in cands if c.extractor == "instruction.remember")
    assert "[REDACTED:github-token]" in remember.text and remember.redacted
