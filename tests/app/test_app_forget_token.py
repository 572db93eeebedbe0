"""Decisions → filter on a leaked token → ``F``: the scan runs through the shared read
idiom, the dialog lists the places without echoing the token, and the typed word
forgets it — the app stays up (it used to exit with a ``SecretFoundError``)."""

from __future__ import annotations

import json
from pathlib import Path

from memoir_tui.core.format.identity import iso_now
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.dialogs.confirm import TypeToConfirmScreen
from memoir_tui.panes.decisions import DecisionsPane
from tests.app.helpers import SIZE, make_app, open_pane, settle, type_text

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


async def test_forgetting_a_pasted_token_from_the_filter_keeps_the_app_up(
    store_dir: Path,
) -> None:
    decision = {"text": f"Deploy with {TOKEN}", "date": iso_now(), "id": "d1"}
    state = {"version": 1, "current": {"decisions": [decision]}, "history": []}
    (store_dir / "session.json").write_text(json.dumps(state))
    store = Memoir(store_dir, machine_label="test-machine", actor="app")
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await open_pane(pilot, DecisionsPane)
        await pilot.press("slash")
        await type_text(pilot, TOKEN)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert isinstance(app.screen, TypeToConfirmScreen)
        body = str(app.screen.query_one("#confirm-body").render())
        assert "session" in body and TOKEN not in body
        assert "[REDACTED:github-token]" in body
        await type_text(pilot, "forget")
        await pilot.press("enter")
        await settle(pilot)
        await app.workers.wait_for_complete()
        await settle(pilot)
        assert app.is_running and app.screen is app.screen_stack[0]
    assert TOKEN not in store.session_path.read_text()
