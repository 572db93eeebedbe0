"""``RecallSource``: the app's one ``Recall``, opened on first use and closed with the app.

The Recall and Entries panes share it. Opening it builds (or checks) the
index and starts the inotify watcher, so :meth:`RecallSource.get` must be
called from a thread worker, never from the UI thread. Closing never waits
for an opening in progress: the opener closes what it opened if the app went
away meanwhile.

No widgets and no key bindings. Tests attach a source with their own home,
environment, working directory and cache (:func:`attach_recall`).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core import MemoirError

if TYPE_CHECKING:
    from textual.app import App

    from memoir_tui.core import Recall


class RecallClosed(MemoirError):
    """The app is closing: no recall index any more."""


class RecallSource:
    """Opens one ``Recall`` for a store root and working directory, once."""

    def __init__(
        self,
        store_root: str | os.PathLike[str] | None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        watch: bool = True,
    ) -> None:
        self.store_root = Path(store_root) if store_root is not None else None
        self.home = home
        self.env = env
        self.cwd = cwd
        self.cache_dir = cache_dir
        self.watch = watch
        self._open_lock = threading.Lock()  # one opener at a time
        self._state_lock = threading.Lock()  # short: guards _recall and _closed
        self._recall: Recall | None = None
        self._closed = False

    @property
    def is_open(self) -> bool:
        return self._recall is not None

    @property
    def closed(self) -> bool:
        return self._closed

    def get(self) -> Recall:
        """The Recall, opening it on the first call (slow: call from a thread worker)."""
        with self._open_lock:
            with self._state_lock:
                if self._closed:
                    raise RecallClosed("the app is closing")
                if self._recall is not None:
                    return self._recall
            recall = self._open()
            with self._state_lock:
                if not self._closed:
                    self._recall = recall
                    return recall
            recall.close()
            raise RecallClosed("the app is closing")

    def _open(self) -> Recall:
        from memoir_tui.core import Recall

        recall = Recall(
            self.store_root,
            home=self.home,
            env=self.env,
            cwd=self.cwd,
            cache_dir=self.cache_dir,
        )
        if self.watch:
            try:
                recall.watch()  # a long-lived process: queries need not stat the corpus
            except (MemoirError, OSError):
                recall.stop_watching()  # queries fall back to stat checks
        return recall

    def close(self) -> None:
        """Close the Recall (idempotent); a later ``get`` raises ``RecallClosed``."""
        with self._state_lock:
            self._closed = True
            recall, self._recall = self._recall, None
        if recall is not None:
            recall.close()


_SOURCES: weakref.WeakKeyDictionary[App[object], RecallSource] = weakref.WeakKeyDictionary()


def attach_recall(app: App[object], source: RecallSource) -> RecallSource:
    """Give ``app`` this source (before its panes first use recall)."""
    _SOURCES[app] = source
    return source


def recall_source(app: App[object]) -> RecallSource:
    """The app's source: attached, else one over the app's store root (the default
    store if it has none), the process's environment and its working directory."""
    source = _SOURCES.get(app)
    if source is None:
        store = getattr(app, "store", None)
        root = getattr(store, "root", None)
        source = attach_recall(app, RecallSource(root))
    return source


def release_recall(app: App[object]) -> None:
    """Close the app's Recall, if one was opened (called as the panes unmount)."""
    source = _SOURCES.get(app)
    if source is not None:
        source.close()
