"""The command line: one small function per subcommand over the core.

Never imports textual or mcp. Errors from the core (``MemoirError``) print a
sentence on stderr and exit 1; usage errors exit 2 (argparse's convention).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memoir_tui import __version__
from memoir_tui.commands import open_store
from memoir_tui.core.errors import MemoirError

if TYPE_CHECKING:
    from memoir_tui.core.memoir import Memoir

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

    p = sub.add_parser("validate", help="check entry files and session files against the format")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: the store)")
    p.set_defaults(run=cmd_validate)

    p = sub.add_parser("merge", help="merge two session files (FORMAT §4)")
    p.add_argument("local", type=Path)
    p.add_argument("remote", type=Path)
    p.add_argument("-o", "--output", type=Path, help="write the result here instead of stdout")
    p.add_argument(
        "--caps",
        choices=("ours", "memoir"),
        default="ours",
        help="how many items stay live (the rest are archived or parked, never dropped): "
        "this tool's caps (default) or the JavaScript memoir's 3/8/5/10",
    )
    p.set_defaults(run=cmd_merge)

    p = sub.add_parser(
        "forget",
        help="hide (or purge) exactly one decision; with --everywhere, a text in every place",
    )
    p.add_argument(
        "substring",
        help="the decision's exact text or identity hash (searched in every project), "
        "or text matching exactly one visible decision of this project; with --everywhere, "
        "any text (case-insensitive, also inside longer text)",
    )
    p.add_argument("--purge", action="store_true", help="also remove its text, why and rejected")
    p.add_argument(
        "--everywhere",
        action="store_true",
        help="every place that holds the text: session, review queue, entry files, host "
        "tools' memory, rules and instruction files, the recall index, the sync copy",
    )
    p.add_argument("--dry-run", action="store_true", help="show what would change; change nothing")
    p.add_argument("--all-projects", action="store_true", help="match substrings in every project")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.set_defaults(run=cmd_forget)

    p = sub.add_parser("config", help="show where the config lives, or the effective config")
    p.add_argument("action", choices=["path", "show"])
    p.set_defaults(run=cmd_config)

    p = sub.add_parser("status", help="print the working set of this project")
    p.add_argument("--all-projects", action="store_true", help="every project's items")
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="what was believed and valid at an ISO date or date-time (e.g. 2026-06-01)",
    )
    p.set_defaults(run=cmd_status)

    _register_command_modules(sub)
    return parser


def _register_command_modules(sub: argparse._SubParsersAction) -> None:
    """Let each module in ``memoir_tui.commands`` add its subcommands."""
    import importlib
    import pkgutil

    from memoir_tui import commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"memoir_tui.commands.{info.name}")
        module.register(sub)


class _SafeOut:
    """stdout for a command: every control (bar newline and tab) and bidi character
    made visible before it reaches a terminal (``core.textsafe.for_terminal``)."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        from memoir_tui.core.textsafe import for_terminal

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
        from memoir_tui.core.needle import shown  # an error may quote a pasted needle

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
    from memoir_tui.core.transaction import take_notices

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


def cmd_validate(ns: argparse.Namespace) -> int:
    from memoir_tui.core.validate import ERROR, validate_paths

    paths = ns.paths
    if not paths:
        store = open_store(ns)
        paths = [p for p in (store.session_path, store.memory_dir) if p.exists()]
        if not paths:
            print(f"nothing to validate in {store.root}")
            return 0
    findings = validate_paths(paths)
    for finding in findings:
        print(finding.line())
    errors = sum(1 for f in findings if f.severity == ERROR)
    warnings = len(findings) - errors
    print(f"{errors} error(s), {warnings} warning(s)", file=sys.stderr)
    return 1 if errors else 0


def _read_session_arg(path: Path) -> dict:
    try:
        from memoir_tui.core.safeio import read_json_safely

        data = read_json_safely(path)  # a FIFO or a folder: a sentence, never a hang
    except FileNotFoundError:
        raise MemoirError(f"{path}: no such file") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise MemoirError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise MemoirError(f"{path}: the top level must be an object")
    return data


def _same_file(a: Path, b: Path | None) -> bool:
    if b is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def cmd_merge(ns: argparse.Namespace) -> int:
    from memoir_tui.core.merge import contributes_to_merge, merge_sessions
    from memoir_tui.core.session import encode_session
    from memoir_tui.core.withhold import withhold_secrets

    local, remote = _read_session_arg(ns.local), _read_session_arg(ns.remote)
    for path, data in ((ns.local, local), (ns.remote, remote)):
        if not contributes_to_merge(data):
            print(
                f"memoir-tui: {path} is from a newer format version; it contributes nothing",
                file=sys.stderr,
            )
    # What is copied out (every input, but the file written onto) leaves its secrets
    # behind; the note names the list and the rule, never the text.
    if not _same_file(ns.local, ns.output):
        local, held = withhold_secrets(local)
        for note in held:
            print(f"memoir-tui: {ns.local}: {note}", file=sys.stderr)
    if not _same_file(ns.remote, ns.output):
        remote, held = withhold_secrets(remote)
        for note in held:
            print(f"memoir-tui: {ns.remote}: {note}", file=sys.stderr)
    if ns.output:
        from memoir_tui.core.memoir import write_merged_session

        print(write_merged_session(ns.output, local, remote).message, file=sys.stderr)
    else:
        from memoir_tui.core.merge import DEFAULT_CAPS, JS_CAPS

        caps = JS_CAPS if ns.caps == "memoir" else DEFAULT_CAPS
        sys.stdout.write(encode_session(merge_sessions(local, remote, caps=caps)).decode("utf-8"))
    return 0


def cmd_forget(ns: argparse.Namespace) -> int:
    from memoir_tui.core.errors import AmbiguousMatchError
    from memoir_tui.core.needle import shown  # what is printed: a token shows as [REDACTED:…]

    store = open_store(ns)
    if ns.everywhere:
        return _forget_everywhere(store, ns)
    try:
        decision = store.find_decision(
            ns.substring,
            include_hidden=ns.purge,
            all_projects=ns.all_projects,
            hidden_substrings=ns.purge,  # a person purging what they hid earlier
        )
    except AmbiguousMatchError as err:
        print(f"memoir-tui: {err}:", file=sys.stderr)
        for text in err.candidates:
            print(f"  - {shown(text)}", file=sys.stderr)
        return 1
    if decision.purged:
        print("that decision is already purged: only its hash remains")
        return 0
    act = "purge" if ns.purge else "hide"
    print(f"decision: {shown(decision.text)}" + ("  (hidden already)" if decision.hidden else ""))
    if decision.why:
        print(f"why:      {shown(decision.why)}")
    if decision.rejected:
        print(f"rejected: {shown(decision.rejected)}")
    print(f"date:     {decision.date}  machine: {decision.machine_label}")
    print(f"project:  {decision.project_label or 'global (every project)'}")
    if ns.purge:
        print("Purging removes its text, why and rejected from the file; only a hash stays.")
    print("This cannot be undone, and it spreads to every machine the store syncs with.")
    if ns.dry_run:
        print("dry run: nothing was changed")
        return 0
    if not ns.yes:
        if not sys.stdin.isatty():
            print("memoir-tui: refusing without confirmation; pass --yes", file=sys.stderr)
            return 1
        answer = input(f"{act} this decision? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            print("nothing changed")
            return 1
    outcome = store.purge_decision(decision.key) if ns.purge else store.hide_decision(decision.key)
    print(shown(outcome.message))
    return 0


def _forget_everywhere(store: Memoir, ns: argparse.Namespace) -> int:
    from memoir_tui.core.needle import shown

    forget = store.forget
    if ns.dry_run:
        sys.stdout.write(forget.apply(ns.substring, purge=ns.purge, dry_run=True).render())
        return 0
    scan = forget.scan(ns.substring)
    if not scan.places:
        sys.stdout.write(forget.apply(ns.substring, purge=ns.purge, dry_run=True).render())
        return 0
    if not ns.yes:
        print(f"{shown(scan.needle)!r} is in {len(scan.places)} place(s):")
        for place in scan.places:
            print(f"  {place.line()}")
        act = "purged" if ns.purge else "hidden"
        print(f"Session items will be {act}, lines holding it removed from every file above.")
        print("This is bulk and cannot be undone from the app's undo.")
        if not sys.stdin.isatty():
            print("memoir-tui: refusing without confirmation; pass --yes", file=sys.stderr)
            return 1
        answer = input("type FORGET to go on: ").strip()
        if answer != "FORGET":
            print("nothing changed")
            return 1
    sys.stdout.write(forget.apply(ns.substring, purge=ns.purge).render())
    return 0


def cmd_config(ns: argparse.Namespace) -> int:
    from memoir_tui.core.config import config_path, load_config, render_config
    from memoir_tui.core.store import default_store_dir

    root = ns.store or default_store_dir()
    if ns.action == "path":
        print(config_path(root))
        return 0
    config = load_config(root)
    for warning in config.warnings:
        print(f"memoir-tui: {warning}", file=sys.stderr)
    sys.stdout.write(render_config(config))
    return 0


def cmd_status(ns: argparse.Namespace) -> int:
    from memoir_tui.core.identity import parse_iso_ms
    from memoir_tui.core.render import render_working_set

    at_ms = None
    if ns.as_of:
        at_ms = parse_iso_ms(ns.as_of)
        if at_ms is None:
            raise MemoirError(f"--as-of needs an ISO date or date-time, got {ns.as_of!r}")
    store = open_store(ns)
    ws = store.working_set(all_projects=ns.all_projects, at_ms=at_ms)
    sys.stdout.write(
        render_working_set(ws, store_path=store.root, caps_note=store.config.caps_note)
    )
    return 0
