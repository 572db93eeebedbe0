"""Creating and editing entry files: ``EntryFiles`` (``store.entries``) is the service
that writes them, each change one store transaction. Their format (parsing, encoding,
names) is ``entry_file``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format import frontmatter
from memoir_tui.core.format.entry_file import (
    _UPDATED_LINE_RE,
    MAX_EDIT_BYTES,
    EntryError,
    render_entry,
    stamp_updated,
)
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.format.items import FILES, Outcome

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store


# --- the service: creating and editing entry files ---------------------------------------


@dataclass(frozen=True, slots=True)
class EntryEdit:
    """An edit in progress: ``$EDITOR`` works on ``draft``, a private copy of ``path``."""

    path: Path
    draft: Path
    before: bytes | None


class EntryFiles:
    """``store.entries``: new entry files and edits, each one store transaction."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(
        self,
        path: Path,
        meta: dict[str, Any],
        body: str,
        *,
        op: str = "create_entry",
        index: tuple[Path, Callable[[str], str]] | None = None,
        suffix: str = ".md",
    ) -> Path:
        """Write a new entry file; refuses (writing nothing) if ``path`` exists, even if it
        appears meanwhile. Secrets are refused by the transaction.

        ``index``: (an index file, old text → new text), rewritten in the same commit
        (Claude Code's ``MEMORY.md`` gets the new file's line), read under the lock."""
        data = render_entry(path, meta, body, suffix=suffix)
        with self.store.transaction(op, files=(FILES,)) as tx:
            tx.create(path, data)
            if index is not None:
                index_path, update = index
                if os.path.islink(index_path):
                    raise EntryError(f"{index_path} is a symlink; not edited")
                old = tx.read_bytes(index_path)
                try:
                    text = (old or b"").decode("utf-8")
                except UnicodeDecodeError:
                    raise EntryError(f"{index_path}: not UTF-8 text; not edited") from None
                tx.write_bytes(index_path, update(text).encode("utf-8"))
            tx.audit(op, "entries", text_hash(path.name))
        return path

    def begin_edit(self, path: str | os.PathLike[str]) -> EntryEdit:
        """A private copy of ``path`` for an editor (0600, in a 0700 folder of its own).

        The editor never writes the real file: ``finish_edit`` brings the change
        in through the store's door (locked, scanned, atomic, audited)."""
        from memoir_tui.core.base.safeio import (
            LinkOutsideError,
            create_exclusive,
            home_folder,
            owner_folder,
            read_file_safely,
            write_target,
        )

        target = Path(os.path.abspath(path))
        try:
            # a link out of the store (or the home) is never copied into an editor
            write_target(target, within=owner_folder(target, self.store.root, home_folder()))
            before: bytes | None = read_file_safely(target, max_bytes=MAX_EDIT_BYTES)
        except FileNotFoundError:
            before = None
        except LinkOutsideError:
            raise
        except OSError as exc:
            raise EntryError(f"{target}: cannot be read ({exc})") from None
        folder = Path(tempfile.mkdtemp(prefix="memoir-edit-"))
        draft = folder / target.name  # same name, so the editor knows the file type
        create_exclusive(draft, before or b"", within=folder)
        return EntryEdit(target, draft, before)

    def finish_edit(self, edit: EntryEdit) -> Outcome:
        """Write what the editor left in the draft, if it changed; the draft then goes.

        Refused — the draft kept, its path in the message — when the file changed
        on disk while it was being edited, or when the edit adds a secret.
        """
        try:
            from memoir_tui.core.base.safeio import read_file_safely

            after = read_file_safely(edit.draft, max_bytes=MAX_EDIT_BYTES)
        except OSError as exc:
            raise EntryError(f"the edited copy {edit.draft} cannot be read ({exc})") from None
        if after == (edit.before or b""):
            self.discard_edit(edit)
            return Outcome(False, f"{edit.path.name}: no change")
        from memoir_tui.core.services import places  # today's memoir's canonical memories

        canonical = edit.before is not None and places.is_canonical(edit.path, self.store.root)
        lock = places.canonical_lock(self.store.root) if canonical else contextlib.nullcontext()
        try:
            with lock, self.store.transaction("edit_entry", files=(FILES,)) as tx:
                if tx.read_bytes(edit.path) != edit.before:
                    raise EntryError(
                        f"{edit.path} changed on disk while it was being edited; nothing was "
                        f"written, and your edit is kept in {edit.draft}"
                    )
                if canonical and edit.before is not None:  # a new revision, as memoir writes
                    places.write_revision(tx, edit.path, edit.before, after, self.store.clock())
                else:
                    tx.write_bytes(edit.path, self._stamped(edit, after))
                tx.audit("edit_entry", "entries", text_hash(edit.path.name))
        except EntryError:
            raise
        except MemoirError as err:  # a secret, a read-only store, a lock that timed out
            raise EntryError(f"{err} (your edit is kept in {edit.draft})") from err
        self.discard_edit(edit)
        return Outcome(True, f"saved {edit.path.name}")

    def _stamped(self, edit: EntryEdit, after: bytes) -> bytes:
        """An entry file's edit gets ``updated`` stamped, unless the person set it."""
        if edit.path.parent != Path(os.path.abspath(self.store.memory_dir)):
            return after
        try:
            text = after.decode("utf-8")
            before = (edit.before or b"").decode("utf-8")
        except UnicodeDecodeError:
            return after

        def updated_line(t: str) -> list[str]:
            fm, _ = frontmatter.split(t)
            return _UPDATED_LINE_RE.findall(fm or "")

        if edit.before is not None and updated_line(text) != updated_line(before):
            return after
        return stamp_updated(text, self.store.clock()).encode("utf-8")

    def discard_edit(self, edit: EntryEdit) -> None:
        with contextlib.suppress(OSError):
            shutil.rmtree(edit.draft.parent)
