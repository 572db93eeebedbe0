"""One capture run: new transcript bytes → candidates → the review queue.

``capture`` walks the projects directory, keeps only primary transcripts (the
one predicate in ``transcripts``), reads each file from where the last run
stopped, extracts candidates and enqueues them, then remembers the new
offsets. Work is bounded per run (files and bytes); what is left is picked up
by the next run. The new candidates and the new offsets are one store
transaction, so both land or neither does.

The run holds a flock of its own (``capture-state.json.flock``) for its whole
cycle, so two captures never interleave while reading; the store's locks are
taken only for the commit at the end (lock order: capture, then the store).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memoir_tui.core.capture.extract import TOOL, Candidate, ProjectRef, extract_candidates
from memoir_tui.core.capture.state import (
    HEAD_LEN,
    STATE_FILE,
    FileState,
    encode_state,
    head_hash,
    load_state,
    start_offset,
)
from memoir_tui.core.capture.transcripts import (
    COMPACTION,
    PRIMARY,
    SUBAGENT,
    Message,
    TranscriptFile,
    conversation_messages,
    judge_transcript,
    read_new_records,
    walk_transcripts,
)
from memoir_tui.core.door.lock import store_flock
from memoir_tui.core.format.identity import parse_date_ms
from memoir_tui.core.format.items import FILES, REVIEW
from memoir_tui.core.hosts.adapters import transcripts_dir

if TYPE_CHECKING:
    from memoir_tui.core.workflows.memoir import Memoir

MAX_FILES_PER_RUN = 200
MAX_BYTES_PER_RUN = 32 * 1024 * 1024


def default_projects_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Claude Code's transcripts: ``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return transcripts_dir(TOOL, home, env)


@dataclass(slots=True)
class CaptureReport:
    projects_dir: Path
    dry_run: bool
    files_seen: int = 0
    files_read: int = 0
    skipped_subagent: int = 0
    skipped_compaction: int = 0
    bytes_read: int = 0
    records: int = 0
    bad_lines: int = 0
    messages: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    added: tuple[str, ...] = ()
    duplicates: int = 0
    known: int = 0
    forgotten: int = 0
    near_hidden: int = 0
    waiting_on_partial_line: tuple[str, ...] = ()  # files whose last line is still being written
    more_pending: bool = False  # the per-run bounds stopped before every file was read
    unreadable: list[str] = field(default_factory=list)  # a sentence per file not read


def _project_resolver(home: Path) -> Callable[[str], ProjectRef]:
    cache: dict[str, ProjectRef] = {}

    def project_of(cwd: str) -> ProjectRef:
        if not cwd:
            return ProjectRef()
        if cwd not in cache:
            from memoir_tui.core.rules.scope import project_identity

            ident = project_identity(Path(cwd), home=home)
            cache[cwd] = ProjectRef(id=str(ident.id), kind=str(ident.kind), label=str(ident.label))
        return cache[cwd]

    return project_of


def capture(
    store: Memoir,
    *,
    projects_dir: str | os.PathLike[str] | None = None,
    since_seconds: float | None = None,
    dry_run: bool = False,
    max_files: int = MAX_FILES_PER_RUN,
    max_bytes: int = MAX_BYTES_PER_RUN,
    home: str | os.PathLike[str] | None = None,
    now: float | None = None,
    only: Sequence[str | os.PathLike[str]] | None = None,
) -> CaptureReport:
    """Capture candidates from new transcript bytes into the review queue.

    ``since_seconds`` limits the run to files modified, and messages sent,
    within that window. ``dry_run`` reads and extracts but writes nothing
    (neither the queue nor the offsets). ``only`` reads just these files (a
    host hook names its session's transcript) with the same predicate and the
    same offsets as a full run, so neither reads a byte twice.
    """
    root = Path(projects_dir) if projects_dir is not None else default_projects_dir()
    root = root.expanduser().absolute()  # state keys are absolute paths
    home_dir = Path(home) if home is not None else Path.home()
    state_path = store.root / STATE_FILE
    report = CaptureReport(projects_dir=root, dry_run=dry_run)
    # A dry run writes nothing, so it takes no lock either.
    lock = (
        nullcontext()
        if dry_run
        else store_flock(state_path, wait_seconds=store.config.lock_wait_seconds)
    )
    with lock:
        _run(
            store,
            root,
            home_dir,
            state_path,
            report,
            since_seconds,
            max_files,
            max_bytes,
            now,
            only,
        )
    return report


def _given_transcripts(
    paths: Sequence[str | os.PathLike[str]],
    root: Path,
    known: Mapping[str, str],
    refused: list[str],
) -> Iterator[TranscriptFile]:
    """The named files judged as a walk of ``root`` would judge them (the one predicate)."""
    from memoir_tui.core.base.safeio import not_read_sentence

    for given in paths:
        path = Path(given).expanduser().absolute()
        if path.suffix == ".jsonl" and not path.is_symlink() and path.is_file():
            yield judge_transcript(path, root, known)
        elif path.suffix == ".jsonl" and (path.is_symlink() or path.exists()):
            refused.append(not_read_sentence(path))


def _run(
    store: Memoir,
    root: Path,
    home: Path,
    state_path: Path,
    report: CaptureReport,
    since_seconds: float | None,
    max_files: int,
    max_bytes: int,
    now: float | None,
    only: Sequence[str | os.PathLike[str]] | None = None,
) -> None:
    files = load_state(state_path)
    now_s = time.time() if now is None else now
    cutoff_ms = int((now_s - since_seconds) * 1000) if since_seconds is not None else None
    known = {p: e.kind for p, e in files.items() if e.kind}
    pending: list[tuple[int, Path, int, int, bool]] = []  # mtime_ns, path, offset, size, settled
    seen_paths: set[str] = set()
    found = (
        walk_transcripts(root, known_kinds=known, refused=report.unreadable)
        if only is None
        else _given_transcripts(only, root, known, report.unreadable)
    )
    for tf in found:
        report.files_seen += 1
        key = str(tf.path)
        seen_paths.add(key)
        if tf.kind == SUBAGENT:
            report.skipped_subagent += 1
        elif tf.kind == COMPACTION:
            report.skipped_compaction += 1
        if tf.kind != PRIMARY:
            if tf.settled and files.get(key, FileState()).kind != tf.kind:
                files[key] = FileState(kind=tf.kind, updated_at=store.clock())
            continue
        try:
            st = tf.path.stat()
        except OSError:
            continue
        entry = files.get(key, FileState())
        offset = start_offset(tf.path, entry, st.st_size)
        if offset >= st.st_size:
            continue
        if cutoff_ms is not None and st.st_mtime_ns // 1_000_000 < cutoff_ms:
            continue
        pending.append((st.st_mtime_ns, tf.path, offset, st.st_size, tf.settled))
    # Forget files under this root that are gone (state must not grow for ever);
    # a run over named files saw only those, so it judges nothing else gone.
    if only is None:
        for stale in [p for p in files if p not in seen_paths and _is_under(p, root)]:
            del files[stale]

    pending.sort(key=lambda p: (p[0], str(p[1])))
    budget = max_bytes
    messages: list[Message] = []
    waiting: list[str] = []
    for index, (_mtime, path, offset, size, settled) in enumerate(pending):
        if index >= max_files or budget <= 0:
            report.more_pending = True
            break
        try:
            result = read_new_records(path, offset, max_bytes=budget)
        except OSError as exc:  # swapped for a FIFO or a folder since the walk, or gone
            from memoir_tui.core.base.safeio import not_read_sentence

            report.unreadable.append(not_read_sentence(path, exc))
            continue
        report.files_read += 1
        report.bytes_read += result.bytes_read
        report.records += len(result.records)
        report.bad_lines += result.bad_lines
        budget -= max(result.bytes_read, 1)
        if result.truncated_tail:
            waiting.append(str(path))
        elif result.next_offset < size:
            report.more_pending = True
        msgs = conversation_messages(result.records, transcript=str(path))
        if cutoff_ms is not None:
            msgs = [m for m in msgs if parse_date_ms(m.timestamp) >= cutoff_ms]
        messages.extend(msgs)
        key = str(path)
        old = files.get(key, FileState())
        session_id = next((m.session_id for m in msgs if m.session_id), old.session_id)
        head_len = min(HEAD_LEN, result.next_offset)
        head = head_hash(path, head_len)
        try:
            mtime_ns = path.stat().st_mtime_ns
        except OSError:
            mtime_ns = 0
        files[key] = FileState(
            offset=result.next_offset,
            size=size,
            mtime_ns=mtime_ns,
            kind=PRIMARY if settled else "",  # re-judged next run until the head settles
            head=head,
            head_len=head_len if head else 0,
            session_id=session_id,
            updated_at=store.clock(),
        )
    report.waiting_on_partial_line = tuple(waiting)
    report.messages = len(messages)
    report.candidates = extract_candidates(messages, project_of=_project_resolver(home))
    if report.dry_run:
        return
    with store.transaction("capture", files=(REVIEW, FILES)) as tx:
        if report.candidates:
            outcome = store.review.enqueue([c.to_item() for c in report.candidates])
            report.added = outcome.added
            report.duplicates = outcome.duplicates
            report.known = outcome.known
            report.forgotten = outcome.forgotten
            report.near_hidden = outcome.near_hidden
        tx.write_bytes(state_path, encode_state(files), scan=False)  # offsets and paths only


def _is_under(path: str, root: Path) -> bool:
    try:
        Path(path).relative_to(root)
    except ValueError:
        return False
    return True


def unread_bytes(store: Memoir, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` holds bytes no capture run has read (cheap: one stat, no lock)."""
    path = Path(path)
    entry = load_state(store.root / STATE_FILE).get(str(path), FileState())
    try:
        size = path.stat().st_size
    except OSError:
        return False
    return start_offset(path, entry, size) < size
