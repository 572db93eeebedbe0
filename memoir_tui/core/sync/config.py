"""``sync.json``: the sync settings of one store, and where its working copy lives.

The file sits in the store directory beside ``memoir-tui.toml``::

    {
      "version": 1,
      "remote": "/srv/git/memoir.git",
      "branch": "main",
      "encrypt": false,
      "key_file": null,
      "scrypt_n": 32768,
      "work_dir": null
    }

``remote`` is any URL or path git accepts (a relative path is made absolute at
init). ``key_file`` names a file holding the passphrase (0600 or stricter).
``scrypt_n`` is used only when this machine creates the encrypted remote's key
header; every machine afterwards reads the parameters from the remote.
``work_dir`` overrides where the sync working copy lives (default: a folder
per store under the user data directory, so the store itself never becomes a
git repository). No passphrase or key is ever written here.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.sync.errors import NotConfiguredError, SyncConfigError

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store

SYNC_CONFIG_FILE = "sync.json"
CONFIG_VERSION = 1
DEFAULT_BRANCH = "main"
DEFAULT_SCRYPT_N = 2**15
MIN_SCRYPT_N = 2**10  # only for tests; production default is 2**15
MAX_SCRYPT_N = 2**20
_BRANCH_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")


@dataclass(frozen=True, slots=True)
class SyncConfig:
    remote: str
    branch: str = DEFAULT_BRANCH
    encrypt: bool = False
    key_file: str | None = None
    scrypt_n: int = DEFAULT_SCRYPT_N
    work_dir: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"version": CONFIG_VERSION, **asdict(self)}

    def with_(self, **changes: Any) -> SyncConfig:
        return replace(self, **changes)


def sync_config_path(store_root: Path) -> Path:
    return store_root / SYNC_CONFIG_FILE


def validate_scrypt_n(n: Any) -> int:
    if (
        isinstance(n, bool)
        or not isinstance(n, int)
        or n < MIN_SCRYPT_N
        or n > MAX_SCRYPT_N
        or n & (n - 1)
    ):
        raise SyncConfigError(
            f"scrypt_n must be a power of two between 2**10 and 2**20 (got {n!r}); "
            "use 2**15 or more outside tests"
        )
    return n


def validate_branch(branch: Any) -> str:
    if (
        not isinstance(branch, str)
        or not _BRANCH_RE.match(branch)
        or ".." in branch
        or branch.endswith((".lock", "/", "."))
    ):
        raise SyncConfigError(f"invalid branch name {branch!r}")
    return branch


def normalise_remote(remote: str, cwd: Path | None = None) -> str:
    """A local path becomes absolute; URLs and scp-like ``host:path`` stay as given."""
    remote = remote.strip()
    if not remote:
        raise SyncConfigError("the remote is empty")
    scp_like = re.match(r"^[^/\\]+:", remote) is not None and not os.path.exists(remote)
    if "://" in remote or scp_like:
        return remote
    base = cwd or Path.cwd()
    return str((base / os.path.expanduser(remote)).resolve())


def load_sync_config(store_root: Path) -> SyncConfig:
    path = sync_config_path(store_root)
    try:
        from memoir_tui.core.base.safeio import read_json_safely

        raw = read_json_safely(path, max_bytes=1024 * 1024)  # a FIFO: a sentence, no hang
    except FileNotFoundError:
        raise NotConfiguredError(
            f"sync is not set up for {store_root}; run `memoir-tui sync init REMOTE`"
        ) from None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise SyncConfigError(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise SyncConfigError(f"{path}: the top level must be an object")
    version = raw.get("version", CONFIG_VERSION)
    if not isinstance(version, int) or version > CONFIG_VERSION:
        raise SyncConfigError(f"{path}: written by a newer memoir-tui (version {version!r})")
    remote = raw.get("remote")
    if not isinstance(remote, str) or not remote.strip():
        raise SyncConfigError(f"{path}: 'remote' must be a non-empty string")
    key_file = raw.get("key_file")
    if key_file is not None and not isinstance(key_file, str):
        raise SyncConfigError(f"{path}: 'key_file' must be a path or null")
    work_dir = raw.get("work_dir")
    if work_dir is not None and not isinstance(work_dir, str):
        raise SyncConfigError(f"{path}: 'work_dir' must be a path or null")
    encrypt = raw.get("encrypt", False)
    if not isinstance(encrypt, bool):
        raise SyncConfigError(f"{path}: 'encrypt' must be true or false")
    return SyncConfig(
        remote=remote,
        branch=validate_branch(raw.get("branch", DEFAULT_BRANCH)),
        encrypt=encrypt,
        key_file=key_file,
        scrypt_n=validate_scrypt_n(raw.get("scrypt_n", DEFAULT_SCRYPT_N)),
        work_dir=work_dir,
    )


def save_sync_config(store: Store, config: SyncConfig) -> Path:
    """Write the store's sync settings (0600: a remote URL may carry a token)."""
    from memoir_tui.core.format.items import FILES

    path = sync_config_path(store.root)
    data = (json.dumps(config.to_json(), indent=2) + "\n").encode("utf-8")
    with store.transaction("sync_init", files=(FILES,)) as tx:
        # The remote may be a URL with a token in it: masked everywhere it is shown,
        # but stored as given (git needs it), so not refused here.
        tx.write_bytes(path, data, mode=0o600, scan=False)
        tx.audit("sync_init", "sync")
    return path


def default_work_dir(store_root: Path) -> Path:
    """One folder per store under the user data directory (``$XDG_DATA_HOME/memoir-tui``)."""
    import platformdirs

    key = hashlib.sha256(str(store_root.expanduser().resolve()).encode()).hexdigest()[:16]
    return Path(platformdirs.user_data_dir("memoir-tui")) / "sync" / key


def work_dir_for(store_root: Path, config: SyncConfig) -> Path:
    if config.work_dir:
        return Path(os.path.expanduser(config.work_dir))
    return default_work_dir(store_root)


_CRED_RE = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<cred>[^@/]*)@")


def mask_url(url: str) -> str:
    """Hide credentials in ``scheme://user:secret@host`` (and ``scheme://token@host``)."""
    m = _CRED_RE.match(url)
    if not m:
        return url
    cred = m["cred"]
    user, sep, _secret = cred.partition(":")
    masked = f"{user}:***" if sep else "***"
    return f"{m['scheme']}{masked}@{url[m.end() :]}"
