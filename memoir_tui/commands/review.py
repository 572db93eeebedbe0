"""``memoir-tui review``: list, pin or reject captured candidates."""

from __future__ import annotations

import argparse
import sys

from memoir_tui.commands import open_store


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "review",
        help="list captured candidates, pin one as a decision, or reject one",
        description="The review queue. Candidates marked [assistant] were said by the "
        "assistant, not by you; [near-hidden] ones resemble a decision you forgot.",
    )
    actions = p.add_subparsers(dest="review_action", metavar="ACTION")
    p.set_defaults(run=cmd_review_list, all=False, all_projects=False)

    ls = actions.add_parser("list", help="show waiting candidates (the default)")
    ls.add_argument("--all", action="store_true", help="also show pinned and rejected items")
    ls.add_argument(
        "--all-projects",
        action="store_true",
        help="every project's candidates, not only this project's and global ones",
    )
    ls.set_defaults(run=cmd_review_list)

    pin = actions.add_parser("pin", help="pin a candidate as a decision")
    pin.add_argument("id", help="candidate id (or a unique prefix of 4+ characters)")
    pin.add_argument("--text", help="pin with this wording instead")
    pin.add_argument("--why", help="why this was decided")
    pin.add_argument("--rejected", help="what was considered and rejected")
    pin.add_argument(
        "--force", action="store_true", help="pin even though it resembles a hidden decision"
    )
    pin.set_defaults(run=cmd_review_pin)

    rej = actions.add_parser("reject", help="reject a candidate; it is never proposed again")
    rej.add_argument("id", help="candidate id (or a unique prefix of 4+ characters)")
    rej.set_defaults(run=cmd_review_reject)


def format_item(item, labels: dict[str, str] | None = None) -> str:
    """One listing line pair: id, badges, text; then provenance (the project by its short
    label, ``labels``, as every face names it)."""
    line = f"{item.short_id}  {' '.join(item.badges)} {item.text}"
    where = (labels or {}).get(item.project) or item.project_label or item.project or "global"
    prov = (
        f"    {item.kind} via {item.extractor or '?'} · session {item.session_id[:8] or '?'}"
        f" · {item.timestamp or '?'} · {where}"
    )
    if item.near_hidden is not None:
        nh = item.near_hidden
        shown = "a purged decision" if nh.purged else repr(nh.text)
        prov += f"\n    close to hidden {shown} (score {nh.score:.0f})"
    return f"{line}\n{prov}"


def cmd_review_list(ns: argparse.Namespace) -> int:
    from memoir_tui.core import STATES, in_review_scope

    store = open_store(ns)
    states = STATES if getattr(ns, "all", False) else ("candidate",)
    every = store.review.list_items(states=states)
    # The scope every face uses: this project's candidates and global ones.
    project = None if ns.all_projects or not store.scoped else store.project
    items = [i for i in every if in_review_scope(i.project, project)]
    more = len(every) - len(items)
    elsewhere = f"{more} more in other projects (--all-projects shows them)" if more else ""
    if not items:
        print("no candidates waiting for review here" + (f"; {elsewhere}" if more else ""))
        return 0
    from memoir_tui.core import project_names, queue_labels

    labels = queue_labels(project_names(store.load().state), items)
    for item in items:
        print(format_item(item, labels))
    waiting = sum(1 for i in items if i.state == "candidate")
    assistant = sum(1 for i in items if i.state == "candidate" and i.assistant_sourced)
    print(
        f"{waiting} candidate(s), {assistant} from the assistant"
        + (f"; {elsewhere}" if more else ""),
        file=sys.stderr,
    )
    return 0


def cmd_review_pin(ns: argparse.Namespace) -> int:
    from memoir_tui.core import NearHiddenError

    store = open_store(ns)
    item = store.review.get_item(ns.id)
    try:
        outcome = store.review.pin(
            item.id, text=ns.text, why=ns.why, rejected=ns.rejected, force=ns.force
        )
    except NearHiddenError as err:
        print(f"memoir-tui: {err}", file=sys.stderr)
        print("nothing pinned; pass --force to pin anyway", file=sys.stderr)
        return 1
    if item.assistant_sourced:
        print("note: this candidate came from the assistant, not from you")
    print(outcome.message)
    return 0


def cmd_review_reject(ns: argparse.Namespace) -> int:
    outcome = open_store(ns).review.reject(ns.id)
    print(outcome.message)
    return 0
