"""Multi-machine sync over git, with optional end-to-end encryption.

The store's files stay the truth; git is the transport. Public API (all
functions take a ``Store``; each is safe to call from a worker thread and
takes an optional ``progress(message, fraction)`` callback)::

    init_sync(store, remote, *, encrypt=False, branch="main", key_file=None,
              scrypt_n=2**15, passphrase=None, interactive=False) -> InitResult
    run_sync(store, "pull" | "push" | "sync", *, passphrase=None, interactive=False,
             allow_secrets=False, key_file=None, progress=None,
             rewrite_history=False) -> SyncResult
    sync_status(store, *, fetch=False) -> SyncStatus

Every failure is a ``SyncError`` (a ``MemoirError``) whose message is fit to
show. See ``layout`` for the remote's files and ``engine`` for the cycle.
"""

from __future__ import annotations

from memoir_tui.core.sync.apply import MergeReport
from memoir_tui.core.sync.config import SyncConfig, load_sync_config, mask_url
from memoir_tui.core.sync.engine import (
    SYNC_MODES,
    InitResult,
    SyncMode,
    SyncResult,
    init_sync,
    run_sync,
)
from memoir_tui.core.sync.errors import (
    GitError,
    IntegrityError,
    ModeMismatchError,
    NotConfiguredError,
    PassphraseError,
    PushRejectedError,
    RemoteQuarantinedError,
    SecretFindingRef,
    SecretsFoundError,
    SyncBusyError,
    SyncConfigError,
    SyncError,
    WrongPassphraseError,
)
from memoir_tui.core.sync.status import MachineInfo, SyncStatus, sync_status

__all__ = [
    "SYNC_MODES",
    "GitError",
    "InitResult",
    "IntegrityError",
    "MachineInfo",
    "MergeReport",
    "ModeMismatchError",
    "NotConfiguredError",
    "PassphraseError",
    "PushRejectedError",
    "RemoteQuarantinedError",
    "SecretFindingRef",
    "SecretsFoundError",
    "SyncBusyError",
    "SyncConfig",
    "SyncConfigError",
    "SyncError",
    "SyncMode",
    "SyncResult",
    "SyncStatus",
    "WrongPassphraseError",
    "init_sync",
    "load_sync_config",
    "mask_url",
    "run_sync",
    "sync_status",
]
