"""``memoir-tui --mcp``: the stdio MCP server over the same core the app uses.

This module builds the server and registers what it offers: the tools (one module each
under ``mcp/tools/``, in ``TOOLS``' order), the prompt and the resource (``prompts``);
``runtime`` is the call path they share. ``run_server`` serves it on stdio.

Tool names and arguments follow the JavaScript ``memoir`` tool's, so agents
trained on it find the same surface. Each call constructs a fresh ``Memoir``
(config and session are re-read every time; no state is cached across calls),
so two servers and the app can share one store: every write goes through the
store's lock. The recall tools share one warm ``Recall`` whose index is a
cache kept fresh by a file watcher and a stat check on every query.

SIGTERM or SIGINT stops it cleanly (``run_server``): no new call is taken, calls in
flight get two seconds, then ``core.shutdown`` removes every lock and temp file of
ours and the process exits without waiting for stdin to close.

stdout is the protocol. Logging goes to stderr and is configured before the
SDK's server is constructed (the SDK installs its own handler otherwise).
This module must never import textual or ``memoir_tui.app``.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memoir_tui.core import default_store_dir, package_version
from memoir_tui.mcp import prompts
from memoir_tui.mcp.runtime import CallGate, Runtime, argument_problem, guard_arguments
from memoir_tui.mcp.tools import (
    add_next,
    ask,
    complete_next,
    consolidate,
    forget,
    note,
    pin,
    read,
    recall,
    reject,
    remember,
    resume,
    review,
    session,
    set_goal,
    status,
    sync_status,
    why,
)
from memoir_tui.mcp.tools import list as list_files

log = logging.getLogger("memoir_tui.mcp")

LOG_LEVEL_ENV = "MEMOIR_TUI_LOG_LEVEL"

INSTRUCTIONS = (
    "memoir keeps the working memory of coding sessions: goals, next actions, open "
    "questions and decisions with their reasons, shared across machines and tools. "
    "Call memoir_resume at the start of a session to pick up where the last one ended; "
    "record decisions with memoir_note (with why), steps with memoir_add_next, and "
    "memoir_complete_next them when done. Check memoir_why before reopening a settled choice; "
    "memoir_recall searches every assistant's memory files."
)

# Every tool's module, in the order tools/list shows them: the working set's reads, its
# writes, the review queue, the reports, then recall over every host tool's files.
TOOLS = (
    status,
    session,
    why,
    resume,
    set_goal,
    add_next,
    complete_next,
    note,
    ask,
    forget,
    review,
    pin,
    reject,
    consolidate,
    sync_status,
    recall,
    list_files,
    read,
    remember,
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


def build_server(
    store_root: Path | None = None, *, warm_recall: bool = False, gate: CallGate | None = None
) -> MCPServer:
    """The server with every tool registered; ``store_root`` None means the default store.

    ``warm_recall``: build or refresh the recall index in the background now (the served
    process does), so the first ``memoir_recall`` answers at once, from what it has.
    ``gate``: counts the calls in flight and refuses new ones once closed (``run_server``
    closes it on SIGTERM or SIGINT)."""
    root = Path(store_root) if store_root is not None else default_store_dir()
    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    server = _Server(
        "memoir",
        title="memoir-tui",
        instructions=INSTRUCTIONS,
        version=package_version(),
        log_level=level if level in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL") else "INFO",
    )
    rt = Runtime(server, root, gate or CallGate())
    guard_arguments(server, rt.needles, rt.scope_to_roots)
    rt.on_roots_changed()
    for tool in TOOLS:
        tool.register(rt)
    prompts.register(rt)
    if warm_recall:
        rt.warm.start()
    return server


class _Server(MCPServer):
    """The SDK's server with argument errors said in one plain sentence (no pydantic
    boilerplate, no URL, never the rejected values)."""

    async def call_tool(self, name, arguments, context=None):  # type: ignore[no-untyped-def]
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            from pydantic import ValidationError

            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(argument_problem(name, cause)) from cause
            raise


SHUTDOWN_GRACE_SECONDS = 2.0  # how long calls in flight may run on after SIGTERM/SIGINT
REPLY_FLUSH_SECONDS = 0.2  # then, for the replies of the calls that finished to go out
SIGNAL_EXIT = {signal.SIGTERM: 0, signal.SIGINT: 130}


def run_server(store_root: Path | None) -> int:
    """Serve on stdio until the client closes the stream or a SIGTERM/SIGINT; returns
    the exit status (a signal ends the process itself, see ``_stop``)."""
    configure_logging()
    gate = CallGate()
    server = build_server(store_root, warm_recall=True, gate=gate)
    log.info("memoir MCP server on stdio, store %s", store_root or default_store_dir())

    async def serve() -> None:
        async with anyio.create_task_group() as tg:

            async def stdio() -> None:
                await server.run_stdio_async()
                tg.cancel_scope.cancel()  # the client closed the stream: done

            tg.start_soon(stdio)
            with anyio.open_signal_receiver(*SIGNAL_EXIT) as signals:
                async for signum in signals:
                    await _stop(gate, signal.Signals(signum))

    try:
        anyio.run(serve)
    except KeyboardInterrupt:  # a SIGINT before the handler was installed
        return 130
    return 0


async def _stop(gate: CallGate, signum: signal.Signals) -> NoReturn:
    """SIGTERM or SIGINT: no new call, those in flight get ``SHUTDOWN_GRACE_SECONDS``,
    their replies a moment to go out; then every lock and temp file of ours goes and the
    process ends at once — it does not wait for stdin, which a host may keep open."""
    log.info("%s: no new calls; waiting for those in flight", signum.name)
    still = await anyio.to_thread.run_sync(gate.close, SHUTDOWN_GRACE_SECONDS)
    if still:
        log.warning(
            "%d call(s) still running after %.0f s; stopping", still, SHUTDOWN_GRACE_SECONDS
        )
    await anyio.sleep(REPLY_FLUSH_SECONDS)
    from memoir_tui.core import release_for_exit

    released = release_for_exit()
    log.info(
        "released %d lock(s), removed %d temp file(s)", len(released.locks), len(released.temps)
    )
    logging.shutdown()
    sys.stderr.flush()
    os._exit(SIGNAL_EXIT.get(signum, 0))
