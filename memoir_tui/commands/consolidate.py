"""``memoir-tui consolidate``: the clean-up report, and applying or keeping proposals."""

from __future__ import annotations

import argparse
import json
import sys

from memoir_tui.commands import open_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "consolidate",
        help="propose clean-ups (duplicates, stale items, dead links, index problems)",
        description="With no options, print the proposals grouped as checklists. "
        "--apply carries them out (everything removed or rewritten goes to the trash, "
        "so `memoir-tui trash restore ID` undoes it); --keep dismisses them for good.",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--apply", nargs="+", metavar="ID", help="apply these proposals")
    p.add_argument("--keep", nargs="+", metavar="ID", help="dismiss these proposals for good")
    p.add_argument(
        "--action",
        choices=["merge", "trash", "fix", "unlink", "complete"],
        help="with --apply: the action to take (default: each proposal's first action)",
    )
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument("--verbose", "-v", action="store_true", help="show all of the evidence")
    p.set_defaults(run=cmd_consolidate)


def _indent(text: str, prefix: str, limit: int | None) -> list[str]:
    lines = text.splitlines()
    shown = lines if limit is None else lines[:limit]
    out = [prefix + line for line in shown]
    if len(shown) < len(lines):
        out.append(f"{prefix}… {len(lines) - len(shown)} more line(s); --verbose shows them")
    return out


def _print_report(report, verbose: bool) -> None:
    if not report.proposals:
        print("Nothing to consolidate.")
    for group, proposals in report.grouped():
        print(f"{group} ({len(proposals)})")
        for p in proposals:
            print(f"  [ ] {p.id}  {p.title}")
            print(f"      why: {p.why}")
            actions = ", ".join(f"{a} (default)" if i == 0 else a for i, a in enumerate(p.actions))
            print(f"      actions: {actions}")
            print("\n".join(_indent(p.evidence, "      | ", None if verbose else 12)))
        print()
    for line in report.skipped:
        print(f"skipped: {line}", file=sys.stderr)
    if report.dismissed:
        print(f"({report.dismissed} kept proposal(s) not shown)")
    if report.proposals:
        print("Apply: memoir-tui consolidate --apply ID…   Keep: memoir-tui consolidate --keep ID…")


def _confirm(question: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        print("memoir-tui: refusing without confirmation; pass --yes", file=sys.stderr)
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def cmd_consolidate(ns: argparse.Namespace) -> int:
    from pathlib import Path

    store = open_store(ns)
    home = Path.home()
    report = store.consolidate.scan(home=home)

    if ns.keep:
        chosen = [report.get(i) for i in ns.keep]
        added = store.consolidate.dismiss(chosen)
        if ns.json:
            print(json.dumps({"kept": [p.id for p in chosen]}, indent=2))
        else:
            for p in chosen:
                print(f"kept: {p.id}  {p.title}")
            print(f"{added} proposal(s) will not be proposed again")
        if not ns.apply:
            return 0

    if ns.apply:
        chosen = [report.get(i) for i in ns.apply]
        pairs = [(p, ns.action or p.default_action) for p in chosen]
        if not ns.json or not ns.yes:
            for p, action in pairs:
                print(f"{action}: {p.id}  {p.title}")
        if not _confirm(f"apply {len(pairs)} proposal(s)?", ns.yes):
            print("nothing changed")
            return 1
        result = store.consolidate.apply(pairs)
        if ns.json:
            print(
                json.dumps(
                    {
                        "trash_id": result.trash_id,
                        "applied": [
                            {"id": a.proposal_id, "action": a.action, "message": a.message}
                            for a in result.applied
                        ],
                        "failed": [{"id": i, "error": e} for i, e in result.failed],
                    },
                    indent=2,
                )
            )
        else:
            for a in result.applied:
                print(f"done: {a.proposal_id}  {a.message}")
            for pid, error in result.failed:
                print(f"memoir-tui: {pid}: {error}", file=sys.stderr)
            if result.trash_id:
                print(f"Undo with: memoir-tui trash restore {result.trash_id}")
        return 1 if result.failed else 0

    if ns.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        _print_report(report, ns.verbose)
    return 0
