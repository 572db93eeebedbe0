"""``Store``: the door's owner — one store directory and the one way into its files.

A ``Store`` knows where the store is (``root``, ``session_path``, ``memory_dir``),
who writes (``actor``, this ``machine``), when (``clock``), in which project
(``project``), under which settings (``config``), and what runs after a commit
(``after_commit_hooks``) on which files (``kinds``: the state files besides the
session that a transaction may declare). It reads a consistent snapshot without a
lock (writes are atomic renames) and opens every change as one transaction
(``core.transaction``): locked, atomic, audited, refused on a read-only store.

It holds no service. The working set, review queue, trash, entry files and the
rest are built on it and handed to each other by the composition
(``core.memoir``), which is what every face opens.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memoir_tui.core.door.config import Config, load_config
from memoir_tui.core.door.context import AfterCommitHook, StateFileKind
from memoir_tui.core.door.machine import Machine, known_machine
from memoir_tui.core.door.transaction import Transaction, run_transaction
from memoir_tui.core.format.identity import iso_now
from memoir_tui.core.format.items import SESSION, Outcome
from memoir_tui.core.format.session import SESSION_FILE, LoadedSession, load_session

__all__ = ["Outcome", "Store", "default_store_dir"]


def default_store_dir(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """``$MEMOIR_HOME`` if set, else the JavaScript tool's ``~/.config/memoir``."""
    env = os.environ if environ is None else environ
    override = env.get("MEMOIR_HOME")
    if override:
        return Path(os.path.expanduser(override))
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "memoir"


class Store:
    """A memoir store directory: ``session.json``, ``review.json``, ``memory/``, our config."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        config: Config | None = None,
        clock: Callable[[], str] = iso_now,
        machine_label: str | None = None,
        actor: str = "cli",
        project: str | None = None,
        project_label: str | None = None,
        kinds: Iterable[StateFileKind] = (),
        after_commit_hooks: Iterable[AfterCommitHook] = (),
    ) -> None:
        """``actor`` names the face in the audit log. ``project`` (a scope id, with its
        readable ``project_label``) stamps new items and scopes what is shown; None:
        outside any project — nothing stamped, every project shown."""
        self.root = Path(root) if root is not None else default_store_dir()
        self.config = config or load_config(self.root)
        self.clock = clock
        self.actor = actor
        self.project = project
        self.project_label = project_label
        self.kinds: Mapping[str, StateFileKind] = {k.name: k for k in kinds}
        self.after_commit_hooks: tuple[AfterCommitHook, ...] = tuple(after_commit_hooks)
        self._machine_label = machine_label
        self._machine: Machine | None = None

    # --- where and who ----------------------------------------------------------------

    @property
    def session_path(self) -> Path:
        return self.root / SESSION_FILE

    @property
    def memory_dir(self) -> Path:
        return self.root / "memory"

    @property
    def machine(self) -> Machine:
        """This machine's identity. ``machine.id`` is a file of the store like any other:
        when there is none yet, it is made through the door (a transaction: the store's
        lock, an audit line), in the transaction this thread holds if there is one."""
        if self._machine is None:
            known = known_machine(self.root, label=self._machine_label)
            if known is None:
                with self.transaction("create_machine_id", files=()) as tx:
                    known = tx.create_machine(self._machine_label)
            self._machine = known
        return self._machine

    @property
    def machine_label(self) -> str:
        """This machine's display label; reading it never creates ``machine.id``."""
        return self._machine.label if self._machine else self._machine_label or socket.gethostname()

    def known_machine(self) -> Machine | None:
        """This machine's identity if the store has one; reading never creates it."""
        return self._machine or known_machine(self.root, label=self._machine_label)

    @property
    def scoped(self) -> bool:
        """Whether this store is opened for one project (else: outside any, all shown)."""
        return self.project is not None

    # --- reading ----------------------------------------------------------------------

    def load(self) -> LoadedSession:
        """A consistent snapshot (writes are atomic renames, so no lock is needed to read)."""
        return load_session(self.session_path, now=self.clock())

    @property
    def read_only(self) -> bool:
        return self.load().read_only

    # --- the one door -------------------------------------------------------------------

    @contextmanager
    def transaction(self, op: str, *, files: Iterable[str] = (SESSION,)) -> Iterator[Transaction]:
        """Lock, load, stage, commit atomically, audit, then run after-commit hooks.

        ``files`` declares what the change touches: ``SESSION``, ``FILES`` (entry,
        trash, host and other files) and the state files of ``kinds`` (``REVIEW``).
        See ``core.transaction``.
        """
        with run_transaction(self, op, files) as tx:
            yield tx
