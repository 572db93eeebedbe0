"""Receipts of forget and purge, kept so they can be read again (the Audit pane lists them).

A receipt says what was checked, what changed and what is still there. Kept,
it must not bring back what it forgot: the forgotten text becomes
``[forgotten]`` in every line (as written, case ignored, and as JSON escapes
it), lines of context are never kept (only the place: kind, file, where, the
action), and any line that still looks like a secret is withheld. No hash of
the text is kept either (a short codename's hash is a guess away from it).

They live in ``receipts.jsonl`` in the store (this machine's: sync does not
carry it, since it names this machine's files), one JSON object a line, newest
last, at most ``KEEP`` of them; written through the one door.

Core only: no textual, no mcp.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.format.items import Outcome
    from memoir_tui.core.services.working_set import WorkingSetService

RECEIPTS_FILE = "receipts.jsonl"
KEEP = 200
FORGOTTEN = "[forgotten]"
HELD_LINE = "[a line that held the forgotten text]"


@dataclass(frozen=True, slots=True)
class KeptReceipt:
    time: str
    operation: str  # "forget_everywhere" | "purge_decision"
    actor: str
    title: str
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.time,
            "operation": self.operation,
            "actor": self.actor,
            "title": self.title,
            "lines": list(self.lines),
        }

    @classmethod
    def from_json(cls, data: Any) -> KeptReceipt | None:
        if not isinstance(data, dict):
            return None
        lines = data.get("lines")
        time, operation, actor, title = (
            data.get(k) for k in ("time", "operation", "actor", "title")
        )
        if not (
            isinstance(time, str)
            and isinstance(operation, str)
            and isinstance(actor, str)
            and isinstance(title, str)
            and isinstance(lines, list)
        ):
            return None
        return cls(time, operation, actor, title, tuple(str(line) for line in lines))

    def render(self) -> str:
        return "\n".join([self.title, *self.lines])


def redact(text: str, needle: str) -> str:
    """``text`` with every form of ``needle`` replaced by ``[forgotten]``."""
    if not needle:
        return text
    forms = {needle, json.dumps(needle)[1:-1], json.dumps(needle, ensure_ascii=False)[1:-1]}
    pattern = re.compile(
        "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), re.IGNORECASE
    )
    return pattern.sub(FORGOTTEN, text)


def _redacted_line(line: str, needle: str) -> str:
    line = redact(line, needle)
    folded = needle.lower()
    if folded and (folded in line.lower() or json.dumps(needle)[1:-1].lower() in line.lower()):
        # the replacement itself and its neighbours spelled it again: nothing of it is kept
        return "" if folded in HELD_LINE.lower() else HELD_LINE
    return line


def kept_lines(lines: Iterable[str], needle: str) -> tuple[str, ...]:
    """Lines as a receipt keeps them: the needle and any secret withheld."""
    from memoir_tui.core.rules.withhold import withhold_lines

    text = "\n".join(_redacted_line(line, needle) for line in lines)
    return tuple(withhold_lines(text)[0].split("\n")) if text else ()


def keep(store: Store, kept: KeptReceipt) -> str:
    """Append ``kept`` to the store's receipts (the newest ``KEEP`` stay), through the door;
    "" when kept, else a sentence (the act it records is done already, so never raised)."""
    from memoir_tui.core.base.errors import MemoirError
    from memoir_tui.core.format.items import FILES

    path = store.root / RECEIPTS_FILE
    try:
        with store.transaction("keep_receipt", files=(FILES,)) as tx:
            old = tx.read_bytes(path) or b""
            lines = [line for line in old.decode("utf-8", "replace").splitlines() if line.strip()]
            lines.append(json.dumps(kept.to_json(), ensure_ascii=False))
            tx.write_text(path, "\n".join(lines[-KEEP:]) + "\n")
    except (MemoirError, OSError) as exc:
        return f"the receipt was not kept: {exc}"
    return ""


def read_receipts(store: Store) -> list[KeptReceipt]:
    """The kept receipts, newest first (unreadable lines skipped; none when missing)."""
    from memoir_tui.core.base.safeio import read_file_safely

    try:
        data = read_file_safely(store.root / RECEIPTS_FILE, within=store.root)
    except OSError:
        return []
    out = []
    for raw in data.decode("utf-8", "replace").splitlines():
        try:
            parsed = json.loads(raw)
        except ValueError:
            continue
        kept = KeptReceipt.from_json(parsed)
        if kept is not None:
            out.append(kept)
    return out[::-1]


def from_purge(key: str, message: str, *, time: str, actor: str) -> KeptReceipt:
    """A purged decision's receipt: its identity hash (already in the session) and what went."""
    lines = (
        "text, why and rejected removed from session.json and the review queue",
        "the copies kept aside of damaged files redacted; recall and sync caches dropped",
        f"result: {message}",
    )
    return KeptReceipt(time, "purge_decision", actor, f"purge decision {key[:12]}…", lines)


def purge_decision_kept(working: WorkingSetService, key: str) -> Outcome:
    """``purge_decision``, its receipt kept (``receipts.jsonl``) when it changed
    something."""
    from dataclasses import replace

    store = working.store
    outcome = working.purge_decision(key)
    if outcome.changed:
        kept = from_purge(key, outcome.message, time=store.clock(), actor=store.actor)
        failed = keep(store, kept)
        if failed:
            return replace(outcome, message=f"{outcome.message} ({failed})")
    return outcome
