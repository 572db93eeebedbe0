"""``memoir_note``: record a decision, with why and what was rejected."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool(
        "Record a decision",
        annotations=writes(idempotent=False, destructive=True),
        structured_output=False,
    )
    def memoir_note(
        text: Annotated[
            str, Field(description="The decision, one short sentence: what was decided")
        ],
        why: Annotated[
            str | None, Field(description="Rationale: why this choice over the others")
        ] = None,
        rejected: Annotated[
            str | None, Field(description="The alternative considered and rejected")
        ] = None,
    ) -> str:
        """Record a non-obvious technical or product decision, with why and what was
        rejected, so a future session does not relitigate it. Noting the same text again
        updates it."""
        return rt.plain(answers.note, text, why, rejected)
