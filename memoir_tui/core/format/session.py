"""Loading and saving ``session.json`` (FORMAT §3 and §5).

* missing file → an empty, valid state;
* unparseable JSON (or not an object) → the original bytes are copied aside as
  ``session.json.corrupted-<ms>`` (three newest kept) and the state is empty;
* a newer ``version`` → the original is copied aside as
  ``session.json.pre-migration-<ms>``, the user is told once, and the state is
  **read-only**: ``save_session`` refuses to replace a newer-version file
  (the JavaScript tool would overwrite it on its next write) and the state
  contributes nothing to any merge;
* older versions walk a ladder of pure N → N+1 steps that never throw.

Saving keeps every unknown field: the state is a plain dict that round-trips.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.fsutil import (
    FileTooLargeError,
    NotRegularFileError,
    read_regular,
)
from memoir_tui.core.base.safeio import read_file_safely
from memoir_tui.core.format.identity import is_iso_date, iso_now
from memoir_tui.core.format.items import LIST_KEYS, SESSION_VERSION, empty_session

SESSION_FILE = "session.json"
BACKUPS_KEPT = 3


class ReadOnlySessionError(MemoirError):
    """A write was refused because the session on disk is from a newer format version."""


# --- migration ladder ---------------------------------------------------------


def _v0_to_v1(state: dict[str, Any]) -> dict[str, Any]:
    """Files written before ``version`` existed: fill the shape, keep everything."""
    out = dict(state)
    out["version"] = 1
    return out


# Keyed by the version migrated *from*. Each step is pure and total.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _v0_to_v1}


def _declared_version(raw: dict[str, Any]) -> int | float:
    v = raw.get("version")
    if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit():
        return int(v)  # "2" is a version written as a string: never read as version 0
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
        return 0
    return v


def shape_problems(raw: dict[str, Any]) -> list[str]:
    """Known containers of the wrong type: read as empty, so their content must be kept
    aside before anything rewrites the file."""
    problems = []
    version = raw.get("version")
    if "version" in raw and not (isinstance(version, int) and not isinstance(version, bool)):
        problems.append(f"version is {version!r}, not a number")
    if "machines" in raw and not isinstance(raw["machines"], dict):
        problems.append("machines is not an object")
    if "history" in raw and not isinstance(raw["history"], list):
        problems.append("history is not a list")
    current = raw.get("current")
    if "current" in raw and not isinstance(current, dict):
        problems.append("current is not an object")
    elif isinstance(current, dict):
        problems += [
            f"current.{key} is not a list"
            for key in LIST_KEYS
            if key in current and not isinstance(current[key], list)
        ]
    return problems


def _refuse_non_finite(token: str) -> float:
    # JSON has no NaN or Infinity; the JavaScript tool quarantines a file holding them.
    raise ValueError(f"{token} is not JSON")


def is_newer_version(raw: Any) -> bool:
    return isinstance(raw, dict) and _declared_version(raw) > SESSION_VERSION


def normalise_shape(state: dict[str, Any], now: str | None = None) -> dict[str, Any]:
    """Fill missing or ill-typed known containers with empty ones; keep all else."""
    fresh = empty_session(now)
    out = dict(state)
    for key in ("created_at", "updated_at"):
        if not is_iso_date(out.get(key)):
            out[key] = fresh[key]
    out["machines"] = _normalise_machines(out.get("machines"))
    if not isinstance(out.get("history"), list):
        out["history"] = []
    current = out.get("current")
    current = dict(current) if isinstance(current, dict) else {}
    for key in LIST_KEYS:
        if not isinstance(current.get(key), list):
            current[key] = []
    out["current"] = current
    out["version"] = SESSION_VERSION
    return out


EPOCH_ISO = "1970-01-01T00:00:00.000Z"


def _normalise_machines(machines: Any) -> dict[str, Any]:
    """Every machine entry an object with a string label and a date (the epoch if unknown)."""
    if not isinstance(machines, dict):
        return {}
    out: dict[str, Any] = {}
    for uid, entry in machines.items():
        if not isinstance(entry, dict):
            continue  # a bare value carries no label or time: nothing to keep
        entry = dict(entry)
        if not isinstance(entry.get("label"), str):
            entry["label"] = str(uid)[:8]
        if not is_iso_date(entry.get("last_seen")):
            entry["last_seen"] = EPOCH_ISO
        out[uid] = entry
    return out


def migrate_session(raw: Any, now: str | None = None) -> tuple[bool, dict[str, Any]]:
    """Bring a parsed session to the current version. Returns ``(is_future, state)``.

    Never throws: a non-object becomes an empty state; a newer version is not
    interpreted (``is_future`` is True and the state is empty).
    """
    if not isinstance(raw, dict):
        return False, empty_session(now)
    version = _declared_version(raw)
    if version > SESSION_VERSION:
        return True, empty_session(now)
    state = raw
    step_from = int(version) if version >= 0 else 0
    while step_from < SESSION_VERSION:
        step = MIGRATIONS.get(step_from)
        try:
            state = step(state) if step else {**state, "version": step_from + 1}
        except Exception:  # a step must never take the store down with it
            return False, empty_session(now)
        step_from += 1
    return False, normalise_shape(state, now)


# --- loading -------------------------------------------------------------------


UNREADABLE = "unreadable"
NEWER_VERSION = "newer-version"
MISSHAPEN = "misshapen"  # parsed, but a known container is of the wrong type
NOT_REGULAR = "not-regular"  # a FIFO, a device, a link out of the store: never read

MAX_STORE_FILE_BYTES = 64 * 1024 * 1024  # session.json / review.json: larger is not read


def read_store_file(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of ``session.json`` or ``review.json``; None when there is none.

    A regular file only (``fsutil.read_regular``: a FIFO would block every command for
    ever, ``/dev/zero`` never ends), through no symlink that leads out of its folder,
    at most ``MAX_STORE_FILE_BYTES``; anything else raises ``NotRegularFileError``."""
    path = Path(path)
    try:
        if path.is_symlink():
            folder = os.path.realpath(path.parent)
            if not os.path.realpath(path).startswith(folder.rstrip(os.sep) + os.sep):
                raise NotRegularFileError(
                    errno.EINVAL, "a symlink leading out of its folder", os.fspath(path)
                )
        return read_regular(path, max_bytes=MAX_STORE_FILE_BYTES)
    except FileNotFoundError:
        return None
    except FileTooLargeError as exc:
        raise NotRegularFileError(errno.EFBIG, exc.strerror, os.fspath(path)) from None
    except IsADirectoryError:
        raise NotRegularFileError(errno.EISDIR, "a directory", os.fspath(path)) from None


def not_regular_notice(path: Path, err: OSError) -> str:
    return (
        f"{path} is not a regular file ({err.strerror}); it is not read, and nothing is "
        "written over it: replace it with a regular file"
    )


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """A session as read from disk, with what the loader had to do to it."""

    state: dict[str, Any]
    path: Path
    read_only: bool = False
    notice: str | None = None  # said once per process for a newer version
    backup: Path | None = None  # where the original bytes were kept
    damage: str = ""  # "" | UNREADABLE | NEWER_VERSION: why the state is empty


_warned_future: set[Path] = set()


def _now_ms() -> int:
    return int(time.time() * 1000)


def _copy_aside(path: Path, kind: str, raw_bytes: bytes) -> Path:
    from memoir_tui.core.base.fsutil import write_new_private

    stamp = _now_ms()
    backup = path.with_name(f"{path.name}.{kind}-{stamp}")
    n = 0
    while True:
        try:
            # 0600 from the first instant: the copy holds the same memory as the original
            write_new_private(backup, raw_bytes)
            break
        except FileExistsError:  # two quarantines in one millisecond must not collide
            n += 1
            backup = path.with_name(f"{path.name}.{kind}-{stamp}-{n}")
    prune_backups(path, kind)
    return backup


def prune_backups(path: Path, kind: str, keep: int = BACKUPS_KEPT) -> None:
    """Keep only the ``keep`` newest ``session.json.<kind>-*`` copies."""
    prefix = f"{path.name}.{kind}-"
    found = []
    for entry in path.parent.iterdir():
        if entry.name.startswith(prefix):
            # Order by the millisecond stamp in the name (then the collision
            # counter): mtimes can be equal or copied from the original.
            parts = entry.name[len(prefix) :].split("-")
            try:
                order = tuple(int(p) for p in parts)
            except ValueError:
                continue
            found.append((order, entry))
    found.sort(reverse=True)
    for _, stale in found[keep:]:
        with contextlib.suppress(OSError):
            stale.unlink()


def load_session(path: str | os.PathLike[str], *, now: str | None = None) -> LoadedSession:
    """Read a session file, quarantining what cannot be understood."""
    path = Path(path)
    try:
        raw_bytes = read_store_file(path)
    except NotRegularFileError as err:
        return LoadedSession(
            empty_session(now),
            path,
            read_only=True,
            notice=not_regular_notice(path, err),
            damage=NOT_REGULAR,
        )
    if raw_bytes is None:
        return LoadedSession(empty_session(now), path)
    try:
        raw = json.loads(raw_bytes.decode("utf-8"), parse_constant=_refuse_non_finite)
        if not isinstance(raw, dict):
            raise ValueError("top level is not an object")
    except (ValueError, UnicodeDecodeError, RecursionError):
        backup = quarantine_copy(path, "corrupted", raw_bytes)
        return LoadedSession(
            empty_session(now),
            path,
            notice=f"{path} could not be parsed; the original was kept as {backup.name}",
            backup=backup,
            damage=UNREADABLE,
        )
    future, state = migrate_session(raw, now)
    if not future:
        problems = shape_problems(raw)
        if not problems:
            return LoadedSession(state, path)
        backup = quarantine_copy(path, "misshapen", raw_bytes)
        return LoadedSession(
            state,
            path,
            notice=f"{path} has parts of the wrong shape ({'; '.join(problems)}): they read "
            f"as empty, and the original was kept as {backup.name}",
            backup=backup,
            damage=MISSHAPEN,
        )
    backup = quarantine_copy(path, "pre-migration", raw_bytes)
    notice = None
    if path not in _warned_future:
        _warned_future.add(path)
        notice = (
            f"{path} is from a newer memoir format (version {raw.get('version')!r} > "
            f"{SESSION_VERSION}); it is read-only here and was kept as {backup.name}. "
            "Upgrade memoir-tui to write to it."
        )
    return LoadedSession(
        state, path, read_only=True, notice=notice, backup=backup, damage=NEWER_VERSION
    )


def quarantine_copy(path: Path, kind: str, raw_bytes: bytes) -> Path:
    """Keep ``raw_bytes`` of ``path`` aside as ``<name>.<kind>-<ms>`` (0600, like the
    original); an identical copy already kept is reused, so re-reading the same bad
    file does not pile up copies."""
    return _existing_copy(path, kind, raw_bytes) or _copy_aside(path, kind, raw_bytes)


def _existing_copy(path: Path, kind: str, raw_bytes: bytes) -> Path | None:
    """Reuse an identical copy so re-reading the same bad file does not pile up backups."""
    prefix = f"{path.name}.{kind}-"
    for entry in sorted(path.parent.glob(prefix + "*"), reverse=True):
        with contextlib.suppress(OSError):
            if read_file_safely(entry, max_bytes=len(raw_bytes)) == raw_bytes:
                return entry
    return None


def encode_session(state: dict[str, Any]) -> bytes:
    # allow_nan=False: never write NaN or Infinity (not JSON; other readers quarantine it)
    return (json.dumps(state, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def save_session(
    path: str | os.PathLike[str], state: dict[str, Any], *, now: str | None = None
) -> None:
    """Write atomically, stamping ``version`` and ``updated_at``.

    Refuses to replace a file whose version is newer than this implementation
    knows: the caller must hold the lock, so the check cannot race a writer.
    """
    path = Path(path)
    guard_not_newer(path)
    out = dict(state)
    out["version"] = SESSION_VERSION
    out["updated_at"] = now or iso_now()
    from memoir_tui.core.base.safeio import write_file_safely

    write_file_safely(path, encode_session(out), within=Path(path).parent)


def write_session_copy(path: str | os.PathLike[str], state: dict[str, Any]) -> None:
    """Write a session that is not a store's (``merge -o other.json``): atomically, 0600,
    never over a newer-format file."""
    from memoir_tui.core.base.safeio import write_file_safely

    path = Path(path)
    guard_not_newer(path)
    write_file_safely(path, encode_session(state), within=path.parent, mode=0o600)


def session_is_newer(path: Path) -> bool:
    """Whether the file at ``path`` is a session from a newer format (never to be written)."""
    try:
        data = read_store_file(path)
        if data is None:
            return False
        raw = json.loads(data.decode("utf-8"), parse_constant=_refuse_non_finite)
    except (NotRegularFileError, ValueError, UnicodeDecodeError, RecursionError):
        return False  # unreadable: copied aside (or refused) when read, not from the future
    return is_newer_version(raw)


def guard_not_newer(path: Path) -> None:
    if session_is_newer(path):
        raw = json.loads((read_store_file(path) or b"{}").decode("utf-8"))
        raise ReadOnlySessionError(
            f"{path} is from a newer memoir format (version {raw.get('version')!r}); "
            "refusing to overwrite it. Upgrade memoir-tui."
        )


# The copies kept aside of damaged or newer files (a purge reaches them too).
QUARANTINED = (
    "session.json.corrupted-*",
    "session.json.pre-migration-*",
    "session.json.misshapen-*",
    "review.json.corrupted-*",
)
