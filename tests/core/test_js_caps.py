"""Caps beside the JavaScript tool: its files in the store make its visible caps ours.

FORMAT §3: the JavaScript tool trims every list to goals 3, next actions 8, questions
5, decisions 10 on each write, silently. Sharing a store, we keep to the same caps
(unless ``[caps]`` sets them), say so, and record every item we rotate out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_tui.core.door.config import load_config
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

JS_NOTE = "caps: JavaScript memoir's (3/8/5/10) — its files are in this store; set [caps] to change"


def run(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMOIR_HOME": str(store)}
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=SAFETY_NET,
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [("config.json", "{}\n"), ("events.jsonl", '{"type":"x"}\n'), ("session.json.lock", "4242")],
)
def test_a_javascript_footprint_makes_its_visible_caps_the_default(
    store_dir: Path, name: str, content: str
) -> None:
    assert load_config(store_dir).caps_source == "defaults"
    assert load_config(store_dir).caps.goals == 5
    (store_dir / name).write_text(content)
    config = load_config(store_dir)
    caps = config.caps
    assert (caps.goals, caps.next_actions, caps.open_questions, caps.decisions) == (3, 8, 5, 10)
    assert config.caps_source == "javascript"
    assert config.caps_note == JS_NOTE


def test_our_own_lock_is_not_a_javascript_footprint(store_dir: Path) -> None:
    (store_dir / "session.json.lock").write_text("4242@somehost")
    assert load_config(store_dir).caps_source == "defaults"
    assert load_config(store_dir).caps.goals == 5


def test_caps_set_in_our_config_win_over_the_javascript_ones(store_dir: Path) -> None:
    (store_dir / "config.json").write_text("{}")
    (store_dir / "memoir-tui.toml").write_text("[caps]\ngoals = 4\n")
    config = load_config(store_dir)
    caps = config.caps
    assert (caps.goals, caps.next_actions, caps.decisions) == (4, 8, 10)
    assert config.caps_note == (
        "caps: 4/8/5/10 — JavaScript memoir's where [caps] in memoir-tui.toml does not set "
        "them (its files are in this store)"
    )
    (store_dir / "memoir-tui.toml").write_text(
        "[caps]\ngoals = 4\nnext_actions = 9\nopen_questions = 6\ndecisions = 11\n"
    )
    config = load_config(store_dir)
    assert config.caps_source == "config"
    assert (config.caps.goals, config.caps.decisions) == (4, 11)
    assert "set by [caps]" in config.caps_note


def test_status_and_config_show_say_which_caps_and_why(store_dir: Path) -> None:
    plain = run("status", store=store_dir)
    assert plain.returncode == 0, plain.stderr
    assert "caps: memoir-tui's defaults (5/20/10/50)" in plain.stdout
    (store_dir / "events.jsonl").write_text("")
    status = run("status", store=store_dir)
    assert JS_NOTE in status.stdout
    shown = run("config", "show", store=store_dir)
    assert JS_NOTE in shown.stdout and "events.jsonl" in shown.stdout
    assert "goals = 3" in shown.stdout and "decisions = 10" in shown.stdout


async def test_mcp_status_says_which_caps_and_why(store_dir: Path) -> None:
    from mcp import Client

    from memoir_tui.mcp.server import build_server

    (store_dir / "config.json").write_text("{}")
    async with Client(build_server(store_dir)) as client:
        result = await client.call_tool("memoir_status", {})
    assert result.structured_content["caps"]["goals"] == 3
    assert "Caps: JavaScript memoir's (3/8/5/10)" in result.content[0].text


def test_what_the_javascript_caps_push_past_the_live_list_is_archived_not_lost(
    store_dir: Path,
) -> None:
    (store_dir / "config.json").write_text("{}")
    store = Memoir(store_dir, machine_label="test-machine")
    for n in range(4):
        store.add_goal(f"goal number {n}")
    for n in range(11):
        store.note_decision(f"decision number {n}")
    ws = store.working_set()
    assert len(ws.goals) == 3 and len(ws.decisions) == 10
    # Past the caps an item is archived, as today's memoir does: shown, reachable, kept.
    assert [g.text for g in ws.archived_goals] == ["goal number 0"]
    assert [d.text for d in ws.archived_decisions] == ["decision number 0"]
    assert ws.completed_goals == () and ws.rotated_decisions == ()
    on_disk = json.loads((store_dir / "session.json").read_text())["current"]
    assert [g["text"] for g in on_disk["archived_goals"]] == ["goal number 0"]
    assert store.find_decision("decision number 0").place == "archived"


def test_a_merge_under_the_javascript_caps_parks_and_archives_what_it_pushes_out(
    store_dir: Path, tmp_path: Path
) -> None:
    mine = Memoir(store_dir, machine_label="test-machine")
    for n in range(9):
        mine.add_next_action(f"action number {n}")
    for n in range(12):
        mine.note_decision(f"choice number {n}")
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps(
            {
                "version": 1,
                "current": {
                    "next_actions": [{"text": "theirs", "added": "2030-01-01T00:00:00.000Z"}]
                },
            }
        )
    )
    (store_dir / "config.json").write_text("{}")  # now the JavaScript tool shares it
    session = store_dir / "session.json"
    proc = run("merge", str(session), str(other), "-o", str(session), store=store_dir)
    assert proc.returncode == 0, proc.stderr
    ws = Memoir(store_dir).working_set()
    live = {i.text for i in ws.next_actions}
    assert len(live) == 8 and "theirs" in live
    # What the caps push past the live list is parked or archived, never dropped.
    assert {i.text for i in ws.parked_actions} == {"action number 0", "action number 1"}
    assert all(i.place == "parked" for i in ws.parked_actions)
    assert len(ws.decisions) == 10
    assert {d.text for d in ws.archived_decisions} == {"choice number 0", "choice number 1"}
