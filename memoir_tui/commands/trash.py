"""``memoir-tui trash``: what consolidate removed or rewrote, and putting it back."""

from __future__ import annotations

import argparse
import json

from memoir_tui.commands import open_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("trash", help="list, restore or empty the consolidate trash")
    tsub = p.add_subparsers(dest="trash_command", metavar="ACTION", required=True)

    q = tsub.add_parser("list", help="list trash records, newest first")
    q.add_argument("--all", action="store_true", help="include restored and emptied records")
    q.add_argument("--json", action="store_true", help="print JSON instead of text")
    q.set_defaults(run=cmd_trash_list)

    q = tsub.add_parser("restore", help="put back every byte one apply changed")
    q.add_argument("id", help="a trash id (or a unique prefix)")
    q.add_argument("--force", action="store_true", help="restore over files changed since")
    q.set_defaults(run=cmd_trash_restore)

    q = tsub.add_parser("empty", help="delete saved copies older than a duration")
    q.add_argument("--older-than", required=True, metavar="D", help="e.g. 30d, 12h, 45m, 2w")
    q.set_defaults(run=cmd_trash_empty)


def _trash(ns: argparse.Namespace):
    return open_store(ns).trash


def cmd_trash_list(ns: argparse.Namespace) -> int:
    from memoir_tui.core import ACTIVE

    records = [r for r in _trash(ns).records() if ns.all or r.status == ACTIVE]
    if ns.json:
        data = [
            {
                "id": r.id,
                "at": r.at,
                "label": r.label,
                "status": r.status,
                "items": [
                    {"change": i.change, "path": str(i.path), "before": i.before, "after": i.after}
                    for i in r.items
                ],
            }
            for r in records
        ]
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    if not records:
        print("The trash is empty.")
        return 0
    for r in records:
        status = "" if r.status == ACTIVE else f"  [{r.status} {r.status_at[:19]}]"
        print(f"{r.id}  {r.at[:19]}  {r.label}{status}")
        for item in r.items:
            print(f"    {item.change:<8} {item.path}")
    return 0


def cmd_trash_restore(ns: argparse.Namespace) -> int:
    record = _trash(ns).restore(ns.id, force=ns.force)
    for item in record.items:
        verb = "deleted" if item.before is None else "restored"
        print(f"{verb}: {item.path}")
    print(f"restored {record.id} ({len(record.items)} file(s))")
    return 0


def cmd_trash_empty(ns: argparse.Namespace) -> int:
    from memoir_tui.core import parse_trash_duration as parse_duration

    seconds = parse_duration(ns.older_than)
    emptied = _trash(ns).empty(seconds)
    for r in emptied:
        print(f"emptied: {r.id}  {r.label}")
    print(f"{len(emptied)} record(s) emptied; they can no longer be restored")
    return 0
