"""The recall-side MCP tools: search, list, read and write host tools' memory files.

``memoir_recall``, ``memoir_list``, ``memoir_read`` and ``memoir_remember`` carry
the JavaScript tool's names and arguments (``query``; ``tool``; ``tool`` +
``filepath``; ``content``, ``filename``, ``tool``, ``project``) plus a few of
our own (``limit``, ``all_projects``, ``aliases``, ``tags``).

Like ``tools``, each function takes the per-call ``Store`` first and returns a
``Reply``; the second argument is the server's ``WarmRecall``: one ``Recall``
per server, built on first use and watched, so a query costs milliseconds
while its watcher (or, where inotify is missing, its incremental stat check)
re-reads whatever changed before every answer. Session state (hidden
decisions, the audit) is still read through the per-call ``Store``.

What the core guarantees and these functions rely on: ``Recall.search`` and
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
import re
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core.answers import Reply
from memoir_tui.core.errors import EmptyTextError, MemoirError
from memoir_tui.core.recall.answers import EntryOut, ListView, PassageOut, RecallView
from memoir_tui.core.withhold import shown_text, withhold_lines

if TYPE_CHECKING:
    from memoir_tui.core.adapters import Adapter
    from memoir_tui.core.recall import Recall
    from memoir_tui.core.store import Store

log = logging.getLogger("memoir_tui.mcp.recall")

RECALL_DEFAULT_LIMIT = 8
RECALL_MAX_LIMIT = 30
PASSAGE_BUDGET = 700  # bytes per passage (the default)
LIST_SHOWN = 200
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
        from memoir_tui.core.recall import Recall

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
            from memoir_tui.core.errors import MemoirError

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
        from memoir_tui.core.recall import semantic

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
                from memoir_tui.core.recall import Recall

                self._interim = Recall(self.store_root, cwd=self.cwd)
            return self._interim, False

    def use_roots(self, roots: Sequence[Path]) -> None:
        """An MCP client's roots: when the server was started outside any project (in /
        or home, as hosts do), its first root that is a folder becomes the current
        project, indexed now with its own files."""
        from memoir_tui.core.recall.service import working_project

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


def _building_note(engine: Recall) -> str:
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


# --- helpers ----------------------------------------------------------------------------


def resolve_tool(name: str | None) -> str | None:
    """A tool name as a person or the JavaScript tool spells it → an adapter name (the
    registry's one resolver); empty is every tool."""
    from memoir_tui.core.adapters import resolve_tool as resolve

    if name is None or not name.strip():
        return None
    return resolve(name)


def _text_arg(value: str | None) -> str | None:
    return value.strip() if value is not None and value.strip() else None


def _scope_label(recall: Recall, project: str | None, all_projects: bool) -> str:
    if all_projects:
        return "every project"
    return f"project {project or recall.current_project()} and global files"


def _why_text(why: dict[str, list[str]]) -> str:
    return "; ".join(f"{field} {', '.join(terms)}" for field, terms in why.items())


def _where(hit: PassageOut) -> str:
    if not hit.lines:
        return hit.path
    first, last = hit.lines[0][0], hit.lines[-1][1]
    return f"{hit.path}:{first}" + (f"-{last}" if last != first else "")


# --- read-only tools ------------------------------------------------------------------------


def _withheld_passage(hit: PassageOut) -> PassageOut:
    """The passage with every line a secret touches shown as withheld, and the name (a
    session item's name is its text) too."""
    return replace(hit, passage=withhold_lines(hit.passage)[0], name=shown_text(hit.name))


def recall(
    store: Store,
    warm: WarmRecall,
    query: str,
    limit: int = RECALL_DEFAULT_LIMIT,
    tool: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
    type: str | None = None,
    since: str | None = None,
) -> Reply:
    from memoir_tui.core.needle import clean_needle, shown

    query = clean_needle(query, "query")  # a needle, not a write: any text
    echoed = shown(query)  # never echoed as typed: a pasted token shows as [REDACTED:…]
    type_name = _text_arg(type)
    since = _text_arg(since)
    limit = max(1, min(int(limit), RECALL_MAX_LIMIT))
    tool_name = resolve_tool(tool)
    project = _text_arg(project)
    from memoir_tui.core.recall.service import elsewhere_hint

    engine, complete = warm.current()
    tools_filter = [tool_name] if tool_name else None
    hits = engine.search(
        query,
        limit=limit,
        tools=tools_filter,
        project=project,
        all_projects=all_projects,
        budget=PASSAGE_BUDGET,
        refresh=complete,
        types=[type_name] if type_name else None,
        since=since,
    )
    searched = scope = _scope_label(engine, project, all_projects)  # data: without "since"
    building = "" if complete else _building_note(engine)
    shown_hits = [_withheld_passage(PassageOut(**hit.to_json())) for hit in hits]
    where = f"{tool_name}'s files in " if tool_name else ""
    if type_name:
        where = f"{type_name} items of {where or ''}"
    if since:
        scope += f", changed since {since}"
    if not hits:
        hint = ""
        counts: dict[str, int] = {}
        if not all_projects:
            counts = engine.count_elsewhere(query, tools=tools_filter, project=project)
            hint = f"; {elsewhere_hint(counts, cli=False)}" if counts else ""
        data = RecallView(
            query=echoed,
            scope=searched,
            hits=[],
            complete=complete,
            note=building,
            elsewhere=counts,
        )
        text = f'Nothing found for "{echoed}" in {where}{scope}{hint}.'
        return Reply(f"{text}\n{building}" if building else text, data)
    data = RecallView(
        query=echoed, scope=searched, hits=shown_hits, complete=complete, note=building
    )
    lines = [f'{len(hits)} passage(s) for "{echoed}", best first ({where}{scope}):']
    if building:
        lines.insert(0, building)
    for number, hit in enumerate(data.hits, start=1):
        lines += [
            "",
            f"{number}. {hit.name}  [{hit.tool} · {hit.type}]  score {hit.score:.2f}",
            f"   {_where(hit)}",
            f"   matched: {_why_text(hit.why)}",
            *(f"   │ {line}" for line in hit.passage.splitlines()),
        ]
    lines += ["", "memoir_read(tool, filepath) returns a whole file."]
    return Reply("\n".join(lines), data)


def list_entries(
    store: Store,
    warm: WarmRecall,
    tool: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
) -> Reply:
    from memoir_tui.core.adapters import BY_NAME

    tool_name = resolve_tool(tool)
    project = _text_arg(project)
    engine, complete = warm.current()
    found = [
        e
        for e in engine.entries(
            tools=[tool_name] if tool_name else None,
            project=project,
            all_projects=all_projects,
            refresh=complete,
        )
        if e.kind != "session"  # working-set items: memoir_session lists those
    ]
    by_tool: dict[str, int] = {}
    for e in found:
        by_tool[e.tool] = by_tool.get(e.tool, 0) + 1
    shown = [EntryOut(**e.to_json()) for e in found[:LIST_SHOWN]]
    scope = _scope_label(engine, project, all_projects)
    data = ListView(tool=tool_name, scope=scope, total=len(found), by_tool=by_tool, entries=shown)
    building = "" if complete else _building_note(engine)
    if not found:
        what = f"{tool_name} memory files" if tool_name else "memory files"
        text = f"No {what} found ({scope})."
        return Reply(f"{text}\n{building}" if building else text, data)
    lines = [f"Memory files ({len(found)} total; {scope}):"]
    if building:
        lines.insert(0, building)
    current = None
    for e in shown:
        if e.tool != current:
            current = e.tool
            label = BY_NAME[e.tool].label if e.tool in BY_NAME else e.tool
            lines += ["", f"{label} — {e.tool} ({by_tool[e.tool]} files)"]
        extras = [e.type]
        if e.always_loaded:
            extras.append("always loaded")
        if e.project:
            extras.append(f"project {e.project}")
        line = f"- {e.name} [{', '.join(extras)}]"
        if e.description:
            line += f" — {e.description}"
        lines += [line, f"  {e.path}"]
    if len(found) > len(shown):
        lines += ["", f"({len(found) - len(shown)} more: pass tool=… to narrow the list)"]
    return Reply("\n".join(lines), data)


def _read_candidates(engine: Recall, adapter: Adapter, raw: str) -> list[str]:
    """Absolute paths to try for ``raw``: itself, or relative to the tool's directories."""
    from memoir_tui.core.adapters.guard import PathRefused

    if "\0" in raw:
        raise PathRefused("a path cannot contain NUL")
    if ".." in re.split(r"[\\/]", raw):
        raise PathRefused(f"{raw}: '..' is not allowed; give the path memoir_recall returned")
    expanded = os.path.expanduser(raw)
    if os.path.isabs(expanded):
        return [expanded]
    # the JavaScript tool takes a path relative to the tool's directory; try its
    # global directories, then the current project (the guard decides either way)
    bases = [str(p) for p in adapter.global_dirs(engine.home, engine.env, engine.store_root)]
    bases.append(engine.current_project())
    return [os.path.join(base, expanded) for base in bases]


def read(
    store: Store,
    warm: WarmRecall,
    tool: str,
    filepath: str | None = None,
    path: str | None = None,
) -> Reply:
    from memoir_tui.core.adapters import get_adapter
    from memoir_tui.core.adapters.guard import PathRefused

    tool_name = resolve_tool(tool)
    if tool_name is None:
        raise EmptyTextError("tool is empty: name the tool whose file to read")
    if filepath and path and filepath != path:
        raise MemoirError("give filepath or path, not two different paths")
    raw = filepath or path
    if raw is None or not raw.strip():
        raise EmptyTextError("filepath is empty: give a path memoir_recall or memoir_list returned")
    engine = warm.get()
    refusal: PathRefused | None = None
    for candidate in _read_candidates(engine, get_adapter(tool_name), raw.strip()):
        try:
            found, text = engine.read(tool_name, candidate)
        except PathRefused as err:
            refusal = refusal or err
            continue
        _refuse_forgotten(store, found, text, tool_name)
        text = withhold_lines(text)[0]  # never hands a secret on, whoever wrote it there
        return Reply(f"── {tool_name} / {found} ──\n\n{text}")
    assert refusal is not None
    raise refusal


def _refuse_forgotten(store: Store, path: str, text: str, tool: str) -> None:
    """A forgotten decision or a completed action is never returned, by path either."""
    from memoir_tui.core.adapters.guard import PathRefused
    from memoir_tui.core.identity import text_hash
    from memoir_tui.core.recall.extract import doc_from_text

    doc = doc_from_text(
        path, text, tool=tool, kind="memory", project="", always_loaded=False, markdown=True
    )
    forgotten = doc is None
    if not forgotten and doc.type == "decision":
        hidden = {d.key for d in store.working_set(all_projects=True).tombstones}
        forgotten = text_hash(doc.name) in hidden
    if forgotten:
        raise PathRefused(f"{path}: a forgotten decision or a completed action; not returned")


# --- writing ----------------------------------------------------------------------------------


def remember(
    store: Store,
    warm: WarmRecall,
    content: str,
    filename: str,
    tool: str | None = None,
    project: str | None = None,
    aliases: list[str] | None = None,
    tags: list[str] | None = None,
) -> Reply:
    """``core.remember.remember`` with the tool name resolved and the warm index."""
    from memoir_tui.core import remember as service

    return service.remember(
        store,
        warm.get(),
        content,
        filename,
        tool,
        project,
        aliases,
        tags,
        tool_name=resolve_tool(tool),
    )
