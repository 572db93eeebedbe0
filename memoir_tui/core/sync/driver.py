"""A git merge driver for ``session.json`` and ``review.json``, for stores kept in git.

git calls ``memoir-tui merge-driver %O %A %B %P``: the ancestor, ours (the
result is written here), theirs, and the path. The format's merge is a join of
states, so the ancestor is not needed: the result is ``merge(ours, theirs)``.
Exit 0 means merged; exit 1 leaves ours untouched and tells git there is a
conflict, which we do for unreadable JSON and for a side written by a newer
format (it must not be interpreted, and must not be silently dropped either).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.base.fsutil import atomic_write_bytes, atomic_write_text
from memoir_tui.core.base.gitexe import GitNotFoundError, git_env, git_executable
from memoir_tui.core.sync.errors import GitError, SyncError

DRIVER_NAME = "memoir"
ATTRIBUTE_LINES = (f"session.json merge={DRIVER_NAME}", f"review.json merge={DRIVER_NAME}")


@dataclass(frozen=True, slots=True)
class DriverOutcome:
    code: int  # 0 merged, 1 conflict
    message: str


def _load(path: Path) -> Any:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if not data.strip():
        return None
    return json.loads(data.decode("utf-8"))


def _kind(name: str | None, ours: Any, theirs: Any) -> str:
    base = os.path.basename(name or "")
    if base == "review.json":
        return "review"
    if base == "session.json":
        return "session"
    for side in (ours, theirs):
        if isinstance(side, dict) and ("current" in side or "machines" in side):
            return "session"
        if isinstance(side, dict) and "items" in side:
            return "review"
    return "session"


def merge_files(
    ancestor: Path, ours: Path, theirs: Path, path_name: str | None = None
) -> DriverOutcome:
    """Merge ``theirs`` into ``ours`` in place (git's %A)."""
    del ancestor  # a join of states needs no common ancestor
    try:
        mine, other = _load(ours), _load(theirs)
    except (ValueError, UnicodeDecodeError) as exc:
        return DriverOutcome(1, f"memoir merge driver: unreadable JSON ({exc}); left as a conflict")
    if other is None:
        return DriverOutcome(0, "memoir merge driver: nothing to merge")
    if mine is None:
        mine = {}
    if not isinstance(mine, dict) or not isinstance(other, dict):
        return DriverOutcome(1, "memoir merge driver: a side is not a JSON object; conflict")
    kind = _kind(path_name, mine, other)
    if kind == "session":
        from memoir_tui.core.format.merge import contributes_to_merge, merge_sessions
        from memoir_tui.core.format.session import encode_session

        for side in (mine, other):
            if side and not contributes_to_merge(side):
                return DriverOutcome(
                    1,
                    "memoir merge driver: a side is from a newer memoir format; it is not "
                    "interpreted, so the file is left as a conflict",
                )
        merged = merge_sessions(mine, other) if mine else other
        atomic_write_bytes(ours, encode_session(merged))
        return DriverOutcome(0, "memoir merge driver: session merged")
    from memoir_tui.core.format.review_file import (
        contributes_to_review_merge,
        encode_review,
        merge_review,
    )

    for side in (mine, other):
        if side and not contributes_to_review_merge(side):
            return DriverOutcome(
                1, "memoir merge driver: a review queue is from a newer memoir-tui; conflict"
            )
    atomic_write_bytes(ours, encode_review(merge_review(mine, other)))
    return DriverOutcome(0, "memoir merge driver: review queue merged")


def driver_command() -> str:
    """How git should start us: the console script if installed, else this Python."""
    script = shutil.which("memoir-tui")
    if script:
        base = shlex.quote(str(Path(script).resolve()))
    else:
        base = f"{shlex.quote(sys.executable)} -m memoir_tui"
    return f"{base} merge-driver %O %A %B %P"


@dataclass(frozen=True, slots=True)
class DriverRegistration:
    repo_root: Path
    attributes: Path
    command: str
    added_lines: tuple[str, ...]


def register_driver(directory: Path) -> DriverRegistration:
    """Register the driver in the git repository holding ``directory``.

    Adds ``session.json merge=memoir`` and ``review.json merge=memoir`` to
    ``directory/.gitattributes`` (once) and sets ``merge.memoir.name`` and
    ``merge.memoir.driver`` in that repository's config.
    """
    directory = directory.expanduser().resolve()
    try:
        exe = git_executable()
    except GitNotFoundError as exc:
        raise GitError(str(exc)) from None  # a sync failure is a SyncError
    env = git_env()
    proc = subprocess.run(
        [exe, "-C", str(directory), "rev-parse", "--show-toplevel"],
        capture_output=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    if proc.returncode != 0:
        raise SyncError(
            f"{directory} is not inside a git repository; --driver-only is for stores you "
            "keep in git yourself"
        )
    root = Path(proc.stdout.decode().strip())
    attributes = directory / ".gitattributes"
    try:
        existing = attributes.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = ""
    present = {line.strip() for line in existing.splitlines()}
    added = tuple(line for line in ATTRIBUTE_LINES if line not in present)
    if added:
        text = existing + ("" if not existing or existing.endswith("\n") else "\n")
        text += "".join(f"{line}\n" for line in added)
        atomic_write_text(attributes, text)
    command = driver_command()
    for key, value in (
        (f"merge.{DRIVER_NAME}.name", "memoir format merge (memoir-tui)"),
        (f"merge.{DRIVER_NAME}.driver", command),
    ):
        proc = subprocess.run(
            [exe, "-C", str(root), "config", "--local", key, value],
            capture_output=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=60,
        )
        if proc.returncode != 0:
            raise GitError(f"git config {key} failed: {proc.stderr.decode(errors='replace')}")
    return DriverRegistration(root, attributes, command, added)
