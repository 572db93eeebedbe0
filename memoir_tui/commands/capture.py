"""``memoir-tui capture``: propose decisions from Claude Code transcripts for review."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memoir_tui.commands import open_store


def register(subparsers: argparse._SubParsersAction) -> None:
    # The adapters' data only: the capture machinery loads when the command runs.
    from memoir_tui.core import describe_dir, get_adapter

    transcripts = describe_dir("claude-code", get_adapter("claude-code").transcripts or "")
    p = subparsers.add_parser(
        "capture",
        help="find candidate decisions in Claude Code transcripts and queue them for review",
        description="Read what is new in Claude Code session transcripts since the last "
        "capture and queue candidate decisions for review (memoir-tui review). Nothing is "
        "pinned until a person pins it; subagent and compaction transcripts are skipped.",
    )
    p.add_argument(
        "--since",
        metavar="DURATION",
        help="only transcripts changed and messages sent within this window (30m, 2h, 3d, 1w)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="show what would be queued; write nothing"
    )
    p.add_argument(
        "--projects-dir",
        type=Path,
        metavar="DIR",
        help=f"transcript folder (default: {transcripts})",
    )
    p.add_argument("--max-files", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-bytes", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(run=cmd_capture)


def cmd_capture(ns: argparse.Namespace) -> int:
    from memoir_tui.core import MAX_BYTES_PER_RUN, MAX_FILES_PER_RUN, parse_duration
    from memoir_tui.core import capture_transcripts as capture

    store = open_store(ns, actor="capture")
    since = parse_duration(ns.since) if ns.since else None
    report = capture(
        store,
        projects_dir=ns.projects_dir,
        since_seconds=since,
        dry_run=ns.dry_run,
        max_files=ns.max_files or MAX_FILES_PER_RUN,
        max_bytes=ns.max_bytes or MAX_BYTES_PER_RUN,
    )
    out = sys.stdout
    if not report.projects_dir.is_dir():
        print(f"memoir-tui: no transcript folder at {report.projects_dir}", file=sys.stderr)
    for sentence in report.unreadable:
        print(f"memoir-tui: {sentence}", file=sys.stderr)
    skipped = report.skipped_subagent + report.skipped_compaction
    print(
        f"read {report.files_read} transcript(s) ({report.bytes_read} bytes) of "
        f"{report.files_seen} found; skipped {skipped} subagent/compaction file(s)",
        file=out,
    )
    if report.dry_run:
        print(f"{len(report.candidates)} candidate(s) found (dry run: nothing written)", file=out)
        for c in report.candidates:
            badge = "[user]" if c.source == "user" else "[assistant]"
            print(f"  {badge} {c.text}  ({c.extractor})", file=out)
    else:
        print(
            f"{len(report.added)} new candidate(s) queued"
            + (f", {report.near_hidden} close to a hidden decision" if report.near_hidden else "")
            + (f"; {report.duplicates} already in the queue" if report.duplicates else "")
            + (f"; {report.known} already decided" if report.known else "")
            + (f"; {report.forgotten} forgotten before" if report.forgotten else ""),
            file=out,
        )
        if report.added:
            print("review them with: memoir-tui review", file=out)
    if report.waiting_on_partial_line:
        print(
            f"{len(report.waiting_on_partial_line)} transcript(s) end in a line still being "
            "written; it will be read next time",
            file=out,
        )
    if report.more_pending:
        print("more transcript data remains; run capture again to continue", file=out)
    return 0
