"""``Store``: the one door for every change to a memoir store.

Each mutation takes the session lock, reads the file, changes it, writes it
atomically and returns an ``Outcome`` saying what happened in a sentence a
person (or a model) can read. Screens, MCP tools and CLI commands call these
methods; none of them touches ``session.json`` directly.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.config import Config, load_config
from memoir_tui.core.errors import (
    AmbiguousMatchError,
    EmptyTextError,
    ForgottenDecisionError,
    InvalidDateError,
    NoMatchError,
    ReadOnlyStoreError,
    TextTooLongError,
)
from memoir_tui.core.fsutil import sweep_stale_temps
from memoir_tui.core.identity import (
    identity,
    is_iso_date,
    iso_now,
    js_trim,
    parse_date_ms,
    text_hash,
)
from memoir_tui.core.lock import session_lock
from memoir_tui.core.machine import Machine, known_machine, load_machine
from memoir_tui.core.merge import (
    decision_key,
    is_hidden,
    is_purged,
    purged_form,
    well_formed_items,
)
from memoir_tui.core.model import Decision, WorkingSet, working_set
from memoir_tui.core.session import SESSION_FILE, LoadedSession, load_session, save_session

MAX_TEXT_BYTES = 8 * 1024
log = logging.getLogger(__name__)


def default_store_dir(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """``$MEMOIR_HOME`` if set, else the JavaScript tool's ``~/.config/memoir``."""
    env = os.environ if environ is None else environ
    override = env.get("MEMOIR_HOME")
    if override:
        return Path(os.path.expanduser(override))
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "memoir"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a mutation did, for the face to show."""

    changed: bool
    message: str
    key: str = ""
    rotated: tuple[str, ...] = ()  # texts a full list pushed out to make room


def clean_text(text: Any, what: str = "text", *, required: bool = True) -> str:
    """Refuse empty, whitespace-only and oversized text; return it trimmed."""
    if text is None and not required:
        return ""
    if not isinstance(text, str):
        raise EmptyTextError(f"{what} must be a string")
    cleaned = js_trim(text)
    if not cleaned:
        if required:
            raise EmptyTextError(f"{what} is empty; give some text")
        return ""
    if len(cleaned.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise TextTooLongError(f"{what} is longer than {MAX_TEXT_BYTES // 1024} KB; shorten it")
    # Memory is copied into instruction files and synced: a secret never goes in.
    from memoir_tui.core.secrets import ensure_no_secrets  # its patterns cost ~25 ms to build

    ensure_no_secrets(cleaned, what)
    return cleaned


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


def clean_provenance(provenance: dict[str, Any] | None) -> dict[str, str]:
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


class _Unchanged(Exception):
    """Raised inside a mutation to abandon it without writing."""


def _unchanged_is_outcome(method: Callable[..., Outcome]) -> Callable[..., Outcome]:
    """A mutation that found nothing to do reports it instead of writing."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Outcome:
        try:
            return method(*args, **kwargs)
        except _Unchanged as unchanged:
            return Outcome(False, str(unchanged))

    return wrapper


def _has_text(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("text"), str)


def _sorted_capped(items: list[dict[str, Any]], date_field: str, cap: int) -> list[dict[str, Any]]:
    return sorted(items, key=lambda i: parse_date_ms(i.get(date_field)), reverse=True)[:cap]


class Store:
    """A memoir store directory: ``session.json``, ``memory/`` and our config."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        clock: Callable[[], str] = iso_now,
        machine_label: str | None = None,
        actor: str = "cli",
        project: str | None = None,
    ) -> None:
        """``actor`` names the face in the audit log; ``project`` (a scope id) stamps
        new items and scopes what ``working_set`` shows. None: no stamping, all projects."""
        self.root = Path(root) if root is not None else default_store_dir()
        self.config = config or load_config(self.root)
        self.clock = clock
        self.actor = actor
        self.project = project
        self._machine_label = machine_label
        self._machine: Machine | None = None
        self._audit_queue: list[tuple[str, str, str]] = []

    # --- reading ----------------------------------------------------------

    @property
    def session_path(self) -> Path:
        return self.root / SESSION_FILE

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def machine(self) -> Machine:
        if self._machine is None:
            self._machine = load_machine(self.root, label=self._machine_label)
        return self._machine

    @property
    def machine_label(self) -> str:
        """This machine's display label; reading it never creates ``machine.id``."""
        return self._machine.label if self._machine else self._machine_label or socket.gethostname()

    def known_machine(self) -> Machine | None:
        """This machine's identity if the store has one; reading never creates it."""
        return self._machine or known_machine(self.root, label=self._machine_label)

    def load(self) -> LoadedSession:
        """A consistent snapshot (writes are atomic renames, so no lock is needed to read)."""
        return load_session(self.session_path, now=self.clock())

    def working_set(self, *, all_projects: bool = False, at_ms: int | None = None) -> WorkingSet:
        """What is live for this store's project (every project when it has none);
        with ``at_ms``, what was believed and valid at that time."""
        return working_set(
            self.load().state,
            project=self.project,
            all_projects=all_projects or not self.project,
            at_ms=at_ms,
            believed_at_ms=at_ms,  # "as of T": recorded by then and valid then
        )

    @property
    def read_only(self) -> bool:
        return self.load().read_only

    # --- the critical section ------------------------------------------------

    @contextmanager
    def _mutation(self) -> Iterator[dict[str, Any]]:
        """Lock, read, let the caller mutate, stamp the machine, write."""
        with session_lock(self.session_path, wait_seconds=self.config.lock_wait_seconds):
            loaded = load_session(self.session_path, now=self.clock())
            if loaded.read_only:
                raise ReadOnlyStoreError(
                    f"{self.session_path} is from a newer memoir format; this store is read-only "
                    "until memoir-tui is upgraded."
                )
            state = loaded.state
            sweep_stale_temps(self.session_path)
            self._audit_queue.clear()
            yield state
            self._touch_machine(state)
            save_session(self.session_path, state, now=self.clock())
            self._flush_audit()
        if self.config.inject.enabled:
            # outside the lock: it reads the new state and writes other files
            from memoir_tui.core.inject import inject_if_enabled

            inject_if_enabled(self)

    def audit(self, operation: str, list_name: str, key: str = "") -> None:
        """Record a change made outside the session file (review queue, trash, sync)."""
        self._audit_queue.append((operation, list_name, key))
        self._flush_audit()

    def _audit(self, operation: str, list_name: str, key: str = "") -> None:
        """Queue an audit record (identity hash only) for when the write lands."""
        self._audit_queue.append((operation, list_name, key))

    def _flush_audit(self) -> None:
        from memoir_tui.core.audit import AuditRecord, append_audit

        for operation, list_name, key in self._audit_queue:
            try:
                append_audit(
                    self.root,
                    AuditRecord(
                        time=self.clock(),
                        actor=self.actor,
                        operation=operation,
                        list_name=list_name,
                        identity_hash=key,
                        machine_id=self.machine.id,
                    ),
                )
            except OSError as exc:  # the change is saved; a lost audit line must not undo it
                log.warning("audit record not written: %s", exc)
        self._audit_queue.clear()

    def _touch_machine(self, state: dict[str, Any]) -> None:
        machine = self.machine
        entry = state["machines"].get(machine.id)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry["label"] = machine.label
        entry["last_seen"] = self.clock()
        state["machines"][machine.id] = entry

    def _stamp(self, text: str, date_field: str, **extra: Any) -> dict[str, Any]:
        item: dict[str, Any] = {
            "text": text,
            "machine_id": self.machine.id,
            date_field: self.clock(),
        }
        if self.project:
            item["project"] = self.project
        item.update({k: v for k, v in extra.items() if v not in (None, "")})
        return item

    # --- working set -----------------------------------------------------------

    @_unchanged_is_outcome
    def _add_item(
        self,
        list_key: str,
        date_field: str,
        cap: int,
        text: str,
        noun: str,
        validity: dict[str, str] | None = None,
    ) -> Outcome:
        text = clean_text(text, noun)
        validity = validity or {}
        with self._mutation() as state:
            items = state["current"][list_key]
            ident = identity(text)
            existing = [i for i in well_formed_items(items) if identity(i["text"]) == ident]
            if existing:
                raise _Unchanged(f"{noun} already listed: {existing[0]['text']}")
            items.append(self._stamp(text, date_field, **validity))
            self._audit(f"add_{list_key}", list_key, text_hash(text))
            others = [i for i in items if not _has_text(i)]
            kept = _sorted_capped(well_formed_items(items), date_field, cap)
            rotated = tuple(i["text"] for i in well_formed_items(items) if i not in kept)
            state["current"][list_key] = kept + others
        message = f"{noun} added: {text}"
        if rotated:
            message += f" (the list is full; rotated out: {'; '.join(rotated)})"
        return Outcome(True, message, identity(text), rotated)

    def add_goal(
        self, text: str, *, valid_from: str | None = None, valid_until: str | None = None
    ) -> Outcome:
        window = validity_window(valid_from, valid_until)
        return self._add_item("goals", "set_on", self.config.caps.goals, text, "goal", window)

    def add_next_action(self, text: str) -> Outcome:
        return self._add_item(
            "next_actions", "added", self.config.caps.next_actions, text, "next action"
        )

    def ask_question(self, text: str) -> Outcome:
        return self._add_item(
            "open_questions", "asked", self.config.caps.open_questions, text, "question"
        )

    def complete_next_action(self, match: str) -> Outcome:
        """Complete by exact identity, or by a substring matching exactly one action."""
        needle = identity(clean_text(match, "match"))
        with self._mutation() as state:
            current = state["current"]
            actions = well_formed_items(current["next_actions"])
            exact = [a for a in actions if identity(a["text"]) == needle]
            hits = exact or [a for a in actions if needle in identity(a["text"])]
            if not hits:
                raise NoMatchError(f"no next action matches {match!r}")
            if len({identity(a["text"]) for a in hits}) > 1:
                raise AmbiguousMatchError(
                    f"{len(hits)} next actions match {match!r}; be more specific",
                    [a["text"] for a in hits],
                )
            done = hits[0]
            ident = identity(done["text"])
            current["next_actions"] = [
                a
                for a in current["next_actions"]
                if not (_has_text(a) and identity(a["text"]) == ident)
            ]
            tombstones = [
                t
                for t in well_formed_items(current.get("completed_actions"))
                if identity(t["text"]) != ident
            ]
            tombstones.append({"text": done["text"], "done_at": self.clock()})
            self._audit("complete_next_action", "next_actions", text_hash(done["text"]))
            current["completed_actions"] = _sorted_capped(
                tombstones, "done_at", self.config.caps.completed_actions
            )
        return Outcome(True, f"completed: {done['text']}", ident)

    def record_session_end(
        self, summary: str, files_touched: Sequence[str] = (), duration_min: float | None = None
    ) -> Outcome:
        summary = clean_text(summary, "summary")
        with self._mutation() as state:
            entry: dict[str, Any] = {
                "date": self.clock(),
                "machine_id": self.machine.id,
                "summary": summary,
                "files_touched": [clean_text(f, "file") for f in files_touched][:20],
                "duration_min": duration_min,
            }
            history = [h for h in state["history"] if isinstance(h, dict)]
            history.append(entry)
            self._audit("record_session_end", "history")
            state["history"] = _sorted_capped(history, "date", self.config.caps.history)
        return Outcome(True, f"session recorded: {summary}")

    # --- decisions -----------------------------------------------------------------

    def note_decision(
        self,
        text: str,
        why: str | None = None,
        rejected: str | None = None,
        *,
        provenance: dict[str, Any] | None = None,
        valid_from: str | None = None,
        valid_until: str | None = None,
    ) -> Outcome:
        """Pin a decision. ``provenance`` (source, extractor, session_id, …) is kept as
        fields on the decision, never folded into ``why``; its ``project`` scopes it."""
        text = clean_text(text, "decision")
        why = clean_text(why, "why", required=False)
        rejected = clean_text(rejected, "rejected", required=False)
        extra = {**clean_provenance(provenance), **validity_window(valid_from, valid_until)}
        key = text_hash(text)
        with self._mutation() as state:
            decisions = state["current"]["decisions"]
            for d in well_formed_items(decisions):
                if decision_key(d) != key:
                    continue
                if is_hidden(d):
                    raise ForgottenDecisionError(
                        "a decision with this text was forgotten"
                        + (f" on {d.get('hidden_at')}" if d.get("hidden_at") else "")
                        + "; forgetting is permanent, so it cannot be noted again. Reword it if "
                        "it is genuinely a new decision."
                    )
            kept = [d for d in decisions if not (_has_text(d) and decision_key(d) == key)]
            entry = self._stamp(text, "date", **extra)
            self._audit("note_decision", "decisions", key)
            if why:
                entry["why"] = why
            if rejected:
                entry["rejected"] = rejected
            kept.append(entry)
            state["current"]["decisions"] = self._cap_decisions(kept)
        return Outcome(True, f"decision noted: {text}", key)

    def _cap_decisions(self, decisions: list[Any]) -> list[Any]:
        caps = self.config.caps
        good = well_formed_items(decisions)
        others = [d for d in decisions if not _has_text(d)]
        visible = _sorted_capped([d for d in good if not is_hidden(d)], "date", caps.decisions)
        hidden = _sorted_capped([d for d in good if is_hidden(d)], "date", caps.hidden_decisions)
        return visible + hidden + others

    def find_decisions(self, needle: str, *, include_hidden: bool = False) -> list[Decision]:
        ws = self.working_set()
        pool = ws.decisions + (ws.tombstones if include_hidden else ())
        return [d for d in pool if d.matches(needle)]

    def resolve_decision(self, needle: str) -> Decision:
        """Exactly one visible decision whose text contains ``needle`` (or equals it)."""
        needle_id = identity(clean_text(needle, "match"))
        visible = self.working_set().decisions
        exact = [d for d in visible if identity(d.text) == needle_id]
        hits = exact or [d for d in visible if needle_id in identity(d.text)]
        if not hits:
            raise NoMatchError(f"no visible decision matches {needle!r}")
        if len(hits) > 1:
            raise AmbiguousMatchError(
                f"{len(hits)} decisions match {needle!r}; be more specific",
                [d.text for d in hits],
            )
        return hits[0]

    @_unchanged_is_outcome
    def hide_decision(self, key: str) -> Outcome:
        """Hide for ever: the row stays as a tombstone so the hiding spreads on merge."""
        with self._mutation() as state:
            target = self._decision_by_key(state, key)
            if is_hidden(target):
                raise _Unchanged("that decision is already hidden")
            target["hidden"] = True
            target["hidden_at"] = self.clock()
            self._audit("hide_decision", "decisions", key)
            text = target["text"]
            state["current"]["decisions"] = self._cap_decisions(state["current"]["decisions"])
        return Outcome(True, f"decision hidden: {text}", key)

    @_unchanged_is_outcome
    def purge_decision(self, key: str) -> Outcome:
        """Hide and redact: text, why and rejected leave the file; only the hash stays."""
        with self._mutation() as state:
            decisions = state["current"]["decisions"]
            target = self._decision_by_key(state, key)
            if is_purged(target):
                raise _Unchanged("that decision is already purged")
            hidden_at = target.get("hidden_at") if is_hidden(target) else None
            redacted = purged_form({**target, "text_hash": decision_key(target)})
            redacted["hidden_at"] = hidden_at if isinstance(hidden_at, str) else self.clock()
            # Every copy of this identity goes, not just the first.
            rest = [d for d in decisions if not (_has_text(d) and decision_key(d) == key)]
            rest.append(redacted)
            self._audit("purge_decision", "decisions", key)
            state["current"]["decisions"] = self._cap_decisions(rest)
        # A pinned candidate or a near-hidden note may still hold the text.
        from memoir_tui.core.review import purge_from_queue

        purge_from_queue(self, key)
        return Outcome(True, "decision purged: only its hash remains", key)

    def _decision_by_key(self, state: dict[str, Any], key: str) -> dict[str, Any]:
        for d in well_formed_items(state["current"]["decisions"]):
            if decision_key(d) == key:
                return d
        raise NoMatchError("no decision with that identity (it may have been changed elsewhere)")
