"""``memoir-tui forget``: hide or purge one decision; with ``--everywhere``, a text in every place."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from memoir_tui.commands import open_store

if TYPE_CHECKING:
    from memoir_tui.core import Memoir


def register(sub: argparse._SubParsersAction) -> None:
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


def cmd_forget(ns: argparse.Namespace) -> int:
    from memoir_tui.core import (
        AmbiguousMatchError,
        shown,  # what is printed: a token shows as [REDACTED:…]
    )

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
    from memoir_tui.core import shown

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
