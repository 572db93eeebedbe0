"""``memoir_add_next``: add a concrete next step."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool(
        "Add a next action",
        annotations=writes(idempotent=True, destructive=True),
        structured_output=False,
    )
    def memoir_add_next(
        text: Annotated[
            str, Field(description="The action, one short imperative sentence (at most 8 KB)")
        ],
    ) -> str:
        """Add a concrete next step, when one is decided or the logical next move is clear.
        The list is capped; anything that rotates out is named in the reply."""
        return rt.plain(answers.add_next, text)
