"""``memoir-tui inject``: write the working set into assistants' always-loaded files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memoir_tui.commands import open_store


def register(sub: argparse._SubParsersAction) -> None:
    # The adapters' data only: inject itself loads when the command runs.
    from memoir_tui.core import instruction_files_shown

    p = sub.add_parser(
        "inject",
        help="write the pinned working-set block into each assistant's instruction file",
        description="Writes the working set between the memoir markers in "
        f"{', '.join(instruction_files_shown('global'))} (and, with --project, a repository's "
        f"{' / '.join(instruction_files_shown('project'))}). Nothing outside the markers "
        "changes. Set [inject] enabled = true in memoir-tui.toml to do this after every change.",
    )
    p.add_argument("--dry-run", action="store_true", help="print the diff and write nothing")
    p.add_argument(
        "--project",
        action="append",
        type=Path,
        default=None,
        metavar="DIR",
        help="also a project's files (repeatable; default: [inject] projects)",
    )
    p.add_argument(
        "--target", action="append", default=None, metavar="NAME", help="only these targets"
    )
    p.add_argument("--remove", action="store_true", help="take the block out instead")
    p.set_defaults(run=cmd_inject)


def cmd_inject(ns: argparse.Namespace) -> int:
    from memoir_tui.core import apply_inject, get_adapter, plan_inject

    store = open_store(ns)
    cfg = store.config.inject
    changes = plan_inject(
        store,
        home=Path.home(),
        projects=ns.project if ns.project is not None else cfg.projects,
        names=ns.target,
        remove=ns.remove,
    )
    if not changes:
        claude = get_adapter("claude-code").roots[0].shown()
        print(f"No targets found (no assistant folders such as {claude} under this home).")
        return 0
    if not ns.dry_run:
        changes = apply_inject(store, changes)
    errors = 0
    for c in changes:
        limit = f" of {c.limit:,}" if c.limit is not None else ""
        status = (
            c.status
            if ns.dry_run or c.status in ("error", "unchanged")
            else {"create": "created", "update": "updated", "delete": "deleted"}[c.status]
        )
        print(f"{c.target:<15} {status:<9} {c.path}  ({c.size:,}{limit} {c.unit})")
        if c.omitted:
            print(f"    {c.omitted} item(s) left out to fit")
        if c.withheld:
            rules = ", ".join(dict.fromkeys(c.withheld))
            print(
                f"    {len(c.withheld)} item(s) withheld: they look like they hold a secret ({rules})"
            )
        if c.error:
            errors += 1
            print(f"memoir-tui: {c.target}: {c.error}", file=sys.stderr)
        if c.diff and ns.dry_run:
            print(c.diff)
    if ns.dry_run:
        print("dry run: nothing written")
    return 1 if errors else 0
