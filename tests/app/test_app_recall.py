"""Pilot tests for the Recall pane: search as you type, ranked passages, scope, open, edit.

A scratch home holds the store (with entry files and a session), Claude Code's
global instructions and one project's memory (its transcript names the
project's directory), and a second project. The app's Recall is attached with
that home, environment, working directory and a cache under ``tmp_path``.
The negative tests of issue 5 for the app surface are here: a hidden decision
(hidden through ``Store``) and another project's entry are never listed
(the latter only once ``A`` asks for every project).
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, Markdown, Static
from textual.worker import WorkerState

from memoir_tui.app import MemoirApp
from memoir_tui.core.identity import text_hash
from memoir_tui.core.scope import project_identity
from memoir_tui.core.store import Store
from memoir_tui.screens import recall as recall_screen
from memoir_tui.screens.help import own_bindings
from memoir_tui.screens.recall import RecallPane, highlighted
from memoir_tui.screens.registry import pane_spec
from memoir_tui.widgets.entry_view import EntryScreen
from memoir_tui.widgets.recall_source import RecallSource, attach_recall

SIZE = (100, 30)
NOW = "2026-08-01T00:00:00.000Z"
RECALL_KEY = pane_spec("recall").key

HIDDEN_DECISION = "Keep kubernetes secrets in the ocelot vault"
VISIBLE_DECISION = "Use the capybara queue for kubernetes batch jobs"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@dataclass
class World:
    home: Path
    store: Store
    project: Path  # the working directory: Claude Code's transcripts name it
    other: Path  # another project, known through the store's config
    cache: Path

    @property
    def memory(self) -> Path:
        return self.store.root / "memory"

    @property
    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config")}

    def source(self) -> RecallSource:
        return RecallSource(
            self.store.root, home=self.home, env=self.env, cwd=self.project, cache_dir=self.cache
        )

    def app(self) -> MemoirApp:
        app = MemoirApp(self.store, display_path="~/.config/memoir", poll_interval=None)
        attach_recall(app, self.source())
        return app


def build_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
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
    store = Store(root, clock=lambda: NOW, machine_label="test-machine", project=scope)
    store.note_decision(VISIBLE_DECISION, why="retries for free")
    store.note_decision(HIDDEN_DECISION, why="audited access")
    assert store.hide_decision(text_hash(HIDDEN_DECISION)).changed
    return World(home, store, project, other, tmp_path / "cache")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    return build_world(tmp_path, monkeypatch)


async def settle(pilot: Pilot[Any]) -> None:
    """Run messages and timers; wait until no worker is left (searches, reads, writes)."""
    for _ in range(100):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        busy = [
            w for w in pilot.app.workers if w.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ]
        if not busy:
            return
    raise AssertionError("workers did not finish")


async def type_query(pilot: Pilot[Any], text: str) -> None:
    """Type into the focused box key by key, then let the debounce timer fire."""
    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    await pilot.press(*["space" if c == " " else c for c in text])
    await pilot.pause(recall_screen.DEBOUNCE_SECONDS + 0.1)
    await settle(pilot)


async def open_pane(pilot: Pilot[Any]) -> RecallPane:
    await settle(pilot)
    await pilot.press(RECALL_KEY)
    await settle(pilot)
    pane = pilot.app.query_one(RecallPane)
    assert pilot.app.focused is pane.table
    return pane


async def search(pilot: Pilot[Any], pane: RecallPane, query: str) -> None:
    """``/``, type the query, then ``enter``: back in the results."""
    await pilot.press("slash")
    if pane.query_text:
        await pilot.press("ctrl+u")  # empty the box first
    await type_query(pilot, query)
    assert pane.result is not None and pane.result.request.query == query
    await pilot.press("enter")
    await settle(pilot)
    assert pilot.app.focused is pane.table


def names(pane: RecallPane) -> list[str]:
    return [h.name for h in pane.hits]


def rendered(widget: Static) -> str:
    console = Console(width=120, file=io.StringIO(), record=True, color_system=None)
    console.print(widget.content)
    return console.export_text()


def messages(app: MemoirApp) -> list[str]:
    return [n.message for n in app._notifications]


# --- searching ------------------------------------------------------------------------------


async def test_search_as_you_type_ranks_the_alias_entry_first_and_highlights(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    queries: list[str] = []
    real_get = RecallSource.get

    def spy(self: RecallSource) -> Any:
        threads.append(threading.current_thread())
        recall = real_get(self)
        if getattr(recall, "spied", False):
            return recall
        recall.spied = True  # type: ignore[attr-defined]
        real_search = recall.search

        def search_spy(query: str, **kwargs: Any) -> Any:
            queries.append(query)
            return real_search(query, **kwargs)

        recall.search = search_spy  # type: ignore[method-assign]
        return recall

    monkeypatch.setattr(RecallSource, "get", spy)
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert threads == []  # nothing is opened before the pane is used
        pane = await open_pane(pilot)
        assert threads and all(t is not threading.main_thread() for t in threads)
        await search(pilot, pane, "kubernetes")
        # Debounced: ten keystrokes, one search.
        assert queries == ["kubernetes"]
        hits = pane.hits
        assert hits, "no results"
        # Reachable only through its aliases, and first.
        assert hits[0].name == "Cluster layout"
        assert "kubernetes" in hits[0].why.get("aliases", ())
        assert "Deploy pipeline" in names(pane)
        assert VISIBLE_DECISION in names(pane)
        # The table lists tool, type and score; the cursor is on the best result.
        assert pane.table.cursor_key == pane.table.row_keys[0]
        row = [str(c) for c in pane.table.get_row(pane.table.row_keys[0])]
        assert row[:3] == ["Cluster layout", "memoir", "fact"]
        # The deploy note's passage has the matched word highlighted.
        deploy = names(pane).index("Deploy pipeline")
        pane.table.move_to_key(pane.table.row_keys[deploy])
        await pilot.pause()
        shown = pane.shown_passage
        assert shown is not None and "kubernetes with helm" in shown.plain
        marked = [shown.plain[s.start : s.end] for s in shown.spans if "underline" in str(s.style)]
        assert marked == ["kubernetes"]
        panel = rendered(pane.query_one("#recall-passage", Static))
        assert "~/.claude/projects/-home-work-webshop/memory/deploy.md:" in panel
        assert "matched body: kubernetes" in panel


async def test_hidden_decision_and_other_projects_entry_are_absent_until_A(world: World) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot)
        await search(pilot, pane, "kubernetes")
        found = names(pane)
        # Hidden through Store: neither the session decision nor its entry file.
        assert HIDDEN_DECISION not in found
        assert not any("ocelot" in h.passage for h in pane.hits)
        # Another project's entry is out of scope.
        assert "Billing ledger namespace" not in found
        status = str(pane.query_one("#recall-status").render())
        assert "scope: ~/src/webshop + global" in status

        await pilot.press("A")
        await settle(pilot)
        assert pane.all_projects
        found = names(pane)
        assert "Billing ledger namespace" in found
        assert HIDDEN_DECISION not in found  # hidden is hidden in every project
        assert "scope: every project" in str(pane.query_one("#recall-status").render())

        await pilot.press("A")
        await settle(pilot)
        assert "Billing ledger namespace" not in names(pane)

        # A query only the hidden decision would answer finds nothing, and says so.
        await search(pilot, pane, "ocelot")
        assert pane.hits == ()
        assert pane.table.row_count == 0
        empty = rendered(pane.query_one("#recall-passage", Static))
        assert "Nothing found for 'ocelot' in ~/src/webshop + global." in empty
        assert "A searches every project" in empty


async def test_tool_filter_cycles_through_tools_with_files(world: World) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot)
        assert "claude-code" in pane.tools and "memoir" in pane.tools
        await search(pilot, pane, "kubernetes")
        order = ["", *pane.tools]
        seen: dict[str, set[str]] = {}
        for _ in order:
            await pilot.press("t")
            await settle(pilot)
            seen[pane.tool] = {h.tool for h in pane.hits}
        assert pane.tool == ""  # a full cycle ends at every tool
        assert seen["claude-code"] == {"claude-code"}
        assert seen["memoir"] == {"memoir"}
        assert seen[""] == {"claude-code", "memoir"}


async def test_escape_clears_and_slash_focuses_the_box(world: World) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot)
        await search(pilot, pane, "postgres")
        assert pane.hits
        assert pane.hits[0].name == "Postgres is the primary database"
        await pilot.press("escape")  # in the results: clear the search
        await settle(pilot)
        assert pane.query_text == "" and pane.hits == ()
        assert isinstance(pilot.app.focused, Input)
        assert "Press / and type" in rendered(pane.query_one("#recall-passage", Static))


# --- opening and editing -----------------------------------------------------------------------


async def test_enter_opens_the_whole_entry(world: World) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot)
        await search(pilot, pane, "k8s")
        assert pane.hits[0].name == "Cluster layout"
        await pilot.press("enter")  # open
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, EntryScreen)
        assert screen.document is not None and not screen.document.error
        body = screen.query_one("#entry-body", Markdown).source
        assert "Three node pools run in eu-west." in body and "ingress controller" in body
        assert "aliases" not in body  # the frontmatter is a table, not body text
        items = dict(screen.frontmatter_table.items)
        assert items["aliases"] == "kubernetes, k8s" and items["type"] == "fact"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


async def test_e_edits_the_result_and_the_search_sees_it(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(
        tmp_path / "editor.sh", '#!/bin/sh\nprintf "Also known as the wombat cluster.\\n" >> "$1"\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot)
        await search(pilot, pane, "k8s")
        await pilot.press("e")
        await settle(pilot)
        text = (world.memory / "fact_k8s-cluster.md").read_text(encoding="utf-8")
        assert text.endswith("Also known as the wombat cluster.\n")
        await search(pilot, pane, "wombat")
        assert [h.name for h in pane.hits] == ["Cluster layout"]


async def test_e_without_editor_says_so(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot)
        await search(pilot, pane, "k8s")
        await pilot.press("e")
        await settle(pilot)
        assert any("$EDITOR is not set" in m for m in messages(app))


async def test_recall_is_closed_with_the_app(world: World) -> None:
    app = world.app()
    source = world.source()
    attach_recall(app, source)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot)
        assert source.is_open
    assert source.closed and not source.is_open


def test_highlighted_marks_folded_and_prefix_matches() -> None:
    text = highlighted("Caching pages; the cache is authoritative.", "cached auth", "bold")
    assert [text.plain[s.start : s.end] for s in text.spans] == [
        "Caching",
        "cache",
        "authoritative",
    ]


# --- keys, palette, snapshot -----------------------------------------------------------------


def test_bindings_have_ids_and_key_tables() -> None:
    for cls in (RecallPane, EntryScreen):
        assert "| Key(s) | Description |" in (cls.__doc__ or ""), cls.__name__
        ids = [b.id for b in own_bindings(cls)]
        assert all(i and i.split(".")[0] in ("recall", "entry") for i in ids), ids
        assert len(ids) == len(set(ids))
    shown = [b for b in own_bindings(RecallPane) if b.show]
    assert 3 <= len(shown) <= 5
    ids = {b.id for b in own_bindings(RecallPane)}
    assert all(c.binding_id in ids for c in RecallPane.COMMANDS)
    assert {c.verb for c in RecallPane.COMMANDS} >= {"search", "open entry", "toggle all projects"}


def keys(*presses: str, query: str = "") -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press(RECALL_KEY)
        await settle(pilot)
        if query:
            await pilot.press("slash")
            pilot.app.focused.post_message(events.Paste(query))  # type: ignore[union-attr]
            await pilot.pause(recall_screen.DEBOUNCE_SECONDS + 0.1)
            await settle(pilot)
        for key in presses:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_recall_pane_snapshot(snap_compare: Any, world: World) -> None:
    assert snap_compare(
        world.app(), terminal_size=SIZE, run_before=keys("enter", "j", query="kubernetes")
    )
