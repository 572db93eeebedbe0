"""Fixtures of the app tests; the helpers they use are in tests/app/helpers.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoir_tui.core.workflows.memoir import Memoir
from tests.app.helpers import demo_store_in
from tests.app.tmux import Tmux
from tests.app.world import AppWorld, build_world


@pytest.fixture
def demo_store(tmp_path: Path) -> Memoir:
    """A fresh copy of the shipped demo store (work-laptop, the July clock, actor app)."""
    return demo_store_in(tmp_path)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppWorld:
    """The scratch home of tests/app/world.py, with HOME pointing at it."""
    return build_world(tmp_path, monkeypatch)


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """A private tmux server (``tests/app/tmux.py``), killed after the test."""
    t = Tmux(f"memoir-test-{uuid.uuid4().hex[:8]}", "memoir")
    yield t
    # Only our private server: ends the session we started and nothing else.
    t.run("kill-server", check=False)
