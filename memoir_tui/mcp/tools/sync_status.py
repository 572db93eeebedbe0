"""``memoir_sync_status``: how this store syncs between machines (contacts no remote)."""

from __future__ import annotations

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, Runtime


def register(rt: Runtime) -> None:
    @rt.tool("Sync status", READ_ONLY)
    def memoir_sync_status() -> str:
        """Show how this store syncs between machines: the remote (credentials masked),
        encryption on or off, machines that have synced and when, changes not yet pushed,
        and what the last sync merged. Read-only; it contacts no remote."""
        return rt.plain(answers.sync_status_report)
