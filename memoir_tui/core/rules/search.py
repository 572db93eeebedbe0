"""One search over everything the panes list: the working set, decisions, the review
queue, the session history and the memory files' names (pure: the face reads, this
matches).

A hit names the pane and list it is shown in and the object it stands for, so
the face can jump to its row. Matching is the filter every list uses
(``items.matches_words``: every word, any order, case and accents ignored).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memoir_tui.core.format.dates import day
from memoir_tui.core.format.items import folded

if TYPE_CHECKING:
    from memoir_tui.core.format.review_file import ReviewItem
    from memoir_tui.core.rules.model import WorkingSet

LIMIT = 500


@dataclass(frozen=True, slots=True)
class Hit:
    pane_id: str  # the registry's pane id
    table_id: str  # the list inside the pane ("" when the pane has one)
    kind: str  # "goal", "next action", "question", "decision", "candidate", "session"
    text: str
    detail: str  # where else it matched, or its date
    ref: Any  # the Item, Decision, ReviewItem or HistoryEntry


@dataclass(frozen=True, slots=True)
class Indexed:
    """A hit-to-be with its words folded once (``items.folded``), so each key typed in the
    search costs a substring test per row, not a Unicode normalisation of every field."""

    hit: Hit
    haystack: str  # every field it is matched by, folded
    text: str  # its own text, folded (a decision's hit says when only why/rejected matched)


def working_set_lists(ws: WorkingSet) -> tuple[tuple[str, str, tuple[Any, ...]], ...]:
    """The Working set pane's lists as (table id, kind, items), parked and archived rows
    included: where a goal, action or question is shown, to jump to it."""
    return (
        ("goals", "goal", ws.all_goals),
        ("next-actions", "next action", ws.next_actions + ws.parked_actions),
        ("questions", "question", ws.open_questions + ws.archived_questions),
    )


def build_index(
    ws: WorkingSet,
    review: Sequence[ReviewItem] = (),
    *,
    entries: Sequence[Any] = (),
) -> list[Indexed]:
    """Everything the search reaches, in the order hits are listed.

    ``entries`` are memory files as the Entries pane lists them (anything with ``name``,
    ``description`` and ``tool``): matched by name and description."""

    def fold(*fields: str) -> str:
        return "\n".join(folded(f) for f in fields if f)

    out: list[Indexed] = []
    for table_id, kind, items in working_set_lists(ws):
        for item in items:
            where = "" if item.place == "live" else item.place
            text = fold(item.text)
            out.append(
                Indexed(Hit("working-set", table_id, kind, item.text, where, item), text, text)
            )
    for d in ws.all_decisions:
        hit = Hit("decisions", "", "decision", d.text, "", d)
        out.append(Indexed(hit, fold(d.text, d.why, d.rejected), fold(d.text)))
    for c in review:
        text = fold(c.text)
        out.append(Indexed(Hit("review", "", "candidate", c.text, c.state, c), text, text))
    for h in ws.history:
        hit = Hit("history", "", "session", h.summary, day(h.date), h)
        out.append(Indexed(hit, fold(h.summary, *h.files_touched), fold(h.summary)))
    for e in entries:
        name, about = str(getattr(e, "name", "")), str(getattr(e, "description", ""))
        hit = Hit("entries", "", "memory file", name, str(getattr(e, "tool", "")), e)
        out.append(Indexed(hit, fold(name, about), fold(name)))
    return out


def search_index(
    index: Sequence[Indexed], needle: str, *, limit: int = LIMIT
) -> tuple[list[Hit], int]:
    """Hits for ``needle`` (every word, any order; at most ``limit``) and how many in all."""
    words = folded(needle).split()
    if not words:
        return [], 0
    hits: list[Hit] = []
    total = 0
    for entry in index:
        if all(w in entry.haystack for w in words):
            total += 1
            if len(hits) < limit:
                hit = entry.hit
                if hit.kind == "decision" and not all(w in entry.text for w in words):
                    hit = replace(hit, detail="in its why or rejected")
                hits.append(hit)
    return hits, total
