"""``memoir_why``: recorded decisions found by keyword, each with its reasons."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, AllProjects, Runtime
from memoir_tui.mcp.schema import model_for

WhyView = model_for(answers.WhyView)


def register(rt: Runtime) -> None:
    @rt.tool("Why did we decide…", READ_ONLY)
    def memoir_why(
        query: Annotated[
            str,
            Field(description="Keyword or phrase to look for in decision text, why or rejected"),
        ],
        all_projects: AllProjects = False,
    ) -> Annotated[CallToolResult, WhyView]:
        """Look up recorded decisions by keyword: each match comes with why it was made,
        the alternative rejected and its date. Use it before reopening a settled choice."""
        return rt.structured(answers.why, query, all_projects)
