"""Errors of the sync layer: each is a ``MemoirError``, so faces print ``str(err)``."""

from __future__ import annotations

from dataclasses import dataclass

from memoir_tui.core.base.errors import MemoirError


class SyncError(MemoirError):
    """Base class for every sync refusal or failure."""


class NotConfiguredError(SyncError):
    """``sync.json`` is missing: ``memoir-tui sync init REMOTE`` first."""


class SyncConfigError(SyncError):
    """``sync.json`` exists but cannot be used."""


class SyncBusyError(SyncError):
    """Another sync of the same store holds the sync lock."""


class GitError(SyncError):
    """A git command failed for a reason other than a rejected push."""


class PushRejectedError(SyncError):
    """The remote kept moving: every retry of the push was rejected."""


class RemoteQuarantinedError(SyncError):
    """The remote was written by a newer format or layout; it contributes nothing."""


class ModeMismatchError(SyncError):
    """The remote is encrypted and the local config is not, or the other way round."""


class PassphraseError(SyncError):
    """No passphrase could be had, or the key file is unsafe."""


class WrongPassphraseError(SyncError):
    """The passphrase does not open the remote (its key check failed)."""


class IntegrityError(SyncError):
    """A remote file failed verification: tampered, truncated, swapped or missing."""


@dataclass(frozen=True, slots=True)
class SecretFindingRef:
    """Where a secret was found: the file, the place in it and the rule. Never the secret."""

    path: str
    where: str
    rule: str

    def line(self) -> str:
        return f"{self.path} ({self.where}): {self.rule}"


class SecretsFoundError(SyncError):
    """Outgoing files hold what looks like a secret; nothing was pushed."""

    def __init__(self, findings: list[SecretFindingRef]) -> None:
        self.findings = tuple(findings)
        lines = "; ".join(f.line() for f in findings[:10])
        more = f" (and {len(findings) - 10} more)" if len(findings) > 10 else ""
        super().__init__(
            f"push blocked: {len(findings)} possible secret(s) in outgoing files: {lines}{more}. "
            "Remove them, or pass --allow-secrets to push anyway."
        )
