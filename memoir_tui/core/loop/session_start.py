"""The lean session-start path: the brief from the session file and scope alone.

A host runs ``memoir-tui hook session-start`` before every session, so its
cost is paid on every start. This path reads ``session.json`` through the
peek (``core.session_peek``: no lock, no quarantine), works out the project
with ``core.scope``, builds the working set and renders the brief
(``core.brief``), and counts the review queue's waiting candidates from its
JSON; it imports neither the store, the transaction, the config nor the host
adapters. ``__main__`` takes it (through ``commands.hook.run_lean``) for
``[--store S] hook session-start --host H``
when ``[inject] enabled`` is off (the pinned-block refresh writes through the
store's door, so that case takes the full path, ``core.hook_run``). ``hook stop`` ends here too when its transcript holds
nothing unread (``nothing_new``).

Every host we install for reads the same output shape (a test holds the
adapters to it): ``{"hookSpecificOutput": {"hookEventName": "SessionStart",
"additionalContext": …}}``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memoir_tui.core.base.safeio import read_file_safely, read_text_safely

STORE_ENV = "MEMOIR_HOME"
CONFIG_FILE = "memoir-tui.toml"  # core.config.CONFIG_FILE (a test holds them equal)
REVIEW_FILE = "review.json"
SESSION_FILE = "session.json"
FULL_PATH_ENV = "MEMOIR_TUI_HOOK_FULL"  # take the full path (for measuring it)


def lean_argv(argv: Sequence[str], verb: str = "session-start") -> tuple[Path | None, str] | None:
    """``(store, host)`` when ``argv`` is exactly ``[--store S] hook VERB --host H``."""
    args = list(argv)
    store: Path | None = None
    if args[:1] == ["--store"] and len(args) >= 2:
        store, args = Path(args[1]), args[2:]
    elif args[:1] and args[0].startswith("--store="):
        store, args = Path(args[0].split("=", 1)[1]), args[1:]
    if len(args) == 4 and args[:2] == ["hook", verb] and args[2] == "--host":
        return store, args[3]
    return None


def store_root(given: Path | None, env: Mapping[str, str]) -> Path:
    """As ``store.default_store_dir``: ``--store``, else ``$MEMOIR_HOME``, else ~/.config/memoir."""
    if given is not None:
        return given.expanduser()
    override = env.get(STORE_ENV)
    if override:
        return Path(os.path.expanduser(override))
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "memoir"


def inject_enabled(root: Path) -> bool | None:
    """``[inject] enabled`` of the store's config; None when the file cannot be read
    (the full path then reads it and says why)."""
    import tomllib

    try:
        data = tomllib.loads(read_text_safely(root / CONFIG_FILE, max_bytes=1024 * 1024))
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    inject = data.get("inject")
    return bool(inject.get("enabled")) if isinstance(inject, dict) else False


def waiting_in_scope(root: Path, project: str | None) -> int:
    """Candidates waiting for review in ``project`` and global (as ``waiting.waiting_count``)."""
    try:
        data = json.loads(read_file_safely(root / REVIEW_FILE, max_bytes=256 * 1024 * 1024))
    except (OSError, ValueError):
        return 0
    items = data.get("items") if isinstance(data, dict) else None
    return sum(
        1
        for raw in (items if isinstance(items, list) else ())
        if isinstance(raw, dict)
        and isinstance(raw.get("text"), str)
        and raw.get("state") not in ("pinned", "rejected")
        and (project is None or not raw.get("project") or raw.get("project") == project)
    )


def brief_output(root: Path, cwd: Path, *, limit: int | None = None) -> tuple[str, list[str]]:
    """What the host reads on stdout (``""``: nothing to say), and notes for stderr."""
    from memoir_tui.core.format.session_peek import peek_session
    from memoir_tui.core.loop.brief import DEFAULT_CHARS, render_brief
    from memoir_tui.core.rules.model import working_set
    from memoir_tui.core.rules.scope import working_project

    notes: list[str] = []
    peek = peek_session(root / SESSION_FILE)
    if peek.detail:
        notes.append(f"{root / SESSION_FILE} {peek.detail}")
    project = working_project(cwd)
    ws = working_set(
        peek.state,
        project=project.id if project else None,
        all_projects=project is None,
        here_label=project.label if project else None,
    )
    brief = render_brief(
        ws,
        waiting_review=waiting_in_scope(root, project.id if project else None),
        limit=limit or DEFAULT_CHARS,
    )
    if not brief.text:
        return "", notes
    payload = {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": brief.text}
    }
    return json.dumps(payload, ensure_ascii=False) + "\n", notes


def event_cwd(event: Mapping[str, Any], env: Mapping[str, str]) -> Path:
    for value in (event.get("cwd"), env.get("CLAUDE_PROJECT_DIR"), env.get("GEMINI_PROJECT_DIR")):
        if isinstance(value, str) and value and os.path.isabs(value) and "\0" not in value:
            return Path(value)
    return Path.cwd()


def nothing_new(root: Path, event: Mapping[str, Any]) -> bool:
    """Whether a ``stop`` event's transcript holds no byte capture has not read (the
    check ``capture.run.unread_bytes`` makes), so the hook can end before importing
    the store. An event that carries its turn (Gemini's ``prompt_response``) or names
    no readable file is never "nothing new": the full path decides."""
    from memoir_tui.core.capture.state import STATE_FILE, FileState, load_state, start_offset

    given = event.get("transcript_path")
    if "prompt_response" in event or not isinstance(given, str) or not given or "\0" in given:
        return False
    path = os.path.realpath(os.path.expanduser(given))
    try:
        size = os.stat(path).st_size
    except OSError:
        return False
    entry = load_state(root / STATE_FILE).get(path, FileState())
    return start_offset(path, entry, size) >= size
