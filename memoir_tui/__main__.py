"""Entry point: argv → the Textual app, the headless MCP server, or a CLI command.

Imports are lazy on purpose: ``--mcp`` and CLI commands must never import
textual, and the app must never import mcp (a test checks ``sys.modules``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    # Nothing is imported before _main: the lean hook paths must stay lean.
    try:
        return _main(argv)
    except BrokenPipeError:  # `memoir-tui … | head`: the reader left; no traceback
        from memoir_tui.cli import reader_gone

        return reader_gone()
    except RecursionError as err:  # a file nested too deeply to read
        return _refused(err)
    except OSError as err:  # a full disk, EIO, a folder for a file
        return _refused(err)
    except Exception as err:
        from memoir_tui.core import MemoirError

        if isinstance(err, MemoirError):  # a refusal before a command ran (app, server)
            print(f"memoir-tui: {err}", file=sys.stderr)
            return 1
        raise


def _refused(err: BaseException) -> int:
    from memoir_tui.cli import fault_sentence

    print(f"memoir-tui: {fault_sentence(err)}", file=sys.stderr)
    return 1


def _main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) in (4, 5, 6) and "session-start" in args:
        # A host's session-start hook, run before every session: the lean path (no
        # parser, no store), unless the pinned block must be refreshed too.
        from memoir_tui.commands.hook import run_lean
        from memoir_tui.core import lean_argv

        found = lean_argv(args)
        if found is not None:
            done = run_lean(*found)
            if done is not None:
                return done
    if len(args) in (4, 5, 6) and "stop" in args:
        # A Stop hook, run after every turn: nothing unread ends it before the store loads.
        from memoir_tui.commands.hook import run_lean_stop
        from memoir_tui.core import lean_argv

        found = lean_argv(args, "stop")
        if found is not None:
            return run_lean_stop(*found)
    if not args or (len(args) == 2 and args[0] == "--store" and not args[1].startswith("-")):
        # The app with no command: what the parser would decide, without building every
        # command's parser first (their host choices import core.adapters: ~20–50 ms).
        from pathlib import Path

        from memoir_tui.app import run_app

        return run_app(Path(args[1]) if args else None)
    from memoir_tui.commands import recall

    if recall.is_recall(args):  # the hot path: no parser for every other command
        return recall.main(args)
    from memoir_tui.cli import build_parser, run_command

    parser = build_parser()
    ns = parser.parse_args(args)
    if ns.mcp:
        from memoir_tui.mcp.server import run_server

        return run_server(ns.store)
    if ns.command is not None:
        return run_command(ns)
    from memoir_tui.app import run_app

    return run_app(ns.store, demo=ns.demo)


if __name__ == "__main__":
    sys.exit(main())
