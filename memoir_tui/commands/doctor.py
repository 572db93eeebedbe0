"""``memoir-tui doctor``: check the store, the index, sync, and run every registration."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="check the store and prove each MCP registration and hook by running it",
        description="Checks the store (lock, version, quarantined files, read-only), the "
        "recall index and the sync config; starts every MCP server of ours a host "
        "registered (initialize, tools/list) and pipes a synthetic event through every "
        "hook of ours. Writes nothing. Exits 1 when a check fails.",
    )
    p.add_argument(
        "--project",
        type=Path,
        help="also check this project's host files (default: the work tree you are in)",
    )
    p.set_defaults(run=cmd_doctor)


def cmd_doctor(ns: argparse.Namespace) -> int:
    from memoir_tui.core import open_memoir, run_doctor, summary

    # Opened as every face opens it, but finishing nothing: an interrupted purge or a
    # damaged session is what the doctor reports, and the doctor writes nothing.
    store = open_memoir(ns.store, actor="doctor", finish=False)
    project = ns.project.resolve() if ns.project else _here()
    checks = run_doctor(store, home=Path.home(), env=os.environ, project=project)
    for check in checks:
        print(check.line())
    passed, warned, failed = summary(checks)
    print(f"{passed} passed, {warned} warning(s), {failed} failed")
    return 1 if failed else 0


def _here() -> Path | None:
    """The git work tree the doctor runs in (its project-level host files count too)."""
    from memoir_tui.core import find_git_dir

    found = find_git_dir(Path.cwd().resolve(), stop_at=Path.home().parent)
    return found[0] if found is not None and found[0] != Path.home() else None
