"""Recall leaves out what today's memoir treats as gone (FORMAT-LATEST §10): superseded,
deleted, expired, and hidden on any type of entry, as the brief and inject do for session
items (all through ``scope.is_gone``/``is_visible``)."""

from __future__ import annotations

import pytest

from memoir_tui.core.format.items import empty_session
from memoir_tui.core.rules.model import working_set
from tests.recall.conftest import entry, write

GONE = {
    "superseded": {"status": "superseded"},
    "superseded_by": {"superseded_by": "fact_newer"},
    "deleted": {"deleted": "true"},  # YAML reads it as True
    "status_deleted": {"status": "deleted"},
    "expired": {"valid_until": "2020-01-01"},
    "hidden_fact": {"hidden": "true"},
}


@pytest.mark.parametrize("name", sorted(GONE))
def test_a_gone_entry_is_never_recalled(world, name: str) -> None:
    memory = world.store_dir / "memory"
    write(memory / "fact_live.md", entry("fact", "Live", "The pelican nests on cliffs.\n"))
    write(
        memory / f"fact_{name}.md",
        entry("fact", name, "The pelican migrated south.\n", **GONE[name]),
    )
    with world.recall() as recall:
        names = [hit.name for hit in recall.search("pelican", all_projects=True)]
    assert names == ["Live"]


def test_gone_session_items_never_reach_a_view() -> None:
    state = empty_session()
    base = {"set_on": "2026-01-01T00:00:00.000Z"}
    state["current"]["goals"] = [
        {"text": "kept", **base},
        {"text": "superseded", "status": "superseded", **base},
        {"text": "replaced", "superseded_by": "kept", **base},
        {"text": "deleted", "deleted": True, **base},
        {"text": "hidden as a string", "hidden": "true", **base},
        {"text": "expired", "valid_until": "2020-01-01T00:00:00.000Z", **base},
    ]
    assert [g.text for g in working_set(state).goals] == ["kept"]
