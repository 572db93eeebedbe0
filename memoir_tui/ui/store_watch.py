"""The app's one store watcher and the typed messages it posts.

Every half second the app compares cheap stamps (inode, mtime, size) of what
the panes show: the session, the review queue, the audit log and the folders
entry files live in. For each part that changed it posts a message to every
mounted pane, shown or hidden, so a pane shown again already holds what is on
disk. ``ctrl+r`` posts all four. Nothing here reads a file's contents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from memoir_tui.core import FileStamp, file_stamp

Stamp = tuple[FileStamp | None, ...]


class StoreChanged(Message, bubble=False):
    """Something the store holds changed on disk (or a reload was asked for)."""


class SessionChanged(StoreChanged):
    """``session.json`` changed; the app has already read it (``app.state``)."""


class ReviewChanged(StoreChanged):
    """``review.json`` changed."""


class AuditChanged(StoreChanged):
    """``audit.jsonl`` changed (every commit appends to it)."""


class EntriesChanged(StoreChanged):
    """A folder of entry files (the store's or a host tool's) changed its listing."""


class ScopeChanged(Message, bubble=False):
    """The person switched between this project and all projects (``A``)."""

    def __init__(self, all_projects: bool) -> None:
        super().__init__()
        self.all_projects = all_projects


ALL_CHANGES: tuple[type[StoreChanged], ...] = (
    SessionChanged,
    ReviewChanged,
    AuditChanged,
    EntriesChanged,
)


@dataclass(frozen=True, slots=True)
class Watched:
    """One part of the store: the message it posts and the paths whose stamps say it changed."""

    message: type[StoreChanged]
    paths: Callable[[], Sequence[Path]]

    def stamp(self) -> Stamp:
        return tuple(file_stamp(p) for p in self.paths())


class StoreWatcher:
    """Remembers the last stamps and says which parts changed since."""

    def __init__(self, parts: Iterable[Watched]) -> None:
        self._parts = tuple(parts)
        self._stamps: dict[type[StoreChanged], Stamp] = {}

    def mark_seen(self, *messages: type[StoreChanged]) -> None:
        """Take the current stamps of these parts (all when none named) as read."""
        wanted = set(messages) or {p.message for p in self._parts}
        for part in self._parts:
            if part.message in wanted:
                self._stamps[part.message] = part.stamp()

    def seen(self, message: type[StoreChanged]) -> bool:
        """Whether this part's stamps were taken (``mark_seen``)."""
        return message in self._stamps

    def changed(self) -> list[type[StoreChanged]]:
        """The parts whose stamps moved since they were last seen (now seen). A part not
        yet seen is not asked (its first stamps are taken by ``mark_seen``)."""
        moved = []
        for part in self._parts:
            if part.message not in self._stamps:
                continue
            stamp = part.stamp()
            if self._stamps.get(part.message) != stamp:
                self._stamps[part.message] = stamp
                moved.append(part.message)
        return moved
