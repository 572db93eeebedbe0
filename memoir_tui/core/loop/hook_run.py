"""What a host's hook event does: brief the agent at session start, queue what it decided.

A host runs ``memoir-tui hook EVENT --host HOST`` and pipes one JSON object on
stdin. Whatever happens here must never hold up or break the host's session,
so the rules are few and strict:

* stdin is read with a deadline and a size cap (a host that leaves stdin open,
  or pipes garbage, costs at most the deadline);
* nothing here waits for the MCP server or talks to it; the store's own locks
  are the only waits, and they are bounded by ``[store] lock_wait_seconds``;
* the face exits 0 whatever happens and writes diagnostics to stderr only:
  stdout is reserved for what the host reads (Gemini CLI parses all of it
  as JSON).

``session-start`` prints the brief (``core.brief``) for the event's ``cwd``
project in the host's documented shape, and refreshes the pinned block when
``[inject] enabled`` (through the store's door, under its lock). ``stop``,
``pre-compact`` and ``session-end`` read the bytes of the event's
``transcript_path`` not read before, into the review queue only; nothing is
pinned. A burst of events costs one pass: capture runs hold capture's own
flock one at a time, each reads only bytes no run has read, and an event whose
transcript has no new bytes returns before taking any lock.
"""

from __future__ import annotations

import json
import os
import select
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoir_tui.core.loop.brief import DEFAULT_CHARS, build_brief

if TYPE_CHECKING:
    from memoir_tui.core.workflows.memoir import Memoir

# The adapters are imported where a host is looked up: the lean session-start path
# (core.session_start) reads its event with read_event and must not pay for them.
CAPTURE_EVENTS = frozenset({"stop", "pre-compact", "session-end"})
STDIN_DEADLINE_SECONDS = 2.0
STDIN_MAX_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class HookResult:
    """``stdout`` is what the host reads ("" for nothing); ``notes`` go to stderr."""

    stdout: str = ""
    notes: tuple[str, ...] = ()


def read_event(
    fd: int, *, deadline: float = STDIN_DEADLINE_SECONDS, max_bytes: int = STDIN_MAX_BYTES
) -> tuple[dict[str, Any], str | None]:
    """The JSON object a host piped on ``fd`` (``{}`` and a note when there is none).

    Stops at end of file, at the first complete object (a host may leave the
    pipe open), at ``deadline`` seconds, or past ``max_bytes``.
    """
    try:
        if os.isatty(fd):
            return {}, "stdin is a terminal: no event to read"
    except OSError:
        return {}, "no stdin"
    data = bytearray()
    end = time.monotonic() + deadline
    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            return _parse(bytes(data), f"stdin stayed open past {deadline:g} s")
        try:
            ready, _, _ = select.select([fd], [], [], remaining)
        except (OSError, ValueError):
            return {}, "stdin cannot be read"
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError as exc:
            return {}, f"stdin cannot be read: {exc.strerror or exc}"
        if not chunk:
            return _parse(bytes(data), None)
        data += chunk
        if len(data) > max_bytes:
            return {}, f"the event is larger than {max_bytes // 1024} KB; ignored"
        event, _ = _parse(bytes(data), None)
        if event:
            return event, None


def _parse(data: bytes, why_short: str | None) -> tuple[dict[str, Any], str | None]:
    text = data.decode("utf-8", errors="replace").strip()
    if not text:
        return {}, why_short or "no event on stdin"
    try:
        value = json.loads(text)
    except ValueError:
        return {}, why_short or "the event on stdin is not JSON"
    if not isinstance(value, dict):
        return {}, "the event on stdin is not a JSON object"
    return value, None


def _event_cwd(event: Mapping[str, Any], env: Mapping[str, str]) -> Path:
    for value in (
        event.get("cwd"),
        env.get("CLAUDE_PROJECT_DIR"),
        env.get("GEMINI_PROJECT_DIR"),
    ):
        if isinstance(value, str) and value and os.path.isabs(value) and "\0" not in value:
            return Path(value)
    return Path.cwd()


def run_hook(
    event_name: str,
    host: str,
    event: Mapping[str, Any],
    *,
    store_root: Path | None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    brief_chars: int = DEFAULT_CHARS,
) -> HookResult:
    """Do what ``event_name`` asks for ``host``; errors are notes, never raised."""
    from memoir_tui.core.hosts.adapters import HOOK_VERBS, hook_host
    from memoir_tui.core.workflows.memoir import open_memoir

    env = os.environ if env is None else env
    spec = hook_host(host)
    cwd = _event_cwd(event, env)
    # Every face opens the store the same way: a commit a crash interrupted is finished first.
    # (the doctor's synthetic event writes nothing, ever)
    store = open_memoir(
        store_root,
        actor=f"hook:{spec.name}",
        cwd=cwd,
        finish=not env.get("MEMOIR_TUI_DOCTOR"),
    )
    notes: list[str] = []
    if event_name == "session-start":
        from memoir_tui.core.format.session_peek import peek_session

        # Read without keeping a damaged file aside: a hook (and the doctor's run of
        # it) writes nothing but what it is for; the next writer quarantines.
        loaded = peek_session(store.session_path, now=store.clock())
        if loaded.detail:
            notes.append(f"{store.session_path} {loaded.detail}")
        return _session_start(
            store,
            spec.name,
            notes,
            cwd=cwd,
            home=home,
            env=env,
            limit=brief_chars,
            state=loaded.state,
        )
    if event_name in CAPTURE_EVENTS:
        return _capture(store, spec.name, event, notes, home=home, env=env)
    raise ValueError(f"unknown hook event {event_name!r}; known: {', '.join(HOOK_VERBS)}")


def _session_start(
    store: Memoir,
    host: str,
    notes: list[str],
    *,
    cwd: Path,
    home: Path | None,
    env: Mapping[str, str],
    limit: int,
    state: dict[str, Any],
) -> HookResult:
    # The doctor's synthetic event proves the hook runs; it must not write.
    if store.config.inject.enabled and not env.get("MEMOIR_TUI_DOCTOR"):
        from memoir_tui.core.rules.scope import find_git_dir
        from memoir_tui.core.services.inject import inject_if_enabled

        # The session's own project is refreshed too, whether or not [inject] lists it.
        projects = list(store.config.inject.projects)
        found = find_git_dir(cwd)
        if found is not None and found[0] not in projects:
            projects.append(found[0])
        for change in inject_if_enabled(store, home=home, env=env, projects=projects):
            if change.error:
                notes.append(f"inject: {change.error}")
    brief = build_brief(store, limit=limit, state=state)
    if not brief.text:
        return HookResult("", tuple(notes))
    return HookResult(render_for_host(host, brief.text), tuple(notes))


def render_for_host(host: str, text: str) -> str:
    """The brief in ``host``'s documented SessionStart output shape."""
    from memoir_tui.core.hosts.adapters import hook_host

    spec = hook_host(host)
    if spec.output == "plain":
        return text
    payload = {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    return json.dumps(payload, ensure_ascii=False) + "\n"


def _capture(
    store: Memoir,
    host: str,
    event: Mapping[str, Any],
    notes: list[str],
    *,
    home: Path | None,
    env: Mapping[str, str],
) -> HookResult:
    from memoir_tui.core.hosts.adapters import hook_host

    spec = hook_host(host)
    if not spec.captures:
        notes.append(
            f"capture reads Claude Code transcripts only; {spec.label}'s are not read: "
            "nothing queued"
        )
        return HookResult("", tuple(notes))
    from memoir_tui.core.capture.run import capture, unread_bytes
    from memoir_tui.core.hosts.adapters import transcripts_dir

    home = Path.home() if home is None else home
    if host == "gemini" and (
        event.get("hook_event_name") == "AfterAgent" or "prompt_response" in event
    ):
        from memoir_tui.core.capture.hosts import capture_gemini_turn

        return _queued(capture_gemini_turn(store, event, home=home), notes)
    tool = {"codex": "codex", "gemini": "gemini"}.get(host, "claude-code")
    root = transcripts_dir(tool, home, env).expanduser().absolute()
    given = event.get("transcript_path")
    if not isinstance(given, str) or not given or "\0" in given:
        notes.append("the event names no transcript_path: nothing to capture")
        return HookResult("", tuple(notes))
    # Realpath containment: "~/.claude/projects/../../outside/x.jsonl" or a link out
    # of the transcripts folder is not read.
    path = Path(os.path.realpath(Path(given).expanduser()))
    real_root = Path(os.path.realpath(root))
    if not path.is_relative_to(real_root):
        notes.append(f"{given} is not under {root}: not read")
        return HookResult("", tuple(notes))
    if path.suffix != ".jsonl" or not path.is_file():
        notes.append(f"{given} is not a transcript file: not read")
        return HookResult("", tuple(notes))
    if host == "gemini":  # SessionEnd, PreCompress: the whole recording again
        from memoir_tui.core.capture.hosts import capture_gemini_chat

        return _queued(capture_gemini_chat(store, path, event, home=home), notes)
    if not unread_bytes(store, path):
        return HookResult("", tuple(notes))  # a burst's later events: nothing new since
    if host == "codex":
        from memoir_tui.core.capture.hosts import capture_codex

        added = capture_codex(
            store,
            path,
            session_id=str(event.get("session_id") or ""),
            cwd=str(event.get("cwd") or ""),
            home=home,
        )
        return _queued(added, notes)
    report = capture(store, projects_dir=real_root, home=home, only=[path])
    notes.extend(report.unreadable)
    return _queued(report.added, notes)


def _queued(added: tuple[str, ...], notes: list[str]) -> HookResult:
    if added:
        notes.append(f"queued {len(added)} candidate(s) for review")
    return HookResult("", tuple(notes))
