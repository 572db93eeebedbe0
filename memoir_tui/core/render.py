"""Plain-text rendering of the working set for the CLI (and anything headless)."""

from __future__ import annotations

from pathlib import Path

from memoir_tui.core.model import WorkingSet
from memoir_tui.core.textsafe import shown


def _day(iso: str) -> str:
    return iso[:10] if iso else "—"


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
    sections = (
        ("Goals", ws.goals),
        ("Next actions", ws.next_actions),
        ("Open questions", ws.open_questions),
    )
    every = ws.project is None
    for title, items in sections:
        lines.append(f"\n{title} ({len(items)})")
        lines.extend(
            f"  - {shown(i.text)}  [{_where(i.date, i.machine_label, i.project_label if every else '')}]"
            for i in items
        )
        if not items:
            lines.append("  (none)")
    lines.append(f"\nDecisions ({len(ws.decisions)}; showing {min(decisions, len(ws.decisions))})")
    for d in ws.decisions[:decisions]:
        lines.append(
            f"  - {shown(d.text)}  [{_where(d.date, d.machine_label, d.project_label if every else '')}]"
        )
        if d.why:
            lines.append(f"      why: {shown(d.why)}")
        if d.rejected:
            lines.append(f"      rejected: {shown(d.rejected)}")
    if not ws.decisions:
        lines.append("  (none)")
    if ws.history:
        last = ws.history[0]
        lines.append(
            f"\nLast session: {_day(last.date)} on {last.machine_label or '?'}: {shown(last.summary)}"
        )
    return "\n".join(lines).lstrip("\n") + "\n"


def _where(date: str, machine: str, project: str) -> str:
    return " · ".join(shown(p) for p in (_day(date), machine or "?", project) if p)


def scope_line(ws: WorkingSet) -> str:
    """Which project a view covers, and what it leaves out (never silently)."""
    if ws.project is None:
        return "scope: every project"
    line = f"scope: {ws.project_label} (and global items)"
    if ws.elsewhere_total:
        line += f"; {ws.elsewhere_total} more in other projects (--all-projects shows them)"
    return line
