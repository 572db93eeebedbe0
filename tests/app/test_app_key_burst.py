"""Keys typed in one burst land in order even where a key's action moves the focus.

A loaded machine (or a fast typist) delivers ``enter`` and the next key in one read: the
tmux smoke test typed ``pipx``, ``enter``, then ``d`` 0.2 s later, and beside two CPU hogs
the ``d`` reached the filter box (``pipxd``) instead of the list ``enter`` hands the focus
to. The keys are posted here together, as the terminal delivers them then.
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Input

from memoir_tui.dialogs.confirm import ConfirmScreen
from memoir_tui.panes.decisions import DecisionsPane
from tests.app.helpers import demo_store_in, eventually, make_app, open_pane, settle, type_text


async def test_enter_in_the_filter_then_d_at_once_hides_from_the_list(tmp_path: Path) -> None:
    app = make_app(demo_store_in(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        pane = await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")
        await settle(pilot)
        await type_text(pilot, "pipx")
        await settle(pilot)
        box = app.query_one("#decision-filter Input", Input)
        assert app.focused is box
        app.post_message(events.Key("enter", "\r"))  # one read: enter and d
        app.post_message(events.Key("d", "d"))
        await eventually(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the hide dialog")
        assert box.value == "pipx"  # the d went to the list, not the box
        await pilot.press("n")
        await settle(pilot)
        assert app.focused is pane.table
