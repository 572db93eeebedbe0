"""Shared helpers for the capture and review tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "transcripts" / "projects"
SHARED_TRANSCRIPTS = ROOT.parent / "shared" / "transcripts"

SHOP_SESSION = "5f1c0de0-0000-4000-8000-000000000001"
LEGACY_SESSION = "7e3d0a11-0000-4000-8000-000000000002"

# What the fixtures must yield (text, source), and texts that must never appear.
EXPECTED = {
    ("We'll use SQLite for local storage instead of Postgres.", "user"),
    ("We're going with SQLite because the app is single-user.", "assistant"),
    ("From now on, run the linter before every commit.", "user"),
    ("Understood: the linter runs before every commit from now on.", "assistant"),
    ("Renamed the `users` table to `accounts` as agreed.", "assistant"),
    ("We decided to use DuckDB for analytics.", "user"),
    ("We'll use ruff for linting", "assistant"),
    ("Let's go with pnpm instead of npm for this repo.", "user"),
    ("From now on, use tabs for indentation in Makefiles.", "user"),
    ("We chose FastAPI over Flask for the API layer.", "assistant"),
}
# Words that only occur in text that must never become a candidate: tool results,
# meta records, command wrappers, system reminders, abandoned branches, compaction
# summaries, summary titles, fragments, and every subagent/compaction transcript.
FORBIDDEN_WORDS = (
    "MongoDB",
    "Oracle",
    "admin password",
    "meta text",
    "Docker",
    "pnpm everywhere",
    "Cobol",
    "MySQL",
    "Kafka",
    "Redis",
    "Glob",
    "make instead",
    "Go for the worker",
    "tabs.",
    "Elixir",
    "CockroachDB",
    "Haskell",
    "Cassandra",
)


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    """A private copy of the fixture projects directory (tests may append to it)."""
    dest = tmp_path / "projects"
    shutil.copytree(FIXTURES, dest)
    return dest


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def queue_items(store_dir: Path) -> list[dict[str, Any]]:
    path = store_dir / "review.json"
    return read_json(path)["items"] if path.exists() else []


def write_jsonl(path: Path, records: list[dict[str, Any]], *, newline_at_end: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(json.dumps(r) for r in records)
    path.write_text(body + ("\n" if newline_at_end else ""), encoding="utf-8")


def record(
    uuid: str,
    parent: str | None,
    kind: str,
    content: Any,
    *,
    session: str = "c0ffee00-0000-4000-8000-000000000009",
    cwd: str = "/home/dev/notes",
    ts: str = "2026-03-02T09:00:00.000Z",
    message_id: str = "",
    **extra: Any,
) -> dict[str, Any]:
    """A minimal user/assistant record in the v2 envelope."""
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=message_id or f"msg_{uuid}", type="message", model="m")
    out = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.1.40",
        "type": kind,
        "message": message,
        "uuid": uuid,
        "timestamp": ts,
    }
    out.update(extra)
    return out
