"""The one scratch world of the tests: a home, a store folder, the project worked in,
another project and a cache, all under one root (a test's ``tmp_path``).

Each family seeds it with what it needs (``tests/recall/conftest.py`` every host tool's
layout, ``tests/mcp/test_mcp_recall.py`` the MCP tools' notes, ``tests/hooks/helpers.py``
a git project and a store beside the home); the paths, the environments a process on it
is given and the CLI run in it are here, once.
"""

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
    root: Path
    home: Path
    store_dir: Path  # MEMOIR_HOME: ~/.config/memoir
    project: Path  # the current project: Claude Code's transcripts name it
    other: Path  # another project memoir knows (a configured root)
    cache: Path  # XDG_CACHE_HOME; the XDG data and state folders are beside it

    @classmethod
    def under(cls, root: Path) -> World:
        """The world's paths under ``root``, its store, project and other project made."""
        home = root / "home"
        world = cls(
            root=root,
            home=home,
            store_dir=home / ".config" / "memoir",
            project=root / "src" / "webshop",
            other=root / "src" / "billing",
            cache=root / "cache",
        )
        for folder in (world.store_dir / "memory", world.project, world.other):
            folder.mkdir(parents=True, exist_ok=True)
        return world

    @property
    def claude(self) -> Path:
        return self.home / ".claude"

    def host_env(self) -> dict[str, str]:
        """What a host tool's layout is resolved against (Recall's ``env``)."""
        return {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config")}

    def env(self) -> dict[str, str]:
        """The variables that put a process in this world (a test sets them on its own)."""
        return {
            "HOME": str(self.home),
            "MEMOIR_HOME": str(self.store_dir),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.cache),
            "XDG_DATA_HOME": str(self.cache.parent / "data"),
            "XDG_STATE_HOME": str(self.cache.parent / "state"),
        }

    def process_env(self) -> dict[str, str]:
        """This process's environment with the home, store and XDG folders of this world
        and the checkout on PYTHONPATH (XDG_CONFIG_HOME stays this process's): what
        ``cli`` runs with."""
        env = self.env()
        del env["XDG_CONFIG_HOME"]
        return {**os.environ, **env, "PYTHONPATH": str(REPO)}

    def cli_env(self) -> dict[str, str]:
        """This process's environment with the home, store, config and cache of this world
        (for a CLI subprocess)."""
        env = dict(os.environ)
        env.update(
            HOME=str(self.home),
            MEMOIR_HOME=str(self.store_dir),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.cache),
        )
        return env

    def recall(self, **kwargs):
        """A Recall over this world's store, from the project (unless ``cwd`` is given)."""
        from memoir_tui.core.recall import Recall

        kwargs.setdefault("cwd", self.project)
        return Recall(
            self.store_dir, home=self.home, env=self.host_env(), cache_dir=self.cache, **kwargs
        )

    def cli(
        self,
        *args: str,
        stdin: str | None = None,
        cwd: Path | None = None,
        timeout: float = SAFETY_NET,
    ) -> subprocess.CompletedProcess[str]:
        """``memoir-tui args`` in a fresh interpreter, from the project (or ``cwd``)."""
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            cwd=cwd or self.project,
            env=self.process_env(),
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
        """A host's hook event, its payload on stdin."""
        return self.cli("hook", event, "--host", host, stdin=json.dumps(payload))

    @property
    def projects(self) -> Path:
        """Claude Code's projects folder (transcripts and per-project memory)."""
        return self.claude / "projects"
