"""Today's memoir's canonical memories (``<store>/memories/<64 hex>.md``) are listed in
Entries with their revision, project and state, and recalled; a hidden one is neither
(memoir's rule), and forget's hide writes revision + 1 as memoir does."""

from __future__ import annotations

import hashlib
from pathlib import Path

from memoir_tui.panes.entries import EVERY, EntriesPane
from tests.app.helpers import SIZE, open_pane, settle
from tests.app.world import AppWorld

PROJECT = "git:0123456789abcdef0123456789abcdef"


def canonical(name: str, revision: int, body: str, *, hidden: bool = False) -> str:
    extra = ["hidden: true", 'hidden_at: "2026-11-02T10:00:00.000Z"'] if hidden else []
    return "\n".join(
        [
            "---",
            f'id: "{hashlib.sha256(name.encode()).hexdigest()}"',
            f'name: "{name}"',
            'type: "fact"',
            f'project: "{PROJECT}"',
            'updated: "2026-11-01T10:00:00.000Z"',
            f"revision: {revision}",
            *extra,
            "---",
            body,
        ]
    )


def plant(root: Path) -> None:
    memories = root / "memories"
    memories.mkdir()
    for name, rev, body, hidden in (
        ("pinecone", 2, "The pinecone service pins its Node version.", False),
        ("larchwood", 4, "The larchwood cache is retired.", True),
    ):
        memory_id = hashlib.sha256(name.encode()).hexdigest()
        (memories / f"{memory_id}.md").write_text(canonical(name, rev, body, hidden=hidden))


async def test_entries_show_revision_project_and_state_and_recall_finds_it(
    world: AppWorld,
) -> None:
    plant(world.store.root)
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, EntriesPane)
        pane._set_filter(project=EVERY)
        await settle(pilot)
        assert pane.snapshot is not None
        names = {e.name: e for e in pane.snapshot.entries}
        assert "pinecone · r2 · live" in names
        assert names["pinecone · r2 · live"].project == PROJECT
        assert not any(n.startswith("larchwood") for n in names)  # hidden: memoir's rule
    recall = world.source().get()
    hits = recall.search("pinecone", all_projects=True)
    assert hits and hits[0].path.endswith(".md") and "memories" in hits[0].path
    assert not recall.search("larchwood", all_projects=True)


def test_an_edit_writes_the_next_revision_as_memoir_does(store_dir: Path) -> None:
    import pytest

    from memoir_tui.core.format.entry_file import EntryError
    from memoir_tui.core.services.places import parse_canonical
    from memoir_tui.core.workflows.memoir import Memoir

    plant(store_dir)
    store = Memoir(store_dir, actor="app")
    path = store_dir / "memories" / f"{hashlib.sha256(b'pinecone').hexdigest()}.md"
    before = path.read_bytes()
    edit = store.entries.begin_edit(path)
    edit.draft.write_text(before.decode().replace("pins its Node", "pins its Python"))
    assert store.entries.finish_edit(edit).changed
    parsed = parse_canonical(path.read_text())
    assert parsed is not None
    fields, body = parsed
    assert fields["revision"] == 3 and fields["project"] == PROJECT
    assert fields["source_tool"] == "memoir-tui" and fields["verification"] == "unverified"
    assert body == "The pinecone service pins its Python version."
    history = list((store_dir / "memories" / "history" / path.stem).iterdir())
    assert [h.read_bytes() for h in history] == [before]
    hidden = store_dir / "memories" / f"{hashlib.sha256(b'larchwood').hexdigest()}.md"
    edit = store.entries.begin_edit(hidden)
    edit.draft.write_text(hidden.read_text() + "\nmore")
    with pytest.raises(EntryError, match="forgotten") as refused:
        store.entries.finish_edit(edit)
    assert str(edit.draft) in str(refused.value) and edit.draft.exists()  # the edit is kept
    store.entries.discard_edit(edit)  # as the person would, once read
    assert not edit.draft.parent.exists()


async def test_the_recall_pane_scopes_them_by_their_project(world: AppWorld) -> None:
    """A canonical memory carries its project: the pane shows this project's and the
    shared ones, another project's only once ``A`` asks for every project."""
    import json

    from memoir_tui.core.rules.scope import project_identity
    from memoir_tui.panes.recall import RecallPane
    from tests.app.test_app_recall import search

    here = project_identity(world.project, home=world.home).id
    there = project_identity(world.other, home=world.home).id
    memories = world.store.root / "memories"
    memories.mkdir()
    for name, project in (("ours", here), ("theirs", there), ("common", "shared")):
        memory_id = hashlib.sha256(f"{project}\0{name}.md".encode()).hexdigest()
        (memories / f"{memory_id}.md").write_text(
            f'---\nid: "{memory_id}"\nname: "{name}"\ntype: "fact"\n'
            f"project: {json.dumps(project)}\nrevision: 1\n---\nThe zorbex {name} memory.\n"
        )
    app = world.app()
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_pane(pilot, RecallPane)
        await search(pilot, pane, "zorbex")
        assert {h.name: h.project for h in pane.hits} == {"ours": here, "common": "shared"}
        await pilot.press("A")
        await settle(pilot)
        assert {h.name: h.project for h in pane.hits} == {
            "ours": here,
            "theirs": there,
            "common": "shared",
        }
