"""End to end: three machines, one bare remote, real git, plain and encrypted."""

from __future__ import annotations

import pytest

from memoir_tui.core.sync import sync_status

from .helpers import all_git_objects, log_all, make_machines, tree_bytes, write_entry

PURGED = "Store API keys in the wiki page"
PURGED_WHY = "everyone can find them there"


def _sync_all(*machines, rounds: int = 2) -> None:
    for _ in range(rounds):
        for m in machines:
            m.sync()


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
def test_three_machines_converge_and_tombstones_stick(tmp_path, encrypted):
    a, b, c = make_machines(tmp_path, "ABC", encrypted=encrypted)

    # Independent additions on all three.
    a.store.add_goal("ship sync")
    a.store.add_next_action("ship it")
    a.store.note_decision("Use git as the transport", why="users trust it")
    a.store.note_decision(PURGED, why=PURGED_WHY)
    write_entry(a.root, "fact_from-a", "A knows this")
    b.store.add_goal("write the pane")
    b.store.add_next_action("write docs")
    b.store.note_decision("Hide means forever", why="format rule")
    write_entry(b.root, "fact_from-b", "B knows this")
    c.store.ask_question("how big can a store get?")
    c.store.note_decision("Encrypt with AES-GCM")
    write_entry(c.root, "fact_from-c", "C knows this")
    _sync_all(a, b, c)
    assert a.view() == b.view() == c.view()
    view = a.view()
    assert {"ship sync", "write the pane"} <= set(view["goals"])
    assert {"ship it", "write docs"} <= set(view["next_actions"])
    assert set(view["entries"]) == {"fact_from-a.md", "fact_from-b.md", "fact_from-c.md"}
    assert PURGED in view["decisions"]

    # C goes offline holding the old copy. A hides a decision and completes both actions.
    hidden_key = a.store.resolve_decision("Hide means forever").key
    a.store.hide_decision(hidden_key)
    a.store.complete_next_action("ship it")
    a.store.complete_next_action("write docs")
    a.sync()
    b.sync()
    # B re-adds an action after its completion: a deliberate revival.
    b.store.add_next_action("write docs")
    b.sync()
    # Twenty changes while C is away.
    for i in range(20):
        m = (a, b)[i % 2]
        m.store.ask_question(f"question {i}") if i % 3 else m.store.add_goal(f"goal {i}")
        if i % 4 == 0:
            m.sync()
    # A purges a decision.
    purge_key = a.store.resolve_decision(PURGED).key
    a.store.purge_decision(purge_key)
    a.sync()
    b.sync()

    # C still holds everything as it was, and changes something of its own.
    c_view = c.view()
    assert "Hide means forever" in c_view["decisions"] and "ship it" in c_view["next_actions"]
    assert PURGED in c_view["decisions"]
    c.store.add_goal("goal from the offline machine")
    # C even edits the decision A hid: a newer copy must not bring it back.
    c.store.note_decision("Hide means forever", why="C changed the reason later")
    c.sync()
    _sync_all(a, b, c)

    views = [m.view() for m in (a, b, c)]
    assert views[0] == views[1] == views[2]
    final = views[0]
    assert "Hide means forever" not in final["decisions"]
    assert (hidden_key, False) in final["tombstones"]
    assert "ship it" not in final["next_actions"]
    assert "write docs" in final["next_actions"]
    assert (purge_key, True) in final["tombstones"]
    assert PURGED not in final["decisions"]
    assert "goal from the offline machine" in final["goals"]
    assert "question 19" in final["questions"]  # the newest survive the visible caps

    # Purge means gone: not in any file of any store or sync copy, nor any object, nor history.
    needles = (PURGED.encode(), PURGED_WHY.encode(), PURGED.lower().encode())
    for m in (a, b, c):
        for root in (m.root, m.work):
            for rel, data in tree_bytes(root).items():
                assert not any(n in data for n in needles), (m.name, root, rel)
        repo = m.work / "repo.git"
        objects = all_git_objects(repo)
        assert not any(n in objects for n in needles), m.name
        assert not any(n in log_all(repo) for n in needles), m.name
    assert not any(n in log_all(a.remote) for n in needles)

    if encrypted:
        # Only ciphertext reached the remote: no text of any kind, in any object.
        objects = all_git_objects(a.remote)
        for text in (b"ship sync", b"Use git as the transport", b"A knows this", b"question 1"):
            assert text not in objects
        for m in (a, b, c):  # commit metadata names no machine either
            assert m.store.machine.id.encode() not in objects

    # Everyone knows everyone.
    status = sync_status(c.store)
    assert {m.label for m in status.machines} == {"A", "B", "C"}
    assert status.last_ok and status.ahead == 0 and not status.local_changes
    assert status.encrypted is encrypted


def test_a_sync_with_nothing_new_pushes_nothing(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    a.store.add_goal("one")
    _sync_all(a, b)
    before = a.sync()
    assert not before.pushed and before.message.startswith("up to date")
    assert not b.sync().pushed


def test_entry_files_newer_wins_and_done_at_is_sticky(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    write_entry(a.root, "fact_shared", "old words", updated="2026-01-01")
    _sync_all(a, b)
    write_entry(b.root, "fact_shared", "new words", updated="2026-02-01")
    (a.root / "memory" / "next_action_ship.md").write_text(
        "---\ntype: next_action\nname: ship\nadded: 2026-01-01\n---\nship\n"
    )
    _sync_all(a, b)
    (b.root / "memory" / "next_action_ship.md").write_text(
        "---\ntype: next_action\nname: ship\nadded: 2026-01-01\ndone_at: 2026-01-05\n---\nship\n"
    )
    b.sync()
    # A edits its (older) copy later without seeing the completion.
    (a.root / "memory" / "next_action_ship.md").write_text(
        "---\ntype: next_action\nname: ship\nadded: 2026-01-01\nupdated: 2026-03-01\n---\nship!\n"
    )
    _sync_all(a, b)
    assert a.view()["entries"] == b.view()["entries"]
    entries = a.view()["entries"]
    assert b"new words" in entries["fact_shared.md"]
    assert b"done_at: 2026-01-05" in entries["next_action_ship.md"]
