"""The fences around what this project writes into an agent's context, and how our own
words are recognised when they come back in a transcript.

The brief is wrapped in ``<memoir-brief …>`` … ``</memoir-brief>``; the pinned block
injected into a host's instructions file sits between ``<!-- memoir:session-block -->``
comments. ``strip_ours`` removes both (an unclosed one up to the end), so capture never
reads them back as something new.
"""

from __future__ import annotations

import re

FENCE_OPEN = "<memoir-brief"
FENCE_CLOSE = "</memoir-brief>"
_OURS_RE = re.compile(
    r"<memoir-brief\b[^>]*>.*?(?:</memoir-brief>|\Z)"
    r"|<!--\s*memoir:session-block[^>]*-->.*?(?:<!--\s*/memoir:session-block\s*-->|\Z)",
    re.DOTALL,
)


def strip_ours(text: str) -> str:
    """``text`` without our own brief or pinned block (never captured back as new)."""
    return _OURS_RE.sub(" ", text)
