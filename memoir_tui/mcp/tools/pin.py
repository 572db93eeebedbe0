"""``memoir_pin``: pin a reviewed candidate as a decision."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool("Pin a candidate", writes(idempotent=True, destructive=True))
    def memoir_pin(
        id: Annotated[str, Field(description="The candidate's id (a unique prefix of 4+)")],
        text: Annotated[str | None, Field(description="Reworded decision text (optional)")] = None,
        why: Annotated[str | None, Field(description="Why this was decided")] = None,
        rejected: Annotated[
            str | None, Field(description="The alternative that was rejected")
        ] = None,
    ) -> str:
        """Pin a reviewed candidate as a decision, with why and rejected if given; its
        provenance is kept on the decision. Refused when it resembles a forgotten decision
        (a person must confirm that in the app or CLI)."""
        return rt.plain(answers.review_pin, id, text, why, rejected)
