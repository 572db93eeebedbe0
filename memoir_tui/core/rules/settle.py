"""What every write of ours does to a session before it is saved.

Pure rules over a session's state (no file, no lock): the door calls
``settle_session`` on every commit that changed the session, so nothing a
person wrote leaves the file but by their own act (FORMAT-LATEST §4–5), and
earlier memoir-tui project stamps of known folders are re-stamped in today's
form (FORMAT-LATEST §9).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memoir_tui.core.format.items import LIST_KEYS, current_of
from memoir_tui.core.format.merge import Caps, park_overflow, partition

__all__ = ["migrate_project_ids", "settle_session"]


def settle_session(
    state: dict[str, Any],
    *,
    project: str | None,
    caps: Caps,
    clock: Callable[[], str],
    audit: Callable[[str, str, str], None] | None = None,
) -> None:
    """What every write of ours does to the session before it is saved (the
    transaction calls it): earlier memoir-tui project stamps of known folders are
    rewritten to today's ids, next actions over the cap are parked, and goals,
    questions and decisions are re-split into live and archived (FORMAT-LATEST §4–5),
    so nothing a person wrote leaves the file but by their own act."""
    # Re-stamping happens once, in the commit's own settling, which audits it.
    if audit is not None and migrate_project_ids(state, project):
        audit("migrate_project_ids", "session", "")
    current = state.setdefault("current", {})
    for key in LIST_KEYS:
        if not isinstance(current.get(key), list):
            current[key] = []
    live = current["next_actions"]
    cap = caps.next_actions
    if len(live) > cap:  # the clock is read only when something is parked
        current["next_actions"], current["parked_actions"] = park_overflow(
            live, current["parked_actions"], cap, clock()
        )
    partition(state, caps)


def migrate_project_ids(state: dict[str, Any], project: str | None) -> int:
    """Rewrite stamps an earlier memoir-tui gave (``git:``/``path:``/``home:`` + 16 hex)
    to today's ids where the folder is known: the store's own project, and a folder an
    item's ``project_label`` names that still computes to the old stamp. Returns how many
    items changed; stamps of folders not known here stay, and keep matching their folder."""
    from memoir_tui.core.rules.scope import aliases_of, is_legacy_id, project_identity

    mapping: dict[str, tuple[str, str]] = {}
    if project:
        for old in aliases_of(project):
            mapping[old] = (project, "")
    changed = 0
    current = current_of(state)
    pools = [v for v in current.values() if isinstance(v, list)]
    if isinstance(state.get("history"), list):
        pools.append(state["history"])
    for pool in pools:
        for item in pool:
            if not isinstance(item, dict) or not is_legacy_id(item.get("project")):
                continue
            old = item["project"]
            if old not in mapping:
                mapping[old] = ("", "")
                label = item.get("project_label")
                if isinstance(label, str) and (label.startswith(("~/", "/")) or label == "~"):
                    folder = Path(os.path.expanduser(label))
                    if folder.is_dir():
                        ident = project_identity(folder, home=Path.home())
                        if old in aliases_of(ident.id):
                            mapping[old] = (ident.id, ident.label)
            new_id, _label = mapping[old]
            if new_id:
                item["project"] = new_id
                changed += 1
    return changed
