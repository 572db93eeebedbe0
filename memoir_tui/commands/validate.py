"""``memoir-tui validate``: entry files and session files checked against the format."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memoir_tui.commands import open_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check entry files and session files against the format")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: the store)")
    p.set_defaults(run=cmd_validate)


def cmd_validate(ns: argparse.Namespace) -> int:
    from memoir_tui.core import ERROR, validate_paths

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
