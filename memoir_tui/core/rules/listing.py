"""How a list of decisions is ordered: by any column, either way (pure, no textual).

The Decisions pane keeps its rows in the stored order (newest first) unless a
sort column is chosen; ``sort_decisions`` is the one hook it calls, cheap
enough for 10,000 rows (one key per row, a stable sort), and usable off the UI
thread with the filter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memoir_tui.core.format.identity import parse_date_ms

if TYPE_CHECKING:
    from memoir_tui.core.rules.model import Decision

DECISION_SORT_KEYS: dict[str, Callable[[Decision], str | int]] = {
    "text": lambda d: d.text.casefold(),
    "why": lambda d: d.why.casefold(),
    "rejected": lambda d: d.rejected.casefold(),
    "date": lambda d: parse_date_ms(d.date),
    "machine": lambda d: d.machine_label.casefold(),
    "project": lambda d: (d.project_label or "global").casefold(),
    "hidden_at": lambda d: parse_date_ms(d.hidden_at),
}
"""Column key (as the pane names its columns) → the value rows are ordered by."""


def sort_decisions(
    decisions: Sequence[Decision], column: str | None, *, reverse: bool = False
) -> list[Decision]:
    """``decisions`` ordered by ``column`` (None: as given), ties kept in the given order."""
    key = DECISION_SORT_KEYS.get(column or "")
    if key is None:
        return list(reversed(decisions)) if reverse else list(decisions)
    return sorted(decisions, key=key, reverse=reverse)


def next_column(current: str | None, columns: Sequence[str]) -> str | None:
    """The next sortable column after ``current``: stored order → each column → stored order."""
    sortable = [c for c in columns if c in DECISION_SORT_KEYS]
    if current not in sortable:
        return sortable[0] if sortable else None
    index = sortable.index(current) + 1
    return sortable[index] if index < len(sortable) else None
