"""After-commit hooks: what runs once a store transaction has changed something.

Hooks are data, like the panes of the app: a name, where the function lives,
and which config switch turns it on. The composition (``core.memoir``) lists
them and hands them to the store; the door never imports what a hook needs; the function is imported only when its switch is on and a commit
calls for it (the pinned block's renderer costs ~20 ms to import). A hook
runs after the locks are released, may open transactions of its own, and
never breaks the commit that triggered it: it reports, it does not raise.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memoir_tui.core.door.context import AfterCommitHook, Commit, StoreContext

log = logging.getLogger(__name__)


def run_after_commit_hooks(
    hooks: Iterable[AfterCommitHook], store: StoreContext, commit: Commit
) -> None:
    """Run each enabled hook for ``commit``; a hook that fails is logged, never raised."""
    for hook in hooks:
        if commit.op in hook.ops_skipped or not hook.enabled(store.config):
            continue
        if hook.only_ops is not None and commit.op not in hook.only_ops:
            continue
        try:
            hook.load()(store, commit)
        except Exception:  # a hook must never undo or break a saved change
            log.exception("after-commit hook %s failed", hook.name)
