"""Which files recall returned, and when: an advisory log consolidate reads.

Unlike the index this cannot be rebuilt from the files, so it lives in the user
state directory (``$XDG_STATE_HOME/memoir-tui/``, else ``~/.local/state/memoir-tui/``),
one small JSON file per store: ``{"version": 1, "paths": {abs_path: last_iso}}``.

A path's stamp is only moved forward when it is more than an hour old, so a warm
query that returns the same files writes nothing. Every failure is swallowed: a
lost stamp only means consolidate may propose an entry it could have skipped.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

VERSION = 1
REFRESH_MS = 60 * 60 * 1000  # a stamp younger than this is left alone


def state_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """``$XDG_STATE_HOME/memoir-tui``, else ``<home>/.local/state/memoir-tui``."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_STATE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "memoir-tui"
    if home is None:
        home = Path(env.get("HOME") or os.path.expanduser("~"))
    return Path(home) / ".local" / "state" / "memoir-tui"


def usage_path(store_root: str | os.PathLike[str], *, env=None, home=None) -> Path:
    """One file per store, named by a hash of its real path (the scheme of ``index_path``)."""
    import zlib  # hashlib would load OpenSSL on the query path

    key = os.path.realpath(store_root).encode("utf-8", "surrogatepass")
    digest = f"{zlib.crc32(key):08x}{zlib.adler32(key[::-1]):08x}"
    return state_dir(env, home) / f"recalled-{digest}.json"


def _load(path: Path) -> dict[str, str]:
    try:
        from memoir_tui.core.base.safeio import read_json_safely

        data = read_json_safely(path, max_bytes=16 * 1024 * 1024)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return {}  # corrupt or unreadable: start over
    paths = data.get("paths") if isinstance(data, dict) else None
    if not isinstance(paths, dict):
        return {}
    return {k: v for k, v in paths.items() if isinstance(k, str) and isinstance(v, str)}


def _ms(stamp: str) -> int | None:
    try:
        dt = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def _iso(ms: int) -> str:
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def record_recalled(
    store_root: str | os.PathLike[str],
    paths: Iterable[str | os.PathLike[str]],
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    now_ms: int | None = None,
) -> None:
    """Stamp ``paths`` as returned by recall now; writes only when a stamp moved."""
    try:
        wanted = {os.path.abspath(p) for p in paths}
        if not wanted:
            return
        now = int(time.time() * 1000) if now_ms is None else int(now_ms)
        target = usage_path(store_root, env=env, home=home)
        stamps = _load(target)
        changed = False
        for p in wanted:
            last = _ms(stamps[p]) if p in stamps else None
            if last is None or now - last >= REFRESH_MS:
                stamps[p] = _iso(now)
                changed = True
        if not changed:
            return
        from memoir_tui.core.base.safeio import write_file_safely

        text = json.dumps({"version": VERSION, "paths": stamps}, indent=1, sort_keys=True)
        # never through a link out of the user's state folder
        write_file_safely(target, (text + "\n").encode("utf-8"), within=target.parent.parent)
    except (OSError, ValueError):
        return  # advisory: never fail a search over it


def recalled_since(
    store_root: str | os.PathLike[str],
    since_ms: int,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> set[Path]:
    """Files recall returned at or after ``since_ms`` (epoch milliseconds)."""
    try:
        stamps = _load(usage_path(store_root, env=env, home=home))
    except (OSError, ValueError):
        return set()
    out: set[Path] = set()
    for p, stamp in stamps.items():
        ms = _ms(stamp)
        if ms is not None and ms >= since_ms:
            out.add(Path(p))
    return out
