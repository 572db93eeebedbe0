"""``memoir-tui --mcp``: the stdio MCP server over the same core the app uses.

Tool names and arguments follow the JavaScript ``memoir`` tool's, so agents
trained on it find the same surface. Each call constructs a fresh ``Store``
(config and session are re-read every time; nothing is cached across calls),
so two servers and the app can share one store: every write goes through the
store's lock.

stdout is the protocol. Logging goes to stderr and is configured before the
SDK's server is constructed (the SDK installs its own handler otherwise).
This module must never import textual or ``memoir_tui.app``.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from memoir_tui.core.errors import MemoirError
from memoir_tui.core.store import Store, default_store_dir
from memoir_tui.mcp import tools
from memoir_tui.mcp.tools import Reply, ResumeView, SessionView, StatusView, WhyView

log = logging.getLogger("memoir_tui.mcp")

LOG_LEVEL_ENV = "MEMOIR_TUI_LOG_LEVEL"

INSTRUCTIONS = (
    "memoir keeps the working memory of coding sessions: goals, next actions, open "
    "questions and decisions with their reasons, shared across machines and tools. "
    "Call memoir_resume at the start of a session to pick up where the last one ended; "
    "record decisions with memoir_note (with why), steps with memoir_add_next, and "
    "memoir_complete_next them when done. Check memoir_why before reopening a settled choice."
)

# Annotations: hints for hosts deciding what to confirm with the user.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _writes(*, idempotent: bool, destructive: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def configure_logging() -> None:
    """Logs to stderr only; ``MEMOIR_TUI_LOG_LEVEL`` (default WARNING) sets the level."""
    level_name = os.environ.get(LOG_LEVEL_ENV, "WARNING").upper()
    level = logging.getLevelNamesMapping().get(level_name, logging.WARNING)
    logging.basicConfig(
        stream=sys.stderr,
        level=level,
        format="%(asctime)s memoir-tui[%(process)d] %(levelname)s %(name)s: %(message)s",
        force=True,
    )


def build_server(store_root: Path | None = None) -> MCPServer:
    """The server with every tool registered; ``store_root`` None means the default store."""
    root = Path(store_root) if store_root is not None else default_store_dir()
    from memoir_tui.core.scope import current_project

    project = current_project().id

    def call(fn: Callable[..., Reply], *args: object) -> Reply:
        try:
            # per call: config and session re-read, nothing cached; items are
            # stamped with (and reads scoped to) the project the server runs in
            store = Store(root, actor="mcp", project=project)
            return fn(store, *args)
        except MemoirError as err:
            log.info("%s refused: %s", fn.__name__, err)
            raise ToolError(tools.refusal_text(err)) from None
        except OSError as err:
            log.warning("%s failed: %s", fn.__name__, err)
            raise ToolError(f"could not access the memoir store: {err}") from None

    def plain(fn: Callable[..., Reply], *args: object) -> str:
        return call(fn, *args).text

    def structured(fn: Callable[..., Reply], *args: object) -> CallToolResult:
        reply = call(fn, *args)
        assert reply.data is not None
        return CallToolResult(
            content=[TextContent(type="text", text=reply.text)],
            structured_content=reply.data.model_dump(mode="json"),
        )

    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    server = MCPServer(
        "memoir",
        title="memoir-tui",
        instructions=INSTRUCTIONS,
        version=tools.package_version(),
        log_level=level if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "INFO",
    )

    def tool(
        title: str, annotations: ToolAnnotations, *, structured_output: bool | None = None
    ) -> Callable[[Callable[..., object]], Callable[..., object]]:
        """``server.tool`` with the docstring folded onto one line as the description."""

        def register(fn: Callable[..., object]) -> Callable[..., object]:
            description = " ".join((fn.__doc__ or "").split())
            return server.tool(
                title=title,
                description=description,
                annotations=annotations,
                structured_output=structured_output,
            )(fn)

        return register

    # --- read-only -------------------------------------------------------------

    @tool("memoir status", READ_ONLY)
    def memoir_status() -> Annotated[CallToolResult, StatusView]:
        """Show where the memoir store is, whether it is writable, this machine, and how
        many goals, next actions, questions and decisions it holds."""
        return structured(tools.status)

    @tool("Current session", READ_ONLY)
    def memoir_session() -> Annotated[CallToolResult, SessionView]:
        """Show the current session state: goals, next actions, open questions, recent
        decisions (with why), recent sessions and the machines sharing this store. Use it
        to orient yourself; forgotten decisions and completed actions are never listed."""
        return structured(tools.session)

    @tool("Why did we decide…", READ_ONLY)
    def memoir_why(
        query: Annotated[
            str,
            Field(description="Keyword or phrase to look for in decision text, why or rejected"),
        ],
    ) -> Annotated[CallToolResult, WhyView]:
        """Look up recorded decisions by keyword: each match comes with why it was made,
        the alternative rejected and its date. Use it before reopening a settled choice."""
        return structured(tools.why, query)

    @tool("Resume: hand-off", READ_ONLY)
    def memoir_resume(
        project: Annotated[
            str | None,
            Field(
                description="Optional project directory or name: items recorded for another "
                "project are left out (items without a project always show)."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, ResumeView]:
        """A compact hand-off to start a session with: the goal, next actions, open
        questions, the newest decisions to respect and the last sessions' summaries."""
        return structured(tools.resume, project)

    # --- writing ---------------------------------------------------------------

    @tool("Set the goal", annotations=_writes(idempotent=True), structured_output=False)
    def memoir_set_goal(
        text: Annotated[str, Field(description="The goal, one short sentence (at most 8 KB)")],
    ) -> str:
        """Set a goal for the current work, when the user states what they want to achieve
        or a clear focus emerges. The list is capped; the oldest goal rotates out (named in
        the reply)."""
        return plain(tools.set_goal, text)

    @tool("Add a next action", annotations=_writes(idempotent=True), structured_output=False)
    def memoir_add_next(
        text: Annotated[
            str, Field(description="The action, one short imperative sentence (at most 8 KB)")
        ],
    ) -> str:
        """Add a concrete next step, when one is decided or the logical next move is clear.
        The list is capped; anything that rotates out is named in the reply."""
        return plain(tools.add_next, text)

    @tool(
        "Complete a next action",
        _writes(idempotent=False),
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
        return plain(tools.complete_next, match)

    @tool("Record a decision", annotations=_writes(idempotent=False), structured_output=False)
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
        return plain(tools.note, text, why, rejected)

    @tool(
        "Capture an open question",
        _writes(idempotent=True),
        structured_output=False,
    )
    def memoir_ask(
        text: Annotated[str, Field(description="The open question (at most 8 KB)")],
    ) -> str:
        """Capture an open question to resolve in a later session: something you cannot
        answer now, or an ambiguity that needs the user."""
        return plain(tools.ask, text)

    @tool(
        "Forget a decision (permanent)",
        _writes(idempotent=False, destructive=True),
        structured_output=False,
    )
    def memoir_forget(
        text: Annotated[
            str,
            Field(
                description="The decision's text, a substring matching exactly one visible "
                "decision, or its 64-hex identity hash"
            ),
        ],
        purge: Annotated[
            bool,
            Field(
                description="Also redact the text, why and rejected in place, keeping only a "
                "hash (for leaked secrets). Default false."
            ),
        ] = False,
    ) -> str:
        """Forget a recorded decision, permanently: it is hidden from memoir_session,
        memoir_why and memoir_resume here and on every synced replica (a tombstone; there
        is no un-forget). Use it when a decision is wrong, obsolete or captured by mistake.
        Refuses a text matching several decisions and lists them; nothing changes then."""
        return plain(tools.forget, text, purge)

    @tool("Review captured candidates", READ_ONLY)
    def memoir_review() -> Annotated[CallToolResult, tools.ReviewView]:
        """List candidate decisions captured from transcripts that wait for a person to pin or
        reject, with provenance: who said it (user or assistant), which rule caught it, the
        session and project. A candidate is not a decision until it is pinned."""
        return structured(tools.review_list)

    @tool("Pin a candidate", _writes(idempotent=True))
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
        return plain(tools.review_pin, id, text, why, rejected)

    @tool("Reject a candidate", _writes(idempotent=True))
    def memoir_reject(
        id: Annotated[str, Field(description="The candidate's id (a unique prefix of 4+)")],
    ) -> str:
        """Reject a captured candidate; the same text will never be proposed again."""
        return plain(tools.review_reject, id)

    @tool("Propose a memory clean-up", READ_ONLY)
    def memoir_consolidate() -> str:
        """Report what could be cleaned up in memory — exact and near duplicates, stale
        actions and questions, superseded decisions, dead [[links]], bloated or empty entries,
        and host index problems — each with why. Report only: a person applies them."""
        return plain(tools.consolidate_report)

    @tool("Sync status", READ_ONLY)
    def memoir_sync_status() -> str:
        """Show how this store syncs between machines: the remote (credentials masked),
        encryption on or off, machines that have synced and when, changes not yet pushed,
        and what the last sync merged. Read-only; it contacts no remote."""
        return plain(tools.sync_status_report)

    return server


def run_server(store_root: Path | None) -> int:
    """Serve on stdio until the client closes the stream; returns the exit status."""
    configure_logging()
    server = build_server(store_root)
    log.info("memoir MCP server on stdio, store %s", store_root or default_store_dir())
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        return 130
    return 0
