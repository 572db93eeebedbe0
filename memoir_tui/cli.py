"""The command line: the parser, running one command, and what a fault prints.

Each subcommand lives in a module of ``memoir_tui.commands``.

Never imports textual or mcp. Errors from the core (``MemoirError``) print a
sentence on stderr and exit 1; usage errors exit 2 (argparse's convention).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from memoir_tui import __version__
from memoir_tui.core import MemoirError

Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memoir-tui",
        description="See, prune and carry an AI coding assistant's memory. "
        "With no command, opens the full-screen app.",
    )
    parser.add_argument("--version", action="version", version=f"memoir-tui {__version__}")
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="store directory (default: $MEMOIR_HOME, else ~/.config/memoir)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--demo", action="store_true", help="open the app on a fresh built-in demo store"
    )
    mode.add_argument("--mcp", action="store_true", help="run the headless MCP server on stdio")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    _register_command_modules(sub)
    return parser


# The commands that lived in this file until they moved to ``commands/``: listed
# first, in their old order, so ``memoir-tui --help`` reads as it always has; every
# other module follows by name.
_FIRST = ("validate", "merge", "forget", "config", "status")


def _register_command_modules(sub: argparse._SubParsersAction) -> None:
    """Let each module in ``memoir_tui.commands`` add its subcommands."""
    import importlib
    import pkgutil

    from memoir_tui import commands

    names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    for name in [*_FIRST, *(n for n in names if n not in _FIRST)]:
        module = importlib.import_module(f"memoir_tui.commands.{name}")
        module.register(sub)


class _SafeOut:
    """stdout for a command: every control (bar newline and tab) and bidi character
    made visible before it reaches a terminal (``core.textsafe.for_terminal``)."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        from memoir_tui.core import for_terminal

        self._inner.write(for_terminal(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


def run_command(ns: argparse.Namespace, *, out: TextIO | None = None) -> int:
    run: Command = ns.run
    real = sys.stdout
    if getattr(run, "__module__", "") != _HOOK_MODULE:
        sys.stdout = _SafeOut(real)  # type: ignore[assignment]
    try:
        code = run(ns)
        sys.stdout.flush()
        return code
    except MemoirError as err:
        from memoir_tui.core import shown  # an error may quote a pasted needle

        print(f"memoir-tui: {shown(str(err))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # an OSError too: the reader left, not a fault
        return reader_gone()
    except (OSError, RecursionError) as err:
        print(f"memoir-tui: {fault_sentence(err)}", file=sys.stderr)
        return 1
    finally:
        sys.stdout = real
        _print_notices()


def _print_notices() -> None:
    """Sentences the core left for the user (a journal set aside, never applied)."""
    from memoir_tui.core import take_notices

    for note in take_notices():
        print(f"memoir-tui: {note}", file=sys.stderr)


_FAULTS = {
    "ENOSPC": "the disk is full",
    "EDQUOT": "the disk quota is used up",
    "EIO": "the disk reported an input/output error",
    "EROFS": "the file system is read-only",
    "EACCES": "permission was denied",
    "EPERM": "the operation was not permitted",
    "EISDIR": "a folder is where a file belongs",
    "ENOTDIR": "a file is where a folder belongs",
    "ELOOP": "a symbolic link is where a file belongs",
    "ENAMETOOLONG": "a name is too long",
    "EMFILE": "too many files are open",
}


def fault_sentence(err: BaseException) -> str:
    """A file-system fault (or a file nested too deeply to read) as one sentence for a
    person: what happened, where, and that what was not written stayed as it was."""
    import errno

    if isinstance(err, RecursionError):
        return (
            "a file is nested too deeply to read (thousands of levels of brackets); "
            "nothing was written"
        )
    assert isinstance(err, OSError)
    code = errno.errorcode.get(err.errno or 0, "")
    what = _FAULTS.get(code) or (err.strerror or str(err) or type(err).__name__).rstrip(".")
    where = f" at {err.filename}" if err.filename else ""
    if code in ("EISDIR", "ENOTDIR", "ELOOP") and err.filename:
        return f"{what}{where}; move it away and run this again (the store was not changed)"
    return f"{what}{where}; nothing more was written and the store is as it was before"


# The hook face writes what its host parses: it escapes nothing. (Named, not imported:
# every other command would pay for importing the hook module to compare.)
_HOOK_MODULE = "memoir_tui.commands.hook"


def reader_gone() -> int:
    """The reader of stdout went away (``| head``): stop quietly, like a shell tool.

    stdout is pointed at /dev/null so the interpreter's last flush cannot raise
    again on the way out; 141 is 128 + SIGPIPE, what such a tool exits with."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141
