"""``memoir_resume``: a compact hand-off to start a session with."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, Runtime
from memoir_tui.mcp.schema import model_for

ResumeView = model_for(answers.ResumeView)


def register(rt: Runtime) -> None:
    @rt.tool("Resume: hand-off", READ_ONLY)
    def memoir_resume(
        project: Annotated[
            str | None,
            Field(
                description="Optional project directory or name: items recorded for another "
                "project are left out (items without a project always show)."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, ResumeView]:
        """A compact hand-off to start a session with: the goal, next actions, open
        questions, the newest decisions to respect and the last sessions' summaries."""
        return rt.structured(answers.resume, project)
