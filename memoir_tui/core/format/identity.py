"""Identity, hashing and dates exactly as the JavaScript tool computes them.

Two implementations share one store, so a purged decision's ``text_hash`` and
the identity of every list item must be byte-identical across them. That rules
out Python's ``str.strip()`` (it strips more characters than JavaScript's
``String.prototype.trim``) and ``str.casefold()`` (``toLowerCase`` does not fold
``ß`` to ``ss``). Dates follow ``Date.parse`` on the ISO forms, with one
deliberate difference: anything unparseable is the epoch, everywhere.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any, TypeGuard

# ECMAScript WhiteSpace + LineTerminator (ECMA-262 §12.2, §12.3): the set
# String.prototype.trim removes. Python's str.strip() also removes U+001C-U+001F
# and U+0085, which JavaScript keeps, so it cannot be used for identity.
JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

PURGED_TEXT = "[purged]"
_HASH_RE = re.compile(r"^[0-9a-f]{64}$")


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript computes it."""
    return text.strip(JS_WHITESPACE)


def identity(text: str) -> str:
    """A list item's identity (FORMAT §4.1): trimmed and lower-cased, JavaScript style."""
    return js_trim(text).lower()


def _utf8_like_node(text: str) -> bytes:
    # Node encodes lone surrogates as U+FFFD when hashing a string; a JSON file
    # can carry them ("\ud800"), so do the same instead of raising.
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        fixed = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return fixed.encode("utf-8")


def text_hash(text: str) -> str:
    """Lowercase hex SHA-256 of the normalised text: the purged tombstone's identity."""
    return hashlib.sha256(_utf8_like_node(identity(text))).hexdigest()


def is_text_hash(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and bool(_HASH_RE.match(value))


def canonical_json(value: Any) -> str:
    """A total, deterministic rendering used only to break ties between copies."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)


# --- dates ---------------------------------------------------------------

# The ISO forms Date.parse accepts: YYYY, YYYY-MM, YYYY-MM-DD, optionally
# followed by THH:mm[:ss[.sss]] and Z or ±HH:mm; six-digit signed years too.
_ISO_RE = re.compile(
    r"^(?P<year>[+-]\d{6}|\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[T ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<frac>\d+))?)?"
    r"(?P<tz>Z|z|[+-]\d{2}:?\d{2})?)?$"
)


def parse_date_ms(value: Any) -> int:
    """Milliseconds since the epoch for an ISO date string; 0 for anything else.

    Missing and unparseable dates both compare as the epoch (FORMAT §4.2.2,
    and §7: the reference is inconsistent here). Times without an offset are
    read as UTC so every machine orders them the same way.
    """
    ms = parse_iso_ms(value)
    return 0 if ms is None else ms


def is_iso_date(value: Any) -> bool:
    return parse_iso_ms(value) is not None


def parse_iso_ms(value: Any) -> int | None:
    """Milliseconds since the epoch, or None when ``value`` is not an ISO date."""
    if not isinstance(value, str):
        return None
    return _parse_iso_str(value)


@functools.lru_cache(maxsize=16384)
def _parse_iso_str(value: str) -> int | None:
    # Cached: sorting and merging compare the same few thousand stamps many times.
    m = _ISO_RE.match(value.strip())
    if not m:
        return None
    try:
        year = int(m["year"])
        month = int(m["month"] or 1)
        day = int(m["day"] or 1)
        hour = int(m["hour"] or 0)
        minute = int(m["minute"] or 0)
        second = int(m["second"] or 0)
        frac = m["frac"] or "0"
        millis = int((frac + "00")[:3])
        if hour == 24 and minute == 0 and second == 0 and millis == 0:
            hour = 0  # "24:00" is the end of the day, as in ECMAScript
            extra_day = 86_400_000
        else:
            extra_day = 0
        if not (1 <= year <= 9999):
            return None
        dt = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError:
        return None
    offset_ms = 0
    tz = m["tz"]
    if tz and tz not in ("Z", "z"):
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        oh, om = int(digits[:2]), int(digits[2:])
        if oh > 23 or om > 59:
            return None
        offset_ms = sign * (oh * 3600 + om * 60) * 1000
    epoch_ms = int(dt.timestamp()) * 1000 + millis + extra_day - offset_ms
    return epoch_ms


def iso_now(now: datetime | None = None) -> str:
    """``new Date().toISOString()``: UTC, millisecond precision, trailing Z."""
    now = now or datetime.now(UTC)
    now = now.astimezone(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def iso_from_ms(ms: int) -> str:
    return iso_now(datetime.fromtimestamp(ms / 1000, tz=UTC))
