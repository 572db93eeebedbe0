"""The remote's file layout, plain or encrypted.

One merged state, not one file per machine: every push is a commit whose tree
is the merge of the remote head and the pushing machine's store, built on top
of that head. So the remote head is always the join of everything pushed, a
rejected push only needs "fetch, merge, try again", and a purge rewrites one
small tree instead of every machine's copy.

Plain::

    memoir-sync.json         {"format": "memoir-sync", "layout": 1, "format_version": 1,
                              "encrypted": false}
    session.json             the merged session (FORMAT §3)
    review.json              the review queue, when any machine has one
    machines.json            {"version": 1, "machines": {uuid: {label, first_sync,
                                                                 last_sync, last_push}}}
    memory/<link-name>.md    entry files

Encrypted (the same logical files, only ciphertext leaves the machine)::

    memoir-sync.json         {..., "encrypted": true, "cipher": "AES-256-GCM",
                              "kdf": {"name": "scrypt", "n", "r", "p", "salt"},
                              "key_check": base64}
    manifest.enc             sealed {"version": 1, "files": {hashed: {path, sha256}}}
    blobs/<hashed>           MAGIC || nonce || AES-GCM(file), AAD = path + format version

``hashed`` is HMAC-SHA256 of the logical path under the name subkey.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memoir_tui.core.format.merge import SESSION_VERSION
from memoir_tui.core.sync.crypto import KdfParams, Keys
from memoir_tui.core.sync.errors import IntegrityError, ModeMismatchError, SyncError

HEADER = "memoir-sync.json"
MANIFEST = "manifest.enc"
MANIFEST_PATH = "\x00manifest"  # the manifest's "logical path" in its associated data
BLOB_DIR = "blobs/"
LAYOUT_VERSION = 1
SESSION = "session.json"
REVIEW = "review.json"
MACHINES = "machines.json"
MEMORY_PREFIX = "memory/"
# Wider than core.names.ENTRY_NAME_RE (uppercase, up to 201 characters): a synced store
# carries the entry files other tools and older versions wrote under those names, and
# renaming or dropping one on the way would lose it on the other machine. What this
# project itself writes still obeys ENTRY_NAME_RE.
SYNCED_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.md$")
_LOGICAL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


def is_safe_logical_path(path: str) -> bool:
    return bool(_LOGICAL_RE.match(path)) and ".." not in path.split("/") and len(path) < 400


def is_entry_path(path: str) -> bool:
    return path.startswith(MEMORY_PREFIX) and bool(SYNCED_NAME_RE.match(path[len(MEMORY_PREFIX) :]))


@dataclass
class RemoteSnapshot:
    """The remote head as plaintext, with what is needed to rebuild it cheaply."""

    commit: str | None
    header: dict[str, Any] | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    stored: dict[str, str] = field(default_factory=dict)  # logical path -> git blob sha
    keys: Keys | None = None
    quarantine: str | None = None

    @property
    def empty(self) -> bool:
        return self.commit is None

    @property
    def format_version(self) -> int:
        v = (self.header or {}).get("format_version", SESSION_VERSION)
        return v if isinstance(v, int) and not isinstance(v, bool) else SESSION_VERSION


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _parse_header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise IntegrityError(f"{HEADER} on the remote is not valid JSON") from None
    if not isinstance(header, dict) or header.get("format") != "memoir-sync":
        raise IntegrityError(f"{HEADER} on the remote is not a memoir sync header")
    return header


def _quarantine_reason(header: dict[str, Any]) -> str | None:
    layout = header.get("layout")
    fmt = header.get("format_version", SESSION_VERSION)
    if not isinstance(layout, int) or isinstance(layout, bool):
        return "the remote's sync header has no valid layout version"
    if layout > LAYOUT_VERSION:
        return f"the remote uses sync layout {layout} (this memoir-tui knows {LAYOUT_VERSION})"
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt > SESSION_VERSION:
        return f"the remote holds memoir format {fmt!r} (this memoir-tui knows {SESSION_VERSION})"
    return None


def verify_remote_key(
    git: Any, commit: str | None, *, get_keys: Callable[[KdfParams], Keys]
) -> None:
    """Check the passphrase against the remote head's key check, reading only the header.

    An idle sync (the remote has not moved, nothing changed here) reads nothing else;
    this keeps a wrong or missing passphrase from passing as "up to date". A remote
    with no header yet (empty) has nothing to check against."""
    if commit is None:
        return
    entries = {e.path: e for e in git.list_tree(commit) if e.kind == "blob"}
    if HEADER not in entries:
        return  # read_snapshot says what is wrong with such a branch
    sha = entries[HEADER].sha
    header = _parse_header(git.read_blobs([sha])[sha])
    if _quarantine_reason(header) or header.get("encrypted") is not True:
        return  # quarantined or plain: the full read refuses it
    keys = get_keys(KdfParams.from_json(header.get("kdf")))
    try:
        check = base64.b64decode(str(header.get("key_check")), validate=True)
    except ValueError:
        raise IntegrityError(f"{HEADER}: the key check is not base64") from None
    keys.verify_key_check(check, int(header.get("format_version", SESSION_VERSION)))


def read_snapshot(
    git: Any,
    commit: str | None,
    *,
    encrypted: bool,
    get_keys: Callable[[KdfParams], Keys],
) -> RemoteSnapshot:
    """Read and verify the whole remote head before anything local is touched."""
    snap = RemoteSnapshot(commit)
    if commit is None:
        return snap
    entries = {e.path: e for e in git.list_tree(commit) if e.kind == "blob"}
    if not entries:
        return snap
    if HEADER not in entries:
        raise SyncError(
            "the remote branch is not a memoir sync branch (no memoir-sync.json); "
            "choose an empty repository or another branch"
        )
    # One read for every blob: the header decides how the rest is understood.
    blobs = git.read_blobs(e.sha for e in entries.values())
    header = _parse_header(blobs[entries[HEADER].sha])
    snap.header = header
    reason = _quarantine_reason(header)
    if reason:
        snap.quarantine = reason
        return snap
    remote_encrypted = header.get("encrypted") is True
    if remote_encrypted != encrypted:
        raise ModeMismatchError(
            "the remote is encrypted but sync is configured without --encrypt"
            if remote_encrypted
            else "the remote holds plain files but sync is configured with --encrypt"
        )
    if not encrypted:
        wanted = {p: e.sha for p, e in entries.items() if p != HEADER and is_safe_logical_path(p)}
        snap.files = {p: blobs[s] for p, s in wanted.items()}
        snap.stored = dict(wanted)
        return snap

    keys = get_keys(KdfParams.from_json(header.get("kdf")))
    fmt = snap.format_version
    try:
        check = base64.b64decode(str(header.get("key_check")), validate=True)
    except ValueError:
        raise IntegrityError(f"{HEADER}: the key check is not base64") from None
    keys.verify_key_check(check, fmt)
    snap.keys = keys
    if MANIFEST not in entries:
        raise IntegrityError("the encrypted remote has no manifest; it was damaged")
    sealed = {p: e.sha for p, e in entries.items() if p == MANIFEST or p.startswith(BLOB_DIR)}
    manifest_raw = keys.open(MANIFEST_PATH, blobs[sealed[MANIFEST]], fmt)
    try:
        manifest = json.loads(manifest_raw.decode("utf-8"))
        files = manifest["files"]
        assert isinstance(files, dict)
    except (ValueError, UnicodeDecodeError, KeyError, TypeError, AssertionError):
        raise IntegrityError("the encrypted manifest is malformed") from None
    for hashed, info in files.items():
        path = info.get("path") if isinstance(info, dict) else None
        if not isinstance(path, str) or not is_safe_logical_path(path):
            raise IntegrityError("the encrypted manifest names an unsafe path")
        if keys.name_for(path) != hashed:
            raise IntegrityError(f"{path}: its hashed name does not match the manifest")
        stored_at = BLOB_DIR + hashed
        if stored_at not in sealed:
            raise IntegrityError(f"{path}: listed in the manifest but missing from the remote")
        plain = keys.open(path, blobs[sealed[stored_at]], fmt)
        if sha256(plain) != info.get("sha256"):
            raise IntegrityError(f"{path}: content does not match the manifest (rolled back?)")
        snap.files[path] = plain
        snap.stored[path] = sealed[stored_at]
    return snap


def new_header(encrypted: bool, keys: Keys | None) -> dict[str, Any]:
    header: dict[str, Any] = {
        "format": "memoir-sync",
        "layout": LAYOUT_VERSION,
        "format_version": SESSION_VERSION,
        "encrypted": encrypted,
    }
    if encrypted:
        assert keys is not None
        header["cipher"] = "AES-256-GCM"
        header["kdf"] = keys.params.to_json()
        header["key_check"] = base64.b64encode(keys.key_check(SESSION_VERSION)).decode("ascii")
    return header


def encode_json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def build_tree(
    outgoing: dict[str, bytes],
    snap: RemoteSnapshot,
    *,
    encrypted: bool,
    keys: Keys | None,
) -> dict[str, bytes | str]:
    """The files of the next commit. Unchanged files reuse the remote's stored blob."""
    header = snap.header if snap.header is not None else new_header(encrypted, keys)
    tree: dict[str, bytes | str] = {HEADER: encode_json(header)}
    if not encrypted:
        for path, data in outgoing.items():
            same = snap.files.get(path) == data and path in snap.stored
            tree[path] = snap.stored[path] if same else data
        return tree
    assert keys is not None
    fmt = SESSION_VERSION if snap.header is None else snap.format_version
    manifest: dict[str, Any] = {"version": 1, "files": {}}
    for path in sorted(outgoing):
        data = outgoing[path]
        hashed = keys.name_for(path)
        same = snap.files.get(path) == data and path in snap.stored
        tree[BLOB_DIR + hashed] = snap.stored[path] if same else keys.seal(path, data, fmt)
        manifest["files"][hashed] = {"path": path, "sha256": sha256(data)}
    tree[MANIFEST] = keys.seal(MANIFEST_PATH, encode_json(manifest), fmt)
    return tree
