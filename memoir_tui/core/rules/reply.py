"""What a tool hands back: a plain value every answering module returns (the MCP face,
the CLI's answers, remember), so none of them imports another to say it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Reply:
    """What a tool hands back: text for the model, optional structured data."""

    text: str
    data: Any = None  # a frozen dataclass (the MCP face turns it into its model)
