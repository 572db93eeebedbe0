"""What changed since the last session: read from the audit log (pure over its records).

**The previous session start** is the newest audit line, before this app was
opened, that marks a session starting: ``session_start`` (a host's
``hook session-start``, when it records one) or ``app_open`` (the app's own
start, recorded by ``record_open``). Without one, the newest
``record_session_end`` (a session summary) stands in; without that, everything
the log holds is shown, and the report says which it used.

Every record after that point is put in one kind — added, completed, hidden,
captured, synced, changed — and counted by face (the audit's actor: ``app``,
``cli``, ``mcp``, ``capture``, ``sync``…) and machine. Sync records are the
audit's ``sync_apply``/``merge_session`` lines (a pull that changed the store).
The audit holds hashes, never text: the face resolves a hash to the item's
text where it still exists.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memoir_tui.core.format.identity import parse_iso_ms

if TYPE_CHECKING:
    from memoir_tui.core.door.audit import AuditRecord
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.rules.model import WorkingSet

OPEN_OPERATIONS = ("session_start", "app_open")
SESSION_END = "record_session_end"

KINDS = ("added", "completed", "hidden", "captured", "synced", "changed")
_KIND_OF = {
    "add_goals": "added",
    "add_next_actions": "added",
    "add_open_questions": "added",
    "note_decision": "added",
    "pin_candidate": "added",
    "restore_decision": "added",
    "unpark_action": "added",
    "complete_next_action": "completed",
    "close_question": "completed",
    "record_session_end": "completed",
    "hide_decision": "hidden",
    "purge_decision": "hidden",
    "forget_everywhere": "hidden",
    "reject_candidate": "hidden",
    "retract_decision": "hidden",
    "capture_candidate": "captured",
    "sync_apply": "synced",
    "merge_session": "synced",
}


def kind_of(operation: str) -> str:
    """The kind a logged operation counts as (``changed`` for anything else)."""
    if operation.startswith("add_"):
        return "added"
    return _KIND_OF.get(operation, "changed")


@dataclass(frozen=True, slots=True)
class SinceReport:
    since: str  # ISO time of the boundary, "" when the whole log is shown
    basis: str  # a sentence: which line the boundary is
    records: tuple[AuditRecord, ...]  # after the boundary, newest first, opens left out
    counts: tuple[tuple[str, int], ...]  # kind → count, in KINDS order, only > 0
    by_actor: tuple[tuple[str, int], ...]
    by_machine: tuple[tuple[str, int], ...]  # machine id → count

    @property
    def summary(self) -> str:
        if not self.records:
            return "Nothing changed since then."
        return " · ".join(f"{n} {kind}" for kind, n in self.counts)


def _ms(value: str) -> int:
    return parse_iso_ms(value) or 0


def boundary(records: Sequence[AuditRecord], *, opened_at: str | None = None) -> tuple[str, str]:
    """(time, sentence) of the previous session start, from records newest first.

    ``opened_at`` is when this app opened: an open at or after it is this session's own.
    """
    limit = _ms(opened_at) if opened_at else None
    for record in records:
        if record.operation in OPEN_OPERATIONS:
            if limit is not None and _ms(record.time) >= limit:
                continue
            how = "the app was opened" if record.operation == "app_open" else "a session started"
            return record.time, f"since {how} last ({record.actor})"
    for record in records:
        if record.operation == SESSION_END:
            return record.time, f"since the last session summary ({record.actor})"
    return "", "no earlier session is recorded: everything in the audit log"


def _one_line_per_act(records: Iterable[AuditRecord]) -> tuple[AuditRecord, ...]:
    """One act can log two lines of one kind for one item (a pin logs the decision noted
    and the candidate pinned, in one commit): counted once, the first line kept."""
    seen: set[tuple[str, str, str, str]] = set()
    out: list[AuditRecord] = []
    for r in records:
        act = (r.time, r.identity_hash, kind_of(r.operation), r.machine_id)
        if r.identity_hash and act in seen:
            continue
        seen.add(act)
        out.append(r)
    return tuple(out)


def since_last_session(
    records: Sequence[AuditRecord], *, opened_at: str | None = None
) -> SinceReport:
    """What the log says happened after the previous session start (records newest first)."""
    since, basis = boundary(records, opened_at=opened_at)
    start = _ms(since) if since else None
    after = _one_line_per_act(
        r
        for r in records
        if r.operation not in OPEN_OPERATIONS and (start is None or _ms(r.time) > start)
    )
    kinds = Counter(kind_of(r.operation) for r in after)
    return SinceReport(
        since,
        basis,
        after,
        tuple((k, kinds[k]) for k in KINDS if kinds[k]),
        tuple(Counter(r.actor for r in after).most_common()),
        tuple(Counter(r.machine_id for r in after).most_common()),
    )


def record_open(store: Store, *, read_only_checked: bool = False) -> str:
    """Log that the app opened (an ``app_open`` line, no text); the time written.

    Nothing is logged for a read-only store (``read_only_checked``: the caller has
    just read the session and knows it is not) or when the log cannot be written
    (the app works without it; the next view falls back to older lines).
    """
    from memoir_tui.core.door.audit import AuditRecord, append_audit

    now = store.clock()
    try:
        if not read_only_checked and store.read_only:
            return now
    except OSError:
        return now
    machine = store.known_machine()
    with contextlib.suppress(OSError, ValueError):
        append_audit(
            store.root,
            AuditRecord(
                time=now,
                actor=store.actor,
                operation="app_open",
                machine_id=machine.id if machine is not None else "",
            ),
        )
    return now


@dataclass(frozen=True, slots=True)
class Arrived:
    """An item dated after the boundary that another machine wrote (it came by sync)."""

    kind: str  # "goal", "next action", "question", "decision"
    text: str
    date: str
    machine_label: str


def arrived_from_elsewhere(ws: WorkingSet, since: str, here: str) -> list[Arrived]:
    """Live items dated after ``since`` whose machine is not ``here`` (this machine's id):
    what a sync brought in, which the audit (one ``sync_apply`` line) does not itemise.
    Newest first. With no boundary (``since`` ""), nothing: the whole store would count."""
    if not since:
        return []
    start = _ms(since)
    out = [
        Arrived(kind, i.text, i.date, i.machine_label or i.machine_id[:8])
        for kind, items in (
            ("goal", ws.goals),
            ("next action", ws.next_actions),
            ("question", ws.open_questions),
        )
        for i in items
        if i.machine_id and i.machine_id != here and _ms(i.date) > start
    ]
    out += [
        Arrived("decision", d.text, d.date, d.machine_label or d.machine_id[:8])
        for d in ws.decisions
        if d.machine_id and d.machine_id != here and _ms(d.date) > start
    ]
    return sorted(out, key=lambda a: _ms(a.date), reverse=True)
