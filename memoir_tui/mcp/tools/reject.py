"""``memoir_reject``: reject a captured candidate for good."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool("Reject a candidate", writes(idempotent=True, destructive=True))
    def memoir_reject(
        id: Annotated[str, Field(description="The candidate's id (a unique prefix of 4+)")],
    ) -> str:
        """Reject a captured candidate; the same text will never be proposed again."""
        return rt.plain(answers.review_reject, id)
