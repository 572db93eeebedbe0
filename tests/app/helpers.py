"""What every Pilot test needs: an app on a store, waiting, typing, reading back.

The fixtures built from these (``demo_store``, ``world``) are in
``tests/app/conftest.py``. Pane-specific readers stay in their test modules.
"""

from __future__ import annotations

import io
import json
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import WorkerState

from memoir_tui.app import MemoirApp
from memoir_tui.core.demo import DEMO_MACHINE_LABEL, create_demo_store
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.registry import pane_spec
from tests.conftest import JulyClock
from tests.deadlines import SAFETY_NET
from tests.paths import FIXTURES

SIZE = (100, 30)
DEMO_MACHINE_ID = "3f2b8c1e-6a4d-4e2f-9b71-0c5d2a8e4f13"  # the demo store's machine.id
NOW = "2026-08-01T00:00:00.000Z"  # the fixed clock of the stores made from tests/fixtures
CONSOLIDATE_FIXTURE = FIXTURES / "consolidate_store"

P = TypeVar("P", bound=Widget)


# --- stores and apps -------------------------------------------------------------------


def demo_store_in(directory: Path, **kwargs: Any) -> Memoir:
    """A fresh copy of the shipped demo store under ``directory``, on the July clock."""
    kwargs.setdefault("clock", JulyClock())
    kwargs.setdefault("machine_label", DEMO_MACHINE_LABEL)
    kwargs.setdefault("actor", "app")
    return Memoir(create_demo_store(directory / "store"), **kwargs)


def fixture_store(home: Path) -> Memoir:
    """The planted store of ``tests/fixtures/consolidate_store``, at ``~/.config/memoir``."""
    root = home / ".config" / "memoir"
    shutil.copytree(CONSOLIDATE_FIXTURE / "store", root)
    return Memoir(root, clock=lambda: NOW, machine_label="test-machine")


def make_app(store: Memoir, **kwargs: Any) -> MemoirApp:
    """The app as the snapshots show it: a fixed header path, no file watcher and no timer
    importing the other panes (``import_panes_after``: a test that wants it starts it);
    every message it notifies is recorded for ``messages``."""
    kwargs.setdefault("display_path", "~/.config/memoir")
    kwargs.setdefault("poll_interval", None)
    kwargs.setdefault("import_panes_after", None)
    return record_notifications(MemoirApp(store, **kwargs))


_SHOWN = "_test_shown_messages"


def record_notifications(app: MemoirApp) -> MemoirApp:
    """Wrap ``app.notify`` so every message is kept, oldest first, for ``messages``.

    Textual's own list (``app._notifications``) drops a toast once its timeout has passed
    on the wall clock, so on a loaded machine a test reading it could miss one."""
    shown: list[str] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        shown.append(str(message))
        notify(message, *args, **kwargs)

    setattr(app, "notify", recording)  # noqa: B010 (an instance attribute over the method)
    setattr(app, _SHOWN, shown)
    return app


# --- driving ---------------------------------------------------------------------------


async def settle(pilot: Pilot[Any]) -> None:
    """Run messages and wait until no worker is left (a write, the reload or rescan it
    starts, a search), then let the result render."""
    for _ in range(100):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if not any(
            w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers
        ):
            return
    raise AssertionError("workers did not finish")


async def eventually(pilot: Pilot[Any], condition: Callable[[], Any], what: str) -> None:
    """Let the app run until ``condition()`` holds: the condition decides, the deadline is
    only a safety net (a loaded machine may take seconds for what takes milliseconds)."""
    deadline = time.monotonic() + SAFETY_NET
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Paste ``text`` into the focused input (one event instead of a key per letter)."""
    focused = pilot.app.focused
    assert isinstance(focused, Input), focused
    focused.post_message(events.Paste(text))
    await pilot.pause()


async def fill(pilot: Pilot[Any], *values: str) -> None:
    """Fill a dialog field by field: each value pasted, then enter (the last one submits)."""
    for value in values:
        await type_text(pilot, value)
        await pilot.press("enter")


async def open_pane(pilot: Pilot[Any], pane: type[P], *, focus_table: bool = True) -> P:
    """Press the pane's number key and wait; its list has the focus."""
    await settle(pilot)
    await pilot.press(pane_spec(pane.PANE_ID).key)  # type: ignore[attr-defined]
    await settle(pilot)
    shown = pilot.app.query_one(pane)
    if focus_table:
        assert pilot.app.focused is shown.table  # type: ignore[attr-defined]
    return shown


async def select(pilot: Pilot[Any], pane: Widget, key: str) -> None:
    """Put the cursor of the pane's table on the row ``key``."""
    table = pane.table  # type: ignore[attr-defined]
    assert table.move_to_key(key), key
    await pilot.pause()
    assert table.cursor_key == key


async def select_text(pilot: Pilot[Any], pane: Widget, text: str) -> None:
    """Select the item whose row key is ``text``'s hash (a decision, a candidate)."""
    await select(pilot, pane, text_hash(text))
    selected = pane.selected()  # type: ignore[attr-defined]
    assert selected is not None and selected.text == text


Step = str | Callable[[Pilot[Any]], Awaitable[None]]


def pressing(*steps: Step) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """A snapshot's ``run_before``: each key (or step) and a settle after it, then a
    still picture: input cursors stop blinking and toasts, which time out, are cleared."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for step in steps:
            if isinstance(step, str):
                await pilot.press(step)
            else:
                await step(pilot)
            await settle(pilot)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before


# --- reading back ----------------------------------------------------------------------


def on_disk(store: Memoir) -> dict[str, Any]:
    """``session.json`` as it is on disk now."""
    return json.loads(store.session_path.read_text(encoding="utf-8"))


def texts(items: list[dict[str, Any]]) -> list[str]:
    return [i["text"] for i in items]


def decision_on_disk(store: Memoir, text: str) -> dict[str, Any]:
    """The decision ``text`` in ``session.json``, purged or not."""
    key = text_hash(text)
    for d in on_disk(store)["current"]["decisions"]:
        if d.get("text_hash") == key or (d["text"] != "[purged]" and text_hash(d["text"]) == key):
            return d
    raise AssertionError(f"{text!r} is not in session.json")


def messages(app: MemoirApp) -> list[str]:
    """Every message the app has notified, oldest first, as ``record_notifications`` kept
    them (the toasts themselves go when their time is up)."""
    shown = getattr(app, _SHOWN, None)
    assert shown is not None, "this app's notifications are not recorded: use make_app"
    return list(shown)


def shown_keys(app: MemoirApp) -> set[str]:
    """The keys the footer shows (enabled and not hidden)."""
    return {b.binding.key for b in app.active_bindings.values() if b.binding.show and b.enabled}


def plain(renderable: Any, width: int = 200) -> str:
    """A Rich renderable as plain text, wide enough not to wrap what tests look for
    (and without the padding at the end of each line)."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def rendered(widget: Static) -> str:
    """The plain text a Static shows (its content rendered, tables and grids too)."""
    return plain(widget.content)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
