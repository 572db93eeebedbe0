"""A scratch home for the Recall and Entries panes: store entries, Claude Code's
memory and instructions, a second project, and a decision hidden through Memoir.

The app's Recall is attached with that home, environment, working directory
and a cache under ``tmp_path``. The ``world`` fixture (tests/app/conftest.py)
builds one per test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from memoir_tui.app import MemoirApp
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.rules.scope import project_identity
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.ui.recall_source import RecallSource, attach_recall
from tests.app.helpers import NOW, make_app, write
from tests.world import World

HIDDEN_DECISION = "Keep kubernetes secrets in the ocelot vault"
VISIBLE_DECISION = "Use the capybara queue for kubernetes batch jobs"


@dataclass
class AppWorld(World):
    """The common world (tests/world.py) with its store opened: the app's ``Memoir``."""

    store: Memoir

    @property
    def memory(self) -> Path:
        return self.store.root / "memory"

    def source(self) -> RecallSource:
        return RecallSource(
            self.store.root,
            home=self.home,
            env=self.host_env(),
            cwd=self.project,
            cache_dir=self.cache,
        )

    def app(self) -> MemoirApp:
        app = make_app(self.store)
        attach_recall(app, self.source())
        return app


def build_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppWorld:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))  # paths are shown under ~
    project = home / "src" / "webshop"
    other = home / "src" / "billing"
    for directory in (project, other):
        directory.mkdir(parents=True)
    root = home / ".config" / "memoir"
    write(root / "memoir-tui.toml", f'[recall]\nproject_roots = ["{other}"]\n')
    memory = root / "memory"
    write(
        memory / "fact_k8s-cluster.md",
        "---\ntype: fact\nname: Cluster layout\naliases:\n  - kubernetes\n  - k8s\n"
        "updated: 2026-05-02\n---\n"
        "Three node pools run in eu-west.\n\nThe ingress controller is nginx.\n",
    )
    write(
        memory / "decision_postgres.md",
        "---\ntype: decision\nname: Postgres is the primary database\n"
        "why: JSONB and mature tooling\ncreated: 2026-04-01\n---\n"
        "We chose Postgres over MySQL for JSONB support.\n",
    )
    write(
        memory / "lesson_rehearse-migrations.md",  # no trigger, no how_to_apply: two findings
        "---\ntype: lesson\nname: Rehearse migrations on a copy\ncreated: 2026-04-10\n---\n"
        "# Rehearse migrations\n\nRun every migration against last night's snapshot first.\n",
    )
    write(
        memory / "fact_billing-ledger.md",  # out of scope: another project's entry
        f"---\ntype: fact\nname: Billing ledger namespace\nproject: {other}\n"
        "created: 2026-04-20\n---\nThe ledger service has its own kubernetes namespace.\n",
    )
    write(
        memory / "decision_ocelot-vault.md",  # the file of the decision hidden below
        f"---\ntype: decision\nname: {HIDDEN_DECISION}\nwhy: audited access\n"
        "created: 2026-03-01\n---\nThe ocelot vault holds every kubernetes secret.\n",
    )
    claude = home / ".claude"
    write(claude / "CLAUDE.md", "# Global\n\nAlways run the linter before committing.\n")
    slug = claude / "projects" / "-home-work-webshop"
    write(slug / "s1.jsonl", json.dumps({"type": "user", "cwd": str(project)}) + "\n")
    write(slug / "memory" / "MEMORY.md", "# Memory\n\n- [Deploy pipeline](deploy.md)\n")
    write(
        slug / "memory" / "deploy.md",
        "---\nname: Deploy pipeline\ndescription: How the webshop ships\ntype: reference\n---\n"
        "We deploy the webshop to kubernetes with helm charts.\n"
        "Rollbacks use the helm history.\n",
    )
    write(project / "AGENTS.md", "# Agents\n\nRun `make check` before pushing.\n")

    scope = project_identity(project, home=home).id
    store = Memoir(root, clock=lambda: NOW, machine_label="test-machine", project=scope)
    store.note_decision(VISIBLE_DECISION, why="retries for free")
    store.note_decision(HIDDEN_DECISION, why="audited access")
    assert store.hide_decision(text_hash(HIDDEN_DECISION)).changed
    return AppWorld(
        root=tmp_path,
        home=home,
        store_dir=root,
        project=project,
        other=other,
        cache=tmp_path / "cache",
        store=store,
    )
