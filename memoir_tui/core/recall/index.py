"""The recall index: a derived SQLite FTS5 cache of every host tool's memory files.

The files are the truth; this database only saves re-reading them. It lives in
the user cache directory, one file per (store, home), and can be deleted at any
time: the next query rebuilds it. A corrupt file (``sqlite3.DatabaseError``) is
removed and rebuilt the same way.

Freshness is checked on every query, cheaply:

- **directories**: every directory whose listing shaped a source's files is
  stat'ed; a changed mtime (a file created, deleted or atomically replaced)
  walks that source again, and only files whose inode, mtime or size changed
  are read;
- **files**: every indexed file is stat'ed (path + mtime + size + inode) — done
  on every query while the index holds at most ``full_check_files`` files
  (``[recall] full_check_files``, default 20,000), and always by
  ``refresh(full=True)`` (``memoir-tui index``). One ``stat`` costs 2–8 µs here
  (30–100 ms per query at 10k files on a loaded machine), so an in-place edit of
  any file is seen by the very next query up to that size. Above it, a query
  relies on directory mtimes plus a stat of every *candidate* the first stage
  found, before scoring (``recheck``): no answer is scored from a stale row; the
  CLI then re-checks every file in a detached child after answering, and a
  long-lived process uses a watcher.

Writes use WAL and a busy timeout, in short transactions of a few hundred
files, so two processes (the CLI and an MCP server) can refresh at once.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memoir_tui.core.base.cachedir import cache_dir
from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.filestamp import FileStamp, file_stamp
from memoir_tui.core.base.fsutil import open_regular, private_dir, private_file
from memoir_tui.core.hosts.adapters import MAX_FILE_BYTES
from memoir_tui.core.hosts.adapters.walk import (
    FoundFile,
    Project,
    Source,
    WalkResult,
    claude_project_cwd,
    sources,
    walk_source,
)
from memoir_tui.core.recall.extract import FIELDS, N_FIELDS, Doc
from memoir_tui.core.recall.text import camel_parts, index_text

SCHEMA_VERSION = 6  # 6: the project's words apart from the text (pfts)
SESSION_SOURCE = "session"
BATCH = 400
DEFAULT_FULL_CHECK_FILES = 20_000


_GENERATIONS = itertools.count(1)
_LENGTHS = ", ".join(f"l{i}" for i in range(N_FIELDS))  # the docs columns of field lengths
_ZERO_TOTALS = json.dumps([0] * N_FIELDS)


class IndexBusyError(MemoirError):
    """Another process holds the index's write lock for too long."""


def index_path(store_root: Path, home: Path, directory: Path, scope: Scope | None = None) -> Path:
    """One database per store, home and scope (tool directories, tools, project roots).

    Two processes that would index different files (say, an MCP server started with
    another ``CODEX_HOME``) get different databases instead of undoing each other.
    """
    import zlib  # hashlib would load OpenSSL: ~5 ms on a query path that needs 64 bits

    parts = [os.path.realpath(store_root), os.path.realpath(home)]
    if scope is not None:
        from memoir_tui.core.hosts.adapters import ADAPTERS

        for adapter in ADAPTERS:
            parts += [str(d) for d in adapter.global_dirs(scope.home, scope.env, store_root)]
        parts.append(",".join(scope.tools) if scope.tools is not None else "*")
        parts += [os.path.normpath(str(p)) for p in scope.project_roots]
    key = "\0".join(parts).encode("utf-8", "surrogatepass")
    digest = f"{zlib.crc32(key):08x}{zlib.adler32(key[::-1]):08x}"
    return directory / f"recall-{digest}.sqlite3"


@dataclass(frozen=True, slots=True)
class Scope:
    """What to index: whose home, which store, which tools, which project roots."""

    home: Path
    env: Mapping[str, str]
    store_root: Path
    tools: tuple[str, ...] | None = None
    project_roots: tuple[Path, ...] = ()
    # the project the index was used from (the working directory's, an MCP client's
    # roots): indexed with its own files on first use, and remembered (not in the key)
    here: tuple[Path, ...] = ()


@dataclass(slots=True)
class RefreshReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    sources_walked: int = 0
    full: bool = False
    seconds: float = 0.0
    notes: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.removed


_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    path TEXT PRIMARY KEY, source TEXT NOT NULL, tool TEXT NOT NULL, kind TEXT NOT NULL,
    project TEXT NOT NULL, always INTEGER NOT NULL, markdown INTEGER NOT NULL,
    ino INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX files_source ON files(source);
CREATE TABLE dirs(
    source TEXT NOT NULL, path TEXT NOT NULL, mtime_ns INTEGER NOT NULL,
    PRIMARY KEY(source, path)
) WITHOUT ROWID;
CREATE TABLE docs(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, tool TEXT NOT NULL, type TEXT NOT NULL,
    kind TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL, project TEXT NOT NULL,
    ident TEXT NOT NULL, always INTEGER NOT NULL, markdown INTEGER NOT NULL,
    body_line INTEGER NOT NULL, text TEXT NOT NULL, updated TEXT NOT NULL,
    l0 INTEGER NOT NULL, l1 INTEGER NOT NULL, l2 INTEGER NOT NULL, l3 INTEGER NOT NULL,
    l4 INTEGER NOT NULL, l5 INTEGER NOT NULL
);
CREATE INDEX docs_path ON docs(path);
CREATE INDEX docs_tool_project ON docs(tool, project);
CREATE TABLE notes(path TEXT PRIMARY KEY, source TEXT NOT NULL, reason TEXT NOT NULL)
    WITHOUT ROWID;
CREATE TABLE claude_projects(dir TEXT PRIMARY KEY, cwd TEXT) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts USING fts5(
    aliases, name, description, headings, body, rationale,
    tokenize = "unicode61 remove_diacritics 0", detail = column
);
CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, row);
CREATE VIRTUAL TABLE pfts USING fts5(
    words, tokenize = "unicode61 remove_diacritics 0", detail = none
);
CREATE VIRTUAL TABLE pvocab USING fts5vocab(pfts, row);
"""


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


class RecallIndex:
    """One SQLite file; every method may raise ``sqlite3.DatabaseError`` (callers rebuild)."""

    def __init__(self, path: Path, *, full_check_files: int = DEFAULT_FULL_CHECK_FILES) -> None:
        self.path = Path(path)
        self.full_check_files = full_check_files
        self._conn: sqlite3.Connection | None = None
        self._pending = [0] * (N_FIELDS + 1)  # documents, then field lengths, not yet in meta
        self._writes = 0  # commits by this connection
        self._stats_key: tuple[int, int] | None = None
        self._generation = next(_GENERATIONS)
        self._stats: tuple[int, tuple[float, ...], frozenset[str], tuple[str, ...]] | None = None
        self._opened_ino: int | None = None

    # --- connection ---------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
            with contextlib.suppress(OSError):
                self._opened_ino = os.stat(self.path).st_ino
        return self._conn

    def _reopen_if_replaced(self) -> None:
        """A database removed under an open connection (a purge drops every index) is let
        go of, so this process rebuilds it too instead of answering from the old file."""
        if self._conn is None:
            return
        try:
            ino = os.stat(self.path).st_ino
        except OSError:
            ino = None
        if ino != self._opened_ino:
            self.close()

    def _open(self) -> sqlite3.Connection:
        # The index holds entry text: 0600 in a 0700 folder (SQLite gives its -wal and
        # -shm files the database's own mode). Never through a link out of the user's
        # cache folder (the folder or the database planted as a link elsewhere).
        from memoir_tui.core.base.safeio import write_target

        write_target(self.path, within=self.path.parent.parent)
        private_dir(self.path.parent, tighten=True)
        write_target(self.path, within=self.path.parent.parent)
        private_file(self.path)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(f"{self.path}{suffix}"):
                private_file(f"{self.path}{suffix}")
        conn = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("PRAGMA busy_timeout = 10000")
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                self._create(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.execute("PRAGMA cache_size = -16000")
        except BaseException:
            conn.close()
            raise
        return conn

    def _create(self, conn: sqlite3.Connection) -> None:
        """Create (or replace an older) schema, all under the write lock.

        Never deletes the file: another process may be creating the same database
        at the same moment, and whoever takes the lock second finds it done.
        """
        for _attempt in range(100):
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                break
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise
                time.sleep(0.05)
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                # virtual tables take their shadow tables along
                for name in ("vocab", "fts", "pvocab", "pfts"):
                    conn.execute(f"DROP TABLE IF EXISTS {name}")
                leftovers = conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%'"
                ).fetchall()
                for (name,) in leftovers:
                    conn.execute(f'DROP TABLE IF EXISTS "{name}"')
                for statement in _SCHEMA.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._stats = None  # data_version is per connection: start over

    def destroy(self) -> None:
        """Remove the database (a rebuild starts from nothing)."""
        self.close()
        self._delete_files()
        self._pending = [0] * (N_FIELDS + 1)
        self._stats = None

    def exists(self) -> bool:
        return self.path.exists()

    # --- meta -------------------------------------------------------------------------

    def get_meta(self, key: str, default: str = "") -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def _set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def stats(self) -> tuple[int, tuple[float, ...], frozenset[str], tuple[str, ...]]:
        """(documents, average field lengths, hidden decision keys, known projects).

        Cached until this connection or another process commits (``data_version``),
        so a warm query reads no meta rows; a decision hidden elsewhere is seen at once.
        """
        version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        key = (version, self._writes)
        if self._stats is None or self._stats_key != key:
            self._generation = next(_GENERATIONS)
            self._stats = (
                self.doc_count(),
                self.avg_lengths(),
                self.hidden_keys(),
                tuple(self.projects()),
            )
            self._stats_key = key
        return self._stats

    @property
    def generation(self) -> int:
        """A number, unique in this process, that changes whenever ``stats()`` sees a change."""
        return self._generation

    def file_count(self) -> int:
        return int(self.get_meta("n_files", "0") or 0)

    def doc_count(self) -> int:
        return int(self.get_meta("n_docs", "0") or 0)

    def projects(self) -> list[str]:
        """Every project directory the last refresh knew (configured, Claude Code's, the store's)."""
        try:
            return list(json.loads(self.get_meta("projects", "[]")))
        except ValueError:
            return []

    def hidden_keys(self) -> frozenset[str]:
        raw = self.get_meta("hidden", "[]")
        try:
            return frozenset(json.loads(raw))
        except ValueError:
            return frozenset()

    def avg_lengths(self) -> tuple[float, ...]:
        n = max(self.doc_count(), 1)
        totals = json.loads(self.get_meta("len_totals", _ZERO_TOTALS))
        return tuple(max(t / n, 1.0) for t in totals)

    # --- refresh ----------------------------------------------------------------------

    def refresh(self, scope: Scope, *, full: bool | None = None) -> RefreshReport:
        """Bring the index up to date with the files; ``full=None`` decides by size."""
        started = time.perf_counter()
        self._reopen_if_replaced()
        if full is None:
            full = self.file_count() <= self.full_check_files
        report = RefreshReport(full=full)
        conn = self.conn
        cached_cwds = dict(conn.execute("SELECT dir, cwd FROM claude_projects").fetchall())

        def lookup(directory: str) -> str | None:
            if cached_cwds.get(directory):
                return cached_cwds[directory]
            cwd = claude_project_cwd(directory)
            cached_cwds[directory] = cwd
            return cwd

        projects = [Project(os.path.normpath(str(p)), "config") for p in scope.project_roots]
        projects += [Project(p, "cwd") for p in self._here_projects(scope)]
        store_projects = self._store_projects()
        all_keys: set[str] = set()
        found_projects: list[Project] = []
        for _round in range(3):
            srcs, found_projects, discovery = sources(
                scope.home,
                scope.env,
                store_root=scope.store_root,
                tools=scope.tools,
                projects=projects + [Project(p, "store") for p in store_projects],
                cwd_lookup=lookup,
            )
            self._save_cwds(discovery.claude_projects)
            current = {s.key: s for s in srcs}
            all_keys = set(current)
            dirty = self._dirty_sources(current)
            for key in dirty:
                stored = self._stored(key)
                known = {path: row[0] for path, row in stored.items()}
                result = walk_source(current[key], known) if key in current else WalkResult()
                self._apply_walk(key, current.get(key), result, report, stored)
                report.sources_walked += 1
            new_store_projects = self._store_projects()
            if new_store_projects == store_projects:
                break
            store_projects = new_store_projects
        known = json.dumps(sorted({p.path for p in found_projects}))
        if self.get_meta("projects") != known:
            self._set_meta_tx("projects", known)
        self._refresh_session(scope.store_root / "session.json", report)
        if full:
            self._full_check(all_keys, report)
        if report.changed or not self.get_meta("n_files"):
            self._set_count_meta()
        if full:
            # a small index is fully checked on every query: record it now and then only,
            # so a query that found nothing to change writes nothing
            now = time.time()
            if report.changed or now - float(self.get_meta("last_full_check", "0") or 0) > 5:
                self._set_meta_tx("last_full_check", str(now))
        report.seconds = time.perf_counter() - started
        return report

    def _set_meta_tx(self, key: str, value: str) -> None:
        with self._tx():
            self._set_meta(key, value)

    def _here_projects(self, scope: Scope) -> list[str]:
        """Every project the index was used from, this one included (kept in meta, so a
        project stays indexed once used; a folder that is gone drops out)."""
        try:
            seen = json.loads(self.get_meta("here_projects", "[]"))
        except ValueError:
            seen = []
        wanted = {p for p in seen if isinstance(p, str)}
        wanted |= {os.path.normpath(str(p)) for p in scope.here}
        kept = sorted(p for p in wanted if os.path.isdir(p))
        if kept != seen:
            self._set_meta_tx("here_projects", json.dumps(kept))
        return kept

    def _store_projects(self) -> list[str]:
        rows = self.conn.execute(
            "SELECT DISTINCT project FROM docs WHERE tool = 'memoir' AND project LIKE '/%'"
        ).fetchall()
        return sorted(r[0] for r in rows)

    def _save_cwds(self, found: Mapping[str, str | None]) -> None:
        if not found:
            return
        stored = dict(self.conn.execute("SELECT dir, cwd FROM claude_projects").fetchall())
        if all(stored.get(k, "\0") == v for k, v in found.items()):
            return
        with self._tx():
            self.conn.executemany(
                "INSERT OR REPLACE INTO claude_projects(dir, cwd) VALUES (?, ?)",
                [(k, v) for k, v in found.items() if stored.get(k, "\0") != v],
            )

    def _dirty_sources(self, current: Mapping[str, Source]) -> list[str]:
        stored: dict[str, dict[str, int]] = {}
        for source, path, mtime in self.conn.execute("SELECT source, path, mtime_ns FROM dirs"):
            stored.setdefault(source, {})[path] = mtime
        dirty = [k for k in current if k not in stored]
        dirty += [k for k in stored if k not in current]
        stat_cache: dict[str, int] = {}
        for key, dirs in stored.items():
            if key not in current:
                continue
            for path, mtime in dirs.items():
                now = stat_cache.get(path)
                if now is None:
                    try:
                        now = os.stat(path).st_mtime_ns
                    except OSError:
                        now = 0
                    stat_cache[path] = now
                if now != mtime:
                    dirty.append(key)
                    break
        return dirty

    def _stored(self, key: str) -> dict[str, tuple[int, int, int]]:
        """A source's indexed files: path → (inode, mtime_ns, size)."""
        return {
            row[0]: row[1:]
            for row in self.conn.execute(
                "SELECT path, ino, mtime_ns, size FROM files WHERE source = ?", (key,)
            )
        }

    def _apply_walk(
        self,
        key: str,
        source: Source | None,
        result: WalkResult,
        report: RefreshReport,
        stored: Mapping[str, tuple[int, int, int]],
    ) -> None:
        conn = self.conn
        owned_elsewhere = set()
        if result.files:
            paths = [f.path for f in result.files if f.path not in stored]
            for chunk in _chunks(paths, 500):
                marks = ",".join("?" * len(chunk))
                owned_elsewhere.update(
                    r[0]
                    for r in conn.execute(
                        f"SELECT path FROM files WHERE path IN ({marks}) AND source != ?",
                        (*chunk, key),
                    )
                )
        todo: list[tuple[FoundFile, tuple[int, int, int]]] = []
        seen: set[str] = set(result.unchanged)
        report.unchanged += len(result.unchanged)
        for found in result.files:
            if found.path in owned_elsewhere:
                continue
            seen.add(found.path)
            old = stored.get(found.path)
            if old is not None and found.stat is None and old[0] == found.ino:
                report.unchanged += 1
                continue
            now: FileStamp | None
            if found.stat is not None:
                now = FileStamp(found.ino, found.stat[0], found.stat[1])
            else:
                now = file_stamp(found.path)
            if now is None:
                continue
            if old is not None and tuple(old) == now:
                report.unchanged += 1
                continue
            todo.append((found, now))
        gone = [p for p in stored if p not in seen]
        project = source.project if source else ""
        self._write(key, project, todo, gone, report, result=result)

    def _write(
        self,
        key: str,
        project: str,
        todo: Sequence[tuple[FoundFile, tuple[int, int, int]]],
        gone: Sequence[str],
        report: RefreshReport,
        *,
        result: WalkResult | None = None,
    ) -> None:
        """Read, extract and store ``todo``; drop ``gone``; then record the source's dirs.

        The directory records go last, in their own transaction: they say "this source
        is indexed as of these mtimes", so another process must not see them before
        the files they vouch for (it would skip the walk and find nothing).
        """
        conn = self.conn
        if gone:
            with self._tx():
                for path in gone:
                    self._drop_path(path)
                    conn.execute("DELETE FROM files WHERE path = ?", (path,))
                    conn.execute("DELETE FROM notes WHERE path = ?", (path,))
                    report.removed += 1
        for chunk in _chunks(list(todo), BATCH):
            prepared = [(found, now, *self._extract(found, now, project)) for found, now in chunk]
            with self._tx():
                for found, now, docs, note in prepared:
                    existed = self._drop_path(found.path)
                    had_row = conn.execute(
                        "SELECT 1 FROM files WHERE path = ?", (found.path,)
                    ).fetchone()
                    conn.execute(
                        "INSERT OR REPLACE INTO files(path, source, tool, kind, project, always, "
                        "markdown, ino, mtime_ns, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            found.path, key, found.tool, found.kind, project,
                            int(found.always_loaded), int(found.markdown), *now,
                        ),
                    )  # fmt: skip
                    conn.execute("DELETE FROM notes WHERE path = ?", (found.path,))
                    if note:
                        conn.execute(
                            "INSERT INTO notes(path, source, reason) VALUES (?, ?, ?)",
                            (found.path, key, note),
                        )
                        report.notes.append((found.path, note))
                    self._insert_docs(docs)
                    if had_row or existed:
                        report.updated += 1
                    else:
                        report.added += 1
        if result is not None:
            with self._tx():
                conn.execute("DELETE FROM dirs WHERE source = ?", (key,))
                conn.executemany(
                    "INSERT OR REPLACE INTO dirs(source, path, mtime_ns) VALUES (?, ?, ?)",
                    [(key, p, m) for p, m in result.dirs.items()],
                )
                conn.execute(
                    "DELETE FROM notes WHERE source = ? AND reason LIKE 'symlink%'", (key,)
                )
                for path, reason in result.notes:
                    conn.execute(
                        "INSERT OR REPLACE INTO notes(path, source, reason) VALUES (?, ?, ?)",
                        (path, key, reason),
                    )
                    report.notes.append((path, reason))

    @staticmethod
    def _extract(
        found: FoundFile, now: tuple[int, int, int], project: str
    ) -> tuple[list[Doc], str]:
        from memoir_tui.core.recall.extract import doc_from_text

        size = now[2]
        if size > MAX_FILE_BYTES:
            return [], f"larger than {MAX_FILE_BYTES // 1024} KB; skipped"
        try:
            with open_regular(found.path) as fh:  # never a FIFO or device put there since
                raw = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            return [], f"cannot be read ({exc.strerror})"
        if len(raw) > MAX_FILE_BYTES:
            return [], f"larger than {MAX_FILE_BYTES // 1024} KB; skipped"
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return [], "not UTF-8 text; skipped"
        doc = doc_from_text(
            found.path,
            text,
            tool=found.tool,
            kind=found.kind,
            project=project,
            always_loaded=found.always_loaded,
            markdown=found.markdown,
        )
        return ([doc] if doc is not None else []), ""

    def _drop_path(self, path: str) -> bool:
        conn = self.conn
        rows = conn.execute(f"SELECT id, {_LENGTHS} FROM docs WHERE path = ?", (path,)).fetchall()
        if not rows:
            return False
        ids = [(r[0],) for r in rows]
        conn.executemany("DELETE FROM fts WHERE rowid = ?", ids)
        conn.executemany("DELETE FROM pfts WHERE rowid = ?", ids)
        conn.executemany("DELETE FROM docs WHERE id = ?", ids)
        self._pending[0] -= len(rows)
        for i in range(1, N_FIELDS + 1):
            self._pending[i] -= sum(r[i] for r in rows)
        return True

    def _insert_docs(self, docs: Iterable[Doc]) -> None:
        conn = self.conn
        pending = self._pending
        for doc in docs:
            texts = doc.field_texts()
            fields = [index_text(t) for t in texts]
            parts = " ".join(filter(None, (camel_parts(t) for t in texts)))
            if parts:  # camelCase parts count as body words (index 4)
                fields[4] = f"{fields[4]} {parts}" if fields[4] else parts
            ls = [f.count(" ") + 1 if f else 0 for f in fields]
            cur = conn.execute(
                "INSERT INTO docs(path, tool, type, kind, name, description, project, ident, "
                f"always, markdown, body_line, text, updated, {_LENGTHS}) "
                f"VALUES ({', '.join('?' * (13 + N_FIELDS))})",
                (
                    doc.path, doc.tool, doc.type, doc.kind, doc.name, doc.description,
                    doc.project, doc.ident, int(doc.always_loaded), int(doc.markdown),
                    doc.body_line, doc.text, doc.updated, *ls,
                ),
            )  # fmt: skip
            conn.execute(
                f"INSERT INTO fts(rowid, {', '.join(FIELDS)}) "
                f"VALUES ({', '.join('?' * (1 + N_FIELDS))})",
                (cur.lastrowid, *fields),
            )
            project = index_text(doc.project_terms())
            if project:
                conn.execute(
                    "INSERT INTO pfts(rowid, words) VALUES (?, ?)", (cur.lastrowid, project)
                )
            pending[0] += 1
            for i in range(N_FIELDS):
                pending[i + 1] += ls[i]

    def _flush_totals(self) -> None:
        """Inside the transaction: fold the pending document and length deltas into meta."""
        pending = self._pending
        if not any(pending):
            return
        totals = json.loads(self.get_meta("len_totals", _ZERO_TOTALS))
        totals = [max(0, a + b) for a, b in zip(totals, pending[1:], strict=True)]
        self._set_meta("len_totals", json.dumps(totals))
        self._set_meta("n_docs", str(max(0, self.doc_count() + pending[0])))
        self._pending = [0] * (N_FIELDS + 1)

    def _refresh_session(self, session_path: Path, report: RefreshReport) -> None:
        path = str(session_path)
        now = file_stamp(path)
        row = self.conn.execute(
            "SELECT ino, mtime_ns, size FROM files WHERE path = ?", (path,)
        ).fetchone()
        if now is None:
            if row is not None:
                with self._tx():
                    self._drop_path(path)
                    self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
                    self._set_meta("hidden", "[]")
                report.removed += 1
            return
        if row is not None and tuple(row) == now:
            return
        from memoir_tui.core.recall.extract import session_docs

        try:
            docs, hidden = session_docs(session_path)
        except (OSError, ValueError, MemoirError):
            docs, hidden = [], set()
        with self._tx():
            self._drop_path(path)
            self.conn.execute(
                "INSERT OR REPLACE INTO files(path, source, tool, kind, project, always, "
                "markdown, ino, mtime_ns, size) VALUES (?, ?, 'memoir', 'session', '', 0, 0, "
                "?, ?, ?)",
                (path, SESSION_SOURCE, *now),
            )
            self._insert_docs(docs)
            self._set_meta("hidden", json.dumps(sorted(hidden)))
        report.updated += 1

    def _full_check(self, live_sources: set[str], report: RefreshReport) -> None:
        conn = self.conn
        rows = conn.execute(
            "SELECT path, ino, mtime_ns, size FROM files WHERE source != ?", (SESSION_SOURCE,)
        ).fetchall()
        changed: dict[str, tuple[int, int, int]] = {}
        gone: list[str] = []
        for path, ino, mtime, size in rows:
            _compare_stamp(path, (ino, mtime, size), changed, gone)
        if changed or gone:
            self._apply_paths(changed, gone, report)

    def _apply_paths(
        self,
        changed: Mapping[str, tuple[int, int, int]],
        gone: Sequence[str],
        report: RefreshReport,
    ) -> None:
        """Re-read ``changed`` files (known to the index) and drop ``gone`` ones, by source."""
        wanted = [*changed, *gone]
        details: dict[str, tuple] = {}
        for chunk in _chunks(wanted, 500):
            marks = ",".join("?" * len(chunk))
            for row in self.conn.execute(
                "SELECT path, source, tool, kind, project, always, markdown FROM files "
                f"WHERE path IN ({marks})",
                chunk,
            ):
                details[row[0]] = row[1:]
        todo: dict[tuple[str, str], list[tuple[FoundFile, tuple[int, int, int]]]] = {}
        for path, now in changed.items():
            if path not in details:
                continue
            source, tool, kind, project, always, markdown = details[path]
            found = FoundFile(path, tool, kind, bool(always), bool(markdown), now[0])
            todo.setdefault((source, project), []).append((found, now))
        for (source, project), items in todo.items():
            self._write(source, project, items, [], report)
        by_source: dict[str, list[str]] = {}
        for path in gone:
            if path in details:
                by_source.setdefault(details[path][0], []).append(path)
        for source, paths in by_source.items():
            self._write(source, "", [], paths, report)

    def _set_count_meta(self) -> None:
        n = self.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        with self._tx():
            self._set_meta("n_files", str(n))

    def stale_paths(self, paths: Iterable[str]) -> set[str]:
        """Which of these indexed files changed (or went) since they were read; reads only."""
        out: set[str] = set()
        paths = sorted(set(paths))
        for chunk in _chunks(paths, 500):
            marks = ",".join("?" * len(chunk))
            for path, ino, mtime, size in self.conn.execute(
                f"SELECT path, ino, mtime_ns, size FROM files WHERE path IN ({marks})", chunk
            ):
                if file_stamp(path) != (ino, mtime, size):
                    out.add(path)
        return out

    def recheck(self, paths: Iterable[str], scope: Scope) -> bool:
        """Stat these files (about to be returned); re-index any that changed. True if any did."""
        paths = sorted(set(paths))
        if not paths:
            return False
        report = RefreshReport()
        changed: dict[str, tuple[int, int, int]] = {}
        gone: list[str] = []
        for chunk in _chunks(paths, 500):
            marks = ",".join("?" * len(chunk))
            for path, source, ino, mtime, size in self.conn.execute(
                f"SELECT path, source, ino, mtime_ns, size FROM files WHERE path IN ({marks})",
                chunk,
            ):
                if source == SESSION_SOURCE:
                    self._refresh_session(Path(path), report)
                    continue
                _compare_stamp(path, (ino, mtime, size), changed, gone)
        if changed or gone:
            self._apply_paths(changed, gone, report)
        return report.changed > 0

    # --- transactions -------------------------------------------------------------------

    def _tx(self) -> _Tx:
        return _Tx(self)


class _Tx:
    def __init__(self, index: RecallIndex) -> None:
        self.index = index
        self.conn = index.conn
        self.nested = False

    def __enter__(self) -> sqlite3.Connection:
        if self.conn.in_transaction:
            self.nested = True
            return self.conn
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise IndexBusyError(
                    "the recall index is busy (another process is writing it); try again"
                ) from None
            raise
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.nested:
            return
        if exc_type is None:
            self.index._flush_totals()
            self.conn.execute("COMMIT")
            self.index._writes += 1
        else:
            self.index._pending = [0] * (N_FIELDS + 1)
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")


def _compare_stamp(
    path: str,
    recorded: tuple[int, int, int],
    changed: dict[str, tuple[int, int, int]],
    gone: list[str],
) -> None:
    """Sort an indexed file by its stamp now against the one recorded when it was read:
    gone, changed (with its new stamp), or as it was (left out)."""
    now = file_stamp(path)
    if now is None:
        gone.append(path)
    elif now != recorded:
        changed[path] = now


def _chunks(items: list, size: int) -> Iterable[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


__all__ = [
    "FIELDS",
    "IndexBusyError",
    "RecallIndex",
    "RefreshReport",
    "Scope",
    "cache_dir",
    "index_path",
]
