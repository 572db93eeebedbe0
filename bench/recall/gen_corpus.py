"""Generate a memory corpus of N entries in the host tools' real layouts.

    .venv/bin/python bench/recall/gen_corpus.py ROOT --entries 10000

Writes ``ROOT/home`` (the store at ``~/.config/memoir``, Claude Code's
``~/.claude/projects/<slug>/memory`` with a transcript naming each project,
global rules of Claude Code, Continue, Cline, Codex, Windsurf, Copilot) and
``ROOT/src/p<i>`` projects (``AGENTS.md``, ``CLAUDE.md``, ``.cursor/rules``,
``.windsurf/rules``, ``.github/instructions``, ``.clinerules``). Shares: store
30 %, Claude Code project memory 40 % (about 100 files per project), project
rules 25 %, global rules 5 %. Deterministic for a given seed; nothing is
committed — benches generate into a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

WORDS = [
    "database",
    "migration",
    "schema",
    "index",
    "query",
    "postgres",
    "replica",
    "backup",
    "restore",
    "snapshot",
    "cache",
    "redis",
    "eviction",
    "ttl",
    "cdn",
    "invalidation",
    "token",
    "session",
    "cookie",
    "oauth",
    "authentication",
    "authorization",
    "permission",
    "role",
    "audit",
    "deploy",
    "release",
    "rollback",
    "canary",
    "feature",
    "flag",
    "toggle",
    "pipeline",
    "build",
    "artifact",
    "docker",
    "image",
    "container",
    "kubernetes",
    "cluster",
    "node",
    "ingress",
    "certificate",
    "dns",
    "latency",
    "throughput",
    "timeout",
    "retry",
    "backoff",
    "circuit",
    "breaker",
    "queue",
    "worker",
    "consumer",
    "producer",
    "webhook",
    "event",
    "stream",
    "payment",
    "invoice",
    "refund",
    "currency",
    "rounding",
    "tax",
    "checkout",
    "cart",
    "order",
    "customer",
    "account",
    "profile",
    "email",
    "notification",
    "template",
    "locale",
    "translation",
    "search",
    "ranking",
    "synonym",
    "test",
    "fixture",
    "mock",
    "flaky",
    "coverage",
    "lint",
    "format",
    "typing",
    "review",
    "commit",
    "branch",
    "merge",
    "conflict",
    "rebase",
    "monorepo",
    "package",
    "dependency",
    "upgrade",
    "vulnerability",
    "secret",
    "vault",
    "credential",
    "config",
    "environment",
    "staging",
    "production",
    "incident",
    "postmortem",
    "alert",
    "dashboard",
    "metric",
    "trace",
    "log",
    "sampling",
    "pager",
    "oncall",
    "runbook",
]
FILLER = [
    "the",
    "we",
    "it",
    "this",
    "that",
    "for",
    "with",
    "when",
    "before",
    "after",
    "because",
    "so",
    "then",
    "also",
    "only",
    "never",
    "always",
    "should",
    "must",
    "can",
    "might",
    "usually",
    "often",
    "rarely",
    "is",
    "are",
    "was",
    "be",
    "to",
    "of",
    "and",
    "in",
    "on",
    "a",
    "an",
    "by",
    "as",
    "at",
]
TYPES = ("fact", "decision", "lesson", "preference", "goal", "next_action")
_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ra",
    "ten",
    "vor",
    "sel",
    "dun",
    "pri",
    "gal",
    "hex",
    "mon",
    "tur",
    "vel",
    "zan",
    "qui",
    "bro",
    "fen",
    "lum",
    "nor",
    "pax",
    "ros",
]


def vocabulary(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[float]]:
    """Words and cumulative Zipf weights: filler words on top, domain words next, then a long tail.

    Real notes draw on a large vocabulary with a Zipfian spread; a uniform draw from a
    small word list would make every word appear in half the documents.
    """
    tail: set[str] = set()
    while len(tail) < size:
        tail.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    ordered = sorted(tail)
    rng.shuffle(ordered)
    words = list(FILLER) + list(WORDS) + ordered
    cumulative: list[float] = []
    total = 0.0
    for rank in range(len(words)):
        total += 1.0 / (rank + 8) ** 1.05
        cumulative.append(total)
    return words, cumulative


_VOCAB: dict[int, tuple[list[str], list[float]]] = {}


def sentence(rng: random.Random, n: int) -> str:
    if not _VOCAB:
        _VOCAB[0] = vocabulary(random.Random(0))
    words, cumulative = _VOCAB[0]
    picked = rng.choices(words, cum_weights=cumulative, k=n)
    s = " ".join(picked)
    return s[0].upper() + s[1:] + "."


def body(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(2, 5)):
        if rng.random() < 0.3:
            parts.append(f"## {sentence(rng, rng.randint(2, 4))[:-1]}")
        parts.append(" ".join(sentence(rng, rng.randint(6, 14)) for _ in range(rng.randint(1, 3))))
        if rng.random() < 0.3:
            parts.append("\n".join(f"- {sentence(rng, rng.randint(3, 7))}" for _ in range(3)))
    return "\n\n".join(parts) + "\n"


def entry(rng: random.Random, i: int, type_: str) -> str:
    name = sentence(rng, rng.randint(3, 6))[:-1]
    lines = ["---", f"type: {type_}", f"name: {json.dumps(name)}"]
    lines.append(f"description: {json.dumps(sentence(rng, rng.randint(5, 10)))}")
    if rng.random() < 0.4:
        lines.append("aliases:")
        lines += [f"  - {rng.choice(WORDS)}-{rng.choice(WORDS)}" for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.5:
        lines.append("tags:")
        lines += [f"  - {rng.choice(WORDS)}" for _ in range(rng.randint(1, 3))]
    lines.append(f"created: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
    if type_ == "decision":
        lines.append(f"why: {json.dumps(sentence(rng, 6))}")
    if type_ == "lesson":
        lines.append(f"trigger: {json.dumps(sentence(rng, 5))}")
        lines.append(f"how_to_apply: {json.dumps(sentence(rng, 6))}")
    if type_ == "next_action":
        lines.append("added: 2026-06-01")
    if type_ == "goal":
        lines.append("set_on: 2026-06-01")
    lines.append("---")
    return "\n".join(lines) + "\n" + body(rng)


def rule(rng: random.Random, mdc: bool) -> str:
    head = ""
    if mdc:
        head = (
            f'---\ndescription: {json.dumps(sentence(rng, 6))}\nglobs: "**/*.py"\n'
            f"alwaysApply: {'true' if rng.random() < 0.3 else 'false'}\n---\n"
        )
    return head + f"# {sentence(rng, 4)[:-1]}\n\n" + body(rng)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def generate(root: Path, entries: int, seed: int = 1) -> dict[str, int]:
    rng = random.Random(seed)
    home = root / "home"
    store = home / ".config" / "memoir" / "memory"
    counts = {"store": 0, "claude-projects": 0, "project-rules": 0, "global-rules": 0}
    n_store = int(entries * 0.30)
    n_claude = int(entries * 0.40)
    n_rules = int(entries * 0.25)
    n_global = entries - n_store - n_claude - n_rules
    per_project = 100
    n_projects = max(2, n_claude // per_project)
    projects = [root / "src" / f"p{i:04d}" for i in range(n_projects)]
    for p in projects:
        p.mkdir(parents=True, exist_ok=True)
    for i in range(n_store):
        t = TYPES[i % len(TYPES)]
        write(store / f"{t}_entry-{i:06d}.md", entry(rng, i, t))
        counts["store"] += 1
    for i in range(n_claude):
        k = i % n_projects
        slug = home / ".claude" / "projects" / f"-work-p{k:04d}"
        if i < n_projects:
            write(
                slug / "session-1.jsonl",
                json.dumps({"type": "summary", "summary": "x"})
                + "\n"
                + json.dumps({"type": "user", "cwd": str(projects[k]), "message": {}})
                + "\n",
            )
        t = TYPES[i % 4]
        write(slug / "memory" / f"{t}_mem-{i:06d}.md", entry(rng, i, t))
        counts["claude-projects"] += 1
    layouts = (
        (".cursor/rules", ".mdc", True),
        (".windsurf/rules", ".md", False),
        (".github/instructions", ".instructions.md", False),
        (".clinerules", ".md", False),
        (".claude/rules", ".md", False),
    )
    for i in range(n_rules):
        p = projects[i % n_projects]
        j = i // n_projects
        if j == 0:
            write(p / "AGENTS.md", rule(rng, False))
        elif j == 1:
            write(p / "CLAUDE.md", rule(rng, False))
        else:
            sub, suffix, mdc = layouts[i % len(layouts)]
            write(p / sub / f"rule-{i:06d}{suffix}", rule(rng, mdc))
        counts["project-rules"] += 1
    globals_ = (
        home / ".claude" / "rules",
        home / ".continue" / "rules",
        home / "Documents" / "Cline" / "Rules",
        home / ".codex" / "memories",
        home / ".copilot" / "instructions",
    )
    for i in range(n_global):
        d = globals_[i % len(globals_)]
        suffix = ".instructions.md" if d.name == "instructions" else ".md"
        write(d / f"global-{i:06d}{suffix}", rule(rng, False))
        counts["global-rules"] += 1
    write(home / ".claude" / "CLAUDE.md", rule(rng, False))
    write(home / ".config" / "memoir" / "session.json", json.dumps({"version": 1}))
    counts["projects"] = n_projects
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.root.exists() and any(args.root.iterdir()):
        print(f"{args.root} is not empty", file=sys.stderr)
        return 1
    os.makedirs(args.root, exist_ok=True)
    print(json.dumps(generate(args.root, args.entries, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
