"""Plain-text rendering of the working set for the CLI (and anything headless)."""

from __future__ import annotations

from pathlib import Path

from memoir_tui.core.format.dates import day
from memoir_tui.core.format.textsafe import shown
from memoir_tui.core.rules.model import WorkingSet


def render_working_set(
    ws: WorkingSet,
    *,
    store_path: Path | None = None,
    decisions: int = 10,
    caps_note: str | None = None,
) -> str:
    lines: list[str] = []
    if store_path is not None:
        lines.append(f"store: {store_path}")
    lines.append(scope_line(ws))
    if caps_note:
        lines.append(caps_note)
    # Parked and archived items are the person's too (a full list moved them past the
    # live caps): listed after the live ones with where they are, never left unsaid.
    sections = (
        ("Goals", ws.goals, ws.archived_goals, "archived"),
        ("Next actions", ws.next_actions, ws.parked_actions, "parked"),
        ("Open questions", ws.open_questions, ws.archived_questions, "archived"),
    )
    every = ws.project is None
    for title, live, kept, place in sections:
        count = f"{len(live)}" + (f" + {len(kept)} {place}" if kept else "")
        lines.append(f"\n{title} ({count})")
        for i in (*live, *kept):
            mark = f" ({i.place})" if i.place != "live" else ""
            where = _where(i.date, i.machine_label, i.project_label if every else "")
            lines.append(f"  - {shown(i.text)}{mark}  [{where}]")
        if not live and not kept:
            lines.append("  (none)")
    every_decision = ws.all_decisions
    archived = len(ws.archived_decisions)
    count = f"{len(ws.decisions)}" + (f" + {archived} archived" if archived else "")
    lines.append(f"\nDecisions ({count}; showing {min(decisions, len(every_decision))})")
    for d in every_decision[:decisions]:
        mark = " (archived)" if d.place == "archived" else ""
        where = _where(d.date, d.machine_label, d.project_label if every else "")
        lines.append(f"  - {shown(d.text)}{mark}  [{where}]")
        if d.why:
            lines.append(f"      why: {shown(d.why)}")
        if d.rejected:
            lines.append(f"      rejected: {shown(d.rejected)}")
    if len(every_decision) > decisions:
        lines.append(
            f"  … {len(every_decision) - decisions} more (`memoir-tui why` searches them all)"
        )
    if not every_decision:
        lines.append("  (none)")
    if ws.history:
        last = ws.history[0]
        lines.append(
            f"\nLast session: {day(last.date) or '—'} on {last.machine_label or '?'}: {shown(last.summary)}"
        )
    return "\n".join(lines).lstrip("\n") + "\n"


def _where(date: str, machine: str, project: str) -> str:
    return " · ".join(shown(p) for p in (day(date) or "—", machine or "?", project) if p)


def scope_line(ws: WorkingSet) -> str:
    """Which project a view covers, and what it leaves out (never silently)."""
    if ws.project is None:
        return "scope: every project"
    line = f"scope: {ws.project_label} (and global items)"
    if ws.elsewhere_total:
        line += f"; {ws.elsewhere_total} more in other projects (--all-projects shows them)"
    return line
