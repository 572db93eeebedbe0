"""Where memoir-tui's caches live (the recall indexes, the purge's cache marker).

Its own small module so that asking (every command does, for the marker) loads
neither SQLite nor the recall package.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/memoir-tui``, else the platform's user cache directory."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "memoir-tui"
    if sys.platform.startswith("linux") and env.get("HOME"):
        return Path(env["HOME"]) / ".cache" / "memoir-tui"  # what platformdirs says, unloaded
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("memoir-tui"))
