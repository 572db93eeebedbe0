"""One search over everything the panes list: the working set, decisions, the review
queue, the session history and the memory files' names (pure: the face reads, this
matches).

A hit names the pane and list it is shown in and the object it stands for, so
the face can jump to its row. Matching is the filter every list uses
(``items.matches_words``: every word, any order, case and accents ignored).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memoir_tui.core.items import matches_words

if TYPE_CHECKING:
    from memoir_tui.core.model import WorkingSet
    from memoir_tui.core.review import ReviewItem

LIMIT = 500


@dataclass(frozen=True, slots=True)
class Hit:
    pane_id: str  # the registry's pane id
    table_id: str  # the list inside the pane ("" when the pane has one)
    kind: str  # "goal", "next action", "question", "decision", "candidate", "session"
    text: str
    detail: str  # where else it matched, or its date
    ref: Any  # the Item, Decision, ReviewItem or HistoryEntry


def search_everything(
    needle: str,
    ws: WorkingSet,
    review: Sequence[ReviewItem] = (),
    *,
    entries: Sequence[Any] = (),
    limit: int = LIMIT,
) -> tuple[list[Hit], int]:
    """Hits for ``needle`` (at most ``limit``) and how many there are in all.

    ``entries`` are memory files as the Entries pane lists them (anything with ``name``,
    ``description``, ``tool`` and ``path``): matched by name and description."""
    if not needle.strip():
        return [], 0
    hits: list[Hit] = []
    total = 0
    for hit in _all(needle, ws, review, entries):
        total += 1
        if len(hits) < limit:
            hits.append(hit)
    return hits, total


def _all(
    needle: str, ws: WorkingSet, review: Sequence[ReviewItem], entries: Sequence[Any]
) -> Iterable[Hit]:
    lists = (
        ("goals", "goal", ws.all_goals),
        ("next-actions", "next action", ws.next_actions + ws.parked_actions),
        ("questions", "question", ws.open_questions + ws.archived_questions),
    )
    for table_id, kind, items in lists:
        for item in items:
            if matches_words(needle, item.text):
                where = "" if item.place == "live" else item.place
                yield Hit("working-set", table_id, kind, item.text, where, item)
    for d in ws.all_decisions:
        if matches_words(needle, d.text, d.why, d.rejected):
            detail = "" if matches_words(needle, d.text) else "in its why or rejected"
            yield Hit("decisions", "", "decision", d.text, detail, d)
    for c in review:
        if matches_words(needle, c.text):
            yield Hit("review", "", "candidate", c.text, c.state, c)
    for h in ws.history:
        if matches_words(needle, h.summary, *h.files_touched):
            yield Hit("history", "", "session", h.summary, h.date[:10], h)
    for e in entries:
        name, about = str(getattr(e, "name", "")), str(getattr(e, "description", ""))
        if matches_words(needle, name, about):
            yield Hit("entries", "", "memory file", name, str(getattr(e, "tool", "")), e)
