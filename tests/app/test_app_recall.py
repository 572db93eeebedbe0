"""Pilot tests for the Recall pane: search as you type, ranked passages, scope, open, edit.

A scratch home (``tests/app/world.py``) holds the store (with entry files and a
session), Claude Code's global instructions and one project's memory (its
transcript names the project's directory), and a second project. The app's
Recall is attached with that home, environment, working directory and a cache
under ``tmp_path``. The negative tests of issue 5 for the app surface are
here: a hidden decision (hidden through ``Memoir``) and another project's entry
are never listed (the latter only once ``A`` asks for every project).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Markdown, Static

from memoir_tui.dialogs.entry import EntryScreen
from memoir_tui.dialogs.help import own_bindings
from memoir_tui.panes import recall as recall_screen
from memoir_tui.panes.recall import RecallPane, highlighted
from memoir_tui.panes.registry import pane_spec
from memoir_tui.ui.recall_source import RecallSource, attach_recall
from tests.app.helpers import (
    SIZE,
    messages,
    open_pane,
    pressing,
    rendered,
    settle,
    type_text,
    write,
)
from tests.app.world import HIDDEN_DECISION, VISIBLE_DECISION, AppWorld

RECALL_KEY = pane_spec("recall").key


async def type_query(pilot: Pilot[Any], text: str) -> None:
    """Type into the focused box key by key, then let the debounce timer fire."""
    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    await pilot.press(*["space" if c == " " else c for c in text])
    await pilot.pause(recall_screen.DEBOUNCE_SECONDS + 0.1)
    await settle(pilot)


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


# --- searching ------------------------------------------------------------------------------


async def test_search_as_you_type_ranks_the_alias_entry_first_and_highlights(
    world: AppWorld, monkeypatch: pytest.MonkeyPatch
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
        pane = await open_pane(pilot, RecallPane)
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


async def test_hidden_decision_and_other_projects_entry_are_absent_until_A(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
        await search(pilot, pane, "kubernetes")
        found = names(pane)
        # Hidden through Memoir: neither the session decision nor its entry file.
        assert HIDDEN_DECISION not in found
        assert not any("ocelot" in h.passage for h in pane.hits)
        # Another project's entry is out of scope.
        assert "Billing ledger namespace" not in found
        status = str(pane.query_one("#recall-status").render())
        assert "scope: webshop + global" in status

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
        assert "Nothing found for 'ocelot' in webshop + global." in empty
        assert "A searches every project" in empty


async def test_tool_filter_cycles_through_tools_with_files(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
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


async def test_escape_clears_and_slash_focuses_the_box(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
        await search(pilot, pane, "postgres")
        assert pane.hits
        assert pane.hits[0].name == "Postgres is the primary database"
        await pilot.press("escape")  # in the results: clear the search
        await settle(pilot)
        assert pane.query_text == "" and pane.hits == ()
        assert isinstance(pilot.app.focused, Input)
        assert "Press / and type" in rendered(pane.query_one("#recall-passage", Static))


# --- opening and editing -----------------------------------------------------------------------


async def test_enter_opens_the_whole_entry(world: AppWorld) -> None:
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
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
    world: AppWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = write(
        tmp_path / "editor.sh", '#!/bin/sh\nprintf "Also known as the wombat cluster.\\n" >> "$1"\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
        await search(pilot, pane, "k8s")
        await pilot.press("e")
        await settle(pilot)
        text = (world.memory / "fact_k8s-cluster.md").read_text(encoding="utf-8")
        assert text.endswith("Also known as the wombat cluster.\n")
        await search(pilot, pane, "wombat")
        assert [h.name for h in pane.hits] == ["Cluster layout"]


async def test_e_without_editor_says_so(world: AppWorld, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EDITOR", raising=False)
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
        await search(pilot, pane, "k8s")
        await pilot.press("e")
        await settle(pilot)
        assert any("$EDITOR is not set" in m for m in messages(app))


async def test_recall_is_closed_with_the_app(world: AppWorld) -> None:
    app = world.app()
    source = world.source()
    attach_recall(app, source)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, RecallPane)
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
    assert {c.verb for c in RecallPane.COMMANDS} >= {"search", "open entry"}


def paste_query(query: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """A snapshot step: ``/``, the query pasted, and the debounce timer let fire."""

    async def step(pilot: Pilot[Any]) -> None:
        await pilot.press("slash")
        await type_text(pilot, query)
        await pilot.pause(recall_screen.DEBOUNCE_SECONDS + 0.1)

    return step


def test_recall_pane_snapshot(snap_compare: Any, world: AppWorld) -> None:
    assert snap_compare(
        world.app(),
        terminal_size=SIZE,
        run_before=pressing(RECALL_KEY, paste_query("kubernetes"), "enter", "j"),
    )
