"""The shared vocabulary of the store: item shapes, item predicates, text rules, outcomes.

Everything here is a name that several layers need — the session file, the
merge, the store and its services, the faces — so it lives below all of
them and imports none of them. (It used to be spread over ``merge``,
``session`` and ``store``, which made ``merge ↔ session`` and
``store ↔ review`` import cycles hidden by function-level imports.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memoir_tui.core.base.errors import EmptyTextError, InvalidDateError, TextTooLongError
from memoir_tui.core.format.identity import (
    PURGED_TEXT,
    is_iso_date,
    is_text_hash,
    iso_now,
    js_trim,
    parse_date_ms,
    text_hash,
)
from memoir_tui.core.format.textsafe import clean_input

SESSION_VERSION = 1

# Each list of ``current`` and the field that says how recent an item is.
DATE_FIELDS: dict[str, str] = {
    "goals": "set_on",
    "next_actions": "added",
    "open_questions": "asked",
    "decisions": "date",
    "completed_actions": "done_at",
}
# Every list today's JavaScript memoir keeps in ``current`` (FORMAT-LATEST §1–5), in the
# order it writes them: a read fills the missing ones, so a write of ours has them all.
LIST_KEYS = (
    "goals",
    "next_actions",
    "parked_actions",
    "open_questions",
    "decisions",
    "completed_actions",
    "completed_goals",
    "archived_decisions",
    "archived_goals",
    "archived_questions",
)
LIVE_LISTS = ("goals", "next_actions", "open_questions", "decisions")
# Where a list's overflow goes instead of being dropped (FORMAT-LATEST §4–5).
OVERFLOW_LIST = {
    "goals": "archived_goals",
    "next_actions": "parked_actions",
    "open_questions": "archived_questions",
    "decisions": "archived_decisions",
}
# The list an archive or the parked list belongs to, and its date field.
HOME_LIST = {overflow: live for live, overflow in OVERFLOW_LIST.items()}

MAX_TEXT_BYTES = 8 * 1024

# What a store transaction declares it touches (``core.transaction``).
SESSION = "session"  # session.json (also takes the JavaScript tool's lock)
REVIEW = "review"  # review.json, the queue of captured candidates
REVIEW_FILE = "review.json"
FILES = "files"  # entry files, MEMORY.md, the trash, host files, the store's small files


def empty_session(now: str | None = None) -> dict[str, Any]:
    """A valid session with nothing in it."""
    stamp = now or iso_now()
    return {
        "version": SESSION_VERSION,
        "created_at": stamp,
        "updated_at": stamp,
        "machines": {},
        "current": {key: [] for key in LIST_KEYS},
        "history": [],
    }


# --- item predicates -----------------------------------------------------------------


def dict_field(parent: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` itself when it is a dict (so writes to it land in ``parent``),
    else a new empty dict: a missing or damaged field reads as empty."""
    value = parent.get(key)
    return value if isinstance(value, dict) else {}


def list_field(parent: Mapping[str, Any], key: str) -> list[Any]:
    """``parent[key]`` itself when it is a list, else a new empty list."""
    value = parent.get(key)
    return value if isinstance(value, list) else []


def current_of(state: Mapping[str, Any]) -> dict[str, Any]:
    """A session's ``current`` mapping, or an empty dict when it is missing or damaged."""
    return dict_field(state, "current")


def well_formed_items(value: Any) -> list[dict[str, Any]]:
    """The well-formed items of a list: dicts whose ``text`` is a string."""
    if not isinstance(value, list):
        return []
    return [i for i in value if isinstance(i, dict) and isinstance(i.get("text"), str)]


def has_text(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("text"), str)


def is_hidden(item: Mapping[str, Any]) -> bool:
    """Hidden is honoured when truthy, as the JavaScript tool does."""
    return bool(item.get("hidden")) or is_purged(item)


def is_purged(item: Mapping[str, Any]) -> bool:
    return is_text_hash(item.get("text_hash"))


def decision_key(item: Mapping[str, Any]) -> str:
    """A decision's identity as a hash, so purged and plain copies meet."""
    h = item.get("text_hash")
    if is_text_hash(h):
        return h
    return text_hash(item["text"])


def identity_key(item: Mapping[str, Any]) -> str:
    """An item's identity as the JavaScript tool keys it (FORMAT-LATEST §6): its text hash,
    plus its project when it has one — the same words in two projects are two items."""
    project = item.get("project")
    suffix = f":{project}" if project else ""
    return f"sha256:{decision_key(item)}{suffix}"


def purged_form(item: Mapping[str, Any]) -> dict[str, Any]:
    """The redacted shape of a purged decision: text, why and rejected gone, hash kept."""
    out = {k: v for k, v in item.items() if k not in ("why", "rejected")}
    out["text"] = PURGED_TEXT
    out["hidden"] = True
    return out


# --- words for people --------------------------------------------------------------------


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 tombstone``, ``2 tombstones``, ``0 decisions``."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def readable_date(value: Any) -> str:
    """An ISO date-time as a person reads it in a sentence: ``1 Jul 2026, 09:00 UTC``;
    a bare date as ``1 Jul 2026``; anything else as given."""
    from datetime import UTC, datetime

    if not is_iso_date(value):
        return str(value or "")
    ms = parse_date_ms(value)
    when = datetime.fromtimestamp(ms / 1000, tz=UTC)
    day = f"{when.day} {when:%b %Y}"
    return day if len(str(value).strip()) <= 10 else f"{day}, {when:%H:%M} UTC"


# --- filtering ---------------------------------------------------------------------------


def folded(text: str) -> str:
    """Case- and accent-insensitive form for matching ("Crème" and "creme" meet)."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def matches_words(query: str, *fields: str) -> bool:
    """Every word of ``query`` appears in one of ``fields``, in any order, ignoring case
    and accents (the filter every list uses)."""
    words = folded(query).split()
    if not words:
        return True
    haystack = "\n".join(folded(f) for f in fields if f)
    return all(w in haystack for w in words)


# --- text a person or a model hands us --------------------------------------------------


def clean_text(text: Any, what: str = "text", *, required: bool = True) -> str:
    """The door for every item's text, whatever face hands it in (the app, the CLI,
    MCP): control and bidi characters stripped and line breaks folded
    (``textsafe.clean_input``: an item's text, why, rejected … is one line); then
    empty, whitespace-only, oversized and secret-bearing text is refused. Returns it
    trimmed."""
    if text is None and not required:
        return ""
    if not isinstance(text, str):
        raise EmptyTextError(f"{what} must be a string")
    cleaned = js_trim(clean_input(text))
    if not cleaned:
        if required:
            raise EmptyTextError(f"{what} is empty; give some text")
        return ""
    if len(cleaned.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise TextTooLongError(f"{what} is longer than {MAX_TEXT_BYTES // 1024} KB; shorten it")
    # Memory is copied into instruction files and synced: a secret never goes in.
    from memoir_tui.core.format.secrets import (
        ensure_no_secrets,  # its patterns cost ~25 ms to build
    )

    ensure_no_secrets(cleaned, what)
    return cleaned


# Where an auto-captured decision came from, kept as fields of its own (FORMAT §7: never
# a prefix on ``why``).
PROVENANCE_FIELDS = (
    "source",
    "extractor",
    "session_id",
    "timestamp",
    "project",
    "project_label",
    "transcript",
    "tool",
    "captured_at",
)


def clean_provenance(provenance: Mapping[str, Any] | None) -> dict[str, str]:
    """Known provenance fields as short strings; anything else is not kept."""
    out: dict[str, str] = {}
    for key in PROVENANCE_FIELDS:
        value = (provenance or {}).get(key)
        if isinstance(value, str) and value.strip():
            out[key] = clean_text(value, key)
    if out.get("source") not in (None, "user", "assistant"):
        raise EmptyTextError("provenance source must be 'user' or 'assistant'")
    return out


def validity_window(valid_from: str | None, valid_until: str | None) -> dict[str, str]:
    """The optional ``valid_from``/``valid_until`` pair, checked as ISO dates."""
    window: dict[str, str] = {}
    for name, value in (("valid_from", valid_from), ("valid_until", valid_until)):
        if value is None or value == "":
            continue
        if not is_iso_date(value):
            raise InvalidDateError(f"{name} must be an ISO 8601 date, got {value!r}")
        window[name] = value.strip()
    if len(window) == 2 and parse_date_ms(window["valid_until"]) < parse_date_ms(
        window["valid_from"]
    ):
        raise InvalidDateError("valid_until is before valid_from")
    return window


# Each live list, the tombstone list that takes its items out (temporal: an item dated
# at or before the tombstone's ``done_at`` is gone; a later re-add is a revival), and
# the noun people read.
TOMBSTONE_LIST = {
    "goals": "completed_goals",
    "next_actions": "completed_actions",
    "open_questions": "closed_questions",
}
NOUNS = {"goals": "goal", "next_actions": "next action", "open_questions": "question"}


# --- what a change did -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Undo:
    """How to take a change back: a store operation (``Store.undo`` runs it) and its
    arguments. ``steps`` chains several (a pin: retract the decision, requeue)."""

    op: str
    label: str  # what undoing does, in words ("reopen: Write the changelog")
    args: tuple[tuple[str, Any], ...] = ()
    steps: tuple[Undo, ...] = ()

    def arg(self, name: str, default: Any = None) -> Any:
        return dict(self.args).get(name, default)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a change did, for the face to show: a sentence, the item's key, what rotated,
    and how to take it back (``undo`` is None when it cannot be: hide, purge)."""

    changed: bool
    message: str
    key: str = ""
    rotated: tuple[str, ...] = ()  # texts a full list pushed out to make room
    undo: Undo | None = None
