"""Forget everywhere, with a receipt (``store.forget``).

A text (matched case-insensitively, as a substring) is looked for in every place
this project knows: the session (every list, decisions' why and rejected too,
history), the review queue, entry files, the copies kept aside of damaged files,
the trash, every host tool's memory, rules and instruction files that
``core.adapters`` knows, the recall index (a cache) and the sync copy. Each place
found is shown with a line of context (``scan``); ``apply`` changes them in one
``Store.transaction`` and then scans again, so its ``Receipt`` says what was
checked, what changed and where the text still is.

What ``apply`` does to each place:

* session items are hidden (``purge``: redacted to a hash; a tombstone's words
  go and a purged hidden copy keeps the item from coming back);
* review candidates holding the text are removed;
* in entry and host files every line holding the text is removed; a file left
  with nothing but blank lines (and frontmatter) goes. Without ``purge`` the old
  bytes of every file changed are kept in the store's trash (not synced, so
  outside the sync folder; ``memoir-tui trash restore`` puts them back); with
  ``purge`` nothing keeps them, and trash copies holding the text go too;
* caches are dropped (the recall index rebuilds from the files; the sync copy
  from the remote). A marker staged in the same commit (holding no text) makes the
  next command finish that if the process dies first.

Core only: never prints, never imports textual or mcp.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.format.items import (
    FILES,
    PURGED_TEXT,
    REVIEW,
    SESSION,
    TOMBSTONE_LIST,
    current_of,
    decision_key,
    has_text,
    is_purged,
    list_field,
    purged_form,
)
from memoir_tui.core.rules.needle import clean_needle, shown
from memoir_tui.core.services.places import Place
from memoir_tui.core.services.places import context_line as _context
from memoir_tui.core.services.places import git_objects_hold as _git_objects_hold
from memoir_tui.core.services.purge_marker import stage_cache_scrub
from memoir_tui.core.workflows import purge as caches

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.door.transaction import Transaction
    from memoir_tui.core.format.items import Outcome
    from memoir_tui.core.services.entries import EntryFiles
    from memoir_tui.core.services.receipts import KeptReceipt
    from memoir_tui.core.services.trash import Trash
    from memoir_tui.core.services.working_set import WorkingSetService

log = logging.getLogger(__name__)

LIVE_LISTS = ("goals", "next_actions", "open_questions")
JS_EVENTS = "events.jsonl"  # the JavaScript tool's event log: one JSON event a line
GC_COMMAND = "git reflog expire --expire=now --all && git gc --prune=now"
# A folder in the store with one of these endings stands where a file belongs.
_FILE_SUFFIXES = (".json", ".jsonl", ".lock", ".flock", ".toml", ".id", ".md")


@dataclass(frozen=True, slots=True)
class Scan:
    needle: str
    places: tuple[Place, ...]
    checked: tuple[str, ...]  # every place looked at, as a person reads it


@dataclass(frozen=True, slots=True)
class Receipt:
    needle: str
    purge: bool
    dry_run: bool
    checked: tuple[str, ...]
    found: tuple[Place, ...]
    changed: tuple[str, ...] = ()
    remaining: tuple[Place, ...] = ()
    notes: tuple[str, ...] = ()

    def as_kept(self, *, time: str, actor: str) -> KeptReceipt:
        """This receipt as kept (``core.receipts``): places without context, the text
        as ``[forgotten]``."""
        from memoir_tui.core.services.receipts import KeptReceipt, kept_lines

        mode = "purge" if self.purge else "hide"
        lines = [f"checked {len(self.checked)} place(s)"]
        lines.append(f"found in {len(self.found)} place(s):" if self.found else "found nowhere")
        for p in self.found:
            where = f" ({p.where})" if p.where else ""
            lines.append(f"  {p.kind}: {p.path}{where} → {p.action or 'left as it is'}")
        lines.append(f"changed {len(self.changed)}:" if self.changed else "changed nothing")
        lines += [f"  {c}" for c in self.changed]
        if self.remaining:
            lines.append(f"still there, {len(self.remaining)} place(s):")
            for p in self.remaining:
                where = f" ({p.where})" if p.where else ""
                lines.append(f"  {p.kind}: {p.path}{where}")
        else:
            lines.append("still there: in none of the places checked")
        lines += [f"note: {n}" for n in self.notes]
        title = f"forget everywhere ({mode}): {len(self.needle)} characters of text"
        return KeptReceipt(time, "forget_everywhere", actor, title, kept_lines(lines, self.needle))

    def render(self) -> str:
        mode = "purge" if self.purge else "hide"
        what = shown(self.needle)
        lines = [f"forget {what!r} everywhere ({mode}{', dry run' if self.dry_run else ''})"]
        lines.append(f"checked {len(self.checked)} place(s):")
        lines.extend(f"  {c}" for c in self.checked)
        lines.append(
            f"found in {len(self.found)} place(s):"
            if self.found
            else "found in none of the places checked"
        )
        for p in self.found:
            action = f"  → {p.action}" if p.action else "  → left as it is"
            lines.append(f"  {p.line()}{action}")
        if self.dry_run:
            lines.append("dry run: nothing was changed")
        else:
            lines.append(f"changed {len(self.changed)}:" if self.changed else "changed nothing")
            lines.extend(f"  {c}" for c in self.changed)
            if self.remaining:
                lines.append(f"still there, {len(self.remaining)} place(s):")
                lines.extend(f"  {p.line()}" for p in self.remaining)
            else:
                lines.append("still there: in none of the places checked")
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "needle": shown(self.needle),
            "purge": self.purge,
            "dry_run": self.dry_run,
            "checked": list(self.checked),
            "found": [p.to_dict() for p in self.found],
            "changed": list(self.changed),
            "remaining": [p.to_dict() for p in self.remaining],
            "notes": list(self.notes),
        }


def _holds(value: Any, needle: str) -> bool:
    """Any string inside ``value`` (recursively) holds ``needle`` (folded)."""
    if isinstance(value, str):
        return needle in value.lower()
    if isinstance(value, dict):
        return any(_holds(v, needle) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, needle) for v in value)
    return False


def _first_text(value: Any, needle: str) -> str:
    if isinstance(value, str):
        return value if needle in value.lower() else ""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for v in items:
        found = _first_text(v, needle)
        if found:
            return found
    return ""


def strip_lines(text: str, needle: str) -> str | None:
    """``text`` without the lines holding ``needle``; None when nothing would be left
    but blank lines and frontmatter (the file is only that text: it goes)."""
    folded = needle.lower()
    kept = [line for line in text.splitlines(keepends=True) if folded not in line.lower()]
    rest = "".join(kept)
    body = rest
    if body.startswith("---"):
        end = body.find("\n---", 3)
        if end >= 0:
            body = body[end + 4 :]
    if not body.strip():
        return None
    return rest


class Forgetter:
    """``store.forget``: find a text in every place, forget it, say what is left."""

    def __init__(
        self, store: Store, working: WorkingSetService, trash: Trash, entries: EntryFiles
    ) -> None:
        self.store = store
        self.working = working
        self.trash = trash
        self.entries = entries
        self.project_dirs: list[str] = []
        # folders the caller works in besides the working directory (an MCP client's
        # roots): each one's project is searched as the working directory's is
        self.roots: tuple[Path, ...] = ()

    def within(self, roots: Iterable[str | os.PathLike[str]]) -> Forgetter:
        """Search these folders' projects too (every root an MCP client declares)."""
        self.roots = tuple(Path(r) for r in roots)
        return self

    def working_projects(self, home: Path) -> list[str]:
        """The working directory's project and each root's (its git work tree, else the
        folder), never home, / or a folder above home."""
        from memoir_tui.core.rules.scope import find_git_dir, is_outside_projects

        try:
            here: list[Path] = [Path(os.getcwd())]
        except OSError:
            here = []
        out: list[str] = []
        for folder in [*here, *self.roots]:
            try:
                if not folder.is_dir() or is_outside_projects(folder, home=home):
                    continue
                tree = find_git_dir(folder)
            except OSError:
                continue
            out.append(os.path.normpath(str(tree[0]) if tree else folder))
        return list(dict.fromkeys(out))

    # --- where to look ----------------------------------------------------------------

    def _home_env(self) -> tuple[Path, dict[str, str]]:
        env = dict(os.environ)
        return Path(env.get("HOME") or os.path.expanduser("~")), env

    def host_files(self) -> Iterator[tuple[str, Path]]:
        """Every file of every host tool the adapters know (tool, path), outside the store."""
        from memoir_tui.core.hosts.adapters.walk import Project, sources, walk_source

        home, env = self._home_env()
        projects = [
            Project(os.path.normpath(str(p)), "config") for p in self.store.config.project_roots
        ]
        projects += [
            Project(os.path.normpath(str(p)), "config") for p in self.store.config.inject.projects
        ]
        # The working directory's project (its work tree) and the roots', never home, /
        # or above home.
        projects += [Project(p, "cwd") for p in self.working_projects(home)]
        srcs, found_projects, _disc = sources(
            home, env, store_root=self.store.root, projects=projects
        )
        # Said in the receipt: a project folder nothing names is not searched.
        self.project_dirs = sorted(
            {os.path.normpath(p.path) for p in found_projects if os.path.isdir(p.path)}
        )
        store_root = os.path.realpath(self.store.root)
        seen: set[str] = set()
        links: list[Path] = []
        for src in srcs:
            walked = walk_source(src)
            links += [Path(path) for path, why in walked.notes if why.startswith("symlink leads")]
            for found in walked.files:
                real = os.path.realpath(found.path)
                if real in seen or real.startswith(store_root + os.sep):
                    continue
                seen.add(real)
                yield found.tool, Path(found.path)
        self._links_out = sorted(set(links))

    def _linked_out(self, needle: str) -> Iterator[Place]:
        """Host files that are links leading out of their tool's folders: the walker never
        follows them, so they are never edited here; one whose target holds the text is
        named (read only when it is a markdown file, never a credentials name)."""
        from memoir_tui.core.base.fsutil import open_regular
        from memoir_tui.core.hosts.adapters import MAX_FILE_BYTES, is_denied, is_markdown

        for link in getattr(self, "_links_out", ()):
            if not is_markdown(link.name) or is_denied(link.name):
                continue
            try:
                with open_regular(link) as fh:
                    data = fh.read(MAX_FILE_BYTES)
            except OSError:
                continue
            text = data.decode("utf-8", "replace")
            if needle.lower() in text.lower():
                target = os.path.realpath(link)
                yield Place(
                    "host-link",
                    str(link),
                    f"a link to {target}, outside the tool's folders",
                    "",  # a link's target is never quoted (only named)
                    "",
                )

    def _transcripts(self) -> Iterator[Path]:
        from memoir_tui.core.hosts.adapters import transcripts_dir

        home, env = self._home_env()
        root = transcripts_dir("claude-code", home, env)
        if not root.is_dir():
            return
        for dirpath, dirs, names in os.walk(root):
            for name in names + [d for d in dirs if d.endswith(".jsonl")]:
                if name.endswith(".jsonl"):
                    yield Path(dirpath) / name

    def _entry_files(self) -> list[Path]:
        try:
            return sorted(p for p in self.store.memory_dir.iterdir() if p.is_file())
        except OSError:
            return []

    def _other_files(self) -> list[Path]:
        """Files directly in the store no other place covers (read, never edited here)."""
        from memoir_tui.core.door.audit import AUDIT_FILE
        from memoir_tui.core.format.session import SESSION_FILE
        from memoir_tui.core.services.review import REVIEW_FILE

        covered = {SESSION_FILE, REVIEW_FILE, JS_EVENTS, *(p.name for p in self._quarantined())}
        try:
            names = sorted(os.listdir(self.store.root))
        except OSError:
            return []
        return [
            self.store.root / n
            for n in names
            if n not in covered
            and not n.startswith(AUDIT_FILE)  # hashes only, never text
            and (self.store.root / n).is_file()
            and not (self.store.root / n).is_symlink()
        ]

    def _odd_store_files(self) -> list[Path]:
        """What stands in the store where a file belongs but is none: a FIFO, a device, a
        link, or a folder with a file's name (each said, none read)."""
        import stat

        odd = []
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(self.store.root)):
                path = self.store.root / name
                with contextlib.suppress(OSError):
                    mode = os.lstat(path).st_mode
                    if stat.S_ISREG(mode):
                        continue
                    if stat.S_ISDIR(mode) and not name.endswith(_FILE_SUFFIXES):
                        continue
                    odd.append(path)
        return odd

    def _quarantined(self) -> list[Path]:
        from memoir_tui.core.format.session import QUARANTINED

        return sorted(p for pattern in QUARANTINED for p in self.store.root.glob(pattern))

    def _trash_files(self) -> list[Path]:
        root = self.store.root / "trash"
        out: list[Path] = []
        for dirpath, _dirs, names in os.walk(root):
            out.extend(Path(dirpath) / n for n in names)
        return sorted(out)

    def _recall_files(self) -> list[Path]:
        from memoir_tui.core.base.cachedir import cache_dir

        directory = cache_dir()
        try:
            names = os.listdir(directory)
        except OSError:
            return []
        return sorted(directory / n for n in names if n.startswith("recall-") and ".sqlite3" in n)

    def _sync(self) -> tuple[Any, Path, str] | None:
        """(config, local repository, remote) when sync is set up."""
        from memoir_tui.core.sync.config import load_sync_config, sync_config_path
        from memoir_tui.core.sync.engine import SyncCopy

        if not sync_config_path(self.store.root).exists():
            return None
        try:
            config = load_sync_config(self.store.root)
        except MemoirError:
            return None
        copy = SyncCopy(self.store, config)
        return config, copy.repo, config.remote

    # --- scanning -------------------------------------------------------------------------

    def scan(self, needle: str, *, purge: bool = False) -> Scan:
        needle = clean_needle(needle, "text to forget")
        folded = needle.lower()
        places: list[Place] = []
        checked: list[str] = []
        store = self.store

        # the session
        checked.append(f"session: {store.session_path}")
        state = store.load().state
        for list_key, items in current_of(state).items():
            if not isinstance(items, list):
                continue
            for item in items:
                if not isinstance(item, dict) or not _holds(item, folded):
                    continue
                hidden = bool(item.get("hidden")) or is_purged(item)
                if not purge:
                    action = "hide it" if list_key in ("decisions", *LIVE_LISTS) else ""
                    action = "" if hidden else action  # its words stay until a purge
                else:
                    action = "purge it: only its hash remains"
                places.append(
                    Place(
                        "session",
                        str(store.session_path),
                        list_key + (" (hidden)" if hidden else ""),
                        _context(_first_text(item, folded), needle),
                        action,
                    )
                )
        history = list_field(state, "history")
        for entry in history:
            if isinstance(entry, dict) and _holds(entry, folded):
                places.append(
                    Place(
                        "session",
                        str(store.session_path),
                        "history",
                        _context(_first_text(entry, folded), needle),
                        "redact the summary" if purge else "",
                    )
                )
        # the review queue
        from memoir_tui.core.format.review_file import load_review, well_formed_review_items
        from memoir_tui.core.services.review import REVIEW_FILE

        review_path = store.root / REVIEW_FILE
        checked.append(f"review queue: {review_path}")
        loaded = load_review(review_path)
        for item in well_formed_review_items(loaded.state.get("items")):
            if _holds(item, folded):
                places.append(
                    Place(
                        "review",
                        str(review_path),
                        "candidate",
                        _context(_first_text(item, folded), needle),
                        "remove the candidate",
                    )
                )
        # files of the store, and every host tool's
        groups: list[tuple[str, str, Iterable[Path], str]] = [
            ("entry", f"entry files: {store.memory_dir}", self._entry_files(), "line"),
            ("quarantine", "copies kept aside of damaged files", self._quarantined(), "word"),
            ("trash", f"trash: {store.root / 'trash'}", self._trash_files(), "trash"),
            (
                "js-events",
                f"the JavaScript tool's event log: {store.root / JS_EVENTS}",
                [p for p in [store.root / JS_EVENTS] if p.is_file()],
                "line",
            ),
            ("store-file", f"other files of the store: {store.root}", self._other_files(), ""),
        ]
        from memoir_tui.core.base.safeio import not_read_sentence

        checked.extend(not_read_sentence(p) for p in self._odd_store_files())
        hosts = list(self.host_files())
        checked.append(f"host tools' memory, rules and instruction files: {len(hosts)} file(s)")
        if self.project_dirs:
            checked.append(f"project folders: {', '.join(self.project_dirs)}")
        checked.append(
            "other project folders were not searched: run inside one, or list it in "
            "[recall] project_roots"
        )
        groups.append(("host", "", [p for _t, p in hosts], "line"))
        for kind, label, paths, how in groups:
            if label:
                checked.append(label)
            for path in paths:
                place = self._file_place(kind, path, needle, how, purge)
                if place is not None:
                    places.append(place)
        places.extend(self._linked_out(needle))
        # places kept by their owner's rules: memoir's canonical memories and ledger,
        # Codex's memory database, rollouts and its memories folder's git history
        from memoir_tui.core.services import places as kept_places

        home, env = self._home_env()
        found, looked = kept_places.scan(
            store, needle, purge=purge, projects=self.project_dirs, home=home, env=env
        )
        places += found
        checked += looked
        places += kept_places.git_places(store, needle, home=home, env=env)
        transcripts = list(self._transcripts())
        checked.append(f"Claude Code transcripts: {len(transcripts)} file(s) (never edited)")
        from memoir_tui.core.base.safeio import not_read_sentence

        for path in transcripts:
            if not path.is_file():  # a FIFO, a device, a folder, a link to one
                checked.append(not_read_sentence(path))
                continue
            place = self._file_place("transcript", path, needle, "")
            if place is not None:
                places.append(place)
        checked.append(
            "not searched: project folders nothing names (above), other machines, backups "
            "and cloud copies, git histories other than those named, and the files of tools "
            "memoir-tui does not know"
        )
        # caches
        recall = self._recall_files()
        checked.append(f"recall index: {len(recall)} file(s)")
        for path in recall:
            if self._bytes_hold(path, folded):
                places.append(
                    Place("recall", str(path), "cache", "(indexed text)", "drop the index")
                )
        sync = self._sync()
        if sync is None:
            checked.append("sync: not set up")
        else:
            config, repo, remote = sync
            checked.append(f"sync copy: {repo}")
            if repo.exists() and (config.encrypt or _git_objects_hold(repo, folded)):
                places.append(
                    Place(
                        "sync",
                        str(repo),
                        "history",
                        "(encrypted history)" if config.encrypt else "(in its git objects)",
                        "discard the copy's history, then sync the forgotten state",
                    )
                )
            checked.append(f"sync remote: {remote}")
            remote_path = Path(remote)
            if remote_path.is_dir() and (config.encrypt or _git_objects_hold(remote_path, folded)):
                places.append(self._remote_place(remote, config.encrypt))
        return Scan(needle, tuple(places), tuple(checked))

    def _remote_place(self, remote: str, encrypted: bool) -> Place:
        return Place(
            "remote",
            remote,
            "git objects",
            "(encrypted)" if encrypted else "(in its git objects)",
            "sync the forgotten state (its head lets go; old objects stay until expired there)",
        )

    @staticmethod
    def _bytes_hold(path: Path, folded: str) -> bool:
        from memoir_tui.core.base.safeio import read_file_safely

        try:
            data = read_file_safely(path, max_bytes=1 << 30)
        except OSError:
            return False
        return folded.encode("utf-8") in data.lower()

    _STORE_KINDS = ("entry", "quarantine", "trash", "js-events", "store-file")

    def _owner(self, path: Path, kind: str) -> Path:
        """The folder whose owner reads ``path``: the store for its files; for a host's
        file its project folder, else the home."""
        if kind in self._STORE_KINDS:
            return self.store.root
        here = os.path.abspath(path)
        for project in getattr(self, "project_dirs", ()):
            if here.startswith(project.rstrip(os.sep) + os.sep):
                return Path(project)
        return self._home_env()[0]

    def _file_place(
        self, kind: str, path: Path, needle: str, how: str, purge: bool = False
    ) -> Place | None:
        from memoir_tui.core.base.safeio import LinkOutsideError, read_file_safely, write_target
        from memoir_tui.core.hosts.adapters import MAX_FILE_BYTES

        owner = self._owner(path, kind)
        try:
            write_target(path, within=owner)
        except LinkOutsideError as exc:
            if kind == "transcript":
                return None  # never read through a link out
            try:  # read (never edited) only to say whether it holds the text; no context
                data = read_file_safely(exc.target, max_bytes=MAX_FILE_BYTES)
            except OSError:
                return None
            if needle.lower() not in data.decode("utf-8", "replace").lower():
                return None
            return Place("link-out", str(path), f"a link to {exc.target}, outside {owner}", "")
        try:
            data = read_file_safely(path, max_bytes=MAX_FILE_BYTES)
        except OSError:
            return None
        text = data.decode("utf-8", "replace")
        if needle.lower() not in text.lower():
            return None
        action = ""
        if how == "word" and not purge:
            how = ""
        if how == "trash" and not purge:
            how = ""
        if how == "line":
            left = strip_lines(text, needle)
            action = "remove the lines holding it"
            if left is None:
                action = (
                    "remove the lines holding it (the log is kept)"
                    if kind == "js-events"
                    else "empty it (a link: its target is kept)"
                    if path.is_symlink()
                    else "remove the file"
                )
        elif how == "word":
            action = "replace it with [purged]"
        elif how == "trash":
            action = "remove the kept copy"
        line_no = text.lower()[: text.lower().find(needle.lower())].count("\n") + 1
        return Place(kind, str(path), f"line {line_no}", _context(text, needle), action)

    # --- forgetting -----------------------------------------------------------------------

    def apply(
        self, needle: str, *, purge: bool = False, dry_run: bool = False, _again: bool = True
    ) -> Receipt:
        before = self.scan(needle, purge=purge)
        if dry_run or not before.places:
            return Receipt(before.needle, purge, dry_run, before.checked, before.places)
        changed: list[str] = []
        notes: list[str] = []
        edited_hosts: list[str] = []
        hosts = {str(p) for _t, p in self.host_files()}
        from memoir_tui.core.services import places as kept_places

        canonical = [p for p in before.places if p.kind in ("memoir-memory", "memoir-history")]
        # memoir's own lock on its canonical memories, held across the commit
        memoir_lock = kept_places.canonical_lock(self.store.root) if canonical else nullcontext()
        with (
            memoir_lock,
            self.store.transaction("forget_everywhere", files=(SESSION, REVIEW, FILES)) as tx,
        ):
            changed += kept_places.forget_canonical(tx, self.store, canonical, purge=purge)
            changed += self._forget_session(tx, before.needle, purge)
            changed += self._forget_review(tx, before.needle)
            editable = ("entry", "host", "js-events")
            paths = [Path(p.path) for p in before.places if p.kind in editable]
            entries_before: dict[Path, bytes] = {}
            for path in dict.fromkeys(paths):
                ours = path.parent == self.store.memory_dir or path == self.store.root / JS_EVENTS
                if not ours and str(path) not in hosts:
                    continue
                entry = path.parent == self.store.memory_dir and not path.is_symlink()
                old = tx.read_bytes(path) if entry else None
                lines = self._forget_lines(tx, path, before.needle)
                if lines and not ours:
                    edited_hosts.append(str(path))
                if lines and old is not None:
                    entries_before[path] = old
                changed += lines
            # other machines under sync must not bring these entries' words back
            from memoir_tui.core.sync.purges import stage_entry_forget

            stage_entry_forget(tx, self.store, entries_before, purge=purge)
            if purge:
                changed += self._purge_words(tx, before.needle)
                for place in before.places:
                    if place.kind == "trash" and tx.exists(place.path):
                        tx.remove(place.path)
                        changed.append(f"removed the trash copy {place.path}")
            else:
                kept = self.trash.keep(tx, f"forget {shown(before.needle)!r} everywhere")
                if kept:
                    changed.append(
                        f"kept the old bytes of the files changed in the trash ({kept}; "
                        "`memoir-tui trash restore` puts them back)"
                    )
            stage_cache_scrub(tx)
            # no hash of the needle: a short codename's hash is a guess away from its text
            tx.audit("forget_everywhere", "files")
        scrubbed = caches.finish_cache_scrub(self.store)
        changed += scrubbed
        if canonical and purge:
            kept_places.remove_empty_history(self.store.root)
        home, env = self._home_env()
        committed, git_notes = kept_places.commit_git_folders(
            self.store, edited_hosts, before.needle, shown(before.needle), home=home, env=env
        )
        changed += committed
        if any(p.kind in ("sync", "remote") for p in before.places):
            notes += self._push_forgotten_state(purge)
        after = self.scan(before.needle, purge=purge)
        remaining = list(after.places)
        if _again and any(p.kind == "entry" for p in remaining) and self._sync() is not None:
            # the sync brought the words back in another machine's entry file (written
            # before it heard of this forget): once more, and that sync carries it on
            again = self.apply(needle, purge=purge, _again=False)
            changed += list(again.changed)
            notes += list(again.notes)
            remaining = list(again.remaining)
        for place in remaining:
            if place.kind == "remote":
                notes.append(
                    f"the sync remote {place.path} keeps the old commits' objects until they "
                    f"are expired; run there: {GC_COMMAND}"
                )
        sync = self._sync()
        if sync is not None and not Path(sync[2]).is_dir():
            notes.append(
                f"the sync remote {sync[2]} is not on this machine, so it was not searched: "
                f"its old commits' objects may still hold the text; run there: {GC_COMMAND}"
            )
        if not purge and any(p.kind == "session" for p in remaining):
            notes.append("hidden items keep their words in session.json; --purge removes them")
        for place in remaining:
            if place.kind in ("host-link", "link-out"):
                notes.append(
                    f"{place.path} is {place.where}: links out are never followed to edit; "
                    "remove the lines there by hand"
                )
        if any(p.kind == "git-history" for p in remaining):
            notes += git_notes
        if not purge and any(p.kind in ("memoir-memory", "memoir-history") for p in remaining):
            notes.append(
                "a hidden canonical memory keeps its body and earlier revisions; --purge "
                "removes them"
            )
        notes += kept_places.remedies(remaining)
        receipt = Receipt(
            before.needle,
            purge,
            False,
            before.checked,
            before.places,
            tuple(changed),
            tuple(remaining),
            tuple(dict.fromkeys(notes)),
        )
        # kept for every face (the app's Audit pane lists them), the forgotten text left out
        from memoir_tui.core.services import receipts

        store = self.store
        unkept = receipts.keep(store, receipt.as_kept(time=store.clock(), actor=store.actor))
        return replace(receipt, notes=(*receipt.notes, unkept)) if unkept else receipt

    def _forget_session(self, tx: Transaction, needle: str, purge: bool) -> list[str]:
        store = self.store
        folded = needle.lower()
        current = tx.session["current"]
        changed: list[str] = []
        decisions = [
            d
            for d in current.get("decisions") or []
            if isinstance(d, dict) and has_text(d) and _holds(d, folded)
        ]
        for d in decisions:
            key = decision_key(d)
            outcome = self.working.purge_decision(key) if purge else self.working.hide_decision(key)
            if outcome.changed:
                changed.append(f"session: {shown(outcome.message)}")
        for list_key in LIVE_LISTS:
            items = current.get(list_key)
            if not isinstance(items, list):
                continue
            new_items: list[Any] = []
            for item in items:
                if not (isinstance(item, dict) and has_text(item) and _holds(item, folded)):
                    new_items.append(item)
                    continue
                if purge:
                    red = purged_form({**item, "text_hash": text_hash(item["text"])})
                    red = {k: v for k, v in red.items() if not _holds(v, folded)}
                    red["hidden_at"] = item.get("hidden_at") or store.clock()
                    new_items.append(red)
                    changed.append(f"session: a {list_key} item purged (only its hash remains)")
                elif not item.get("hidden"):
                    new_items.append({**item, "hidden": True, "hidden_at": store.clock()})
                    changed.append(f"session: {list_key} item hidden: {shown(item['text'])}")
                else:
                    new_items.append(item)
            current[list_key] = new_items
        if not purge:
            return changed
        for live_key, tomb_key in TOMBSTONE_LIST.items():
            records = current.get(tomb_key)
            if not isinstance(records, list):
                continue
            keep = []
            for record in records:
                if isinstance(record, dict) and has_text(record) and _holds(record, folded):
                    # the words go; a purged hidden copy keeps the item from coming back
                    stub = {
                        "text": PURGED_TEXT,
                        "text_hash": text_hash(record["text"]),
                        "hidden": True,
                        "hidden_at": store.clock(),
                    }
                    current.setdefault(live_key, []).append(stub)
                    changed.append(f"session: a record in {tomb_key} purged")
                else:
                    keep.append(record)
            current[tomb_key] = keep
        for record in current.get("retracted_decisions") or []:
            if isinstance(record, dict) and _holds(record, folded):
                for k in [k for k, v in record.items() if _holds(v, folded)]:
                    record.pop(k, None)
                changed.append("session: a retracted decision's words removed")
        for list_key, items in current.items():
            if list_key in ("decisions", *LIVE_LISTS, *TOMBSTONE_LIST.values()):
                continue
            if list_key == "retracted_decisions" or not isinstance(items, list):
                continue
            kept = [i for i in items if not _holds(i, folded)]
            if len(kept) != len(items):
                current[list_key] = kept
                changed.append(f"session: {len(items) - len(kept)} item(s) of {list_key} removed")
        history = tx.session.get("history")
        if isinstance(history, list):
            for entry in history:
                if isinstance(entry, dict) and _holds(entry, folded):
                    for k in [k for k, v in entry.items() if _holds(v, folded)]:
                        entry[k] = PURGED_TEXT if k == "summary" else None
                        if entry[k] is None:
                            entry.pop(k)
                    changed.append("session: a history summary redacted")
        return changed

    def _forget_review(self, tx: Transaction, needle: str) -> list[str]:
        """Every queue item holding the text leaves the queue as a redacted rejection (a
        tombstone with only its id and hash, so a replica's copy cannot bring it back)."""
        from memoir_tui.core.format.review_file import purged_item, well_formed_review_items

        folded = needle.lower()
        review = tx.review
        items = well_formed_review_items(review.get("items"))
        removed = 0
        for n, item in enumerate(items):
            if item.get("purged") is True and not _holds(item, folded):
                continue
            if _holds({k: v for k, v in item.items() if k != "near_hidden"}, folded):
                items[n] = purged_item(item, self.store.clock())
                removed += 1
            near = items[n].get("near_hidden")
            if isinstance(near, dict) and _holds(near, folded):
                items[n] = {
                    **items[n],
                    "near_hidden": {**near, "text": PURGED_TEXT, "purged": True},
                }
        if removed or items != well_formed_review_items(review.get("items")):
            review["items"] = items
        return [f"review queue: {removed} candidate(s) removed"] if removed else []

    def _forget_lines(self, tx: Transaction, path: Path, needle: str) -> list[str]:
        from memoir_tui.core.base.safeio import LinkOutsideError

        kind = "entry" if path.parent == self.store.memory_dir else "host"
        within = self.store.root if path.name == JS_EVENTS else self._owner(path, kind)
        try:
            data = tx.read_bytes(path, within=within)
        except LinkOutsideError:
            return []  # a link made out since the scan: left alone (the receipt's rescan names it)
        if data is None:
            return []
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return []
        if needle.lower() not in text.lower():
            return []
        left = strip_lines(text, needle)
        if left is None and path.name == JS_EVENTS:
            left = ""  # its log stays (it shows the JavaScript tool shares this store)
        if left is None and path.is_symlink():
            # removing the link would leave its target (a dotfiles repository's file)
            # holding the text: the target is emptied through the link instead
            tx.write_text(path, "", scan=False, within=within)
            return [f"emptied {path} (a link to {os.path.realpath(path)}; it held nothing else)"]
        if left is None:
            tx.remove(path)
            from memoir_tui.core.services.memory_index import drop_index_links

            # a host's index (Claude Code's MEMORY.md) must not keep a line linking to it
            return [f"removed {path} (it held nothing else)", *drop_index_links(tx, path, within)]
        removed = text.count("\n") - left.count("\n")
        if path.parent == self.store.memory_dir:
            from memoir_tui.core.format.entry_file import stamp_updated

            left = stamp_updated(left, self.store.clock())  # an entry's edit (FORMAT §2)
        tx.write_text(path, left, scan=False, within=within)
        return [f"removed {max(removed, 1)} line(s) from {path}"]

    def _purge_words(self, tx: Transaction, needle: str) -> list[str]:
        """The copies kept aside of damaged files: every occurrence becomes [purged]."""
        forms = {needle, json.dumps(needle)[1:-1], json.dumps(needle, ensure_ascii=False)[1:-1]}
        pattern = re.compile(
            "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)), re.I
        )
        changed = []
        for path in self._quarantined():
            data = tx.read_bytes(path)
            if data is None:
                continue
            text = data.decode("utf-8", "surrogateescape")
            new = pattern.sub("[purged]", text)
            if new != text:
                tx.write_bytes(path, new.encode("utf-8", "surrogateescape"), scan=False)
                changed.append(f"redacted the kept copy {path}")
        return changed

    def _push_forgotten_state(self, purge: bool) -> list[str]:
        """Carry the forgotten state to the remote now, so its old commits are left behind
        (with ``purge`` the remote branch is replaced, whatever file held the words)."""
        from memoir_tui.core.sync import run_sync

        try:
            result = run_sync(self.store, "sync", rewrite_history=purge)
        except MemoirError as exc:
            return [
                f"the sync remote still holds the text in its current files: {exc}; "
                "run `memoir-tui sync` to carry the forgotten state there"
            ]
        return [f"sync: {getattr(result, 'message', 'done')}"]


def forget_everywhere(forgetter: Forgetter, needle: str, *, purge: bool = False) -> Outcome:
    """``apply`` as an ``Outcome`` (for the app's one write path): its receipt as the
    message, no undo (a bulk forget is not taken back by ``u``)."""
    from memoir_tui.core.format.items import Outcome

    receipt = forgetter.apply(needle, purge=purge)  # its receipt kept (core/receipts)
    left = len(receipt.remaining)
    summary = f"forgot {shown(receipt.needle)!r} in {len(receipt.found)} place(s); " + (
        f"still in {left} place(s), each with its remedy (receipt: Audit, R):"
        if left
        else "found in none of the places checked afterwards; notes below (receipt: Audit, R)"
        if receipt.notes
        else "found in none of the places checked afterwards (receipt: Audit, R)"
    )
    # what is left, each with its owner's remedy in a few words: a toast is short, and
    # its first line (the summary) must stay in sight (the CLI's receipt says it in full)
    from memoir_tui.core.services.places import remedies, short_remedy

    home = str(Path.home())
    lines = [summary]
    for place in receipt.remaining[:8]:
        path = "~" + place.path[len(home) :] if place.path.startswith(home + os.sep) else place.path
        fix = short_remedy(place)
        lines.append(f"• {place.kind}: {path}" + (f" → {fix}" if fix else ""))
    if len(receipt.remaining) > 8:
        lines.append(f"• and {len(receipt.remaining) - 8} more")
    # the other notes (sync, a remote not on this machine …) in full
    said = set(remedies(receipt.remaining))
    lines += [
        n
        for n in receipt.notes
        if n not in said and "git filter-repo" not in n and "links out" not in n
    ][:4]
    return Outcome(bool(receipt.changed), "\n".join(lines))
