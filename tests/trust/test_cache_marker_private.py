"""The purge's cache marker lives beside the caches and is as private as they are."""

from __future__ import annotations

import stat
from pathlib import Path
from types import SimpleNamespace

from memoir_tui.core.services.purge_marker import scrub_marker, stage_cache_scrub
from memoir_tui.core.workflows.memoir import Memoir


def test_the_scrub_marker_is_0600(tmp_path: Path) -> None:
    store = Memoir(tmp_path / "store", actor="cli")
    stage_cache_scrub(SimpleNamespace(store=store))  # type: ignore[arg-type]
    marker = scrub_marker(store.root)
    try:
        assert stat.S_IMODE(marker.stat().st_mode) == 0o600
        assert stat.S_IMODE(marker.parent.stat().st_mode) & 0o077 == 0
    finally:
        marker.unlink()
