"""After a purge: the caches that may still hold the purged words let go of them.

The store's own files are redacted in the purge's commit (session, review queue,
the copies kept aside of damaged files). Two caches live elsewhere and are
rebuilt from the files whenever they are missing, so the safe way to purge
them is to drop them:

* the recall indexes (SQLite FTS5: a deleted row's terms stay in the index's
  segments until they are merged, so editing them in place is not enough);
* the local sync copy (a bare git repository whose history holds the old
  blobs). The next sync fetches the remote again and pushes the purged state
  as a new root commit, so the remote's history lets go of the words too.

Neither undoes the purge. A drop that fails (a running sync keeps its copy, a
cache that cannot be removed) is retried a few times, then left to every next
command: the marker stays until the drop really happened, and the user is told
what stayed. A cache in use by another process is removed from the file system
and that process re-creates it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import TYPE_CHECKING

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.items import FILES
from memoir_tui.core.recall.drop import drop_recall_indexes
from memoir_tui.core.services.purge_marker import scrub_marker

if TYPE_CHECKING:
    from memoir_tui.core.door.context import Commit
    from memoir_tui.core.door.store import Store

log = logging.getLogger(__name__)


def scrub_caches_after_purge(store: Store, commit: Commit) -> None:
    finish_cache_scrub(store)


def drop_sync_copy(store: Store, failures: list[str] | None = None) -> bool:
    """Discard the local sync copy's repository (not its state) if no sync is running.
    A copy that stays (a sync running, an error) is added to ``failures``."""
    from memoir_tui.core.sync.config import load_sync_config, sync_config_path
    from memoir_tui.core.sync.engine import SyncCopy, sync_lock

    if not sync_config_path(store.root).exists():
        return False
    try:
        copy = SyncCopy(store, load_sync_config(store.root))
        with sync_lock(copy.work_dir, wait=0):
            copy.discard_history()
    except (MemoirError, OSError) as exc:
        log.warning("after the purge, the sync copy was left for the next sync: %s", exc)
        if failures is not None:
            failures.append(f"the local sync copy's history stayed ({exc})")
        return False
    return True


# Attempts within one command, and the pauses between them; a drop still failing after
# them keeps the marker, so every next start of any face tries again.
DROP_ATTEMPTS = 3
DROP_PAUSE_SECONDS = 0.1


def finish_cache_scrub(store: Store) -> list[str]:
    """Drop the caches a purge left to drop, then the marker, retrying a failed drop a
    few times. The marker goes only once every drop really happened; until then a
    sentence saying what stayed is left for the user (``transaction.take_notices``)
    and every next command tries again."""
    marker = scrub_marker(store.root)
    if not marker.exists():
        return []
    done = []
    failures: list[str] = []
    for attempt in range(DROP_ATTEMPTS):
        if attempt:
            time.sleep(DROP_PAUSE_SECONDS * attempt)
        failures = []
        dropped = drop_recall_indexes(failures)
        if dropped:
            done.append(f"dropped the recall index ({dropped} file(s); it rebuilds from the files)")
        if drop_sync_copy(store, failures):
            done.append("discarded the local sync copy's history (the next sync rebuilds it)")
        if not failures:
            break
    if failures:
        from memoir_tui.core.door.transaction import add_notice

        add_notice(
            store.root,
            "after the purge, a cache that may still hold the purged words could not be "
            f"dropped: {'; '.join(dict.fromkeys(failures))}; every next command tries again",
        )
        return done
    with contextlib.suppress(FileNotFoundError):
        marker.unlink()
    return done


def finish_interrupted(store: Store) -> bool:
    """What every face does first: complete a commit a killed process left half done
    (the redo journal) and the cache drops a purge did not get to."""
    from memoir_tui.core.door.transaction import journal_path, sweep_temps_at_start

    with contextlib.suppress(MemoirError, OSError):
        sweep_temps_at_start(store)  # temp files a killed writer left: swept, not waited on
    pending = os.path.lexists(journal_path(store.root))
    if not (pending or scrub_marker(store.root).exists()):
        return False
    try:
        if pending:
            with store.transaction("recover", files=(FILES,)):
                pass  # entering it rolls the journal forward
        finish_cache_scrub(store)
    except (MemoirError, OSError) as exc:
        log.warning("could not finish an interrupted change: %s", exc)
        return False
    return True
