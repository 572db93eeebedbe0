"""Real processes for the hook tests: the CLI on a scratch home, a project, a store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.deadlines import SAFETY_NET
from tests.paths import REPO


@dataclass
class World:
    home: Path
    store: Path
    project: Path

    @property
    def env(self) -> dict[str, str]:
        # This world's own caches, beside its home (the doctor tests check that nothing
        # is written in the home), never shared with the worker's other tests.
        xdg = self.home.parent / "xdg"
        return {
            **os.environ,
            "HOME": str(self.home),
            "MEMOIR_HOME": str(self.store),
            "XDG_CACHE_HOME": str(xdg / "cache"),
            "XDG_DATA_HOME": str(xdg / "data"),
            "XDG_STATE_HOME": str(xdg / "state"),
            "PYTHONPATH": str(REPO),
        }

    def cli(
        self,
        *args: str,
        stdin: str | None = None,
        cwd: Path | None = None,
        timeout: float = SAFETY_NET,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            cwd=cwd or self.project,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def ok(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """A set-up command that must succeed; its stderr is the failure's message."""
        done = self.cli(*args, cwd=cwd)
        assert done.returncode == 0, f"memoir-tui {' '.join(args)}: {done.stderr}"
        return done

    def hook(self, event: str, payload: dict[str, Any], host: str = "claude"):
        return self.cli("hook", event, "--host", host, stdin=json.dumps(payload))

    @property
    def projects(self) -> Path:
        return self.home / ".claude" / "projects"


def make_world(tmp_path: Path, name: str = "app") -> World:
    home = tmp_path / "home"
    project = home / "code" / name
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text(
        f'[remote "origin"]\n\turl = git@github.com:me/{name}.git\n'
    )
    store = tmp_path / "store"
    return World(home, store, project)


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
