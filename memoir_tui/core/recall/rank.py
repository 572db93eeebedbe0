"""Ranking: FTS5 finds candidates, a small BM25F re-ranker in Python orders them.

Score of a document for query terms t (stems; some also match as prefixes):

- per field f (aliases, name, description, headings, body, rationale) with
  weight w_f, tf_f = occurrences normalised by field length (``B``); the weighted sum
  saturates as tf / (tf + k1);
- the project is no text field. A query word that names a project (a word of its label or
  of the last part of its path or id, kept apart in ``pfts``) counts for that project's
  documents as if written once in a field of weight ``PROJECT_WEIGHT``, at the IDF the
  *text* gives the word: a name few notes write is distinguishing, one most notes write
  (``api``) is not, however many notes the project holds. A word only a project's name
  holds counts at the IDF of the project's share of the documents;
- the current project (the one a query is asked from) weighs ``CURRENT_BOOST`` more;
- a term that may match as a prefix is scored by the better of two readings: the
  word itself (its exact occurrences, plus ``PREFIX_DISCOUNT`` × the longer words, at
  the exact stem's IDF) and its family (every word it begins, undiscounted, at the
  family's IDF). When the family is mostly longer words (``ABBREVIATION``: the query
  word abbreviates them, like ``env`` or ``repo``) only the family reading counts, so a
  rare literal fragment (``ops-env-sync``) cannot outrank the word the query means;
- the sum over terms is multiplied by a coverage factor, the IDF-weighted share
  of query terms the document matches, squared — a document that matches all
  terms beats one that repeats one term;
- non-markdown files (``.cursorrules``, ``.rules`` …) are discounted.

``bm25_baseline`` is the plain comparison the evaluation uses: FTS5 BM25 over
one unweighted field set, without folding, prefixes or coverage.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from memoir_tui.core.recall.extract import FIELDS, N_FIELDS
from memoir_tui.core.recall.text import QueryTerm, fold

# aliases, name, description, headings, body, rationale
FIELD_WEIGHTS = (8.0, 5.0, 3.0, 2.0, 1.0, 1.0)
FIELD_B = (0.3, 0.3, 0.5, 0.5, 0.75, 0.3)
PROJECT_WEIGHT = 1.5  # a query word naming a document's project: once, at this weight
CURRENT_BOOST = 1.05  # a document of the project the query is asked from
K1 = 1.2
PREFIX_DISCOUNT = 0.5
ABBREVIATION = 3  # the family holds this many times the exact word's documents: an abbreviation
LITERAL_SHARE = 0.8  # an abbreviation's exact occurrences (a fragment: ops-env-sync) count this
NON_MARKDOWN = 0.8
COVERAGE_FLOOR = 0.2
CANDIDATES = 60
COMMON_SHARE = 0.08  # a term in more documents than this counts only in names, aliases …
COMMON_MIN = 400
PROXIMITY = 0.3  # full credit when every pair of neighbouring query words stands together
PREFER = 2.0  # a "why" question: decisions (they carry the reasons) weigh this much more
SPLIT_MIN = 3  # a joined query word splits into parts of at least this many letters

DOC_COLUMNS = (
    "d.id, d.path, d.tool, d.type, d.kind, d.name, d.description, d.project, d.ident, "
    "d.always, d.markdown, d.body_line, d.text, d.updated, "
    + ", ".join(f"d.l{i}" for i in range(N_FIELDS))
)
_LEN_AT = 14  # where the field lengths start in a DOC_COLUMNS row, then the field texts


@dataclass(frozen=True, slots=True)
class Row:
    id: int
    path: str
    tool: str
    type: str
    kind: str
    name: str
    description: str
    project: str
    ident: str
    always: bool
    markdown: bool
    body_line: int
    text: str
    updated: str


@dataclass(frozen=True, slots=True)
class Scored:
    row: Row
    score: float
    why: dict[str, list[str]]  # field → query words matched ("auth*": as a prefix)
    coverage: float = 1.0  # the IDF-weighted share of the query's terms it matched


@dataclass(frozen=True, slots=True)
class Filters:
    tools: tuple[str, ...] | None = None
    types: tuple[str, ...] | None = None
    projects: tuple[str, ...] | None = None  # None = every project; else these, global, shared
    # changed at or after: (UTC "YYYY-MM-DDTHH:MM:SS", the same in ns since the epoch); an
    # item's own date when it has one, else its file's modification time
    since: tuple[str, int] | None = None

    def sql(self) -> tuple[str, list]:
        clauses: list[str] = []
        args: list = []
        if self.since is not None:
            clauses.append(
                "(CASE WHEN d.updated = '' THEN d.path IN "
                "(SELECT f.path FROM files f WHERE f.mtime_ns >= ?) "
                "WHEN length(d.updated) = 10 THEN d.updated || 'T23:59:59' >= ? "
                "ELSE d.updated >= ? END)"
            )
            args += [self.since[1], self.since[0], self.since[0]]
        if self.tools is not None:
            clauses.append(f"d.tool IN ({','.join('?' * len(self.tools))})")
            args += self.tools
        if self.types is not None:
            clauses.append(f"d.type IN ({','.join('?' * len(self.types))})")
            args += self.types
        if self.projects is not None:
            # no project, or "shared", belongs to every project (FORMAT-LATEST §10)
            marks = ",".join("?" * len(self.projects))
            clauses.append(
                f"(d.project IN ('', 'shared') OR d.project IN ({marks}))"
                if marks
                else "d.project IN ('', 'shared')"
            )
            args += self.projects
        return (" AND " + " AND ".join(clauses)) if clauses else "", args


def fts_query(terms: Sequence[QueryTerm], op: str) -> str:
    return f" {op} ".join(t.fts() for t in terms)


def _idf(df: int, n: int) -> float:
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


_DF_CACHE: dict[tuple[int, str, bool], tuple[int, int]] = {}


def _df(conn: sqlite3.Connection, term: QueryTerm, n: int, generation: int = -1) -> tuple[int, int]:
    """(documents with the exact stem, with the stem as a prefix), cached per index generation."""
    if generation >= 0:
        key = (generation, term.stem, term.prefix)
        hit = _DF_CACHE.get(key)
        if hit is None:
            if len(_DF_CACHE) > 4096:
                _DF_CACHE.clear()
            hit = _DF_CACHE[key] = _df(conn, term, n)
        return hit
    row = conn.execute("SELECT doc FROM vocab WHERE term = ?", (term.stem,)).fetchone()
    exact = row[0] if row else 0
    if not term.prefix:
        return exact, exact
    upper = term.stem[:-1] + chr(ord(term.stem[-1]) + 1)
    row = conn.execute(
        "SELECT sum(doc) FROM vocab WHERE term >= ? AND term < ?", (term.stem, upper)
    ).fetchone()
    return exact, min(n, row[0] or 0)


def _project_df(conn: sqlite3.Connection, term: QueryTerm, generation: int = -1) -> int:
    """Documents whose project a query word names (exact word), cached per generation."""
    key = (generation, "\0project", term.stem)
    if generation >= 0:
        hit = _PROJECT_DF.get(key)
        if hit is not None:
            return hit
    row = conn.execute("SELECT doc FROM pvocab WHERE term = ?", (term.stem,)).fetchone()
    found = row[0] if row else 0
    if generation >= 0:
        if len(_PROJECT_DF) > 4096:
            _PROJECT_DF.clear()
        _PROJECT_DF[key] = found
    return found


_PROJECT_DF: dict[tuple[int, str, str], int] = {}


def _first_stage(
    conn: sqlite3.Connection,
    terms: Sequence[QueryTerm],
    idfs: Sequence[float],
    dfs: Sequence[int],
    n: int,
    filters: Filters,
    k: int,
    named: Sequence[bool] = (),
) -> list[int]:
    """Candidate ids, best first, by a coarse score computed inside SQLite.

    Each term contributes the rowids it matches (FTS5 returns them without
    ranking, which is cheap), weighted by field group and IDF; SQLite sums per
    document, applies the coverage factor and the filters, and keeps the best
    ``k`` (shorter bodies first among ties). A *common* term (in more than
    ``COMMON_SHARE`` of the documents) only contributes where it sits in a name,
    alias, description or heading: documents matching it in the body alone are
    reached through the other terms, or through the all-terms branch when every
    term is common. A term that names a project also yields that project's documents
    (``pfts``). The work is bounded by the rarer terms' postings, not by the corpus.
    """
    parts: list[str] = []
    args: list[str] = []
    common_cut = max(COMMON_MIN, COMMON_SHARE * n)
    all_common = all(df > common_cut for df in dfs)
    total = sum(idfs) or 1.0
    # Each branch yields (id, term, weight, coverage); every term's IDF is counted once per
    # document as coverage: by its any-field branch, or for a common term by the
    # fields branch (names, aliases, descriptions, headings), or by its project branch.
    named = list(named) or [False] * len(terms)
    for i, (t, idf, df) in enumerate(zip(terms, idfs, dfs, strict=True)):
        q = t.fts()
        common = df > common_cut
        if not common:
            parts.append(
                f"SELECT rowid AS id, {i} AS t, {idf!r} AS w, {idf!r} AS c "
                "FROM fts WHERE fts MATCH ?"
            )
            args.append(q)
        parts.append(
            f"SELECT rowid AS id, {i} AS t, {idf * 3.0!r} AS w, "
            f"{idf if common else 0.0!r} AS c FROM fts WHERE fts MATCH ?"
        )
        args.append("{aliases name description headings} : " + q)
        if named[i]:
            parts.append(
                f"SELECT rowid AS id, {i} AS t, {idf * PROJECT_WEIGHT!r} AS w, {idf!r} AS c "
                "FROM pfts WHERE pfts MATCH ?"
            )
            args.append(f'"{t.stem}"')
    if all_common and len(terms) > 1:
        parts.append(f"SELECT rowid, -1, {total!r}, {total!r} FROM fts WHERE fts MATCH ?")
        args.append(fts_query(terms, "AND"))
    where, filter_args = filters.sql()
    # a term naming a project may reach a document twice (its text, its project): its
    # coverage counts once (per term); without one, each branch counts it once already
    hits = (
        "(SELECT id, sum(w) AS w, max(c) AS c FROM (" + " UNION ALL ".join(parts) + ") "
        "GROUP BY id, t)"
        if any(named)
        else "(" + " UNION ALL ".join(parts) + ")"
    )
    sql = (
        "WITH per_doc AS (SELECT id, sum(w) AS w, "
        f"min(sum(c), {total!r}) / {total!r} AS cov FROM {hits} GROUP BY id) "
        "SELECT p.id FROM per_doc p JOIN docs d ON d.id = p.id "
        f"WHERE 1{where} ORDER BY p.w * ({COVERAGE_FLOOR!r} + {1 - COVERAGE_FLOOR!r} * "
        "p.cov * p.cov) DESC, d.l4 ASC LIMIT ?"  # l4: the body's length
    )
    return [r[0] for r in conn.execute(sql, (*args, *filter_args, k))]


def split_compounds(
    conn: sqlite3.Connection, terms: Sequence[QueryTerm], n: int, generation: int = -1
) -> list[QueryTerm]:
    """A query word no document holds, which joins two words documents do hold
    (``ratelimiter``, ``lockfile``, ``healthcheck``), becomes those two words; the split
    whose rarer part is most common wins (known words, not fragments)."""
    out: list[QueryTerm] = []
    for t in terms:
        w = t.word
        if not (w.isalpha() and len(w) >= 2 * SPLIT_MIN) or _df(conn, t, n, generation)[1]:
            out.append(t)
            continue
        best: tuple[int, QueryTerm, QueryTerm] | None = None
        for i in range(SPLIT_MIN, len(w) - SPLIT_MIN + 1):
            a, b = w[:i], w[i:]
            ta = QueryTerm(a, fold(a), False)
            tb = QueryTerm(b, fold(b), True)
            da = _df(conn, ta, n, generation)[0]
            db = _df(conn, tb, n, generation)[1]
            if da and db and (best is None or min(da, db) > best[0]):
                best = (min(da, db), ta, tb)
        if best is None:
            out.append(t)
        else:
            out += [best[1], best[2]]
    return out


def _adjacent(fields: Sequence[str], a: QueryTerm, b: QueryTerm) -> bool:
    """Whether ``a`` then ``b`` stand next to each other in some field."""
    pair = f" {a.stem} {b.stem}" + ("" if b.prefix else " ")
    return any(pair in text for text in fields)


def rank(
    conn: sqlite3.Connection,
    terms: Sequence[QueryTerm],
    *,
    filters: Filters,
    limit: int,
    n_docs: int,
    avg_lengths: Sequence[float],
    hidden: frozenset[str] = frozenset(),
    generation: int = -1,
    check: Callable[[set[str]], bool] | None = None,
    prefer: frozenset[str] = frozenset(),
    current: frozenset[str] = frozenset(),
) -> list[Scored] | None:
    """The best ``limit`` documents for ``terms``; ``generation`` (any int that changes
    whenever the index does) lets document frequencies be cached between queries.

    ``check`` is shown the candidates' paths before any is scored; when it returns
    True (it re-indexed some: their rows were stale) nothing is scored and ``None`` is
    returned, so the caller ranks again over the fresh rows.

    ``prefer``: document types a question asks for (a "why" question: decisions).
    ``current``: the project values (path, name, scope ids) of the project the query is
    asked from: its documents weigh ``CURRENT_BOOST`` more.
    Host-loaded index files (Claude Code's ``MEMORY.md``: a memory folder's file its
    tool always loads) come after every other match: the agent already has them."""
    if not terms:
        return []
    n = max(n_docs, 1)
    terms = split_compounds(conn, terms, n, generation)
    idfs: list[float] = []  # the IDF a term counts with (first stage, coverage)
    exact_idfs: list[float] = []
    prefix_idfs: list[float] = []
    abbreviations: list[bool] = []
    dfs: list[int] = []
    named: list[bool] = []  # the word names some documents' project
    for t in terms:
        exact, with_prefix = _df(conn, t, n, generation)
        in_projects = _project_df(conn, t, generation)
        named.append(in_projects > 0)
        if not with_prefix and in_projects:
            # a word only a project's name holds: as rare as the project's documents
            exact = with_prefix = in_projects
        abbreviation = t.prefix and exact * ABBREVIATION <= with_prefix
        exact_idfs.append(_idf(exact, n) if exact else 0.0)
        prefix_idfs.append(_idf(with_prefix, n))
        idfs.append(prefix_idfs[-1] if abbreviation or not exact else exact_idfs[-1])
        abbreviations.append(abbreviation)
        dfs.append(with_prefix)
    if not any(dfs):
        return []
    total_idf = sum(idfs) or 1.0
    ids = _first_stage(conn, terms, idfs, dfs, n, filters, max(CANDIDATES, limit * 6), named)
    if not ids:
        return []

    marks = ",".join("?" * len(ids))
    field_list = ", ".join(f"f.{name}" for name in FIELDS)
    rows = conn.execute(
        f"SELECT {DOC_COLUMNS}, {field_list}, coalesce(p.words, '') "
        f"FROM docs d JOIN fts f ON f.rowid = d.id LEFT JOIN pfts p ON p.rowid = d.id "
        f"WHERE d.id IN ({marks})",
        ids,
    ).fetchall()
    if check is not None and check({r[1] for r in rows}):
        return None
    texts_at = _LEN_AT + N_FIELDS
    out: list[Scored] = []
    for r in rows:
        if r[8] and r[8] in hidden:
            continue
        lens = r[_LEN_AT:texts_at]
        fields = [f" {text} " for text in r[texts_at : texts_at + N_FIELDS]]
        project_words = f" {r[texts_at + N_FIELDS]} "
        norms = [
            1.0 - b + b * (length / avg)
            for b, length, avg in zip(FIELD_B, lens, avg_lengths, strict=True)
        ]
        score = 0.0
        covered = 0.0
        why: dict[str, list[str]] = {}
        for i, t in enumerate(terms):
            needle = f" {t.stem} "
            start = f" {t.stem}"
            tf_exact = 0.0
            tf_prefix = 0.0
            for j, text in enumerate(fields):
                exact = text.count(needle)
                pre = (text.count(start) - exact) if t.prefix else 0
                if exact:
                    tf_exact += FIELD_WEIGHTS[j] * exact / norms[j]
                    why.setdefault(FIELDS[j], []).append(t.word)
                if pre:
                    tf_prefix += FIELD_WEIGHTS[j] * pre / norms[j]
                    if not exact:
                        why.setdefault(FIELDS[j], []).append(t.word + "*")
            if named[i] and needle in project_words:
                tf_exact += PROJECT_WEIGHT  # the query names this document's project
                why.setdefault("project", []).append(t.word)
            if tf_exact + tf_prefix <= 0:
                continue
            # the family reading: every word the term begins, at the family's IDF; for an
            # abbreviation the longer words are what the query means, the literal less so
            family_tf = tf_prefix + (LITERAL_SHARE if abbreviations[i] else 1.0) * tf_exact
            term_score = prefix_idfs[i] * family_tf * (K1 + 1) / (family_tf + K1)
            if not abbreviations[i] and exact_idfs[i]:
                # the word itself, longer words at a discount, at the exact stem's IDF
                word_tf = tf_exact + PREFIX_DISCOUNT * tf_prefix
                term_score = max(term_score, exact_idfs[i] * word_tf * (K1 + 1) / (word_tf + K1))
            score += term_score
            covered += idfs[i]
        if score <= 0:
            continue
        coverage = covered / total_idf
        score *= COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * coverage * coverage
        if len(terms) > 1:
            pairs = sum(_adjacent(fields, a, b) for a, b in pairwise(terms))
            score *= 1.0 + PROXIMITY * pairs / (len(terms) - 1)
        if prefer and r[3] in prefer:
            score *= PREFER
        if current and r[7] in current:
            score *= CURRENT_BOOST
        if not r[10]:
            score *= NON_MARKDOWN
        row = Row(
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], bool(r[9]), bool(r[10]),
            r[11], r[12], r[13],
        )  # fmt: skip
        out.append(Scored(row, score, why, coverage))
    # recency breaks ties: the newer of two equally good answers first
    out.sort(key=lambda s: (s.row.updated, s.row.path), reverse=True)
    out.sort(key=lambda s: (_host_index(s.row), -round(s.score, 6)))
    return out[:limit]


def _host_index(row: Row) -> bool:
    """A memory file its tool always loads: a folder's index (``MEMORY.md``)."""
    return row.kind == "memory" and row.always


def bm25_baseline(
    conn: sqlite3.Connection, query: str, *, limit: int, filters: Filters | None = None
) -> list[int]:
    """Plain BM25 (SQLite FTS5, unweighted, unstemmed words OR-ed): ids, best first.

    Needs the ``plain`` table built by ``build_plain_table`` (evaluation only).
    """
    from memoir_tui.core.recall.text import STOPWORDS, words

    ws = [w for w in words(query) if len(w) > 1 and w not in STOPWORDS]
    if not ws:
        return []
    q = " OR ".join(f'"{w}"' for w in dict.fromkeys(ws))
    return [
        r[0]
        for r in conn.execute(
            "SELECT rowid FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT ?", (q, limit)
        )
    ]


def build_plain_table(conn: sqlite3.Connection, docs: Sequence[tuple[int, str]]) -> None:
    """An unweighted, unstemmed FTS5 table over whole documents (for the baseline)."""
    conn.execute("DROP TABLE IF EXISTS plain")
    conn.execute("CREATE VIRTUAL TABLE plain USING fts5(content, tokenize = 'unicode61')")
    conn.executemany("INSERT INTO plain(rowid, content) VALUES (?, ?)", docs)
