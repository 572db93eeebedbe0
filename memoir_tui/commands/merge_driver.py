"""``memoir-tui merge-driver %O %A %B [%P]``: git merge driver for session.json and review.json.

Registered by ``memoir-tui sync init --driver-only``. Exit 0: merged into %A.
Exit 1: left as a conflict (unreadable JSON, or a side from a newer format).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge-driver",
        help="git merge driver for session.json and review.json (see sync init --driver-only)",
    )
    p.add_argument("ancestor", type=Path, help="%%O: the common ancestor")
    p.add_argument("current", type=Path, help="%%A: ours; the result is written here")
    p.add_argument("other", type=Path, help="%%B: theirs")
    p.add_argument("path", nargs="?", help="%%P: the file's path in the repository")
    p.set_defaults(run=cmd_merge_driver)


def cmd_merge_driver(ns: argparse.Namespace) -> int:
    from memoir_tui.core import merge_files

    outcome = merge_files(ns.ancestor, ns.current, ns.other, ns.path)
    print(outcome.message, file=sys.stderr)
    return outcome.code
