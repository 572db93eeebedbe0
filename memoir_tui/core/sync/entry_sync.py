"""Three-way merge of entry files against the last synced base.

A store under sync is under version control, so the format's "newer
``updated`` wins" (FORMAT §4.2) gives way to a three-way merge (the format
allows it: "unless the store is under version control"). The base is what the
remote held at the end of this machine's last successful sync: the digest of
every file, kept in the sync copy's ``state.json`` (it survives the history
being discarded after a purge, and holds no text).

Per file, with ``B`` the base digest, ``L`` the local bytes, ``R`` the remote's:

* ``L == R``: nothing to do.
* only one side changed since ``B``: that side wins, whether it edited,
  created or deleted the file — so a local edit is never reverted by an
  unchanged remote copy, and a delete (a person's ``rm``, a clean-up, a
  ``forget``) propagates instead of coming back from the other side.
* both changed (or both created the name, or no base is known): a goal or
  next action completed on one side stays completed (``done_at`` is a
  temporal tombstone), otherwise both are kept — the version that sorts first
  by (``updated``, bytes) keeps the name and the other is kept beside it as
  ``<name>.conflict-<digest>.md``. Both machines compute the same names, so the
  store converges, and the result and the Sync pane name the copy.
* one side deleted and the other edited: the edit is kept (nothing a person
  wrote is lost silently) and the result says so.
* but a forget beats an edit: when the base is a version a forget took words
  out of (a purge record, ``sync.purges``), an edit of it made on another
  machine than the one that forgot is discarded for the remote's version (the
  result says so in a sentence), and on the machine that forgot a remote
  version changed since that base is discarded (and its digest recorded).

Pure: bytes in, a plan out; the caller writes it through the one door.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memoir_tui.core.sync.layout import MEMORY_PREFIX, SYNCED_NAME_RE, sha256
from memoir_tui.core.sync.purges import PurgeRecord, Taints

CONFLICT_MARK = ".conflict-"


@dataclass(frozen=True, slots=True)
class EntryAction:
    """One local change: write ``data`` at ``path`` (a logical path), or delete it."""

    path: str
    action: str  # "write" | "delete" | "conflict" (a copy written beside the kept one)
    data: bytes | None = None
    note: str = ""
    kept: str = ""  # for "conflict": the path that kept the name
    record: str = ""  # the purge record this action honours
    purge: bool = False  # that record is a purge (not a plain forget)
    taint: str = ""  # sha256 of a remote version discarded here, to add to the record
    discarded: bool = False  # a local edit of a forgotten version was discarded


def conflict_path(path: str, data: bytes) -> str:
    """The name a conflict copy of ``data`` gets beside ``path`` (same on every machine)."""
    name = path[len(MEMORY_PREFIX) :] if path.startswith(MEMORY_PREFIX) else path
    stem = name[: -len(".md")] if name.endswith(".md") else name
    if CONFLICT_MARK in stem:  # a copy of a copy keeps one mark
        stem = stem[: stem.index(CONFLICT_MARK)]
    out = f"{stem[:180]}{CONFLICT_MARK}{sha256(data)[:10]}.md"
    assert SYNCED_NAME_RE.match(out), out
    return MEMORY_PREFIX + out


def _entry(path: str, data: bytes):  # -> Entry
    from memoir_tui.core.format.entry_file import parse_entry

    return parse_entry(Path(path), data.decode("utf-8", "replace"))


def _completion_winner(path: str, mine: bytes, theirs: bytes) -> str | None:
    """'mine' or 'theirs' when one side completed a goal/next action the other began before."""
    from memoir_tui.core.format.entry_file import _done_at_ms, _start_ms

    a, b = _entry(path, mine), _entry(path, theirs)
    a_done, b_done = _done_at_ms(a), _done_at_ms(b)
    if b_done is not None and a_done is None and _start_ms(a) <= b_done:
        return "theirs"
    if a_done is not None and b_done is None and _start_ms(b) <= a_done:
        return "mine"
    return None


def _order_key(path: str, data: bytes) -> tuple[int, bytes]:
    return (_entry(path, data).updated_ms, data)


def plan_entry_sync(
    local: Mapping[str, bytes],
    remote: Mapping[str, bytes],
    base: Mapping[str, str] | None,
    taints: Taints | None = None,
) -> list[EntryAction]:
    """What to change locally so the store holds the three-way merge of its entry files.

    ``local`` and ``remote`` map logical entry paths (``memory/<name>.md``) to
    bytes; ``base`` maps them to the sha256 of the base bytes (``None``: no base
    known, every difference is a conflict of two creations); ``taints`` are the purge
    records known here (a forget beats an edit).
    """
    base = base or {}
    actions: list[EntryAction] = []
    for path in sorted(set(local) | set(remote)):
        mine, theirs = local.get(path), remote.get(path)
        if mine == theirs:
            continue
        was = base.get(path)
        if taints is not None and was is not None:
            record, made_here = taints.record_for(path, was)
            if record is not None:
                act = _after_forget(path, mine, theirs, was, record, made_here)
                if act is not None:
                    actions.append(act)
                    continue
        mine_changed = (sha256(mine) if mine is not None else None) != was
        theirs_changed = (sha256(theirs) if theirs is not None else None) != was
        if not theirs_changed:
            continue  # only this side changed: it stands (and is pushed)
        if not mine_changed:
            if theirs is None:
                actions.append(EntryAction(path, "delete", note=f"{path} deleted on the remote"))
            else:
                actions.append(EntryAction(path, "write", theirs))
            continue
        # both sides changed since the base
        if theirs is None:
            actions.append(
                EntryAction(
                    path, "keep", note=f"{path} was deleted on the remote but edited here; kept"
                )
            )
            continue
        if mine is None:
            actions.append(
                EntryAction(
                    path,
                    "write",
                    theirs,
                    note=f"{path} was deleted here but edited on the remote; the edit is kept",
                )
            )
            continue
        winner = _completion_winner(path, mine, theirs)
        if winner == "mine":
            continue
        if winner == "theirs":
            actions.append(EntryAction(path, "write", theirs, note=f"{path} completed elsewhere"))
            continue
        first, second = sorted((mine, theirs), key=lambda d: _order_key(path, d), reverse=True)
        if first != mine:
            actions.append(EntryAction(path, "write", first))
        copy = conflict_path(path, second)
        if local.get(copy) != second:
            actions.append(
                EntryAction(
                    copy,
                    "conflict",
                    second,
                    kept=path,
                    note=(
                        f"{path} was changed on both machines: both are kept, "
                        f"the other version as {copy}"
                    ),
                )
            )
    return actions


def _after_forget(
    path: str,
    mine: bytes | None,
    theirs: bytes | None,
    was: str,
    record: PurgeRecord,
    made_here: bool,
) -> EntryAction | None:
    """The base ``was`` predates a forget: a purge beats an edit. None: the usual rule."""
    what = "purged" if record.purge else "forgotten"
    mine_changed = (sha256(mine) if mine is not None else None) != was
    theirs_changed = (sha256(theirs) if theirs is not None else None) != was
    when = f" at {record.at}" if record.at else ""
    if made_here:
        if theirs is None or not theirs_changed or not mine_changed:
            return None  # this machine's forgotten version stands (or it kept the base)
        return EntryAction(
            path,
            "keep",
            note=(
                f"{path}: the version another machine changed before it heard of the forget "
                f"was discarded, because the entry was {what} here{when}"
            ),
            record=record.id,
            purge=record.purge,
            taint=sha256(theirs),
        )
    who = record.label or "another machine"
    if not theirs_changed or mine is None:
        return None  # an unchanged remote copy, or a delete here: the usual rule
    act = "write" if theirs is not None else "delete"
    if mine_changed:
        note = (
            f"{path}: the edit made here was discarded, because the entry was {what} on "
            f"{who}{when}; write it again if it is still wanted"
        )
    else:
        note = f"{path}: {what} on {who}{when}; the copy here from before was replaced"
    return EntryAction(
        path,
        act,
        theirs,
        note=note,
        record=record.id,
        purge=record.purge,
        discarded=mine_changed,
    )
