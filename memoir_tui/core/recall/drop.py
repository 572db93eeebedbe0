"""Dropping the recall indexes (a cache that may hold purged words; it rebuilds from the
files). Apart from ``purge`` so that sync, which ``purge`` reaches, can drop them too."""

from __future__ import annotations

import logging
import os
import shutil

log = logging.getLogger("memoir_tui.core.workflows.purge")


def drop_recall_indexes(failures: list[str] | None = None) -> int:
    """Remove every recall index in the cache directory (they rebuild on the next query).
    What could not be removed is added to ``failures`` (one phrase each)."""
    from memoir_tui.core.base.cachedir import cache_dir
    from memoir_tui.core.base.safeio import LinkOutsideError, write_target

    removed = 0
    directory = cache_dir()
    try:
        write_target(directory / "x", within=directory.parent)  # a cache folder linked out
        names = os.listdir(directory)
    except LinkOutsideError as exc:
        # Linked out of the cache: no index of ours is there (recall never writes through it).
        log.warning("recall indexes not dropped: %s", exc)
        return 0
    except FileNotFoundError:
        return 0
    except OSError as exc:
        if failures is not None:
            failures.append(f"the cache folder {directory} could not be listed ({exc.strerror})")
        return 0
    for name in names:
        if name.startswith("recall-") and ".sqlite3" in name:
            path = directory / name
            try:  # a link is removed, never its target
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
                removed += 1
            except FileNotFoundError:
                continue
            except OSError as exc:
                if failures is not None:
                    failures.append(f"{path} could not be removed ({exc.strerror or exc})")
    return removed
