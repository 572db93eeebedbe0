"""The shell: navigation, help, palette, bindings, themes, quitting, watching, demo."""

from __future__ import annotations

import ast
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.binding import Binding
from textual.command import CommandPalette
from textual.dom import DOMNode
from textual.widgets import Input, Label, Tab, TabbedContent, Tabs
from textual.widgets._footer import FooterKey

import memoir_tui
from memoir_tui import app as app_module
from memoir_tui.app import PANES, MemoirApp, display_path, run_app
from memoir_tui.core.demo import DEMO_MACHINE_LABEL, create_demo_store
from memoir_tui.core.format.identity import identity, text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import ConfirmScreen, TypeToConfirmScreen
from memoir_tui.dialogs.forms import (
    AddDecisionScreen,
    AddItemScreen,
    DecisionDetailScreen,
    FormDialog,
    SessionEndScreen,
)
from memoir_tui.dialogs.help import HelpScreen, own_bindings
from memoir_tui.panes.decisions import DECISION_ROWS, DecisionsPane
from memoir_tui.panes.registry import PANE_KEYS, pane_spec
from memoir_tui.widgets.damage_banner import DamageBanner
from memoir_tui.widgets.filter_bar import FilterBar
from memoir_tui.widgets.item_table import ItemTable
from memoir_tui.widgets.key_footer import KeyFooter
from memoir_tui.widgets.store_bar import StoreBar
from tests.app.helpers import SIZE, eventually, make_app, messages, settle
from tests.conftest import JulyClock
from tests.paths import REPO

# --- bindings ---------------------------------------------------------------------

PANE_CLASSES = [spec.load() for spec in PANES]

# Not walked: the core and the MCP server import no textual, so hold no widget.
NOT_WALKED = ("memoir_tui.core", "memoir_tui.mcp", "memoir_tui.__main__")


def _discover_binding_classes() -> list[type[DOMNode]]:
    """Every memoir_tui widget, screen and the app that declares its own ``BINDINGS`` or
    documents keys in a ``| Key(s) |`` table: each module of the package is imported (so
    a class in a new or renamed module is found), then DOMNode's subclasses are walked."""
    for module in pkgutil.walk_packages(memoir_tui.__path__, "memoir_tui."):
        if not any(module.name == n or module.name.startswith(n + ".") for n in NOT_WALKED):
            importlib.import_module(module.name)

    def subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    found = {
        cls
        for cls in subclasses(DOMNode)
        if cls.__module__.startswith("memoir_tui.")
        and ("BINDINGS" in cls.__dict__ or "| Key(s) |" in (cls.__doc__ or ""))
    }
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


BINDING_CLASSES = _discover_binding_classes()


def test_the_binding_classes_are_discovered() -> None:
    """The walk finds the classes once listed here by hand, and more."""
    listed = {
        MemoirApp,
        *PANE_CLASSES,
        ItemTable,
        FilterBar,
        ConfirmScreen,
        TypeToConfirmScreen,
        FormDialog,
        AddItemScreen,
        SessionEndScreen,
        AddDecisionScreen,
        DecisionDetailScreen,
        HelpScreen,
    }
    assert listed <= set(BINDING_CLASSES)
    assert len(BINDING_CLASSES) > len(listed)


def _inherited_bindings(cls: type) -> list[Any]:
    return [b for base in cls.__mro__[1:] for b in base.__dict__.get("BINDINGS", [])]


@pytest.mark.parametrize("cls", BINDING_CLASSES, ids=lambda c: c.__name__)
def test_every_binding_has_an_id_and_a_key_table(cls: type) -> None:
    bindings = own_bindings(cls)
    # A dialog may document the keys it inherits (SessionEndScreen from FormDialog).
    assert bindings or _inherited_bindings(cls), f"{cls.__name__}: a key table, no keys"
    for binding in bindings:
        assert isinstance(binding, Binding)
        assert binding.id, f"{cls.__name__}: {binding.key} has no id"
        assert binding.description or binding.system
    assert "| Key(s) | Description |" in (cls.__doc__ or ""), f"{cls.__name__} lacks a key table"


def test_binding_ids_are_unique_per_class_and_namespaced() -> None:
    for cls in BINDING_CLASSES:
        ids = [b.id for b in own_bindings(cls)]
        assert len(ids) == len(set(ids)), cls.__name__
        assert all(i and "." in i for i in ids)


async def test_footer_shows_at_most_seven_keys_per_pane(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        for number, pane in enumerate(PANE_CLASSES, start=1):
            await pilot.press(str(number % 10))
            await settle(pilot)
            shown = {
                b.binding.action
                for b in app.active_bindings.values()
                if b.binding.show and b.enabled
            }
            assert 3 <= len(shown) <= 7, (pane.__name__, shown)
            keys = {b.binding.key for b in app.active_bindings.values()}
            assert {"q", "question_mark", "ctrl+p", "ctrl+q"} <= keys


# --- navigation and header ----------------------------------------------------------


async def test_number_keys_switch_panes_and_focus_their_list(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tabs = app.query_one(TabbedContent)
        assert tabs.active == "working-set"
        assert app.focused is app.query_one("#next-actions")
        await pilot.press("2")
        await settle(pilot)
        assert tabs.active == "decisions"
        assert app.focused is app.query_one("#decisions-table")
        await pilot.press("1")
        await settle(pilot)
        assert tabs.active == "working-set"
        await pilot.click("#--content-tab-decisions")
        await settle(pilot)
        assert tabs.active == "decisions" and app.focused is app.query_one("#decisions-table")


async def test_list_keys_j_k_g_G(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#next-actions", ItemTable)
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1 == 5
        await pilot.press("g")
        assert table.cursor_row == 0
        await pilot.press("down", "end", "up")
        assert table.cursor_row == 4


async def test_header_names_store_machine_and_read_only(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "session.json").write_text(json.dumps({"version": 99, "current": {}}))
    before = (root / "session.json").read_bytes()
    store = Memoir(root, machine_label="laptop-7")
    app = MemoirApp(store, poll_interval=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.query_one(StoreBar)
        assert bar.read_only
        labels = [str(w.render()) for w in bar.query("Label")]
        assert str(root) in labels[1] or labels[1].startswith("~")
        assert labels[2] == "all projects (outside any project)"
        assert labels[3] == "machine: laptop-7"
        assert "READ-ONLY" in labels
        # The damage is a banner that stays, naming the file and the kept copy.
        banner = app.query_one(DamageBanner)
        assert banner.display
        assert "newer memoir format" in banner.text and "refuses every change" in banner.text
        assert "session.json.pre-migration-" in banner.text
        # Writing is refused by the core, and said inside the dialog, which keeps the text.
        await pilot.press("a")
        await settle(pilot)
        app.screen.query_one("#text", Input).value = "try to write"
        await pilot.press("enter")
        await settle(pilot)
        assert "read-only" in str(app.screen.query_one("#dialog-error", Label).render())
        assert app.screen.query_one("#text", Input).value == "try to write"
    assert (root / "session.json").read_bytes() == before


async def test_writable_store_has_no_read_only_badge(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.query_one(StoreBar).read_only


def test_display_path_abbreviates_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert display_path(tmp_path / ".config" / "memoir") == "~/.config/memoir"
    assert display_path(Path("/srv/memoir")) == "/srv/memoir"


# --- help, palette, themes ----------------------------------------------------------


async def test_help_lists_keys_grouped_by_pane(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        sections = {s.title: s for s in app.screen.sections}
        first = app.screen.sections[0]
        assert first.title == "Decisions (this pane)"
        assert {r.binding_id for r in first.rows} == {b.id for b in own_bindings(DecisionsPane)}
        assert "Working set (press 1)" in sections and "Everywhere" in sections
        assert "Lists" in sections and "Filter box" in sections and "Dialogs" in sections
        hide = next(r for r in first.rows if r.binding_id == "decisions.hide")
        assert hide.keys == "d" and hide.active and "for ever" in hide.description
        complete = next(
            r
            for r in sections["Working set (press 1)"].rows
            if r.binding_id == "working_set.complete"
        )
        assert complete.keys == "x" and not complete.active
        everywhere = {r.binding_id: r.keys for r in sections["Everywhere"].rows}
        assert everywhere["app.help"] == "?, f1" and everywhere["app.quit_now"] == "^q"
        await pilot.press("q")  # q closes help, it does not quit
        await settle(pilot)
        assert app.is_running and app.screen is app.screen_stack[0]
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.screen_stack[0]


async def test_palette_lists_area_verb_commands_with_keys(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        for title, keys in {
            "working set: add goal": "a",
            "working set: add next action": "a",
            "working set: ask question": "a",
            "working set: complete or close": "x",
            "working set: open item": "⏎",
            "working set: edit item": "e",
            "working set: remove item": "d",
            "working set: record session end": "s",
            "decisions: edit": "e",
            "app: undo": "u",
            "app: toggle all projects": "A",
            "decisions: add": "a",
            "decisions: filter": "/",
            "decisions: hide": "d",
            "decisions: purge": "D",
            "decisions: toggle tombstones": "h",
            "decisions: details": "⏎",
            "go: decisions": "2",
            "app: help": "?",
            "app: quit": "q, ctrl+q",
        }.items():
            assert title in commands, title
            assert commands[title].help.endswith(f" · key {keys}"), (title, commands[title].help)
        assert "app: change theme" in commands


async def test_palette_runs_a_pane_command(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()  # not settle(): the palette keeps a search worker running
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"dec hide")

        def offered() -> bool:  # the palette searches asynchronously
            found = app.screen.query("CommandList")
            if not (found and found.first().option_count):
                return False
            return str(found.first().get_option_at_index(0).prompt).startswith("decisions: hide")

        await eventually(pilot, offered, "the palette to offer 'decisions: hide'")
        await pilot.press("enter")
        await eventually(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the hide dialog")
        assert app.query_one(TabbedContent).active == "decisions"
        await pilot.press("n")
        await settle(pilot)


async def test_palette_add_goal_opens_the_dialog_on_goal(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.run_pane_command("working-set", "add('goal')")
        await settle(pilot)
        assert isinstance(app.screen, AddItemScreen) and app.screen.kind == "goal"


async def test_themes_including_ansi(demo_store: Memoir) -> None:
    app = make_app(demo_store, theme="ansi-dark")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "ansi-dark"
        for theme in ("ansi-light", "textual-light", "textual-dark"):
            assert theme in app.available_themes
            app.theme = theme
            await pilot.pause()
            assert app.theme == theme


async def test_unknown_theme_is_a_warning_not_a_crash(demo_store: Memoir) -> None:
    app = make_app(demo_store, theme="no-such-theme")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-dark"
        assert any("no-such-theme" in m for m in messages(app))


# --- quitting -----------------------------------------------------------------------------


async def test_q_quits_from_the_top(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
    assert not app.is_running


async def test_q_does_not_quit_from_a_dialog_or_an_input(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("d", "q")  # confirm dialog: q means nothing there
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape", "a", "q")  # in the add dialog q is a letter
        await settle(pilot)
        assert isinstance(app.screen, AddDecisionScreen)
        assert app.screen.query_one("#text", Input).value == "q"
        await pilot.press("escape", "2", "1")  # number keys work again on top
        await settle(pilot)
        assert app.query_one(TabbedContent).active == "working-set"
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, SessionEndScreen)
        await pilot.press("ctrl+q")  # ctrl+q quits from anywhere
        await pilot.pause()
    assert not app.is_running


# --- watching the file ------------------------------------------------------------------


async def test_reloads_when_another_process_writes_and_keeps_the_cursor(
    demo_store: Memoir,
) -> None:
    other = Memoir(demo_store.root, clock=JulyClock(), machine_label="home-desktop")
    app = make_app(demo_store, poll_interval=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.query_one("#next-actions", ItemTable)
        await pilot.press("j", "j")
        kept = table.cursor_key
        assert kept == identity("Add --format csv|json to tideline export")
        assert not app.poll_store()  # nothing changed yet
        # Another process adds the newest action (it lands on top) ...
        other.add_next_action("Rebase the sync branch on main")
        await eventually(
            pilot,
            lambda: identity("Rebase the sync branch on main") in table.row_keys,
            "the poll to show the new action",
        )
        # ... and the cursor stays on the same action, now one row lower.
        assert table.cursor_key == kept and table.cursor_row == 3
        # Hiding elsewhere removes the decision from this app's lists too.
        other.hide_decision(text_hash("Use Playwright for end-to-end tests"))
        assert app.poll_store()
        await pilot.pause()
        keys = {d.key for d in app.state.decisions}
        assert text_hash("Use Playwright for end-to-end tests") not in keys


async def test_ctrl_r_reloads(demo_store: Memoir) -> None:
    other = Memoir(demo_store.root, clock=JulyClock(), machine_label="home-desktop")
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        other.ask_question("Is the staging DB big enough for the load test?")
        await pilot.press("ctrl+r")
        await settle(pilot)
        rows = app.query_one("#questions", ItemTable).row_keys
        assert identity("Is the staging DB big enough for the load test?") in rows


# --- big stores ----------------------------------------------------------------------------


def big_session(decisions: int = 50, history: int = 1000) -> dict[str, Any]:
    machines = {
        f"m{i}": {"label": f"box-{i}", "last_seen": "2026-06-01T00:00:00Z"} for i in range(3)
    }
    stamp = "2026-06-{:02d}T{:02d}:{:02d}:00.000Z"
    return {
        "version": 1,
        "machines": machines,
        "current": {
            "goals": [
                {"text": f"goal {i}", "machine_id": "m0", "set_on": stamp.format(1, 0, i)}
                for i in range(5)
            ],
            "next_actions": [
                {"text": f"action {i}", "machine_id": "m1", "added": stamp.format(2, 0, i)}
                for i in range(20)
            ],
            "completed_actions": [
                {"text": f"done {i}", "done_at": stamp.format(3, i // 60 % 24, i % 60)}
                for i in range(1000)
            ],
            "open_questions": [
                {"text": f"question {i}", "machine_id": "m2", "asked": stamp.format(4, 0, i)}
                for i in range(10)
            ],
            "decisions": [
                {
                    "text": f"decision {i}",
                    "why": f"because {i}",
                    "rejected": f"alternative {i}",
                    "machine_id": f"m{i % 3}",
                    "date": stamp.format(5, i // 60 % 24, i % 60),
                }
                for i in range(decisions)
            ]
            + [
                {
                    "text": f"hidden {i}",
                    "hidden": True,
                    "hidden_at": stamp.format(6, 0, i % 60),
                    "machine_id": "m0",
                    "date": stamp.format(5, 0, i % 60),
                }
                for i in range(300)
            ],
        },
        "history": [
            {
                "date": stamp.format(7 + i // 1440 % 20, i // 60 % 24, i % 60),
                "machine_id": f"m{i % 3}",
                "summary": f"session {i}",
                "files_touched": ["a.py"],
                "duration_min": 30,
            }
            for i in range(history)
        ],
    }


async def test_a_big_store_opens_with_full_lists(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    (root / "session.json").write_text(json.dumps(big_session()))
    app = MemoirApp(Memoir(root, machine_label="bench"), display_path="big", poll_interval=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.query_one("#next-actions", ItemTable).row_count == 20
        completed = app.query_one("#completed", ItemTable)
        assert completed.row_count == 50  # the newest; the tombstones stay on disk
        assert str(completed.columns["text"].label) == "Recently completed · 1000 (newest 50)"
        await pilot.press("2", "h")
        await settle(pilot)
        pane = app.query_one(DecisionsPane)
        # A window of DECISION_ROWS rows is drawn, and a row saying how many more match.
        assert pane.table.row_count == DECISION_ROWS + 1
        assert pane.table.after == 50 + 300 - DECISION_ROWS
        status = str(app.query_one("#decisions-status").render())
        assert "showing 300 tombstones" in status
        # The filter reaches every tombstone, not only the listed ones.
        pane.filter_bar.input.value = "hidden 299"
        await settle(pilot)
        assert pane.table.row_keys == [text_hash("hidden 299")]


# --- run_app and the demo -------------------------------------------------------------------


def test_run_app_demo_uses_a_temporary_copy_and_removes_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}
    real_home = os.environ.get("MEMOIR_HOME")

    def fake_run(self: MemoirApp, *args: Any, **kwargs: Any) -> None:
        seen["root"] = self.store.root
        seen["exists"] = (self.store.root / "session.json").is_file()
        seen["memory"] = sorted(p.name for p in (self.store.root / "memory").iterdir())
        seen["demo"] = self.demo
        seen["label"] = self.store.machine.label
        seen["env"] = os.environ.get("MEMOIR_HOME")
        seen["store_label"] = self.store_label

    monkeypatch.setattr(MemoirApp, "run", fake_run)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert run_app(None, demo=True) == 0
    root = seen["root"]
    assert seen["exists"] and seen["demo"] and seen["label"] == DEMO_MACHINE_LABEL
    assert Path(root).parent == tmp_path and Path(root).name.startswith("memoir-demo-")
    assert seen["env"] == str(root)
    assert "demo store" in seen["store_label"]
    assert len(seen["memory"]) >= 6
    assert not Path(root).exists()  # removed on exit
    assert os.environ.get("MEMOIR_HOME") == real_home


def test_run_app_reports_a_bad_config_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "memoir-tui.toml").write_text("[caps]\ngoals = 0\n")
    assert run_app(root) == 2
    err = capsys.readouterr().err
    assert "goals" in err and "Traceback" not in err


def run_python(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``script`` in a fresh interpreter; its temporary files (a demo store) under tmp_path."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )


def test_app_never_imports_mcp(tmp_path: Path) -> None:
    """Run the whole app headless in a fresh interpreter and inspect sys.modules."""
    script = textwrap.dedent(
        """
        import asyncio, sys, tempfile
        from pathlib import Path
        from memoir_tui.app import MemoirApp
        from memoir_tui.core.demo import create_demo_store
        from memoir_tui.core.workflows.memoir import Memoir

        async def main():
            root = create_demo_store(Path(tempfile.mkdtemp()))
            app = MemoirApp(Memoir(root), poll_interval=None)
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.press("2", "h", "question_mark", "escape", "ctrl+p")
                await pilot.pause(0.2)
                await pilot.press("escape", "1", "a", "escape")
                await pilot.pause()
        asyncio.run(main())
        loaded = sorted(m for m in sys.modules if m == "mcp" or m.startswith("mcp."))
        print("MCP:" + ",".join(loaded))
        """
    )
    out = run_python(script, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "MCP:\n" in out.stdout or out.stdout.strip().endswith("MCP:"), out.stdout


def test_app_module_imports_textual_only_in_faces(tmp_path: Path) -> None:
    """The core never needs textual: importing the demo helper keeps it out."""
    script = (
        "import sys; import memoir_tui.core.demo, memoir_tui.core.door.store; "
        "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))"
    )
    out = run_python(script, tmp_path)
    assert out.stdout.strip() == "False", out.stderr


def test_registry_is_the_only_place_panes_are_listed() -> None:
    ids = [spec.pane_id for spec in PANES]
    assert ids[:2] == ["working-set", "decisions"]  # the heart of the app on keys 1 and 2
    assert len(set(ids)) == len(ids) <= len(PANE_KEYS)  # one key per pane: 1 to 9, 0, then -
    assert [spec.key for spec in PANES] == list(PANE_KEYS[: len(PANES)])
    assert app_module.PANES is PANES
    for spec, pane in zip(PANES, PANE_CLASSES, strict=True):
        # The class names its registry entry and takes its title and area from it.
        assert (spec.pane_id, spec.title, spec.area) == (pane.PANE_ID, pane.TITLE, pane.AREA)
        assert pane.TITLE and pane.AREA and pane.COMMANDS
        ids = {b.id for b in own_bindings(pane)}
        for command in pane.COMMANDS:
            assert command.binding_id is None or command.binding_id in ids


# --- the demo fixtures -----------------------------------------------------------------


def test_demo_fixtures_are_a_valid_realistic_store(tmp_path: Path) -> None:
    from memoir_tui.core.demo import DemoStoreError
    from memoir_tui.core.format.entry_file import ENTRY_TYPES, iter_entry_files, read_entry
    from memoir_tui.core.format.validate import validate_paths

    root = create_demo_store(tmp_path / "demo")
    assert validate_paths([root]) == []
    data = json.loads((root / "session.json").read_text(encoding="utf-8"))
    current = data["current"]
    assert data["version"] == 1
    assert len(current["goals"]) == 3 and len(current["next_actions"]) == 6
    assert len(current["open_questions"]) == 3 and len(current["completed_actions"]) == 4
    live = {identity(a["text"]) for a in current["next_actions"]}
    assert not live & {identity(c["text"]) for c in current["completed_actions"]}
    visible = [d for d in current["decisions"] if not d.get("hidden")]
    assert len(visible) == 12 and all(d.get("why") and d.get("rejected") for d in visible)
    hidden = [d for d in current["decisions"] if d.get("hidden") and "text_hash" not in d]
    assert len(hidden) == 2 and all(d.get("hidden_at") for d in hidden)
    (purged,) = [d for d in current["decisions"] if "text_hash" in d]
    assert purged["text"] == "[purged]" and purged["hidden"] is True and purged["hidden_at"]
    assert "why" not in purged and "rejected" not in purged
    assert purged["text_hash"] == text_hash(
        "Keep the Stripe test key in .env.example so new devs can run checkout locally"
    )
    assert len(data["history"]) == 12
    assert {h["machine_id"] for h in data["history"]} == set(data["machines"])
    assert len(data["machines"]) == 3
    assert all(m["label"] and m["last_seen"].startswith("2026-") for m in data["machines"].values())
    assert (root / "machine.id").read_text().strip() in data["machines"]
    entries = [read_entry(p) for p in iter_entry_files(root / "memory")]
    assert {e.type for e in entries} == set(ENTRY_TYPES)
    lesson = next(e for e in entries if e.type == "lesson")
    assert lesson.trigger and lesson.how_to_apply
    with pytest.raises(DemoStoreError):
        create_demo_store(root)  # never over an existing store


def test_first_screen_imports_only_the_first_pane(tmp_path: Path) -> None:
    """The other panes (and the cores behind them) load after the first screen."""
    script = (
        "import sys, memoir_tui.app; "
        "print(sorted(m for m in sys.modules if m.startswith(('memoir_tui.panes.', "
        "'memoir_tui.core.sync', 'memoir_tui.core.services.consolidate', 'memoir_tui.core.services.inject'))))"
    )
    out = run_python(script, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    loaded = set(ast.literal_eval(out.stdout.strip()))
    # (The help screen and the dialogs load when first opened.)
    assert loaded == {"memoir_tui.panes.base", "memoir_tui.panes.registry"}, loaded


# --- keeping interaction cheap ---------------------------------------------------------


def footer_keys(app: MemoirApp) -> list[FooterKey]:
    return list(app.query_one(KeyFooter).query(FooterKey))


async def test_footer_is_rebuilt_only_when_its_keys_change(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = footer_keys(app)
        assert "Complete" in {key.description for key in before}
        # Moving the cursor and refreshing the bindings show the same keys: same widgets.
        await pilot.press("j", "k")
        app.screen.refresh_bindings()
        await settle(pilot)
        assert footer_keys(app) == before
        assert all(key.is_attached for key in before)
        # Another pane has other keys: the footer shows them.
        await pilot.press("2")
        await settle(pilot)
        after = {key.description for key in footer_keys(app)}
        assert "Hide" in after and "Complete" not in after
        await pilot.press("1")
        await settle(pilot)
        assert "Complete" in {key.description for key in footer_keys(app)}


def test_animations_are_off_unless_the_user_asks(
    demo_store: Memoir, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEXTUAL_ANIMATIONS", raising=False)
    assert make_app(demo_store).animation_level == "none"
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "full")
    assert make_app(demo_store).animation_level == "full"


def tab_labels(app: MemoirApp) -> list[str]:
    return [tab.label_text for tab in app.query_one("#panes", TabbedContent).query(Tab)]


async def test_every_tab_stays_visible_on_a_narrow_terminal(demo_store: Memoir) -> None:
    named = [f"{spec.key} {spec.title}" for spec in PANES]
    app = make_app(demo_store)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # The named tabs need NAMED_TABS_WIDTH columns: at 80 the others show their key.
        assert tab_labels(app) == [named[0], *PANE_KEYS[1 : len(PANES)]]
        strip = app.query_one("#panes", TabbedContent).query_one(Tabs)
        assert all(tab.region.right <= 80 for tab in strip.query(Tab))
        await pilot.press(pane_spec("sync").key)
        await settle(pilot)
        labels = tab_labels(app)
        assert labels[PANES.index(pane_spec("sync"))] == "8 Sync" and labels[0] == "1"
        needed = sum(len(label) + 2 for label in named) - 1
        await pilot.resize_terminal(needed, 30)
        await settle(pilot)
        assert tab_labels(app) == named
        await pilot.resize_terminal(needed - 1, 30)
        await settle(pilot)
        assert tab_labels(app).count("1") == 1 and "8 Sync" in tab_labels(app)


async def test_keys_after_a_first_switch_land_in_the_new_pane(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        next_actions = app.query_one("#next-actions", ItemTable)
        before = next_actions.cursor_row
        await pilot.press("2", "j", "j")  # the pane is built by the first key
        await settle(pilot)
        decisions = app.query_one(DecisionsPane).table
        assert app.focused is decisions and decisions.cursor_row == 2
        assert next_actions.cursor_row == before


async def test_clicking_a_tab_builds_the_pane_and_focuses_it(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for pane_id in ("review", "decisions", "sync"):
            await pilot.click(f"#--content-tab-{pane_id}")
            await settle(pilot)
            assert app.query_one("#panes", TabbedContent).active == pane_id
            assert app.focused is not None
            assert f"{pane_id}-pane" in {node.id for node in app.focused.ancestors_with_self}


def import_workers(app: MemoirApp) -> list[Any]:
    return [w for w in app.workers if w.group == "import-panes"]


async def test_other_panes_are_imported_only_once_the_person_pauses(demo_store: Memoir) -> None:
    """No timer (make_app: ``import_panes_after=None``) and a clock of input pauses the
    test moves: the machine's speed cannot start the import before the test asks."""
    now = [1000.0]
    app = make_app(demo_store, input_clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert import_workers(app) == []  # no timer started it
        await pilot.press("j")  # typing: the import waits
        app._start_importing_panes()
        assert import_workers(app) == []
        now[0] += app_module.IMPORT_PANES_AFTER  # a pause
        app._start_importing_panes()
        assert import_workers(app)
        await settle(pilot)
        assert all(w.is_finished for w in import_workers(app))


async def test_a_timer_starts_the_import_once_the_first_read_landed(demo_store: Memoir) -> None:
    assert MemoirApp(demo_store).import_panes_after == app_module.IMPORT_PANES_AFTER
    app = make_app(demo_store, import_panes_after=0.001)  # (Textual refuses a 0 s timer)
    imported: list[bool] = []  # a finished worker leaves app.workers: the import says so
    import_panes = app._after_first_read_in_thread

    def importing() -> None:
        import_panes()
        imported.append(True)

    app._after_first_read_in_thread = importing  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await eventually(pilot, lambda: imported, "the timer to start the import")


def test_the_other_panes_are_imported_after_the_first_screen(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, sys, tempfile
        from pathlib import Path
        from memoir_tui.app import MemoirApp
        from memoir_tui.core.demo import create_demo_store
        from memoir_tui.core.workflows.memoir import Memoir

        async def main():
            root = create_demo_store(Path(tempfile.mkdtemp()))
            # No timer: the test starts the import, so how fast this machine paints the
            # first screen cannot decide FIRST.
            app = MemoirApp(Memoir(root), poll_interval=None, import_panes_after=None)
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause()
                await app.workers.wait_for_complete()
                await pilot.pause()
                print("FIRST:" + str("memoir_tui.panes.sync" in sys.modules))
                app._last_input = float("-inf")  # a long pause
                app._start_importing_panes()
                await app.workers.wait_for_complete()
                print("LATER:" + str("memoir_tui.panes.sync" in sys.modules))
        asyncio.run(main())
        """
    )
    out = run_python(script, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "FIRST:False" in out.stdout and "LATER:True" in out.stdout, out.stdout


async def test_keys_typed_while_a_pane_is_built_reach_it(demo_store: Memoir) -> None:
    """Type-ahead: the second key is queued before the first has built the pane.

    It must not act on the pane left behind (its table is not laid out yet, so
    a cursor key there moves nothing).
    """
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        next_actions = app.query_one("#next-actions", ItemTable)
        before = next_actions.cursor_row
        app.post_message(events.Key("2", "2"))
        app.post_message(events.Key("j", "j"))
        await settle(pilot)
        assert app.focused is app.query_one(DecisionsPane).table
        assert next_actions.cursor_row == before
