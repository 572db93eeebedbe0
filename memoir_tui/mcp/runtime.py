"""The one call path every MCP tool goes through, and what the tools share.

``Runtime`` is built once per server (``server.build_server``) and handed to each tool
module's ``register``. It holds the store root, the call gate, the scope (the project
the server stamps and scopes to: the working directory's, or the client's first root),
the warm recall index, and the tool decorator. Every call runs through ``call``: the
gate is entered, a fresh ``Memoir`` is built (config and session re-read; nothing is
cached across calls), an interrupted commit is finished, the tool's core answer runs,
and a refusal or an unreadable store becomes one sentence (a ``ToolError``).

Before any of that, ``guard_arguments`` scans a writing call's arguments for secrets
together and turns an argument of the wrong type into a sentence that never echoes
the value given. This module must never import textual or ``memoir_tui.app``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from memoir_tui.core import MemoirError, Reply, for_terminal, open_memoir, refusal_text
from memoir_tui.mcp import schema
from memoir_tui.mcp.warm_recall import WarmRecall

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context, MCPServer

log = logging.getLogger("memoir_tui.mcp")

# Annotations: hints for hosts deciding what to confirm with the user.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def writes(*, idempotent: bool, destructive: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


AllProjects = Annotated[
    bool,
    Field(
        description="Every project's items, not only this project's and global ones "
        "(scoped answers say how many other projects hold)"
    ),
]

# Tools whose text arguments are needles, not writes (issue 28): they name what to find,
# complete or forget, and a pasted token must reach them. Read-only tools are needles too
# (``Runtime.tool`` learns them from their annotations as they are registered).
NEEDLE_TOOLS = frozenset({"memoir_forget", "memoir_complete_next"})


class CallGate:
    """Tool calls in flight, and whether new ones are still taken (a signal closes it)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self.closing = False

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        with self._cond:
            if self.closing:
                raise ToolError(
                    "memoir-tui is shutting down: this call was not run; call it again once "
                    "the server has restarted"
                )
            self._active += 1
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    def close(self, grace: float) -> int:
        """Take no new call; wait up to ``grace`` seconds for those in flight. Returns how
        many are still running."""
        with self._cond:
            self.closing = True
            self._cond.wait_for(lambda: self._active == 0, timeout=grace)
            return self._active


class Runtime:
    """What every tool of one server shares: the store root, the gate, the scope, the
    warm recall index, and the call path (``call``, ``plain``, ``structured``)."""

    def __init__(self, server: MCPServer, root: Path, gate: CallGate) -> None:
        from memoir_tui.core import working_project

        self.server = server
        self.root = root
        self.gate = gate
        # The project the server was started in; none (every project) when a host starts
        # it in the home directory or the filesystem root. A client that declares roots
        # names the project instead: its first root (``scope_to_roots``).
        self.scope: dict[str, Any] = {"project": working_project(), "roots_asked": False}
        self.needles: set[str] = set(NEEDLE_TOOLS)
        self._warned: set[str] = set()
        # One Recall per server, watched: the index stays warm and re-reads what changed
        # before each answer. A served process builds it in the background at start
        # (``warm.start()``) and answers from what it has meanwhile (saying so). The Memoir
        # is still built per call.
        try:
            here: Path | None = Path.cwd()
        except OSError:  # the working directory was deleted
            here = None
        self.warm = WarmRecall(root, cwd=here)
        self._recall_roots_asked = False

    # --- registering ----------------------------------------------------------------

    def tool(
        self, title: str, annotations: ToolAnnotations, *, structured_output: bool | None = None
    ) -> Callable[[Callable[..., object]], Callable[..., object]]:
        """``server.tool`` with the docstring folded onto one line as the description."""

        def register(fn: Callable[..., object]) -> Callable[..., object]:
            description = " ".join((fn.__doc__ or "").split())
            if annotations.read_only_hint:
                self.needles.add(fn.__name__)
            return self.server.tool(
                title=title,
                description=description,
                annotations=annotations,
                structured_output=structured_output,
            )(fn)

        return register

    # --- the call path ----------------------------------------------------------------

    def call(self, fn: Callable[..., Reply], *args: object) -> Reply:
        with self.gate.entered():
            return self.run(fn, *args)

    def run(self, fn: Callable[..., Reply], *args: object) -> Reply:
        from memoir_tui.core import take_notices

        try:
            # per call: config and session re-read, nothing cached; items are
            # stamped with (and reads scoped to) the project the server runs in
            try:
                # opened as every face opens it: an interrupted commit finished first
                store = open_memoir(self.root, actor="mcp", project=self.scope["project"])
                for warning in store.config.warnings:  # a newer version's settings: read past
                    if warning not in self._warned:
                        self._warned.add(warning)
                        log.warning("%s", warning)
                return fn(store, *args)
            finally:
                for note in take_notices(self.root):  # a journal set aside, never applied
                    log.warning("%s", note)
        except MemoirError as err:
            from memoir_tui.core import shown  # a refusal may quote a pasted needle

            log.info("%s refused: %s", fn.__name__, shown(str(err)))
            raise ToolError(shown(refusal_text(err))) from None
        except OSError as err:
            log.warning("%s failed: %s", fn.__name__, err)
            raise ToolError(f"could not access the memoir store: {err}") from None
        except RecursionError:
            raise ToolError("a file in the memoir store is nested too deeply to read") from None

    def plain(self, fn: Callable[..., Reply], *args: object) -> str:
        """The answer's text, as a terminal may show it."""
        return for_terminal(self.call(fn, *args).text)

    def structured(self, fn: Callable[..., Reply], *args: object) -> CallToolResult:
        """The answer's text and its data, as the tool's output schema describes it."""
        reply = self.call(fn, *args)
        assert reply.data is not None
        return CallToolResult(
            content=[TextContent(type="text", text=for_terminal(reply.text))],
            structured_content=schema.structured(reply.data),
        )

    # --- the client's roots -------------------------------------------------------------

    async def scope_to_roots(self, context: Any) -> None:
        """Once per server (again after ``notifications/roots/list_changed``): a client
        that declares roots names the project — its first ``file:`` root — for stamping
        and scoping, wherever the host started the server (issue 21)."""
        scope = self.scope
        if scope["roots_asked"] or context is None:
            return
        scope["roots_asked"] = True
        from urllib.parse import unquote, urlparse

        from mcp.types import ClientCapabilities, RootsCapability

        from memoir_tui.core import project_identity

        try:
            session = context.session
            if not session.check_client_capability(ClientCapabilities(roots=RootsCapability())):
                return
            listed = await session.list_roots()
        except Exception:  # no roots: the working directory's project stays the scope
            log.info("could not read the client's roots", exc_info=True)
            return
        paths = [
            Path(unquote(urlparse(str(r.uri)).path))
            for r in listed.roots
            if str(r.uri).startswith("file:")
        ]
        scope["roots"] = paths  # every root: forget everywhere searches each one's project
        if not paths:
            return
        try:
            scope["project"] = project_identity(paths[0], home=Path.home())
        except OSError:
            log.info("the client's first root could not be read", exc_info=True)
            return
        log.info("scoped to the client's first root: %s", scope["project"].label)

    def on_roots_changed(self) -> None:
        """``notifications/roots/list_changed``: ask for the roots again on the next call."""
        from mcp.types import NotificationParams

        scope = self.scope

        async def changed(_ctx: Any, _params: Any) -> None:
            scope["roots_asked"] = False

        low = getattr(self.server, "_lowlevel_server", None)
        if low is not None and hasattr(low, "add_notification_handler"):
            low.add_notification_handler(
                "notifications/roots/list_changed", NotificationParams, changed
            )

    def recall_roots(self, ctx: Context) -> None:
        """Once: the client's roots (a host that starts servers in / names the project
        there), so its project is recallable; a client without roots changes nothing."""
        if self._recall_roots_asked:
            return
        self._recall_roots_asked = True
        from urllib.parse import unquote, urlparse

        from mcp.types import ClientCapabilities, RootsCapability

        try:
            session = ctx.session
            if not session.check_client_capability(ClientCapabilities(roots=RootsCapability())):
                return
            listed = anyio.from_thread.run(session.list_roots)
            paths = [
                Path(unquote(urlparse(str(r.uri)).path))
                for r in listed.roots
                if str(r.uri).startswith("file:")
            ]
            self.warm.use_roots(paths)
        except Exception:  # no roots: the working directory's project stays the scope
            log.info("could not read the client's roots", exc_info=True)


# --- the arguments, before any tool reads them ---------------------------------------------


def guard_arguments(
    server: MCPServer,
    needles: set[str],
    before: Callable[[Any], Awaitable[None]] | None = None,
) -> None:
    """Every writing call's arguments are scanned for secrets together before anything
    else reads them (a key split over two fields is still a key); a needle is not (see
    ``NEEDLE_TOOLS``). An argument of the wrong type is refused in a sentence instead of
    a validation dump that would echo it."""
    delegate = server.call_tool

    async def call_tool(name, arguments, context=None):  # type: ignore[no-untyped-def]
        import json

        from memoir_tui.core import SecretFoundError, ensure_no_secrets_together

        fields = [
            (str(key), value if isinstance(value, str) else json.dumps(value, default=str))
            for key, value in (arguments or {}).items()
            if value is not None
        ]
        try:
            if name not in needles:
                ensure_no_secrets_together(fields)
        except SecretFoundError as err:
            log.info("%s refused: %s", name, err)
            raise ToolError(str(err)) from None
        if before is not None:
            await before(context)
        try:
            return await delegate(name, arguments, context)
        except ToolError as err:
            if isinstance(err.__cause__, ValidationError):
                raise ToolError(argument_problem(name, err.__cause__)) from err.__cause__
            raise

    server.call_tool = call_tool  # type: ignore[method-assign]


def argument_problem(tool_name: str, error: Any) -> str:
    """``memoir_add_next was not run: text is required.`` and the like: the fields and what
    they take, never the values given (a value can be a secret: a cloud service-account
    JSON as ``text``)."""
    said = []
    for err in error.errors():
        field = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__") or "arguments"
        kind = str(err.get("type", ""))
        if kind == "missing":
            said.append(f"{field} is required")
        elif kind.startswith("string"):
            said.append(f"{field} must be a string")
        elif kind.startswith("int"):
            said.append(f"{field} must be a whole number")
        elif kind.startswith("bool"):
            said.append(f"{field} must be true or false")
        elif kind.startswith("list"):
            said.append(f"{field} must be a list")
        elif kind == "extra_forbidden":
            said.append(f"{field} is not an argument of this tool")
        else:
            message = str(err.get("msg", "is not valid")).split("[", 1)[0].strip().rstrip(".")
            said.append(f"{field}: {message[0].lower() + message[1:] if message else 'invalid'}")
    return f"{tool_name} was not run: {'; '.join(dict.fromkeys(said))}."
