"""What the recall tools answer with: ranked passages and memory-file lists as data.

Declared once, like ``core.answers``: frozen dataclasses whose docstrings and field
descriptions are what an MCP client reads in the tools' output schemas (the MCP face
builds its models from these; core never imports it).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, kw_only=True)
class PassageOut:
    """One ranked passage of one file (frontmatter never included)."""

    path: str = field(metadata={"description": "absolute path; memoir_read takes it as filepath"})
    tool: str
    type: str
    name: str
    score: float
    passage: str
    why: dict[str, list[str]] = field(
        metadata={"description": "field → the query terms it matched ('auth*': a prefix match)"}
    )
    project: str = field(metadata={"description": "the project the file belongs to; '' = global"})
    kind: str = field(metadata={"description": "memory, rules, instructions or session"})
    always_loaded: bool = field(
        metadata={"description": "the tool loads this file into every session"}
    )
    lines: list[list[int]] = field(
        metadata={"description": "1-based line ranges of the passage in the file"}
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallView:
    query: str
    scope: str = field(
        metadata={"description": "which projects were searched (global files always are)"}
    )
    hits: list[PassageOut]
    complete: bool = field(
        default=True,
        metadata={
            "description": "false while the index is still being built: results may be missing"
        },
    )
    note: str = field(
        default="", metadata={"description": "what the answer is missing, if anything"}
    )
    elsewhere: dict[str, int] = field(
        default_factory=dict,
        metadata={"description": "nothing in scope: matches in other projects, by project"},
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryOut:
    """A memory, rules or instructions file as a list shows it."""

    tool: str
    type: str
    kind: str
    name: str
    description: str
    path: str
    project: str
    always_loaded: bool
    updated: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ListView:
    tool: str | None = field(
        metadata={"description": "the tool filter, resolved; null = every tool"}
    )
    scope: str
    total: int = field(metadata={"description": "files found; at most 200 are listed"})
    by_tool: dict[str, int]
    entries: list[EntryOut]
