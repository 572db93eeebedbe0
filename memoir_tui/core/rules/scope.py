"""Which project a directory belongs to, and the one rule for what a reader may see.

**Project identity** is today's JavaScript memoir's (FORMAT-LATEST §9), so both
tools stamp and scope items the same way:

- ``shared`` is ``shared``; an id already formed (``git:``/``local:`` + 32
  lower-case hex) is itself;
- otherwise the path (``~`` expanded, resolved, symlinks followed) is looked
  up for ``remote.origin.url`` the way ``git config --get`` finds it (the
  enclosing repository, a worktree's common config). Its key is the URL with
  ``git@HOST:`` → ``HOST/``, a leading ``http(s)://[user[:pass]@]`` and
  ``ssh://git@`` removed, a trailing ``.git``/``.git/`` and one ``/`` removed,
  case kept; the id is ``git:`` + the first 32 hex of its sha256;
- without an origin (no repository, or only other remotes) the key is the
  path relative to the real home directory (``""`` for home itself, ``../…``
  outside it) and the id ``local:`` + 32 hex.

``MEMOIR_PROJECT_ROOT`` replaces the working directory as the input, as it does
for the JavaScript tool. The git config is read directly (no subprocess on the
read path); ``include``/``includeIf`` files are not followed.

Earlier memoir-tui builds stamped ``git:``/``path:``/``home:`` + 16 hex. Those
are read as the same project: computing a folder's id records its old id as an
alias, ``same_project`` honours it, and ``Store`` rewrites such stamps to the
new form when it next writes the session (audited).

**Visibility.** ``is_visible`` is the single predicate every read path uses:
recall, the session view, resume, MCP, the brief. It is FORMAT-LATEST §10's
rule: an item is not visible when it is hidden (``true`` or ``"true"``),
purged, ``deleted: true``, of ``status`` deleted/hidden/superseded, has a
``superseded_by``, is not yet valid (``valid_from`` in the future) or no longer
(``valid_until`` now or past), is rejected or completed; and, unless
``all_projects``, when it belongs to another project. Items without a
``project`` and ``shared`` items are visible everywhere; when the current
project is unknown (``project=None``) only those are, so an unknown context
never leaks a project's memories.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from memoir_tui.core.format.identity import parse_date_ms, parse_iso_ms
from memoir_tui.core.format.items import is_hidden, list_field, well_formed_items

__all__ = [
    "LIST_DATE_FIELDS",
    "SHARED",
    "ProjectIdentity",
    "aliases_of",
    "as_of",
    "believed_at",
    "current_project",
    "find_git_dir",
    "is_gone",
    "is_visible",
    "normalize_remote_url",
    "project_identity",
    "project_names",
    "read_remote_url",
    "readable_project",
    "same_project",
    "working_project",
]

Kind = Literal["git-remote", "path", "home", "shared"]

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
    from memoir_tui.core.base.safeio import open_for_reading

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
        from memoir_tui.core.base.safeio import open_for_reading

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

SHARED = "shared"
_FORMED_ID = re.compile(r"^(git|local):[a-f0-9]{32}$")
_LEGACY_ID = re.compile(r"^(git|path|home):[0-9a-f]{16}$")


def _resolve(path: Path) -> Path:
    try:
        return Path(path).expanduser().resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(Path(path).expanduser()))


def _long_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def memoir_remote_key(url: str) -> str:
    """The JavaScript tool's key for an origin URL: its replacements in its order, case
    kept (FORMAT-LATEST §9). Ports and other users stay as written."""
    key = url.strip()
    key = re.sub(r"^git@([^:]+):", r"\1/", key)
    key = re.sub(r"^https?://(?:[^/@]+@)?", "", key)
    key = re.sub(r"^ssh://git@", "", key)
    key = re.sub(r"\.git/?$", "", key)
    return re.sub(r"/$", "", key)


def origin_url(path: Path) -> str | None:
    """``remote.origin.url`` as ``git config --get`` finds it from ``path``: the enclosing
    repository (a worktree's shared config), the last value when set twice."""
    found = find_git_dir(path)
    if found is None:
        return None
    config = _common_dir(found[1]) / "config"
    try:
        from memoir_tui.core.base.safeio import open_for_reading

        with open_for_reading(config) as fh:  # a FIFO as .git/config: never blocks
            text = fh.read(_MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    urls = [url for name, url in _remote_urls(text) if name == "origin"]
    return urls[-1] if urls else None


def _home_relative(path: Path, home: Path) -> str:
    """``path.relative(home, path)`` as Node computes it: ``""`` for home, ``../x`` outside."""
    if path == home:
        return ""
    return os.path.relpath(path, home).replace(os.sep, "/")


def _legacy_id(path: Path, home: Path) -> str:
    """The id an earlier memoir-tui stamped for this folder (see the module docstring)."""
    if path == home:
        return HOME_ID
    under_home = path.is_relative_to(home)
    found = find_git_dir(path, stop_at=home if under_home else None)
    if found is not None:
        url = read_remote_url(found[1])
        normalised = normalize_remote_url(url) if url else ""
        if normalised:
            return "git:" + _short_hash(normalised)
        common = _common_dir(found[1])
        path = _resolve(common.parent if common.name == ".git" else found[0])
        if path == home:
            return HOME_ID
    try:
        rel = path.relative_to(home).as_posix()
    except ValueError:
        rel = path.as_posix()
    return "path:" + _short_hash(rel)


# Earlier stamps known to name the same folder as a new id (filled as ids are computed).
_ALIASES: dict[str, set[str]] = {}


def project_identity(path: Path | str, *, home: Path) -> ProjectIdentity:
    """The project ``path`` belongs to, as the JavaScript tool computes it (module docstring).
    ``path`` may also be ``shared`` or an id already formed."""
    raw = str(path)
    if raw == SHARED:
        return ProjectIdentity(id=SHARED, kind="shared", label="shared")
    if _FORMED_ID.match(raw):
        return ProjectIdentity(id=raw, kind="git-remote" if raw[0] == "g" else "path", label="")
    if raw.startswith("~"):
        raw = str(home) + raw[1:]
    here = _resolve(Path(raw))
    home = _resolve(home)
    url = origin_url(here)
    legacy = _legacy_id(here, home)
    if url:
        key = memoir_remote_key(url)
        ident = ProjectIdentity(id="git:" + _long_hash(key), kind="git-remote", label=key)
    else:
        key = _home_relative(here, home)
        label = "~" if key == "" else ("~/" + key if not key.startswith("../") else here.as_posix())
        ident = ProjectIdentity(
            id="local:" + _long_hash(key), kind="home" if key == "" else "path", label=label
        )
    _ALIASES.setdefault(ident.id, set()).add(legacy)
    return ident


def aliases_of(project_id: str) -> frozenset[str]:
    """Earlier stamps of the folder(s) computed as ``project_id`` in this process."""
    return frozenset(_ALIASES.get(project_id, ()))


def is_legacy_id(value: Any) -> bool:
    return isinstance(value, str) and bool(_LEGACY_ID.match(value))


def same_project(item_project: Any, project: str | None) -> bool:
    """Whether an item stamped ``item_project`` belongs to ``project`` (FORMAT-LATEST §10: a
    path stored as a project is resolved too; an earlier memoir-tui stamp of the same folder
    counts). Unstamped and ``shared`` items belong to every project."""
    if item_project is None or item_project == "" or item_project == SHARED:
        return True
    if not isinstance(item_project, str) or project is None:
        return False
    if item_project == project or item_project in aliases_of(project):
        return True
    if _FORMED_ID.match(item_project) or is_legacy_id(item_project):
        return False
    if not (item_project.startswith(("/", "~", "."))):
        return False  # neither an id nor a path: matches no project (fails closed)
    return _path_project_id(item_project) == project


@functools.lru_cache(maxsize=256)
def _path_project_id(value: str) -> str:
    try:
        return project_identity(value, home=Path.home()).id
    except OSError:
        return ""


def current_project(cwd: Path | None = None, *, home: Path | None = None) -> ProjectIdentity:
    """The project of ``cwd`` (default: ``MEMOIR_PROJECT_ROOT``, else the working directory)."""
    return project_identity(
        cwd if cwd is not None else _project_root_input(),
        home=home if home is not None else Path.home(),
    )


def _project_root_input() -> Path:
    override = os.environ.get("MEMOIR_PROJECT_ROOT")
    return Path(override) if override else Path.cwd()


def is_outside_projects(path: Path, *, home: Path) -> bool:
    """The home directory, the filesystem root and the folders above home are no project.

    Several hosts start their MCP servers there; a process started there works
    for no one project, so it sees (and stamps) none in particular.
    """
    path, home = _resolve(path), _resolve(home)
    return path == home or path.parent == path or home.is_relative_to(path)


def working_project(cwd: Path | None = None, *, home: Path | None = None) -> ProjectIdentity | None:
    """The project a process started in ``cwd`` (default: ``MEMOIR_PROJECT_ROOT``, else the
    working directory) works for; None outside any (see above)."""
    try:
        here = cwd if cwd is not None else _project_root_input()
    except OSError:  # the working directory was deleted
        return None
    home = home if home is not None else Path.home()
    if is_outside_projects(here, home=home):
        return None
    return project_identity(here, home=home)


# --- names for people ----------------------------------------------------------------------

_NAMED_LISTS = (
    "goals",
    "next_actions",
    "open_questions",
    "decisions",
    "completed_actions",
    "completed_goals",
    "closed_questions",
    "archived_goals",
    "parked_actions",
    "archived_questions",
    "archived_decisions",
)


def project_names(
    state: Mapping[str, Any], *, here: tuple[str, str | None] | None = None
) -> dict[str, str]:
    """Scope id → the label items recorded for it (``project_label``), plus ``here``.

    Items are stamped with both since labels exist; an id no item names keeps
    no label here, and ``readable_project`` says so in words.
    """
    names: dict[str, str] = {HOME_ID: "~ (home)"}
    raw_current = state.get("current")
    current: Mapping[str, Any] = raw_current if isinstance(raw_current, Mapping) else {}
    history = list_field(state, "history")
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
    if project_id == SHARED:
        return SHARED
    kind, _, rest = project_id.partition(":")
    noun = {"git": "unnamed git project", "local": "unnamed folder", "path": "unnamed folder"}
    # a few characters of the id tell two unnamed projects apart
    return f"{noun.get(kind, 'unnamed project')} {rest[:6]}".strip()


# --- visibility ---------------------------------------------------------------------------


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
    if is_gone(item):
        return False
    # No project (or "", or "shared") is global. A malformed one fails closed.
    if not all_projects and not same_project(item.get("project"), project):
        return False
    valid_from = item.get("valid_from")
    if isinstance(valid_from, str):
        start = parse_iso_ms(valid_from)
        if start is not None and at < start:
            return False
    valid_until = item.get("valid_until")
    if isinstance(valid_until, str):
        end = parse_iso_ms(valid_until)
        if end is not None and at >= end:  # "now or past" (FORMAT-LATEST §10)
            return False
    return True


_GONE_STATUSES = frozenset({"deleted", "hidden", "superseded"})


def is_gone(item: Mapping[str, Any]) -> bool:
    """What the JavaScript tool treats as gone besides hiding (FORMAT-LATEST §10): deleted,
    a deleted/hidden/superseded status, or superseded by another — for session items and
    for entry files' frontmatter alike."""
    if item.get("hidden") == "true" or item.get("deleted") is True:
        return True
    status = item.get("status")
    if isinstance(status, str) and status in _GONE_STATUSES:
        return True
    superseded_by = item.get("superseded_by")
    return bool(superseded_by)


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
