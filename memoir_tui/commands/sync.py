"""``memoir-tui sync``: multi-machine sync over git (pull then push), and its subcommands.

memoir-tui sync                     pull then push
memoir-tui sync init REMOTE [--encrypt] [--branch B] [--key-file F]
memoir-tui sync init --driver-only  register the git merge driver for a store kept in git
memoir-tui sync push [--allow-secrets]
memoir-tui sync pull
memoir-tui sync status [--json] [--fetch]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from memoir_tui.commands import open_store

if TYPE_CHECKING:
    from memoir_tui.core import SyncMode


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sync",
        help="sync the store with other machines through a git remote (pull, then push)",
        description="Sync the store through a git remote. With no action: pull, then push.",
    )
    _run_options(p, pushing=True)
    p.set_defaults(run=cmd_sync, sync_action="sync")
    actions = p.add_subparsers(dest="sync_action", metavar="ACTION")

    init = actions.add_parser("init", help="set up sync with a git remote (a URL or a path)")
    init.add_argument("remote", nargs="?", help="git URL or path of a (bare) repository")
    init.add_argument(
        "--encrypt", action="store_true", help="keep only ciphertext on the remote (AES-256-GCM)"
    )
    init.add_argument("--branch", default="main", help="remote branch to use (default: main)")
    init.add_argument(
        "--key-file", help="read the passphrase from this file (permissions 0600 or stricter)"
    )
    init.add_argument(
        "--scrypt-n",
        type=lambda v: int(v, 0),
        default=2**15,
        help="scrypt cost for a new encrypted remote (power of two, default 2**15)",
    )
    init.add_argument(
        "--driver-only",
        action="store_true",
        help="only register the git merge driver for session.json and review.json",
    )
    init.add_argument(
        "--repo",
        type=Path,
        help="with --driver-only: the directory to register in (default: the store)",
    )
    init.set_defaults(run=cmd_init)

    for name, pushing, helptext in (
        ("push", True, "merge the remote, then push the merged store"),
        ("pull", False, "fetch the remote and merge it into the store"),
    ):
        q = actions.add_parser(name, help=helptext)
        _run_options(q, pushing=pushing)
        q.set_defaults(run=cmd_sync, sync_action=name)

    st = actions.add_parser("status", help="show machines, remote, ahead/behind and the last sync")
    st.add_argument("--json", action="store_true", help="print JSON")
    st.add_argument("--fetch", action="store_true", help="fetch first, so 'behind' is current")
    st.set_defaults(run=cmd_status)


def _run_options(p: argparse.ArgumentParser, *, pushing: bool) -> None:
    if pushing:
        p.add_argument(
            "--allow-secrets",
            action="store_true",
            help="push even if outgoing files look like they hold secrets",
        )
    p.add_argument("--key-file", help="read the passphrase from this file (0600)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("-v", "--verbose", action="store_true", help="print progress on stderr")


def _store(ns: argparse.Namespace):
    return open_store(ns, actor="sync")


def _progress(ns: argparse.Namespace):
    if not getattr(ns, "verbose", False):
        return None

    def show(message: str, fraction: float) -> None:
        print(f"[{fraction * 100:3.0f}%] {message}", file=sys.stderr)

    return show


def cmd_init(ns: argparse.Namespace) -> int:
    from memoir_tui.core import MemoirError

    store = _store(ns)
    if ns.driver_only:
        from memoir_tui.core import register_driver

        reg = register_driver(ns.repo or store.root)
        print(f"merge driver registered in {reg.repo_root}")
        print(
            f"  {reg.attributes}: "
            + ("added " + ", ".join(reg.added_lines) if reg.added_lines else "already set")
        )
        print(f"  merge.memoir.driver = {reg.command}")
        return 0
    if not ns.remote:
        raise MemoirError("sync init needs a REMOTE (or --driver-only)")
    from memoir_tui.core import init_sync

    result = init_sync(
        store,
        ns.remote,
        encrypt=ns.encrypt,
        branch=ns.branch,
        key_file=ns.key_file,
        scrypt_n=ns.scrypt_n,
        interactive=True,
    )
    print(result.message)
    print(f"  config:    {result.config_path}")
    print(f"  sync copy: {result.work_dir}")
    if ns.encrypt:
        print(
            "  the passphrase is never stored: give it at each sync (prompt), in "
            "MEMOIR_PASSPHRASE, or in a 0600 key file (--key-file)"
        )
        if ns.scrypt_n < 2**15:
            print("  warning: scrypt cost below 2**15 is for tests only", file=sys.stderr)
    print("next: memoir-tui sync")
    return 0


def cmd_sync(ns: argparse.Namespace) -> int:
    from memoir_tui.core import SecretsFoundError, run_sync

    store = _store(ns)
    action = cast("SyncMode", ns.sync_action or "sync")  # the parser offers only these
    kwargs = {"interactive": True, "key_file": ns.key_file, "progress": _progress(ns)}
    if action != "pull":
        kwargs["allow_secrets"] = ns.allow_secrets
    try:
        result = run_sync(store, action, **kwargs)
    except SecretsFoundError as err:
        print(f"memoir-tui: push blocked: {len(err.findings)} possible secret(s):", file=sys.stderr)
        for finding in err.findings:
            print(f"  {finding.line()}", file=sys.stderr)
        print("Remove them, or pass --allow-secrets to push anyway.", file=sys.stderr)
        return 1
    if ns.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print(result.message)
    for note in result.merge.notes:
        print(f"  note: {note}")
    if result.skipped:
        print(f"  not synced (unsafe file names): {', '.join(result.skipped)}")
    return 0


def cmd_status(ns: argparse.Namespace) -> int:
    from memoir_tui.core import sync_status

    status = sync_status(_store(ns), fetch=ns.fetch)
    if ns.json:
        print(json.dumps(status.to_dict(), indent=2))
    else:
        print("\n".join(status.lines()))
    return 0
