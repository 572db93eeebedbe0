"""The local sync state of one store: what the last sync saw and did.

Kept in the sync working folder (never in the store, never on the remote) as
``state.json``. It holds commit ids, digests, counts and machine labels, never
item text, so a purge has nothing to chase here.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memoir_tui.core.base.fsutil import atomic_write_bytes

STATE_FILE = "state.json"


@dataclass
class SyncState:
    last_commit: str | None = None  # the remote commit the store was last merged with or pushed
    remote_head: str | None = None  # the remote head seen by the last fetch
    known_purged: list[str] = field(default_factory=list)  # text_hash values seen at last sync
    remote_digests: dict[str, str] = field(default_factory=dict)  # logical path -> digest
    last_sync: str | None = None
    last_action: str | None = None
    last_ok: bool | None = None
    last_result: str | None = None
    last_merge: dict[str, Any] | None = None
    last_push: str | None = None
    last_rewrite: str | None = None
    quarantined: str | None = None
    machines: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, work_dir: Path) -> SyncState:
        try:
            raw = json.loads((work_dir / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return cls()
        if not isinstance(raw, dict):
            return cls()
        state = cls()
        for name, default in asdict(cls()).items():
            value = raw.get(name, default)
            if isinstance(default, list) and not isinstance(value, list):
                value = default
            if isinstance(default, dict) and not isinstance(value, dict):
                value = default
            setattr(state, name, value)
        return state

    def save(self, work_dir: Path) -> None:
        work_dir.mkdir(parents=True, exist_ok=True)
        data = (json.dumps(asdict(self), indent=2, sort_keys=True) + "\n").encode("utf-8")
        atomic_write_bytes(work_dir / STATE_FILE, data, mode=0o600)
