"""``NewsBanner``: a list that jumped between two reads of the disk is said, and by whom.

The panes redraw what is on disk within a second; that is the truth, not the
news. When another writer shrinks or grows a list by more than a handful (more
than five items, or more than a fifth of it) — the JavaScript memoir trimming
815 decisions to its 10, a sync, another memoir-tui's clean-up — this banner
says which list went from how many to how many, who did it (the audit log names
memoir-tui's faces and machines; the JavaScript memoir writes no audit line but
leaves its footprint) and the way back when there is one (the archive, the sync
copy, the trash). It stays (it is not a toast) until clicked; our own writes
are never news. Counts are taken off the UI thread, and every reading is compared
with the one before it in the order they were asked for (not only the newest: a
change of another writer's just before one of ours is still news).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.widgets import Static

if TYPE_CHECKING:
    from textual.events import Click

    from memoir_tui.core import AuditRecord, Config

# list key in the counts → how a person names it
LIST_NAMES: dict[str, str] = {
    "decisions": "decisions",
    "goals": "goals",
    "next_actions": "next actions",
    "open_questions": "questions",
    "tombstones": "hidden decisions (tombstones)",
    "review": "review candidates",
}
_ARCHIVE_OF = {
    "decisions": "archived_decisions",
    "goals": "archived_goals",
    "next_actions": "parked_actions",
    "open_questions": "archived_questions",
}
HANDFUL = 5
SHARE = 0.2
KEEP_LINES = 4
CHANGED = "Changed on disk: "


def is_news(before: int, after: int) -> bool:
    """More than a handful: over five items, or over a fifth of the list (two at least)."""
    delta = abs(after - before)
    if delta > HANDFUL:
        return True
    return delta >= 2 and delta > SHARE * max(before, 1)


def session_counts(state: Mapping[str, Any]) -> dict[str, int]:
    """How many items each list holds live, every project counted (and the archives, and
    the decisions' tombstones): what a trim, a merge or a clean-up would move."""
    from memoir_tui.core import is_hidden, is_visible, well_formed_items

    current = state.get("current") if isinstance(state.get("current"), Mapping) else {}
    counts: dict[str, int] = {}
    for key, archive in _ARCHIVE_OF.items():
        items = well_formed_items(current.get(key))
        counts[key] = sum(
            1 for i in items if is_visible(i, list_name=key, project=None, all_projects=True)
        )
        counts[archive] = len(well_formed_items(current.get(archive)))
    counts["tombstones"] = sum(
        1 for d in well_formed_items(current.get("decisions")) if is_hidden(d)
    )
    return counts


@dataclass(frozen=True, slots=True)
class Reading:
    """One read of the disk: the counts, and what says who wrote since the last one."""

    counts: Mapping[str, int]
    audit_head: tuple[AuditRecord, ...] = ()  # newest first, a bounded tail
    machines: Mapping[str, str] = field(default_factory=dict)  # machine id → label
    js_footprint: str = ""  # the JavaScript memoir's file in the store, "" if none
    own: bool = False  # taken right after a write of this app's


AUDIT_TAIL_BYTES = 64 * 1024


def audit_tail(root: Path) -> tuple[AuditRecord, ...]:
    """The newest records of ``audit.jsonl`` (its last 64 KB: what two reads a second
    apart can have added), newest first; none when it cannot be read."""
    import json
    import os

    from memoir_tui.core import AUDIT_FILE, AuditRecord, open_for_reading

    try:
        with open_for_reading(root / AUDIT_FILE) as fh:
            size = os.fstat(fh.fileno()).st_size
            start = max(size - AUDIT_TAIL_BYTES, 0)
            fh.seek(start)
            data = fh.read(AUDIT_TAIL_BYTES)
    except OSError:
        return ()
    lines = data.split(b"\n")
    if start:
        lines = lines[1:]  # the first line may be cut
    records = []
    for raw in reversed(lines):
        if not raw.strip():
            continue
        try:
            record = AuditRecord.from_json(json.loads(raw))
        except (ValueError, UnicodeDecodeError):
            continue
        if record is not None:
            records.append(record)
    return tuple(records)


def take_reading(root: Path, state: Mapping[str, Any], *, own: bool = False) -> Reading:
    """Everything a ``Reading`` needs, read from the store at ``root`` (run in a thread)."""
    from memoir_tui.core import js_footprint

    machines_raw = state.get("machines") if isinstance(state.get("machines"), Mapping) else {}
    machines = {
        uid: str(m.get("label") or "")
        for uid, m in machines_raw.items()
        if isinstance(m, Mapping) and isinstance(uid, str)
    }
    return Reading(
        counts=session_counts(state),
        audit_head=audit_tail(root),
        machines=machines,
        js_footprint=js_footprint(root),
        own=own,
    )


def _new_records(before: Reading, after: Reading) -> list[AuditRecord]:
    """Audit records appended between the two readings (by the newest one seen before)."""
    if not before.audit_head:
        return list(after.audit_head)
    last = before.audit_head[0]
    new: list[AuditRecord] = []
    for record in after.audit_head:
        if record == last:
            break
        new.append(record)
    return new


def who_and_way_back(before: Reading, after: Reading) -> tuple[str, str]:
    """Who changed the store between two readings, and the way back if there is one."""
    records = _new_records(before, after)
    if records:
        if any(r.actor == "sync" or r.operation.startswith("sync") for r in records):
            return (
                "a sync (audit: sync)",
                "the sync copy's history holds the state before it (Sync pane)",
            )
        faces = sorted({r.actor for r in records})
        machine_ids = sorted({r.machine_id for r in records if r.machine_id})
        machines = [after.machines.get(m) or m[:8] for m in machine_ids]
        on = f" on {', '.join(machines)}" if machines else ""
        way = ""
        if any("consolidate" in r.operation or "trash" in r.list_name for r in records):
            way = "the trash keeps what it removed (memoir-tui trash list / restore)"
        return f"another memoir-tui ({', '.join(faces)}{on})", way
    if after.js_footprint:
        return (
            f"the JavaScript memoir, most likely (no audit line; its {after.js_footprint} is here)",
            "",
        )
    return "a writer that keeps no audit log (the JavaScript memoir or an edit by hand)", ""


def news_between(before: Reading, after: Reading) -> str:
    """One sentence on the lists that jumped between two readings; "" when none did."""
    jumps: list[str] = []
    archived: list[str] = []
    for key, name in LIST_NAMES.items():
        if key not in before.counts or key not in after.counts:
            continue
        old, new = before.counts[key], after.counts[key]
        if not is_news(old, new):
            continue
        jumps.append(f"{name} {old} → {new}")
        archive = _ARCHIVE_OF.get(key)
        if new < old and archive and after.counts.get(archive, 0) > before.counts.get(archive, 0):
            moved = after.counts[archive] - before.counts[archive]
            archived.append(f"{moved} of the {name} moved to the archive (still in the store)")
    if not jumps:
        return ""
    who, way = who_and_way_back(before, after)
    ways = "; ".join([*archived, *([way] if way else [])])
    if not ways and any(after.counts.get(k, 0) < before.counts.get(k, 0) for k in LIST_NAMES):
        ways = "none, no copy is kept"
    back = f" Way back: {ways}." if ways else ""
    return f"{', '.join(jumps)} — by {who}.{back}"


def caps_warning(config: Config, root: Path) -> str:
    """The header's caps note, with a warning when the JavaScript memoir shares the store
    and the caps in force keep more than it does (its next write trims to its own)."""
    from memoir_tui.core import caps_over_memoirs, js_footprint

    note = config.caps_note
    found = config.js_footprint or js_footprint(root)
    if not found:
        return note
    over = caps_over_memoirs(config.caps)
    if not over:
        return note
    return (
        f"WARNING: the JavaScript memoir shares this store ({found}), keeps only "
        f"{', '.join(over)}: its next write trims to that · {note}"
    )


class NewsBanner(Static):
    """Says the last few jumps of a list between two reads; click to dismiss."""

    DEFAULT_CSS = """
    NewsBanner {
        display: none;
        height: auto;
        max-height: 6;
        width: 1fr;
        padding: 0 1;
        background: $warning 25%;
        color: $text;
        border-left: thick $warning;
    }
    NewsBanner.-news {
        display: block;
    }
    """

    def __init__(self) -> None:
        super().__init__("", id="news-banner", markup=False)
        self._last: Reading | None = None
        self._review_waiting: int | None = None
        self.lines: list[str] = []
        self._asked = 0  # readings asked for
        self._applied = 0  # readings compared, in order
        self._landed_early: dict[int, Reading | None] = {}

    def observe(self, root: Path, state: Mapping[str, Any], *, own: bool = False) -> None:
        """A new read of the session (``own``: right after a write of this app's)."""
        self._asked += 1
        number = self._asked

        def run() -> None:
            try:
                reading: Reading | None = take_reading(root, state, own=own)
            except Exception:  # a reading that failed is skipped, never a traceback
                reading = None
            with contextlib.suppress(RuntimeError):  # the app is closing
                self.app.call_from_thread(self._land, number, reading)

        self.run_worker(run, name="news-read", group="news-read", thread=True, exit_on_error=False)

    @property
    def pending(self) -> bool:
        return self._applied < self._asked

    def _land(self, number: int, reading: Reading | None) -> None:
        self._landed_early[number] = reading
        while self._applied + 1 in self._landed_early:
            self._applied += 1
            landed = self._landed_early.pop(self._applied)
            if landed is not None and self.is_attached and not getattr(self.app, "closing", False):
                self._landed(landed)

    def observe_review(self, waiting: int, *, own: bool = False) -> None:
        """The review queue's waiting count from the app's read of it."""
        before, self._review_waiting = self._review_waiting, waiting
        if before is None or own or not is_news(before, waiting):
            return
        self._say(f"{CHANGED}{LIST_NAMES['review']} {before} → {waiting}.")

    def _landed(self, reading: Reading) -> None:
        before, self._last = self._last, reading
        if before is None or reading.own:
            return
        news = news_between(before, reading)
        if news:
            self._say(CHANGED + news)

    def warn_caps(self, caps_note: str) -> None:
        """The header's caps note gained its warning while the app is open (the
        JavaScript memoir's files appeared): said here too, where it is not cut."""
        if caps_note.startswith("WARNING: "):
            self._say("Caps: " + caps_note.removeprefix("WARNING: ").split(" · ", 1)[0] + ".")

    def _say(self, line: str) -> None:
        self.lines = [*self.lines, line][-KEEP_LINES:]
        self._show()

    def dismiss(self) -> None:
        self.lines = []
        self._show()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.dismiss()

    def _show(self) -> None:
        text = "\n".join(self.lines)
        if text:
            text += "  (click to dismiss)"
        self.update(text)
        self.set_class(bool(self.lines), "-news")
