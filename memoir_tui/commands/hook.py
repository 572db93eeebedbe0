"""``memoir-tui hook``, ``install-hooks``, ``uninstall-hooks``, ``hooks status``.

``hook EVENT --host HOST`` is what a host runs: it reads the event from stdin
(``core.hook_run``), prints only what the host reads on stdout, and exits 0
whatever happens, with any diagnostics on stderr, so a broken store or a bug
here never breaks the host's session. The installer verbs are the face of
``core.hook_install``; they end with the doctor's live check of what they
installed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from memoir_tui.core import HookCommand, Memoir


def register(sub: argparse._SubParsersAction) -> None:
    # The adapters' data only: the hook machinery loads when a command runs.
    from memoir_tui.core import HOOK_VERBS, hook_hosts

    hosts = [h.name for h in hook_hosts()]
    p = sub.add_parser(
        "hook",
        help="run by a host's hook: brief the agent, or queue what it decided for review",
        description="Reads the host's JSON event on stdin (with a deadline and a size cap). "
        "session-start prints the brief; stop, pre-compact and session-end queue new "
        "candidate decisions from the session's transcript for review (never pinned). "
        "Always exits 0; diagnostics go to stderr.",
    )
    p.add_argument("event", choices=HOOK_VERBS)
    p.add_argument(
        "--host", default="claude", help=f"the host running it ({', '.join(hosts)}, or any alias)"
    )
    p.set_defaults(run=cmd_hook)

    for name, install in (("install-hooks", True), ("uninstall-hooks", False)):
        verb = "add memoir-tui's hooks to" if install else "remove memoir-tui's hooks from"
        p = sub.add_parser(name, help=f"{verb} a host's settings ({', '.join(hosts)})")
        p.add_argument("host", help=f"{', '.join(hosts)} (any name of the tool works)")
        p.add_argument("--project", type=Path, help="the project's settings file in this directory")
        p.add_argument("--dry-run", action="store_true", help="print the diff and write nothing")
        p.set_defaults(run=cmd_install_hooks, install=install)

    p = sub.add_parser("hooks", help="which hooks are installed, and whose")
    p.add_argument("action", choices=["status"])
    p.add_argument("--project", type=Path, help="also the project's settings in this directory")
    p.set_defaults(run=cmd_hooks_status)


def cmd_hook(ns: argparse.Namespace) -> int:
    try:
        from memoir_tui.core import read_event, run_hook

        event, note = read_event(sys.stdin.fileno())
        if note:
            print(f"memoir-tui hook: {note}", file=sys.stderr)
            if ns.event != "session-start":
                return 0  # no transcript named: nothing to capture
        result = run_hook(ns.event, ns.host, event, store_root=_store_root(ns))
        for line in result.notes:
            print(f"memoir-tui hook: {line}", file=sys.stderr)
        if result.stdout:
            sys.stdout.write(result.stdout)
            sys.stdout.flush()
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # never break the host's session, whatever went wrong
        print(f"memoir-tui hook: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0


def _store_root(ns: argparse.Namespace) -> Path | None:
    if ns.store:
        return ns.store
    env = os.environ.get("MEMOIR_HOME")
    return Path(env) if env else None


def hook_command(ns: argparse.Namespace) -> HookCommand:
    """How a host should run us: the console script by absolute path if there is
    one (hosts start hooks with their own PATH), else this Python; the store when
    one was named."""
    from memoir_tui.core import HookCommand

    script = shutil.which("memoir-tui")
    if getattr(ns, "project", None) is not None:
        # A project's settings are meant to be committed: memoir-tui from PATH, and
        # each user's own store (no path of this machine's).
        return HookCommand("memoir-tui", None)
    if script:
        program = shlex.quote(str(Path(script).resolve()))
    else:
        program = f"{shlex.quote(sys.executable)} -m memoir_tui"
    root = _store_root(ns)
    return HookCommand(program, root.expanduser().resolve() if root else None)


def cmd_install_hooks(ns: argparse.Namespace) -> int:
    from memoir_tui.commands import open_store

    return run_install_hooks(
        ns.host,
        install=ns.install,
        project=ns.project,
        dry_run=ns.dry_run,
        command=hook_command(ns),
        store_factory=lambda: open_store(ns),
        home=Path.home(),
        env=os.environ,
        out=sys.stdout,
    )


def run_install_hooks(
    host_name: str,
    *,
    install: bool,
    project: Path | None,
    dry_run: bool,
    command: HookCommand,
    store_factory: Callable[[], Memoir],  # opened only when something is written
    home: Path,
    env: Mapping[str, str],
    out: TextIO,
    live_check: bool = True,
) -> int:
    """Plan, then print the diff or apply it; exit 0 done, 1 refused or check failed,
    2 usage."""
    from memoir_tui.core import (
        ConfigRefusedError,
        MemoirError,
        apply_change,
        hook_host,
        plan,
        read_state,
    )

    host = hook_host(host_name)
    if project is not None and not project.is_dir():
        print(f"memoir-tui: {project} is not a directory", file=out)
        return 2
    try:
        change = plan(
            host.name, install=install, home=home, env=env, project=project, command=command
        )
    except ConfigRefusedError as exc:
        print(f"memoir-tui: refusing to edit {exc.path}: {exc.reason}", file=out)
        print("The file was left untouched.", file=out)
        return 1
    state = read_state(host.name, change.path)
    for event, cmd in state.foreign_memoir:
        print(
            f"note: the JavaScript memoir's hook is in {change.path} ({event}: {cmd}). "
            "It treats any hook command containing 'memoir' as its own, so its "
            "`hooks install` would replace ours and its uninstall would remove them.",
            file=out,
        )
    if state.foreign_memoir and install:
        print(
            "Two writers of the pinned block: keep one. Either leave [inject] enabled off in "
            "memoir-tui (its hook keeps the block) or run `memoir hooks uninstall` and let "
            "memoir-tui's session-start hook refresh it.",
            file=out,
        )
    where = f"{host.label} ({change.scope})"
    if not change.changed:
        state_word = "installed" if install else "not installed"
        print(f"memoir-tui's hooks are already {state_word} for {where} in {change.path}", file=out)
    elif dry_run:
        out.write(change.diff)
        print(f"(dry run: {change.path} was not written)", file=out)
        return 0
    else:
        try:
            backup = apply_change(store_factory(), change)
        except ConfigRefusedError as exc:
            print(f"memoir-tui: refusing to edit {exc.path}: {exc.reason}", file=out)
            return 1
        except (MemoirError, OSError) as exc:
            from memoir_tui.cli import fault_sentence  # an errno as a sentence naming the file

            said = exc if isinstance(exc, MemoirError) else fault_sentence(exc)
            print(f"memoir-tui: {said}", file=out)
            return 1
        kept = f"; original saved as {backup}" if backup else ""
        verb = "Installed" if install else "Removed"
        events = ", ".join(e.host_event for e in host.events)
        print(f"{verb} memoir-tui's hooks ({events}) for {where} in {change.path}{kept}", file=out)
    if install and host.enable_note:
        print(f"note: {host.enable_note}", file=out)
    if install and project is not None:
        print(
            "note: this project file is meant to be committed: its hooks run memoir-tui "
            "from PATH with each user's own store, so each user needs memoir-tui on PATH.",
            file=out,
        )
    if not install or dry_run or not live_check:
        return 0
    from memoir_tui.core import WARN, check_hooks_file

    failed = False
    # what only the user can still give (approve the new hook, trust the folder) is a
    # next step here, not a failure; the doctor fails it until it is given
    for check in check_hooks_file(host.name, change.path, home=home, env=env, pending=WARN):
        print(check.line(), file=out)
        failed = failed or check.failed
    return 1 if failed else 0


def cmd_hooks_status(ns: argparse.Namespace) -> int:
    from memoir_tui.core import hook_hosts, read_state, settings_paths

    home, env = Path.home(), os.environ
    for host in hook_hosts():
        for path in settings_paths(host, home=home, env=env, project=ns.project):
            state = read_state(host.name, path)
            print(f"{host.label}: {path}")
            if state.error:
                print(f"  cannot be read: {state.error}")
                continue
            if not state.exists:
                print("  (no file) memoir-tui's hooks are not installed")
                continue
            for hook in state.ours:
                print(f"  {hook.host_event}: {hook.command}")
            if not state.ours:
                print("  memoir-tui's hooks are not installed")
            elif state.missing:
                print(f"  missing: {', '.join(state.missing)} (run install-hooks {host.name})")
            for event, cmd in state.foreign_memoir:
                print(f"  JavaScript memoir's hook, {event}: {cmd}")
            for setting in state.disabled:
                print(f"  hooks are turned off here: {setting}")
    return 0


def run_lean(store: Path | None, host: str) -> int | None:
    """The whole face for the lean case; None when the full path must run instead."""
    from memoir_tui.core import FULL_PATH_ENV, brief_output, event_cwd, inject_enabled, store_root

    env = os.environ
    if env.get(FULL_PATH_ENV):
        return None  # bench/bench_hook.py measures both paths in one run
    root = store_root(store, env)
    if inject_enabled(root) is not False and not env.get("MEMOIR_TUI_DOCTOR"):
        return None  # the pinned block is refreshed through the store's door
    try:
        from memoir_tui.core import read_event

        event, note = read_event(sys.stdin.fileno())
        if note:
            print(f"memoir-tui hook: {note}", file=sys.stderr)
        out, notes = brief_output(root, event_cwd(event, env))
        for line in notes:
            print(f"memoir-tui hook: {line}", file=sys.stderr)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never break the host's session, whatever went wrong
        print(f"memoir-tui hook: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0


def run_lean_stop(store: Path | None, host: str) -> int:
    """``hook stop``: a burst of events whose transcript holds nothing unread ends
    before the store is imported; anything else runs the full hook with the event."""
    from memoir_tui.core import nothing_new, store_root

    try:
        from memoir_tui.core import read_event

        event, note = read_event(sys.stdin.fileno())
        if note:
            print(f"memoir-tui hook: {note}", file=sys.stderr)
            return 0  # no transcript named: nothing to capture
        if nothing_new(store_root(store, os.environ), event):
            return 0
        from memoir_tui.core import run_hook

        result = run_hook("stop", host, event, store_root=store or _env_store())
        for line in result.notes:
            print(f"memoir-tui hook: {line}", file=sys.stderr)
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # never break the host's session, whatever went wrong
        print(f"memoir-tui hook: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0


def _env_store() -> Path | None:
    env = os.environ.get("MEMOIR_HOME")
    return Path(env) if env else None
