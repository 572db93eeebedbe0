"""Path guards for faces that read or write a host tool's files on request.

``readable_file`` answers "may this path be read as ``tool``'s memory?" by asking
the walker itself: the path must be one of the files the walker finds for that
tool (inside one of its directories, passing its file filter, never a
credentials file, never through a symlink leading out). ``..``, other absolute
paths, separators in names and symlinks therefore all fail the same way.

``normalise_filename`` turns a file name as a person types it (``Build Notes.md``)
into that slug (``build-notes.md``), refusing anything that names a directory.
``writable_file`` turns a bare file name into the one place a new memory of
``tool`` (globally or for a project) may be written, in every branch: a
lowercase slug ending in ``.md``, no separators, no dot files, never a
credentials name, never through a symlink, always inside the target directory.
Callers still scan the content for secrets and write atomically.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.fsutil import open_regular
from memoir_tui.core.format.names import is_entry_name, slugify
from memoir_tui.core.hosts.adapters import MAX_FILE_BYTES, Adapter, get_adapter, is_denied
from memoir_tui.core.hosts.adapters.walk import (
    FoundFile,
    Project,
    claude_project_cwd,
    sources,
    walk_source,
)


class PathRefused(MemoirError):
    """A path a face was asked to read or write that is not a tool's memory file."""


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def readable_file(
    tool: str,
    path: str | os.PathLike[str],
    *,
    home: Path,
    env: Mapping[str, str],
    store_root: Path | None,
    projects: Iterable[str | os.PathLike[str]] = (),
) -> FoundFile:
    """The walker's record of ``path`` if it is one of ``tool``'s files; else ``PathRefused``."""
    get_adapter(tool)  # unknown tool → MemoirError
    raw = os.fspath(path)
    if "\0" in raw:
        raise PathRefused("a path cannot contain NUL")
    expanded = os.path.expanduser(raw)
    if not os.path.isabs(expanded):
        raise PathRefused(f"{raw}: give the absolute path (as recall and list return it)")
    wanted = os.path.normpath(expanded)
    if is_denied(os.path.basename(wanted)):
        raise PathRefused(f"{raw}: credentials and settings files are never read")
    srcs, _projects, _disc = sources(
        home,
        env,
        store_root=store_root,
        tools=[tool],
        projects=[Project(os.path.normpath(os.fspath(p)), "caller") for p in projects],
    )
    for src in srcs:
        if not _inside(wanted, src.base):
            continue
        for found in walk_source(src).files:
            if found.path == wanted:
                return found
    raise PathRefused(f"{raw}: not one of {tool}'s memory or rules files")


def read_file(
    tool: str,
    path: str | os.PathLike[str],
    *,
    home: Path,
    env: Mapping[str, str],
    store_root: Path | None,
    projects: Iterable[str | os.PathLike[str]] = (),
) -> tuple[FoundFile, str]:
    """``readable_file`` plus its text (UTF-8, at most ``MAX_FILE_BYTES``)."""
    found = readable_file(tool, path, home=home, env=env, store_root=store_root, projects=projects)
    try:
        with open_regular(found.path) as fh:  # swapped for a FIFO or device since the walk
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PathRefused(f"{found.path}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_FILE_BYTES:
        raise PathRefused(f"{found.path}: larger than {MAX_FILE_BYTES // 1024} KB")
    try:
        return found, data.decode("utf-8")
    except UnicodeDecodeError:
        raise PathRefused(f"{found.path}: not UTF-8 text") from None


_NAME_HELP = (
    'give a bare file name ending in .md, such as "build-notes.md" or "Build Notes.md" '
    "(no directories, no leading dot)"
)


def normalise_filename(filename: str) -> str:
    """A file name as a person types it → the bare lowercase ``.md`` slug ``writable_file``
    takes: ``Build Notes.md`` → ``build-notes.md``, ``Deploy flow`` → ``deploy-flow.md``.

    Never a path: a separator, ``..``, NUL, a leading dot or another suffix is refused,
    not cleaned away, so a name that tried to leave the folder never lands anywhere."""
    if not isinstance(filename, str) or not filename.strip():
        raise PathRefused(f"the file name is empty: {_NAME_HELP}")
    name = filename.strip()
    if "\0" in name or "/" in name or "\\" in name or ".." in name or name.startswith("."):
        raise PathRefused(f"{filename!r}: {_NAME_HELP}")
    if name.lower().endswith(".md"):
        stem = name[: -len(".md")]
    elif "." not in name:
        stem = name  # as the JavaScript tool, a name without a suffix gets .md
    else:
        raise PathRefused(f"{filename!r}: {_NAME_HELP}")
    slug = slugify(stem)
    if not slug:
        raise PathRefused(f"{filename!r}: {_NAME_HELP}")
    out = slug + ".md"
    if not is_entry_name(out):
        raise PathRefused(f"{filename!r}: {_NAME_HELP}")
    return out


def claude_slug(project: str) -> str:
    """Claude Code's directory name for a project: every non-alphanumeric character → ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", project)


def writable_file(
    tool: str,
    filename: str,
    *,
    home: Path,
    env: Mapping[str, str],
    store_root: Path | None,
    project: str | os.PathLike[str] | None = None,
    cwd_lookup: Callable[[str], str | None] = claude_project_cwd,
) -> Path:
    """Where a new memory named ``filename`` goes for ``tool`` (and ``project``).

    The file name must be a bare lowercase ``.md`` slug; tools whose rules use
    another suffix get it (``x.md`` → ``x.mdc`` for Cursor). The result is always
    directly inside the tool's target directory; the directory need not exist yet.
    """
    adapter = get_adapter(tool)
    if not is_entry_name(filename):
        raise PathRefused(
            f"{filename!r}: give a bare lowercase file name ending in .md "
            "(letters, digits, '.', '_', '-'; no directories)"
        )
    if is_denied(filename):
        raise PathRefused(f"{filename}: that name is reserved for credentials or settings")
    name = filename[: -len(".md")] + adapter.write_suffix
    roots = adapter.global_dirs(home, env, store_root)
    if project is not None:
        project_dir = os.path.normpath(os.path.abspath(os.path.expanduser(os.fspath(project))))
        if adapter.write_project is None:
            raise PathRefused(_nowhere(adapter, "per-project"))
        if "<project>" in adapter.write_project:
            if not roots:
                raise PathRefused(f"{tool} has no directory on this machine")
            base = str(roots[0])
            before, _, after = adapter.write_project.partition("<project>")
            holder = os.path.join(base, before.strip("/"))
            slug = claude_slug(project_dir)
            try:
                for entry in sorted(os.scandir(holder), key=lambda e: e.name):
                    if entry.is_dir(follow_symlinks=False) and cwd_lookup(entry.path) == (
                        project_dir
                    ):
                        slug = entry.name
                        break
            except OSError:
                pass
            directory = os.path.join(holder, slug, after.strip("/"))
        else:
            base = project_dir
            directory = os.path.join(project_dir, adapter.write_project)
    else:
        if adapter.write_global is None or not roots:
            raise PathRefused(_nowhere(adapter, "global"))
        base = str(roots[0])
        directory = os.path.join(base, adapter.write_global) if adapter.write_global else base
    directory = os.path.normpath(directory)
    target = os.path.join(directory, name)
    if not _inside(directory, os.path.normpath(base)) or os.path.dirname(target) != directory:
        raise PathRefused(f"{filename}: resolves outside {directory}")
    # never write through a symlink: not the file, not any directory on the way
    real_base = os.path.realpath(base)
    probe = directory
    while not os.path.lexists(probe) and _inside(probe, base) and probe != base:
        probe = os.path.dirname(probe)
    if os.path.lexists(probe) and not _inside(os.path.realpath(probe), real_base):
        raise PathRefused(
            f"{directory}: a symlink leads to {os.path.realpath(probe)}, outside {base}; "
            "nothing was written"
        )
    if os.path.islink(target):
        raise PathRefused(f"{target}: is a symlink; refusing to write through it")
    if adapter.write_index and os.path.islink(os.path.join(directory, adapter.write_index)):
        raise PathRefused(f"{directory}: its {adapter.write_index} is a symlink; not edited")
    return Path(target)


def _nowhere(adapter: Adapter, scope: str) -> str:
    """A refusal naming what the host does read as memory."""
    text = f"{adapter.label} has no {scope} folder it reads new memory files from"
    return f"{text}: {adapter.write_reads}" if adapter.write_reads else text
