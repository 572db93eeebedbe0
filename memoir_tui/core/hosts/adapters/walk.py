"""One generic walker over the adapters' data.

``sources()`` turns the adapters, the store, the configured project roots and
the projects Claude Code and the store name into ``Source`` values (a base
directory plus the locations to probe under it); ``walk_source()`` probes one
source and reports the files found, the directories whose contents shaped the
answer (so a caller can tell cheaply, by their mtimes, when to walk again) and
notes on what was skipped.

Rules, whatever a pattern says: only the named directories are visited (never a
crawl of ``$HOME``); ``**`` descends at most ``MAX_DEPTH`` levels; a symlink is
followed only if it resolves inside the source's own directory; credential and
settings files are never opened (the index skips files over
``MAX_FILE_BYTES`` with a note). The walker takes ``home`` and ``env`` explicitly, so tests run on tmp
directories.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat as stat_mod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memoir_tui.core.base.fsutil import open_regular
from memoir_tui.core.hosts.adapters import (
    ADAPTERS,
    Adapter,
    Location,
    is_denied,
    is_markdown,
)

MAX_DEPTH = 8
MAX_FILES_PER_SOURCE = 250_000
_TRANSCRIPT_PROBE_BYTES = 256 * 1024
_WILD = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Project:
    path: str  # absolute directory
    origin: str  # "config" | "claude-code" | "store" | "cwd"


@dataclass(frozen=True, slots=True)
class Source:
    """A base directory and the locations (of one or more tools) probed under it."""

    key: str
    base: str
    project: str  # "" = global; else the project's absolute path (or "claude:<slug>")
    locations: tuple[tuple[str, Location], ...]  # (tool name, location)
    contain: str  # symlinks must resolve inside this directory


@dataclass(frozen=True, slots=True)
class FoundFile:
    path: str
    tool: str
    kind: str
    always_loaded: bool
    markdown: bool
    ino: int
    stat: tuple[int, int] | None = None  # (mtime_ns, size) when the walk already had it


@dataclass(slots=True)
class WalkResult:
    files: list[FoundFile] = field(default_factory=list)
    dirs: dict[str, int] = field(default_factory=dict)  # directory → mtime_ns (0 = missing)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (path, why it was skipped)
    unchanged: list[str] = field(default_factory=list)  # listed with the ``known`` inode


def _is_wild(segment: str) -> bool:
    return any(c in _WILD for c in segment)


_MATCHERS: dict[str, Callable[[str], object]] = {}


def _segment_matcher(segment: str) -> Callable[[str], object]:
    """A fast test for one wildcard segment (``*.md`` is a suffix check)."""
    found = _MATCHERS.get(segment)
    if found is None:
        rest = segment[1:]
        if segment.startswith("*") and not _is_wild(rest):
            found = lambda name, rest=rest: name.endswith(rest)  # noqa: E731
        else:
            found = re.compile(fnmatch.translate(segment)).match
        _MATCHERS[segment] = found
    return found


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _inside(path: str, root_real: str) -> bool:
    return path == root_real or path.startswith(root_real.rstrip(os.sep) + os.sep)


# --- Claude Code projects ------------------------------------------------------------


def claude_project_cwd(project_dir: str | os.PathLike[str]) -> str | None:
    """The working directory a Claude Code project's transcripts record (``cwd``).

    The slug is not reversed (it is lossy); the first record carrying ``cwd`` in
    the newest transcripts is read, at most 256 KB of each.
    """
    try:
        names = [n for n in os.listdir(project_dir) if n.endswith(".jsonl")]
    except OSError:
        return None
    paths = [os.path.join(project_dir, n) for n in names]
    paths.sort(key=_mtime, reverse=True)
    for path in paths[:3]:
        try:
            with open_regular(path) as fh:  # a FIFO named *.jsonl must not hang the walk
                chunk = fh.read(_TRANSCRIPT_PROBE_BYTES)
        except OSError:
            continue
        for line in chunk.splitlines():
            if b'"cwd"' not in line:
                continue
            try:
                record = json.loads(line)
            except ValueError:
                continue
            cwd = record.get("cwd") if isinstance(record, dict) else None
            if isinstance(cwd, str) and os.path.isabs(cwd):
                return os.path.normpath(cwd)
    return None


# --- sources ---------------------------------------------------------------------------


@dataclass(slots=True)
class Discovery:
    """What ``sources()`` looked at: directories to re-check, Claude projects found."""

    dirs: dict[str, int] = field(default_factory=dict)
    claude_projects: dict[str, str | None] = field(default_factory=dict)  # dir → cwd


def enabled_adapters(tools: Iterable[str] | None) -> list[Adapter]:
    if tools is None:
        return list(ADAPTERS)
    wanted = set(tools)
    return [a for a in ADAPTERS if a.name in wanted]


def sources(
    home: Path,
    env: Mapping[str, str],
    *,
    store_root: Path | None,
    tools: Iterable[str] | None = None,
    projects: Sequence[Project] = (),
    cwd_lookup: Callable[[str], str | None] = claude_project_cwd,
) -> tuple[list[Source], list[Project], Discovery]:
    """Every source to walk, the projects found, and what discovery looked at.

    ``projects`` are the caller's (configured roots, the store's); the projects
    named in Claude Code's ``projects/`` are added. ``cwd_lookup`` maps a Claude
    project directory to its working directory (the index caches it).
    """
    adapters = enabled_adapters(tools)
    found: list[Source] = []
    discovery = Discovery()
    all_projects: dict[str, Project] = {}
    for project in projects:
        all_projects.setdefault(os.path.normpath(project.path), project)

    enabled = {a.name for a in adapters}
    # Every adapter is visited: a disabled tool's files are not indexed, but the projects
    # it names (Claude Code's projects/) still count as projects for the other tools.
    for adapter in ADAPTERS:
        on = adapter.name in enabled
        visited: list[Path] = []
        for root_i, root_spec in enumerate(adapter.roots):
            root = root_spec.resolve(home, env, store_root)
            if root is None or root in visited:
                continue
            visited.append(root)
            root_s = str(root)
            plain: list[tuple[str, Location]] = []
            for loc in adapter.global_files:
                if loc.roots is not None and root_i not in loc.roots:
                    continue
                if "<project>" not in loc.pattern:
                    if on:
                        plain.append((adapter.name, loc))
                    continue
                before, _, after = loc.pattern.partition("<project>/")
                holder = os.path.join(root_s, before.rstrip("/")) if before else root_s
                discovery.dirs[holder] = _mtime(holder)
                try:
                    entries = sorted(os.scandir(holder), key=lambda e: e.name)
                except OSError:
                    continue
                for entry in entries:
                    if not entry.is_dir(follow_symlinks=False):
                        continue
                    cwd = cwd_lookup(entry.path)
                    discovery.claude_projects[entry.path] = cwd
                    if cwd:
                        all_projects.setdefault(cwd, Project(cwd, adapter.name))
                    if not on:
                        continue
                    found.append(
                        Source(
                            key=f"slug|{adapter.name}|{entry.path}|{after}",
                            base=entry.path,
                            project=cwd or f"claude:{entry.name}",
                            locations=((adapter.name, Location(after, loc.kind, loc.always)),),
                            contain=root_s,
                        )
                    )
            if plain:
                found.append(
                    Source(
                        key=f"global|{adapter.name}|{root_s}",
                        base=root_s,
                        project="",
                        locations=tuple(plain),
                        contain=root_s,
                    )
                )

    project_locs = tuple((a.name, loc) for a in adapters for loc in a.project_files)
    if project_locs:
        for path in sorted(all_projects):
            if not os.path.isdir(path):
                continue
            found.append(
                Source(
                    key=f"project|{path}",
                    base=path,
                    project=path,
                    locations=project_locs,
                    contain=path,
                )
            )
    return found, list(all_projects.values()), discovery


# --- walking one source ---------------------------------------------------------------


def walk_source(source: Source, known: Mapping[str, int] | None = None) -> WalkResult:
    """Probe a source's locations; never raises for missing or unreadable paths.

    ``known`` maps paths found last time to their inode: a listed entry with the
    same name and inode is reported in ``unchanged`` without any further check
    (it passed them before, and a replaced or re-linked file has a new inode).
    """
    known = known or {}
    result = WalkResult()
    seen: set[str] = set()
    try:
        contain_real = os.path.realpath(source.contain)
    except OSError:
        contain_real = source.contain
    adapters = {a.name: a for a in ADAPTERS}
    listings: dict[str, list[os.DirEntry[str]] | None] = {}

    def listing(directory: str) -> list[os.DirEntry[str]] | None:
        if directory not in listings:
            try:
                with os.scandir(directory) as it:
                    listings[directory] = sorted(it, key=lambda e: e.name)
            except OSError:
                listings[directory] = None
        return listings[directory]

    def note_dir(directory: str) -> None:
        if directory not in result.dirs:
            result.dirs[directory] = _mtime(directory)

    def dir_ok(path: str, is_link: bool, shown: str) -> bool:
        if not is_link:
            return True
        real = os.path.realpath(path)
        if _inside(real, contain_real) and os.path.isdir(real):
            return True
        result.notes.append((shown, "symlinked directory leads outside the tool's directory"))
        return False

    def add_file(
        path: str, tool: str, loc: Location, seg: str, entry: os.DirEntry[str] | None
    ) -> None:
        if path in seen or len(result.files) >= MAX_FILES_PER_SOURCE:
            return
        name = entry.name if entry is not None else os.path.basename(path)
        if is_denied(name):
            seen.add(path)
            return
        if not adapters[tool].accepts(name, seg):
            return
        always = loc.always == "*" or (loc.always is not None and loc.always_loaded(name))
        try:
            if entry is not None and not entry.is_symlink():
                # d_type and d_ino come with the listing: no stat until the index needs one
                if not entry.is_file(follow_symlinks=False):
                    return
                seen.add(path)
                result.files.append(
                    FoundFile(path, tool, loc.kind, always, is_markdown(name), entry.inode())
                )
                return
            st = os.lstat(path)
            if stat_mod.S_ISLNK(st.st_mode):
                real = os.path.realpath(path)
                if not _inside(real, contain_real):
                    result.notes.append((path, "symlink leads outside the tool's directory"))
                    seen.add(path)
                    return
                if is_denied(os.path.basename(real)):
                    seen.add(path)
                    return
                st = os.stat(real)
        except OSError:
            return
        if not stat_mod.S_ISREG(st.st_mode):
            return
        seen.add(path)
        result.files.append(
            FoundFile(
                path,
                tool,
                loc.kind,
                always,
                is_markdown(name),
                st.st_ino,
                (st.st_mtime_ns, st.st_size),
            )
        )

    def walk(directory: str, segs: list[str], i: int, depth: int, tool: str, loc: Location) -> None:
        seg = segs[i]
        last = i == len(segs) - 1
        if seg == "**":
            if last:
                return
            walk(directory, segs, i + 1, depth, tool, loc)
            if depth >= MAX_DEPTH:
                return
            children = listing(directory)
            note_dir(directory)
            for entry in children or ():
                if entry.is_dir(follow_symlinks=True) and dir_ok(
                    entry.path, entry.is_symlink(), entry.path
                ):
                    walk(entry.path, segs, i, depth + 1, tool, loc)
            return
        if _is_wild(seg):
            children = listing(directory)
            note_dir(directory)
            match = _segment_matcher(seg)
            for entry in children or ():
                if not match(entry.name):
                    continue
                if last:
                    path = entry.path
                    if known.get(path) == entry.inode() and path not in seen:
                        seen.add(path)
                        result.unchanged.append(path)
                        continue
                    add_file(path, tool, loc, seg, entry)
                elif entry.is_dir(follow_symlinks=True) and dir_ok(
                    entry.path, entry.is_symlink(), entry.path
                ):
                    walk(entry.path, segs, i + 1, depth + 1, tool, loc)
            return
        child = os.path.join(directory, seg)
        note_dir(directory)
        if last:
            if os.path.lexists(child):
                add_file(child, tool, loc, seg, None)
            return
        if os.path.isdir(child) and dir_ok(child, os.path.islink(child), child):
            walk(child, segs, i + 1, depth + 1, tool, loc)

    for tool, loc in source.locations:
        walk(source.base, loc.pattern.split("/"), 0, 0, tool, loc)
    return result
