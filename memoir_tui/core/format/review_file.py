"""The review queue's file, ``review.json``: its items, merge rule, reading and encoding.

Captured candidates wait in the queue until a person pins or rejects them
(the service is ``core.review.ReviewQueue``). This module is the format only:
the door (``core.transaction``) reads and writes the file through it, and sync
merges replicas with ``merge_review`` under the session's rules (FORMAT §4):
union by identity (the text's ``text_hash``), one winner per identity chosen on
a total order, so the merge is commutative, associative and idempotent;
tombstones are sticky.

An item's ``state`` moves one way: ``candidate`` → ``pinned`` or
``rejected``. In a merge the furthest state wins whatever the dates
(``rejected`` > ``pinned`` > ``candidate``: a person's "no" is never undone by
a stale replica), then the newer date of that state, then canonical JSON. A
rejected item is a tombstone: the same text is never proposed again.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.identity import (
    PURGED_TEXT,
    canonical_json,
    is_text_hash,
    iso_now,
    parse_date_ms,
    text_hash,
)
from memoir_tui.core.format.items import (
    is_purged,
)
from memoir_tui.core.format.session import quarantine_copy

REVIEW_VERSION = 1

CANDIDATE = "candidate"
PINNED = "pinned"
REJECTED = "rejected"
STATES = (CANDIDATE, PINNED, REJECTED)
_RANK = {CANDIDATE: 0, PINNED: 1, REJECTED: 2}
STATE_DATE = {CANDIDATE: "captured_at", PINNED: "pinned_at", REJECTED: "rejected_at"}

NEAR_HIDDEN_THRESHOLD = 85.0
SHORT_ID = 10  # hex characters shown for an id; any unique prefix of 4+ is accepted
MIN_PREFIX = 4  # hex characters of an id a person may type


class NearHiddenError(MemoirError):
    """Pinning refused: the text is close to a hidden decision (pass force to pin anyway)."""

    def __init__(self, match: NearHidden) -> None:
        shown = "a purged decision" if match.purged else f"the hidden decision {match.text!r}"
        super().__init__(
            f"this candidate is close to {shown} (score {match.score:.0f}); a person chose to "
            "forget that. Pin with force to bring it back anyway, or reject the candidate."
        )
        self.match = match


class CandidateStateError(MemoirError):
    """The item is not a candidate any more (already pinned or rejected)."""


@dataclass(frozen=True, slots=True)
class ReviewCaps:
    """Bounds of the queue; tombstones outlive candidates by far."""

    candidates: int = 1000
    pinned: int = 5000
    rejected: int = 10000


DEFAULT_REVIEW_CAPS = ReviewCaps()


# --- pure rules ---------------------------------------------------------------------


def empty_review() -> dict[str, Any]:
    return {"version": REVIEW_VERSION, "items": []}


def item_key(item: Mapping[str, Any]) -> str:
    """An item's identity: the ``text_hash`` of its text (as a decision's identity).

    A purged item keeps only that hash (as ``text_hash``), like a purged decision."""
    if item.get("purged") is True and is_text_hash(item.get("text_hash")):
        return item["text_hash"]
    return text_hash(item["text"])


def loaded_key(item: Mapping[str, Any]) -> str:
    """``item_key`` of an item of a queue ``load_review`` gave: the merge wrote it as
    the item's ``id`` (and a purge's redaction keeps it), so it is not hashed again."""
    key = item.get("id")
    return key if isinstance(key, str) and key else item_key(item)


# Fields of a queue item that can hold memory text, which a purge must remove.
_TEXT_FIELDS = ("text", "pinned_text")


def purged_item(item: Mapping[str, Any], now: str) -> dict[str, Any]:
    """The redacted form of a queue item whose decision was purged: only the hash stays.

    A waiting candidate becomes rejected: forgotten text can never be pinned."""
    out = {k: v for k, v in item.items() if k not in _TEXT_FIELDS}
    out.update(text=PURGED_TEXT, text_hash=item_key(item), purged=True)
    if state_of(item) == CANDIDATE:
        out.update(state=REJECTED, rejected_at=now)
    return out


def well_formed_review_items(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [i for i in value if isinstance(i, dict) and isinstance(i.get("text"), str)]


def state_of(item: Mapping[str, Any]) -> str:
    state = item.get("state")
    return state if state in _RANK else CANDIDATE


def _winner_key(item: Mapping[str, Any]) -> tuple[bool, int, int, str]:
    # A purged copy wins whatever its state or date, so purged text never returns.
    state = state_of(item)
    purged = item.get("purged") is True
    return purged, _RANK[state], parse_date_ms(item.get(STATE_DATE[state])), canonical_json(item)


def _sort_key(item: Mapping[str, Any]) -> tuple[int, int, str]:
    state = state_of(item)
    return _RANK[state], -parse_date_ms(item.get(STATE_DATE[state])), canonical_json(item)


def contributes_to_review_merge(state: Any) -> bool:
    """A review file from a newer version (or not an object) contributes nothing."""
    if not isinstance(state, dict):
        return False
    v = state.get("version", REVIEW_VERSION)
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
        return True
    return v <= REVIEW_VERSION


def merge_review(
    a: Mapping[str, Any], b: Mapping[str, Any], *, caps: ReviewCaps = DEFAULT_REVIEW_CAPS
) -> dict[str, Any]:
    """Merge two replicas of ``review.json``; pure, mutates neither input.

    Union by identity; per identity the furthest state wins, then the newer
    date of that state, then canonical JSON (a total order, so the result does
    not depend on argument order). Each state has its own cap, newest kept.
    Unknown top-level keys survive (canonical maximum when both sides have one).
    """
    sides = [s for s in (a, b) if contributes_to_review_merge(s)]
    return _merge_sides(sides, caps=caps, owned=False)


def _json_copy(value: Any) -> Any:
    """A deep copy of a JSON tree (dicts, lists, scalars): ``copy.deepcopy``'s result,
    without its memo bookkeeping; anything else is handed to ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: _json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_copy(v) for v in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return copy.deepcopy(value)


def _merge_sides(
    sides: Sequence[Mapping[str, Any]], *, caps: ReviewCaps, owned: bool
) -> dict[str, Any]:
    """``merge_review`` of the contributing ``sides``. With ``owned`` the caller hands
    over trees nobody else holds (a file just parsed): its items are used, not copied.

    The order is ``merge_review``'s total order; the canonical JSON that breaks its
    ties is computed only for the items that tie on state and date (a file read back
    holds one copy per identity, and few items share a date to the millisecond)."""
    out: dict[str, Any] = {"version": REVIEW_VERSION}
    copies: dict[str, list[dict[str, Any]]] = {}
    for side in sides:
        for item in well_formed_review_items(side.get("items")):
            if not owned:
                item = _json_copy(item)
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
    winners = _in_merge_order(
        [
            _scrub_near_hidden(c[0] if len(c) == 1 else max(c, key=_winner_key), purged_keys)
            for c in copies.values()
        ]
    )
    limits = {CANDIDATE: caps.candidates, PINNED: caps.pinned, REJECTED: caps.rejected}
    counts = dict.fromkeys(STATES, 0)
    items = []
    for item in winners:
        state = state_of(item)
        counts[state] += 1
        if counts[state] <= limits[state]:
            items.append(item)
    out["items"] = items
    updated = [s.get("updated_at") for s in sides if isinstance(s.get("updated_at"), str)]
    if updated:
        out["updated_at"] = max(updated, key=lambda d: (parse_date_ms(d), d))
    known = {"version", "items", "updated_at"}
    for side in sides:
        for key in sorted(set(side) - known):
            value = side[key] if owned and len(sides) == 1 else _json_copy(side[key])
            if key not in out or canonical_json(value) > canonical_json(out[key]):
                out[key] = value
    return {k: out[k] for k in sorted(out)}


def _in_merge_order(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``sorted(items, key=_sort_key)``, with the canonical JSON of an item computed
    only when it ties with another on (state, date): within a tie it decides."""

    def head(item: Mapping[str, Any]) -> tuple[int, int]:
        state = state_of(item)
        return _RANK[state], -parse_date_ms(item.get(STATE_DATE[state]))

    keyed = sorted(((head(i), n) for n, i in enumerate(items)), key=lambda k: k[0])
    ordered = [items[n] for _, n in keyed]
    start = 0
    while start < len(keyed):
        end = start + 1
        while end < len(keyed) and keyed[end][0] == keyed[start][0]:
            end += 1
        if end - start > 1:
            ordered[start:end] = sorted(ordered[start:end], key=canonical_json)
        start = end
    return ordered


def _scrub_near_hidden(item: dict[str, Any], purged_keys: set[str]) -> dict[str, Any]:
    """A near-hidden note naming a purged decision keeps its hash, never its text."""
    near = item.get("near_hidden")
    if isinstance(near, dict) and near.get("key") in purged_keys:
        item = {**item, "near_hidden": {**near, "text": PURGED_TEXT, "purged": True}}
    return item


def session_purged_keys(session: Any) -> set[str]:
    """The identity hashes of the purged decisions a session holds (its tombstones)."""
    if not isinstance(session, Mapping):
        return set()
    current = session.get("current")
    decisions = current.get("decisions") if isinstance(current, Mapping) else None
    return {
        d["text_hash"]
        for d in (decisions if isinstance(decisions, list) else [])
        if isinstance(d, Mapping) and is_purged(d)
    }


def purged_in_session(review_file: Path) -> set[str]:
    """The purged decisions of the ``session.json`` beside ``review_file`` (a regular
    file only; an unreadable session purges nothing)."""
    from memoir_tui.core.base.fsutil import NotRegularFileError
    from memoir_tui.core.format.session import SESSION_FILE, read_store_file

    try:
        data = read_store_file(review_file.with_name(SESSION_FILE))
        return session_purged_keys(json.loads(data.decode("utf-8"))) if data else set()
    except (NotRegularFileError, ValueError, UnicodeDecodeError, RecursionError):
        return set()


def redact_purged(state: dict[str, Any], purged: set[str], now: str) -> bool:
    """Drop the text of every queue item that is a purged decision (by ``text`` or
    ``pinned_text``) or names one as near-hidden. In place; True if anything changed.

    A purge writes the session and the queue in one commit, but a purge made elsewhere
    (the JavaScript tool, another machine) or killed between two commits reaches only
    the session: the queue must still never carry the text on, to the next sync."""
    if not purged:
        return False
    changed = False
    items = well_formed_review_items(state.get("items"))
    for n, item in enumerate(items):
        pinned = item.get("pinned_text")
        hit = item_key(item) in purged or (isinstance(pinned, str) and text_hash(pinned) in purged)
        if hit and item.get("purged") is not True:
            items[n] = item = purged_item(item, now)
            changed = True
        near = item.get("near_hidden")
        if isinstance(near, dict) and near.get("key") in purged and near.get("purged") is not True:
            items[n] = {**item, "near_hidden": {**near, "text": PURGED_TEXT, "purged": True}}
            changed = True
    if changed:
        state["items"] = items
    return changed


def purge_from_review(state: dict[str, Any], key: str, clock: Callable[[], str]) -> bool:
    """After a decision is purged: remove its text from every queue item that holds it.

    Changes ``state`` in place (the transaction's queue); True if anything changed.
    ``clock`` is asked only when a waiting candidate becomes rejected.
    """
    changed = False
    items = well_formed_review_items(state.get("items"))
    for n, item in enumerate(items):
        if item_key(item) == key and item.get("purged") is not True:
            items[n] = purged_item(item, clock())
            changed = True
        near = item.get("near_hidden")
        if isinstance(near, dict) and near.get("key") == key and near.get("purged") is not True:
            items[n] = {**items[n], "near_hidden": {**near, "text": PURGED_TEXT, "purged": True}}
            changed = True
    if changed:
        state["items"] = items
    return changed


# --- near-hidden ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NearHidden:
    """The hidden decision a candidate resembles."""

    key: str  # the hidden decision's identity hash
    text: str  # its text, or "[purged]"
    score: float  # 100 for the same identity
    hidden_at: str
    purged: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "text": self.text,
            "score": round(self.score, 1),
            "hidden_at": self.hidden_at,
            "purged": self.purged,
        }

    @classmethod
    def from_dict(cls, value: Any) -> NearHidden | None:
        if not isinstance(value, Mapping) or not is_text_hash(value.get("key")):
            return None
        score = value.get("score")
        return cls(
            key=value["key"],
            text=text if isinstance(text := value.get("text"), str) else PURGED_TEXT,
            score=float(score) if isinstance(score, int | float) else 0.0,
            hidden_at=hidden_at if isinstance(hidden_at := value.get("hidden_at"), str) else "",
            purged=bool(value.get("purged")),
        )


# --- views ---------------------------------------------------------------------------


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """One queue item as the faces show it."""

    id: str
    text: str
    state: str
    kind: str
    source: str  # "user" | "assistant"
    extractor: str
    session_id: str
    timestamp: str
    project: str
    project_label: str
    transcript: str
    captured_at: str
    pinned_at: str = ""
    rejected_at: str = ""
    redacted: bool = False
    near_hidden: NearHidden | None = None

    @property
    def short_id(self) -> str:
        return self.id[:SHORT_ID]

    @property
    def assistant_sourced(self) -> bool:
        return self.source != "user"

    @property
    def badges(self) -> tuple[str, ...]:
        """Provenance badges, always including who said it."""
        out = ["[user]" if self.source == "user" else "[assistant]"]
        if self.near_hidden is not None:
            out.append("[near-hidden]")
        if self.redacted:
            out.append("[redacted]")
        if self.state != CANDIDATE:
            out.append(f"[{self.state}]")
        return tuple(out)

    @classmethod
    def from_dict(
        cls, item: Mapping[str, Any], near_hidden: Any = ..., *, key: str | None = None
    ) -> ReviewItem:
        """The item as stored; ``near_hidden`` (a ``NearHidden`` or None) replaces the
        stored note, as a fresh check gives it; ``key`` is its ``item_key`` if known."""
        source = _str(item.get("source"))
        return cls(
            id=item_key(item) if key is None else key,
            text=item["text"],
            state=state_of(item),
            kind=_str(item.get("kind")) or "decision",
            # Anything not positively a person's words is shown as assistant-sourced.
            source=source if source == "user" else "assistant",
            extractor=_str(item.get("extractor")),
            session_id=_str(item.get("session_id")),
            timestamp=_str(item.get("timestamp")),
            project=_str(item.get("project")),
            project_label=_str(item.get("project_label")),
            transcript=_str(item.get("transcript")),
            captured_at=_str(item.get("captured_at")),
            pinned_at=_str(item.get("pinned_at")),
            rejected_at=_str(item.get("rejected_at")),
            redacted=item.get("redacted") is True,
            near_hidden=NearHidden.from_dict(item.get("near_hidden"))
            if near_hidden is ...
            else near_hidden,
        )


# --- the file ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LoadedReview:
    state: dict[str, Any]
    path: Path
    read_only: bool = False
    notice: str | None = None
    backup: Path | None = None
    damaged: bool = False  # unparseable: read as empty, original bytes kept or untouched
    redacted: bool = False  # items of decisions the session purged lost their text on reading


def load_review(path: str | Path, *, quarantine: bool = False) -> LoadedReview:
    """Missing → empty; unparseable → empty; newer version → read-only.

    With ``quarantine`` (a writer about to replace the file) an unparseable
    file is first copied aside as ``review.json.corrupted-<ms>``.
    """
    from memoir_tui.core.base.fsutil import NotRegularFileError
    from memoir_tui.core.format.session import not_regular_notice, read_store_file

    path = Path(path)
    try:
        raw = read_store_file(path)
    except NotRegularFileError as err:
        # never read, never written over (a FIFO would block every command for ever)
        return LoadedReview(
            empty_review(), path, read_only=True, notice=not_regular_notice(path, err), damaged=True
        )
    if raw is None:
        return LoadedReview(empty_review(), path)
    try:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except (ValueError, UnicodeDecodeError, RecursionError):
        if not quarantine:
            return LoadedReview(
                empty_review(),
                path,
                notice=f"{path} cannot be read (not a review queue); it is left as it is",
                damaged=True,
            )
        backup = quarantine_copy(path, "corrupted", raw)
        return LoadedReview(
            empty_review(),
            path,
            notice=f"{path} could not be read; its bytes were kept as {backup.name}",
            backup=backup,
            damaged=True,
        )
    if not contributes_to_review_merge(data):
        return LoadedReview(
            empty_review(),
            path,
            read_only=True,
            notice=f"{path} is from a newer memoir-tui; the review queue is read-only",
        )
    # one side: the same result as merge_review(data, data); the tree was just parsed, so
    # its items are taken over rather than copied
    state = _merge_sides([data], caps=DEFAULT_REVIEW_CAPS, owned=True)
    # a purged decision's text never comes back out of the queue (see redact_purged)
    redacted = redact_purged(state, purged_in_session(path), iso_now())
    return LoadedReview(state, path, redacted=redacted)


def encode_review(state: Mapping[str, Any]) -> bytes:
    return (json.dumps(state, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


# --- the service ---------------------------------------------------------------------
