"""What a person searches for is not a write (a "needle").

Forget, recall, ``why``, a filter and every other search take any text — a leaked
token pasted to forget it included — so a needle is checked only for being a
string, not empty and not oversized; the secret check is for text going *into* the
store (``items.clean_text``). A needle is never stored, logged or audited, and a
face never echoes it as typed: it shows ``shown(needle)``, in which every secret is
``[REDACTED:<rule>]``.

Core only: never prints, never imports textual or mcp.
"""

from __future__ import annotations

from typing import Any

from memoir_tui.core.base.errors import EmptyTextError, TextTooLongError
from memoir_tui.core.format.identity import js_trim
from memoir_tui.core.format.items import MAX_TEXT_BYTES


def clean_needle(text: Any, what: str = "text", *, required: bool = True) -> str:
    """``text`` trimmed, refused only when empty (if ``required``), not a string or
    longer than 8 KB — never for holding a secret."""
    if text is None and not required:
        return ""
    if not isinstance(text, str):
        raise EmptyTextError(f"{what} must be a string")
    cleaned = js_trim(text)
    if not cleaned:
        if required:
            raise EmptyTextError(f"{what} is empty; give some text")
        return ""
    if len(cleaned.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise TextTooLongError(f"{what} is longer than {MAX_TEXT_BYTES // 1024} KB; shorten it")
    return cleaned


def shown(text: str) -> str:
    """``text`` as a face, a log line or the trash's note may show it: every secret in
    it replaced by ``[REDACTED:<rule>]``."""
    if not text:
        return text
    from memoir_tui.core.format.secrets import redact

    return redact(text)
