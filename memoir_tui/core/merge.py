"""Merging two replicas of a session (FORMAT §4, with the fixes of §7).

``merge_sessions`` is a pure function of plain JSON-shaped dicts. Within each
list every identity of either side survives (up to the caps); for an identity
on both sides the copy with the newer date field wins whole, and equal dates
are broken by the canonical JSON of the copies, so the result does not depend
on which side is called "local". Tombstones are sticky:

* ``hidden`` is absolute, on every list: any hidden copy hides the result,
  with the earliest ``hidden_at``; a purged copy (``text_hash``) beats every
  un-purged copy of its identity, whatever the dates, and keeps its hash;
* ``done_at`` in ``completed_actions`` suppresses every next action of that
  identity added at or before it; a later re-add survives. A hidden item is
  never suppressed: its hiding must keep spreading.

On a decision the newest copy inherits the hiding (FORMAT §4.3). On a goal,
next action or question, where a completion can also take copies out, the
hidden copies alone decide the result: if the newest live copy inherited the
hiding, a live copy that a completion suppresses in one order of merging
would lend its content to the hidden result in another, and the merge would
not be associative.

Tombstones have their own, much larger budgets and never compete with live
items for the visible caps, and tombstoned actions are filtered out *before*
the visible cap is applied. Unknown fields survive: an item's unknown fields
travel with the winning copy; unknown keys at the top level and in
``current`` are merged with the same commutative, idempotent rules.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memoir_tui.core.identity import canonical_json, is_text_hash, parse_date_ms
from memoir_tui.core.items import (
    DATE_FIELDS,
    SESSION_VERSION,
    decision_key,
    empty_session,
    is_hidden,
    is_purged,
    purged_form,
    well_formed_items,
)

# completed_goals (goal tombstones) comes from newer JavaScript builds; we
# honour it with the same temporal rule as completed_actions. closed_questions
# and retracted_decisions are this project's extensions with the same rule
# (a JavaScript tool keeps them as unknown fields, but does not apply them).
KNOWN_CURRENT_KEYS = frozenset(
    {*DATE_FIELDS, "completed_goals", "closed_questions", "retracted_decisions"}
)
KNOWN_TOP_KEYS = frozenset(
    {"version", "created_at", "updated_at", "machines", "current", "history"}
)


@dataclass(frozen=True, slots=True)
class Caps:
    """List bounds. Tombstone budgets are far above the visible caps (FORMAT §4.3);
    ``hidden_decisions`` is the budget of hidden items on every live list."""

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


# --- small pure helpers ----------------------------------------------------


def _newest(copies: Iterable[dict[str, Any]], date_field: str) -> dict[str, Any]:
    """The copy with the newest date; equal dates broken by canonical JSON."""
    return max(copies, key=lambda c: (parse_date_ms(c.get(date_field)), canonical_json(c)))


def _sort_newest_first(items: list[dict[str, Any]], date_field: str) -> list[dict[str, Any]]:
    return sorted(
        items,
        key=lambda c: (parse_date_ms(c.get(date_field)), canonical_json(c)),
        reverse=True,
    )


def _group(
    items: Iterable[dict[str, Any]], key: Callable[[dict[str, Any]], str]
) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def item_key(item: Mapping[str, Any]) -> str:
    """An item's identity on any list, as a hash: a purged copy's ``text_hash``, else
    the hash of its normalised text, so a purged and a plain copy meet, and two purged
    copies (both ``[purged]``) never collapse into one and lose a hash."""
    return decision_key(item)


def _max_value(a: Any, b: Any) -> Any:
    return a if canonical_json(a) >= canonical_json(b) else b


# --- list merges -------------------------------------------------------------


def union_newest(items: Iterable[dict[str, Any]], date_field: str) -> list[dict[str, Any]]:
    """One copy per identity, the newest; newest first (tombstone lists)."""
    groups = _group(items, item_key)
    winners = [_newest(copies, date_field) for copies in groups.values()]
    return _sort_newest_first(winners, date_field)


def union_sticky(items: Iterable[dict[str, Any]], date_field: str) -> list[dict[str, Any]]:
    """One copy per identity of a live list (goals, next actions, questions), newest
    first: a purged copy beats all, else any hidden copy beats every live one (the
    newest hidden copy, with the earliest ``hidden_at``), else the newest copy."""
    winners = [
        _merge_item_copies(copies, date_field) for copies in _group(items, item_key).values()
    ]
    return _sort_newest_first(winners, date_field)


def _merge_item_copies(copies: list[dict[str, Any]], date_field: str) -> dict[str, Any]:
    purged = _earliest_purged(copies)
    if purged is not None:
        return purged
    hidden = [c for c in copies if is_hidden(c)]
    if not hidden:
        return _newest(copies, date_field)
    return _with_hiding(max(hidden, key=lambda c: _content_key(c, date_field)), hidden)


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


def capped_live(items: list[dict[str, Any]], cap: int, caps: Caps) -> list[dict[str, Any]]:
    """Live items first, newest first, under the visible cap; then the hidden ones under
    the tombstone budget, so a hiding never rotates out while a replica may hold the item."""
    live = [i for i in items if not is_hidden(i)]
    hidden = [i for i in items if is_hidden(i)]
    return live[:cap] + hidden[: caps.hidden_decisions]


def merge_decisions(
    items: Iterable[dict[str, Any]],
    caps: Caps = DEFAULT_CAPS,
    retracted: Iterable[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Union of decisions with sticky hidden and purged tombstones.

    Visible decisions come first (newest first, capped), then the tombstones
    (newest first, under their own budget) — the reference's order. Retracted
    ones are dropped before the cap, so they never take a live one's place.
    """
    merged: list[dict[str, Any]] = []
    for copies in _group(items, decision_key).values():
        merged.append(_merge_decision_copies(copies))
    merged = suppress_retracted(merged, retracted)
    visible = [d for d in merged if not is_hidden(d)]
    hidden = [d for d in merged if is_hidden(d)]
    return (
        _sort_newest_first(visible, "date")[: caps.decisions]
        + _sort_newest_first(hidden, "date")[: caps.hidden_decisions]
    )


def _content_key(item: Mapping[str, Any], date_field: str = "date") -> tuple[int, str]:
    # The winner is chosen on content alone (hidden flags stripped) so that
    # merging in any order picks the same copy: associativity needs it.
    content = {k: v for k, v in item.items() if k not in ("hidden", "hidden_at")}
    return parse_date_ms(item.get(date_field)), canonical_json(content)


def _hidden_at_key(item: Mapping[str, Any]) -> tuple[int, str]:
    return parse_date_ms(item.get("hidden_at")), canonical_json(item.get("hidden_at"))


def _merge_decision_copies(copies: list[dict[str, Any]]) -> dict[str, Any]:
    purged = _earliest_purged(copies)
    if purged is not None:
        return purged
    winner = max(copies, key=_content_key)
    hidden = [c for c in copies if is_hidden(c)]
    if hidden:
        return _with_hiding(winner, hidden)
    winner = dict(winner)
    winner.pop("hidden", None)
    winner.pop("hidden_at", None)
    return winner


def merge_completed(
    items: Iterable[dict[str, Any]], caps: Caps = DEFAULT_CAPS
) -> list[dict[str, Any]]:
    return union_newest(items, "done_at")[: caps.completed_actions]


def suppress_completed(
    actions: Iterable[dict[str, Any]],
    completed: Iterable[dict[str, Any]],
    date_field: str = "added",
) -> list[dict[str, Any]]:
    """Drop every action added at or before its identity's ``done_at``. A hidden one
    stays: hiding is absolute and must keep spreading (a later re-add of the same
    identity would otherwise come back live)."""
    done = {item_key(t): parse_date_ms(t.get("done_at")) for t in completed}
    kept = []
    for action in actions:
        done_at = done.get(item_key(action))
        if (
            done_at is not None
            and not is_hidden(action)
            and parse_date_ms(action.get(date_field)) <= done_at
        ):
            continue
        kept.append(action)
    return kept


def _hash_items(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [i for i in value if isinstance(i, dict) and is_text_hash(i.get("text_hash"))]


def merge_retracted(
    items: Iterable[dict[str, Any]], caps: Caps = DEFAULT_CAPS
) -> list[dict[str, Any]]:
    """Retraction tombstones (``{text_hash, done_at}``): union by hash, newest ``done_at``."""
    groups = _group(items, lambda i: i["text_hash"])
    winners = [_newest(copies, "done_at") for copies in groups.values()]
    return _sort_newest_first(winners, "done_at")[: caps.completed_actions]


def suppress_retracted(
    decisions: Iterable[dict[str, Any]], retracted: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Drop every visible decision dated at or before its retraction; a hidden or
    purged one stays (hiding is absolute and must keep spreading)."""
    done = {t["text_hash"]: parse_date_ms(t.get("done_at")) for t in retracted}
    kept = []
    for d in decisions:
        done_at = done.get(decision_key(d))
        if done_at is not None and not is_hidden(d) and parse_date_ms(d.get("date")) <= done_at:
            continue
        kept.append(d)
    return kept


def merge_history(items: Iterable[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """Union deduplicated by (date, machine_id, summary), newest first."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for h in items:
        if not isinstance(h, dict):
            continue
        key = canonical_json([h.get("date"), h.get("machine_id"), h.get("summary")])
        groups.setdefault(key, []).append(h)
    winners = [max(copies, key=canonical_json) for copies in groups.values()]
    return _sort_newest_first(winners, "date")[:cap]


def merge_machines(a: Any, b: Any) -> dict[str, Any]:
    """Per UUID, the newer ``last_seen`` wins (ties by canonical JSON)."""
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
    present = [x for x in (a, b) if isinstance(x, str)]
    if not present:
        return None
    return min(present, key=lambda s: (parse_date_ms(s), s))


def _latest(a: Any, b: Any) -> Any:
    present = [x for x in (a, b) if isinstance(x, str)]
    if not present:
        return None
    return max(present, key=lambda s: (parse_date_ms(s), s))


def merge_sessions(
    local: dict[str, Any], remote: dict[str, Any], *, caps: Caps = DEFAULT_CAPS
) -> dict[str, Any]:
    """Merge two session replicas; pure, mutates neither input."""
    sides = [s for s in (local, remote) if contributes_to_merge(s)]
    if not sides:
        return empty_session()
    a = copy.deepcopy(sides[0])
    b = copy.deepcopy(sides[1]) if len(sides) > 1 else copy.deepcopy(sides[0])
    ca = a.get("current") if isinstance(a.get("current"), dict) else {}
    cb = b.get("current") if isinstance(b.get("current"), dict) else {}

    def both(key: str) -> list[dict[str, Any]]:
        return well_formed_items(ca.get(key)) + well_formed_items(cb.get(key))

    completed = merge_completed(both("completed_actions"), caps)
    next_actions = suppress_completed(union_sticky(both("next_actions"), "added"), completed)

    # The extension tombstone lists appear in the result only if a side has them,
    # so a merge never adds keys a store did not use.
    extra: dict[str, list[dict[str, Any]]] = {}
    goals = union_sticky(both("goals"), "set_on")
    questions = union_sticky(both("open_questions"), "asked")
    for live_key, tomb_key, field in (
        ("goals", "completed_goals", "set_on"),
        ("open_questions", "closed_questions", "asked"),
    ):
        if tomb_key in ca or tomb_key in cb:
            extra[tomb_key] = merge_completed(both(tomb_key), caps)
            if live_key == "goals":
                goals = suppress_completed(goals, extra[tomb_key], field)
            else:
                questions = suppress_completed(questions, extra[tomb_key], field)
    retracted: list[dict[str, Any]] = []
    if "retracted_decisions" in ca or "retracted_decisions" in cb:
        retracted = merge_retracted(
            _hash_items(ca.get("retracted_decisions")) + _hash_items(cb.get("retracted_decisions")),
            caps,
        )
        extra["retracted_decisions"] = retracted
    decisions = merge_decisions(both("decisions"), caps, retracted)

    current: dict[str, Any] = {
        "goals": capped_live(goals, caps.goals, caps),
        "next_actions": capped_live(next_actions, caps.next_actions, caps),
        "completed_actions": completed,
        "open_questions": capped_live(questions, caps.open_questions, caps),
        "decisions": decisions,
    }
    current.update(extra)
    current.update(_merge_unknown(ca, cb, KNOWN_CURRENT_KEYS))

    merged: dict[str, Any] = {"version": SESSION_VERSION}
    created = _earliest(a.get("created_at"), b.get("created_at"))
    updated = _latest(a.get("updated_at"), b.get("updated_at"))
    if created is not None:
        merged["created_at"] = created
    if updated is not None:
        merged["updated_at"] = updated
    merged["machines"] = merge_machines(a.get("machines"), b.get("machines"))
    merged["current"] = current
    hist_a = a.get("history") if isinstance(a.get("history"), list) else []
    hist_b = b.get("history") if isinstance(b.get("history"), list) else []
    merged["history"] = merge_history(hist_a + hist_b, caps.history)
    merged.update(_merge_unknown(a, b, KNOWN_TOP_KEYS))
    return merged
