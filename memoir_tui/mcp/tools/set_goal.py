"""``memoir_set_goal``: set a goal for the current work."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    # destructive: a full list rotates its oldest item out to make room
    @rt.tool(
        "Set the goal",
        annotations=writes(idempotent=True, destructive=True),
        structured_output=False,
    )
    def memoir_set_goal(
        text: Annotated[str, Field(description="The goal, one short sentence (at most 8 KB)")],
    ) -> str:
        """Set a goal for the current work, when the user states what they want to achieve
        or a clear focus emerges. The list is capped; the oldest goal rotates out (named in
        the reply)."""
        return rt.plain(answers.set_goal, text)
