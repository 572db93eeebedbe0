"""A small home with every host tool's layout, a store and two projects, on tmp dirs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.world import World


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def entry(
    type_: str, name: str, body: str, *, description: str = "", aliases=(), **extra: str
) -> str:
    lines = ["---", f"type: {type_}", f"name: {name}"]
    if description:
        lines.append(f"description: {description}")
    if aliases:
        lines.append("aliases:")
        lines += [f"  - {a}" for a in aliases]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    lines.append("---")
    return "\n".join(lines) + "\n" + body


def build_world(tmp_path: Path) -> World:
    w = World.under(tmp_path)
    home, store, proj, other = w.home, w.store_dir, w.project, w.other
    write(store / "memoir-tui.toml", f'[recall]\nproject_roots = ["{other}"]\n')
    mem = store / "memory"
    write(
        mem / "decision_postgres.md",
        entry(
            "decision",
            "Postgres is the primary database",
            "We chose Postgres over MySQL for JSONB support.\n",
            description="Primary datastore choice",
            why="JSONB and mature tooling",
        ),
    )
    write(
        mem / "fact_k8s-cluster.md",
        entry(
            "fact",
            "Cluster layout",
            "Three node pools run in eu-west.\n\nThe ingress controller is nginx.\n",
            aliases=("kubernetes", "k8s"),
        ),
    )
    write(
        mem / "lesson_flaky-tests.md",
        entry(
            "lesson",
            "Retry flaky browser tests once",
            "Safari service worker tests flake under load.\n",
            trigger="a browser test fails intermittently",
            how_to_apply="rerun once before investigating",
        ),
    )
    write(
        mem / "decision_hidden-vendor.md",
        entry(
            "decision",
            "Adopt the Zanzibar vendor",
            "We picked zanzibarvendor for authorization.\n",
            hidden="true",
            hidden_at="2026-05-01T00:00:00Z",
        ),
    )
    write(
        mem / "next_action_done.md",
        entry(
            "next_action",
            "Ship the quokka exporter",
            "quokka export pipeline\n",
            added="2026-01-01",
            done_at="2026-02-01",
        ),
    )
    write(
        mem / "fact_billing-only.md",
        entry(
            "fact",
            "Invoices are numbered per tenant",
            "Invoice numbering uses a per-tenant sequence (platypus scheme).\n",
            project=str(other),
        ),
    )
    session = {
        "version": 1,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        "machines": {},
        "current": {
            "goals": [],
            "next_actions": [
                {"text": "Write the wombat migration guide", "added": "2026-03-01T00:00:00.000Z"},
                {"text": "Finish the narwhal dashboard", "added": "2026-03-01T00:00:00.000Z"},
            ],
            "completed_actions": [
                {"text": "Finish the narwhal dashboard", "done_at": "2026-03-02T00:00:00.000Z"}
            ],
            "open_questions": [],
            "decisions": [
                {
                    "text": "Use the capybara queue for background jobs",
                    "why": "at-least-once delivery",
                    "date": "2026-03-01T00:00:00.000Z",
                },
                {
                    "text": "Store secrets in the ocelot vault",
                    "why": "audited access",
                    "date": "2026-03-01T00:00:00.000Z",
                    "hidden": True,
                    "hidden_at": "2026-03-05T00:00:00.000Z",
                },
            ],
        },
        "history": [],
    }
    write(store / "session.json", json.dumps(session))

    claude = home / ".claude"
    write(claude / "CLAUDE.md", "# Global\n\nAlways run the linter before committing.\n")
    write(claude / "rules" / "style" / "python.md", "# Python style\n\nUse type hints.\n")
    write(claude / ".credentials.json", '{"token": "sk-secret-credential"}')
    write(claude / "settings.json", '{"apiKeyHelper": "credential-helper"}')
    slug = claude / "projects" / "-not-the-real-path"  # the slug is never reversed
    write(
        slug / "abc.jsonl",
        json.dumps({"type": "summary"}) + "\n" + json.dumps({"type": "user", "cwd": str(proj)}),
    )
    write(slug / "memory" / "MEMORY.md", "# Memory\n\n- [caching](caching.md)\n")
    write(
        slug / "memory" / "caching.md",
        entry(
            "fact",
            "Cache product pages",
            "Product pages are cached in Redis for five minutes.\n",
            description="redis page cache",
        ),
    )
    write(home / ".gemini" / "GEMINI.md", "## Gemini Added Memories\n- prefers pnpm\n")
    write(home / ".codex" / "AGENTS.md", "Codex global: keep diffs minimal.\n")
    write(home / ".codeium" / "windsurf" / "memories" / "global_rules.md", "Windsurf: tabs.\n")
    write(home / ".continue" / "rules" / "review.md", "Continue: review checklist.\n")
    write(home / ".copilot" / "copilot-instructions.md", "Copilot: prefer pytest.\n")
    write(home / "Documents" / "Cline" / "Rules" / "cline.md", "Cline: small commits.\n")
    write(home / ".config" / "opencode" / "AGENTS.md", "OpenCode global agents file.\n")
    write(home / "notes" / "stray.md", "A stray file about Postgres outside every tool.\n")

    write(proj / "AGENTS.md", "# Agents\n\nRun `make check` before pushing.\n")
    write(proj / "CLAUDE.md", "# Webshop\n\nThe checkout service talks to Stripe.\n")
    write(
        proj / ".cursor" / "rules" / "sql.mdc",
        "---\ndescription: SQL migration rules\nglobs: '**/*.sql'\nalwaysApply: true\n---\n"
        "Never edit an applied migration; add a new one.\n",
    )
    write(proj / ".windsurf" / "rules" / "ws.md", "Windsurf project rule.\n")
    write(proj / ".github" / "copilot-instructions.md", "Copilot project instructions.\n")
    write(proj / ".clinerules" / "01-style.md", "Cline project rule.\n")
    write(proj / ".continue" / "rules" / "c.md", "Continue project rule.\n")
    write(proj / ".rules", "Zed rules file for the webshop.\n")
    write(proj / "CONVENTIONS.md", "Aider conventions: snake_case.\n")
    write(proj / "GEMINI.md", "Gemini project context.\n")
    write(proj / "src" / "deep" / "notes.md", "Not a memory file: Postgres tuning notes.\n")
    write(other / "AGENTS.md", "Billing agents file: platypus ledger rules.\n")
    return w


def stop_keepers(cache: Path) -> None:
    """End the change-journal keepers CLI queries of this test left behind (by pid)."""
    import signal

    for keeper in cache.glob("memoir-tui/*-keeper"):
        try:
            pid = int(keeper.read_text().split()[0])
            os.kill(pid, signal.SIGTERM)
        except (OSError, ValueError, IndexError):
            pass


@pytest.fixture
def world(tmp_path: Path):
    w = build_world(tmp_path)
    yield w
    stop_keepers(w.cache)
