"""What a process stopped by a signal leaves behind: nothing of its own.

``release_for_exit`` is the one call a long-lived face (the MCP server) makes once it
has stopped taking work and let what was in flight finish: it removes every
JavaScript-protocol ``session.json.lock`` this process holds and every temp file it
is writing (``.<name>.*.tmp``, the lock's own temp), and from then on no new lock or
temp file is started. The flocks go with the process. A multi-file commit caught half
way keeps its redo journal, which the next transaction completes (that is not debris).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Released:
    locks: tuple[Path, ...]
    temps: tuple[str, ...]


def release_for_exit() -> Released:
    from memoir_tui.core.base.fsutil import remove_own_temps
    from memoir_tui.core.door.lock import release_own_locks

    locks = release_own_locks()  # first: no new lock (and so no new write) starts
    temps = remove_own_temps()
    return Released(tuple(locks), tuple(temps))
