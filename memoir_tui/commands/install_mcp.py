"""``memoir-tui install-mcp`` / ``uninstall-mcp``: register the MCP server in a host tool.

The face of ``core.mcp_install``: parse the arguments, plan, then print the
diff (``--dry-run``) or apply the change, and turn refusals into exit codes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memoir_tui.commands import open_store

if TYPE_CHECKING:
    from memoir_tui.core import Memoir, ServerSpec


def register(sub: argparse._SubParsersAction) -> None:
    # The adapters' data only: mcp_install (and its editor) load when the command runs.
    from memoir_tui.core import mcp_hosts

    tools = ", ".join("/".join((t.name, *t.aliases)) for t in mcp_hosts(installable=True))
    for name, uninstall in (("install-mcp", False), ("uninstall-mcp", True)):
        verb = "remove the server from" if uninstall else "register the server in"
        p = sub.add_parser(name, help=f"{verb} a host tool's MCP configuration")
        p.add_argument("tool", help=tools)
        p.add_argument("--project", type=Path, help="use the project-scope file in this directory")
        p.add_argument("--dry-run", action="store_true", help="print the diff and write nothing")
        p.set_defaults(run=cmd_install_mcp, uninstall=uninstall)


def cmd_install_mcp(ns: argparse.Namespace) -> int:
    from memoir_tui.core import ServerSpec

    # The host tool starts the server with its own PATH, so name the
    # executable absolutely: the console script if installed, else this Python.
    store_root = ns.store or (
        Path(os.environ["MEMOIR_HOME"]) if os.environ.get("MEMOIR_HOME") else None
    )
    env = {"MEMOIR_HOME": str(store_root.expanduser().resolve())} if store_root else {}
    script = shutil.which("memoir-tui")
    if ns.project is not None:
        # A project's file is meant to be committed for a team: it names memoir-tui from
        # PATH (each teammate installs it) and no path of this machine's (store or venv).
        server = ServerSpec(command="memoir-tui")
        print(
            "note: this project file is meant to be committed: the entry runs memoir-tui "
            "from PATH and uses each user's own store. Each user needs memoir-tui on PATH"
            + ("" if script else " (it is not on this PATH, so the check below fails here)")
            + ", and the host asks before it starts a project's server (Claude Code: "
            "approve it; Codex: trust the project; Cursor, VS Code: enable it).",
            file=sys.stdout,
        )
    elif script:
        server = ServerSpec(command=str(Path(script).resolve()), env=env)
    else:
        server = ServerSpec.python_module(sys.executable, env=env)
    return run_install_cli(
        open_store(ns),
        ns.tool,
        ns.project,
        ns.dry_run,
        ns.uninstall,
        home=Path.home(),
        env=os.environ,
        out=sys.stdout,
        server=server,
    )


def run_install_cli(
    store: Memoir,
    tool: str,
    project: Path | None,
    dry_run: bool,
    uninstall: bool,
    *,
    home: Path,
    env: Mapping[str, str],
    out: TextIO,
    server: ServerSpec | None = None,
    platform: str | None = None,
    live_check: bool = True,
) -> int:
    """Plan, then print the diff or apply it.

    Exit codes: 0 done (or nothing to do), 1 refused (unparseable file, unsafe
    edit, write failure; the file is untouched), 2 usage (unknown tool, a scope
    the tool lacks, a missing project directory).
    """
    from memoir_tui.core import (
        ConfigRefusedError,
        InvalidProjectError,
        MemoirError,
        ServerSpec,
        UnknownToolError,
        UnsupportedScopeError,
        apply_change,
        get_tool,
        manual_snippet,
        plan_install,
        plan_uninstall,
    )

    server = server or ServerSpec()
    try:
        host = get_tool(tool)
    except UnknownToolError as exc:
        print(f"memoir-tui: {exc}", file=out)
        return 2
    planner = plan_uninstall if uninstall else plan_install
    try:
        change = planner(
            host, home=home, project=project, server=server, env=env, platform=platform
        )
    except (UnsupportedScopeError, InvalidProjectError) as exc:
        print(f"memoir-tui: {exc}", file=out)
        return 2
    except ConfigRefusedError as exc:
        print(f"memoir-tui: refusing to edit {exc.path}: {exc.reason}", file=out)
        print("The file was left untouched.", file=out)
        if not uninstall:
            print(f"To register the server by hand, merge this into {exc.path}:", file=out)
            print(manual_snippet(host, server), file=out)
        return 1

    where = f"{host.name} ({change.scope})"
    if not change.changed:
        if uninstall:
            print(
                f"MCP server {server.name!r} is not registered for {where} in {change.path}; "
                "nothing to do",
                file=out,
            )
        else:
            print(
                f"MCP server {server.name!r} is already registered for {where} "
                f"in {change.path}; nothing to do",
                file=out,
            )
        return 0
    if dry_run:
        out.write(change.diff)
        print(f"(dry run: {change.path} was not written)", file=out)
        return 0
    try:
        backup = apply_change(store, change)
    except ConfigRefusedError as exc:
        print(f"memoir-tui: refusing to edit {exc.path}: {exc.reason}", file=out)
        return 1
    except MemoirError as exc:  # a read-only store, a lock that timed out, a secret
        print(f"memoir-tui: {exc}", file=out)
        return 1
    except OSError as exc:
        from memoir_tui.cli import fault_sentence  # an errno as a sentence naming the file

        if exc.filename and os.path.abspath(exc.filename) != os.path.abspath(change.path):
            print(f"memoir-tui: {fault_sentence(exc)}", file=out)  # the store's, not the host's
        else:
            print(f"memoir-tui: could not write {change.path}: {exc}", file=out)
        return 1
    verb = "Removed" if uninstall else "Registered"
    preposition = "from" if uninstall else "in"
    kept = f"; original saved as {backup}" if backup else ""
    print(
        f"{verb} MCP server {server.name!r} for {where} {preposition} {change.path}{kept}", file=out
    )
    if uninstall or not live_check:
        return 0
    # Prove it: start the server exactly as the host will, and shake hands.
    from memoir_tui.core import (
        WARN,
        Check,
        Registration,
        check_registration,
        mcp_registrations,
        project_registration_checks,
    )

    # the entry as written, read back the way the doctor reads it (with the host's own
    # start-up limit and the knob that raises it)
    here = project.resolve() if project is not None else None
    written = [
        r
        for r in mcp_registrations(home=home, env=env, project=here)
        if r.host == host.name and r.path.resolve() == change.path.resolve()
    ]
    registration = (
        written[0]
        if written
        else Registration(
            host.name, change.path, server.command, tuple(server.args), dict(server.env)
        )
    )
    check = check_registration(registration, home=home, env=env, cwd=project or home)
    print(check.line(), file=out)
    # what only the user can still give (trust the folder, approve the server): next steps
    for step in project_registration_checks(registration, home=home, env=env, project=here):
        print(Check(step.area, WARN, step.detail).line(), file=out)
    return 1 if check.failed else 0
