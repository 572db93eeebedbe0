"""One short label per project: the shortest tail of its full name that no other has.

A project's full name is what items record as ``project_label``: a remote key
(``github.com/acme/tideline-web``) or a home-relative folder (``~/code/notes``).
People tell projects apart by their last words, so each is shown by the fewest
trailing ``/``-separated parts that no other project present ends with:
``tideline-web`` alone, ``acme/tideline-web`` when ``other/tideline-web`` is
present too, the folder name for a local project with as many parent folders as
it takes. ``global`` (items without a project) and ``shared`` (memoir's shared
scope) are names of their own, so a folder called ``global`` is ``code/global``.

Pure: the same set of names gives the same labels whatever their order.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

GLOBAL = "global"
SHARED = "shared"
RESERVED = (GLOBAL, SHARED)


def _parts(name: str) -> list[str]:
    return name.split("/")


def _tail(parts: list[str], k: int) -> str:
    return "/".join(parts[-k:])


def _ends_with(parts: list[str], tail: list[str]) -> bool:
    return len(tail) <= len(parts) and parts[len(parts) - len(tail) :] == tail


def tail_labels(names: Iterable[str]) -> dict[str, str]:
    """Full name → its shortest distinguishing tail among ``names`` (and the reserved ones).

    A tail is chosen only if no other name ends with it, part for part, so two
    labels can never be equal; a name that is itself the tail of another keeps
    all of it (``b/x`` beside ``a/b/x``)."""
    unique = sorted({n for n in names if isinstance(n, str) and n})
    split = {n: _parts(n) for n in unique}
    # Other names grouped by their last part: only those can share a tail.
    by_last: dict[str, list[list[str]]] = {}
    for parts in split.values():
        by_last.setdefault(parts[-1], []).append(parts)
    for word in RESERVED:
        by_last.setdefault(word, []).append([word])
    labels: dict[str, str] = {}
    for n, parts in split.items():
        if n in RESERVED:
            labels[n] = n
            continue
        rivals = [p for p in by_last[parts[-1]] if p != parts]
        label = n
        for k in range(1, len(parts) + 1):
            tail = parts[-k:]
            if tail == [""] or (tail == ["~"] and k < len(parts)):
                continue  # never a bare "" or "~" for something longer
            if not any(_ends_with(r, tail) for r in rivals):
                label = _tail(parts, k)
                break
        labels[n] = label
    return labels


def short_labels(full_by_id: Mapping[str, str]) -> dict[str, str]:
    """Project id → short label, for every id that has a full name."""
    tails = tail_labels(full_by_id.values())
    return {pid: tails[full] for pid, full in full_by_id.items() if full in tails}


def project_labels(
    state: Mapping[str, Any], *, here: tuple[str, str | None] | None = None
) -> dict[str, str]:
    """Scope id → its short label among the projects a session names: what every face
    shows for a project, the same on every pane and in every answer."""
    from memoir_tui.core.rules.scope import project_names

    return short_labels(project_names(state, here=here))


def label_of(project: str | None, labels: Mapping[str, str], fallback: str = "") -> str:
    """The label a face shows for an item's ``project``: ``global`` for none,
    ``shared`` for memoir's shared scope, else its short label (or ``fallback``)."""
    if not project:
        return GLOBAL
    if project == SHARED:
        return SHARED
    return labels.get(project) or fallback or project


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, cut in the middle so the tail (a file's
    name, a project's folder) and the head (``~/``) stay: ``~/code/…/tideline-web/x.md``."""
    if width <= 0:
        return ""
    if len(text) <= width:
        return text
    if width == 1:
        return "…"
    tail = (width - 1) * 2 // 3 + ((width - 1) % 3 > 0)
    head = width - 1 - tail
    return text[:head] + "…" + text[len(text) - tail :]


@functools.lru_cache(maxsize=512)
def _folder_identity(path: str) -> tuple[str, str]:
    """(project id, full name) of an entry's project folder, as ``scope`` computes them."""
    from memoir_tui.core.rules.scope import project_identity

    try:
        ident = project_identity(path, home=Path.home())
    except (OSError, ValueError):
        return "", path
    return ident.id, ident.label or path


def place_labels(projects: Iterable[str], full_by_id: Mapping[str, str]) -> dict[str, str]:
    """Label for each entry ``project`` (a memoir project id, or a folder path), among the
    session's projects (``full_by_id``) and these: a folder that is a project the session
    names gets that project's label, so every pane says the same."""
    names = dict(full_by_id)
    alias: dict[str, str] = {}
    for project in {p for p in projects if p}:
        if project in names or project == SHARED:
            continue
        if project.startswith(("/", "~")):
            pid, full = _folder_identity(project)
            if pid in names:
                alias[project] = pid
                continue
            names[project] = full
    labels = short_labels(names)
    for project, pid in alias.items():
        labels[project] = labels[pid]
    return labels


def queue_labels(session_names: Mapping[str, str], items: Iterable[object]) -> dict[str, str]:
    """Short labels for review candidates (``project``/``project_label`` attributes) among
    the session's projects and the queue's, so the queue names projects as every face does."""
    names = dict(session_names)
    for item in items:
        pid, full = getattr(item, "project", ""), getattr(item, "project_label", "")
        if pid and full:
            names.setdefault(pid, full)
    return short_labels(names)
