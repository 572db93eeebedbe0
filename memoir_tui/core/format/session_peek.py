"""Read ``session.json`` without touching anything: no quarantine copy, no lock.

``session.load_session`` keeps a damaged or newer file aside (a writer is about
to replace it, or the user should be told once). Readers that must write
nothing — the doctor, a host's session-start hook — look through this
instead: the same parse and migration, and what was wrong said in words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.base.fsutil import NotRegularFileError
from memoir_tui.core.format.items import SESSION_VERSION, empty_session
from memoir_tui.core.format.session import (
    MISSHAPEN,
    NEWER_VERSION,
    NOT_REGULAR,
    UNREADABLE,
    migrate_session,
    read_store_file,
    shape_problems,
)


@dataclass(frozen=True, slots=True)
class Peek:
    state: dict[str, Any]
    exists: bool
    damage: str = ""  # "" | UNREADABLE | MISSHAPEN | NEWER_VERSION | NOT_REGULAR
    detail: str = ""  # one sentence when damaged


def _not_finite(token: str) -> float:
    raise ValueError(f"{token} is not JSON")


def peek_session(path: Path, *, now: str | None = None) -> Peek:
    """The session's state as ``load_session`` would give it, writing nothing."""
    try:
        raw_bytes = read_store_file(path)
    except NotRegularFileError as err:
        return Peek(empty_session(now), True, NOT_REGULAR, f"not a regular file ({err.strerror})")
    if raw_bytes is None:
        return Peek(empty_session(now), False)
    try:
        raw = json.loads(raw_bytes.decode("utf-8"), parse_constant=_not_finite)
        if not isinstance(raw, dict):
            raise ValueError("top level is not an object")
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return Peek(empty_session(now), True, UNREADABLE, f"cannot be parsed ({exc})")
    future, state = migrate_session(raw, now)
    if future:
        return Peek(
            state,
            True,
            NEWER_VERSION,
            f"is from a newer memoir format (version {raw.get('version')!r} > "
            f"{SESSION_VERSION}): read-only here",
        )
    problems = shape_problems(raw)
    if problems:
        return Peek(state, True, MISSHAPEN, f"has parts of the wrong shape ({'; '.join(problems)})")
    return Peek(state, True)


def understood_state(path: Path, *, now: str | None = None) -> dict[str, Any] | None:
    """What a newer-format session holds that this version understands (its known lists,
    read as today's shapes), for showing it read-only; None when it is not one. Never
    written back: every write to such a file is refused (``session.guard_not_newer``)."""
    from memoir_tui.core.format.session import normalise_shape

    try:
        raw_bytes = read_store_file(path)
        if raw_bytes is None:
            return None
        raw = json.loads(raw_bytes.decode("utf-8"), parse_constant=_not_finite)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(raw, dict) or not migrate_session(raw, now)[0]:
        return None
    return normalise_shape(raw, now)
