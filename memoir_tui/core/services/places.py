"""Places a memory lives that forget treats by their owner's own rules (``adapters.PLACES``).

* today's memoir's canonical memories (``<store>/memories/<64 hex>.md``, earlier
  revisions in ``memories/history/<id>/``; FORMAT-LATEST §11): hidden (``hidden``,
  ``hidden_at``, ``revision`` + 1, ``updated`` = ``hidden_at``, body kept) or purged
  (frontmatter reduced to id, project, type + hidden, purged, hidden_at, updated,
  revision; body ``[purged]``; ``history/<id>/`` deleted), written as memoir writes
  frontmatter (JSON-encoded scalars) under memoir's own ``memories/.write.lock``;
* a git-tracked folder (Codex's ``memories/``): the lines the host-file pass removed
  are committed, and the receipt names the history that still holds them with the
  exact command that rewrites it;
* read-only places (memoir's project ledger and its backups, Codex's memory database
  and session rollouts): named, never edited, each with its owner's own remedy.

Core only: never prints, never imports textual or mcp.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.base.safeio import open_for_reading, read_file_safely
from memoir_tui.core.hosts.adapters import BY_NAME, PLACES, KeptPlace
from memoir_tui.core.rules.needle import shown

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store
    from memoir_tui.core.door.transaction import Transaction

CANONICAL_NAME = re.compile(r"^[a-f0-9]{64}\.md$")
PURGED_BODY = "[purged]"
_IDENTITY = (("NAME", "memoir-tui"), ("EMAIL", "memoir-tui@localhost"))
MAX_READ = 64 * 1024 * 1024  # a rollout or a database larger than this is named unread
MAX_CONTEXT = 100


@dataclass(frozen=True, slots=True)
class Place:
    """One place the text is: ``kind`` (session, review, entry, host, quarantine, trash,
    recall, sync, remote, transcript), the file, where in it, a line of context."""

    kind: str
    path: str
    where: str
    context: str
    action: str = ""  # what confirming does here ("" : nothing, it cannot be changed)

    def line(self) -> str:
        where = f" ({self.where})" if self.where else ""
        return f"{self.kind}: {self.path}{where}: {self.context}"

    def to_dict(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "path": self.path,
            "where": self.where,
            "context": self.context,
            "action": self.action,
        }


def context_line(text: str, needle: str) -> str:
    """The line holding ``needle``, every secret in it redacted, trimmed around it."""
    lowered = text.lower()
    at = lowered.find(needle.lower())
    if at < 0:
        return ""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = shown(text[start : end if end >= 0 else len(text)].strip())  # whole, then cut
    if len(line) > MAX_CONTEXT:
        pos = line.lower().find(needle.lower())
        if pos < 0:  # the needle was a secret: centre on its redaction
            pos = max(line.find("[REDACTED:"), 0)
        lo = max(0, pos - (MAX_CONTEXT - len(needle)) // 2)
        cut = line[lo : lo + MAX_CONTEXT]
        if "[REDACTED:" in line and cut.count("[REDACTED:") > cut.count("]"):
            cut = cut[: cut.rfind("[REDACTED:")]  # never half a marker
        line = ("…" if lo else "") + cut + "…"
    return line


def git_objects_hold(repo: Path, folded: str) -> bool:
    """Whether any object of the git repository ``repo`` holds the folded text."""
    from memoir_tui.core.base.gitexe import git_env, git_executable

    try:
        proc = subprocess.run(
            [
                git_executable(),
                "--git-dir",
                str(repo),
                "cat-file",
                "--batch-all-objects",
                "--batch",
            ],
            capture_output=True,
            env=git_env(),
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, MemoirError):
        return False
    return folded.encode("utf-8") in proc.stdout.lower()


# --- canonical memories: memoir's frontmatter, read and written as memoir does ------------


def _scalar(raw: str) -> Any:
    """memoir's ``parseScalar``: JSON for double-quoted values, else quotes stripped and
    ``true``/``false``/integers mapped."""
    v = raw.strip()
    if v.startswith('"') and v.endswith('"'):
        try:
            return json.loads(v)
        except ValueError:
            pass
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        v = v[1:-1]
    if v == "true":
        return True
    if v == "false":
        return False
    if re.fullmatch(r"-?\d+", v):
        return int(v)
    return v


def parse_canonical(raw: str) -> tuple[dict[str, Any], str] | None:
    """(fields in order, body) as memoir's ``parseFrontmatter`` reads them; None when the
    file has no (terminated) frontmatter."""
    lines = re.split(r"\r?\n", raw)
    if not lines or lines[0].strip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), -1)
    if end < 0:
        return None
    fields: dict[str, Any] = {}
    open_key: str | None = None
    for line in lines[1:end]:
        trimmed = line.strip()
        if not trimmed or trimmed.startswith("#"):
            continue
        if line[:1].isspace() and open_key:
            if trimmed.startswith("- "):
                if not isinstance(fields.get(open_key), list):
                    fields[open_key] = []
                fields[open_key].append(_scalar(trimmed[2:]))
            else:
                m = re.match(r"^([^:]+):\s*(.*)$", trimmed)
                if m:
                    if not isinstance(fields.get(open_key), dict):
                        fields[open_key] = {}
                    fields[open_key][m.group(1).strip()] = _scalar(m.group(2))
            continue
        m = re.match(r"^([^:\s][^:]*):\s*(.*)$", line)
        if not m:
            continue
        key = m.group(1).strip()
        if m.group(2) == "":
            open_key = key
            fields[key] = ""
        else:
            open_key = None
            fields[key] = _scalar(m.group(2))
    return fields, "\n".join(lines[end + 1 :])


def _js(value: Any) -> str:
    """``JSON.stringify`` of a scalar (non-ASCII kept as is)."""
    return json.dumps(value, ensure_ascii=False)


def render_canonical(fields: dict[str, Any], body: str) -> str:
    """The file as memoir's ``forgetStoredMemory`` writes it."""
    lines = ["---"]
    for key, value in fields.items():
        if isinstance(value, list):
            lines.append(key + ":")
            lines.extend("  - " + _js(v) for v in value)
        elif value is not None and not isinstance(value, dict):
            lines.append(f"{key}: {_js(value)}")
    return "\n".join([*lines, "---", body])


def _revision(fields: dict[str, Any]) -> int:
    try:
        return int(fields.get("revision") or 0) + 1
    except (TypeError, ValueError):
        return 1


def hidden_form(fields: dict[str, Any], body: str, now: str) -> str:
    """Hide: every field kept, ``hidden``/``hidden_at`` added, revision + 1, body kept."""
    meta = dict(fields)
    meta["hidden"] = True
    meta["hidden_at"] = now
    meta["updated"] = now
    meta["revision"] = _revision(fields)
    return render_canonical(meta, body)


def purged_form(memory_id: str, fields: dict[str, Any], now: str) -> str:
    """Purge: only id, project and type stay, with the tombstone's fields; body [purged]."""
    meta: dict[str, Any] = {
        "id": memory_id,
        "project": fields.get("project"),
        "type": fields.get("type") or "fact",
        "hidden": True,
        "purged": True,
        "hidden_at": now,
        "updated": now,
        "revision": _revision(fields),
    }
    return render_canonical(meta, PURGED_BODY)


KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$", re.I)
WRITER = "memoir-tui"  # ``source_tool`` of a revision written here


def is_canonical(path: Path, store_root: Path) -> bool:
    """A canonical memory record of this store (``memories/<64 hex>.md``)."""
    return path.parent == canonical_dir(store_root) and bool(CANONICAL_NAME.match(path.name))


def render_revision(fields: dict[str, Any], body: str) -> str:
    """As memoir's ``rememberMemory`` writes: only ``[a-z][a-z0-9_]*`` keys, lists as
    ``  - "item"`` lines (each item a string), scalars JSON-encoded, objects skipped."""
    lines = ["---"]
    for key, value in fields.items():
        if not KEY_RE.match(key):
            continue
        if isinstance(value, list):
            lines.append(key + ":")
            lines.extend(
                "  - " + _js(str(v) if not isinstance(v, bool) else _jsbool(v)) for v in value
            )
        elif value is not None and not isinstance(value, dict):
            lines.append(f"{key}: {_js(value)}")
    return "\n".join([*lines, "---", body])


def _jsbool(value: bool) -> str:
    return "true" if value else "false"


def new_revision(memory_id: str, before: bytes, after: bytes, now: str) -> str:
    """The next revision of a canonical memory from an edited copy, as memoir's
    ``rememberMemory`` makes it: the edited fields, then id, name, type, project (the
    record's), source_tool, updated, created (kept), revision + 1, verification,
    aliases and tags. Refused for a forgotten (hidden) memory, as memoir refuses."""
    from memoir_tui.core.base.errors import MemoirError as Refused

    prior = parse_canonical(before.decode("utf-8", "replace"))
    prior_fields = prior[0] if prior else {}
    if prior_fields.get("hidden") is True:
        raise Refused("this memory identity was forgotten; choose a new name for a new memory")
    parsed = parse_canonical(after.decode("utf-8", "replace"))
    if parsed is None:
        raise Refused("the edited memory has no frontmatter (--- … ---); nothing was written")
    fields, body = parsed
    name = str(fields.get("name") or prior_fields.get("name") or memory_id[:12])

    def as_list(value: Any) -> list[Any]:
        return list(value) if isinstance(value, list) else []

    out = {
        **fields,
        "id": memory_id,
        "name": name,
        "type": fields.get("type") or "fact",
        "project": prior_fields.get("project") or fields.get("project") or "shared",
        "source_tool": WRITER,
        "updated": now,
        "created": prior_fields.get("created") or now,
        "revision": _revision(prior_fields),
        "verification": "unverified",
        "aliases": list(dict.fromkeys(as_list(fields.get("aliases")))),
        "tags": list(dict.fromkeys(as_list(fields.get("tags")))),
    }
    return render_revision(out, body)


def write_revision(tx: Transaction, path: Path, before: bytes, after: bytes, now: str) -> None:
    """Stage the next revision of ``path`` and keep ``before`` in its history, as memoir
    does (``history/<id>/<uuid>.md``); the caller holds ``canonical_lock``."""
    import uuid

    text = new_revision(path.stem, before, after, now)
    history = path.parent / "history" / path.stem / f"{uuid.uuid4()}.md"
    tx.write_bytes(history, before)
    tx.write_text(path, text)


@dataclass(frozen=True, slots=True)
class CanonicalMemory:
    """One canonical memory as a face shows it (Entries): id, revision, project, state."""

    path: Path
    id: str
    name: str
    revision: int
    project: str
    hidden: bool
    purged: bool


def canonical_dir(store_root: Path) -> Path:
    place = _place("memoir-memories")
    return store_root / place.pattern.rsplit("/", 1)[0]


def canonical_history(store_root: Path, memory_id: str) -> Path:
    return store_root / _place("memoir-memories").history.format(id=memory_id)


def canonical_files(store_root: Path) -> list[Path]:
    """The records memoir reads: ``<64 hex>.md`` files at the folder's top level."""
    directory = canonical_dir(store_root)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [
        directory / n
        for n in names
        if CANONICAL_NAME.match(n)
        and (directory / n).is_file()
        and not (directory / n).is_symlink()
    ]


def read_canonical(path: Path) -> CanonicalMemory | None:
    try:
        raw = read_file_safely(path, max_bytes=MAX_READ).decode("utf-8", "replace")
    except OSError:
        return None
    parsed = parse_canonical(raw)
    fields = parsed[0] if parsed else {}
    try:
        revision = int(fields.get("revision") or 0)
    except (TypeError, ValueError):
        revision = 0
    return CanonicalMemory(
        path,
        path.stem,
        str(fields.get("name") or path.stem[:12]),
        revision,
        str(fields.get("project") or ""),
        fields.get("hidden") is True or fields.get("hidden") == "true",
        fields.get("purged") is True,
    )


# --- where the places are ----------------------------------------------------------------


def _place(name: str) -> KeptPlace:
    return next(p for p in PLACES if p.name == name)


def _base(place: KeptPlace, store_root: Path, home: Path, env: Any) -> Path | None:
    if place.scope == "store":
        return store_root
    roots = BY_NAME[place.owner].roots
    return roots[0].resolve(home, env, store_root) if roots else None


def _glob(base: Path, pattern: str) -> Iterator[Path]:
    """Files under ``base`` matching ``pattern``; links never followed out."""
    if not base.is_dir():
        return
    try:
        for path in sorted(base.glob(pattern)):
            if path.is_file() and not path.is_symlink():
                yield path
    except OSError:
        return


def _holds(path: Path, folded: bytes) -> bool:
    try:
        if path.stat().st_size > MAX_READ:
            return False
        return folded in read_file_safely(path, max_bytes=MAX_READ).lower()
    except OSError:
        return False


def _context(path: Path, needle: str) -> str:
    context = context_line
    if ".sqlite" in path.name:
        return "(in the database)"
    try:
        with open_for_reading(path) as fh:  # a FIFO is refused, never blocks
            data = fh.read(4 * 1024 * 1024)
    except OSError:
        return ""
    return context(data.decode("utf-8", "replace"), needle)


# --- the scan ----------------------------------------------------------------------------


def scan(
    store: Store, needle: str, *, purge: bool, projects: Sequence[str], home: Path, env: Any
) -> tuple[list[Place], list[str]]:
    """Every kept place holding ``needle`` (folded), and what was looked at."""
    folded = needle.lower().encode("utf-8")
    places: list[Place] = []
    checked: list[str] = []
    # canonical memories and their history
    directory = canonical_dir(store.root)
    records = canonical_files(store.root)
    checked.append(f"{_place('memoir-memories').label}: {directory} ({len(records)} file(s))")
    for path in records:
        memory = read_canonical(path)
        if memory is None:
            continue
        if _holds(path, folded) and not memory.purged:
            action = (
                "purge it as memoir does (frontmatter reduced, body [purged], its history deleted)"
                if purge
                else (
                    "" if memory.hidden else "hide it as memoir does (hidden: true, revision + 1)"
                )
            )
            where = f"revision {memory.revision}" + (", hidden" if memory.hidden else "")
            places.append(Place("memoir-memory", str(path), where, _context(path, needle), action))
        history = canonical_history(store.root, memory.id)
        for old in _glob(history, "*.md"):
            if _holds(old, folded):
                action = "delete the memory's history" if purge else ""
                places.append(
                    Place(
                        "memoir-history",
                        str(old),
                        "an earlier revision",
                        _context(old, needle),
                        action,
                    )
                )
    # read-only places and git folders
    for place in PLACES:
        if place.rule == "canonical" or place.name == "claude-transcripts":
            continue  # the transcripts: forget's own pass (kind "transcript")
        bases: list[Path] = []
        if place.scope == "project":
            bases = [Path(p) for p in projects]
        else:
            base = _base(place, store.root, home, env)
            bases = [base] if base is not None else []
        if place.rule == "git":
            continue  # checked after the host pass (``git_holders``)
        count = 0
        for base in bases:
            for path in _glob(base, place.pattern):
                count += 1
                if _holds(path, folded):
                    places.append(
                        Place(
                            place.name,
                            str(path),
                            place.label,
                            _context(path, needle) or "(in its bytes)",
                            "",
                        )
                    )
        shown = ", ".join(str(b) for b in bases) or "no folder"
        checked.append(f"{place.label} (read only): {count} file(s) under {shown}")
    return places, checked


def git_places(store: Store, needle: str, *, home: Path, env: Any) -> list[Place]:
    """Git-tracked memory folders whose history holds ``needle`` (folded)."""
    out: list[Place] = []
    for place in PLACES:
        if place.rule != "git":
            continue
        base = _base(place, store.root, home, env)
        if base is None:
            continue
        repo = base / place.history
        if repo.is_dir() and git_objects_hold(repo, needle.lower()):
            out.append(
                Place(
                    "git-history",
                    str(base / place.pattern),
                    f"{place.label}: its git history",
                    "(in its git objects)",
                    "",
                )
            )
    return out


# --- forgetting ----------------------------------------------------------------------------


def canonical_lock(store_root: Path) -> Any:
    """memoir's own lock on its canonical memories (``memories/.write.lock``)."""
    from memoir_tui.core.door.lock import js_session_lock

    return js_session_lock(canonical_dir(store_root) / ".write")


def forget_canonical(
    tx: Transaction, store: Store, found: Sequence[Place], *, purge: bool
) -> list[str]:
    """Hide or purge each canonical memory found, as memoir does; with ``purge`` its
    history goes too (and a history file holding the text whose record does not)."""
    changed: list[str] = []
    now = store.clock()
    for place in found:
        path = Path(place.path)
        if place.kind == "memoir-memory":
            data = tx.read_bytes(path)
            if data is None:
                continue
            parsed = parse_canonical(data.decode("utf-8", "replace"))
            fields, body = parsed if parsed is not None else ({}, data.decode("utf-8", "replace"))
            if fields.get("purged") is True:
                continue
            if purge:
                tx.write_text(path, purged_form(path.stem, fields, now), scan=False)
                history = canonical_history(store.root, path.stem)
                for old in _glob(history, "*"):
                    tx.remove(old)
                changed.append(f"purged the canonical memory {path} (its history deleted)")
            elif not (fields.get("hidden") is True or fields.get("hidden") == "true"):
                tx.write_text(path, hidden_form(fields, body, now), scan=False)
                changed.append(f"hid the canonical memory {path} (revision {_revision(fields)})")
        elif place.kind == "memoir-history" and purge and tx.exists(path):
            tx.remove(path)
            changed.append(f"removed the earlier revision {path}")
    return changed


def remove_empty_history(store_root: Path) -> None:
    """Folders of ``memories/history/`` left empty by a purge go, as memoir's ``fs.remove``."""
    root = canonical_dir(store_root) / "history"
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        folder = root / name
        try:
            if folder.is_dir() and not folder.is_symlink() and not os.listdir(folder):
                folder.rmdir()
        except OSError:
            continue


def commit_git_folders(
    store: Store,
    changed_paths: Sequence[str],
    needle: str,
    needle_shown: str,
    *,
    home: Path,
    env: Any,
) -> tuple[list[str], list[str]]:
    """Commit the removal in each git-tracked memory folder a changed file lies in;
    (changed lines, notes naming the history that still holds it, with the command)."""
    from memoir_tui.core.base.gitexe import git_env, git_executable

    changed: list[str] = []
    notes: list[str] = []
    for place in PLACES:
        if place.rule != "git":
            continue
        base = _base(place, store.root, home, env)
        if base is None:
            continue
        folder = base / place.pattern
        if not (base / place.history).is_dir():
            continue
        inside = [p for p in changed_paths if Path(p).parent == folder]
        if not inside:
            continue
        git = [git_executable(), "-C", str(folder)]
        who = {f"GIT_{r}_{k}": v for r in ("AUTHOR", "COMMITTER") for k, v in _IDENTITY}
        run_env = {**git_env(), **who}

        names = [os.path.relpath(p, folder) for p in inside]
        staged = [n for n in names if _git(git, run_env, "add", "-A", "--", n)]
        message = "memoir-tui forget: lines removed"
        if staged and _git(git, run_env, "commit", "-q", "-m", message, "--", *staged):
            changed.append(f"committed the removal in {folder} (a git repository)")
        replace = (
            f"printf '%s==>[purged]\\n' {shlex.quote(needle)} > /tmp/forget.txt && "
            if needle_shown == needle
            else "write the text (as TEXT==>[purged], one line) to /tmp/forget.txt, then "
        )
        notes.append(
            f"{place.label}: {folder} is a git repository whose history still holds the text; "
            f"to rewrite it, run there: {replace}git filter-repo --replace-text /tmp/forget.txt "
            "--force && rm /tmp/forget.txt && git reflog expire --expire=now --all && "
            "git gc --prune=now"
        )
    return changed, notes


def _git(git: list[str], env: dict[str, str], *args: str) -> bool:
    try:
        proc = subprocess.run([*git, *args], env=env, capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


def short_remedy(place: Place) -> str:
    """What to do about a place still holding the text, in a few words (the app's
    summary; the full receipt says it in full): its owner's command when it has one."""
    if place.kind == "git-history":
        return "rewrite its history with git filter-repo (`memoir-tui forget` prints how)"
    if place.kind in ("host-link", "link-out"):
        return "a link out: remove the lines there by hand"
    by_name = {p.name: p for p in PLACES}
    kept = by_name.get({"transcript": "claude-transcripts"}.get(place.kind, place.kind))
    if kept is None or not kept.remedy:
        return ""
    command = re.search(r"`([^`]+)`", kept.remedy)
    if command:
        return f"`{command.group(1)}`"
    tail = re.split(r"[;:] ", kept.remedy)[-1]
    return tail


def remedies(remaining: Sequence[Place]) -> list[str]:
    """For each read-only place still holding the text: its owner's own remedy."""
    notes: list[str] = []
    by_name = {p.name: p for p in PLACES}
    kinds = {"transcript": "claude-transcripts"}
    for place in remaining:
        kept = by_name.get(kinds.get(place.kind, place.kind))
        if kept is not None and kept.remedy:
            owner = BY_NAME[kept.owner].label
            notes.append(f"{kept.label} ({owner}): never edited here; {kept.remedy}")
    return list(dict.fromkeys(notes))
