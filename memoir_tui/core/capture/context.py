"""The conversation around a captured candidate: a few messages before and after it.

Capture records where a candidate was said (``transcript`` path and the
message's ``message_uuid``). This reads that transcript the safe way
(``safeio.read_file_safely``: a regular file only, never a FIFO or a device,
bounded in size, never through a link out of the home) and returns the
messages around it in conversation order, each cut to a few hundred
characters, every line that looks like a secret withheld. A missing, moved or
unreadable transcript is a sentence, never an error.

Core only: no textual, no mcp.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024
MESSAGE_CHARS = 300


@dataclass(frozen=True, slots=True)
class ContextLine:
    source: str  # "user" | "assistant"
    text: str
    here: bool  # the message the candidate was taken from
    timestamp: str = ""


@dataclass(frozen=True, slots=True)
class TranscriptContext:
    lines: tuple[ContextLine, ...] = ()
    note: str = ""  # why nothing is shown, or how the message was found


def _clip(text: str, around: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    at = text.lower().find(" ".join(around.split()).lower()) if around else -1
    if at < 0:
        return text[: limit - 1] + "…"
    start = max(at - limit // 3, 0)
    piece = text[start : start + limit - 2]
    return ("…" if start else "") + piece + ("…" if start + len(piece) < len(text) else "")


def _shown(text: str) -> str:
    from memoir_tui.core.format.textsafe import shown
    from memoir_tui.core.rules.withhold import withhold_lines

    return shown(withhold_lines(text)[0])


def context_around(
    transcript: str,
    message_uuid: str = "",
    text: str = "",
    *,
    before: int = 2,
    after: int = 2,
    home: str | os.PathLike[str] | None = None,
) -> TranscriptContext:
    """Up to ``before`` messages before the candidate's, it, and ``after`` after it."""
    from memoir_tui.core.base.safeio import home_folder, read_file_safely
    from memoir_tui.core.capture.transcripts import _parse_line, conversation_messages

    if not transcript:
        return TranscriptContext(note="capture recorded no transcript for this candidate")
    path = Path(os.path.expanduser(transcript))
    try:
        data = read_file_safely(path, max_bytes=MAX_TRANSCRIPT_BYTES, within=home or home_folder())
    except FileNotFoundError:
        return TranscriptContext(note=f"the transcript is gone: {transcript}")
    except OSError as exc:
        return TranscriptContext(note=f"the transcript was not read: {exc}")
    records = [r for r in (_parse_line(line) for line in data.split(b"\n")) if r is not None]
    messages = conversation_messages(records, transcript=str(path))
    index = next(
        (n for n, m in enumerate(messages) if message_uuid and m.uuid == message_uuid), None
    )
    note = ""
    if index is None and text:
        folded = " ".join(text.split()).lower()
        index = next(
            (n for n, m in enumerate(messages) if folded in " ".join(m.text.split()).lower()),
            None,
        )
        note = "found by its words (the recorded message id is not in the transcript)"
    if index is None:
        return TranscriptContext(note="the candidate's message is no longer in the transcript")
    lines = tuple(
        ContextLine(
            m.source,
            _shown(_clip(m.text, text if n == index else "", MESSAGE_CHARS)),
            n == index,
            m.timestamp,
        )
        for n, m in enumerate(messages)
        if index - before <= n <= index + after
    )
    return TranscriptContext(lines, note)
