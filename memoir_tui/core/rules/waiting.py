"""What waits in the review queue for a scope: the one rule every pane, answer and hook
counts by (a project's own candidates and the global ones; outside a project, all).

Kept apart from the queue service so the session-start hook can count without
importing it.
"""

from __future__ import annotations

from typing import Any

from memoir_tui.core.format.review_file import (
    CANDIDATE,
    LoadedReview,
    state_of,
    well_formed_review_items,
)

__all__ = ["in_review_scope", "waiting_count"]


def in_review_scope(item_project: Any, project: str | None) -> bool:
    """Whether a candidate stamped ``item_project`` is shown in ``project``'s scope: its
    own and global ones (the rule every pane and answer uses); ``None`` shows all."""
    from memoir_tui.core.rules.scope import same_project

    return project is None or same_project(item_project, project)


def waiting_count(loaded: LoadedReview, *, project: str | None = None) -> int:
    """How many candidates wait for a person (cheap: no near-hidden check, no session);
    with ``project``, only that project's and the global ones."""
    return sum(
        1
        for raw in well_formed_review_items(loaded.state.get("items"))
        if state_of(raw) == CANDIDATE and in_review_scope(raw.get("project"), project)
    )
