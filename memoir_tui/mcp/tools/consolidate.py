"""``memoir_consolidate``: what could be cleaned up in memory (a report; a person applies)."""

from __future__ import annotations

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, Runtime


def register(rt: Runtime) -> None:
    @rt.tool("Propose a memory clean-up", READ_ONLY)
    def memoir_consolidate() -> str:
        """Report what could be cleaned up in memory — exact and near duplicates, stale
        actions and questions, superseded decisions, dead [[links]], bloated or empty entries,
        and host index problems — each with why. Report only: a person applies them."""
        return rt.plain(answers.consolidate_report)
