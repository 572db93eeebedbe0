"""Acts on many decisions at once, each one commit (all or nothing).

The faces mark rows and ask for a typed count; the core hides them in one
transaction: each decision's own ``hide_decision`` joins it, so the audit has a
line per decision and a decision that vanished meanwhile refuses the whole act
(nothing is half done).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memoir_tui.core.format.items import Outcome, plural

if TYPE_CHECKING:
    from memoir_tui.core.services.working_set import WorkingSetService


def hide_decisions(working: WorkingSetService, keys: Sequence[str]) -> Outcome:
    """Hide every decision in ``keys`` for ever, in one commit; no undo (hiding spreads)."""
    keys = tuple(dict.fromkeys(keys))
    if not keys:
        return Outcome(False, "no decision was marked")
    hidden = 0
    with working.store.transaction("hide_decisions"):
        for key in keys:
            if working.hide_decision(key).changed:
                hidden += 1
    already = len(keys) - hidden
    more = f" ({already} already hidden)" if already else ""
    return Outcome(bool(hidden), f"hid {plural(hidden, 'decision')} for ever{more}")
