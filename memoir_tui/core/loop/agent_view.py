"""What each agent will see: the text every host loads when a session starts, and what it cuts.

Per host, for one project: the session-start brief (when our hook is installed
for that host), then every file the host puts in the model's context at start
(``adapters.STARTUP_FILES``: instruction files holding the pinned block,
Claude Code's ``MEMORY.md`` index, Codex's AGENTS.md, Windsurf's global rules,
Cursor's always-apply rules), each measured against the window the host reads
(200 lines and 25 KB of ``MEMORY.md``, 32 KiB of AGENTS.md across its files,
6,000 characters of Windsurf's rules). What falls past a limit is counted and
marked, so a person can see exactly what the agent never reads, and trim.

Reading only: files are read through the regular-file reader, each capped. A line
that holds a secret is shown withheld (its kind, never its text), as the brief shows an
item that holds one.
"""

from __future__ import annotations

import glob
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core.hosts.adapters import STARTUP_FILES, HookHost, StartupFile, get_adapter
from memoir_tui.core.rules.withhold import withhold_lines

if TYPE_CHECKING:
    from memoir_tui.core.workflows.memoir import Memoir

MAX_READ = 4 * 1024 * 1024  # Claude Code skips instruction files above 4 MiB
BRIEF = "brief"


@dataclass(frozen=True, slots=True)
class LoadedSource:
    """One thing a host loads: the brief, or a file (``path``), and how much of it."""

    kind: str  # BRIEF | "file"
    label: str
    path: str  # "" for the brief
    text: str
    limit: int | None = None
    unit: str = "chars"
    used: int = 0  # in ``unit``
    kept_chars: int = 0  # characters of ``text`` within every limit
    note: str = ""
    refs: tuple[tuple[str, str, str], ...] = ()  # brief lines → (line, list, item text)

    @property
    def cut(self) -> bool:
        return self.kept_chars < len(self.text)

    @property
    def cut_lines(self) -> int:
        return self.text[self.kept_chars :].count("\n") + (
            0 if self.text.endswith("\n") or not self.cut else 1
        )

    def meter(self) -> str:
        size = f"{self.used:,} {self.unit}"
        return f"{size} / {self.limit:,} {self.unit}" if self.limit is not None else size


@dataclass(frozen=True, slots=True)
class HostView:
    host: str  # adapter name
    label: str
    sources: tuple[LoadedSource, ...]
    notes: tuple[str, ...] = ()

    @property
    def chars(self) -> int:
        return sum(s.kept_chars for s in self.sources)

    @property
    def cut(self) -> int:
        return sum(1 for s in self.sources if s.cut)


def _read(path: Path) -> str | None:
    from memoir_tui.core.base.fsutil import read_regular

    try:  # a FIFO or device named like a rules file must not hang the pane
        data = read_regular(path, max_bytes=MAX_READ)
    except (OSError, ValueError):
        return None
    return data.decode("utf-8", errors="replace")


def _measure(text: str, unit: str) -> int:
    if unit == "bytes":
        return len(text.encode("utf-8"))
    if unit == "lines":
        return len(text.splitlines())
    return len(text)


def _kept(text: str, limit: int | None, unit: str) -> int:
    """How many characters of ``text`` fall within ``limit`` ``unit``s."""
    if limit is None:
        return len(text)
    if unit == "bytes":
        return len(text.encode("utf-8")[: max(0, limit)].decode("utf-8", errors="ignore"))
    if unit == "lines":
        lines = text.splitlines(keepends=True)
        return sum(len(line) for line in lines[: max(0, limit)])
    return min(len(text), max(0, limit))


def _always_applies(text: str) -> bool:
    """A Cursor rule file that loads in every chat (``alwaysApply: true``; a plain
    ``.cursorrules`` has no frontmatter and always loads)."""
    from memoir_tui.core.format.frontmatter import parse

    parsed = parse(text)
    if not parsed.has_frontmatter:
        return True
    return parsed.meta.get("alwaysApply") is True


def _bases(
    spec: StartupFile, *, home: Path, env: Mapping[str, str], project: Path | None
) -> list[Path]:
    if spec.scope == "global":
        roots = get_adapter(spec.host).global_dirs(home, env)
        return roots[:1]
    if project is None:
        return []
    if spec.scope == "project":
        return [project]
    from memoir_tui.core.hosts.adapters.guard import PathRefused, writable_file

    try:  # Claude Code's memory folder for this project (its slug, or the one naming it)
        return [
            writable_file(
                spec.host, "x.md", home=home, env=env, store_root=None, project=project
            ).parent
        ]
    except PathRefused:
        return []


def _files(spec: StartupFile, base: Path) -> list[Path]:
    found: list[Path] = []
    for pattern in spec.paths:
        if any(c in pattern for c in "*?["):
            matches = sorted(Path(p) for p in glob.glob(str(base / pattern)))
        else:
            matches = [base / pattern]
        for path in matches:
            if path.is_file():
                found.append(path)
        if found and not spec.every:
            return found[:1]
    return found


def shown_path(path: Path, home: Path) -> str:
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def host_view(
    host: str,
    *,
    store: Memoir,
    home: Path,
    env: Mapping[str, str],
    project: Path | None,
) -> HostView:
    adapter = get_adapter(host)
    sources: list[LoadedSource] = []
    notes: list[str] = []
    hook = adapter.hooks[0] if adapter.hooks else None
    if hook is not None:
        sources += _brief_sources(
            hook, store=store, home=home, env=env, project=project, notes=notes
        )
    spent: dict[str, int] = {}
    for spec in STARTUP_FILES:
        if spec.host != host:
            continue
        for base in _bases(spec, home=home, env=env, project=project):
            for path in _files(spec, base):
                text = _read(path)
                if text is None:
                    notes.append(f"{shown_path(path, home)} cannot be read")
                    continue
                if spec.always_rule and not _always_applies(text):
                    continue  # loaded on demand, not at start
                limit = spec.limit
                if limit is not None and spec.budget:
                    limit = max(0, limit - spent.get(spec.budget, 0))
                kept = _kept(text, limit, spec.unit)
                if spec.also is not None:
                    kept = min(kept, _kept(text, spec.also[0], spec.also[1]))
                if spec.budget:
                    spent[spec.budget] = spent.get(spec.budget, 0) + _measure(
                        text[:kept], spec.unit
                    )
                note = ""
                if spec.also is not None:
                    note = f"and at most {spec.also[0] // 1024} KB"
                text, kept = withhold_lines(text, kept)
                label = shown_path(path, home)
                if spec.scope == "memory":  # the folder's name spells the whole path again
                    label = label.replace(f"/{base.parent.name}/", "/<project>/")
                sources.append(
                    LoadedSource(
                        "file",
                        label,
                        str(path),
                        text,
                        spec.limit,
                        spec.unit,
                        _measure(text, spec.unit),
                        kept,
                        note,
                    )
                )
    return HostView(host, adapter.label, tuple(sources), tuple(notes))


def _brief_sources(
    hook: HookHost,
    *,
    store: Memoir,
    home: Path,
    env: Mapping[str, str],
    project: Path | None,
    notes: list[str],
) -> list[LoadedSource]:
    from memoir_tui.core.hosts.hook_install import read_state, settings_paths
    from memoir_tui.core.loop.brief import build_brief

    paths = settings_paths(hook, home=home, env=env, project=project)
    installed = any(
        any(h.verb == "session-start" for h in read_state(hook.name, p).ours) for p in paths
    )
    if not installed:
        notes.append(
            f"no session-start brief: memoir-tui's hook is not installed "
            f"(memoir-tui install-hooks {hook.name})"
        )
        return []
    brief = build_brief(store)
    if not brief.text:
        notes.append("the session-start brief is empty: nothing recorded for this project")
        return []
    return [
        LoadedSource(
            BRIEF,
            "session-start brief",
            "",
            brief.text,
            None,
            "chars",
            brief.chars,
            brief.chars,
            "from the working set",
            brief.refs,
        )
    ]


VIEW_HOSTS = ("claude-code", "codex", "gemini", "cursor", "windsurf")


def agent_views(
    store: Memoir, *, home: Path, env: Mapping[str, str], project: Path | None
) -> list[HostView]:
    """Every host's view for ``project`` (None: outside any project, global files only)."""
    return [host_view(h, store=store, home=home, env=env, project=project) for h in VIEW_HOSTS]


def project_dir(cwd: Path) -> Path | None:
    """The project directory a session started in ``cwd`` works in (its git work tree)."""
    from memoir_tui.core.rules.scope import find_git_dir

    found = find_git_dir(cwd)
    return found[0] if found is not None else None
