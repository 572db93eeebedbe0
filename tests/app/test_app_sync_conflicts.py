"""The Sync pane names the conflict copies the last merge kept (real git, two machines)."""

from __future__ import annotations

from rich.console import Console

from memoir_tui.core.sync import sync_status
from memoir_tui.panes.sync import status_grid
from tests.sync.helpers import make_machines, write_entry

COLOURS = {"text-success": "green", "text-error": "red", "text-warning": "yellow"}


def _render(renderable) -> str:
    console = Console(width=400, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_the_sync_pane_lists_the_conflict_copies(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    write_entry(a.root, "fact_db", "We use Postgres")
    a.sync()
    b.sync()
    write_entry(a.root, "fact_db", "We use Postgres 16", updated="2026-03-01")
    write_entry(b.root, "fact_db", "We use Postgres on RDS", updated="2026-02-01")
    a.sync()
    copy = b.sync().merge.conflict_copies[0]
    text = _render(status_grid(sync_status(b.store), COLOURS))
    line = next(ln for ln in text.splitlines() if "Conflicts" in ln)
    assert "both kept" in line and copy in line
    # a merge without conflicts has no such row
    text = _render(status_grid(sync_status(a.store), COLOURS))
    assert "Conflicts" not in text
