"""The mark a purge leaves for the caches that must still let go of its words.

Set inside the purge's transaction, before it commits (``stage_cache_scrub``);
the caches themselves (the recall index, the local sync copy) are dropped after
the commit by ``core.purge.finish_cache_scrub``, by this command or, if it dies,
by the next one a face starts.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memoir_tui.core.door.transaction import Transaction

log = logging.getLogger(__name__)

__all__ = ["scrub_marker", "stage_cache_scrub"]


# --- caches, finished by the next command if this one dies ------------------------------
#
# The marker lives with the caches (the user cache directory), not in the store: it is
# not a store file (like the recall index itself, it is written outside the door), so
# setting and clearing it adds no commit and no audit line. It is set while the purge's
# transaction is open, before its commit; cleared once the caches are dropped. A kill
# before the commit leaves a marker for nothing: the next command drops caches that
# rebuild from the files, which costs a rebuild and loses nothing.


def scrub_marker(root: Path) -> Path:
    """The marker saying a purge of ``store`` still has its caches to drop (no text)."""
    from memoir_tui.core.base.cachedir import cache_dir

    name = hashlib.sha256(os.fsencode(os.path.abspath(root))).hexdigest()[:16]
    return cache_dir() / f"scrub-pending-{name}"


def stage_cache_scrub(tx: Transaction) -> None:
    """Inside the purge's transaction, before it commits: mark the caches (the recall
    index, the local sync copy's history) as still to let go."""
    marker = scrub_marker(tx.store.root)
    try:
        from memoir_tui.core.base.fsutil import private_dir
        from memoir_tui.core.base.safeio import create_exclusive, write_target

        write_target(marker, within=marker.parent.parent)  # the cache folder linked out: no
        private_dir(marker.parent)  # caches are private (0600 in 0700), like the index
        # Created in place (O_EXCL, never through a link): no temp file a kill could leave
        # outside the folders the store's sweep knows; one already there says the same.
        with contextlib.suppress(FileExistsError):
            create_exclusive(marker, b"recall sync\n", within=marker.parent.parent)
    except OSError as exc:  # the caches are still dropped after the commit
        log.warning("could not mark the caches for dropping: %s", exc)
