"""Machine identity: a stable UUID (compatible with the JavaScript tool) and a label."""

from __future__ import annotations

import contextlib
import os
import socket
import uuid
from dataclasses import dataclass
from pathlib import Path

from memoir_tui.core.fsutil import private_dir
from memoir_tui.core.safeio import read_text_safely, write_file_safely

MACHINE_ID_FILE = "machine.id"


@dataclass(frozen=True, slots=True)
class Machine:
    id: str
    label: str


def known_machine(store_dir: Path, *, label: str | None = None) -> Machine | None:
    """The machine identity if this store already has one; never creates it."""
    try:
        machine_id = _read_id(store_dir / MACHINE_ID_FILE)
    except (OSError, UnicodeDecodeError):
        return None
    return Machine(id=machine_id, label=label or socket.gethostname()) if machine_id else None


def load_machine(store_dir: Path, *, label: str | None = None) -> Machine:
    """Read ``machine.id`` from the store (the JavaScript tool's file), creating it once."""
    path = store_dir / MACHINE_ID_FILE
    machine_id = ""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        machine_id = _read_id(path)
    if not machine_id:
        machine_id = _create_once(path, str(uuid.uuid4()))
    return Machine(id=machine_id, label=label or socket.gethostname())


def _read_id(path: Path) -> str:
    """``machine.id``'s text: a regular file of the store only (a FIFO never blocks)."""
    return read_text_safely(path, max_bytes=4096, within=path.parent).strip()


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
