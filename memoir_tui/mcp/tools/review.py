"""``memoir_review``: the captured candidate decisions waiting for a person."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import READ_ONLY, AllProjects, Runtime
from memoir_tui.mcp.schema import model_for

ReviewView = model_for(answers.ReviewView)


def register(rt: Runtime) -> None:
    @rt.tool("Review captured candidates", READ_ONLY)
    def memoir_review(
        all_projects: AllProjects = False,
    ) -> Annotated[CallToolResult, ReviewView]:
        """List candidate decisions captured from transcripts that wait for a person to pin or
        reject, with provenance: who said it (user or assistant), which rule caught it, the
        session and project (this project's and global ones unless all_projects). A
        candidate is not a decision until it is pinned."""
        return rt.structured(answers.review_list, all_projects)
