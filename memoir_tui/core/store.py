"""``Store``: the one door for every change to a memoir store.

Every change is one transaction (``core.transaction``): locked, atomic,
audited, refused on a read-only store. The working-set methods below and the
services that hang off the store — ``store.review`` (the candidate queue),
``store.trash``, ``store.entries``, ``store.consolidate`` — each open one and
return an ``Outcome`` saying what happened in a sentence a person (or a model)
can read. Screens, MCP tools and CLI commands call these; none of them touches
a file of the store directly.
"""

from __future__ import annotations

import functools
import logging
import os
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.config import Config, load_config
from memoir_tui.core.errors import (
    AmbiguousMatchError,
    ForgottenDecisionError,
    NoMatchError,
)
from memoir_tui.core.hooks import run_after_commit_hooks
from memoir_tui.core.identity import identity, is_text_hash, iso_now, parse_date_ms, text_hash
from memoir_tui.core.items import (
    REVIEW,
    SESSION,
    Outcome,
    clean_provenance,
    clean_text,
    decision_key,
    has_text,
    is_hidden,
    is_purged,
    purged_form,
    validity_window,
    well_formed_items,
)
from memoir_tui.core.machine import Machine, known_machine, load_machine
from memoir_tui.core.model import Decision, WorkingSet, working_set
from memoir_tui.core.review import ReviewQueue, purge_from_review
from memoir_tui.core.session import SESSION_FILE, LoadedSession, load_session
from memoir_tui.core.transaction import Commit, Transaction, run_transaction

if TYPE_CHECKING:
    from memoir_tui.core.consolidate import Consolidator
    from memoir_tui.core.entries import EntryFiles
    from memoir_tui.core.trash import Trash

log = logging.getLogger(__name__)

__all__ = ["Outcome", "Store", "default_store_dir"]


def default_store_dir(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """``$MEMOIR_HOME`` if set, else the JavaScript tool's ``~/.config/memoir``."""
    env = os.environ if environ is None else environ
    override = env.get("MEMOIR_HOME")
    if override:
        return Path(os.path.expanduser(override))
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "memoir"


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


class Store:
    """A memoir store directory: ``session.json``, ``review.json``, ``memory/``, our config."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        clock: Callable[[], str] = iso_now,
        machine_label: str | None = None,
        actor: str = "cli",
        project: str | None = None,
        project_label: str | None = None,
    ) -> None:
        """``actor`` names the face in the audit log. ``project`` (a scope id, with its
        readable ``project_label``) stamps new items and scopes what ``working_set``
        shows; None: outside any project — nothing stamped, every project shown."""
        self.root = Path(root) if root is not None else default_store_dir()
        self.config = config or load_config(self.root)
        self.clock = clock
        self.actor = actor
        self.project = project
        self.project_label = project_label
        self._machine_label = machine_label
        self._machine: Machine | None = None
        self._services: dict[str, Any] = {}

    @classmethod
    def for_directory(
        cls,
        root: str | os.PathLike[str] | None = None,
        *,
        actor: str,
        cwd: Path | None = None,
        **kwargs: Any,
    ) -> Store:
        """The store opened for the project of ``cwd`` (default: the working directory).

        Outside any project (the home directory, the filesystem root, a folder above
        home — where several hosts start their servers) it is opened for every project.
        """
        from memoir_tui.core.scope import working_project

        project = working_project(cwd)
        return cls(
            root,
            actor=actor,
            project=project.id if project else None,
            project_label=project.label if project else None,
            **kwargs,
        )

    # --- reading ----------------------------------------------------------------

    @property
    def session_path(self) -> Path:
        return self.root / SESSION_FILE

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def machine(self) -> Machine:
        """This machine's identity, created (``machine.id``) on first use."""
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

    @property
    def scoped(self) -> bool:
        """Whether this store is opened for one project (else: outside any, all shown)."""
        return self.project is not None

    def working_set(self, *, all_projects: bool = False, at_ms: int | None = None) -> WorkingSet:
        """What is live for this store's project (every project when it has none, or
        with ``all_projects``); with ``at_ms``, what was believed and valid at that time."""
        return self.view(self.load().state, all_projects=all_projects, at_ms=at_ms)

    def view(
        self, state: dict[str, Any], *, all_projects: bool = False, at_ms: int | None = None
    ) -> WorkingSet:
        """``working_set`` of a state already read (the app reads once, renders twice)."""
        return working_set(
            state,
            project=self.project,
            all_projects=all_projects or not self.scoped,
            at_ms=at_ms,
            believed_at_ms=at_ms,  # "as of T": recorded by then and valid then
            here_label=self.project_label,
        )

    @property
    def read_only(self) -> bool:
        return self.load().read_only

    # --- the one door -------------------------------------------------------------

    @contextmanager
    def transaction(self, op: str, *, files: Iterable[str] = (SESSION,)) -> Iterator[Transaction]:
        """Lock, load, stage, commit atomically, audit, then run after-commit hooks.

        ``files`` declares what the change touches: ``SESSION``, ``REVIEW``,
        ``FILES`` (entry, trash, host and other files). See ``core.transaction``.
        """
        with run_transaction(self, op, files) as tx:
            yield tx

    def touch_machine(self, state: dict[str, Any]) -> None:
        """Stamp this machine's label and ``last_seen`` into a session about to be saved."""
        machine = self.machine
        machines = state.get("machines")
        if not isinstance(machines, dict):
            machines = state["machines"] = {}
        entry = machines.get(machine.id)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry["label"] = machine.label
        entry["last_seen"] = self.clock()
        machines[machine.id] = entry

    def append_audit(self, records: Iterable[tuple[str, str, str]]) -> None:
        """Write audit lines for a commit (identity hashes only, never text)."""
        from memoir_tui.core.audit import AuditRecord, append_audit

        machine_id = self.machine.id
        for operation, list_name, key in records:
            try:
                append_audit(
                    self.root,
                    AuditRecord(
                        time=self.clock(),
                        actor=self.actor,
                        operation=operation,
                        list_name=list_name,
                        identity_hash=key,
                        machine_id=machine_id,
                    ),
                )
            except OSError as exc:  # the change is saved; a lost audit line must not undo it
                log.warning("audit record not written: %s", exc)

    def run_after_commit_hooks(self, commit: Commit) -> None:
        run_after_commit_hooks(self, commit)

    # --- services -------------------------------------------------------------------

    @property
    def review(self) -> ReviewQueue:
        """The queue of captured candidates (``review.json``)."""
        return self._service("review", lambda: ReviewQueue(self))

    @property
    def trash(self) -> Trash:
        """Where every byte a clean-up changes is kept, for restore."""
        from memoir_tui.core.trash import Trash

        return self._service("trash", lambda: Trash(self))

    @property
    def entries(self) -> EntryFiles:
        """Entry files: create (``memoir_remember``), edit (``$EDITOR``)."""
        from memoir_tui.core.entries import EntryFiles

        return self._service("entries", lambda: EntryFiles(self))

    @property
    def consolidate(self) -> Consolidator:
        """Clean-up proposals and applying them (imported on use: ~30 ms)."""
        from memoir_tui.core.consolidate import Consolidator

        return self._service("consolidate", lambda: Consolidator(self))

    def _service(self, name: str, build: Callable[[], Any]) -> Any:
        if name not in self._services:
            self._services[name] = build()
        return self._services[name]

    # --- working set ------------------------------------------------------------------

    def _stamp(self, text: str, date_field: str, **extra: Any) -> dict[str, Any]:
        item: dict[str, Any] = {
            "text": text,
            "machine_id": self.machine.id,
            date_field: self.clock(),
        }
        if self.project:
            item["project"] = self.project
            if self.project_label:
                item["project_label"] = self.project_label
        item.update({k: v for k, v in extra.items() if v not in (None, "")})
        return item

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
        with self.transaction(f"add_{list_key}") as tx:
            state = tx.session
            items = state["current"][list_key]
            ident = identity(text)
            existing = [i for i in well_formed_items(items) if identity(i["text"]) == ident]
            if existing:
                raise _Unchanged(f"{noun} already listed: {existing[0]['text']}")
            items.append(self._stamp(text, date_field, **validity))
            tx.audit(f"add_{list_key}", list_key, text_hash(text))
            others = [i for i in items if not has_text(i)]
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
        with self.transaction("complete_next_action") as tx:
            current = tx.session["current"]
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
                if not (has_text(a) and identity(a["text"]) == ident)
            ]
            tombstones = [
                t
                for t in well_formed_items(current.get("completed_actions"))
                if identity(t["text"]) != ident
            ]
            tombstones.append({"text": done["text"], "done_at": self.clock()})
            tx.audit("complete_next_action", "next_actions", text_hash(done["text"]))
            current["completed_actions"] = _sorted_capped(
                tombstones, "done_at", self.config.caps.completed_actions
            )
        return Outcome(True, f"completed: {done['text']}", ident)

    def record_session_end(
        self, summary: str, files_touched: Sequence[str] = (), duration_min: float | None = None
    ) -> Outcome:
        summary = clean_text(summary, "summary")
        files = [clean_text(f, "file") for f in files_touched][:20]
        with self.transaction("record_session_end") as tx:
            state = tx.session
            entry: dict[str, Any] = {
                "date": self.clock(),
                "machine_id": self.machine.id,
                "summary": summary,
                "files_touched": files,
                "duration_min": duration_min,
            }
            if self.project:
                entry["project"] = self.project
                if self.project_label:
                    entry["project_label"] = self.project_label
            history = [h for h in state["history"] if isinstance(h, dict)]
            history.append(entry)
            tx.audit("record_session_end", "history")
            state["history"] = _sorted_capped(history, "date", self.config.caps.history)
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
    ) -> Outcome:
        """Pin a decision. ``provenance`` (source, extractor, session_id, …) is kept as
        fields on the decision, never folded into ``why``; its ``project`` scopes it."""
        text = clean_text(text, "decision")
        why = clean_text(why, "why", required=False)
        rejected = clean_text(rejected, "rejected", required=False)
        extra = {**clean_provenance(provenance), **validity_window(valid_from, valid_until)}
        key = text_hash(text)
        with self.transaction("note_decision") as tx:
            decisions = tx.session["current"]["decisions"]
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
            kept = [d for d in decisions if not (has_text(d) and decision_key(d) == key)]
            entry = self._stamp(text, "date", **extra)
            tx.audit("note_decision", "decisions", key)
            if why:
                entry["why"] = why
            if rejected:
                entry["rejected"] = rejected
            kept.append(entry)
            tx.session["current"]["decisions"] = self._cap_decisions(kept)
        return Outcome(True, f"decision noted: {text}", key)

    def _cap_decisions(self, decisions: list[Any]) -> list[Any]:
        caps = self.config.caps
        good = well_formed_items(decisions)
        others = [d for d in decisions if not has_text(d)]
        visible = _sorted_capped([d for d in good if not is_hidden(d)], "date", caps.decisions)
        hidden = _sorted_capped([d for d in good if is_hidden(d)], "date", caps.hidden_decisions)
        return visible + hidden + others

    def find_decisions(self, needle: str, *, include_hidden: bool = False) -> list[Decision]:
        ws = self.working_set()
        pool = ws.decisions + (ws.tombstones if include_hidden else ())
        return [d for d in pool if d.matches(needle)]

    def find_decision(
        self, needle: str, *, include_hidden: bool = False, all_projects: bool = False
    ) -> Decision:
        """The one way every face says "which decision": exactly one, or a refusal.

        In order: a 64-hex identity hash, then the exact text (trimmed and case-folded)
        — both over every project, so a leaked secret can be forgotten from anywhere
        — then a substring matching exactly one visible decision in scope (every
        project with ``all_projects``). ``include_hidden`` lets a hash or the exact
        text name a hidden decision too (to purge it); a substring never reaches a
        forgotten one, so an ambiguous answer can never list forgotten text.
        """
        needle = clean_text(needle, "match")
        everywhere = self.working_set(all_projects=True)
        pool = everywhere.decisions + (everywhere.tombstones if include_hidden else ())
        wanted_hash = needle.lower() if is_text_hash(needle.lower()) else None
        if wanted_hash is not None:
            hit = next((d for d in pool if d.key == wanted_hash), None)
            if hit is not None:
                return hit
        wanted = identity(needle)
        exact = [d for d in pool if not d.purged and identity(d.text) == wanted]
        if exact:
            return exact[0]
        scoped = all_projects or not self.scoped
        visible = everywhere.decisions if scoped else self.working_set().decisions
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
        elsewhere = [d for d in everywhere.decisions if wanted in identity(d.text)]
        if elsewhere and not scoped:
            raise NoMatchError(
                f"no visible decision in this project matches {needle!r}; "
                f"{len(elsewhere)} in other projects do (search all projects to see them)"
            )
        raise NoMatchError(f"no visible decision matches {needle!r}")

    def resolve_decision(self, needle: str) -> Decision:
        """Exactly one visible decision named by ``needle`` (see ``find_decision``)."""
        return self.find_decision(needle)

    @_unchanged_is_outcome
    def hide_decision(self, key: str) -> Outcome:
        """Hide for ever: the row stays as a tombstone so the hiding spreads on merge."""
        with self.transaction("hide_decision") as tx:
            state = tx.session
            target = _decision_by_key(state, key)
            if is_hidden(target):
                raise _Unchanged("that decision is already hidden")
            target["hidden"] = True
            target["hidden_at"] = self.clock()
            tx.audit("hide_decision", "decisions", key)
            text = target["text"]
            state["current"]["decisions"] = self._cap_decisions(state["current"]["decisions"])
        return Outcome(True, f"decision hidden: {text}", key)

    def purge_decision(self, key: str) -> Outcome:
        """Hide and redact: text, why and rejected leave the session and the review queue
        in one commit; only the hash stays. Purging again scrubs the queue again."""
        with self.transaction("purge_decision", files=(SESSION, REVIEW)) as tx:
            state = tx.session
            decisions = state["current"]["decisions"]
            target = _decision_by_key(state, key)
            already = is_purged(target)
            if not already:
                hidden_at = target.get("hidden_at") if is_hidden(target) else None
                redacted = purged_form({**target, "text_hash": decision_key(target)})
                redacted["hidden_at"] = hidden_at if isinstance(hidden_at, str) else self.clock()
                # Every copy of this identity goes, not just the first.
                rest = [d for d in decisions if not (has_text(d) and decision_key(d) == key)]
                rest.append(redacted)
                state["current"]["decisions"] = self._cap_decisions(rest)
            # A captured candidate or a near-hidden note may still hold the text.
            scrubbed = purge_from_review(tx.review, key, self.clock)
            if not already or scrubbed:
                tx.audit("purge_decision", "decisions", key)
        if already and not scrubbed:
            return Outcome(False, "that decision is already purged", key)
        return Outcome(True, "decision purged: only its hash remains", key)


def _decision_by_key(state: dict[str, Any], key: str) -> dict[str, Any]:
    for d in well_formed_items(state["current"]["decisions"]):
        if decision_key(d) == key:
            return d
    raise NoMatchError("no decision with that identity (it may have been changed elsewhere)")


def write_merged_session(output: Path, local: dict[str, Any], remote: dict[str, Any]) -> Outcome:
    """``merge -o``: a store's ``session.json`` is replaced through that store's door
    (locked, its caps, refused when it is from a newer format, audited); any other
    file is written atomically as a plain copy of the result."""
    from memoir_tui.core.merge import merge_sessions
    from memoir_tui.core.session import write_session_copy

    output = Path(output)
    if output.name != SESSION_FILE:
        write_session_copy(output, merge_sessions(local, remote))
        return Outcome(True, f"merged into {output}")
    store = Store(output.parent, actor="cli")
    with store.transaction("merge_session") as tx:
        merged = merge_sessions(local, remote, caps=store.config.caps)
        tx.session.clear()
        tx.session.update(merged)
        tx.audit("merge_session", "session")
    return Outcome(True, f"merged into {output}")
