"""How a stored date is shown as a day: one rule for every face.

Stored dates are ISO date-times as written (``2026-06-18T16:55:01.123Z``, UTC for the
``Z`` stamps every writer uses); a day is their first ten characters, cut without
parsing because a table formats thousands of them.
"""

from __future__ import annotations

import re

ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]|$)")
"""Text that starts with an ISO day (``2026-06-18``, alone or before a time)."""


def day(value: object, missing: str = "") -> str:
    """``2026-06-18`` for an ISO date or date-time: the first ten characters of any text
    (so ``""`` stays ``""``); ``missing`` for a value that is not text (None, or a date a
    YAML reader parsed)."""
    return value[:10] if isinstance(value, str) else missing


def day_or_raw(value: str) -> str:
    """The day of ``value`` if it starts with an ISO day, else ``value`` as written: a
    table shows text it cannot read as a date whole rather than a cut of it."""
    return value[:10] if ISO_DAY.match(value) else value
