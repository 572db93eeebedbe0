"""Undo: the inverse of an act, written through the same door as the act.

An ``Undo`` (``core.items``) names an operation and its arguments; each
operation here is a call on the service that owns what the act changed — the
working set, the review queue or the trash — so taking an act back is one more
commit, audited as ``undo`` followed by what it did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memoir_tui.core.format.items import FILES, REVIEW, SESSION, Outcome, Undo

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.services.review import ReviewQueue
    from memoir_tui.core.services.trash import Trash
    from memoir_tui.core.services.working_set import WorkingSetService

__all__ = ["UNDO_OPS", "UndoTargets", "undo_change"]


@dataclass(frozen=True, slots=True)
class UndoTargets:
    """The services an undo may write through (each built once, by the composition)."""

    store: Store
    working: WorkingSetService
    review: ReviewQueue
    trash: Trash


def _remove_item(on: UndoTargets, undo: Undo) -> Outcome:
    return on.working.remove_item(
        undo.arg("list"), undo.arg("text"), reason=undo.arg("reason", "undone")
    )


def _revive_item(on: UndoTargets, undo: Undo) -> Outcome:
    return on.working.revive_item(undo.arg("list"), undo.arg("item"), text=undo.arg("text"))


def _reword_item(on: UndoTargets, undo: Undo) -> Outcome:
    return on.working.reword_item(undo.arg("list"), undo.arg("match"), undo.arg("text"))


def _revive_all(on: UndoTargets, undo: Undo) -> Outcome:
    done = [on.working.revive_item("next_actions", item) for item in undo.arg("items", ())]
    return Outcome(any(o.changed for o in done), f"reopened {len(done)} next action(s)")


UNDO_OPS: dict[str, Callable[[UndoTargets, Undo], Outcome]] = {
    "remove_item": _remove_item,
    "revive_item": _revive_item,
    "reword_item": _reword_item,
    "retract_decision": lambda on, undo: on.working.retract_decision(undo.arg("key")),
    "restore_decision": lambda on, undo: on.working.restore_decision(undo.arg("entry")),
    "requeue_candidate": lambda on, undo: on.review.requeue(undo.arg("id")),
    "trash_restore": lambda on, undo: on.trash.restore_outcome(undo.arg("id")),
    "revive_actions": _revive_all,
}


def undo_change(on: UndoTargets, undo: Undo) -> Outcome:
    """Run ``undo`` (and the steps chained to it) as one commit, recorded in the audit log
    as ``undo`` followed by what it did."""
    with on.store.transaction("undo", files=(SESSION, REVIEW, FILES)) as tx:
        tx.audit("undo", "session")
        outcomes = [UNDO_OPS[u.op](on, u) for u in (undo, *undo.steps)]
    changed = any(o.changed for o in outcomes)
    return Outcome(changed, f"undone: {undo.label}" if changed else outcomes[0].message)
