"""``Recall``: the one object faces use to search every host tool's memory.

Usable from a fresh process (the CLI: open, search once, exit) and from a
long-lived one (the MCP server, the app: keep one ``Recall``, call ``search``
per request; ``watch()`` adds an inotify watcher so a query never has to stat
the corpus). Thread-safe: calls are serialised by a lock.

Nothing here imports textual or mcp, and importing this module is cheap
(sqlite3 and the rest load on first use).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError

if TYPE_CHECKING:
    from memoir_tui.core.door.config import Config
    from memoir_tui.core.recall.index import RecallIndex, RefreshReport, Scope
    from memoir_tui.core.recall.rank import Row

MAX_LIMIT = 100


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: a passage of one document, best first."""

    path: str  # absolute; the session file for working-set items
    tool: str
    type: str
    name: str
    score: float
    passage: str
    why: Mapping[str, Sequence[str]]  # field → matched terms ("auth*": prefix match)
    project: str = ""  # "" = global
    kind: str = ""  # "memory" | "rules" | "instructions" | "session"
    always_loaded: bool = False
    lines: tuple[tuple[int, int], ...] = ()  # 1-based line ranges of the passage in the file
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "tool": self.tool,
            "type": self.type,
            "name": self.name,
            "score": round(self.score, 4),
            "passage": self.passage,
            "why": {k: list(v) for k, v in self.why.items()},
            "project": self.project,
            "kind": self.kind,
            "always_loaded": self.always_loaded,
            "lines": [list(r) for r in self.lines],
        }


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """A document as a list shows it (no body)."""

    path: str
    tool: str
    type: str
    kind: str
    name: str
    description: str
    project: str
    always_loaded: bool
    updated: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "tool": self.tool,
            "type": self.type,
            "kind": self.kind,
            "name": self.name,
            "description": self.description,
            "project": self.project,
            "always_loaded": self.always_loaded,
            "updated": self.updated,
        }


@dataclass(frozen=True, slots=True)
class IndexStatus:
    path: str  # the database file
    exists: bool
    files: int
    documents: int
    size_bytes: int
    last_full_check: float | None
    by_tool: Mapping[str, int] = field(default_factory=dict)
    notes: tuple[tuple[str, str], ...] = ()  # (path, why it was skipped)
    watching: bool = False


def working_project(cwd: Path, home: Path) -> tuple[Path, ...]:
    """The working directory's project (its git work tree, else the folder), so the
    project's own CLAUDE.md, AGENTS.md, rules … are recallable with no transcript naming
    it; none in the home folder, / or above home (where hosts start their servers)."""
    from memoir_tui.core.rules.scope import find_git_dir, is_outside_projects

    try:
        if is_outside_projects(cwd, home=home):
            return ()
        tree = find_git_dir(cwd)
    except OSError:
        return ()
    return (Path(tree[0]) if tree else cwd,)


def elsewhere_hint(counts: dict[str, int], *, cli: bool) -> str:
    """``3 matches in other projects (billing 2, webshop 1): --all-projects``."""
    total = sum(counts.values())
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    names = ", ".join(f"{name} {n}" for name, n in top[:5]) + (", …" if len(top) > 5 else "")
    how = "--all-projects" if cli else "all_projects=true"
    return f"{total} match{'es' if total != 1 else ''} in other projects ({names}): {how}"


def default_store_dir(env: Mapping[str, str]) -> Path:
    """``$MEMOIR_HOME``, else ``~/.config/memoir`` — as ``store.default_store_dir``.

    Repeated here so a query does not import the store's locking and merge code.
    """
    override = env.get("MEMOIR_HOME")
    if override:
        return Path(os.path.expanduser(override))
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".config" / "memoir"


def parse_since(text: str, *, now: float | None = None) -> tuple[str, int]:
    """``since`` as (UTC ``YYYY-MM-DDTHH:MM:SS``, ns since the epoch): a duration back from
    now (``30m``, ``12h``, ``7d``, ``2w``) or a date (``2026-05-01``, ISO date-time)."""
    import datetime as dt

    from memoir_tui.core.base.errors import MemoirError

    raw = text.strip()
    if raw and raw[0].isdigit() and raw[-1].isalpha() and "-" not in raw:
        from memoir_tui.core.format.durations import parse_duration

        moment = (time.time() if now is None else now) - parse_duration(raw)
        at = dt.datetime.fromtimestamp(moment, tz=dt.UTC)
    else:
        try:
            at = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            raise MemoirError(
                f"not a date or duration: {text!r} (use e.g. 7d, 12h or 2026-05-01)"
            ) from None
        if at.tzinfo is None:
            at = at.replace(tzinfo=dt.UTC)
        at = at.astimezone(dt.UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S"), int(at.timestamp() * 1_000_000_000)


def sqlite3_error() -> type[Exception]:
    import sqlite3

    return sqlite3.Error


class Recall:
    """Search over the store and every enabled host tool's memory files.

    ``home`` and ``env`` default to the process's; tests pass tmp directories.
    ``cwd`` decides the current project (default scope of a search).
    """

    def __init__(
        self,
        store_root: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        config: Config | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        full_check_files: int | None = None,
        full_check_seconds: float = 5.0,
    ) -> None:
        from memoir_tui.core.recall.index import (
            DEFAULT_FULL_CHECK_FILES,
            RecallIndex,
            Scope,
            index_path,
        )
        from memoir_tui.core.recall.index import cache_dir as default_cache_dir

        self.env: Mapping[str, str] = dict(os.environ) if env is None else env
        self.home = (
            Path(home)
            if home is not None
            else Path(self.env.get("HOME") or os.path.expanduser("~"))
        )
        self.store_root = (
            Path(store_root) if store_root is not None else default_store_dir(self.env)
        )
        if config is None:
            from memoir_tui.core.door.config import load_config

            config = load_config(self.store_root)
        self.config = config
        if cwd is None:
            try:
                cwd = Path.cwd()
            except OSError:  # the working directory was deleted
                cwd = self.home
        self.cwd = Path(cwd)
        self.scope: Scope = Scope(
            home=self.home,
            env=self.env,
            store_root=self.store_root,
            tools=tuple(config.tools),
            project_roots=tuple(config.project_roots),
            here=working_project(self.cwd, self.home),
        )
        directory = Path(cache_dir) if cache_dir is not None else default_cache_dir(self.env)
        self.cache_dir = directory
        self.concept_model: Any = None  # the static model, once a fallback loaded it
        self.weak = False  # the last search's lexical evidence was weak (concept territory)
        if full_check_files is None:
            full_check_files = getattr(config, "recall_full_check_files", DEFAULT_FULL_CHECK_FILES)
        limit = full_check_files
        self.index: RecallIndex = RecallIndex(
            index_path(self.store_root, self.home, directory, self.scope),
            full_check_files=limit,
        )
        self.full_check_seconds = full_check_seconds
        self._lock = threading.RLock()
        self._watcher: Any = None
        self._last_full = 0.0
        self._refreshed_once = False
        self._current: tuple[str, frozenset[str]] | None = None  # (project, its values)

    # --- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self.stop_watching()
            self.index.close()

    def __enter__(self) -> Recall:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _guarded(self, fn, *args, **kwargs):
        """Run ``fn``; a corrupt or foreign database file is deleted and rebuilt once."""
        import sqlite3

        from memoir_tui.core.recall.index import IndexBusyError, _is_busy

        with self._lock:
            try:
                return fn(*args, **kwargs)
            except IndexBusyError:
                raise
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and _is_busy(exc):
                    raise IndexBusyError(
                        "the recall index is busy (another process is writing it); try again"
                    ) from None
                self.index.destroy()
                self._refreshed_once = False
                try:
                    return fn(*args, **kwargs)
                except sqlite3.DatabaseError as again:
                    raise MemoirError(f"recall index {self.index.path}: {again}") from None

    # --- freshness -------------------------------------------------------------------

    def refresh(self, *, full: bool | None = None) -> RefreshReport:
        """Bring the index up to date (``full=True``: stat every file; None: by size)."""
        return self._guarded(self._refresh, full)

    def _refresh(self, full: bool | None) -> RefreshReport:
        report = self.index.refresh(self.scope, full=full)
        self._refreshed_once = True
        if report.full:
            self._last_full = time.monotonic()
        return report

    def use_project(self, path: str | os.PathLike[str]) -> None:
        """Make ``path`` (an MCP client's root) the current project: its own files are
        indexed now and it is the default scope of a search."""
        import dataclasses

        self.cwd = Path(path)
        self.scope = dataclasses.replace(self.scope, here=working_project(self.cwd, self.home))
        self._guarded(self._refresh, None)

    def rebuild(self) -> RefreshReport:
        """Delete the cache and index every file again."""

        def run() -> RefreshReport:
            self.index.destroy()
            return self._refresh(True)

        return self._guarded(run)

    def notify_changed(self, paths: Iterable[str | os.PathLike[str]] = ()) -> None:
        """Tell the index these files changed (e.g. after writing one); cheap."""
        wanted = [os.path.abspath(p) for p in paths]

        def run() -> None:
            if not self.index.recheck(wanted, self.scope):
                self.index.refresh(self.scope, full=False)

        self._guarded(run)

    def _ensure_fresh(self) -> None:
        """The per-query check: watcher events, else directories (+ files when cheap)."""
        watcher = self._watcher
        if watcher is not None and self._refreshed_once and watcher.healthy:
            dirty_files, dirty_dirs = watcher.drain()
            if dirty_dirs:
                # "*": the kernel's queue overflowed and events were lost: check every file
                self.index.refresh(self.scope, full="*" in dirty_dirs)
                watcher.sync(self._watched_dirs())
            if dirty_files:
                self.index.recheck(dirty_files, self.scope)
            return
        full: bool | None = None
        if self._refreshed_once:
            small = self.index.file_count() <= self.index.full_check_files
            interval = self.full_check_seconds if small else max(60.0, self.full_check_seconds)
            full = time.monotonic() - self._last_full >= interval
        self._refresh(full)
        if watcher is None and self.index.file_count() > self.index.full_check_files:
            # too many files to stat: a keeper left by an earlier query journals writes
            from memoir_tui.core.recall import keeper

            written = keeper.catch_up(self.index.path)
            if written:
                self.index.recheck(written, self.scope)
        if watcher is not None:
            watcher.sync(self._watched_dirs())

    # --- scope ---------------------------------------------------------------------------

    def current_project(self) -> str:
        """The project the cwd belongs to: a known project containing it, else its git root."""
        cwd = os.path.normpath(str(self.cwd))
        known = self._known_projects()
        best = ""
        for project in known:
            if (cwd == project or cwd.startswith(project.rstrip(os.sep) + os.sep)) and len(
                project
            ) > len(best):
                best = project
        if best:
            return best
        from memoir_tui.core.rules.scope import find_git_dir

        found = find_git_dir(Path(cwd))
        return str(found[0]) if found else cwd

    def _scope_id(self, path: str) -> str:
        """The id ``core.scope`` gives this directory: what Store stamps on session items."""
        from memoir_tui.core.rules.scope import project_identity

        try:
            return project_identity(Path(path), home=self.home).id
        except OSError:
            return ""

    def _known_projects(self) -> list[str]:
        known = list(self.index.stats()[3])
        return known + [os.path.normpath(str(p)) for p in self.scope.project_roots]

    def _labels_of(self, path: str) -> set[str]:
        """What documents of the project at ``path`` may be labelled with.

        Its path, its name and its scope id; and the ``claude:<folder>`` label a
        Claude Code project folder gets until a transcript names its directory
        (the folder name is the path with every other character turned into
        ``-``, so a memory written before the first session is still found).
        """
        from memoir_tui.core.hosts.adapters.guard import claude_slug
        from memoir_tui.core.rules.scope import aliases_of

        if not path:
            return set()
        scope_id = self._scope_id(path)  # and the earlier stamps of the same folder
        return {
            path,
            os.path.basename(path),
            scope_id,
            *aliases_of(scope_id),
            f"claude:{claude_slug(path)}",
        }

    def _current_labels(self) -> frozenset[str]:
        """The values documents of the project a query is asked from carry (none outside
        any project): in any scope, they weigh a little more (``rank.CURRENT_BOOST``)."""
        from memoir_tui.core.rules.scope import is_outside_projects

        if is_outside_projects(self.cwd, home=self.home):
            return frozenset()
        project = self.current_project()
        if self._current is None or self._current[0] != project:
            self._current = (project, frozenset(self._labels_of(project) - {""}))
        return self._current[1]

    def _project_filter(
        self, project: str | os.PathLike[str] | None, all_projects: bool
    ) -> tuple[str, ...] | None:
        if all_projects:
            return None
        if not project:
            from memoir_tui.core.rules.scope import is_outside_projects

            if is_outside_projects(self.cwd, home=self.home):
                return None  # home, / and above: no project, so every one is shown (README)
            return tuple(sorted(self._labels_of(self.current_project()) - {""}))
        from memoir_tui.core.rules.scope import SHARED

        given = os.path.expanduser(str(project))
        if given == SHARED or given.split(":", 1)[0] in ("git", "local", "path", "home"):
            return (given,)  # already a scope id, as session items and memoir's memories carry
        path = os.path.normpath(os.path.abspath(given))
        names = self._labels_of(path)
        if not os.path.isabs(given) and not os.path.isdir(given):
            # a project given by name: entries that say so, and known projects of that name
            names.add(str(project))
            for known in self._known_projects():
                if os.path.basename(known) == project:
                    names.update(self._labels_of(known))  # its path and its scope id
        return tuple(sorted(n for n in names if n))

    # --- queries ---------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        tools: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        project: str | os.PathLike[str] | None = None,
        all_projects: bool = False,
        budget: int = 700,
        refresh: bool = True,
        record: bool = True,
        since: str | None = None,
    ) -> list[Hit]:
        """Ranked passages for ``query``, best first (at most ``limit``, ≤ 100).

        ``refresh=False`` answers from the index as it is, never writing it (another
        thread or process may be building it): documents of files changed since they
        were indexed are left out rather than shown from their stale rows. ``record``
        notes the memory files returned as used (consolidate reads that). ``since``
        (``7d``, ``12h``, ``2026-05-01``) keeps what changed at or after then."""
        cutoff = parse_since(since) if since else None
        return self._guarded(
            self._search, query, limit, tools, types, project, all_projects, budget, refresh,
            record, cutoff,
        )  # fmt: skip

    def count_elsewhere(
        self,
        query: str,
        *,
        tools: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        project: str | os.PathLike[str] | None = None,
        refresh: bool = False,
    ) -> dict[str, int]:
        """Documents matching ``query`` in projects a scoped search leaves out, by project
        label (at most ``MAX_LIMIT`` counted): what a "nothing found here" may add."""
        allowed = set(self._guarded(self._project_filter, project, False) or ())
        everywhere = self.search(
            query, limit=MAX_LIMIT, tools=tools, types=types, all_projects=True, budget=40,
            refresh=refresh, record=False,
        )  # fmt: skip
        out: dict[str, int] = {}
        for h in everywhere:
            if h.project in ("", "shared") or h.project in allowed:
                continue  # global and shared belong to every project
            label = self.project_label(h.project)
            out[label] = out.get(label, 0) + 1
        return out

    @staticmethod
    def project_label(project: str) -> str:
        """A project as a person reads it: the last part of its path, id or folder."""
        from memoir_tui.core.recall.extract import project_words

        return project_words(project).split(" ")[-1] or project

    def _search(
        self,
        query: str,
        limit: int,
        tools: Sequence[str] | None,
        types: Sequence[str] | None,
        project: str | os.PathLike[str] | None,
        all_projects: bool,
        budget: int,
        refresh: bool,
        record: bool = True,
        since: tuple[str, int] | None = None,
    ) -> list[Hit]:
        from memoir_tui.core.recall.rank import Filters, rank
        from memoir_tui.core.recall.text import parse_query, words

        limit = max(1, min(int(limit), MAX_LIMIT))
        terms = parse_query(query)
        # a "why" question asks for reasons: decisions carry them
        prefer = frozenset({"decision"}) if "why" in words(query) else frozenset()
        if refresh:
            self._ensure_fresh()
        if not terms:
            return []
        filters = Filters(
            tools=tuple(tools) if tools else None,
            types=tuple(types) if types else None,
            projects=self._project_filter(project, all_projects),
            since=since,
        )
        current = self._current_labels()
        index = self.index
        watched = self._watcher is not None and self._watcher.healthy
        scored: list | None = None
        stale: set[str] = set()
        for attempt in range(3):
            n_docs, avg_lengths, hidden, _projects = index.stats()
            # every candidate must be current before it is scored, whatever the check above
            # skipped (a watcher reports every change, so it needs no second look)
            check = None
            if refresh and not watched and attempt < 2:

                def check(paths: set[str]) -> bool:
                    return index.recheck(paths, self.scope)

            elif not refresh:

                def check(paths: set[str]) -> bool:
                    stale.update(index.stale_paths(paths))
                    return False

            scored = rank(
                index.conn,
                terms,
                filters=filters,
                limit=limit,
                n_docs=n_docs,
                avg_lengths=avg_lengths,
                hidden=hidden,
                generation=index.generation,
                check=check,
                prefer=prefer,
                current=current,
            )
            if scored is not None:
                break
        assert scored is not None  # the last attempt never checks
        from memoir_tui.core.recall import semantic

        self.weak = bool(scored) and scored[0].coverage < semantic.WEAK_COVERAGE
        if self.weak:
            scored = self._with_concepts(query, scored, filters, hidden, limit, terms)
        now_ms = time.time_ns() // 1_000_000
        shown = (
            self._hit(s.row, s.score, s.why, terms, budget, now_ms)
            for s in scored
            if s.row.path not in stale
        )
        hits = [h for h in shown if h is not None]
        if record:
            self._record(hits)
        return hits

    def _with_concepts(
        self, query: str, scored: list, filters, hidden, limit: int, terms: Sequence = ()
    ) -> list:
        """Weak lexical evidence: the concept ranking interleaved with the lexical one, when
        the extra, its model and the vectors are there; otherwise the lexical list as is.
        A query whose words are mostly unknown to the model and to the index (random
        letters) gets nothing: any string embeds to something, no similarity floor tells."""
        from itertools import zip_longest

        from memoir_tui.core.recall import semantic
        from memoir_tui.core.recall.rank import DOC_COLUMNS, Row, Scored

        if not semantic.available() or not semantic.vectors_path(self.index.path).exists():
            return scored
        try:
            if self.concept_model is None:
                self.concept_model = semantic.load_model(self.cache_dir, fetch=False)
            if self.concept_model is None:
                return scored
            if not self._mostly_known(terms):
                return []
            near = semantic.search(self.index.path, self.concept_model, query)
        except (MemoirError, OSError, ValueError, sqlite3_error()):
            return scored
        where, args = filters.sql()
        concept: list = []
        for path, name, cosine in near:
            r = self.index.conn.execute(
                f"SELECT {DOC_COLUMNS} FROM docs d WHERE d.path = ? AND d.name = ?{where}",
                (path, name, *args),
            ).fetchone()
            if r is None or (r[8] and r[8] in hidden):
                continue
            row = Row(
                r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9]), bool(r[10]),
                r[11], r[12], r[13],
            )  # fmt: skip
            concept.append(Scored(row, cosine, {"concept": []}, 0.0))
        # a concept match needs some similarity: at least half the best one's
        best = max((c.score for c in concept), default=0.0)
        concept = [c for c in concept if c.score > 0 and c.score >= best / 2]
        # interleaved, the concept ranking first: the lexical best stays in the top two
        out: list = []
        seen: set[int] = set()
        for pair in zip_longest(concept, scored):
            for s in pair:
                if s is not None and s.row.id not in seen:
                    seen.add(s.row.id)
                    out.append(s)
        return out[:limit]

    def _mostly_known(self, terms: Sequence) -> bool:
        """At least ``semantic.KNOWN_SHARE`` of the query's words are words the concept
        model holds whole, or words (or project names) the index holds."""
        from memoir_tui.core.recall import semantic

        if not terms:
            return False
        conn = self.index.conn
        known = 0
        for t in terms:
            if self.concept_model.knows(t.word) or any(
                conn.execute(f"SELECT 1 FROM {table} WHERE term = ?", (t.stem,)).fetchone()
                for table in ("vocab", "pvocab")
            ):
                known += 1
        return known >= semantic.KNOWN_SHARE * len(terms)

    def build_concepts(self, *, fetch: bool = True, progress=None) -> tuple[int, int] | None:
        """Embed what changed since the last build (the extra only; off the query path):
        (chunks embedded, chunks reused), or None without the extra."""
        from memoir_tui.core.recall import semantic

        if not semantic.available():
            return None
        model = semantic.load_model(self.cache_dir, fetch=fetch, progress=progress)
        if model is None:
            return None

        import sqlite3

        # its own read-only connection: queries never wait while chunks are embedded
        conn = sqlite3.connect(f"file:{self.index.path}?mode=ro", uri=True, timeout=30)
        try:
            result = semantic.build(conn, self.index.path, model, progress=progress)
        finally:
            conn.close()
        self.concept_model = model
        return result

    def _record(self, hits: Sequence[Hit]) -> None:
        """Note the entry files returned, so consolidate never calls them stale."""
        paths = [h.path for h in hits if h.kind == "memory"]
        if paths:
            from memoir_tui.core.recall.usage import record_recalled

            record_recalled(self.store_root, paths, env=self.env, home=self.home)

    def _hit(self, row: Row, score: float, why, terms, budget: int, now_ms: int) -> Hit | None:
        """The hit for ``row``; None for a file not valid at ``now_ms`` (its ``valid_from``
        still ahead or its ``valid_until`` passed since it was indexed)."""
        from memoir_tui.core.recall.extract import out_of_window
        from memoir_tui.core.recall.passages import extract

        if row.text:
            lines = row.text.splitlines()
            passage = extract(lines, 0, terms, budget)
            spans: tuple[tuple[int, int], ...] = ()
        else:
            from memoir_tui.core.base.fsutil import read_regular
            from memoir_tui.core.hosts.adapters import MAX_FILE_BYTES

            try:
                data = read_regular(row.path, max_bytes=MAX_FILE_BYTES)
                text = data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            if row.markdown and out_of_window(text, now_ms):
                return None
            lines = text.splitlines()
            passage = extract(lines, row.body_line, terms, budget)
            spans = passage.lines
        return Hit(
            path=row.path,
            tool=row.tool,
            type=row.type,
            name=row.name,
            score=score,
            passage=passage.text,
            why=why,
            project=row.project,
            kind=row.kind,
            always_loaded=row.always,
            lines=spans,
            description=row.description,
        )

    def entries(
        self,
        *,
        tools: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        project: str | os.PathLike[str] | None = None,
        all_projects: bool = False,
        refresh: bool = True,
    ) -> list[EntryInfo]:
        """Every indexed document (no bodies), by tool then path — for lists and browsing."""

        def run() -> list[EntryInfo]:
            from memoir_tui.core.recall.rank import Filters

            if refresh:
                self._ensure_fresh()
            filters = Filters(
                tools=tuple(tools) if tools else None,
                types=tuple(types) if types else None,
                projects=self._project_filter(project, all_projects),
            )
            where, args = filters.sql()
            hidden = self.index.stats()[2]
            rows = self.index.conn.execute(
                "SELECT d.path, d.tool, d.type, d.kind, d.name, d.description, d.project, "
                f"d.always, d.updated, d.ident FROM docs d WHERE 1{where} "
                "ORDER BY d.tool, d.path, d.id",
                args,
            ).fetchall()
            return [
                EntryInfo(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8])
                for r in rows
                if not (r[9] and r[9] in hidden)
            ]

        return self._guarded(run)

    def projects(self) -> list[str]:
        """Every project directory known: configured roots, Claude Code's, the store's."""

        def run() -> list[str]:
            if not self._refreshed_once:
                self._ensure_fresh()
            return sorted(set(self._known_projects()))

        return self._guarded(run)

    def read(self, tool: str, path: str | os.PathLike[str]) -> tuple[str, str]:
        """``(absolute path, text)`` of one of ``tool``'s files — only if the walker finds
        that file for that tool (inside its directories, through its file filter, never
        a credentials file or a symlink leading out); else ``PathRefused``."""
        from memoir_tui.core.hosts.adapters.guard import read_file

        found, text = read_file(
            tool,
            path,
            home=self.home,
            env=self.env,
            store_root=self.store_root,
            projects=self.projects(),
        )
        return found.path, text

    def write_target(
        self, tool: str, filename: str, *, project: str | os.PathLike[str] | None = None
    ) -> Path:
        """Where a new memory ``filename`` (a bare ``.md`` slug) for ``tool`` goes; see
        ``adapters.guard.writable_file``. The caller scans for secrets, writes atomically
        and then calls ``notify_changed([path])``."""
        from memoir_tui.core.hosts.adapters.guard import writable_file

        return writable_file(
            tool,
            filename,
            home=self.home,
            env=self.env,
            store_root=self.store_root,
            project=project,
        )

    def status(self) -> IndexStatus:
        def run() -> IndexStatus:
            index = self.index
            exists = index.exists()
            if not exists:
                return IndexStatus(str(index.path), False, 0, 0, 0, None)
            conn = index.conn
            by_tool = dict(
                conn.execute("SELECT tool, count(*) FROM docs GROUP BY tool ORDER BY tool")
            )
            notes = tuple(conn.execute("SELECT path, reason FROM notes ORDER BY path"))
            last = index.get_meta("last_full_check")
            size = sum(
                os.path.getsize(f"{index.path}{s}")
                for s in ("", "-wal")
                if os.path.exists(f"{index.path}{s}")
            )
            return IndexStatus(
                path=str(index.path),
                exists=True,
                files=conn.execute("SELECT count(*) FROM files").fetchone()[0],
                documents=index.doc_count(),
                size_bytes=size,
                last_full_check=float(last) if last else None,
                by_tool=by_tool,
                notes=notes,
                watching=self._watcher is not None and self._watcher.healthy,
            )

        return self._guarded(run)

    def revalidate_detached(self, *, min_interval: float = 10.0) -> bool:
        """Stat every file in a detached child process, if the index is past the size
        up to which queries do that themselves and the last full check is older than
        ``min_interval`` seconds. For a short-lived process (the CLI) to call after it
        has answered: the answer is not delayed, and the next query sees in-place
        edits the directory check cannot. POSIX only; returns whether a child started.
        """
        import threading as _threading

        if not hasattr(os, "fork") or self._watcher is not None or _threading.active_count() > 1:
            return False  # forking a process with other threads is not safe
        from memoir_tui.core.recall import keeper

        with self._lock:
            index = self.index
            try:
                if index.file_count() <= index.full_check_files:
                    return False
                if keeper.alive(index.path):
                    return False  # it journals every write and checked every file once
                watch = keeper.can_watch()
                last = float(index.get_meta("last_full_check", "0") or 0)
                if not watch and time.time() - last < min_interval:
                    return False
                dirs = self._watched_dirs()
            except Exception:
                return False
            index.close()
            import sys

            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            pid = os.fork()
            if pid:
                return True
            # the child: no terminal, no pipe held open, lowest priority; never returns
            code = 0
            try:
                os.setsid()
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                with contextlib.suppress(OSError):
                    os.nice(10)

                def check() -> None:
                    self.index.refresh(self.scope, full=True)

                def directories() -> list[str]:
                    try:
                        return self._watched_dirs()
                    except Exception:
                        return dirs

                code = keeper.run(self.index.path, directories, check) if watch else 0
                if not watch:
                    check()
            except BaseException:
                code = 1
            finally:
                os._exit(code)

    # --- watching -------------------------------------------------------------------------

    def _watched_dirs(self) -> list[str]:
        rows = self.index.conn.execute("SELECT DISTINCT path FROM dirs").fetchall()
        return [r[0] for r in rows] + [str(self.store_root)]

    def watch(self) -> bool:
        """Start an inotify watcher (Linux); False where none is available.

        While it runs, a search applies the events it collected instead of
        stat-ing directories and files.
        """
        with self._lock:
            if self._watcher is not None:
                return self._watcher.healthy
            from memoir_tui.core.recall.watch import Watcher

            watcher = Watcher.create()
            if watcher is None:
                return False
            self._guarded(self._refresh, None)
            watcher.sync(self._watched_dirs())
            self._watcher = watcher
            return True

    def apply_pending(self) -> bool:
        """Apply what the watcher collected now, not at the next query. A long-lived
        process calls this in the background, so the index on disk is current for every
        other reader of it too: a CLI recall then sees an in-place edit at any store
        size while a server watches. True if there was something to apply."""
        watcher = self._watcher
        if watcher is None or not watcher.healthy or not watcher.pending():
            return False
        self._guarded(self._ensure_fresh)
        return True

    def stop_watching(self) -> None:
        with self._lock:
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
