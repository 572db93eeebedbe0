"""``memoir_status``: where the store is, whether it is writable, and what it holds."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, AllProjects, Runtime
from memoir_tui.mcp.schema import model_for

StatusView = model_for(answers.StatusView)


def register(rt: Runtime) -> None:
    @rt.tool("memoir status", READ_ONLY)
    def memoir_status(
        all_projects: AllProjects = False,
    ) -> Annotated[CallToolResult, StatusView]:
        """Show where the memoir store is, whether it is writable, this machine, and how
        many goals, next actions, questions and decisions it holds."""
        return rt.structured(answers.status, all_projects)
