"""Consolidation: proposals a person reviews, and applying them through the trash.

``scan`` reads the store's ``memory/`` folder, Claude Code's auto-memory
folders (``<home>/.claude/projects/*/memory/``) and the session's working set,
and returns deterministic, local ``Proposal`` values (no network, no model).
``Consolidator`` (``store.consolidate``) acts on them: ``apply`` carries out
chosen proposals as one store transaction with one trash record (so one
``restore`` undoes them all); ``dismiss`` records a "keep" so the proposal
never comes back.

Entries that are tombstones — hidden or purged decisions, goal and next-action
files carrying ``done_at`` — are never proposed for anything: removing one would
let the item it suppresses come back from a stale replica. Session items are
never trashed either; a stale next action may only be completed (a tombstone).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.safeio import read_file_safely, read_json_safely, read_text_safely
from memoir_tui.core.door.config import ConsolidateSettings
from memoir_tui.core.format import frontmatter
from memoir_tui.core.format.dates import day
from memoir_tui.core.format.entry_file import (
    Entry,
    EntryError,
    iter_entry_files,
    parse_entry,
    stamp_updated,
)
from memoir_tui.core.format.identity import identity, parse_date_ms, parse_iso_ms
from memoir_tui.core.format.items import FILES, SESSION, Undo
from memoir_tui.core.hosts.adapters import CLAUDE_MEMORY_INDEX, project_memory_dirs
from memoir_tui.core.services.trash import TrashRecord, file_digest, sha256_bytes

MAX_READ_BYTES = 64 * 1024 * 1024  # any file consolidate reads (regular-only, bounded)

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.door.transaction import Transaction
    from memoir_tui.core.services.trash import Trash
    from memoir_tui.core.services.working_set import WorkingSetService

DISMISSED_FILE = "consolidate-dismissed.json"
INDEX_NAME = CLAUDE_MEMORY_INDEX
DAY_MS = 86_400_000

# Kinds, in report order, with the group (checklist) each belongs to.
KINDS: dict[str, str] = {
    "duplicate": "Duplicates",
    "near_duplicate": "Near duplicates",
    "superseded": "Stale",
    "stale_entry": "Stale",
    "stale_action": "Stale",
    "stale_question": "Stale",
    "dead_link": "Dead links",
    "bloated": "Bloated",
    "empty": "Empty",
    "index_oversize": "Host index",
    "index_dead_lines": "Host index",
    "index_missing_files": "Host index",
}
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(KINDS.values()))

# Actions. The first action a proposal allows is its default.
MERGE, TRASH, FIX, UNLINK, COMPLETE, KEEP = "merge", "trash", "fix", "unlink", "complete", "keep"
ACTIONS = (MERGE, TRASH, FIX, UNLINK, COMPLETE, KEEP)


class ConsolidateError(MemoirError):
    pass


@dataclass(frozen=True, slots=True)
class Proposal:
    """One suggested clean-up, with the evidence a person needs to judge it."""

    id: str  # stable: hash of kind + refs
    kind: str  # a key of KINDS
    title: str
    why: str  # one or two sentences
    evidence: str  # multi-line detail: a unified diff, the dead lines, …
    paths: tuple[Path, ...]  # files concerned; for merges the first is kept
    actions: tuple[str, ...]  # allowed actions, default first
    refs: tuple[str, ...]  # location-independent references the id hashes
    digests: tuple[str | None, ...] = ()  # sha256 of each path when scanned
    session_text: str = ""  # the working-set item, for stale_action / stale_question
    score: float | None = None  # similarity, for near duplicates
    detail: tuple[tuple[str, str], ...] = ()  # extra facts (e.g. ("dead", "name"))

    @property
    def group(self) -> str:
        return KINDS[self.kind]

    @property
    def default_action(self) -> str:
        return self.actions[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "group": self.group,
            "title": self.title,
            "why": self.why,
            "evidence": self.evidence,
            "paths": [str(p) for p in self.paths],
            "actions": list(self.actions),
            "refs": list(self.refs),
            "session_text": self.session_text or None,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class Report:
    proposals: tuple[Proposal, ...]
    skipped: tuple[str, ...] = ()  # files that could not be read, with the reason
    dismissed: int = 0  # proposals hidden because a person kept them

    def grouped(self) -> list[tuple[str, tuple[Proposal, ...]]]:
        return [
            (g, tuple(p for p in self.proposals if p.group == g))
            for g in GROUPS
            if any(p.group == g for p in self.proposals)
        ]

    def get(self, proposal_id: str) -> Proposal:
        """A proposal by id or unique id prefix (at least 4 characters)."""
        exact = [p for p in self.proposals if p.id == proposal_id]
        hits = exact or (
            [p for p in self.proposals if p.id.startswith(proposal_id)]
            if len(proposal_id) >= 4
            else []
        )
        if not hits:
            raise ConsolidateError(
                f"no proposal {proposal_id!r} (run `memoir-tui consolidate` for the current list)"
            )
        if len(hits) > 1:
            raise ConsolidateError(f"{proposal_id!r} matches {len(hits)} proposals; give more")
        return hits[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "proposals": [p.to_json() for p in self.proposals],
            "groups": {g: [p.id for p in ps] for g, ps in self.grouped()},
            "skipped": list(self.skipped),
            "dismissed": self.dismissed,
        }


def proposal_id(kind: str, refs: Iterable[str]) -> str:
    text = "\0".join([kind, *sorted(refs)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


# --- where memory lives -----------------------------------------------------------


def claude_memory_dirs(home: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """Claude Code's auto-memory folders: ``<claude dir>/projects/*/memory/``.

    The Claude dir is ``$CLAUDE_CONFIG_DIR`` when ``env`` (default: the
    process environment) sets it, else ``<home>/.claude``.
    """
    return project_memory_dirs("claude-code", Path(home), env)


def memory_dirs(
    store: Store, home: Path | None, env: Mapping[str, str] | None = None
) -> list[Path]:
    dirs = [store.memory_dir]
    if home is not None:
        dirs.extend(claude_memory_dirs(home, env))
    seen: set[str] = set()
    out = []
    for d in dirs:
        key = os.path.realpath(d)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


class _Refs:
    """Location-independent names for files, so ids survive a moved home."""

    def __init__(self, store: Store, home: Path | None) -> None:
        self.roots = [("store", Path(os.path.abspath(store.root)))]
        if home is not None:
            self.roots.append(("home", Path(os.path.abspath(home))))

    def __call__(self, path: Path) -> str:
        path = Path(os.path.abspath(path))
        for label, root in self.roots:
            try:
                return f"{label}:{path.relative_to(root).as_posix()}"
            except ValueError:
                continue
        return path.as_posix()


# --- reading entries --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _File:
    entry: Entry
    raw: bytes
    text: str

    @property
    def path(self) -> Path:
        return self.entry.path

    @property
    def digest(self) -> str:
        return sha256_bytes(self.raw)


def _read_dir(directory: Path, skipped: list[str]) -> list[_File]:
    out = []
    for path in iter_entry_files(directory):
        if path.name == INDEX_NAME:
            continue
        try:
            raw = read_file_safely(path, max_bytes=MAX_READ_BYTES)
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            skipped.append(f"{path}: not UTF-8 text")
            continue
        except OSError as exc:
            skipped.append(f"{path}: cannot be read ({exc.strerror})")
            continue
        out.append(_File(parse_entry(path, text), raw, text))
    return out


def is_tombstone(entry: Entry) -> bool:
    """Hidden/purged decisions and completed goal/next-action files."""
    meta = entry.meta
    if entry.type == "decision" and (meta.get("hidden") or meta.get("text_hash")):
        return True
    return entry.type in ("goal", "next_action") and "done_at" in meta


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


_FENCE_RE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
_WIKILINK_RE = re.compile(r"\[\[([^\[\]\n]+?)\]\]")


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _FENCE_RE.finditer(text)]
    spans += [m.span() for m in _INLINE_CODE_RE.finditer(text)]
    return spans


def _link_target(inner: str) -> str:
    return inner.split("|", 1)[0].split("#", 1)[0].strip()


def wikilinks(text: str) -> list[tuple[re.Match[str], str]]:
    """``[[target]]`` links outside code, with their target link names."""
    spans = _code_spans(text)
    out = []
    for m in _WIKILINK_RE.finditer(text):
        if any(a <= m.start() < b for a, b in spans):
            continue
        target = _link_target(m.group(1))
        if target:
            out.append((m, target))
    return out


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _age_days(now_ms: int, then_ms: int) -> int:
    return (now_ms - then_ms) // DAY_MS


# --- scanning ---------------------------------------------------------------------


def scan(
    store: Store,
    *,
    home: Path | None,
    settings: ConsolidateSettings | None = None,
    now_ms: int | None = None,
    recalled: Collection[Path] | None = None,
    include_dismissed: bool = False,
    env: Mapping[str, str] | None = None,
) -> Report:
    """Every proposal for ``store`` (and Claude Code's memory under ``home``).

    ``recalled``: entry files recall returned recently; they are never stale.
    ``None`` (the default) reads recall's usage log for the last
    ``stale_entry_days`` (under ``env``'s ``XDG_STATE_HOME``, else ``home``).
    ``now_ms`` defaults to the store's clock.
    """
    if settings is None:
        settings = store.config.consolidate
    if now_ms is None:
        now_ms = parse_date_ms(store.clock())
    refs = _Refs(store, home)
    skipped: list[str] = []
    proposals: list[Proposal] = []
    if recalled is None:
        from memoir_tui.core.recall.usage import recalled_since

        since = now_ms - settings.stale_entry_days * DAY_MS
        recalled = recalled_since(store.root, since, env=env, home=home)
    recalled_set = {os.path.abspath(p) for p in recalled}

    for directory in memory_dirs(store, home, env):
        files = _read_dir(directory, skipped)
        live = [f for f in files if not is_tombstone(f.entry)]
        proposals += _duplicates(live, refs, settings)
        proposals += _stale_entries(live, files, refs, settings, now_ms, recalled_set)
        proposals += _dead_links(live, files, refs)
        proposals += _bloated_and_empty(live, refs, settings)
    if home is not None:
        for directory in claude_memory_dirs(home, env):
            proposals += _index_problems(directory, refs, settings)
    proposals += _stale_session(store, settings, now_ms)

    dismissed = load_dismissed(store)
    shown = [p for p in proposals if include_dismissed or p.id not in dismissed]
    order = {k: i for i, k in enumerate(KINDS)}
    shown.sort(key=lambda p: (order[p.kind], p.refs))
    return Report(tuple(shown), tuple(skipped), len(proposals) - len(shown))


def _make(
    kind: str,
    title: str,
    why: str,
    evidence: str,
    files: Sequence[_File | Path],
    actions: tuple[str, ...],
    refs: _Refs,
    *,
    extra_refs: Sequence[str] = (),
    session_text: str = "",
    score: float | None = None,
    detail: tuple[tuple[str, str], ...] = (),
) -> Proposal:
    paths = tuple(f.path if isinstance(f, _File) else f for f in files)
    digests = tuple(f.digest if isinstance(f, _File) else file_digest(f) for f in files)
    ref_list = tuple(refs(p) for p in paths) + tuple(extra_refs)
    return Proposal(
        id=proposal_id(kind, ref_list),
        kind=kind,
        title=title,
        why=why,
        evidence=evidence,
        paths=paths,
        actions=actions,
        refs=ref_list,
        digests=digests,
        session_text=session_text,
        score=score,
        detail=detail,
    )


def _keeper_order(files: Iterable[_File]) -> list[_File]:
    """Which of several copies to keep: with frontmatter, newest, then by name."""
    return sorted(
        files,
        key=lambda f: (not f.entry.meta, -f.entry.updated_ms, f.path.name),
    )


def _similarity_text(f: _File) -> str:
    e = f.entry
    return _norm(f"{e.name}\n{e.description}\n{e.body}")


def _duplicates(live: list[_File], refs: _Refs, s: ConsolidateSettings) -> list[Proposal]:
    out: list[Proposal] = []
    groups: dict[str, list[_File]] = {}
    for f in live:
        body = _norm(f.entry.body)
        if body:
            groups.setdefault(body, []).append(f)
    exact_pairs: set[frozenset[Path]] = set()
    for members in groups.values():
        if len(members) < 2:
            continue
        ordered = _keeper_order(members)
        names = ", ".join(f.path.name for f in ordered)
        for a in members:
            for b in members:
                exact_pairs.add(frozenset((a.path, b.path)))
        out.append(
            _make(
                "duplicate",
                f"{len(ordered)} entries with the same body: {names}",
                f"Their bodies are identical once whitespace and case are ignored. "
                f"Merging keeps {ordered[0].path.name} and folds the others' names, "
                "aliases and tags into it.",
                "\n".join(f"{f.path}  ({f.entry.type}, updated {_updated(f)})" for f in ordered),
                ordered,
                (MERGE, TRASH, KEEP),
                refs,
            )
        )

    candidates = [f for f in live if _norm(f.entry.body)]
    if len(candidates) < 2:
        return out
    from rapidfuzz import fuzz, process

    texts = [_similarity_text(f) for f in candidates]
    cutoff = s.near_duplicate_threshold
    for i in range(len(candidates)):
        hits = process.extract(
            texts[i], texts[i + 1 :], scorer=fuzz.ratio, score_cutoff=cutoff, limit=None
        )
        for _choice, score, offset in sorted(hits, key=lambda h: h[2]):
            j = i + 1 + offset
            a, b = candidates[i], candidates[j]
            if frozenset((a.path, b.path)) in exact_pairs:
                continue
            keep, other = _keeper_order((a, b))
            diff = "\n".join(
                difflib.unified_diff(
                    keep.text.splitlines(),
                    other.text.splitlines(),
                    fromfile=refs(keep.path),
                    tofile=refs(other.path),
                    lineterm="",
                    n=2,
                )
            )
            out.append(
                _make(
                    "near_duplicate",
                    f"Near duplicates ({score:.0f}% alike): {keep.path.name} ≈ {other.path.name}",
                    f"Name, description and body are {score:.0f}% alike (threshold "
                    f"{s.near_duplicate_threshold:g}%). Merging keeps {keep.path.name} with "
                    "both bodies under headings.",
                    diff,
                    (keep, other),
                    (MERGE, KEEP),
                    refs,
                    score=round(score, 1),
                )
            )
    return out


def _updated(f: _File) -> str:
    e = f.entry
    return day(e.meta.get("updated") or e.meta.get("created"), missing="?")


def _stale_entries(
    live: list[_File],
    all_files: list[_File],
    refs: _Refs,
    s: ConsolidateSettings,
    now_ms: int,
    recalled: set[str],
) -> list[Proposal]:
    out: list[Proposal] = []
    names = {f.entry.link_name.lower(): f for f in all_files}
    for f in live:
        e = f.entry
        target = e.meta.get("superseded_by")
        if e.type == "decision" and isinstance(target, str) and target.strip():
            succ = names.get(_link_target(target).lower())
            where = (
                f"[[{target}]] is {succ.path.name} ({succ.entry.name})"
                if succ
                else f"[[{target}]] does not exist in this folder"
            )
            out.append(
                _make(
                    "superseded",
                    f"Superseded decision: {e.name}",
                    f"It says superseded_by: {target}; a replaced decision only invites "
                    "relitigation.",
                    f"{f.path}\nsuperseded_by: {where}",
                    (f,),
                    (TRASH, KEEP),
                    refs,
                )
            )
            continue
        if e.type in ("decision", "preference"):
            continue  # decisions leave by superseded_by; preferences do not age
        last = max(e.updated_ms, parse_date_ms(e.meta.get("last_fired")))
        if not last or os.path.abspath(f.path) in recalled:
            continue
        age = _age_days(now_ms, last)
        if age > s.stale_entry_days:
            out.append(
                _make(
                    "stale_entry",
                    f"Not updated for {age} days: {e.name}",
                    f"Last updated {_updated(f)}, more than {s.stale_entry_days} days ago"
                    + (" (or fired)" if e.type == "lesson" else "")
                    + ", and recall has not returned it since.",
                    f"{f.path}\n{e.type} · {e.description or '(no description)'}",
                    (f,),
                    (TRASH, KEEP),
                    refs,
                )
            )
    return out


def _dead_links(live: list[_File], all_files: list[_File], refs: _Refs) -> list[Proposal]:
    out: list[Proposal] = []
    names = {f.entry.link_name.lower() for f in all_files}
    for f in live:
        dead: dict[str, list[int]] = {}
        for m, target in wikilinks(f.text):
            if target.lower() not in names:
                dead.setdefault(target, []).append(_line_of(f.text, m.start()))
        if not dead:
            continue
        listed = ", ".join(f"[[{t}]]" for t in sorted(dead))
        evidence = "\n".join(f"{f.path}:{line}: [[{t}]]" for t in sorted(dead) for line in dead[t])
        out.append(
            _make(
                "dead_link",
                f"Dead links in {f.path.name}: {listed}",
                f"No entry named {listed} exists beside it. Unlinking keeps the words and "
                "drops the brackets.",
                evidence,
                (f,),
                (UNLINK, KEEP),
                refs,
                extra_refs=tuple(f"link:{t.lower()}" for t in sorted(dead)),
                detail=tuple(("dead", t) for t in sorted(dead)),
            )
        )
    return out


def _bloated_and_empty(live: list[_File], refs: _Refs, s: ConsolidateSettings) -> list[Proposal]:
    out: list[Proposal] = []
    for f in live:
        e = f.entry
        size, lines = len(f.raw), f.text.count("\n") + (0 if f.text.endswith("\n") else 1)
        if not f.text:
            lines = 0
        if size > s.bloat_bytes or lines > s.bloat_lines:
            over = []
            if size > s.bloat_bytes:
                over.append(f"{size:,} bytes (bound {s.bloat_bytes:,})")
            if lines > s.bloat_lines:
                over.append(f"{lines:,} lines (bound {s.bloat_lines:,})")
            out.append(
                _make(
                    "bloated",
                    f"Bloated entry: {f.path.name}",
                    f"{' and '.join(over)}: one memory per file reads and recalls better; "
                    "split it by hand.",
                    f"{f.path}\n" + "\n".join(over),
                    (f,),
                    (KEEP, TRASH),
                    refs,
                )
            )
        content = [e.body, e.description]
        for key in ("why", "trigger", "how_to_apply", "text"):
            value = e.meta.get(key)
            content.append(value if isinstance(value, str) else "")
        if not any(c.strip() for c in content):
            out.append(
                _make(
                    "empty",
                    f"Empty entry: {f.path.name}",
                    "It has no body and no description: it tells an assistant nothing.",
                    f"{f.path} ({size} bytes)",
                    (f,),
                    (TRASH, KEEP),
                    refs,
                )
            )
    return out


# --- the host index (Claude Code's MEMORY.md) ---------------------------------------

_MD_LINK_RE = re.compile(r"\[[^\]]*\]\(\s*(?:<([^>\n]+)>|([^)\s]+))(?:\s+\"[^\"]*\")?\s*\)")


def index_links(line: str) -> list[str]:
    """Local ``.md`` files a MEMORY.md line links to (relative, decoded)."""
    out = []
    for m in _MD_LINK_RE.finditer(line):
        target = m.group(1) or m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("#"):
            continue
        target = unquote(target.split("#", 1)[0])
        if target.endswith(".md"):
            out.append(target)
    return out


@dataclass(frozen=True, slots=True)
class IndexState:
    path: Path
    text: str
    lines: tuple[str, ...]  # with their line endings
    dead: tuple[tuple[int, str], ...]  # (line number, missing target)
    missing: tuple[Path, ...]  # memory files no line links to


def read_index(directory: Path, text: str | None = None) -> IndexState | None:
    path = directory / INDEX_NAME
    if text is None:
        try:
            text = read_file_safely(path, max_bytes=MAX_READ_BYTES).decode("utf-8")  # keep CRLF
        except (OSError, UnicodeDecodeError):
            return None
    lines = tuple(text.splitlines(keepends=True))
    linked: set[str] = set()
    dead: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        for target in index_links(line):
            full = directory / target
            linked.add(os.path.normpath(full))
            if not full.is_file():
                dead.append((number, target))
    missing = tuple(
        p
        for p in iter_entry_files(directory)
        if p.name != INDEX_NAME and os.path.normpath(p) not in linked
    )
    return IndexState(path, text, lines, tuple(dead), missing)


def _index_problems(directory: Path, refs: _Refs, s: ConsolidateSettings) -> list[Proposal]:
    state = read_index(directory)
    if state is None:
        return []
    out: list[Proposal] = []
    size = len(state.text.encode("utf-8"))
    nlines = len(state.lines)
    if nlines > s.index_max_lines or size > s.index_max_bytes:
        cut_line = s.index_max_lines
        consumed = 0
        for number, line in enumerate(state.lines, start=1):
            consumed += len(line.encode("utf-8"))
            if consumed > s.index_max_bytes:
                cut_line = min(cut_line, number - 1)
                break
        lost = [t for line in state.lines[cut_line:] for t in index_links(line)]
        over = []
        if nlines > s.index_max_lines:
            over.append(f"{nlines} lines (Claude Code loads {s.index_max_lines})")
        if size > s.index_max_bytes:
            over.append(f"{size:,} bytes (Claude Code loads {s.index_max_bytes:,})")
        evidence = [
            f"{state.path}: {' and '.join(over)}",
            f"never loaded: lines {cut_line + 1}–{nlines}",
        ]
        evidence += [f"  unreachable: {t}" for t in lost]
        out.append(
            _make(
                "index_oversize",
                f"{INDEX_NAME} over Claude Code's load limit: {refs(state.path)}",
                f"{' and '.join(over)}; everything after line {cut_line} is silently dropped "
                "at session start. Shorten the index lines or merge entries.",
                "\n".join(evidence),
                (state.path,),
                (KEEP,),
                refs,
            )
        )
    if state.dead:
        targets = sorted({t for _, t in state.dead})
        out.append(
            _make(
                "index_dead_lines",
                f"{INDEX_NAME} lines point at missing files: {refs(state.path)}",
                f"{len(state.dead)} index line(s) link to files that do not exist. "
                "Fixing removes those lines.",
                "\n".join(
                    f"{state.path}:{n}: {state.lines[n - 1].rstrip()}" for n, _ in state.dead
                ),
                (state.path,),
                (FIX, KEEP),
                refs,
                extra_refs=tuple(f"target:{t}" for t in targets),
            )
        )
    if state.missing:
        out.append(
            _make(
                "index_missing_files",
                f"Memory files missing from {INDEX_NAME}: {refs(state.path)}",
                f"{len(state.missing)} file(s) in the folder are not in the index, so Claude "
                "Code never sees them. Fixing appends a line for each.",
                "\n".join(str(p) for p in state.missing),
                (state.path,),
                (FIX, KEEP),
                refs,
                extra_refs=tuple(f"file:{p.name}" for p in state.missing),
            )
        )
    return out


def _index_line(path: Path) -> str:
    try:
        entry = parse_entry(path, read_text_safely(path, max_bytes=MAX_READ_BYTES))
        title, hook = entry.name, entry.description
    except (OSError, UnicodeDecodeError):
        title, hook = path.stem, ""
    title = " ".join(title.split()).replace("]", ")") or path.stem
    hook = " ".join(hook.split())
    target = path.name.replace(" ", "%20")
    return f"- [{title}]({target})" + (f" — {hook}" if hook else "")


# --- the session ----------------------------------------------------------------


def _stale_session(store: Store, s: ConsolidateSettings, now_ms: int) -> list[Proposal]:
    from memoir_tui.core.services.working_set import WorkingSetService

    ws = WorkingSetService(store).working_set()
    out: list[Proposal] = []
    checks = (
        (ws.next_actions, "stale_action", "next_actions", s.stale_action_days, (COMPLETE, KEEP)),
        (ws.open_questions, "stale_question", "open_questions", s.stale_question_days, (KEEP,)),
    )
    for items, kind, key, days, actions in checks:
        for item in items:
            when = parse_iso_ms(item.date)
            if when is None:
                continue  # no date: its age is unknown, not infinite
            age = _age_days(now_ms, when)
            if age <= days:
                continue
            noun = "Next action" if kind == "stale_action" else "Open question"
            how = (
                "Complete it if it is done or no longer wanted (that leaves a tombstone, "
                "so it stays gone on every machine), or keep it."
                if kind == "stale_action"
                else "Answer or drop it in the session; session items are never trashed."
            )
            out.append(
                Proposal(
                    id=proposal_id(kind, (f"session:{key}:{identity(item.text)}",)),
                    kind=kind,
                    title=f"{noun} untouched for {age} days: {item.text}",
                    why=f"Added {day(item.date, missing='?')}, more than {days} days ago. {how}",
                    evidence=f"{item.text}\n{key} · {item.date} · {item.machine_label or '?'}",
                    paths=(),
                    actions=actions,
                    refs=(f"session:{key}:{identity(item.text)}",),
                    session_text=item.text,
                )
            )
    return out


# --- dismissals ---------------------------------------------------------------------


def _dismissed_path(store: Store) -> Path:
    return store.root / DISMISSED_FILE


def load_dismissed(store: Store) -> dict[str, dict[str, Any]]:
    try:
        data = read_json_safely(_dismissed_path(store), max_bytes=MAX_READ_BYTES)
    except (OSError, ValueError):
        return {}
    table = data.get("dismissed") if isinstance(data, dict) else None
    return (
        {k: v for k, v in table.items() if isinstance(v, dict)} if isinstance(table, dict) else {}
    )


def _dismiss_in(tx: Transaction, store: Store, proposals: Iterable[Proposal]) -> int:
    """Stage "keep" records for these proposals in ``tx``; how many were new."""
    table = load_dismissed(store)
    added = 0
    for p in proposals:
        if p.id in table:
            continue
        table[p.id] = {"kind": p.kind, "title": p.title, "refs": list(p.refs), "at": store.clock()}
        added += 1
    if added:
        _stage_dismissed(tx, store, table)
    return added


def _stage_dismissed(tx: Transaction, store: Store, table: dict[str, dict[str, Any]]) -> None:
    data = {"version": 1, "dismissed": dict(sorted(table.items()))}
    tx.write_text(_dismissed_path(store), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


# --- applying -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Applied:
    proposal_id: str
    action: str
    message: str


@dataclass(frozen=True, slots=True)
class ApplyResult:
    trash: TrashRecord | None  # None when no file changed (keep, complete)
    applied: tuple[Applied, ...] = ()
    failed: tuple[tuple[str, str], ...] = ()  # (proposal id, reason)
    undo: Undo | None = None  # restores the files and reopens what it completed

    @property
    def trash_id(self) -> str | None:
        return self.trash.id if self.trash else None


@dataclass
class _Batch:
    store: Store
    tx: Transaction
    now_iso: str
    removed: list[Path] = field(default_factory=list)


class Consolidator:
    """``store.consolidate``: scan for clean-ups, apply, dismiss, undo — each a transaction."""

    def __init__(self, store: Store, working: WorkingSetService, trash: Trash) -> None:
        self.store = store
        self.working = working  # a stale action is completed in the same commit
        self.trash = trash

    def scan(self, **kwargs: Any) -> Report:
        return scan(self.store, **kwargs)

    def apply(
        self,
        choices: Sequence[Proposal | tuple[Proposal, str]],
        *,
        label: str = "",
    ) -> ApplyResult:
        """Apply proposals (each with its default action, or the one given) in one commit.

        A proposal whose files changed since the scan, or that conflicts with an
        earlier one in the batch, fails alone; the rest still apply. Every file
        the commit changes is kept in one trash record first. ``keep``
        dismisses; ``complete`` completes a next action (a tombstone, in the
        same commit).
        """
        store = self.store
        pairs = [c if isinstance(c, tuple) else (c, c.default_action) for c in choices]
        completes = [p for p, action in pairs if action == COMPLETE and action in p.actions]
        files = (FILES, SESSION) if completes else (FILES,)
        applied: list[Applied] = []
        failed: list[tuple[str, str]] = []
        trash_id: str | None = None
        with store.transaction("consolidate_apply", files=files) as tx:
            batch = _Batch(store, tx, store.clock())
            keeps: list[Proposal] = []
            for proposal, action in pairs:
                if action not in proposal.actions:
                    failed.append(
                        (
                            proposal.id,
                            f"{action!r} is not allowed here; choose {', '.join(proposal.actions)}",
                        )
                    )
                    continue
                if action == KEEP:
                    keeps.append(proposal)
                    continue
                if action == COMPLETE:
                    continue
                savepoint = tx.savepoint()
                removed_before = list(batch.removed)
                try:
                    _check_fresh(batch, proposal)
                    message = _APPLY[action](batch, proposal)
                except (MemoirError, OSError, UnicodeDecodeError) as exc:
                    tx.rollback_to(savepoint)
                    batch.removed[:] = removed_before
                    failed.append((proposal.id, str(exc)))
                    continue
                applied.append(Applied(proposal.id, action, message))
            if batch.removed:
                _drop_index_lines(batch)
            reopen: list[dict[str, Any]] = []
            for proposal in completes:
                try:
                    outcome = self.working.complete_next_action(proposal.session_text)
                except MemoirError as exc:
                    failed.append((proposal.id, str(exc)))
                    continue
                applied.append(Applied(proposal.id, COMPLETE, outcome.message))
                if outcome.undo is not None:
                    reopen.append(outcome.undo.arg("item"))
            if keeps:
                _dismiss_in(tx, store, keeps)
                applied += [Applied(p.id, KEEP, f"kept: {p.title}") for p in keeps]
            if any(a.action not in (KEEP, COMPLETE) for a in applied):
                trash_id = self.trash.keep(tx, label or _label(pairs))
            for a in applied:
                tx.audit(f"consolidate_{a.action}", "entries")
        record = self.trash.get(trash_id) if trash_id else None
        steps = [Undo("revive_actions", "reopen", (("items", tuple(reopen)),))] if reopen else []
        if trash_id:
            steps.insert(0, Undo("trash_restore", f"restore {trash_id}", (("id", trash_id),)))
        undo = Undo(steps[0].op, "the clean-up", steps[0].args, tuple(steps[1:])) if steps else None
        return ApplyResult(record, tuple(applied), tuple(failed), undo)

    def dismiss(self, proposals: Iterable[Proposal]) -> int:
        """Record "keep" for these proposals: they are never proposed again."""
        with self.store.transaction("consolidate_keep", files=(FILES,)) as tx:
            return _dismiss_in(tx, self.store, proposals)

    def undismiss(self, ids: Iterable[str]) -> int:
        store = self.store
        with store.transaction("consolidate_unkeep", files=(FILES,)) as tx:
            table = load_dismissed(store)
            gone = [i for i in ids if table.pop(i, None) is not None]
            if gone:
                _stage_dismissed(tx, store, table)
        return len(gone)

    def undo_last(self) -> TrashRecord | None:
        """Restore the newest apply still in the trash (the app's ``u``)."""
        trash = self.trash
        record = trash.last_active()
        return trash.restore(record.id) if record else None


def _label(pairs: Sequence[tuple[Proposal, str]]) -> str:
    if len(pairs) == 1:
        p, action = pairs[0]
        return f"{action}: {p.title}"
    return f"consolidate: {len(pairs)} proposals"


def _check_fresh(batch: _Batch, proposal: Proposal) -> None:
    for path, digest in zip(proposal.paths, proposal.digests, strict=False):
        if file_digest(path) != digest:
            raise ConsolidateError(f"{path} changed since the report; run consolidate again")
        if os.path.abspath(path) in {os.path.abspath(p) for p in batch.removed}:
            raise ConsolidateError(f"{path} is already being removed by this apply")


def _read(batch: _Batch, path: Path) -> Entry:
    try:
        text = batch.tx.read_text(path)
    except FileNotFoundError:
        raise EntryError(f"{path}: no longer exists") from None
    return parse_entry(path, text)


def _apply_trash(batch: _Batch, proposal: Proposal) -> str:
    if proposal.kind == "duplicate":
        keeper, *copies = proposal.paths
        for path in copies:
            batch.tx.remove(path)
            batch.removed.append(path)
        rewritten = sum(
            _rewrite_links(batch, keeper.parent, Path(p).stem, keeper.stem) for p in copies
        )
        return f"kept {keeper.name}; moved {len(copies)} copy(ies) to trash" + (
            f"; rewrote links in {rewritten} file(s)" if rewritten else ""
        )
    successor = ""
    if proposal.kind == "superseded":
        entry = _read(batch, proposal.paths[0])
        target = _link_target(str(entry.meta.get("superseded_by") or ""))
        folder = proposal.paths[0].parent
        successor = next(
            (p.stem for p in iter_entry_files(folder) if p.stem.lower() == target.lower()), ""
        )
    for path in proposal.paths:
        batch.tx.remove(path)
        batch.removed.append(path)
    message = f"moved {', '.join(p.name for p in proposal.paths)} to trash"
    if successor and batch.tx.exists(proposal.paths[0].parent / f"{successor}.md"):
        n = _rewrite_links(batch, proposal.paths[0].parent, proposal.paths[0].stem, successor)
        if n:
            message += f"; links now point at [[{successor}]] in {n} file(s)"
    return message


def _union(*lists: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    seen = {identity(x) for x in exclude}
    out = []
    for items in lists:
        for item in items:
            key = identity(item)
            if key and key not in seen:
                seen.add(key)
                out.append(item)
    return out


def _apply_merge(batch: _Batch, proposal: Proposal) -> str:
    keeper_path, *other_paths = proposal.paths
    keeper = _read(batch, keeper_path)
    others = [_read(batch, p) for p in other_paths]
    if keeper.parse_error:
        raise ConsolidateError(f"{keeper_path}: {keeper.parse_error}; fix it before merging")
    meta = dict(keeper.meta)
    if meta:
        aliases = _union(
            keeper.aliases,
            *(o.aliases for o in others),
            *([o.name, o.link_name] for o in others),
            exclude=(keeper.name, keeper.link_name),
        )
        tags = _union(keeper.tags, *(o.tags for o in others))
        if aliases:
            meta["aliases"] = aliases
        if tags:
            meta["tags"] = tags
        if not meta.get("description"):
            desc = next((o.description for o in others if o.description), "")
            if desc:
                meta["description"] = desc
        if "updated" in meta or "created" in meta:
            meta["updated"] = batch.now_iso
    bodies = [keeper, *others]
    distinct = {_norm(e.body) for e in bodies}
    if len(distinct) <= 1:
        body = keeper.body
    else:
        parts = [f"## {keeper.name}\n\n{keeper.body.strip()}\n"]
        for o in others:
            if _norm(o.body) and _norm(o.body) != _norm(keeper.body):
                parts.append(f"## {o.name} (merged from {o.path.name})\n\n{o.body.strip()}\n")
        body = "\n".join(parts)
    text = frontmatter.render(meta, body) if meta else body
    batch.tx.write_text(keeper_path, text)
    for o in others:
        batch.tx.remove(o.path)
        batch.removed.append(o.path)
    rewritten = 0
    for o in others:
        rewritten += _rewrite_links(batch, keeper_path.parent, o.link_name, keeper.link_name)
    return f"merged {', '.join(o.path.name for o in others)} into {keeper_path.name}" + (
        f"; rewrote links in {rewritten} file(s)" if rewritten else ""
    )


def _rewrite_links(batch: _Batch, directory: Path, old: str, new: str) -> int:
    """``[[old]]`` → ``[[new]]`` (and ``superseded_by: old``) in every file of the folder."""
    pattern = re.compile(r"\[\[\s*" + re.escape(old) + r"\s*((?:[#|][^\]\n]*)?)\]\]", re.IGNORECASE)
    sup = re.compile(
        r"^(superseded_by:[ \t]*)([\"']?)" + re.escape(old) + r"\2[ \t]*$",
        re.IGNORECASE | re.MULTILINE,
    )
    changed = 0
    for path in iter_entry_files(directory):
        if path.name == INDEX_NAME or not batch.tx.exists(path):
            continue
        try:
            text = batch.tx.read_text(path)
        except (OSError, UnicodeDecodeError):
            continue
        spans = _code_spans(text)

        def swap(m: re.Match[str], spans: list[tuple[int, int]] = spans) -> str:
            if any(a <= m.start() < b for a, b in spans):
                return m.group(0)
            return f"[[{new}{m.group(1)}]]"

        updated = pattern.sub(swap, text)
        fm, _ = frontmatter.split(updated)
        if fm is not None and sup.search(fm):
            head_len = updated.index(fm) + len(fm)
            updated = (
                sup.sub(lambda m: f"{m.group(1)}{m.group(2)}{new}{m.group(2)}", updated[:head_len])
                + updated[head_len:]
            )
        if updated != text:
            batch.tx.write_text(path, stamp_updated(updated, batch.now_iso))
            changed += 1
    return changed


def _apply_unlink(batch: _Batch, proposal: Proposal) -> str:
    path = proposal.paths[0]
    dead = {t.lower() for k, t in proposal.detail if k == "dead"}
    text = batch.tx.read_text(path)
    pieces, last, count = [], 0, 0
    for m, target in wikilinks(text):
        if target.lower() not in dead:
            continue
        inner = m.group(1)
        label = inner.split("|", 1)[1].strip() if "|" in inner else target
        pieces += [text[last : m.start()], label]
        last = m.end()
        count += 1
    if not count:
        raise ConsolidateError(f"{path}: no dead links left to unlink")
    batch.tx.write_text(path, stamp_updated("".join(pieces) + text[last:], batch.now_iso))
    return f"unlinked {count} dead link(s) in {path.name}"


def _apply_fix(batch: _Batch, proposal: Proposal) -> str:
    index_path = proposal.paths[0]
    directory = index_path.parent
    state = read_index(directory, batch.tx.read_text(index_path))
    if state is None:
        raise ConsolidateError(f"{index_path}: cannot be read")
    if proposal.kind == "index_dead_lines":
        drop = {n for n, _ in state.dead}
        if not drop:
            raise ConsolidateError(f"{index_path}: no dead lines left")
        kept = [line for n, line in enumerate(state.lines, start=1) if n not in drop]
        batch.tx.write_text(index_path, "".join(kept))
        return f"removed {len(drop)} dead line(s) from {index_path}"
    if proposal.kind == "index_missing_files":
        missing = [p for p in state.missing if batch.tx.exists(p)]
        if not missing:
            raise ConsolidateError(f"{index_path}: no missing files left")
        text = state.text
        newline = "\r\n" if "\r\n" in text else "\n"
        if text and not text.endswith(("\n", "\r")):
            text += newline
        text += "".join(_index_line(p) + newline for p in missing)
        batch.tx.write_text(index_path, text)
        return f"added {len(missing)} line(s) to {index_path}"
    raise ConsolidateError(f"{proposal.kind} cannot be fixed automatically")


def _drop_index_lines(batch: _Batch) -> None:
    """Files this apply removes leave their MEMORY.md lines behind: drop them too."""
    by_dir: dict[Path, set[str]] = {}
    for p in batch.removed:
        by_dir.setdefault(p.parent, set()).add(os.path.normpath(p))
    for directory, gone in by_dir.items():
        index = directory / INDEX_NAME
        if not batch.tx.exists(index):
            continue
        try:
            text = batch.tx.read_text(index)
        except (OSError, UnicodeDecodeError):
            continue
        lines = text.splitlines(keepends=True)
        kept = [
            line
            for line in lines
            if not any(os.path.normpath(directory / t) in gone for t in index_links(line))
        ]
        if len(kept) != len(lines):
            batch.tx.write_text(index, "".join(kept))


_APPLY = {MERGE: _apply_merge, TRASH: _apply_trash, UNLINK: _apply_unlink, FIX: _apply_fix}
