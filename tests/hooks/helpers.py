"""Real processes for the hook tests: the CLI on a scratch home, a project, a store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.world import World


def make_world(tmp_path: Path, name: str = "app") -> World:
    home = tmp_path / "home"
    project = home / "code" / name
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text(
        f'[remote "origin"]\n\turl = git@github.com:me/{name}.git\n'
    )
    # The store beside the home, this world's caches too: the doctor tests check that
    # nothing is written in the home; never shared with the worker's other tests.
    return World(
        root=tmp_path,
        home=home,
        store_dir=tmp_path / "store",
        project=project,
        other=home / "code" / "other",
        cache=tmp_path / "xdg" / "cache",
    )


def start_event(world: World, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "5f1c0de0-0000-4000-8000-000000000001",
        "transcript_path": str(world.projects / "-x" / "s.jsonl"),
        "cwd": str(world.project),
        "hook_event_name": "SessionStart",
        "source": "startup",
        **extra,
    }


def brief_of(stdout: str) -> str:
    """The additionalContext of a session-start hook's JSON output."""
    data = json.loads(stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    return data["hookSpecificOutput"]["additionalContext"]
