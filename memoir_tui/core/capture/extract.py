"""Candidate decisions out of conversation messages: rules, a quality gate, provenance.

A message is redacted by the secret scanner first, then split into sentences;
each sentence is tried against the rules below (the first match names the
``extractor``), cleaned of markdown, redacted again and passed through the
quality gate, which rejects fragments rather than guess at them. What
survives becomes a ``Candidate`` carrying its provenance as fields.

Rules favour precision: an assistant narrating its own next step ("Let me use
Glob instead of find") is not a decision, and the imperative "always…/never…"
rule only listens to the person. Only messages from ``transcripts`` reach
here, so text a tool returned is never a user-sourced candidate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from memoir_tui.core.capture.transcripts import Message
from memoir_tui.core.format.fences import strip_ours
from memoir_tui.core.format.identity import text_hash

USER = "user"
ASSISTANT = "assistant"

MIN_CHARS = 15
MAX_CHARS = 300
MIN_WORDS = 4
TOOL = "claude-code"
REDACTION_MARK = "[REDACTED:"  # what core.secrets.redact puts where a secret was


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    kind: str  # "decision" | "choice" | "rename" | "instruction"
    pattern: re.Pattern[str]
    sources: frozenset[str] = frozenset({USER, ASSISTANT})


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_WE = r"(?:we|we'll|we will|we're|we are|let's|let us)"
_ADOPT = (
    r"(?:use|go with|switch to|adopt|stick with|standardi[sz]e on|move to|migrate to|"
    r"keep using|rely on|build on|store \w+ in)"
)

RULES: tuple[Rule, ...] = (
    Rule(
        "decision.decided",
        "decision",
        _rx(
            r"\b(?:we|i|the team)\s+(?:have\s+|'ve\s+|just\s+)?decided\s+(?:to|that|on|against)\b"
            r"|^decided\s+(?:to|on|against)\b"
            r"|\bthe decision (?:is|was) to\b"
            r"|^decision:\s"
        ),
    ),
    Rule(
        "decision.going_with",
        "decision",
        _rx(r"\b(?:we're|we are|i'm|i am)\s+going with\b|^going with\b|\blet's go with\b"),
    ),
    Rule(
        "decision.we_will",
        "decision",
        _rx(
            rf"\b(?:we(?:'ll| will| are going to|'re going to| should| want to)|let's|let us)"
            rf"\s+(?:(?:just|now|instead|also|only)\s+)?{_ADOPT}\b"
        ),
    ),
    Rule(
        "choice.chose",
        "choice",
        _rx(
            r"\b(?:we|i)\s+(?:chose|picked|settled on|opted for|standardi[sz]ed on|went with)\b"
            r"|\b(?:our|the) choice (?:is|was)\b"
        ),
    ),
    Rule(
        "choice.instead_of",
        "choice",
        _rx(
            r"\b(?:use|using|prefer|chose|choose|pick|switch(?:ed)? to|go with)\b"
            r"[^.;!?]{1,80}?\b(?:instead of|rather than|in place of)\b"
            r"|\bprefer\b[^.;!?]{1,60}?\bover\b"
        ),
    ),
    Rule(
        "rename",
        "rename",
        _rx(
            r"\brenam(?:e|ed|ing)\b[^.;!?]{1,80}?\bto\b"
            r"|\b(?:is|are) now (?:called|named)\b"
            r"|\bcall (?:it|them)\b[^.;!?]{1,60}?\binstead of\b"
        ),
    ),
    Rule(
        "instruction.remember",
        "instruction",
        _rx(
            r"^(?:please\s+)?(?:always\s+)?(?:remember|keep in mind|don't forget|do not forget)"
            r"(?:\s+that|:|,)?\s"
        ),
    ),
    Rule(
        "instruction.from_now_on",
        "instruction",
        _rx(r"\b(?:from now on|going forward|henceforth|from here on(?: out)?)\b"),
    ),
    Rule(
        "instruction.always_never",
        "instruction",
        _rx(r"^(?:please\s+)?(?:always|never|do not ever|don't ever)\s+[a-z]"),
        frozenset({USER}),
    ),
)

# An assistant narrating its own next step is not deciding anything.
_ASSISTANT_NARRATION = _rx(
    r"^(?:now,?\s+|first,?\s+|next,?\s+|ok(?:ay)?,?\s+|great,?\s+|perfect!?,?\s+)?"
    r"(?:let me|i'll|i will|i'm going to|i am going to|i need to|i should)\b"
)

_PRONOUN_LEADS = frozenset(
    [
        "it",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "he",
        "she",
        "which",
        "its",
        "it's",
        "there's",
        "here's",
    ]
)
_FUNCTION_WORD_ENDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "to",
        "of",
        "for",
        "with",
        "in",
        "on",
        "at",
        "by",
        "from",
        "as",
        "than",
        "instead",
        "into",
        "via",
        "because",
        "so",
        "if",
        "when",
        "whether",
    ]
)
_QUESTION_LEADS = _rx(
    r"^(?:should|shall|could|would|can|do|does|did|is|are|was|were|will)"
    r"\s+(?:we|i|you|it|they|there)\b(?!\s+(?:not|never)\b)"
)
_BULLET_RE = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_EMPHASIS_RE = re.compile(r"(\*\*|__)(.+?)\1")
_TAG_RE = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?>")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[`]?[A-Z0-9])")
_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_WORD_RE = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"), ("“", "”"))


def split_sentences(text: str) -> list[str]:
    """Sentences of a message: code fences dropped, one line or sentence each."""
    text = _FENCE_RE.sub("\n", text)
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        out.extend(s.strip() for s in _SENTENCE_END_RE.split(line) if s.strip())
    return out


def clean_sentence(sentence: str) -> str:
    """Drop list bullets and paired emphasis, collapse whitespace."""
    text = _BULLET_RE.sub("", sentence)
    text = _EMPHASIS_RE.sub(r"\2", text)
    return " ".join(text.split())


def quality_problem(text: str) -> str | None:
    """Why ``text`` is a fragment rather than a memory, or None when it passes."""
    if len(text) < MIN_CHARS:
        return "too short"
    if len(text) > MAX_CHARS:
        return "too long"
    words = _WORD_RE.findall(text)
    if len(words) < MIN_WORDS:
        return "too few words"
    letters = sum(ch.isalpha() for ch in text)
    if letters < len(text) * 0.5:
        return "mostly symbols or code"
    first = words[0].lower()
    if first in _PRONOUN_LEADS and text.lstrip()[: len(first)].lower() == first:
        return "starts with a pronoun"
    if "?" in text or _QUESTION_LEADS.match(text):
        return "a question"
    if "|" in text:
        return "a table cell"
    stripped = text.lstrip()
    if stripped.startswith(("#", ">", "```", "---", "===")) or "```" in text:
        return "markdown debris"
    if "**" in text or "__" in text or _TAG_RE.search(text) or "](" in text:
        return "markdown debris"
    for opening, closing in _PAIRS:
        if text.count(opening) != text.count(closing):
            return "unbalanced brackets"
    if text.count('"') % 2 or text.count("`") % 2:
        return "unbalanced quotes"
    end = text.rstrip()
    if end.endswith(("…", "...", "-", "–", "—", ",", ";", ":", "(", "/")):
        return "truncated"
    if re.search(r"[\[(](?:truncated|cut|continued)[\])]\s*$", end, re.IGNORECASE):
        return "truncated"
    if end[-1].isalpha() and words[-1].lower() in _FUNCTION_WORD_ENDS:
        return "truncated"  # "… instead of", "… and the": cut off mid-sentence
    if re.search(r"\w['’]$", end):
        return "truncated"  # cut inside a contraction ("we'")
    return None


def match_rule(sentence: str, source: str) -> Rule | None:
    """The first rule that fires on a sentence for this source."""
    if source == ASSISTANT and _ASSISTANT_NARRATION.match(sentence):
        return None
    for rule in RULES:
        if source in rule.sources and rule.pattern.search(sentence):
            return rule
    return None


@dataclass(frozen=True, slots=True)
class Candidate:
    """A proposed decision with its provenance as fields."""

    text: str
    kind: str
    source: str  # "user" | "assistant"
    extractor: str  # the rule id
    session_id: str
    timestamp: str
    project: str  # project identity id ("" when unknown)
    project_label: str
    project_kind: str
    transcript: str
    message_uuid: str
    redacted: bool = False
    tool: str = TOOL

    @property
    def id(self) -> str:
        return text_hash(self.text)

    def to_item(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "kind": self.kind,
            "source": self.source,
            "extractor": self.extractor,
            "session_id": self.session_id,
            "timestamp": self.timestamp,
            "project": self.project,
            "project_label": self.project_label,
            "project_kind": self.project_kind,
            "transcript": self.transcript,
            "message_uuid": self.message_uuid,
            "tool": self.tool,
            "redacted": self.redacted,
        }


@dataclass(frozen=True, slots=True)
class ProjectRef:
    id: str = ""
    kind: str = ""
    label: str = ""


def _redact(text: str) -> str:
    from memoir_tui.core.format.secrets import redact

    return redact(text)


def extract_from_message(
    message: Message, *, project: ProjectRef | None = None, redact: Callable[[str], str] = _redact
) -> list[Candidate]:
    """Candidates in one message; every text has been through ``redact``."""
    if message.source not in (USER, ASSISTANT):
        return []
    project = project or ProjectRef()
    # Our own brief or pinned block quoted back is what we already hold, not news.
    spoken = strip_ours(message.text)
    safe = redact(spoken)
    had_secret = safe != spoken
    out: list[Candidate] = []
    seen: set[str] = set()
    for sentence in split_sentences(safe):
        text = clean_sentence(sentence)
        rule = match_rule(text, message.source)
        if rule is None:
            continue
        text = redact(text)  # idempotent; a scanner may see more in the cleaned text
        if quality_problem(text) is not None:
            continue
        key = text_hash(text)
        if key in seen:
            continue
        seen.add(key)
        out.append(
            Candidate(
                text=text,
                kind=rule.kind,
                source=message.source,
                extractor=rule.id,
                session_id=message.session_id,
                timestamp=message.timestamp,
                project=project.id,
                project_label=redact(project.label) if project.label else "",
                project_kind=project.kind,
                transcript=message.transcript,
                message_uuid=message.uuid,
                redacted=had_secret and REDACTION_MARK in text,
            )
        )
    return out


def extract_candidates(
    messages: Iterable[Message],
    *,
    project_of: Callable[[str], ProjectRef] | None = None,
    redact: Callable[[str], str] = _redact,
) -> list[Candidate]:
    """Candidates of many messages, first occurrence of each identity kept."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for message in messages:
        project = project_of(message.cwd) if project_of is not None else None
        for candidate in extract_from_message(message, project=project, redact=redact):
            if candidate.id not in seen:
                seen.add(candidate.id)
                out.append(candidate)
    return out
