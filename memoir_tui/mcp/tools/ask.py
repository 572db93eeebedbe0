"""``memoir_ask``: capture an open question for a later session."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memoir_tui.core import answers
from memoir_tui.mcp.runtime import Runtime, writes


def register(rt: Runtime) -> None:
    @rt.tool(
        "Capture an open question",
        writes(idempotent=True, destructive=True),
        structured_output=False,
    )
    def memoir_ask(
        text: Annotated[str, Field(description="The open question (at most 8 KB)")],
    ) -> str:
        """Capture an open question to resolve in a later session: something you cannot
        answer now, or an ambiguity that needs the user."""
        return rt.plain(answers.ask, text)
