"""Projects you can tell apart: one short label per project, the same on every pane and
in the header, in columns as wide as the labels need — at 80 columns too. With the
SVG snapshots of a pane with similar projects and of the news banner (100×30, 80×24);
regenerate with ``--snapshot-update``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from memoir_tui.app import MemoirApp
from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.panes.decisions import DecisionsPane
from memoir_tui.panes.review import ReviewPane
from memoir_tui.panes.working_set import WorkingSetPane
from memoir_tui.widgets.item_table import ItemTable
from memoir_tui.widgets.news_banner import NewsBanner
from memoir_tui.widgets.pane_tabs import PaneTabs
from memoir_tui.widgets.store_bar import StoreBar
from tests.app.helpers import make_app, open_pane, pressing, settle
from tests.conftest import JulyClock

MACHINE = "5d1c7a20-0b8e-4c55-9a3e-7f21d6c0b9aa"
HERE = "git:" + "a" * 32
PROJECTS = {
    HERE: "github.com/acme/tideline-web",
    "git:" + "b" * 32: "github.com/other/tideline-web",
    "git:" + "c" * 32: "github.com/acme/tideline-web-admin",
}
LABELS = {
    HERE: "acme/tideline-web",
    "git:" + "b" * 32: "other/tideline-web",
    "git:" + "c" * 32: "tideline-web-admin",
}
SIZES = [(100, 30), (80, 24)]
size_ids = [f"{w}x{h}" for w, h in SIZES]


def _decision(n: int, project: str) -> dict[str, Any]:
    return {
        "text": f"Decision {n} for {LABELS[project]}",
        "why": "measured",
        "machine_id": MACHINE,
        "date": f"2026-06-{10 + n:02d}T10:00:00.000Z",
        "project": project,
        "project_label": PROJECTS[project],
    }


def similar_projects(tmp_path: Path) -> Memoir:
    """A store with decisions in three projects whose labels share a prefix, opened
    inside the first."""
    root = tmp_path / "store"
    root.mkdir()
    decisions = [_decision(n, p) for n, p in enumerate(PROJECTS)]
    decisions.append({**_decision(5, HERE), "text": "Global: keep the changelog by hand"})
    del decisions[-1]["project"], decisions[-1]["project_label"]
    session = {
        "version": 1,
        "created_at": "2026-03-02T09:14:05.120Z",
        "updated_at": "2026-07-01T00:00:00.000Z",
        "machines": {MACHINE: {"label": "laptop", "last_seen": "2026-07-01T00:00:00.000Z"}},
        "current": {
            "goals": [],
            "next_actions": [
                {
                    "text": "Ship the admin export",
                    "added": "2026-06-20T10:00:00.000Z",
                    "machine_id": MACHINE,
                    "project": "git:" + "c" * 32,
                    "project_label": PROJECTS["git:" + "c" * 32],
                }
            ],
            "completed_actions": [],
            "open_questions": [],
            "decisions": decisions,
        },
        "history": [],
    }
    (root / "session.json").write_text(json.dumps(session))
    return Memoir(
        root,
        clock=JulyClock(),
        machine_label="laptop",
        actor="app",
        project=HERE,
        project_label=PROJECTS[HERE],
    )


def _project_cells(table: ItemTable) -> list[str]:
    index = [c.value for c in table.columns].index("project")
    return [str(table.get_row_at(i)[index]) for i in range(table.row_count)]


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
async def test_similar_projects_are_told_apart_in_every_pane(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    store = similar_projects(tmp_path)
    app = make_app(store)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.query_one(StoreBar).scope.startswith("project: acme/tideline-web")
        await pilot.press("A")
        await settle(pilot)
        assert app.query_one(StoreBar).scope == "all projects · this one: acme/tideline-web"

        pane = await open_pane(pilot, DecisionsPane)
        table = pane.table
        shown = _project_cells(table)
        assert set(shown) == {*LABELS.values(), "global"}
        # The column is as wide as its widest label: nothing is cut.
        width = table.columns["project"].width  # type: ignore[index]
        assert width == max(len(label) for label in LABELS.values())
        # … and the same labels on the working set.
        ws = await open_pane(pilot, WorkingSetPane, focus_table=False)
        actions = ws.query_one("#next-actions", ItemTable)
        assert _project_cells(actions) == ["tideline-web-admin"]


async def test_review_is_scoped_by_A_and_filtered_by_project(tmp_path: Path) -> None:
    store = similar_projects(tmp_path)
    for project, text in [
        (HERE, "Use Vite for the web build"),
        ("git:" + "c" * 32, "Use Vite for the admin build"),
        ("", "Prefer small commits everywhere"),
    ]:
        candidate = {"text": text, "source": "transcript"}
        if project:
            candidate |= {"project": project, "project_label": PROJECTS[project]}
        store.review.enqueue([candidate])
    app = make_app(store)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = await open_pane(pilot, ReviewPane)

        def texts() -> list[str]:
            return [i.text for i in pane.visible_items()]

        # This project's and global candidates only, like every pane; the status says
        # what lies elsewhere.
        assert sorted(texts()) == ["Prefer small commits everywhere", "Use Vite for the web build"]
        assert "1 in other projects · A shows all" in pane.status_text()
        tabs = app.query_one(PaneTabs)
        assert tabs.badge("review") == "2"  # the tab counts the scope the header names
        await pilot.press("A")
        await settle(pilot)
        assert len(texts()) == 3
        assert tabs.badge("review") == "3"
        assert set(_project_cells(pane.table)) == {
            "acme/tideline-web",
            "tideline-web-admin",
            "global",
        }
        # w cycles one project at a time, then global only, then every project again.
        seen = []
        for _ in range(4):
            await pilot.press("w")
            await settle(pilot)
            seen.append(sorted(texts()))
        assert seen == [
            ["Use Vite for the web build"],
            ["Use Vite for the admin build"],
            ["Prefer small commits everywhere"],
            sorted(
                [
                    "Prefer small commits everywhere",
                    "Use Vite for the admin build",
                    "Use Vite for the web build",
                ]
            ),
        ]
        await pilot.press("w")
        await settle(pilot)
        assert "project: acme/tideline-web · w for the next" in pane.status_text()


# --- snapshots -------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_decisions_of_similar_projects_snapshot(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    app: MemoirApp = make_app(similar_projects(tmp_path))
    assert snap_compare(app, terminal_size=size, run_before=pressing("A", "2"))


async def _trim_like_memoir(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, MemoirApp)
    root = app.store.root
    session = json.loads((root / "session.json").read_text())
    session["current"]["decisions"] = session["current"]["decisions"][:10]
    (root / "session.json").write_text(json.dumps(session))
    (root / "events.jsonl").write_text('{"type": "note"}\n')
    app.poll_store()
    await settle(pilot)
    assert app.query_one(NewsBanner).lines


@pytest.mark.parametrize("size", SIZES, ids=size_ids)
def test_news_banner_snapshot(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    root = tmp_path / "store"
    root.mkdir()
    decisions = [
        {
            "text": f"Decision number {n} about the build",
            "machine_id": MACHINE,
            "date": f"2026-06-{1 + n % 28:02d}T{n % 24:02d}:00:00.000Z",
        }
        for n in range(815)
    ]
    session = {
        "version": 1,
        "machines": {MACHINE: {"label": "laptop", "last_seen": "2026-07-01T00:00:00.000Z"}},
        "current": {"decisions": decisions},
        "history": [],
    }
    (root / "session.json").write_text(json.dumps(session))
    (root / "memoir-tui.toml").write_text(
        "[caps]\ngoals = 5\nnext_actions = 20\nopen_questions = 10\ndecisions = 1000\n"
    )
    store = Memoir(root, clock=JulyClock(), machine_label="laptop", actor="app")
    app = make_app(store)
    assert snap_compare(app, terminal_size=size, run_before=pressing(_trim_like_memoir, "2"))
