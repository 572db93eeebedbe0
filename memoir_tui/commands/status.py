"""``memoir-tui status``: the working set of this project (or of every project, or as of a date)."""

from __future__ import annotations

import argparse
import sys

from memoir_tui.commands import open_store
from memoir_tui.core import MemoirError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="print the working set of this project")
    p.add_argument("--all-projects", action="store_true", help="every project's items")
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="what was believed and valid at an ISO date or date-time (e.g. 2026-06-01)",
    )
    p.set_defaults(run=cmd_status)


def cmd_status(ns: argparse.Namespace) -> int:
    from memoir_tui.core import parse_iso_ms, render_working_set

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
