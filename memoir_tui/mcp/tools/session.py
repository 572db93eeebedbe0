"""``memoir_session``: the live working set, to orient a session."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, AllProjects, Runtime
from memoir_tui.mcp.schema import model_for

SessionView = model_for(answers.SessionView)


def register(rt: Runtime) -> None:
    @rt.tool("Current session", READ_ONLY)
    def memoir_session(
        all_projects: AllProjects = False,
    ) -> Annotated[CallToolResult, SessionView]:
        """Show the current session state: goals, next actions, open questions, recent
        decisions (with why), recent sessions and the machines sharing this store. Use it
        to orient yourself; forgotten decisions and completed actions are never listed."""
        return rt.structured(answers.session, all_projects)
