"""``capture-state.json``: how far capture has read each transcript.

A cache, not memory: losing it only means the next capture re-reads files,
and the review queue's identity check drops what it has already seen. Per
file it keeps the byte offset of the first line not yet consumed, the size
and mtime seen then, the file's kind once settled, and a hash of the first
bytes consumed so a file replaced by another of equal or larger size starts
again from zero.

```json
{"version": 1,
 "files": {"/abs/path/<session>.jsonl": {
     "offset": 1234, "size": 1234, "mtime_ns": 1, "kind": "primary",
     "head": "<sha256 of the first head_len bytes>", "head_len": 1024,
     "session_id": "…", "updated_at": "<iso>"}}}
```
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

STATE_FILE = "capture-state.json"
STATE_VERSION = 1
HEAD_LEN = 1024


@dataclass(slots=True)
class FileState:
    offset: int = 0
    size: int = 0
    mtime_ns: int = 0
    kind: str = ""
    head: str = ""
    head_len: int = 0
    session_id: str = ""
    updated_at: str = ""

    @classmethod
    def from_dict(cls, value: Any) -> FileState:
        if not isinstance(value, dict):
            return cls()

        def num(key: str) -> int:
            v = value.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0

        def text(key: str) -> str:
            v = value.get(key)
            return v if isinstance(v, str) else ""

        return cls(
            offset=num("offset"),
            size=num("size"),
            mtime_ns=num("mtime_ns"),
            kind=text("kind"),
            head=text("head"),
            head_len=num("head_len"),
            session_id=text("session_id"),
            updated_at=text("updated_at"),
        )

    def as_dict(self) -> dict[str, Any]:
        if self.kind and self.kind != "primary":
            return {"kind": self.kind, "updated_at": self.updated_at}  # never read
        return {
            "offset": self.offset,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "kind": self.kind,
            "head": self.head,
            "head_len": self.head_len,
            "session_id": self.session_id,
            "updated_at": self.updated_at,
        }


def head_hash(path: str | os.PathLike[str], length: int) -> str:
    """SHA-256 of the first ``length`` bytes ("" when the file is shorter or unreadable)."""
    if length <= 0:
        return ""
    from memoir_tui.core.base.safeio import open_for_reading

    try:
        with open_for_reading(path) as fh:  # a FIFO or a device: never opened
            data = fh.read(length)
    except OSError:
        return ""
    return hashlib.sha256(data).hexdigest() if len(data) == length else ""


def start_offset(path: str | os.PathLike[str], entry: FileState, size: int) -> int:
    """Where to resume reading: the saved offset, or 0 if the file was replaced or shrank."""
    if entry.offset > size:
        return 0
    if entry.head_len and head_hash(path, entry.head_len) != entry.head:
        return 0
    return entry.offset


def load_state(path: str | os.PathLike[str]) -> dict[str, FileState]:
    """Per-file states; a missing or unreadable file is an empty state."""
    try:
        from memoir_tui.core.base.safeio import read_json_safely

        data = read_json_safely(path, max_bytes=64 * 1024 * 1024)
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return {}
    v = data.get("version")
    if isinstance(v, int) and v > STATE_VERSION:
        return {}
    return {k: FileState.from_dict(v) for k, v in data["files"].items() if isinstance(k, str)}


def encode_state(files: dict[str, FileState]) -> bytes:
    """The state file's bytes (written by capture through the store's transaction)."""
    payload = {
        "version": STATE_VERSION,
        "files": {k: files[k].as_dict() for k in sorted(files)},
    }
    return (json.dumps(payload, indent=1, sort_keys=True) + "\n").encode()
