"""``memoir-tui recall QUERY`` and ``memoir-tui index``: search every host tool's memory.

Imported to build the parser, so nothing heavy at module level: the index,
sqlite3 and YAML load inside the command functions.
"""

from __future__ import annotations

import argparse
import json
import sys

MAX_LIMIT = 100


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}")
    return value


def _budget(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 40 <= value <= 100_000:
        raise argparse.ArgumentTypeError("must be between 40 and 100000 bytes")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "recall",
        help="search the store and every host tool's memory (ranked passages)",
        description="Ranked passages from the store and every enabled host tool's memory, "
        "rules and instruction files. By default only global files and the current "
        "project's (the one containing the working directory) are searched.",
    )
    p.add_argument("query", nargs="+", help="words to look for")
    p.add_argument("--limit", "-n", type=_limit, default=10, help="results (1–100, default 10)")
    p.add_argument(
        "--tool",
        action="append",
        metavar="T",
        help="only this tool (repeatable): memoir, claude-code, cursor, windsurf, gemini, "
        "codex, copilot, cline, continue, zed, kiro, serena, amazonq, aider, agents-md (any "
        "alias: claude, vscode, gemini-cli …)",
    )
    p.add_argument("--type", action="append", metavar="TYPE", help="only this type (repeatable)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="P", help="search this project (path or name)")
    where.add_argument("--all-projects", action="store_true", help="search every project")
    p.add_argument("--since", metavar="WHEN", help="only what changed since: 7d, 12h, 2026-05-01")
    p.add_argument("--json", action="store_true", help="print a JSON list, best first")
    p.add_argument("--budget", type=_budget, default=700, help="bytes per passage (default 700)")
    p.set_defaults(run=cmd_recall)

    p = subparsers.add_parser(
        "index",
        help="refresh, rebuild or inspect the recall index (a cache of the files)",
        description="With no option: check every indexed file and bring the index up to date.",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--rebuild", action="store_true", help="delete the cache and index again")
    group.add_argument("--status", action="store_true", help="describe the index; change nothing")
    p.add_argument(
        "--concepts",
        action="store_true",
        help="with memoir-tui[semantic]: fetch the concept model once (about 30 MB, with "
        "progress) and embed what changed, for questions in your own words",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=cmd_index)


def main(args: list[str]) -> int:
    """``memoir-tui [--store DIR] recall …`` without building every command's parser.

    A fresh query is the one command run in a tight loop (agents, scripts), and
    argparse over every command module (each imported) costs more than the query
    at 10k files. The options, messages and error handling are the full parser's."""
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="memoir-tui")
    parser.add_argument("--store", type=Path, default=None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register(sub)
    ns = parser.parse_args(args)
    ns.mcp = ns.demo = False
    from memoir_tui.cli import run_command  # the same error handling as every command

    return run_command(ns)


def is_recall(args: list[str]) -> bool:
    """``args`` run ``recall`` with nothing but ``--store`` before it."""
    head = args[2:3] if args[:1] == ["--store"] else args[:1]
    if args[:1] and args[0].startswith("--store="):
        head = args[1:2]
    return head == ["recall"]


def _check_tools(tools: list[str] | None) -> list[str] | None:
    """Each ``--tool`` as the registry's one resolver reads it (``claude`` is
    ``claude-code``); an unknown name is refused listing the known ones."""
    if not tools:
        return tools
    from memoir_tui.core import KNOWN_TOOLS, resolve_tool

    return [resolve_tool(tool, among=KNOWN_TOOLS) for tool in tools]


def cmd_recall(ns: argparse.Namespace) -> int:
    from memoir_tui.core import Recall, elsewhere_hint

    ns.tool = _check_tools(ns.tool)
    query = " ".join(ns.query)
    with Recall(ns.store) as recall:
        hits = recall.search(
            query,
            limit=ns.limit,
            tools=ns.tool,
            types=ns.type,
            project=ns.project,
            all_projects=ns.all_projects,
            budget=ns.budget,
            since=ns.since,
        )
        weak = recall.weak
        elsewhere: dict[str, int] = {}
        if not hits and not ns.all_projects:
            elsewhere = recall.count_elsewhere(
                query, tools=ns.tool, types=ns.type, project=ns.project
            )
        _print_hits(ns, query, hits)
        if weak:
            _concept_hint(recall)
        if elsewhere:
            print(elsewhere_hint(elsewhere, cli=True), file=sys.stderr)
        # Large index: this query checked directories only; re-check every file after
        # answering, in a detached child, so in-place edits show up next time.
        recall.revalidate_detached()
    return 0


def _write(text: str) -> None:
    """Write ``text`` to stdout; a reader that went away (``| head -c 100``) ends the
    output quietly: stdout is pointed at /dev/null so the exit flush cannot fail."""
    import os

    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _concept_hint(recall) -> None:
    """Weak lexical evidence and no concept search: say once that it exists."""
    from memoir_tui.core import semantic

    if semantic.available():
        if recall.concept_model is not None or not semantic.hint_once(recall.cache_dir):
            return
        step = "memoir-tui index --concepts (fetches its model once, about 30 MB)"
    elif semantic.hint_once(recall.cache_dir):
        step = "pip install 'memoir-tui[semantic]', then memoir-tui index --concepts"
    else:
        return
    print(
        "memoir-tui: few of these words are in any note; concept search (questions in your "
        f"own words) is available: {step}",
        file=sys.stderr,
    )


def _print_hits(ns: argparse.Namespace, query: str, hits: list) -> None:
    import dataclasses

    from memoir_tui.core import shown_text, withhold_lines

    # never hands on a secret another tool wrote into a memory: its lines are withheld
    hits = [
        dataclasses.replace(h, name=shown_text(h.name), passage=withhold_lines(h.passage)[0])
        for h in hits
    ]
    if ns.json:
        _write(json.dumps([h.to_json() for h in hits], ensure_ascii=False, indent=1) + "\n")
        return
    if not hits:
        from memoir_tui.core import shown

        print(f"nothing found for {shown(query)!r}", file=sys.stderr)
        return
    out: list[str] = []
    for number, hit in enumerate(hits, start=1):
        where = hit.path
        if hit.lines:
            first, last = hit.lines[0][0], hit.lines[-1][1]
            where += f":{first}" + (f"-{last}" if last != first else "")
        out.append(f"{number}. {hit.name}  [{hit.tool} · {hit.type}]  score {hit.score:.2f}")
        out.append(f"   {where}")
        for line in hit.passage.splitlines():
            out.append(f"   │ {line}")
        why = "  ".join(f"{field}: {', '.join(terms)}" for field, terms in hit.why.items())
        out.append(f"   matched {why}")
        out.append("")
    _write("\n".join(out))


def cmd_index(ns: argparse.Namespace) -> int:
    from memoir_tui.core import Recall

    with Recall(ns.store) as recall:
        if ns.status:
            status = recall.status()
            if ns.json:
                print(
                    json.dumps(
                        {
                            "path": status.path,
                            "exists": status.exists,
                            "files": status.files,
                            "documents": status.documents,
                            "size_bytes": status.size_bytes,
                            "last_full_check": status.last_full_check,
                            "by_tool": dict(status.by_tool),
                            "notes": [list(n) for n in status.notes],
                        },
                        indent=1,
                    )
                )
                return 0
            _print_status(status)
            return 0
        report = recall.rebuild() if ns.rebuild else recall.refresh(full=True)
        status = recall.status()
        concepts = _build_concepts(recall, fetch=ns.concepts)
    if ns.json:
        print(
            json.dumps(
                {
                    "added": report.added,
                    "updated": report.updated,
                    "removed": report.removed,
                    "unchanged": report.unchanged,
                    "seconds": round(report.seconds, 3),
                    "files": status.files,
                    "documents": status.documents,
                    "path": status.path,
                    "concepts": concepts,
                }
            )
        )
        return 0
    verb = "rebuilt" if ns.rebuild else "refreshed"
    print(
        f"{verb} in {report.seconds:.2f} s: {report.added} added, {report.updated} updated, "
        f"{report.removed} removed; {status.files} files, {status.documents} documents"
    )
    for path, reason in report.notes:
        print(f"  skipped {path}: {reason}")
    print(f"index: {status.path}")
    return 0


def _build_concepts(recall, *, fetch: bool) -> dict | None:
    """With the extra: embed the chunks that changed; ``--concepts`` first fetches the
    model if the cache lacks it (progress on stderr). A failure is one sentence; the
    lexical index stands either way."""
    from memoir_tui.core import MemoirError, semantic

    if not semantic.available():
        if fetch:
            print(
                "memoir-tui: concept search needs the extra: pip install 'memoir-tui[semantic]'",
                file=sys.stderr,
            )
        return None
    tty = sys.stderr.isatty()

    def progress(line: str) -> None:
        print(f"\r{line}" if tty else line, end="" if tty else "\n", file=sys.stderr)

    try:
        done = recall.build_concepts(fetch=fetch, progress=progress)
    except MemoirError as err:
        print(f"{chr(10) if tty else ''}memoir-tui: {err}", file=sys.stderr)
        return {"error": str(err)}
    if tty:
        print(file=sys.stderr)
    if done is None:
        return None
    return {"embedded": done[0], "reused": done[1]}


def _print_status(status) -> None:
    import time

    if not status.exists:
        print(f"no index yet at {status.path} (the next recall builds it)")
        return
    print(f"index:     {status.path}")
    print(f"size:      {status.size_bytes / 1024 / 1024:.1f} MB")
    print(f"files:     {status.files}")
    print(f"documents: {status.documents}")
    if status.last_full_check:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status.last_full_check))
        print(f"checked:   {stamp} (every file)")
    for tool, count in status.by_tool.items():
        print(f"  {tool:<12} {count}")
    if status.notes:
        print("skipped:")
        for path, reason in status.notes:
            print(f"  {path}: {reason}")
