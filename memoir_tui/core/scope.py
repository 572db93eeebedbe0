"""Which project a directory belongs to, and the one rule for what a reader may see.

**Project identity.** A directory inside a git repository is identified by the
repository's remote (``origin``, else the first remote with a URL), normalised
so every spelling of one repository agrees — ``git@github.com:Owner/Repo.git``,
``https://github.com/owner/repo`` and ``ssh://git@github.com:22/owner/repo/``
are one project on every machine, wherever it is checked out. A repository
without a remote, or a directory outside any repository, is identified by its
path relative to the home directory (absolute when it is outside home). The
home directory itself is a project of its own, named explicitly (kind
``home``), never the empty string. Ids are ``<kind>:<16 hex>``.

Deliberate choices:

- ``.git/config`` is read directly, never by running git (this runs on every
  read path). A ``.git`` *file* (worktrees, submodules) is followed through
  ``gitdir:`` and a worktree's ``commondir`` to the config that holds the
  remotes. ``url.<base>.insteadOf`` rewrites and ssh host aliases are not
  applied.
- A ``.git`` in the home directory (a dotfiles repository) is ignored for the
  directories below it: otherwise every unversioned project would become the
  dotfiles project. Home itself is always kind ``home``.
- Normalisation lower-cases the whole ``host/path`` (hosting sites treat
  owner and repository names case-insensitively), drops scheme, user,
  password and port, and a trailing ``/`` or ``.git``.

**Visibility.** ``is_visible`` is the single predicate every read path uses:
recall, the session view, resume, MCP. An item is not visible when it is
hidden or purged (for ever, even "as of" an earlier time), rejected, completed
(``done_at`` at or before the time asked about), scoped to another project
(unless ``all_projects``), or outside its ``valid_from``/``valid_until``
window. Items without a ``project`` are global and visible everywhere; when
the current project is unknown (``project=None``) only global items are
visible, so an unknown context never leaks a project's memories.
"""

from __future__ import annotations

import calendar
import hashlib
import os
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from memoir_tui.core.identity import parse_date_ms, parse_iso_ms
from memoir_tui.core.items import is_hidden, well_formed_items

__all__ = [
    "LIST_DATE_FIELDS",
    "ProjectIdentity",
    "as_of",
    "believed_at",
    "current_project",
    "find_git_dir",
    "is_visible",
    "normalize_remote_url",
    "project_identity",
    "project_names",
    "read_remote_url",
    "readable_project",
    "working_project",
]

Kind = Literal["git-remote", "path", "home"]

# The date each list is ordered and merged by (FORMAT §4): "what was believed at T".
LIST_DATE_FIELDS: dict[str, str] = {
    "goals": "set_on",
    "next_actions": "added",
    "open_questions": "asked",
    "decisions": "date",
    "completed_actions": "done_at",
    "completed_goals": "done_at",
    "closed_questions": "done_at",
    "history": "date",
}
# Lists whose items are completion records themselves: ``done_at`` there is their date.
_TOMBSTONE_LISTS = frozenset({"completed_actions", "completed_goals", "closed_questions"})


@dataclass(frozen=True, slots=True)
class ProjectIdentity:
    """``id`` is what items are stamped with; ``label`` is for people."""

    id: str
    kind: Kind
    label: str


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


HOME_ID = "home:" + _short_hash("~")


# --- git -----------------------------------------------------------------------------

_MAX_CONFIG_BYTES = 1_000_000


def find_git_dir(path: Path, *, stop_at: Path | None = None) -> tuple[Path, Path] | None:
    """``(work_tree, git_dir)`` of the repository containing ``path``, or None.

    Walks up from ``path``; ``.git`` may be a directory or a file holding
    ``gitdir: <path>`` (worktrees, submodules). ``stop_at`` is not examined
    (nor anything above it).
    """
    current = path
    while True:
        if stop_at is not None and current == stop_at:
            return None
        dot_git = current / ".git"
        try:
            if dot_git.is_dir():
                return current, dot_git
            if dot_git.is_file():
                target = _read_gitdir_file(dot_git)
                if target is not None:
                    return current, target
        except OSError:
            pass
        if current.parent == current:
            return None
        current = current.parent


def _small_text(path: Path, errors: str = "strict") -> str:
    """A small git file (``.git``, ``commondir``): regular only, never blocking."""
    from memoir_tui.core.safeio import open_for_reading

    with open_for_reading(path) as fh:
        return fh.read(64 * 1024).decode("utf-8", errors)


def _read_gitdir_file(dot_git: Path) -> Path | None:
    try:
        content = _small_text(dot_git, errors="replace")[:4096]
    except OSError:
        return None
    for line in content.splitlines():
        if line.startswith("gitdir:"):
            target = Path(line[len("gitdir:") :].strip())
            if not target.is_absolute():
                target = dot_git.parent / target
            return Path(os.path.normpath(target))
    return None


def _common_dir(git_dir: Path) -> Path:
    """A worktree's git dir points at the shared one through ``commondir``."""
    try:
        rel = _small_text(git_dir / "commondir").strip()
    except (OSError, UnicodeDecodeError):
        return git_dir
    if not rel:
        return git_dir
    common = Path(rel)
    if not common.is_absolute():
        common = git_dir / common
    return Path(os.path.normpath(common))


_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def _config_value(raw: str) -> str:
    """A git-config value: quotes removed, escapes read, an unquoted comment dropped."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "\\" and i + 1 < len(raw):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(raw[i], raw[i]))
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def _remote_urls(config_text: str) -> list[tuple[str, str]]:
    """``(remote name, url)`` pairs in file order."""
    urls: list[tuple[str, str]] = []
    remote: str | None = None
    for line in config_text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        section = _SECTION.match(line)
        if section:
            name, sub, rest = section.groups()
            name = name.lower()
            if sub is not None:
                remote = sub.replace('\\"', '"').replace("\\\\", "\\") if name == "remote" else None
            elif name.startswith("remote."):
                remote = name[len("remote.") :]  # the old [remote.origin] form
            else:
                remote = None
            line = rest.strip()  # "[remote "origin"] url = …" on one line is legal
            if not line:
                continue
        if remote is None:
            continue
        key = _KEY.match(line)
        if key and key.group(1).lower() == "url" and key.group(2) is not None:
            value = _config_value(key.group(2))
            if value:
                urls.append((remote, value))
    return urls


def read_remote_url(git_dir: Path) -> str | None:
    """The ``origin`` URL from the repository's config, else the first remote's URL."""
    config = _common_dir(git_dir) / "config"
    try:
        from memoir_tui.core.safeio import open_for_reading

        with open_for_reading(config) as fh:  # a FIFO as .git/config: never blocks
            text = fh.read(_MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    urls = _remote_urls(text)
    for name, url in urls:
        if name == "origin":
            return url
    return urls[0][1] if urls else None


_SCP_LIKE = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s\[\]]+|\[[^\]]+\]):(?!//)(?P<path>.*)$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def normalize_remote_url(url: str) -> str:
    """``host/owner/repo`` for any spelling of a remote (lower case, no user, port or .git)."""
    url = url.strip()
    host = ""
    if _SCHEME.match(url):
        parts = urlsplit(url)
        if parts.scheme.lower() == "file":
            path = parts.path
        else:
            host = (parts.hostname or "").lower()
            path = parts.path
    else:
        scp = _SCP_LIKE.match(url)
        # "C:\repo" and "./x" are local paths, not scp-like host:path.
        if scp and len(scp.group("host")) > 1 and "\\" not in url:
            host = scp.group("host").strip("[]").lower()
            path = scp.group("path")
        else:
            path = url
    path = re.sub(r"/{2,}", "/", path.replace("\\", "/")).strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")].rstrip("/")
    if path.startswith("~"):  # ssh://host/~user/repo
        path = path[1:]
    normalised = f"{host}/{path}" if host else path
    return normalised.lower()


# --- identity --------------------------------------------------------------------------


def _resolve(path: Path) -> Path:
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(Path(path).expanduser()))


def _path_identity(path: Path, home: Path) -> ProjectIdentity:
    if path == home:
        return ProjectIdentity(id=HOME_ID, kind="home", label="~")
    try:
        rel = path.relative_to(home).as_posix()
        label = "~/" + rel
    except ValueError:
        rel = label = path.as_posix()  # outside home: absolute, so never equal to a relpath
    return ProjectIdentity(id="path:" + _short_hash(rel), kind="path", label=label)


def project_identity(path: Path, *, home: Path) -> ProjectIdentity:
    """The project ``path`` belongs to (see the module docstring)."""
    path = _resolve(path)
    home = _resolve(home)
    if path == home:
        return _path_identity(path, home)
    under_home = path.is_relative_to(home)
    found = find_git_dir(path, stop_at=home if under_home else None)
    if found is None:
        return _path_identity(path, home)
    work_tree, git_dir = found
    url = read_remote_url(git_dir)
    if url:
        normalised = normalize_remote_url(url)
        if normalised:
            return ProjectIdentity(
                id="git:" + _short_hash(normalised), kind="git-remote", label=normalised
            )
    # No remote: the main checkout's root, so every worktree of one repository agrees.
    common = _common_dir(git_dir)
    root = common.parent if common.name == ".git" else work_tree
    return _path_identity(_resolve(root), home)


def current_project(cwd: Path | None = None, *, home: Path | None = None) -> ProjectIdentity:
    """The project of ``cwd`` (default: the working directory) under ``home`` (default: ~)."""
    return project_identity(
        cwd if cwd is not None else Path.cwd(),
        home=home if home is not None else Path.home(),
    )


def is_outside_projects(path: Path, *, home: Path) -> bool:
    """The home directory, the filesystem root and the folders above home are no project.

    Several hosts start their MCP servers there; a process started there works
    for no one project, so it sees (and stamps) none in particular.
    """
    path, home = _resolve(path), _resolve(home)
    return path == home or path.parent == path or home.is_relative_to(path)


def working_project(cwd: Path | None = None, *, home: Path | None = None) -> ProjectIdentity | None:
    """The project a process started in ``cwd`` works for; None outside any (see above)."""
    try:
        here = cwd if cwd is not None else Path.cwd()
    except OSError:  # the working directory was deleted
        return None
    home = home if home is not None else Path.home()
    if is_outside_projects(here, home=home):
        return None
    return project_identity(here, home=home)


# --- names for people ----------------------------------------------------------------------

_NAMED_LISTS = ("goals", "next_actions", "open_questions", "decisions", "completed_actions")


def project_names(
    state: Mapping[str, Any], *, here: tuple[str, str | None] | None = None
) -> dict[str, str]:
    """Scope id → the label items recorded for it (``project_label``), plus ``here``.

    Items are stamped with both since labels exist; an id no item names keeps
    no label here, and ``readable_project`` says so in words.
    """
    names: dict[str, str] = {HOME_ID: "~ (home)"}
    current = state.get("current") if isinstance(state.get("current"), Mapping) else {}
    history = state.get("history") if isinstance(state.get("history"), list) else []
    pools: list[Any] = [current.get(key) for key in _NAMED_LISTS] + [history]
    for pool in pools:
        for item in well_formed_items(pool) if pool is not history else pool:
            if not isinstance(item, Mapping):
                continue
            pid, label = item.get("project"), item.get("project_label")
            if isinstance(pid, str) and isinstance(label, str) and label.strip():
                names.setdefault(pid, label.strip())
    if here is not None and here[1]:
        names[here[0]] = here[1]
    return names


def readable_project(project_id: str, names: Mapping[str, str]) -> str:
    """A project as a person reads it: its folder or remote, never an internal id."""
    if project_id in names:
        return names[project_id]
    kind = project_id.split(":", 1)[0]
    return {"git": "an unnamed git project", "path": "an unnamed folder"}.get(
        kind, "an unnamed project"
    )


# --- visibility ---------------------------------------------------------------------------

_DATE_ONLY = re.compile(r"^\s*(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?\s*$")


def _end_of(value: str) -> int | None:
    """The last millisecond a ``valid_until`` covers: a bare date covers its whole day."""
    start = parse_iso_ms(value)
    if start is None:
        return None
    m = _DATE_ONLY.match(value)
    if not m:
        return start
    year, month, day = int(m[1]), m[2], m[3]
    if day is not None:
        return start + 86_400_000 - 1
    if month is not None:
        days = calendar.monthrange(year, int(month))[1]
        return start + days * 86_400_000 - 1
    return start + (366 if calendar.isleap(year) else 365) * 86_400_000 - 1


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def is_visible(
    item: Mapping[str, Any],
    *,
    list_name: str,
    project: str | None,
    all_projects: bool = False,
    at_ms: int | None = None,
) -> bool:
    """Whether a reader in ``project`` should see ``item`` of ``list_name`` at ``at_ms``."""
    if not isinstance(item, Mapping):
        return False
    if is_hidden(item):
        return False  # forgetting is for ever: not even "as of" an earlier time
    state = item.get("state")
    if isinstance(state, str) and state.lower() == "rejected":
        return False
    at = _now_ms() if at_ms is None else at_ms
    done_at = item.get("done_at")
    # Completed at or before the time asked about (an unparseable date is the epoch).
    if done_at is not None and list_name not in _TOMBSTONE_LISTS and parse_date_ms(done_at) <= at:
        return False
    # No project (or "") is global. A malformed one fails closed: it matches no project.
    item_project = item.get("project")
    scoped = item_project is not None and item_project != ""
    if scoped and not all_projects and item_project != project:
        return False
    valid_from = item.get("valid_from")
    if isinstance(valid_from, str):
        start = parse_iso_ms(valid_from)
        if start is not None and at < start:
            return False
    valid_until = item.get("valid_until")
    if isinstance(valid_until, str):
        end = _end_of(valid_until)
        if end is not None and at > end:
            return False
    return True


def believed_at(
    items: Iterable[Mapping[str, Any]], date_field: str, at_ms: int
) -> list[Mapping[str, Any]]:
    """Items already recorded at ``at_ms`` by their list's date (missing dates are the epoch)."""
    return [
        item
        for item in items
        if isinstance(item, Mapping) and parse_date_ms(item.get(date_field)) <= at_ms
    ]


def as_of(
    items: Iterable[Mapping[str, Any]],
    *,
    list_name: str,
    project: str | None,
    at_ms: int,
    all_projects: bool = False,
    date_field: str | None = None,
) -> list[Mapping[str, Any]]:
    """What was believed and valid at ``at_ms``: ``believed_at`` then ``is_visible`` at that time."""
    field = date_field or LIST_DATE_FIELDS.get(list_name, "date")
    return [
        item
        for item in believed_at(items, field, at_ms)
        if is_visible(
            item, list_name=list_name, project=project, all_projects=all_projects, at_ms=at_ms
        )
    ]
