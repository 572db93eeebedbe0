"""``memoir_complete_next``: mark a next action done."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool(
        "Complete a next action",
        writes(idempotent=False),
        structured_output=False,
    )
    def memoir_complete_next(
        match: Annotated[
            str,
            Field(
                description="Words from the action to complete: its exact text, or a "
                "substring that matches exactly one open action"
            ),
        ],
    ) -> str:
        """Mark a next action done. Refuses an empty match, and a match that fits more than
        one action (the candidates are listed, nothing is completed)."""
        return rt.plain(answers.complete_next, match)
