"""The composition: a store as every face opens it — the door, its services, wired once.

``open_memoir`` resolves the store and the project of a folder, finishes a commit a
crash interrupted, and says once what it found damaged; the app, an MCP call, a CLI
command and a hook each start there. ``Memoir`` is the door's owner (``Store``)
with its services built on it and handed to one another in one place
(``Memoir.__init__`` and the properties below, the composition): each service
takes the store and the other services it uses, so none reaches back through the
store for a neighbour, and the door imports none of them.

The working-set acts are ``Memoir``'s own methods (they delegate to
``memoir.working``) because every face calls them by these names. Faces reach this
module through the façade, ``memoir_tui.core``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.door.context import AfterCommitHook, LoadedState, StateFileKind
from memoir_tui.core.door.store import Store
from memoir_tui.core.format.items import REVIEW, REVIEW_FILE, Outcome, Undo
from memoir_tui.core.format.review_file import encode_review, load_review, merge_review
from memoir_tui.core.format.session import SESSION_FILE
from memoir_tui.core.services.review import ReviewQueue
from memoir_tui.core.services.working_set import WorkingSetService

if TYPE_CHECKING:
    from memoir_tui.core.door.config import Config
    from memoir_tui.core.rules.model import Decision, WorkingSet
    from memoir_tui.core.rules.scope import ProjectIdentity
    from memoir_tui.core.services.consolidate import Consolidator
    from memoir_tui.core.services.entries import EntryFiles
    from memoir_tui.core.services.trash import Trash
    from memoir_tui.core.workflows.forget import Forgetter

__all__ = ["AFTER_COMMIT_HOOKS", "REVIEW_KIND", "Memoir", "open_memoir", "write_merged_session"]


def _load_queue(path: Path) -> LoadedState:
    loaded = load_review(path, quarantine=True)
    return LoadedState(
        loaded.state,
        read_only=loaded.read_only,
        notice=loaded.notice,
        changed_on_reading=loaded.redacted,  # a purged decision's text leaves on the next write
    )


def _prepare_queue(state: dict[str, Any], now: str) -> dict[str, Any]:
    queue = merge_review(state, state)  # one winner per identity, in the file's order
    queue["updated_at"] = now
    return queue


REVIEW_KIND = StateFileKind(REVIEW, REVIEW_FILE, _load_queue, _prepare_queue, encode_review)
"""The review queue's file, as the door knows it."""

AFTER_COMMIT_HOOKS: tuple[AfterCommitHook, ...] = (
    AfterCommitHook(
        "inject",
        "memoir_tui.core.services.inject:refresh_after_commit",
        enabled=lambda config: config.inject.enabled,
        ops_skipped=frozenset({"inject"}),  # its own writes never trigger it again
    ),
    AfterCommitHook(
        "purge-caches",
        "memoir_tui.core.workflows.purge:scrub_caches_after_purge",
        enabled=lambda config: True,
        only_ops=frozenset({"purge_decision"}),
    ),
)


class Memoir(Store):
    """A store with its services: what ``open_memoir`` returns and every face holds."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        clock: Callable[[], str] | None = None,
        machine_label: str | None = None,
        actor: str = "cli",
        project: str | None = None,
        project_label: str | None = None,
    ) -> None:
        kwargs: dict[str, Any] = {"clock": clock} if clock is not None else {}
        super().__init__(
            root,
            config=config,
            machine_label=machine_label,
            actor=actor,
            project=project,
            project_label=project_label,
            kinds=(REVIEW_KIND,),
            after_commit_hooks=AFTER_COMMIT_HOOKS,
            **kwargs,
        )

    @classmethod
    def for_directory(
        cls,
        root: str | os.PathLike[str] | None = None,
        *,
        actor: str,
        cwd: Path | None = None,
        **kwargs: Any,
    ) -> Memoir:
        """The store opened for the project of ``cwd`` (default: the working directory).

        Outside any project (the home directory, the filesystem root, a folder above
        home — where several hosts start their servers) it is opened for every project.
        """
        from memoir_tui.core.rules.scope import working_project

        project = working_project(cwd)
        return cls(
            root,
            actor=actor,
            project=project.id if project else None,
            project_label=project.label if project else None,
            **kwargs,
        )

    # --- the composition: each service built once, handed what it uses -----------------

    @cached_property
    def working(self) -> WorkingSetService:
        """Goals, next actions, open questions and decisions."""
        return WorkingSetService(self)

    @cached_property
    def review(self) -> ReviewQueue:
        """The queue of captured candidates (``review.json``)."""
        return ReviewQueue(self, self.working)

    @cached_property
    def trash(self) -> Trash:
        """Where every byte a clean-up changes is kept, for restore."""
        from memoir_tui.core.services.trash import Trash

        return Trash(self)

    @cached_property
    def entries(self) -> EntryFiles:
        """Entry files: create (``memoir_remember``), edit (``$EDITOR``)."""
        from memoir_tui.core.services.entries import EntryFiles

        return EntryFiles(self)

    @cached_property
    def forget(self) -> Forgetter:
        """Find a text in every place this tool knows, forget it, and say what is left."""
        from memoir_tui.core.workflows.forget import Forgetter

        return Forgetter(self, self.working, self.trash, self.entries)

    @cached_property
    def consolidate(self) -> Consolidator:
        """Clean-up proposals and applying them (imported on use: ~30 ms)."""
        from memoir_tui.core.services.consolidate import Consolidator

        return Consolidator(self, self.working, self.trash)

    def opening_notices(self) -> tuple[str, ...]:
        """What a face says once on opening: settings of a newer version read past, a
        damaged or newer-format session (read as well as it could be)."""
        notice = self.load().notice
        return (*self.config.warnings, *([notice] if notice else []))

    def undo(self, undo: Undo) -> Outcome:
        """Take an act back by writing its inverse through the same door (one commit)."""
        from memoir_tui.core.services.undo import UndoTargets, undo_change

        return undo_change(UndoTargets(self, self.working, self.review, self.trash), undo)

    # --- the working set, by the names every face calls ---------------------------------

    def working_set(self, *, all_projects: bool = False, at_ms: int | None = None) -> WorkingSet:
        return self.working.working_set(all_projects=all_projects, at_ms=at_ms)

    def view(
        self, state: dict[str, Any], *, all_projects: bool = False, at_ms: int | None = None
    ) -> WorkingSet:
        return self.working.view(state, all_projects=all_projects, at_ms=at_ms)

    def would_rotate(self, list_key: str) -> tuple[str, ...]:
        return self.working.would_rotate(list_key)

    def add_goal(
        self, text: str, *, valid_from: str | None = None, valid_until: str | None = None
    ) -> Outcome:
        return self.working.add_goal(text, valid_from=valid_from, valid_until=valid_until)

    def add_next_action(self, text: str) -> Outcome:
        return self.working.add_next_action(text)

    def ask_question(self, text: str) -> Outcome:
        return self.working.ask_question(text)

    def remove_item(self, list_key: str, match: str, *, reason: str = "removed") -> Outcome:
        return self.working.remove_item(list_key, match, reason=reason)

    def revive_item(
        self, list_key: str, item: dict[str, Any] | None = None, *, text: str | None = None
    ) -> Outcome:
        return self.working.revive_item(list_key, item, text=text)

    def reword_item(self, list_key: str, match: str, new_text: str) -> Outcome:
        return self.working.reword_item(list_key, match, new_text)

    def move_item(self, list_key: str, match: str, project: str | None) -> Outcome:
        return self.working.move_item(list_key, match, project)

    def edit_item(
        self, list_key: str, match: str, new_text: str, *, project: str | bool | None = False
    ) -> Outcome:
        return self.working.edit_item(list_key, match, new_text, project=project)

    def close_question(
        self, match: str, *, answer: str | None = None, as_decision: bool = False
    ) -> Outcome:
        return self.working.close_question(match, answer=answer, as_decision=as_decision)

    def complete_next_action(self, match: str) -> Outcome:
        return self.working.complete_next_action(match)

    def unpark_action(self, match: str) -> Outcome:
        return self.working.unpark_action(match)

    def record_session_end(
        self,
        summary: str,
        files_touched: Sequence[str] = (),
        duration_min: float | None = None,
        *,
        session_id: str | None = None,
    ) -> Outcome:
        return self.working.record_session_end(
            summary, files_touched, duration_min, session_id=session_id
        )

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
        return self.working.note_decision(
            text,
            why,
            rejected,
            provenance=provenance,
            valid_from=valid_from,
            valid_until=valid_until,
            project=project,
        )

    def retract_decision(self, key: str, *, reason: str = "undone") -> Outcome:
        return self.working.retract_decision(key, reason=reason)

    def restore_decision(self, entry: dict[str, Any]) -> Outcome:
        return self.working.restore_decision(entry)

    def edit_decision(
        self,
        key: str,
        *,
        text: str | None = None,
        why: str | None = None,
        rejected: str | None = None,
        project: str | bool | None = False,
    ) -> Outcome:
        return self.working.edit_decision(
            key, text=text, why=why, rejected=rejected, project=project
        )

    def move_decision(self, key: str, project: str | None) -> Outcome:
        return self.working.move_decision(key, project)

    def find_decisions(self, needle: str, *, include_hidden: bool = False) -> list[Decision]:
        return self.working.find_decisions(needle, include_hidden=include_hidden)

    def find_decision(
        self,
        needle: str,
        *,
        include_hidden: bool = False,
        all_projects: bool = False,
        hidden_substrings: bool = False,
    ) -> Decision:
        return self.working.find_decision(
            needle,
            include_hidden=include_hidden,
            all_projects=all_projects,
            hidden_substrings=hidden_substrings,
        )

    def resolve_decision(self, needle: str) -> Decision:
        return self.working.resolve_decision(needle)

    def hide_decision(self, key: str) -> Outcome:
        return self.working.hide_decision(key)

    def purge_decision(self, key: str) -> Outcome:
        return self.working.purge_decision(key)


class _FromCwd:
    """``open_memoir``'s default: the project of the working directory."""


FROM_CWD = _FromCwd()


def open_memoir(
    root: str | os.PathLike[str] | None = None,
    *,
    actor: str,
    cwd: Path | None = None,
    project: ProjectIdentity | _FromCwd | None = FROM_CWD,
    finish: bool = True,
    **kwargs: Any,
) -> Memoir:
    """The store as every face opens it: scoped to ``project`` (default: the project of
    ``cwd``, the working directory if None; None: every project), with a commit or a
    cache drop a killed process left half done finished first (``finish=False`` only for
    a reader that must write nothing, the doctor's synthetic hook event)."""
    if isinstance(project, _FromCwd):
        memoir = Memoir.for_directory(root, actor=actor, cwd=cwd, **kwargs)
    else:
        memoir = Memoir(
            root,
            actor=actor,
            project=project.id if project else None,
            project_label=project.label if project else None,
            **kwargs,
        )
    if finish:
        from memoir_tui.core.workflows.purge import finish_interrupted

        finish_interrupted(memoir)
    return memoir


def write_merged_session(output: Path, local: dict[str, Any], remote: dict[str, Any]) -> Outcome:
    """``merge -o``: a store's ``session.json`` goes through that store's door (both
    locks, its caps, refused when it is from a newer format, audited), merged with
    what the store holds under the lock — the inputs were read before it, so a write
    another process committed meanwhile is kept, not replaced; any other file is
    written atomically as a plain copy of the result, never over a newer format."""
    from memoir_tui.core.format.merge import merge_sessions
    from memoir_tui.core.format.session import write_session_copy

    output = Path(output)
    if output.name != SESSION_FILE:
        write_session_copy(output, merge_sessions(local, remote))
        return Outcome(True, f"merged into {output}")
    store = Memoir(output.parent, actor="cli")
    with store.transaction("merge_session") as tx:
        caps = store.config.caps
        current = dict(tx.session)
        merged = merge_sessions(merge_sessions(current, local, caps=caps), remote, caps=caps)
        tx.session.clear()
        tx.session.update(merged)
        tx.audit("merge_session", "session")
    return Outcome(True, f"merged into {output}")
