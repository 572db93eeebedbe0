"""The app's writes meet the same door as the CLI's and MCP's: hostile text pasted into
a dialog (terminal escapes, OSC 52, NUL, a right-to-left override) lands clean."""

from __future__ import annotations

import re

from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.decisions import DecisionsPane
from tests.app.helpers import SIZE, fill, make_app, on_disk, open_pane, settle, type_text

HOSTILE = "tidy \x1b[2Jthe \x1b]52;c;ZWNobyBwd25lZA==\x07files\x00 \u202etxt.exe\u2066x\u2069"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")


async def test_pasted_hostile_text_is_stored_clean(demo_store: Memoir) -> None:
    app = make_app(demo_store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")  # a next action, from the focused list
        await settle(pilot)
        await type_text(pilot, f"act {HOSTILE}")
        await pilot.press("enter")
        await settle(pilot)
        await open_pane(pilot, DecisionsPane)
        await pilot.press("a")
        await settle(pilot)
        await fill(pilot, f"decide {HOSTILE}", f"why {HOSTILE}", f"rejected {HOSTILE}")
        await settle(pilot)
    current = on_disk(demo_store)["current"]
    action = [a for a in current["next_actions"] if a["text"].startswith("act tidy")]
    decision = [d for d in current["decisions"] if d["text"].startswith("decide tidy")]
    assert len(action) == 1 and len(decision) == 1, (current["next_actions"], decision)
    stored = [action[0]["text"], decision[0]["text"], decision[0]["why"], decision[0]["rejected"]]
    for text in stored:
        assert not RAW.search(text), text
        assert "[2J" in text and "txt.exe" in text  # stripped, not dropped
