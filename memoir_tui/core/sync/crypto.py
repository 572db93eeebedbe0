"""End-to-end encryption of the sync remote (``--encrypt``).

* The passphrase (prompt, ``MEMOIR_PASSPHRASE`` or a 0600 key file; never
  stored) goes through scrypt with a random 16-byte salt kept in the remote's
  ``memoir-sync.json`` together with the parameters.
* HKDF-SHA256 derives separate subkeys: one for content (AES-256-GCM), one for
  hashing file names (HMAC-SHA256), one for the key-check blob.
* Each blob is ``MAGIC || nonce(12) || ciphertext+tag``, sealed with a fresh
  random nonce and the logical path plus the format version as associated
  data, so a blob moved to another name fails to open.
* The key-check blob tells a wrong passphrase apart from a damaged file.
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import hmac
import os
import secrets
import stat
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.sync.config import MAX_SCRYPT_N, MIN_SCRYPT_N
from memoir_tui.core.sync.errors import IntegrityError, PassphraseError, WrongPassphraseError

MAGIC = b"MEMOIR-ENC\x01"
NONCE_BYTES = 12
TAG_BYTES = 16
SALT_BYTES = 16
KEY_CHECK_PATH = "\x00key-check"
KEY_CHECK_PLAINTEXT = b"memoir-sync key check v1"
PASSPHRASE_ENV = "MEMOIR_PASSPHRASE"

_INFO_CONTENT = b"memoir-sync/v1/content"
_INFO_NAMES = b"memoir-sync/v1/names"
_INFO_CHECK = b"memoir-sync/v1/key-check"


@dataclass(frozen=True, slots=True)
class KdfParams:
    n: int
    r: int
    p: int
    salt: bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "name": "scrypt",
            "n": self.n,
            "r": self.r,
            "p": self.p,
            "salt": base64.b64encode(self.salt).decode("ascii"),
        }

    @classmethod
    def new(cls, n: int) -> KdfParams:
        return cls(n=n, r=8, p=1, salt=secrets.token_bytes(SALT_BYTES))

    @classmethod
    def from_json(cls, raw: Any) -> KdfParams:
        if not isinstance(raw, dict) or raw.get("name") != "scrypt":
            raise IntegrityError("memoir-sync.json: unknown or missing key derivation")
        n, r, p = raw.get("n"), raw.get("r"), raw.get("p")
        ok = (
            all(isinstance(v, int) and not isinstance(v, bool) for v in (n, r, p))
            and MIN_SCRYPT_N <= n <= MAX_SCRYPT_N
            and n & (n - 1) == 0
            and 1 <= r <= 32
            and 1 <= p <= 16
        )
        if not ok:
            raise IntegrityError("memoir-sync.json: scrypt parameters out of range")
        try:
            salt = base64.b64decode(str(raw.get("salt")), validate=True)
        except ValueError:
            raise IntegrityError("memoir-sync.json: the salt is not base64") from None
        if not 16 <= len(salt) <= 64:
            raise IntegrityError("memoir-sync.json: the salt has the wrong length")
        return cls(n=n, r=r, p=p, salt=salt)


class Keys:
    """The subkeys of one passphrase under one set of KDF parameters."""

    def __init__(self, passphrase: str, params: KdfParams) -> None:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

        secret = unicodedata.normalize("NFC", passphrase).encode("utf-8")
        master = Scrypt(salt=params.salt, length=32, n=params.n, r=params.r, p=params.p).derive(
            secret
        )

        def sub(info: bytes) -> bytes:
            return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(master)

        self.params = params
        self._content = sub(_INFO_CONTENT)
        self._names = sub(_INFO_NAMES)
        self._check = sub(_INFO_CHECK)

    def name_for(self, path: str) -> str:
        """The hashed file name of a logical path: it reveals nothing about the path."""
        return hmac.new(self._names, path.encode("utf-8"), hashlib.sha256).hexdigest()

    def seal(self, path: str, plaintext: bytes, format_version: int) -> bytes:
        return _seal(self._content, path, plaintext, format_version)

    def open(self, path: str, blob: bytes, format_version: int) -> bytes:
        return _open(self._content, path, blob, format_version)

    def key_check(self, format_version: int) -> bytes:
        return _seal(self._check, KEY_CHECK_PATH, KEY_CHECK_PLAINTEXT, format_version)

    def verify_key_check(self, blob: bytes, format_version: int) -> None:
        try:
            plain = _open(self._check, KEY_CHECK_PATH, blob, format_version)
        except IntegrityError:
            raise WrongPassphraseError(
                "wrong passphrase: it does not open this remote (or its key header was altered); "
                "nothing was changed"
            ) from None
        if plain != KEY_CHECK_PLAINTEXT:
            raise WrongPassphraseError("wrong passphrase: the key check does not match")


def _aad(path: str, format_version: int) -> bytes:
    return b"memoir-sync/v1\x00" + str(format_version).encode() + b"\x00" + path.encode("utf-8")


def _seal(key: bytes, path: str, plaintext: bytes, format_version: int) -> bytes:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(NONCE_BYTES)
    return MAGIC + nonce + AESGCM(key).encrypt(nonce, plaintext, _aad(path, format_version))


def _open(key: bytes, path: str, blob: bytes, format_version: int) -> bytes:
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    shown = path if not path.startswith("\x00") else "the key check"
    if len(blob) < len(MAGIC) + NONCE_BYTES + TAG_BYTES:
        raise IntegrityError(f"{shown}: encrypted file is truncated")
    if not blob.startswith(MAGIC):
        if blob.startswith(MAGIC[:-1]):
            raise IntegrityError(f"{shown}: encrypted with an unknown format version")
        raise IntegrityError(f"{shown}: not a memoir encrypted file (bad header)")
    nonce = blob[len(MAGIC) : len(MAGIC) + NONCE_BYTES]
    body = blob[len(MAGIC) + NONCE_BYTES :]
    try:
        return AESGCM(key).decrypt(nonce, body, _aad(path, format_version))
    except InvalidTag:
        raise IntegrityError(
            f"{shown}: encrypted file failed authentication (tampered, truncated, or swapped "
            "with another file); nothing was changed"
        ) from None


# --- where the passphrase comes from ----------------------------------------------------


def read_key_file(path: str | os.PathLike[str]) -> str:
    """A passphrase from a file readable by its owner only (0600 or stricter)."""
    path = Path(os.path.expanduser(path))
    try:
        st = path.stat()
    except OSError as exc:
        raise PassphraseError(f"key file {path}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise PassphraseError(f"key file {path}: not a regular file")
    if st.st_mode & 0o077:
        raise PassphraseError(
            f"key file {path}: permissions {stat.S_IMODE(st.st_mode):04o} are too open; "
            f"run `chmod 600 {path}`"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PassphraseError(f"key file {path}: cannot be read ({exc})") from None
    passphrase = text.rstrip("\r\n")
    if not passphrase:
        raise PassphraseError(f"key file {path}: is empty")
    return passphrase


def resolve_passphrase(
    explicit: str | None,
    key_file: str | None,
    *,
    interactive: bool,
    confirm: bool = False,
) -> str:
    """The passphrase from the argument, ``MEMOIR_PASSPHRASE``, the key file, or a prompt."""
    if explicit:
        return explicit
    env = os.environ.get(PASSPHRASE_ENV)
    if env:
        return env
    if key_file:
        return read_key_file(key_file)
    if interactive and sys.stdin is not None and sys.stdin.isatty():
        first = getpass.getpass("memoir sync passphrase: ")
        if not first:
            raise PassphraseError("an empty passphrase is not allowed")
        if confirm and getpass.getpass("repeat the passphrase: ") != first:
            raise PassphraseError("the two passphrases differ; nothing was changed")
        return first
    raise PassphraseError(
        "this remote is encrypted and no passphrase was given: set MEMOIR_PASSPHRASE, "
        "configure a key file (sync init --key-file), or run interactively"
    )
