"""After-commit hooks: what runs once a store transaction has changed something.

Hooks are data, like the panes of the app: a name, where the function lives,
and which config switch turns it on. The store never imports what a hook
needs; the function is imported only when its switch is on and a commit
calls for it (the pinned block's renderer costs ~20 ms to import). A hook
runs after the locks are released, may open transactions of its own, and
never breaks the commit that triggered it: it reports, it does not raise.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoir_tui.core.config import Config
    from memoir_tui.core.store import Store
    from memoir_tui.core.transaction import Commit

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AfterCommitHook:
    """``location`` is ``"module:function"``; the function takes ``(store, commit)``."""

    name: str
    location: str
    enabled: Callable[[Config], bool]
    ops_skipped: frozenset[str] = frozenset()
    only_ops: frozenset[str] | None = None  # None: after every commit

    def load(self) -> Callable[[Store, Commit], Any]:
        module_name, _, function = self.location.partition(":")
        hook: Callable[[Store, Commit], Any] = getattr(
            importlib.import_module(module_name), function
        )
        return hook


AFTER_COMMIT_HOOKS: tuple[AfterCommitHook, ...] = (
    AfterCommitHook(
        "inject",
        "memoir_tui.core.inject:refresh_after_commit",
        enabled=lambda config: config.inject.enabled,
        ops_skipped=frozenset({"inject"}),  # its own writes never trigger it again
    ),
    AfterCommitHook(
        "purge-caches",
        "memoir_tui.core.purge:scrub_caches_after_purge",
        enabled=lambda config: True,
        only_ops=frozenset({"purge_decision"}),
    ),
)


def run_after_commit_hooks(store: Store, commit: Commit) -> None:
    for hook in AFTER_COMMIT_HOOKS:
        if commit.op in hook.ops_skipped or not hook.enabled(store.config):
            continue
        if hook.only_ops is not None and commit.op not in hook.only_ops:
            continue
        try:
            hook.load()(store, commit)
        except Exception:  # a hook must never undo or break a saved change
            log.exception("after-commit hook %s failed", hook.name)
