"""Capture from Codex and Gemini CLI: their own transcript formats → the review queue.

Facts relied on (docs/HOSTS.md has the sources):

* **Codex** rollouts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) are
  append-only JSON lines ``{"timestamp", "type", "payload"}``. The clean turns
  are ``event_msg`` lines whose payload ``type`` is ``user_message`` (what the
  person typed) or ``agent_message`` (the agent's prose), each with
  ``message``. ``response_item`` user messages also carry injected context
  (AGENTS.md, the environment, our own brief) and are never read. The ``Stop``
  hook names the rollout in ``transcript_path`` with ``session_id`` and ``cwd``;
  the file is read from the offset the last run stopped at (the same offsets
  file as Claude Code's capture), so a repeated event reads nothing.
* **Gemini CLI** ``AfterAgent`` hands the turn itself: ``prompt`` and
  ``prompt_response``. Its chat recording
  (``~/.gemini/tmp/<project_hash>/chats/session-*.jsonl``) is an upsert log: a
  metadata line, message records ``{"id", "timestamp", "type": "user" |
  "gemini" | …, "content"}`` rewritten in full under the same ``id`` as they
  change, ``{"$rewindTo": id}`` dropping that message and every later one, and
  ``{"$set": {…}}`` patches (``messages`` there replaces the list). At
  ``SessionEnd`` and ``PreCompress`` the whole recording is folded and read
  again, a flush point for any turn an ``AfterAgent`` did not see.

Whatever the host, candidates carry provenance (``tool`` names the host), go to
the review queue only (never pinned), and the queue's identity check makes a
repeated event add nothing; our own brief is stripped from every message
before extraction (``fences.strip_ours``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.capture.extract import extract_candidates
from memoir_tui.core.capture.transcripts import Message

if TYPE_CHECKING:
    from memoir_tui.core.workflows.memoir import Memoir

MAX_CHAT_BYTES = 32 * 1024 * 1024


def _text(value: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [
            p.get("text")
            for p in value
            if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def codex_messages(
    records: Iterable[Mapping[str, Any]], *, transcript: str, session_id: str, cwd: str
) -> list[Message]:
    """The person's and the agent's turns in Codex rollout lines (``event_msg`` only)."""
    out: list[Message] = []
    for n, record in enumerate(records):
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, Mapping):
            session_id = session_id or str(payload.get("id") or "")
            cwd = cwd or str(payload.get("cwd") or "")
            continue
        if record.get("type") != "event_msg" or not isinstance(payload, Mapping):
            continue
        kind = payload.get("type")
        if kind not in ("user_message", "agent_message"):
            continue
        text = _text(payload.get("message"))
        if not text.strip():
            continue
        out.append(
            Message(
                source="user" if kind == "user_message" else "assistant",
                text=text,
                uuid=f"{session_id}:{record.get('timestamp', '')}:{n}",
                session_id=session_id,
                timestamp=str(record.get("timestamp") or ""),
                cwd=cwd,
                transcript=transcript,
            )
        )
    return out


def fold_gemini_chat(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The messages a Gemini chat recording holds now (upserts, rewinds, ``$set``)."""
    messages: dict[str, Mapping[str, Any]] = {}
    for record in records:
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            ids = list(messages)
            cut = ids.index(rewind) if rewind in ids else 0
            for gone in ids[cut:]:
                del messages[gone]
            continue
        if isinstance(record.get("id"), str):
            messages[record["id"]] = record  # rewritten in full under its id
            continue
        patch = record.get("$set") if isinstance(record.get("$set"), Mapping) else record
        if isinstance(patch.get("messages"), list):
            messages = {
                m["id"]: m
                for m in patch["messages"]
                if isinstance(m, Mapping) and isinstance(m.get("id"), str)
            }
    return list(messages.values())


def gemini_chat_messages(
    records: Iterable[Mapping[str, Any]], *, transcript: str, session_id: str, cwd: str
) -> list[Message]:
    out: list[Message] = []
    for record in fold_gemini_chat(records):
        kind = record.get("type")
        if kind not in ("user", "gemini"):
            continue  # info, error, warning: the CLI's own lines
        text = _text(record.get("content"))
        if not text.strip():
            continue
        out.append(
            Message(
                source="user" if kind == "user" else "assistant",
                text=text,
                uuid=str(record.get("id")),
                session_id=session_id,
                timestamp=str(record.get("timestamp") or ""),
                cwd=cwd,
                transcript=transcript,
            )
        )
    return out


def read_jsonl(path: Path, *, max_bytes: int = MAX_CHAT_BYTES) -> list[dict[str, Any]]:
    """Every complete JSON-object line of ``path`` (a half-written last line is left)."""
    from memoir_tui.core.base.safeio import open_for_reading

    with open_for_reading(path) as handle:  # a FIFO is refused, never blocks
        data = handle.read(max_bytes)
    lines = data.split(b"\n")
    if not data.endswith(b"\n"):
        lines = lines[:-1]
    out: list[dict[str, Any]] = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def queue_messages(
    store: Memoir, host: str, messages: list[Message], *, home: Path, state: Any = None
) -> tuple[str, ...]:
    """Extract candidates from ``messages`` (provenance: ``host``) and queue the new ones;
    ``state`` is ``(path, bytes)`` of capture's offsets file to write in the same commit."""
    from memoir_tui.core.capture.run import _project_resolver
    from memoir_tui.core.format.items import FILES, REVIEW

    candidates = [
        replace(c, tool=host)
        for c in extract_candidates(messages, project_of=_project_resolver(home))
    ]
    if not candidates and state is None:
        return ()
    added: tuple[str, ...] = ()
    with store.transaction("capture", files=(REVIEW, FILES)) as tx:
        if candidates:
            added = store.review.enqueue([c.to_item() for c in candidates]).added
        if state is not None:
            tx.write_bytes(state[0], state[1], scan=False)
    return added


def capture_codex(
    store: Memoir, path: Path, *, session_id: str, cwd: str, home: Path
) -> tuple[str, ...]:
    """The rollout's bytes no run has read → the queue; the offset moves in the same commit."""
    from memoir_tui.core.capture.run import MAX_BYTES_PER_RUN
    from memoir_tui.core.capture.state import (
        HEAD_LEN,
        STATE_FILE,
        FileState,
        encode_state,
        head_hash,
        load_state,
        start_offset,
    )
    from memoir_tui.core.capture.transcripts import PRIMARY, read_new_records
    from memoir_tui.core.door.lock import store_flock

    state_path = store.root / STATE_FILE
    with store_flock(state_path, wait_seconds=store.config.lock_wait_seconds):
        files = load_state(state_path)
        key = str(path)
        entry = files.get(key, FileState())
        size = path.stat().st_size
        offset = start_offset(path, entry, size)
        if offset >= size:
            return ()
        result = read_new_records(path, offset, max_bytes=MAX_BYTES_PER_RUN)
        messages = codex_messages(result.records, transcript=key, session_id=session_id, cwd=cwd)
        head_len = min(HEAD_LEN, result.next_offset)
        head = head_hash(path, head_len)
        files[key] = FileState(
            offset=result.next_offset,
            size=size,
            mtime_ns=os.stat(path).st_mtime_ns,
            kind=PRIMARY,
            head=head,
            head_len=head_len if head else 0,
            session_id=session_id or entry.session_id,
            updated_at=store.clock(),
        )
        return queue_messages(
            store, "codex", messages, home=home, state=(state_path, encode_state(files))
        )


def capture_gemini_turn(store: Memoir, event: Mapping[str, Any], *, home: Path) -> tuple[str, ...]:
    """``AfterAgent``: the turn's prompt and response, straight from the event."""
    session_id = str(event.get("session_id") or "")
    cwd = str(event.get("cwd") or "")
    stamp = str(event.get("timestamp") or "")
    transcript = str(event.get("transcript_path") or "")
    messages = [
        Message(
            source=source,
            text=text,
            uuid=f"{session_id}:{stamp}:{source}",
            session_id=session_id,
            timestamp=stamp,
            cwd=cwd,
            transcript=transcript,
        )
        for source, text in (
            ("user", _text(event.get("prompt"))),
            ("assistant", _text(event.get("prompt_response"))),
        )
        if text.strip()
    ]
    return queue_messages(store, "gemini", messages, home=home) if messages else ()


def capture_gemini_chat(
    store: Memoir, path: Path, event: Mapping[str, Any], *, home: Path
) -> tuple[str, ...]:
    """``SessionEnd`` / ``PreCompress``: the whole recording, folded, read again."""
    messages = gemini_chat_messages(
        read_jsonl(path),
        transcript=str(path),
        session_id=str(event.get("session_id") or ""),
        cwd=str(event.get("cwd") or ""),
    )
    return queue_messages(store, "gemini", messages, home=home) if messages else ()
