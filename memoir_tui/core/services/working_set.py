"""The working set as a service: goals, next actions, open questions and decisions.

Every act opens one store transaction (the door, ``core.transaction``), changes
the session in place and returns an ``Outcome`` saying what happened in a
sentence a person (or a model) can read, with the ``Undo`` that takes it back.
Items are identified by (text, project) as memoir's are; an act works in the
scope of the store it was handed (``store.project``) and names where a match it
leaves alone lives.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import (
    AmbiguousMatchError,
    EmptyTextError,
    ForgottenDecisionError,
    NoMatchError,
)
from memoir_tui.core.door.transaction import Transaction
from memoir_tui.core.format.identity import (
    PURGED_TEXT,
    identity,
    is_text_hash,
    js_trim,
    parse_date_ms,
    text_hash,
)
from memoir_tui.core.format.items import (
    DATE_FIELDS,
    FILES,
    NOUNS,
    OVERFLOW_LIST,
    REVIEW,
    SESSION,
    TOMBSTONE_LIST,
    Outcome,
    Undo,
    clean_provenance,
    clean_text,
    decision_key,
    has_text,
    identity_key,
    is_hidden,
    is_purged,
    purged_form,
    readable_date,
    validity_window,
    well_formed_items,
)
from memoir_tui.core.format.review_file import purge_from_review
from memoir_tui.core.format.session import QUARANTINED
from memoir_tui.core.rules.labels import project_labels
from memoir_tui.core.rules.model import Decision, WorkingSet, working_set
from memoir_tui.core.rules.scope import readable_project, same_project
from memoir_tui.core.rules.settle import settle_session

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store


log = logging.getLogger(__name__)

__all__ = ["WorkingSetService", "scrub_quarantined_copies"]


class _Unchanged(Exception):
    """Raised inside a change to abandon it without writing."""


def _unchanged_is_outcome(method: Callable[..., Outcome]) -> Callable[..., Outcome]:
    """A change that found nothing to do reports it instead of writing."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Outcome:
        try:
            return method(*args, **kwargs)
        except _Unchanged as unchanged:
            return Outcome(False, str(unchanged))

    return wrapper


def _sorted_capped(items: list[dict[str, Any]], date_field: str, cap: int) -> list[dict[str, Any]]:
    return sorted(items, key=lambda i: parse_date_ms(i.get(date_field)), reverse=True)[:cap]


class WorkingSetService:
    """``memoir.working``: the acts on the session's lists, built on the door it is handed."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def working_set(self, *, all_projects: bool = False, at_ms: int | None = None) -> WorkingSet:
        """What is live for the store's project (every project when it has none, or
        with ``all_projects``); with ``at_ms``, what was believed and valid at that time."""
        return self.view(self.store.load().state, all_projects=all_projects, at_ms=at_ms)

    def view(
        self, state: dict[str, Any], *, all_projects: bool = False, at_ms: int | None = None
    ) -> WorkingSet:
        """``working_set`` of a state already read (the app reads once, renders twice)."""
        return working_set(
            state,
            project=self.store.project,
            all_projects=all_projects or not self.store.scoped,
            at_ms=at_ms,
            believed_at_ms=at_ms,  # "as of T": recorded by then and valid then
            here_label=self.store.project_label,
        )

    def _settle(self, state: dict[str, Any]) -> None:
        settle_session(
            state,
            project=self.store.project,
            caps=self.store.config.caps,
            clock=self.store.clock,
        )

    # --- lists ------------------------------------------------------------------

    def _stamp(self, text: str, date_field: str, **extra: Any) -> dict[str, Any]:
        item: dict[str, Any] = {
            "text": text,
            "machine_id": self.store.machine.id,
            date_field: self.store.clock(),
        }
        if self.store.project:
            item["project"] = self.store.project
            if self.store.project_label:
                item["project_label"] = self.store.project_label
        item.update({k: v for k, v in extra.items() if v not in (None, "")})
        return item

    def _tombstone(
        self, state: dict[str, Any], list_key: str, item: dict[str, Any], reason: str, **extra: Any
    ) -> None:
        """Record that ``item`` left ``list_key`` (a temporal tombstone keyed by its text and
        project, so no replica brings the wording back, and a later re-add is a revival)."""
        current = state["current"]
        tomb_key = TOMBSTONE_LIST[list_key]
        key = identity_key(item)
        _drop_identity(state, list_key, key)
        tombstones = [t for t in well_formed_items(current.get(tomb_key)) if identity_key(t) != key]
        record: dict[str, Any] = {"text": item["text"]}
        if item.get("project"):
            record["project"] = item["project"]
        record["done_at"] = self.store.clock()
        if reason != "completed":
            record["reason"] = reason
        record.update({k: v for k, v in extra.items() if v not in (None, "")})
        others = [t for t in current.get(tomb_key) or [] if not has_text(t)]
        current[tomb_key] = (
            _sorted_capped([record, *tombstones], "done_at", len(tombstones) + 1) + others
        )

    def would_rotate(self, list_key: str) -> tuple[str, ...]:
        """What adding one more item to ``list_key`` would move past the live cap (parked
        or archived, never dropped), oldest first, so a face can say so before it happens."""
        ws = self.working_set(all_projects=True)
        items = {
            "goals": ws.goals,
            "next_actions": ws.next_actions,
            "open_questions": ws.open_questions,
        }[list_key]
        cap = getattr(self.store.config.caps, list_key)
        over = len(items) + 1 - cap
        return tuple(i.text for i in reversed(items))[: max(over, 0)]

    @_unchanged_is_outcome
    def _add_item(
        self,
        list_key: str,
        date_field: str,
        cap: int,
        text: str,
        noun: str,
        validity: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Outcome:
        text = clean_text(text, noun)
        validity = validity or {}
        with self.store.transaction(f"add_{list_key}") as tx:
            state = tx.session
            ident = identity(text)
            same = [i for i in _pooled(state, list_key) if identity(i["text"]) == ident]
            # Deduped against what this scope sees (its own, global and shared items), as
            # the JavaScript tool does; another project's copy is another item.
            seen = [i for i in same if self._in_scope(i, list_key)]
            parked_ids = {id(i) for i in well_formed_items(state["current"].get("parked_actions"))}
            # memoir's addNext: the same words only parked come back to the live list as
            # a new item (the parked copies go); anything else already seen stays as it is.
            unparked = [i for i in seen if list_key == "next_actions" and id(i) in parked_ids]
            if seen and len(unparked) < len(seen):
                raise _Unchanged(f"{noun} already listed: {seen[0]['text']}")
            if any(is_hidden(i) and self._stamps_same(i) for i in same):
                raise _Unchanged(f"a {noun} with this text was forgotten; it stays forgotten")
            if unparked:
                gone = {id(i) for i in unparked}
                state["current"]["parked_actions"] = [
                    i for i in state["current"]["parked_actions"] if id(i) not in gone
                ]
            before = _overflow_texts(state, list_key)
            state["current"][list_key].append(
                self._stamp(text, date_field, **validity, **(extra or {}))
            )
            tx.audit(f"add_{list_key}", list_key, text_hash(text))
            self._settle(state)
            # Only what this scope sees is named: another project's item is not news here.
            moved = tuple(
                i["text"]
                for i in well_formed_items(state["current"][OVERFLOW_LIST[list_key]])
                if i["text"] not in before and self._in_scope(i, list_key)
            )
        place = "parked" if list_key == "next_actions" else "archived"
        message = (
            f"{noun} back on the live list (it was parked): {text}"
            if unparked
            else f"{noun} added: {text}"
        )
        if moved:
            message += f" (the list is full; {place}, still kept: {'; '.join(moved)})"
        # Taking back an unparked action would remove it, not park it again: no undo.
        undo = (
            None
            if unparked
            else Undo(
                "remove_item",
                f"take back: {text}",
                (("list", list_key), ("text", text), ("reason", "undone")),
            )
        )
        return Outcome(True, message, identity(text), moved, undo)

    def _stamps_same(self, item: Mapping[str, Any]) -> bool:
        """Whether ``item`` carries the project stamp a write of ours here would give it
        (the identity's project half): this project's (or an earlier stamp of it), or
        none/shared outside any project."""
        project = item.get("project")
        if self.store.project is None:
            return not project
        return bool(project) and same_project(project, self.store.project)

    def _in_scope(self, item: Mapping[str, Any], list_key: str) -> bool:
        from memoir_tui.core.rules.scope import is_visible

        return is_visible(
            item, list_name=list_key, project=self.store.project, all_projects=not self.store.scoped
        )

    def add_goal(
        self, text: str, *, valid_from: str | None = None, valid_until: str | None = None
    ) -> Outcome:
        window = validity_window(valid_from, valid_until)
        return self._add_item("goals", "set_on", self.store.config.caps.goals, text, "goal", window)

    def add_next_action(self, text: str) -> Outcome:
        return self._add_item(
            "next_actions", "added", self.store.config.caps.next_actions, text, "next action"
        )

    def ask_question(self, text: str) -> Outcome:
        return self._add_item(
            "open_questions", "asked", self.store.config.caps.open_questions, text, "question"
        )

    def _one_item(self, state: dict[str, Any], list_key: str, match: str) -> dict[str, Any]:
        """Exactly one item of ``list_key`` (live, parked or archived) this scope sees,
        named by its text or a unique substring; a match only in another project is
        named in the refusal, never acted on."""
        noun = NOUNS[list_key]
        from memoir_tui.core.rules.needle import clean_needle  # a needle, not a write

        needle = identity(clean_needle(match, "match"))
        pool = [i for i in _pooled(state, list_key) if not is_hidden(i)]
        items = [i for i in pool if self._in_scope(i, list_key)]
        exact = [i for i in items if identity(i["text"]) == needle]
        hits = exact or [i for i in items if needle in identity(i["text"])]
        if not hits:
            elsewhere = [
                i
                for i in pool
                if needle in identity(i["text"])
                and _is_live_item(i, list_key)
                and not self._in_scope(i, list_key)
            ]
            if elsewhere:
                names = self._project_names(state)
                where = sorted({readable_project(str(i.get("project")), names) for i in elsewhere})
                raise NoMatchError(
                    f"no {noun} here matches {match!r}; already recorded for project "
                    f"{', '.join(where)} (not shown here)"
                )
            raise NoMatchError(f"no {noun} matches {match!r}")
        if len({identity_key(i) for i in hits}) > 1:
            raise AmbiguousMatchError(
                f"{len(hits)} {noun}s match {match!r}; be more specific",
                [i["text"] for i in hits],
            )
        return hits[0]

    def _project_names(self, state: dict[str, Any]) -> dict[str, str]:
        return project_labels(
            state,
            here=(self.store.project, self.store.project_label) if self.store.project else None,
        )

    def remove_item(self, list_key: str, match: str, *, reason: str = "removed") -> Outcome:
        """Take a goal, next action or question off its list, keeping a record (a
        temporal tombstone) that undo, or a later re-add, can revive."""
        noun = NOUNS[list_key]
        with self.store.transaction(f"remove_{list_key}") as tx:
            item = dict(self._one_item(tx.session, list_key, match))
            self._tombstone(tx.session, list_key, item, reason)
            tx.audit(f"remove_{list_key}", list_key, text_hash(item["text"]))
        undo = Undo(
            "revive_item", f"bring back: {item['text']}", (("list", list_key), ("item", item))
        )
        return Outcome(True, f"{noun} removed: {item['text']}", identity(item["text"]), undo=undo)

    @_unchanged_is_outcome
    def revive_item(
        self, list_key: str, item: dict[str, Any] | None = None, *, text: str | None = None
    ) -> Outcome:
        """Put an item back on its list, dated now (after its tombstone, so the revival
        wins every merge); ``item`` keeps its fields, ``text`` alone makes a fresh one."""
        noun = NOUNS[list_key]
        date_field = DATE_FIELDS[list_key]
        wording = clean_text(item["text"] if item else text, noun)
        with self.store.transaction(f"revive_{list_key}") as tx:
            items = tx.session["current"][list_key]
            project = (item or {}).get("project") if item is not None else self.store.project
            if any(
                identity(i["text"]) == identity(wording)
                and (i.get("project") or None) == (project or None)
                and not is_hidden(i)
                for i in _pooled(tx.session, list_key)
            ):
                raise _Unchanged(f"{noun} already listed: {wording}")
            fields = {
                k: v
                for k, v in (item or {}).items()
                if k not in ("text", date_field, "machine_id", "done_at")
            }
            revived = self._stamp(wording, date_field)
            if item is not None:
                # It comes back in the project it was in, not the one reviving it.
                revived.pop("project", None)
                revived.pop("project_label", None)
            fields.pop("parked_at", None)
            revived.update({k: v for k, v in fields.items() if k not in revived})
            items.append(revived)
            tx.audit(f"revive_{list_key}", list_key, text_hash(wording))
        undo = Undo(
            "remove_item",
            f"take back: {wording}",
            (("list", list_key), ("text", wording), ("reason", "undone")),
        )
        return Outcome(True, f"{noun} back: {wording}", identity(wording), undo=undo)

    def reword_item(self, list_key: str, match: str, new_text: str) -> Outcome:
        """A new wording is a new identity (FORMAT §4.1): the new item is written and the
        old wording gets a tombstone, so no replica brings it back."""
        noun = NOUNS[list_key]
        new_text = clean_text(new_text, noun)
        date_field = DATE_FIELDS[list_key]
        with self.store.transaction(f"reword_{list_key}") as tx:
            old = dict(self._one_item(tx.session, list_key, match))
            if identity(old["text"]) == identity(new_text):
                return self._respell(tx, list_key, old, new_text)
            if any(
                identity(i["text"]) == identity(new_text)
                and (i.get("project") or None) == (old.get("project") or None)
                for i in _pooled(tx.session, list_key)
            ):
                raise AmbiguousMatchError(f"another {noun} already reads {new_text!r}", [new_text])
            self._tombstone(tx.session, list_key, old, "reworded", reworded_to=text_hash(new_text))
            fresh = self._stamp(new_text, date_field, reworded_from=text_hash(old["text"]))
            # A new wording keeps the item's project: editing never moves it.
            fresh.pop("project", None)
            fresh.pop("project_label", None)
            for k, v in old.items():
                if k not in ("text", date_field, "machine_id", "parked_at") and k not in fresh:
                    fresh[k] = v
            tx.session["current"][list_key].append(fresh)
            tx.audit(f"reword_{list_key}", list_key, text_hash(new_text))
        undo = Undo(
            "remove_item",
            f"back to: {old['text']}",
            (("list", list_key), ("text", new_text), ("reason", "undone")),
            (
                Undo(
                    "revive_item", f"bring back: {old['text']}", (("list", list_key), ("item", old))
                ),
            ),
        )
        return Outcome(True, f"{noun} reworded: {new_text}", identity(new_text), undo=undo)

    @_unchanged_is_outcome
    def move_item(self, list_key: str, match: str, project: str | None) -> Outcome:
        """Move a goal, next action or question to another project (None: global) — an
        explicit act, never a side effect of editing. The copy in its old project gets a
        tombstone (reason ``moved``), so no replica brings it back there."""
        noun = NOUNS[list_key]
        date_field = DATE_FIELDS[list_key]
        project = project or None
        with self.store.transaction(f"move_{list_key}") as tx:
            old = dict(self._one_item(tx.session, list_key, match))
            where = _where(
                readable_project(project, self._project_names(tx.session)) if project else None
            )
            if (old.get("project") or None) == project:
                raise _Unchanged(f"the {noun} is already {where.removeprefix('to ')}")
            if any(
                identity(i["text"]) == identity(old["text"])
                and (i.get("project") or None) == project
                and not is_hidden(i)
                for i in _pooled(tx.session, list_key)
            ):
                raise AmbiguousMatchError(
                    f"the {noun} is already listed {where.replace('to ', 'in ', 1)}",
                    [old["text"]],
                )
            self._tombstone(tx.session, list_key, old, "moved")
            fresh = self._stamp(old["text"], date_field)
            fresh.pop("project", None)
            fresh.pop("project_label", None)
            if project:
                fresh["project"] = project
                if project == self.store.project and self.store.project_label:
                    fresh["project_label"] = self.store.project_label
            for k, v in old.items():
                if k not in (date_field, "machine_id", "parked_at", "project", "project_label"):
                    fresh.setdefault(k, v)
            tx.session["current"][list_key].append(fresh)
            tx.audit(f"move_{list_key}", list_key, text_hash(old["text"]))
        undo = Undo(
            "remove_item",
            f"move back: {old['text']}",
            (("list", list_key), ("text", old["text"]), ("reason", "undone")),
            (
                Undo(
                    "revive_item", f"bring back: {old['text']}", (("list", list_key), ("item", old))
                ),
            ),
        )
        return Outcome(
            True, f"{noun} moved {where}: {old['text']}", identity(old["text"]), undo=undo
        )

    def edit_item(
        self, list_key: str, match: str, new_text: str, *, project: str | bool | None = False
    ) -> Outcome:
        """Reword an item and, only when ``project`` is given (a scope id, or None for
        global; False: keep it where it is), move it — one commit, one undo."""
        # the move finds the item by the words as stored: cleaned at the door first
        new_text = clean_text(new_text, NOUNS.get(list_key, "text"))
        with self.store.transaction(f"edit_{list_key}"):
            reworded = (
                self.reword_item(list_key, match, new_text)
                if js_trim(new_text) != js_trim(match)
                else None
            )
            if project is False:
                if reworded is None:
                    return Outcome(False, "nothing to change")
                return reworded
            moved = self.move_item(list_key, new_text, project or None)
        done = [o for o in (reworded, moved) if o is not None and o.changed]
        if not done:
            return moved
        steps: list[Undo] = []
        for outcome in reversed(done):  # the last change is taken back first
            if outcome.undo is not None:
                steps += [replace(outcome.undo, steps=()), *outcome.undo.steps]
        undo = replace(steps[0], steps=tuple(steps[1:])) if steps else None
        message = "; ".join(o.message for o in done)
        return Outcome(True, message, done[-1].key, undo=undo)

    def _respell(
        self, tx: Transaction, list_key: str, old: dict[str, Any], new_text: str
    ) -> Outcome:
        """Same identity, other spelling (case, spaces): an edit in place, dated now."""
        noun = NOUNS[list_key]
        date_field = DATE_FIELDS[list_key]
        for item in _pooled(tx.session, list_key):
            if identity_key(item) == identity_key(old):
                item["text"] = new_text
                item[date_field] = self.store.clock()
        tx.audit(f"reword_{list_key}", list_key, text_hash(new_text))
        undo = Undo(
            "reword_item",
            f"back to: {old['text']}",
            (("list", list_key), ("match", new_text), ("text", old["text"])),
        )
        return Outcome(True, f"{noun} reworded: {new_text}", identity(new_text), undo=undo)

    def close_question(
        self, match: str, *, answer: str | None = None, as_decision: bool = False
    ) -> Outcome:
        """Close a question as answered (with an optional answer, which can become a
        decision in the same commit)."""
        answer = clean_text(answer, "answer", required=False)
        if as_decision and not answer:
            raise EmptyTextError("give the answer to record it as a decision")
        noted: Outcome | None = None
        with self.store.transaction("close_question") as tx:
            question = dict(self._one_item(tx.session, "open_questions", match))
            self._tombstone(tx.session, "open_questions", question, "answered", answer=answer)
            tx.audit("close_question", "open_questions", text_hash(question["text"]))
            if as_decision:
                # The answer goes where the question was (a global question: global).
                noted = self.note_decision(
                    answer,
                    why=f"answers the question: {question['text']}",
                    project=question.get("project") or None,
                )
        revive = Undo(
            "revive_item",
            f"reopen: {question['text']}",
            (("list", "open_questions"), ("item", question)),
        )
        if noted is not None and noted.undo is not None:
            undo = Undo(revive.op, revive.label, revive.args, (noted.undo,))
        else:
            undo = revive
        message = f"question closed: {question['text']}" + (
            f"; decision noted: {answer}" if noted is not None else ""
        )
        return Outcome(True, message, identity(question["text"]), undo=undo)

    def complete_next_action(self, match: str) -> Outcome:
        """Complete by exact identity, or by a substring matching exactly one action."""
        with self.store.transaction("complete_next_action") as tx:
            done = dict(self._one_item(tx.session, "next_actions", match))
            self._tombstone(tx.session, "next_actions", done, "completed")
            tx.audit("complete_next_action", "next_actions", text_hash(done["text"]))
        undo = Undo(
            "revive_item", f"reopen: {done['text']}", (("list", "next_actions"), ("item", done))
        )
        return Outcome(True, f"completed: {done['text']}", identity(done["text"]), undo=undo)

    def unpark_action(self, match: str) -> Outcome:
        """Bring a parked next action back to the live list (``added`` kept, so it takes
        its place by date); the oldest live one is parked in its stead if the list is
        full, as the JavaScript tool parks."""
        with self.store.transaction("unpark_action") as tx:
            parked = [
                i
                for i in well_formed_items(tx.session["current"]["parked_actions"])
                if not is_hidden(i) and self._in_scope(i, "next_actions")
            ]
            needle = identity(clean_text(match, "match"))
            hits = [i for i in parked if identity(i["text"]) == needle] or [
                i for i in parked if needle in identity(i["text"])
            ]
            if not hits:
                raise NoMatchError(f"no parked next action matches {match!r}")
            if len({identity_key(i) for i in hits}) > 1:
                raise AmbiguousMatchError(
                    f"{len(hits)} parked next actions match {match!r}; be more specific",
                    [i["text"] for i in hits],
                )
            item = hits[0]
            current = tx.session["current"]
            current["parked_actions"] = [i for i in current["parked_actions"] if i is not item]
            back = {k: v for k, v in item.items() if k != "parked_at"}
            # At the end, as memoir's addNext puts back a parked item: the oldest of the
            # others is the one a full list parks instead.
            current["next_actions"].append(back)
            tx.audit("unpark_action", "next_actions", text_hash(item["text"]))
            self._settle(tx.session)
            moved = [
                i["text"]
                for i in well_formed_items(current["parked_actions"])
                if i["text"] != item["text"]
                and self._in_scope(i, "next_actions")
                and i not in parked
            ]
        message = f"back on the list: {item['text']}"
        if moved:
            message += f" (the list is full; parked instead: {'; '.join(moved)})"
        return Outcome(True, message, identity(item["text"]))

    def record_session_end(
        self,
        summary: str,
        files_touched: Sequence[str] = (),
        duration_min: float | None = None,
        *,
        session_id: str | None = None,
    ) -> Outcome:
        summary = clean_text(summary, "summary")
        files = [clean_text(f, "file") for f in files_touched][:20]
        with self.store.transaction("record_session_end") as tx:
            state = tx.session
            entry: dict[str, Any] = {
                "date": self.store.clock(),
                "machine_id": self.store.machine.id,
                "summary": summary,
                "files_touched": files,
                "duration_min": duration_min,
            }
            if self.store.project:
                entry["project"] = self.store.project
                if self.store.project_label:
                    entry["project_label"] = self.store.project_label
            if session_id:
                entry["session_id"] = session_id
            history = [h for h in state["history"] if isinstance(h, dict)]
            same = [h for h in history if session_id and h.get("session_id") == session_id]
            if same:
                # One session keeps one row: updated in place, keeping its first date.
                entry["date"] = same[0].get("date") or entry["date"]
                history = [h for h in history if h not in same]
            history.insert(0, entry)
            tx.audit("record_session_end", "history")
            state["history"] = history
        return Outcome(True, f"session recorded: {summary}")

    # --- decisions ------------------------------------------------------------------------

    def note_decision(
        self,
        text: str,
        why: str | None = None,
        rejected: str | None = None,
        *,
        provenance: dict[str, Any] | None = None,
        valid_from: str | None = None,
        valid_until: str | None = None,
        project: str | bool | None = False,
    ) -> Outcome:
        """Pin a decision. ``provenance`` (source, extractor, session_id, …) is kept as
        fields on the decision, never folded into ``why``; its ``project`` scopes it.
        ``project`` (an id, or None for global) places it where the item it comes from
        was (a closed question's answer); False: this store's project."""
        text = clean_text(text, "decision")
        why = clean_text(why, "why", required=False)
        rejected = clean_text(rejected, "rejected", required=False)
        from memoir_tui.core.format.secrets import ensure_no_secrets_together  # compiled lazily

        ensure_no_secrets_together([("decision", text), ("why", why), ("rejected", rejected)])
        extra = {**clean_provenance(provenance), **validity_window(valid_from, valid_until)}
        key = text_hash(text)
        with self.store.transaction("note_decision") as tx:
            # what is archived already, read before the pool takes the archive in
            before = _overflow_texts(tx.session, "decisions")
            decisions = _pool(tx.session, "decisions")
            for d in well_formed_items(decisions):
                if decision_key(d) != key:
                    continue
                # The same words hidden in this project (or, for an unscoped note, in any
                # project: a scoped hiding hides the unscoped copy too) stay forgotten.
                if is_hidden(d) and (
                    same_project(d.get("project"), self.store.project) or not self.store.project
                ):
                    raise ForgottenDecisionError(
                        "a decision with this text was forgotten"
                        + (f" on {readable_date(d.get('hidden_at'))}" if d.get("hidden_at") else "")
                        + "; forgetting is permanent, so it cannot be noted again. Reword it if "
                        "it is genuinely a new decision."
                    )
            entry = self._stamp(text, "date", **extra)
            if project is not False:
                entry.pop("project", None)
                entry.pop("project_label", None)
                if project:
                    entry["project"] = project
                    if project == self.store.project and self.store.project_label:
                        entry["project_label"] = self.store.project_label
            ident = identity_key(entry)
            previous = next(
                (dict(d) for d in well_formed_items(decisions) if identity_key(d) == ident), None
            )
            if previous is None and project is False:
                # The same words already seen here (global or shared) are updated where
                # they are, not doubled with a copy stamped for this project.
                seen = next(
                    (
                        dict(d)
                        for d in well_formed_items(decisions)
                        if decision_key(d) == key
                        and not is_hidden(d)
                        and self._in_scope(d, "decisions")
                    ),
                    None,
                )
                if seen is not None:
                    previous = seen
                    entry.pop("project", None)
                    entry.pop("project_label", None)
                    for field in ("project", "project_label"):
                        if seen.get(field):
                            entry[field] = seen[field]
                    ident = identity_key(entry)
            kept = [d for d in decisions if not (has_text(d) and identity_key(d) == ident)]
            tx.audit("note_decision", "decisions", key)
            if why:
                entry["why"] = why
            if rejected:
                entry["rejected"] = rejected
            kept.append(entry)
            rotated = self._store_decisions(tx.session, kept, before)
        if previous is None:
            undo = Undo("retract_decision", f"take back: {text}", (("key", key),))
        else:
            undo = Undo("restore_decision", f"restore: {text}", (("entry", previous),))
        message = f"decision noted: {text}"
        if rotated:
            message += f" (the list is full; archived, still kept: {'; '.join(rotated)})"
        return Outcome(True, message, key, rotated, undo)

    def _store_decisions(
        self, state: dict[str, Any], decisions: list[Any], before: frozenset[str] = frozenset()
    ) -> tuple[str, ...]:
        """Write the pooled decisions back, re-split into live and archived by the cap;
        returns the texts this write moved into the archive (kept, not pinned)."""
        state["current"]["decisions"] = decisions
        state["current"]["archived_decisions"] = []
        self._settle(state)
        return tuple(
            d["text"]
            for d in well_formed_items(state["current"]["archived_decisions"])
            if d["text"] not in before and self._in_scope(d, "decisions")
        )

    def _retract(self, state: dict[str, Any], key: str, reason: str, **extra: Any) -> None:
        current = state["current"]
        project = extra.pop("project", None)
        retracted = [
            t
            for t in current.get("retracted_decisions") or []
            if isinstance(t, dict)
            and not (t.get("text_hash") == key and (t.get("project") or None) == (project or None))
        ]
        record: dict[str, Any] = {"text_hash": key, "done_at": self.store.clock(), "reason": reason}
        if project:
            record["project"] = project
        record.update({k: v for k, v in extra.items() if v not in (None, "")})
        retracted.append(record)
        current["retracted_decisions"] = _sorted_capped(retracted, "done_at", len(retracted))

    def retract_decision(self, key: str, *, reason: str = "undone") -> Outcome:
        """Take back a decision noted by mistake (undo). Not forgetting: the same text may
        be noted again later (a temporal tombstone; hiding is the permanent one)."""
        with self.store.transaction("retract_decision") as tx:
            target = dict(self._decision(tx.session, key))
            if is_hidden(target):
                raise ForgottenDecisionError("that decision is forgotten already")
            ident = identity_key(target)
            tx.session["current"]["decisions"] = [
                d
                for d in tx.session["current"]["decisions"]
                if not (has_text(d) and identity_key(d) == ident)
            ]
            self._retract(tx.session, key, reason, project=target.get("project"))
            tx.audit("retract_decision", "decisions", key)
        undo = Undo("restore_decision", f"restore: {target['text']}", (("entry", target),))
        return Outcome(True, f"decision taken back: {target['text']}", key, undo=undo)

    def restore_decision(self, entry: dict[str, Any]) -> Outcome:
        """Put a decision back as it was (its why, rejected and provenance), dated now."""
        key = decision_key(entry)
        ident = identity_key(entry)
        with self.store.transaction("restore_decision") as tx:
            decisions = _pool(tx.session, "decisions")
            for d in well_formed_items(decisions):
                if identity_key(d) == ident and is_hidden(d):
                    raise ForgottenDecisionError(
                        "that decision was forgotten since; forgetting cannot be undone"
                    )
            previous = next(
                (dict(d) for d in well_formed_items(decisions) if identity_key(d) == ident), None
            )
            restored = {k: v for k, v in entry.items() if k not in ("hidden", "hidden_at")}
            restored["date"] = self.store.clock()
            restored["machine_id"] = self.store.machine.id
            kept = [d for d in decisions if not (has_text(d) and identity_key(d) == ident)]
            kept.append(restored)
            self._store_decisions(tx.session, kept)
            tx.audit("restore_decision", "decisions", key)
        if previous is None:
            undo = Undo("retract_decision", f"take back: {entry['text']}", (("key", key),))
        else:
            undo = Undo("restore_decision", f"restore: {entry['text']}", (("entry", previous),))
        return Outcome(True, f"decision restored: {entry['text']}", key, undo=undo)

    def edit_decision(
        self,
        key: str,
        *,
        text: str | None = None,
        why: str | None = None,
        rejected: str | None = None,
        project: str | bool | None = False,
    ) -> Outcome:
        """Change why and rejected in place (dated now, so the edit wins merges); a new
        text is a new identity: the new decision is written and the old wording is
        forgotten (hidden for ever, like ``hide_decision``), which cannot be undone.
        The decision keeps its project unless ``project`` moves it (an id, or None for
        global; False keeps it): one commit, and undone as one only when both parts can be."""
        if project is not False:
            with self.store.transaction("edit_decision"):
                edited = self.edit_decision(key, text=text, why=why, rejected=rejected)
                moved = self.move_decision(edited.key, project or None)
            done = [o for o in (edited, moved) if o.changed]
            if not done:
                return moved
            undo = done[0].undo if len(done) == 1 else None
            if len(done) == 2 and edited.undo is not None and moved.undo is not None:
                steps = (*moved.undo.steps, replace(edited.undo, steps=()), *edited.undo.steps)
                undo = replace(moved.undo, steps=steps)
            return Outcome(True, "; ".join(o.message for o in done), moved.key, undo=undo)
        with self.store.transaction("edit_decision") as tx:
            old = dict(self._decision(tx.session, key))
            if is_hidden(old):
                raise ForgottenDecisionError("a forgotten decision cannot be edited")
            new_text = old["text"] if text is None else clean_text(text, "decision")
            new_why = old.get("why", "") if why is None else clean_text(why, "why", required=False)
            new_rejected = (
                old.get("rejected", "")
                if rejected is None
                else clean_text(rejected, "rejected", required=False)
            )
            from memoir_tui.core.format.secrets import ensure_no_secrets_together

            ensure_no_secrets_together(
                [("decision", new_text), ("why", new_why), ("rejected", new_rejected)]
            )
            if identity(new_text) != identity(old["text"]):
                return self._reword_decision(tx, old, new_text, new_why, new_rejected)
            if (new_text, new_why, new_rejected) == (
                old["text"],
                old.get("why", ""),
                old.get("rejected", ""),
            ):
                return Outcome(False, "nothing to change", key)
            current = {k: v for k, v in old.items() if k not in ("why", "rejected")}
            current.update(text=new_text, date=self.store.clock(), machine_id=self.store.machine.id)
            if new_why:
                current["why"] = new_why
            if new_rejected:
                current["rejected"] = new_rejected
            decisions = tx.session["current"]["decisions"]
            ident = identity_key(old)
            kept = [d for d in decisions if not (has_text(d) and identity_key(d) == ident)]
            kept.append(current)
            self._store_decisions(tx.session, kept)
            tx.audit("edit_decision", "decisions", key)
        undo = Undo("restore_decision", f"restore: {old['text']}", (("entry", old),))
        return Outcome(True, f"decision edited: {new_text}", key, undo=undo)

    @_unchanged_is_outcome
    def move_decision(self, key: str, project: str | None) -> Outcome:
        """Move a decision to another project (None: global) — an explicit act, never a
        side effect of editing. Its copy in the old project is taken back (a temporal
        tombstone, reason ``moved``: not forgotten, the words may be noted there again)."""
        project = project or None
        with self.store.transaction("move_decision") as tx:
            old = dict(self._decision(tx.session, key))
            if is_hidden(old):
                raise ForgottenDecisionError("a forgotten decision cannot be moved")
            where = _where(
                readable_project(project, self._project_names(tx.session)) if project else None
            )
            if (old.get("project") or None) == project:
                raise _Unchanged(f"the decision is already {where.removeprefix('to ')}")
            decisions = _pool(tx.session, "decisions")
            if any(
                decision_key(d) == key and (d.get("project") or None) == project
                for d in well_formed_items(decisions)
            ):
                raise ForgottenDecisionError(
                    f"a decision with these words is already listed (or was forgotten) "
                    f"{where.replace('to ', 'in ', 1)}"
                )
            ident = identity_key(old)
            kept = [d for d in decisions if not (has_text(d) and identity_key(d) == ident)]
            self._retract(tx.session, key, "moved", project=old.get("project"))
            fresh = {
                k: v
                for k, v in old.items()
                if k not in ("project", "project_label", "date", "machine_id")
            }
            fresh.update(date=self.store.clock(), machine_id=self.store.machine.id)
            if project:
                fresh["project"] = project
                if project == self.store.project and self.store.project_label:
                    fresh["project_label"] = self.store.project_label
            kept.append(fresh)
            self._store_decisions(tx.session, kept)
            tx.audit("move_decision", "decisions", key)
        undo = Undo(
            "retract_decision",
            f"move back: {old['text']}",
            (("key", key),),
            (Undo("restore_decision", f"restore: {old['text']}", (("entry", old),)),),
        )
        return Outcome(True, f"decision moved {where}: {old['text']}", key, undo=undo)

    def _reword_decision(
        self, tx: Transaction, old: dict[str, Any], text: str, why: str, rejected: str
    ) -> Outcome:
        key, new_key = decision_key(old), text_hash(text)
        decisions = tx.session["current"]["decisions"]
        project = old.get("project") or None
        for d in well_formed_items(decisions):
            if decision_key(d) == new_key and (d.get("project") or None) == project:
                raise ForgottenDecisionError(
                    "a decision with the new text exists or was forgotten; choose another wording"
                )
        ident = identity_key(old)
        for d in well_formed_items(decisions):
            if identity_key(d) == ident:
                d["hidden"] = True
                d["hidden_at"] = self.store.clock()
                d["reworded_to"] = new_key
        fresh = {
            k: v
            for k, v in old.items()
            if k not in ("text", "why", "rejected", "date", "machine_id", "hidden", "hidden_at")
        }
        stamp = self._stamp(text, "date")
        stamp.pop("project", None)  # a new wording keeps the decision's project
        stamp.pop("project_label", None)
        fresh.update(stamp)
        fresh["reworded_from"] = key
        if why:
            fresh["why"] = why
        if rejected:
            fresh["rejected"] = rejected
        decisions.append(fresh)
        self._store_decisions(tx.session, decisions)
        tx.audit("reword_decision", "decisions", new_key)
        return Outcome(
            True,
            f"decision reworded: {text} (the old wording is forgotten: that cannot be undone)",
            new_key,
        )

    def find_decisions(self, needle: str, *, include_hidden: bool = False) -> list[Decision]:
        ws = self.working_set()
        pool = ws.all_decisions + (ws.tombstones if include_hidden else ())
        return [d for d in pool if d.matches(needle)]

    def find_decision(
        self,
        needle: str,
        *,
        include_hidden: bool = False,
        all_projects: bool = False,
        hidden_substrings: bool = False,
    ) -> Decision:
        """The one way every face says "which decision": exactly one, or a refusal.

        In order: a 64-hex identity hash, then the exact text (trimmed and case-folded)
        — both over every project, so a leaked secret can be forgotten from anywhere
        — then a substring matching exactly one visible decision in scope (every
        project with ``all_projects``). ``include_hidden`` lets a hash or the exact
        text name a hidden decision too (to purge it); a substring reaches a forgotten
        one only with ``hidden_substrings`` — for a person at their own terminal; an
        agent's ambiguous answer must never list forgotten text.
        """
        from memoir_tui.core.rules.needle import clean_needle  # a needle, not a write

        needle = clean_needle(needle, "match")
        everywhere = self.working_set(all_projects=True)
        scoped = all_projects or not self.store.scoped
        here = everywhere if scoped else self.working_set()
        pool = everywhere.all_decisions + (everywhere.tombstones if include_hidden else ())
        # Among copies of one text in several projects, this scope's own comes first.
        mine = {(d.key, d.project) for d in here.all_decisions + here.tombstones}
        pool = tuple(sorted(pool, key=lambda d: (d.key, d.project) not in mine))
        wanted_hash = needle.lower() if is_text_hash(needle.lower()) else None
        if wanted_hash is not None:
            hit = next((d for d in pool if d.key == wanted_hash), None)
            if hit is not None:
                return hit
        wanted = identity(needle)
        exact = [d for d in pool if not d.purged and identity(d.text) == wanted]
        if exact:
            return exact[0]
        visible = here.all_decisions
        if include_hidden and hidden_substrings:
            visible += tuple(d for d in here.tombstones if not d.purged)
        hits = [d for d in visible if wanted in identity(d.text)]
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise AmbiguousMatchError(
                f"{len(hits)} decisions match {needle!r}; be more specific",
                [d.text for d in hits],
            )
        if not include_hidden and any(
            not d.purged and identity(d.text) == wanted for d in everywhere.tombstones
        ):
            raise NoMatchError(
                f"{needle!r} names a decision that is already forgotten (hidden); "
                "purging it is what is left to do"
            )
        elsewhere = [d for d in everywhere.all_decisions if wanted in identity(d.text)]
        if elsewhere and not scoped:
            raise NoMatchError(
                f"no visible decision in this project matches {needle!r}; "
                f"{len(elsewhere)} in other projects do (search all projects to see them)"
            )
        raise NoMatchError(f"no visible decision matches {needle!r}")

    def resolve_decision(self, needle: str) -> Decision:
        """Exactly one visible decision named by ``needle`` (see ``find_decision``)."""
        return self.find_decision(needle)

    def _decision(self, state: dict[str, Any], key: str) -> dict[str, Any]:
        """The decision (live or archived, pooled into the live list for this write) whose
        text hash is ``key``; among copies in several projects, this scope's own, else the
        only one, else a refusal naming the projects."""
        decisions = _pool(state, "decisions")
        hits = [d for d in well_formed_items(decisions) if decision_key(d) == key]
        if not hits:
            raise NoMatchError(
                "no decision with that identity (it may have been changed elsewhere)"
            )
        if len({identity_key(d) for d in hits}) == 1:
            return hits[0]
        mine = [d for d in hits if self._in_scope(d, "decisions") or self._stamps_same(d)]
        if len({identity_key(d) for d in mine}) == 1:
            return mine[0]
        names = self._project_names(state)
        where = sorted(
            {readable_project(str(d.get("project") or ""), names) or "global" for d in hits}
        )
        raise AmbiguousMatchError(
            f"that decision is recorded in {len(where)} projects ({', '.join(where)}); "
            "open the one you mean",
            [d["text"] for d in hits],
        )

    @_unchanged_is_outcome
    def hide_decision(self, key: str) -> Outcome:
        """Hide for ever: the row stays as a tombstone so the hiding spreads on merge."""
        with self.store.transaction("hide_decision") as tx:
            state = tx.session
            target = self._decision(state, key)
            if is_hidden(target):
                raise _Unchanged("that decision is already hidden")
            target["hidden"] = True
            target["hidden_at"] = self.store.clock()
            tx.audit("hide_decision", "decisions", key)
            text = target["text"]
            self._settle(state)
        return Outcome(True, f"decision hidden: {text}", key)

    def purge_decision(self, key: str) -> Outcome:
        """Hide and redact: text, why and rejected leave the session and the review queue
        in one commit, in every project that holds the words; only the hash stays.
        Purging again scrubs the queue again."""
        with self.store.transaction("purge_decision", files=(SESSION, REVIEW, FILES)) as tx:
            state = tx.session
            decisions = _pool(state, "decisions")
            copies = [d for d in well_formed_items(decisions) if decision_key(d) == key]
            if not copies:
                raise NoMatchError(
                    "no decision with that identity (it may have been changed elsewhere)"
                )
            already = all(is_purged(d) for d in copies)
            if not already:
                words = [d.get(k) for d in copies for k in ("text", "why", "rejected")]
                scrub_quarantined_copies(
                    tx, self.store.root, [w for w in words if w and w != PURGED_TEXT]
                )
                redacted: dict[str, dict[str, Any]] = {}
                for target in copies:
                    hidden_at = target.get("hidden_at") if is_hidden(target) else None
                    gone = purged_form({**target, "text_hash": key})
                    gone["hidden_at"] = (
                        hidden_at if isinstance(hidden_at, str) else self.store.clock()
                    )
                    redacted.setdefault(identity_key(gone), gone)
                # Every copy of these words goes, in every project, not just the first.
                rest = [d for d in decisions if not (has_text(d) and decision_key(d) == key)]
                rest.extend(redacted.values())
                state["current"]["decisions"] = rest
                self._settle(state)
            for record in state["current"].get("retracted_decisions") or []:
                if isinstance(record, dict) and record.get("text_hash") == key:
                    record.pop("text", None)  # a rotated decision kept its words for people
            # A captured candidate or a near-hidden note may still hold the text.
            scrubbed = purge_from_review(tx.review, key, self.store.clock)
            if not already or scrubbed:
                tx.audit("purge_decision", "decisions", key)
                # The caches (recall index, sync copy) let go after the commit; the marker
                # makes the next command do it if this process dies first.
                from memoir_tui.core.services.purge_marker import stage_cache_scrub

                stage_cache_scrub(tx)
        if already and not scrubbed:
            return Outcome(False, "that decision is already purged", key)
        return Outcome(True, "decision purged: only its hash remains", key)


def scrub_quarantined_copies(tx: Transaction, root: Path, words: Sequence[str]) -> int:
    """A purge reaches the copies kept aside of damaged or newer files too: every
    occurrence of the purged words (as written, and as JSON writes them) becomes
    ``[purged]``; the rest of each copy stays as it was."""
    import json

    forms = sorted(
        {
            w
            for word in words
            for w in (word, json.dumps(word, ensure_ascii=False)[1:-1], json.dumps(word)[1:-1])
            if len(w) >= 3
        },
        key=len,
        reverse=True,
    )
    changed = 0
    for pattern in QUARANTINED:
        for copy_path in sorted(root.glob(pattern)):
            data = tx.read_bytes(copy_path)
            if data is None:
                continue
            text = data.decode("utf-8", "surrogateescape")
            new = text
            for form in forms:
                new = new.replace(form, "[purged]")
            new = _scrub_torn_tail(new, forms)
            if new != text:
                tx.write_bytes(copy_path, new.encode("utf-8", "surrogateescape"), scan=False)
                changed += 1
    return changed


def _scrub_torn_tail(text: str, forms: Sequence[str], *, at_least: int = 8) -> str:
    """A damaged copy is most often a torn write: it may end in the first part of a
    purged word. That part goes too."""
    for form in forms:
        for cut in range(len(form) - 1, at_least - 1, -1):
            if text.endswith(form[:cut]):
                return text[: len(text) - cut] + "[purged]"
    return text


def _pool(state: dict[str, Any], list_key: str) -> list[Any]:
    """Move ``list_key``'s overflow (archived or parked) into it for a write, as the
    JavaScript tool pools live and archived decisions before it hides one; the write's
    settling splits them again. Returns the live list."""
    current = state["current"]
    overflow = OVERFLOW_LIST[list_key]
    live = current.get(list_key) if isinstance(current.get(list_key), list) else []
    extra = current.get(overflow) if isinstance(current.get(overflow), list) else []
    if list_key == "next_actions":
        return live  # parked actions stay parked until they are completed or unparked
    current[list_key] = live + extra
    current[overflow] = []
    return current[list_key]


def _pooled(state: dict[str, Any], list_key: str) -> list[dict[str, Any]]:
    """Every item of ``list_key`` and of its overflow list (read only)."""
    current = state["current"]
    return well_formed_items(current.get(list_key)) + well_formed_items(
        current.get(OVERFLOW_LIST[list_key])
    )


def _drop_identity(state: dict[str, Any], list_key: str, key: str) -> None:
    """Take every copy of one identity (text and project) off a list and its overflow."""
    current = state["current"]
    for name in (list_key, OVERFLOW_LIST[list_key]):
        if isinstance(current.get(name), list):
            current[name] = [
                i for i in current[name] if not (has_text(i) and identity_key(i) == key)
            ]


def _overflow_texts(state: dict[str, Any], list_key: str) -> frozenset[str]:
    return frozenset(
        i["text"] for i in well_formed_items(state["current"].get(OVERFLOW_LIST[list_key]))
    )


def _is_live_item(item: Mapping[str, Any], list_key: str) -> bool:
    from memoir_tui.core.rules.scope import is_visible

    return is_visible(item, list_name=list_key, project=None, all_projects=True)


def _where(project: str | None) -> str:
    return f"to project {project}" if project else "to global (every project)"
