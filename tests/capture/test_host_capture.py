"""Capture from Codex (``Stop`` + its rollout) and Gemini CLI (``AfterAgent`` and the
``SessionEnd``/``PreCompress`` flush of its chat recording), through the real CLI.

Fixtures are written in each host's own format (docs/HOSTS.md): Codex rollout
lines ``{"timestamp", "type", "payload"}`` with ``session_meta``,
``response_item`` (injected context, our brief among it) and ``event_msg``
``user_message``/``agent_message``; Gemini's JSONL recording with a metadata
line, message records upserted by ``id`` and a ``$rewindTo``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.capture.hosts import fold_gemini_chat
from tests.hooks.helpers import make_world
from tests.world import World

SESSION = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
DECIDED = "We decided to use Postgres for the importer because we need transactions."
BRIEF_DECISION = "We decided to use Redis for the cache because it is already deployed."


@pytest.fixture
def world(tmp_path: Path) -> World:
    w = make_world(tmp_path)
    assert w.cli("goal", "Ship the CSV importer").returncode == 0
    return w


def _queue(w: World) -> list[dict[str, Any]]:
    path = w.store_dir / "review.json"
    return json.loads(path.read_text())["items"] if path.exists() else []


def _line(kind: str, payload: dict[str, Any], ts: str) -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}) + "\n"


def _codex_rollout(w: World) -> Path:
    day = w.home / ".codex" / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-01-02T10-00-00-{SESSION}.jsonl"
    brief = f'<memoir-brief project="app">\nDecisions:\n- {BRIEF_DECISION}\n</memoir-brief>'
    path.write_text(
        _line(
            "session_meta",
            {"id": SESSION, "timestamp": "2026-01-02T10:00:00.000Z", "cwd": str(w.project)},
            "2026-01-02T10:00:00.000Z",
        )
        + _line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": f"<user_instructions>\n{brief}"}],
            },
            "2026-01-02T10:00:00.100Z",
        )
        + _line("turn_context", {"cwd": str(w.project), "model": "gpt-5"}, "2026-01-02T10:00:01Z")
        + _line(
            "event_msg",
            {"type": "user_message", "message": "Which database for the importer?", "images": []},
            "2026-01-02T10:00:02.000Z",
        )
        + _line(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": DECIDED}],
            },
            "2026-01-02T10:00:05.000Z",
        )
        + _line("event_msg", {"type": "agent_message", "message": DECIDED}, "2026-01-02T10:00:05Z")
    )
    return path


def test_codex_stop_queues_a_decision_once_with_provenance_and_never_our_brief(
    world: World,
) -> None:
    rollout = _codex_rollout(world)
    event = {
        "session_id": SESSION,
        "transcript_path": str(rollout),
        "cwd": str(world.project),
        "hook_event_name": "Stop",
        "turn_id": "1",
        "last_assistant_message": DECIDED,
    }
    for _ in range(2):
        done = world.hook("stop", event, host="codex")
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    queue = _queue(world)
    texts = [i["text"] for i in queue]
    assert sum("Postgres" in t for t in texts) == 1, texts
    assert not any("Redis" in t for t in texts), texts
    [item] = [i for i in queue if "Postgres" in i["text"]]
    assert item["tool"] == "codex" and item["session_id"] == SESSION
    assert item["transcript"] == str(rollout) and item["source"] == "assistant"


def _gemini_chat(w: World) -> Path:
    chats = w.home / ".gemini" / "tmp" / "4f2c9a" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-01-02T10-00-4f2c9a1b.jsonl"
    lines = [
        {"sessionId": SESSION, "projectHash": "4f2c9a", "startTime": "2026-01-02T10:00:00Z"},
        {"id": "m1", "timestamp": "2026-01-02T10:00:01Z", "type": "user", "content": "Which db?"},
        {"id": "m2", "timestamp": "2026-01-02T10:00:02Z", "type": "gemini", "content": ""},
        {"id": "m2", "timestamp": "2026-01-02T10:00:03Z", "type": "gemini", "content": DECIDED},
        {"id": "m3", "timestamp": "2026-01-02T10:00:04Z", "type": "user", "content": "hmm"},
        {
            "id": "m4",
            "timestamp": "2026-01-02T10:00:05Z",
            "type": "gemini",
            "content": "We decided to use MongoDB for the importer because it was trendy.",
        },
        {"$rewindTo": "m3"},
        {"$set": {"lastUpdated": "2026-01-02T10:00:06Z"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_the_gemini_fold_keeps_the_last_write_and_honours_the_rewind(world: World) -> None:
    folded = fold_gemini_chat(
        json.loads(line) for line in _gemini_chat(world).read_text().splitlines()
    )
    assert [(m["id"], m["content"]) for m in folded] == [("m1", "Which db?"), ("m2", DECIDED)]


def test_gemini_after_agent_and_the_flush_queue_a_decision_once(world: World) -> None:
    chat = _gemini_chat(world)
    turn = {
        "session_id": SESSION,
        "transcript_path": str(chat),
        "cwd": str(world.project),
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-01-02T10:00:03Z",
        "prompt": "Which db?",
        "prompt_response": DECIDED,
        "stop_hook_active": False,
    }
    for _ in range(2):
        done = world.hook("stop", turn, host="gemini")
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    for name, verb in (("PreCompress", "pre-compact"), ("SessionEnd", "session-end")):
        flush = {**turn, "hook_event_name": name}
        del flush["prompt"], flush["prompt_response"]
        done = world.hook(verb, flush, host="gemini")
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    queue = _queue(world)
    texts = [i["text"] for i in queue]
    assert sum("Postgres" in t for t in texts) == 1, texts
    assert not any("MongoDB" in t for t in texts), texts  # rewound away
    [item] = [i for i in queue if "Postgres" in i["text"]]
    assert item["tool"] == "gemini" and item["session_id"] == SESSION


def test_install_hooks_codex_and_gemini_install_capture(world: World) -> None:
    assert world.cli("install-hooks", "codex").returncode == 0
    assert world.cli("install-hooks", "gemini").returncode == 0
    codex = json.loads((world.home / ".codex" / "hooks.json").read_text())["hooks"]
    gemini = json.loads((world.home / ".gemini" / "settings.json").read_text())["hooks"]
    assert "hook stop --host codex" in codex["Stop"][0]["hooks"][0]["command"]
    for event, verb in (
        ("AfterAgent", "stop"),
        ("PreCompress", "pre-compact"),
        ("SessionEnd", "session-end"),
    ):
        assert f"hook {verb} --host gemini" in gemini[event][0]["hooks"][0]["command"]
    assert "matcher" not in gemini["SessionStart"][0]
