"""Merging two replicas of a session, as today's JavaScript memoir does (FORMAT-LATEST §4–8).

``merge_sessions`` is a pure function of plain JSON-shaped dicts (and of ``now``, the
stamp a newly parked action gets). Every list is pooled with its overflow list —
goals with ``archived_goals``, next actions with ``parked_actions``, questions with
``archived_questions``, decisions with ``archived_decisions`` — so nothing either side
wrote is lost, and re-split at the end by the caps (``partition``): the caps decide
only what is live.

Identity is the JavaScript tool's key: the text hash plus the item's ``project``, so
the same words in two projects are two items (``items.identity_key``). Per identity:

* the copy with the later date wins whole; equal dates are broken by canonical JSON
  (FORMAT §7: the JavaScript tool lets the first side met win, so its merge is not
  commutative on ties — ours is);
* tombstones are sticky: a purged copy (``text_hash``) beats every copy of its
  identity, whatever the dates; otherwise any hidden copy hides the newest copy, with
  the earliest ``hidden_at``;
* the cross-scope rule: an unscoped live winner goes when a hidden copy of the same
  words exists in some project (a scoped hiding hides the unscoped copy too);
* completion tombstones (``completed_actions``, ``completed_goals``; and this
  project's ``closed_questions`` and ``retracted_decisions``) are keyed the same way
  and suppress every copy dated at or before them; a later re-add is a revival. A
  hidden copy is never suppressed: its hiding must keep spreading (the JavaScript
  tool drops it, which lets a later re-add come back live).

Where we differ from the JavaScript merge, we keep more: unknown keys in ``current``
and at the top level are merged (text lists by identity, other values by canonical
maximum) instead of taken from one side or dropped. Nothing is capped but what is
live: tombstones and history are unbounded, as the JavaScript tool keeps them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memoir_tui.core.format.identity import canonical_json, is_text_hash, iso_now, parse_date_ms
from memoir_tui.core.format.items import (
    LIST_KEYS,
    SESSION_VERSION,
    current_of,
    decision_key,
    empty_session,
    identity_key,
    is_hidden,
    is_purged,
    list_field,
    purged_form,
)

# Lists this project keeps beside the JavaScript tool's (it passes them through).
EXTENSION_LISTS = ("closed_questions", "retracted_decisions")
KNOWN_CURRENT_KEYS = frozenset({*LIST_KEYS, *EXTENSION_LISTS})
KNOWN_TOP_KEYS = frozenset(
    {"version", "created_at", "updated_at", "machines", "current", "history"}
)

# (live list, its overflow list, date field) — the pairs partitioned by the caps.
ARCHIVED = (
    ("decisions", "archived_decisions", "date"),
    ("goals", "archived_goals", "set_on"),
    ("open_questions", "archived_questions", "asked"),
)


@dataclass(frozen=True, slots=True)
class Caps:
    """How many items of each list are live; the rest are archived or parked, never
    dropped. The tombstone and history fields are kept for old configs and not applied:
    tombstones and history are unbounded, as the JavaScript tool keeps them."""

    goals: int = 5
    next_actions: int = 20
    open_questions: int = 10
    decisions: int = 50
    hidden_decisions: int = 1000
    completed_actions: int = 1000
    history: int = 200

    def __post_init__(self) -> None:
        if self.hidden_decisions < 1000 or self.completed_actions < 1000:
            raise ValueError(
                "tombstone budgets must be at least 1000 so tombstones outlive replicas"
            )
        for name in ("goals", "next_actions", "open_questions", "decisions", "history"):
            if getattr(self, name) < 1:
                raise ValueError(f"cap {name} must be at least 1")


DEFAULT_CAPS = Caps()
# The JavaScript tool's visible caps (FORMAT-LATEST §3).
JS_CAPS = Caps(goals=3, next_actions=8, open_questions=5, decisions=10)


# --- small pure helpers ----------------------------------------------------


def _date_key(item: Mapping[str, Any], date_field: str) -> tuple[int, str, str]:
    # Where a full list put an item (``parked_at``) is not its content: it must not
    # decide the order, or a merge of a merge would reorder what it parked.
    placed = {k: v for k, v in item.items() if k != "parked_at"}
    return parse_date_ms(item.get(date_field)), canonical_json(placed), canonical_json(item)


def _newest(copies: Iterable[dict[str, Any]], date_field: str) -> dict[str, Any]:
    """The copy with the newest date; equal dates broken by canonical JSON."""
    return max(copies, key=lambda c: _date_key(c, date_field))


def sort_newest_first(items: Iterable[dict[str, Any]], date_field: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda c: _date_key(c, date_field), reverse=True)


def _group(
    items: Iterable[dict[str, Any]], key: Callable[[dict[str, Any]], str]
) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def keyed_items(value: Any) -> list[dict[str, Any]]:
    """The items of a list that have an identity (a ``text`` or a ``text_hash``); the
    JavaScript tool drops the others on merge [S 604–605]."""
    if not isinstance(value, list):
        return []
    return [
        i
        for i in value
        if isinstance(i, dict)
        and (
            (isinstance(i.get("text"), str) and i["text"] != "") or is_text_hash(i.get("text_hash"))
        )
        and isinstance(i.get("text", ""), str)
    ]


def item_key(item: Mapping[str, Any]) -> str:
    """An item's identity (text hash and project)."""
    if not isinstance(item.get("text"), str):
        item = {**item, "text": ""}
    return identity_key(item)


def _max_value(a: Any, b: Any) -> Any:
    return a if canonical_json(a) >= canonical_json(b) else b


def _content_key(item: Mapping[str, Any], date_field: str = "date") -> tuple[int, str]:
    # The winner is chosen on content alone (hidden flags stripped) so that merging in
    # any order picks the same copy: associativity needs it.
    content = {k: v for k, v in item.items() if k not in ("hidden", "hidden_at", "parked_at")}
    return parse_date_ms(item.get(date_field)), canonical_json(content)


def _hidden_at_key(item: Mapping[str, Any]) -> tuple[int, str]:
    return parse_date_ms(item.get("hidden_at")), canonical_json(item.get("hidden_at"))


def _earliest_purged(copies: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The purged form, if any copy is purged: it wins whatever the dates, so the
    redacted text can never come back; among purged copies the earliest hiding wins."""
    purged = [purged_form(c) for c in copies if is_purged(c)]
    if not purged:
        return None
    return min(purged, key=lambda c: (_hidden_at_key(c), canonical_json(c)))


def _with_hiding(winner: Mapping[str, Any], hidden: list[dict[str, Any]]) -> dict[str, Any]:
    """``winner`` hidden by the earliest of the ``hidden`` copies."""
    out = dict(winner)
    earliest = min(hidden, key=_hidden_at_key)
    out["hidden"] = True
    if "hidden_at" in earliest:
        out["hidden_at"] = earliest["hidden_at"]
    else:
        out.pop("hidden_at", None)
    return out


def _merge_copies(copies: list[dict[str, Any]], date_field: str) -> dict[str, Any]:
    purged = _earliest_purged(copies)
    if purged is not None:
        return purged
    hidden = [c for c in copies if is_hidden(c)]
    if not hidden:
        return _newest(copies, date_field)
    # The newest copy inherits the hiding (FORMAT §4.3, FORMAT-LATEST §6 step 3); a
    # hidden winner keeps its own ``hidden_at``, as the JavaScript tool keeps it.
    best = max(_content_key(c, date_field) for c in copies)
    tied = [c for c in copies if _content_key(c, date_field) == best]
    tied_hidden = [c for c in tied if is_hidden(c)]
    if tied_hidden:
        first_hidden = min(tied_hidden, key=lambda c: (_hidden_at_key(c), canonical_json(c)))
        return dict(first_hidden)
    return _with_hiding(max(tied, key=canonical_json), hidden)


# --- the union of one list ------------------------------------------------------


def union_items(items: Iterable[dict[str, Any]], date_field: str) -> list[dict[str, Any]]:
    """One copy per identity (sticky tombstones, the cross-scope rule), newest first with
    every tombstone after the live items: the JavaScript tool's ``unionByText`` without
    a cap."""
    pool = keyed_items(list(items))
    groups = _group(pool, item_key)
    scoped_hidden = {
        decision_key(i) for i in pool if is_hidden(i) and i.get("project") and _has_identity(i)
    }
    winners = {}
    for key, copies in groups.items():
        newest = max(copies, key=lambda c: (_content_key(c, date_field), canonical_json(c)))
        if (
            not newest.get("project")
            and not is_hidden(newest)
            and decision_key(newest) in scoped_hidden
        ):
            continue  # a hiding in some project takes the unscoped words out too [S 612–617]
        winners[key] = _merge_copies(copies, date_field)
    ordered = sort_newest_first(winners.values(), date_field)
    return [i for i in ordered if not is_hidden(i)] + [i for i in ordered if is_hidden(i)]


def _has_identity(item: Mapping[str, Any]) -> bool:
    return is_text_hash(item.get("text_hash")) or isinstance(item.get("text"), str)


def union_tombstones(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Completion tombstones: one per identity (the latest ``done_at``), newest first;
    entries without text or ``done_at`` are dropped, as the JavaScript tool does."""
    good = [
        i
        for i in items
        if isinstance(i, dict) and isinstance(i.get("text"), str) and i["text"] and i.get("done_at")
    ]
    winners = [_newest(copies, "done_at") for copies in _group(good, item_key).values()]
    return sort_newest_first(winners, "done_at")


def suppress_completed(
    items: Iterable[dict[str, Any]],
    completed: Iterable[dict[str, Any]],
    date_field: str = "added",
) -> list[dict[str, Any]]:
    """Drop every copy dated at or before its identity's ``done_at``; a later re-add is a
    revival. A hidden one stays: hiding is absolute and must keep spreading."""
    done: dict[str, int] = {}
    for t in completed:
        if isinstance(t, dict) and isinstance(t.get("text"), str):
            key = item_key(t)
            done[key] = max(done.get(key, 0), parse_date_ms(t.get("done_at")))
    kept = []
    for item in items:
        done_at = done.get(item_key(item))
        if (
            done_at is not None
            and not is_hidden(item)
            and parse_date_ms(item.get(date_field)) <= done_at
        ):
            continue
        kept.append(item)
    return kept


def _hash_items(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [i for i in value if isinstance(i, dict) and is_text_hash(i.get("text_hash"))]


def _retraction_key(item: Mapping[str, Any]) -> str:
    project = item.get("project")
    return f"{item['text_hash']}:{project}" if project else item["text_hash"]


def merge_retracted(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Retraction tombstones (``{text_hash, done_at}``): union by identity, newest ``done_at``."""
    groups = _group(items, _retraction_key)
    return sort_newest_first([_newest(c, "done_at") for c in groups.values()], "done_at")


def suppress_retracted(
    decisions: Iterable[dict[str, Any]], retracted: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Drop every visible decision dated at or before its retraction; a hidden or
    purged one stays (hiding is absolute and must keep spreading)."""
    done: dict[str, int] = {}
    for t in retracted:
        if isinstance(t, dict) and is_text_hash(t.get("text_hash")):
            done[_retraction_key(t)] = parse_date_ms(t.get("done_at"))
    if not done:  # nothing retracted (the usual case): no decision's hash is needed
        return list(decisions)
    kept = []
    for d in decisions:
        key = decision_key(d)
        project = d.get("project")
        done_at = done.get(f"{key}:{project}" if project else key)
        if done_at is None and project:
            done_at = done.get(key)  # a retraction written before projects were keyed
        if done_at is not None and not is_hidden(d) and parse_date_ms(d.get("date")) <= done_at:
            continue
        kept.append(d)
    return kept


def merge_history(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with a date, newest first, one per ``session_id`` (else per date, machine and
    the first 50 characters of the summary); the newest copy of a row wins. No cap."""
    rows = [h for h in items if isinstance(h, dict) and h.get("date")]
    rows = sorted(rows, key=lambda h: (parse_date_ms(h.get("date")), canonical_json(h)))
    rows.reverse()
    seen: set[str] = set()
    out = []
    for h in rows:
        sid = h.get("session_id")
        if sid:
            key = f"sid:{sid}"
        else:
            raw_summary = h.get("summary")
            summary = raw_summary if isinstance(raw_summary, str) else ""
            key = canonical_json([h.get("date"), h.get("machine_id"), summary[:50]])
        if key in seen:
            continue
        seen.add(key)
        out.append(h)
    return out


def merge_machines(a: Any, b: Any) -> dict[str, Any]:
    """Per UUID, the later ``last_seen`` wins (ties by canonical JSON)."""
    out: dict[str, Any] = {}
    for side in (a, b):
        if not isinstance(side, dict):
            continue
        for uuid, entry in side.items():
            if uuid in out:
                out[uuid] = max(
                    (out[uuid], entry),
                    key=lambda e: (
                        parse_date_ms(e.get("last_seen")) if isinstance(e, dict) else 0,
                        canonical_json(e),
                    ),
                )
            else:
                out[uuid] = entry
    return {k: out[k] for k in sorted(out)}


def _merge_unknown(
    a: Mapping[str, Any], b: Mapping[str, Any], known: frozenset[str]
) -> dict[str, Any]:
    """Unknown keys: lists of text items union by identity, other values by canonical max."""
    out: dict[str, Any] = {}
    for key in sorted((set(a) | set(b)) - known):
        if key in a and key in b:
            va, vb = a[key], b[key]
            if (
                isinstance(va, list)
                and isinstance(vb, list)
                and _is_text_list(va)
                and _is_text_list(vb)
            ):
                out[key] = _union_unknown_list(va + vb)
            else:
                out[key] = _max_value(va, vb)
        else:
            out[key] = a[key] if key in a else b[key]
    return out


def _is_text_list(value: list[Any]) -> bool:
    return all(isinstance(i, dict) and isinstance(i.get("text"), str) for i in value)


def _union_unknown_list(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # A purged copy beats a plain one of its identity, so an unknown list never
    # brings redacted text back either.
    groups = _group(items, item_key)
    winners = [
        max(copies, key=lambda c: (is_purged(c), canonical_json(c))) for copies in groups.values()
    ]
    return sorted(winners, key=canonical_json)


# --- live and overflow -------------------------------------------------------------


def split_next_actions(
    pool: list[dict[str, Any]], cap: int, now: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The merge's re-split of next actions [S 577–582]: newest first with tombstones
    last, reversed; the last ``cap`` are live (oldest first, no ``parked_at``), the rest
    parked, newest first, keeping their ``parked_at`` or stamped ``now``."""
    ordered = list(reversed(pool))
    live = ordered[-cap:] if len(ordered) > cap else ordered
    parked = ordered[: len(ordered) - len(live)]
    live = [{k: v for k, v in a.items() if k != "parked_at"} for a in live]
    parked = [a if a.get("parked_at") else {**a, "parked_at": now} for a in parked]
    parked.reverse()
    return live, parked


def park_overflow(
    live: list[dict[str, Any]], parked: list[dict[str, Any]], cap: int, now: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A write's parking [S 254–300]: when the live list (oldest first, tombstones
    counted) is over ``cap``, its oldest go to the front of ``parked`` stamped
    ``parked_at`` (kept if they had one)."""
    if len(live) <= cap:
        return live, parked
    over = len(live) - cap
    moved = [a if a.get("parked_at") else {**a, "parked_at": now} for a in live[:over]]
    return live[over:], moved + parked


def partition(state: dict[str, Any], caps: Caps) -> dict[str, Any]:
    """Re-cap goals, decisions and questions into live and archived (FORMAT-LATEST §4):
    the union of each pair (dedupe, sticky tombstones, the cross-scope rule, inside one
    file), the newest ``cap`` visible items and every tombstone live, the other
    visible items archived. Questions are stored oldest first (see ``store_order``)."""
    current = state.setdefault("current", {})
    for live_key, archive_key, date_field in ARCHIVED:
        cap = getattr(caps, live_key)
        pool = union_items(
            keyed_items(current.get(live_key)) + keyed_items(current.get(archive_key)),
            date_field,
        )
        visible = [i for i in pool if not is_hidden(i)]
        hidden = [i for i in pool if is_hidden(i)]
        # An entry with no identity is not ours to drop: it stays where it was written.
        strays = unkeyed(current.get(live_key)) + unkeyed(current.get(archive_key))
        current[live_key] = store_order(live_key, visible[:cap] + hidden) + strays
        current[archive_key] = visible[cap:]
    return state


def unkeyed(value: Any) -> list[Any]:
    """The entries of a list that have no identity (kept as they are, never merged)."""
    if not isinstance(value, list):
        return []
    keyed = {id(i) for i in keyed_items(value)}
    return [i for i in value if id(i) not in keyed]


def store_order(list_key: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The order a list is stored in. Goals and decisions newest first, tombstones last
    (as the JavaScript tool writes them). Next actions and questions oldest first with
    tombstones first: memoir 3.12 appends and keeps the *last* items when it trims, so
    this order keeps the newest work (ours too) under it; 3.13+ re-sorts questions
    newest first on its own writes and reads either order."""
    if list_key not in ("open_questions", "next_actions"):
        return items
    date_field = "asked" if list_key == "open_questions" else "added"
    hidden = [i for i in items if is_hidden(i)]
    visible = [i for i in items if not is_hidden(i)]
    return list(reversed(sort_newest_first(hidden, date_field))) + list(
        reversed(sort_newest_first(visible, date_field))
    )


# --- session merge -------------------------------------------------------------


def _version_of(state: Mapping[str, Any]) -> int:
    v = state.get("version")
    if isinstance(v, bool) or not isinstance(v, int | float):
        return 0
    return int(v) if v == v else 0  # NaN is no version


def contributes_to_merge(state: Any) -> bool:
    """A state from a newer format version (or not an object) contributes nothing."""
    return isinstance(state, dict) and _version_of(state) <= SESSION_VERSION


def _earliest(a: Any, b: Any) -> Any:
    present = [x for x in (a, b) if isinstance(x, str) and x]
    if not present:
        return None
    return min(present, key=lambda s: (parse_date_ms(s), s))


def _latest(a: Any, b: Any) -> Any:
    present = [x for x in (a, b) if isinstance(x, str) and x]
    if not present:
        return None
    return max(present, key=lambda s: (parse_date_ms(s), s))


def merge_sessions(
    local: dict[str, Any],
    remote: dict[str, Any],
    *,
    caps: Caps = DEFAULT_CAPS,
    now: str | None = None,
) -> dict[str, Any]:
    """Merge two session replicas; pure but for ``now`` (the ``parked_at`` of an action
    the merge parks), mutates neither input."""
    sides = [s for s in (local, remote) if contributes_to_merge(s)]
    if not sides:
        return empty_session()
    stamp = now or iso_now()
    a = copy.deepcopy(sides[0])
    b = copy.deepcopy(sides[1]) if len(sides) > 1 else copy.deepcopy(sides[0])
    ca = current_of(a)
    cb = current_of(b)

    def pooled(*keys: str) -> list[dict[str, Any]]:
        return [i for c in (ca, cb) for key in keys for i in keyed_items(c.get(key))]

    def both(key: str) -> list[Any]:
        return [i for c in (ca, cb) for i in list_field(c, key) if isinstance(i, dict)]

    completed_goals = union_tombstones(both("completed_goals"))
    completed_actions = union_tombstones(both("completed_actions"))
    goals = suppress_completed(
        union_items(pooled("goals", "archived_goals"), "set_on"), completed_goals, "set_on"
    )
    next_pool = suppress_completed(
        union_items(pooled("next_actions", "parked_actions"), "added"), completed_actions
    )
    questions = union_items(pooled("open_questions", "archived_questions"), "asked")
    current: dict[str, Any] = {}
    if "closed_questions" in ca or "closed_questions" in cb:
        current["closed_questions"] = union_tombstones(both("closed_questions"))
        questions = suppress_completed(questions, current["closed_questions"], "asked")
    retracted: list[dict[str, Any]] = []
    if "retracted_decisions" in ca or "retracted_decisions" in cb:
        retracted = merge_retracted(
            _hash_items(ca.get("retracted_decisions")) + _hash_items(cb.get("retracted_decisions"))
        )
        current["retracted_decisions"] = retracted
    decisions = suppress_retracted(
        union_items(pooled("decisions", "archived_decisions"), "date"), retracted
    )
    live_next, parked = split_next_actions(next_pool, caps.next_actions, stamp)

    current.update(
        {
            "goals": goals,
            "archived_goals": [],
            "next_actions": live_next,
            "parked_actions": parked,
            "open_questions": questions,
            "archived_questions": [],
            "decisions": decisions,
            "archived_decisions": [],
            "completed_actions": completed_actions,
            "completed_goals": completed_goals,
        }
    )
    current.update(_merge_unknown(ca, cb, KNOWN_CURRENT_KEYS))

    merged: dict[str, Any] = {"version": SESSION_VERSION}
    created = _earliest(a.get("created_at"), b.get("created_at"))
    updated = _latest(a.get("updated_at"), b.get("updated_at"))
    if created is not None:
        merged["created_at"] = created
    if updated is not None:
        merged["updated_at"] = updated
    merged["machines"] = merge_machines(a.get("machines"), b.get("machines"))
    merged["current"] = {k: current[k] for k in _current_order(current)}
    hist_a = list_field(a, "history")
    hist_b = list_field(b, "history")
    merged["history"] = merge_history(hist_a + hist_b)
    merged.update(_merge_unknown(a, b, KNOWN_TOP_KEYS))
    return partition(merged, caps)


def _current_order(current: Mapping[str, Any]) -> list[str]:
    known = [k for k in LIST_KEYS if k in current]
    return known + sorted(k for k in current if k not in LIST_KEYS)
