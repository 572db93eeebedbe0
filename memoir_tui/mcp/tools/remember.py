"""``memoir_remember``: save a memory as a new markdown file, for this store or a host tool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from memoir_tui.core import Reply
from memoir_tui.mcp.runtime import Runtime, writes
from memoir_tui.mcp.warm_recall import WarmRecall, resolve_tool

if TYPE_CHECKING:
    from memoir_tui.core import Memoir


def remember(
    store: Memoir,
    warm: WarmRecall,
    content: str,
    filename: str,
    tool: str | None = None,
    project: str | None = None,
    aliases: list[str] | None = None,
    tags: list[str] | None = None,
) -> Reply:
    """``core.remember.remember`` with the tool name resolved and the warm index."""
    from memoir_tui.core import remember as service

    return service.remember(
        store.entries,
        warm.get(),
        content,
        filename,
        tool,
        project,
        aliases,
        tags,
        tool_name=resolve_tool(tool),
    )


def register(rt: Runtime) -> None:
    @rt.tool("Remember in a memory file", writes(idempotent=False), structured_output=False)
    def memoir_remember(
        content: Annotated[str, Field(description="The memory to save (markdown)")],
        filename: Annotated[
            str,
            Field(
                description='A new file name ending in .md, e.g. "auth-setup.md" or "Auth '
                'Setup.md" (written as a lowercase slug; never a path, never an existing file)'
            ),
        ],
        tool: Annotated[
            str | None,
            Field(
                description='Where to save: "memoir" (this store, the default), "claude", '
                '"cursor", "windsurf", "copilot", "cline", "continue", "kiro"; written with '
                "the frontmatter (and, for Claude Code, the index line) the host needs "
                "to load it"
            ),
        ] = None,
        project: Annotated[
            str | None,
            Field(
                description="Save a project-level memory for this project directory (the "
                "current one or one memoir knows) instead of a global one"
            ),
        ] = None,
        aliases: Annotated[
            list[str] | None,
            Field(
                description="Other words this memory should be found by: give two or three "
                "paraphrases a person might ask with (synonyms, abbreviations, the problem "
                'in plain words, e.g. ["sso", "single sign-on", "log in once"])'
            ),
        ] = None,
        tags: Annotated[list[str] | None, Field(description="Tags")] = None,
    ) -> str:
        """Save a memory as a new markdown file for future sessions: a fact, preference,
        decision or lesson (type from the content's frontmatter, else fact). For a host
        tool it writes what the host needs to load the file and says where the host will
        and will not see it. Refuses a secret in the content, a name that is a path, a
        folder the host does not read, and an existing file. memoir_recall finds it at
        once. Pass aliases: a later question rarely uses the memory's own words."""
        return rt.plain(remember, rt.warm, content, filename, tool, project, aliases, tags)
