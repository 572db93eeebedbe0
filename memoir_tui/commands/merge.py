"""``memoir-tui merge``: two session files merged by FORMAT §4, secrets of copied-out inputs left behind."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from memoir_tui.core import MemoirError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("merge", help="merge two session files (FORMAT §4)")
    p.add_argument("local", type=Path)
    p.add_argument("remote", type=Path)
    p.add_argument("-o", "--output", type=Path, help="write the result here instead of stdout")
    p.add_argument(
        "--caps",
        choices=("ours", "memoir"),
        default="ours",
        help="how many items stay live (the rest are archived or parked, never dropped): "
        "this tool's caps (default) or the JavaScript memoir's 3/8/5/10",
    )
    p.set_defaults(run=cmd_merge)


def _read_session_arg(path: Path) -> dict:
    try:
        from memoir_tui.core import read_json_safely

        data = read_json_safely(path)  # a FIFO or a folder: a sentence, never a hang
    except FileNotFoundError:
        raise MemoirError(f"{path}: no such file") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise MemoirError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise MemoirError(f"{path}: the top level must be an object")
    return data


def _same_file(a: Path, b: Path | None) -> bool:
    if b is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def cmd_merge(ns: argparse.Namespace) -> int:
    from memoir_tui.core import (
        contributes_to_merge,
        encode_session,
        merge_sessions,
        withhold_secrets,
    )

    local, remote = _read_session_arg(ns.local), _read_session_arg(ns.remote)
    for path, data in ((ns.local, local), (ns.remote, remote)):
        if not contributes_to_merge(data):
            print(
                f"memoir-tui: {path} is from a newer format version; it contributes nothing",
                file=sys.stderr,
            )
    # What is copied out (every input, but the file written onto) leaves its secrets
    # behind; the note names the list and the rule, never the text.
    if not _same_file(ns.local, ns.output):
        local, held = withhold_secrets(local)
        for note in held:
            print(f"memoir-tui: {ns.local}: {note}", file=sys.stderr)
    if not _same_file(ns.remote, ns.output):
        remote, held = withhold_secrets(remote)
        for note in held:
            print(f"memoir-tui: {ns.remote}: {note}", file=sys.stderr)
    if ns.output:
        from memoir_tui.core import write_merged_session

        print(write_merged_session(ns.output, local, remote).message, file=sys.stderr)
    else:
        from memoir_tui.core import DEFAULT_CAPS, JS_CAPS

        caps = JS_CAPS if ns.caps == "memoir" else DEFAULT_CAPS
        sys.stdout.write(encode_session(merge_sessions(local, remote, caps=caps)).decode("utf-8"))
    return 0
