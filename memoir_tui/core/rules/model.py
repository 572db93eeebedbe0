"""Read-only views of a session: small frozen values the faces render.

Every face asks ``working_set(state)`` rather than walking the dict, so the
rule "a tombstone is never shown as live" lives in exactly one place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from memoir_tui.core.format.identity import identity, is_text_hash, parse_date_ms, text_hash
from memoir_tui.core.format.items import (
    DATE_FIELDS,
    HOME_LIST,
    OVERFLOW_LIST,
    PROVENANCE_FIELDS,
    current_of,
    decision_key,
    dict_field,
    is_hidden,
    list_field,
    matches_words,
    well_formed_items,
)
from memoir_tui.core.format.merge import suppress_completed, suppress_retracted
from memoir_tui.core.rules.labels import short_labels
from memoir_tui.core.rules.scope import is_visible, project_names, readable_project, same_project


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


_OWN_PROVENANCE = frozenset(PROVENANCE_FIELDS) - {"project", "project_label"}


def provenance(item: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Where an item came from, as recorded (the provenance fields it carries)."""
    if _OWN_PROVENANCE.isdisjoint(item.keys()):  # most items carry none: no per-field walk
        return ()
    return tuple(
        (key, item[key])
        for key in PROVENANCE_FIELDS
        if key not in ("project", "project_label") and isinstance(item.get(key), str) and item[key]
    )


@dataclass(frozen=True, slots=True)
class Item:
    """A goal, next action or open question."""

    kind: str  # "goal" | "next_action" | "question"
    text: str
    date: str
    machine_id: str
    machine_label: str
    project: str
    project_label: str = ""  # the project as a person reads it; "" for a global item
    provenance: tuple[tuple[str, str], ...] = ()  # (field, value): source, extractor, …
    reworded_from: str = ""  # the identity hash of the wording this one replaced
    place: str = "live"  # "live", or where a full list put it: "parked", "archived"

    @property
    def key(self) -> str:
        """The row key of this item: its identity (text trimmed and case-folded)."""
        return identity(self.text)


@dataclass(frozen=True, slots=True)
class CompletedAction:
    """A tombstone of a live list: a completed action, a completed or removed goal, a
    closed question. ``reason`` says why it left ("completed", "removed", "answered",
    "reworded", "rotated", "undone")."""

    text: str
    done_at: str
    reason: str = "completed"
    answer: str = ""  # a closed question's answer, when one was given
    project: str = ""
    project_label: str = ""


@dataclass(frozen=True, slots=True)
class Decision:
    key: str  # the identity hash: stable across rewording of case and spacing
    text: str
    why: str
    rejected: str
    date: str
    machine_id: str
    machine_label: str
    project: str
    hidden: bool = False
    hidden_at: str = ""
    purged: bool = False
    source: str = ""  # "assistant" when captured from what an assistant said
    project_label: str = ""
    provenance: tuple[tuple[str, str], ...] = ()
    reworded_from: str = ""  # identity hash of the decision this one rewords
    reworded_to: str = ""  # (on a tombstone) the identity hash of its new wording
    place: str = "live"  # "live", or "archived" (past the live cap: kept, not pinned)

    def matches(self, needle: str) -> bool:
        """Every word of ``needle`` in text, why or rejected (any order, case and accents
        ignored)."""
        return matches_words(needle, self.text, self.why, self.rejected)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    date: str
    machine_id: str
    machine_label: str
    summary: str
    files_touched: tuple[str, ...]
    duration_min: float | None
    project: str = ""
    project_label: str = ""


@dataclass(frozen=True, slots=True)
class MachineInfo:
    id: str
    label: str
    last_seen: str


@dataclass(frozen=True, slots=True)
class DecisionLists:
    """The decision lists of a view, built together when first asked for."""

    decisions: tuple[Decision, ...] = ()
    archived_decisions: tuple[Decision, ...] = ()
    tombstones: tuple[Decision, ...] = ()


NO_DECISIONS = DecisionLists()


@dataclass(frozen=True)
class WorkingSet:
    goals: tuple[Item, ...]
    next_actions: tuple[Item, ...]
    open_questions: tuple[Item, ...]
    completed_actions: tuple[CompletedAction, ...]
    history: tuple[HistoryEntry, ...]
    machines: tuple[MachineInfo, ...]
    completed_goals: tuple[CompletedAction, ...] = ()
    closed_questions: tuple[CompletedAction, ...] = ()
    # Past the live caps (FORMAT-LATEST §4–5): kept, shown, reachable, not pinned.
    parked_actions: tuple[Item, ...] = ()
    archived_goals: tuple[Item, ...] = ()
    archived_questions: tuple[Item, ...] = ()
    # decisions a full list pushed out (their retraction records that kept the words)
    rotated_decisions: tuple[CompletedAction, ...] = ()
    project: str | None = None  # the scope this view was made for; None: every project
    project_label: str = ""  # that scope as a person reads it ("" for every project)
    # Every project the store names: id → full name, and id → its short label.
    project_names: Mapping[str, str] = field(default_factory=dict)
    project_labels: Mapping[str, str] = field(default_factory=dict)
    elsewhere: Mapping[str, int] = field(default_factory=dict)
    """Live items of other projects this scoped view leaves out, per list (only > 0)."""
    decided: Callable[[], DecisionLists] = field(
        default=lambda: NO_DECISIONS, repr=False, compare=False
    )
    """Builds the decision lists when first asked for (``decisions`` and the rest): at
    10,000 decisions that is most of the view's cost, and the first screen shows none."""

    @cached_property
    def _decision_lists(self) -> DecisionLists:
        # cached_property locks while it builds: two threads asking at once build once
        return self.decided()

    @property
    def decisions(self) -> tuple[Decision, ...]:
        """Visible live decisions, newest first."""
        return self._decision_lists.decisions

    @property
    def archived_decisions(self) -> tuple[Decision, ...]:
        """Visible decisions past the live cap (kept, not pinned), newest first."""
        return self._decision_lists.archived_decisions

    @property
    def tombstones(self) -> tuple[Decision, ...]:
        """Hidden and purged decisions in scope, for audit views."""
        return self._decision_lists.tombstones

    @property
    def elsewhere_total(self) -> int:
        return sum(self.elsewhere.values())

    @property
    def all_goals(self) -> tuple[Item, ...]:
        """Live goals, then archived ones."""
        return self.goals + self.archived_goals

    @property
    def all_next_actions(self) -> tuple[Item, ...]:
        """Live next actions, then parked ones."""
        return self.next_actions + self.parked_actions

    @property
    def all_questions(self) -> tuple[Item, ...]:
        """Live questions, then archived ones."""
        return self.open_questions + self.archived_questions

    @property
    def all_decisions(self) -> tuple[Decision, ...]:
        """Live decisions, then archived ones (every visible decision)."""
        return self.decisions + self.archived_decisions


def _newest_first(items: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda i: parse_date_ms(i.get(field)), reverse=True)


def working_set(
    state: dict[str, Any],
    *,
    project: str | None = None,
    all_projects: bool = True,
    at_ms: int | None = None,
    believed_at_ms: int | None = None,
    here_label: str | None = None,
) -> WorkingSet:
    """The live view of ``state`` for a reader in ``project`` at ``at_ms`` (default now).

    Every item passes ``scope.is_visible`` — the one visibility predicate —
    so hidden, completed, rejected, out-of-scope and out-of-window items are
    never live. Tombstones are listed apart (in scope) for audit views.
    ``at_ms`` is the time validity windows are judged at. ``believed_at_ms``
    answers "what was believed at T": only what was already recorded then (by
    each list's date field) and not yet completed then. An "as of T" view
    passes T for both. Forgetting is not undone by asking about the past.
    ``here_label`` names ``project`` for people when no item does.
    """

    if at_ms is None:  # one "now" for the whole view (and one clock read, not one per item)
        at_ms = time.time_ns() // 1_000_000

    def visible(item: dict[str, Any], list_name: str, *, everywhere: bool = False) -> bool:
        if (
            believed_at_ms is not None
            and parse_date_ms(item.get(DATE_FIELDS[list_name])) > believed_at_ms
        ):
            return False  # not yet believed at that time
        return is_visible(
            item,
            list_name=list_name,
            project=project,
            all_projects=all_projects or everywhere,
            at_ms=at_ms,
        )

    full_names = project_names(state, here=(project, here_label) if project else None)
    names = short_labels(full_names)  # the one short label per project (core.labels)

    def project_label(item: Mapping[str, Any]) -> str:
        value = item.get("project")
        return readable_project(value, names) if isinstance(value, str) and value else ""

    def done_by_then(key: str) -> list[dict[str, Any]]:
        done = well_formed_items(current.get(key))
        if believed_at_ms is None:
            return done
        return [t for t in done if parse_date_ms(t.get("done_at")) <= believed_at_ms]

    machines_raw = dict_field(state, "machines")
    labels = {uid: _str(m.get("label")) for uid, m in machines_raw.items() if isinstance(m, dict)}

    def label(item: dict[str, Any]) -> str:
        mid = _str(item.get("machine_id"))
        return labels.get(mid, mid[:8])

    current = current_of(state)

    def items(key: str, kind: str, field: str, place: str = "live") -> tuple[Item, ...]:
        home = HOME_LIST.get(key, key)
        raw = [i for i in well_formed_items(current.get(key)) if visible(i, home)]
        if home == "goals":
            raw = suppress_completed(raw, done_by_then("completed_goals"), "set_on")
        if home == "next_actions":
            raw = suppress_completed(raw, done_by_then("completed_actions"))
        if home == "open_questions":
            raw = suppress_completed(raw, done_by_then("closed_questions"), "asked")
        return tuple(
            Item(
                kind=kind,
                text=i["text"],
                date=_str(i.get(field)),
                machine_id=_str(i.get("machine_id")),
                machine_label=label(i),
                project=_str(i.get("project")),
                project_label=project_label(i),
                provenance=provenance(i),
                reworded_from=_str(i.get("reworded_from")),
                place=place,
            )
            for i in _newest_first(raw, field)
        )

    def closed(key: str) -> tuple[CompletedAction, ...]:
        return tuple(
            CompletedAction(
                text=c["text"],
                done_at=_str(c.get("done_at")),
                reason=_str(c.get("reason"))
                or ("answered" if key == "closed_questions" else "completed"),
                answer=_str(c.get("answer")),
                project=_str(c.get("project")),
                project_label=project_label(c),
            )
            for c in _newest_first(well_formed_items(current.get(key)), "done_at")
            if all_projects or same_project(c.get("project"), project)
        )

    def decision(d: dict[str, Any], place: str = "live") -> Decision:
        # Once per decision (10,000 of them in a large store): the rules of
        # decision_key, is_hidden, is_purged, label and project_label inlined, and
        # the fields passed in Decision's order.
        get = d.get
        text_hash_value: Any = get("text_hash")  # any JSON value; a str when ``purged``
        purged = is_text_hash(text_hash_value)
        machine_id = get("machine_id")
        machine_id = machine_id if isinstance(machine_id, str) else ""
        project = get("project")
        project = project if isinstance(project, str) else ""
        return Decision(
            text_hash_value if purged else text_hash(d["text"]),
            d["text"],
            _str(get("why")),
            _str(get("rejected")),
            _str(get("date")),
            machine_id,
            labels.get(machine_id, machine_id[:8]),
            project,
            bool(get("hidden")) or purged,
            _str(get("hidden_at")),
            purged,
            _str(get("source")),
            readable_project(project, names) if project else "",
            provenance(d),
            _str(get("reworded_from")),
            _str(get("reworded_to")),
            place,
        )

    def in_scope(d: dict[str, Any]) -> bool:
        # the tombstone list honours the project scope but not the other rules
        return visible(
            {k: v for k, v in d.items() if k not in ("hidden", "text_hash")}, "decisions"
        )

    retracted = [
        t
        for t in (current.get("retracted_decisions") or [])
        if isinstance(t, dict)
        and isinstance(t.get("text_hash"), str)
        and (believed_at_ms is None or parse_date_ms(t.get("done_at")) <= believed_at_ms)
    ]
    # The raw lists are taken now (the state may be read again and replaced); the
    # Decision objects, their order and the checks are made when first asked for.
    raw_live = well_formed_items(current.get("decisions"))
    raw_archived = well_formed_items(current.get("archived_decisions"))

    def decision_lists() -> DecisionLists:
        raw_decisions = _newest_first(suppress_retracted(raw_live, retracted), "date")
        live = tuple(decision(d) for d in raw_decisions if visible(d, "decisions"))
        archived = tuple(
            decision(d, "archived")
            for d in _newest_first(suppress_retracted(raw_archived, retracted), "date")
            if visible(d, "decisions")
        )
        tombstones = tuple(decision(d) for d in raw_decisions if is_hidden(d) and in_scope(d))
        return DecisionLists(live, archived, tombstones)

    # What a full list pushed out is on the first screen (Recently completed): made now,
    # from the few retraction records, with the live keys only when there are some.
    pushed_out = [
        t
        for t in _newest_first(retracted, "done_at")
        if t.get("reason") == "rotated" and isinstance(t.get("text"), str) and t["text"].strip()
    ]
    if pushed_out:
        live_keys = {
            decision_key(d)
            for d in suppress_retracted(raw_live, retracted)
            if visible(d, "decisions")
        }
        pushed_out = [t for t in pushed_out if t.get("text_hash") not in live_keys]
    rotated_decisions = tuple(
        CompletedAction(text=t["text"], done_at=_str(t.get("done_at")), reason="rotated")
        for t in pushed_out
    )

    history_raw = list_field(state, "history")
    history = tuple(
        HistoryEntry(
            date=_str(h.get("date")),
            machine_id=_str(h.get("machine_id")),
            machine_label=label(h),
            summary=_str(h.get("summary")),
            files_touched=tuple(f for f in h.get("files_touched") or () if isinstance(f, str))
            if isinstance(h.get("files_touched"), list)
            else (),
            duration_min=h.get("duration_min")
            if isinstance(h.get("duration_min"), int | float)
            and not isinstance(h.get("duration_min"), bool)
            else None,
            project=_str(h.get("project")),
            project_label=project_label(h),
        )
        for h in _newest_first([h for h in history_raw if isinstance(h, dict)], "date")
    )
    elsewhere: dict[str, int] = {}
    if not all_projects:
        for key in ("goals", "next_actions", "open_questions", "decisions"):
            pool = well_formed_items(current.get(key)) + well_formed_items(
                current.get(OVERFLOW_LIST[key])
            )
            # visible everywhere but not here: only the project rule differs (one check each)
            outside = sum(
                1
                for i in pool
                if not same_project(i.get("project"), project) and visible(i, key, everywhere=True)
            )
            if outside:
                elsewhere[key] = outside
    goals = items("goals", "goal", "set_on")
    next_actions = items("next_actions", "next_action", "added")
    open_questions = items("open_questions", "question", "asked")
    archived_goals = items("archived_goals", "goal", "set_on", "archived")
    parked_actions = items("parked_actions", "next_action", "added", "parked")
    archived_questions = items("archived_questions", "question", "asked", "archived")

    def still_closed(key: str, live_items: tuple[Item, ...]) -> tuple[CompletedAction, ...]:
        # A tombstone of an item reopened since (dated after it) is kept in the file, so
        # merges stay right, but the item is live: it is not shown as completed too.
        reopened = {(identity(i.text), i.project) for i in live_items}
        return tuple(c for c in closed(key) if (identity(c.text), c.project) not in reopened)

    return WorkingSet(
        goals=goals,
        next_actions=next_actions,
        open_questions=open_questions,
        completed_actions=still_closed("completed_actions", next_actions + parked_actions),
        completed_goals=still_closed("completed_goals", goals + archived_goals),
        closed_questions=still_closed("closed_questions", open_questions + archived_questions),
        parked_actions=parked_actions,
        archived_goals=archived_goals,
        archived_questions=archived_questions,
        history=history,
        machines=tuple(
            MachineInfo(id=uid, label=_str(m.get("label")), last_seen=_str(m.get("last_seen")))
            for uid, m in sorted(
                machines_raw.items(),
                key=lambda kv: parse_date_ms(
                    kv[1].get("last_seen") if isinstance(kv[1], dict) else None
                ),
                reverse=True,
            )
            if isinstance(m, dict)
        ),
        project=None if all_projects else project,
        project_label="" if all_projects else readable_project(project, names) if project else "",
        project_names=full_names,
        project_labels=names,
        rotated_decisions=rotated_decisions,
        elsewhere=elsewhere,
        decided=decision_lists,
    )
