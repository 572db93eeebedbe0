"""Durations as a person types them: ``90m``, ``2h``, ``3d``, ``1w``, ``1h30m``, ``1.5d``."""

from __future__ import annotations

import re

from memoir_tui.core.base.errors import MemoirError

_PART_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])", re.IGNORECASE)
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}


class DurationError(MemoirError):
    """Text that is not a duration."""


def parse_duration(text: str) -> float:
    """Seconds in a duration: one or more parts of a number and a unit (s, m, h, d, w),
    spaces and case ignored. Raises DurationError for anything else (no sign, no bare
    number, no other unit)."""
    compact = text.strip().replace(" ", "") if isinstance(text, str) else ""
    if not compact or _PART_RE.sub("", compact):
        raise DurationError(f"not a duration: {text!r} (use e.g. 30m, 2h, 3d, 1w)")
    return sum(float(n) * UNIT_SECONDS[unit.lower()] for n, unit in _PART_RE.findall(compact))
