"""Plain-text rendering of the working set for the CLI (and anything headless)."""

from __future__ import annotations

from pathlib import Path

from memoir_tui.core.model import WorkingSet


def _day(iso: str) -> str:
    return iso[:10] if iso else "—"


def render_working_set(
    ws: WorkingSet, *, store_path: Path | None = None, decisions: int = 10
) -> str:
    lines: list[str] = []
    if store_path is not None:
        lines.append(f"store: {store_path}")
    sections = (
        ("Goals", ws.goals),
        ("Next actions", ws.next_actions),
        ("Open questions", ws.open_questions),
    )
    for title, items in sections:
        lines.append(f"\n{title} ({len(items)})")
        lines.extend(f"  - {i.text}  [{_day(i.date)} · {i.machine_label or '?'}]" for i in items)
        if not items:
            lines.append("  (none)")
    lines.append(f"\nDecisions ({len(ws.decisions)}; showing {min(decisions, len(ws.decisions))})")
    for d in ws.decisions[:decisions]:
        lines.append(f"  - {d.text}  [{_day(d.date)} · {d.machine_label or '?'}]")
        if d.why:
            lines.append(f"      why: {d.why}")
        if d.rejected:
            lines.append(f"      rejected: {d.rejected}")
    if not ws.decisions:
        lines.append("  (none)")
    if ws.history:
        last = ws.history[0]
        lines.append(
            f"\nLast session: {_day(last.date)} on {last.machine_label or '?'}: {last.summary}"
        )
    return "\n".join(lines).lstrip("\n") + "\n"
