"""Machine identity: a stable UUID (compatible with the JavaScript tool) and a label."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.fsutil import private_dir
from memoir_tui.core.base.safeio import read_text_safely, write_file_safely

MACHINE_ID_FILE = "machine.id"


@dataclass(frozen=True, slots=True)
class Machine:
    id: str
    label: str


def known_machine(store_dir: Path, *, label: str | None = None) -> Machine | None:
    """The machine identity if this store already has one; never creates it."""
    try:
        if not stat.S_ISREG(os.stat(store_dir / MACHINE_ID_FILE).st_mode):
            return None  # a folder or a FIFO (which would block a read): no identity
        machine_id = _read_id(store_dir / MACHINE_ID_FILE)
    except (OSError, UnicodeDecodeError):
        return None
    return Machine(id=machine_id, label=label or socket.gethostname()) if machine_id else None


def load_machine(store_dir: Path, *, label: str | None = None) -> tuple[Machine, bool]:
    """Read ``machine.id`` from the store (the JavaScript tool's file), creating it once;
    True with it when this call made the file.

    Only a transaction calls this (``Transaction.create_machine``), under the store's lock;
    elsewhere ``Store.machine`` opens one. Something other than a file at its name (a
    folder, a FIFO) is refused with a sentence (``MachineIdError``): it is never read (a
    FIFO would block) nor replaced."""
    path = store_dir / MACHINE_ID_FILE
    _refuse_odd(path)
    machine_id = ""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        machine_id = _read_id(path)
    created = False
    if not machine_id:
        candidate = str(uuid.uuid4())
        machine_id = _create_once(path, candidate)
        created = machine_id == candidate
    return Machine(id=machine_id, label=label or socket.gethostname()), created


def _read_id(path: Path) -> str:
    """``machine.id``'s text: a regular file of the store only (a FIFO never blocks)."""
    return read_text_safely(path, max_bytes=4096, within=path.parent).strip()


class MachineIdError(MemoirError):
    """Something other than a regular file is where ``machine.id`` belongs."""


def _refuse_odd(path: Path) -> None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise MachineIdError(
            f"{path} cannot be read ({exc.strerror or exc}); memoir-tui keeps this machine's "
            "identity there (nothing was written)"
        ) from None
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise MachineIdError(
            f"{path} is {what}, where memoir-tui keeps this machine's identity; move it away "
            "and run this again (nothing was written)"
        )


def _create_once(path: Path, candidate: str) -> str:
    """Publish ``candidate`` unless another process got there first; return the winner.

    ``os.link`` fails if the name exists, so two first runs racing each other
    agree on one UUID instead of each keeping its own.
    """
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    write_file_safely(tmp, candidate.encode("utf-8"), within=path.parent, mode=0o600)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    try:
        return _read_id(path) or candidate
    except (OSError, UnicodeDecodeError):  # not a regular file: this run's own id
        return candidate
