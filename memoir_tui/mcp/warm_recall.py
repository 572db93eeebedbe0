"""One warm ``Recall`` per MCP server, and what the four recall tools share.

``memoir_recall``, ``memoir_list``, ``memoir_read`` and ``memoir_remember``
(``mcp/tools/recall.py`` … ``remember.py``) carry the JavaScript tool's names and
arguments (``query``; ``tool``; ``tool`` + ``filepath``; ``content``, ``filename``,
``tool``, ``project``) plus a few of our own (``limit``, ``all_projects``,
``aliases``, ``tags``). Like every tool, each takes the per-call ``Memoir`` first and
returns a ``Reply``; the second argument is the server's ``WarmRecall``: one
``Recall`` per server, built on first use and watched, so a query costs milliseconds
while its watcher (or, where inotify is missing, its incremental stat check)
re-reads whatever changed before every answer. Session state (hidden decisions, the
audit) is still read through the per-call ``Memoir``.

What the core guarantees and these tools rely on: ``Recall.search`` and
``Recall.entries`` never return hidden decisions, completed actions or items
outside the scope asked for; ``Recall.read`` and ``Recall.write_target`` go
through ``adapters.guard`` (a tool's own files only; bare lowercase ``.md``
names resolved inside the target directory in every branch). On top of that,
``memoir_read`` refuses a forgotten decision or completed action by path, and
``memoir_remember`` is a face over ``core.remember`` (secrets refused before anything
is written, never an existing file replaced, the host's activation frontmatter and
index line written with the file).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core import MemoirError

if TYPE_CHECKING:
    from memoir_tui.core import Recall

log = logging.getLogger("memoir_tui.mcp.recall")

APPLY_SECONDS = 0.2  # how often a server applies what its watcher saw

# --- the warm Recall --------------------------------------------------------------------

# every WarmRecall holding an open Recall (its watcher thread and database connection)
_OPEN: set[WarmRecall] = set()
_OPEN_LOCK = threading.Lock()


CONCEPT_SECONDS = 60.0  # how long changes wait before the concept vectors follow them


class WarmRecall:
    """One ``Recall`` per server, watched and kept.

    ``start()`` (the server calls it at start-up) builds or refreshes the index in a
    background thread; until that is done, ``current()`` answers from what the index
    already holds, through a second ``Recall`` that never writes, and says so. Without
    ``start()`` (tests, a server only asked about the session) nothing is indexed until
    the first recall, which then builds the index inside the call.
    """

    def __init__(self, store_root: Path, *, cwd: Path | None = None) -> None:
        self.store_root = store_root
        self.cwd = cwd
        self._lock = threading.Lock()
        self._recall: Recall | None = None
        self._interim: Recall | None = None
        self._builder: threading.Thread | None = None
        self._ready = threading.Event()
        self._closed = False
        self._stop = threading.Event()
        self._applier: threading.Thread | None = None

    def _make(self) -> Recall:
        from memoir_tui.core import Recall

        recall = Recall(self.store_root, cwd=self.cwd)
        try:
            watching = recall.watch()  # builds or refreshes the index once
        except BaseException:
            recall.close()
            raise
        log.info("recall ready (watcher %s)", "on" if watching else "off: stat checks")
        return recall

    def _keep(self, recall: Recall) -> Recall:
        self._recall = recall
        with _OPEN_LOCK:
            _OPEN.add(self)
        if self._applier is None:
            self._applier = threading.Thread(
                target=self._apply_loop, args=(recall,), name="memoir-recall-apply", daemon=True
            )
            self._applier.start()
        return recall

    def _apply_loop(self, recall: Recall) -> None:
        """Apply watched changes as they come (every ``APPLY_SECONDS``), so the index
        other processes read (a CLI recall) is current too, not only this server's answers."""
        import time

        changed_at: float | None = None  # changes applied since the concepts were built
        while not self._stop.wait(APPLY_SECONDS):
            try:
                if recall.apply_pending() and changed_at is None:
                    changed_at = time.monotonic()
            except Exception:  # a busy or replaced index: the next query deals with it
                log.debug("applying watched changes failed", exc_info=True)
            # concept vectors follow at most every CONCEPT_SECONDS (only changed chunks)
            if (
                changed_at is not None
                and recall.concept_model is not None
                and time.monotonic() - changed_at >= CONCEPT_SECONDS
            ):
                changed_at = None
                self._build_concepts(recall)

    def start(self) -> None:
        """Build or refresh the index in the background, now."""
        with self._lock:
            if self._recall is not None or self._builder is not None or self._closed:
                return
            self._builder = threading.Thread(
                target=self._build, name="memoir-recall-build", daemon=True
            )
            with _OPEN_LOCK:
                _OPEN.add(self)
            self._builder.start()

    def _build(self) -> None:
        try:
            recall = self._make()
        except Exception as exc:
            from memoir_tui.core import MemoirError

            if isinstance(exc, MemoirError):  # a sentence for people (a FIFO as the config)
                log.error("building the recall index in the background failed: %s", exc)
            else:
                log.exception("building the recall index in the background failed")
            self._ready.set()  # the next get() tries again, inside the call
            return
        with self._lock:
            if self._closed:
                recall.close()
            else:
                self._keep(recall)
        self._ready.set()
        self._build_concepts(recall)

    @staticmethod
    def _build_concepts(recall: Recall) -> None:
        """With the extra ``[semantic]`` and its model in the cache (``memoir-tui index
        --concepts`` fetches it): embed what changed, after the lexical index is ready;
        queries never wait for it. The server never reaches the network for it."""
        from memoir_tui.core import semantic

        if not semantic.available():
            return
        try:
            done = recall.build_concepts(fetch=False, progress=log.info)
        except MemoirError as err:
            log.warning("concept search is off: %s", err)
        except Exception:
            log.exception("building the concept index failed")
        else:
            if done is not None:
                log.info("concept index: %d chunks embedded, %d reused", *done)

    def building(self) -> bool:
        """A background build started and has not finished."""
        return self._builder is not None and not self._ready.is_set()

    def get(self) -> Recall:
        """The kept ``Recall``, once ready (waits for a background build)."""
        if self._builder is not None:
            self._ready.wait()
        with self._lock:
            if self._recall is None:
                self._keep(self._make())
            if self._interim is not None:  # the build is done: its stand-in is not needed
                self._interim.close()
                self._interim = None
            assert self._recall is not None
            return self._recall

    def current(self) -> tuple[Recall, bool]:
        """``(recall, complete)``: the kept one when ready; else one that reads the index
        as it is while the background build goes on (``complete`` False)."""
        if not self.building():
            return self.get(), True
        with self._lock:
            if self._interim is None:
                from memoir_tui.core import Recall

                self._interim = Recall(self.store_root, cwd=self.cwd)
            return self._interim, False

    def use_roots(self, roots: Sequence[Path]) -> None:
        """An MCP client's roots: when the server was started outside any project (in /
        or home, as hosts do), its first root that is a folder becomes the current
        project, indexed now with its own files."""
        from memoir_tui.core import project_folders as working_project

        home = Path(os.environ.get("HOME") or os.path.expanduser("~"))
        if self.cwd is not None and working_project(self.cwd, home):
            return  # started inside a project: that one stays
        root = next((r for r in roots if r.is_dir() and working_project(r, home)), None)
        if root is None:
            return
        self.cwd = root
        recall = self.get()
        recall.use_project(root)

    def close(self) -> None:
        self._stop.set()
        applier = self._applier
        if applier is not None and applier is not threading.current_thread():
            applier.join(timeout=5)
        with self._lock:
            self._closed = True
            self._applier = None
            for recall in (self._recall, self._interim):
                if recall is not None:
                    recall.close()
            self._recall = self._interim = None
        with _OPEN_LOCK:
            _OPEN.discard(self)


BUILDING_NOTE = (
    "The recall index is still being built in the background: these results come from "
    "what it holds so far ({files} files indexed); ask again in a few seconds for all."
)


def building_note(engine: Recall) -> str:
    try:
        files = engine.index.file_count()
    except Exception:  # no database yet
        files = 0
    return BUILDING_NOTE.format(files=files)


def close_all() -> None:
    """Close every server's ``Recall`` (its watcher thread and database): tests, shutdown."""
    with _OPEN_LOCK:
        open_now = list(_OPEN)
    for warm in open_now:
        warm.close()


# --- what the recall tools share --------------------------------------------------------


def resolve_tool(name: str | None) -> str | None:
    """A tool name as a person or the JavaScript tool spells it → an adapter name (the
    registry's one resolver); empty is every tool."""
    from memoir_tui.core import resolve_tool as resolve

    if name is None or not name.strip():
        return None
    return resolve(name)


def text_arg(value: str | None) -> str | None:
    return value.strip() if value is not None and value.strip() else None


def scope_label(recall: Recall, project: str | None, all_projects: bool) -> str:
    if all_projects:
        return "every project"
    return f"project {project or recall.current_project()} and global files"
