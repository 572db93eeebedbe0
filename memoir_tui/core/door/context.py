"""What the door knows of a store: its context, and the kinds of state file it may write.

The transaction (``core.transaction``) is handed a ``StoreContext`` — where the
store is, who writes, when, under which settings, which state files exist and
what runs after a commit — and nothing else. The session is the door's own kind
(it has its own lock, its settling and the newer-format refusal); every other
state file — the review queue first — is a ``StateFileKind`` registered by the
composition (``core.memoir``), so the door imports no service and no service's
file format.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from memoir_tui.core.door.config import Config
    from memoir_tui.core.door.machine import Machine

__all__ = ["AfterCommitHook", "Commit", "LoadedState", "StateFileKind", "StoreContext"]


@dataclass(frozen=True, slots=True)
class LoadedState:
    """A state file as a transaction read it, under the store's lock."""

    state: dict[str, Any]
    read_only: bool = False
    notice: str | None = None
    # Reading already changed it (a purged text redacted): written even if nothing else is.
    changed_on_reading: bool = False


@dataclass(frozen=True, slots=True)
class StateFileKind:
    """A JSON state file of the store that a transaction may declare by ``name``."""

    name: str  # what ``files=`` declares, e.g. ``"review"``
    filename: str  # inside the store root, e.g. ``"review.json"``
    load: Callable[[Path], LoadedState]  # a damaged file is set aside and read as empty
    prepare: Callable[[dict[str, Any], str], dict[str, Any]]  # (state, now) → what is written
    encode: Callable[[Mapping[str, Any]], bytes]


@dataclass(frozen=True, slots=True)
class Commit:
    """What a committed transaction changed."""

    op: str
    paths: tuple[Path, ...] = ()  # every file written or removed, in write order
    session_changed: bool = False
    review_changed: bool = False
    files_changed: tuple[Path, ...] = ()  # the FILES part of ``paths``
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.paths)


@dataclass(frozen=True, slots=True)
class AfterCommitHook:
    """``location`` is ``"module:function"``; the function takes ``(memoir, commit)``:
    the store as the composition opened it, services included."""

    name: str
    location: str
    enabled: Callable[[Config], bool]
    ops_skipped: frozenset[str] = frozenset()
    only_ops: frozenset[str] | None = None  # None: after every commit

    def load(self) -> Callable[[Any, Commit], Any]:
        module_name, _, function = self.location.partition(":")
        hook: Callable[[Any, Commit], Any] = getattr(importlib.import_module(module_name), function)
        return hook


class StoreContext(Protocol):
    """The store as the door sees it (``core.store.Store`` is one)."""

    @property
    def root(self) -> Path: ...
    @property
    def session_path(self) -> Path: ...
    @property
    def config(self) -> Config: ...
    @property
    def clock(self) -> Callable[[], str]: ...
    @property
    def actor(self) -> str: ...
    @property
    def project(self) -> str | None: ...
    @property
    def machine(self) -> Machine: ...
    @property
    def kinds(self) -> Mapping[str, StateFileKind]: ...
    @property
    def after_commit_hooks(self) -> tuple[AfterCommitHook, ...]: ...
