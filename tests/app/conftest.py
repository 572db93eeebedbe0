"""Fixtures of the app tests; the helpers they use are in tests/app/helpers.py."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.core.workflows.memoir import Memoir
from tests.app.helpers import demo_store_in
from tests.app.tmux import Tmux
from tests.app.world import World, build_world


@pytest.fixture(autouse=True)
def _every_notification_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each app keeps every message it notified in ``shown_messages`` (read by
    ``helpers.messages``): Textual drops a toast once its timeout has passed on the
    wall clock, so on a slow machine a test reading the toasts could miss one."""
    from memoir_tui.app import MemoirApp

    notify = MemoirApp.notify

    def keeping(self: MemoirApp, message: str, *args: Any, **kwargs: Any) -> None:
        self.__dict__.setdefault("shown_messages", []).append(message)
        notify(self, message, *args, **kwargs)

    monkeypatch.setattr(MemoirApp, "notify", keeping)


@pytest.fixture
def demo_store(tmp_path: Path) -> Memoir:
    """A fresh copy of the shipped demo store (work-laptop, the July clock, actor app)."""
    return demo_store_in(tmp_path)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """The scratch home of tests/app/world.py, with HOME pointing at it."""
    return build_world(tmp_path, monkeypatch)


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    """A private tmux server (``tests/app/tmux.py``), killed after the test."""
    t = Tmux(f"memoir-test-{uuid.uuid4().hex[:8]}", "memoir")
    yield t
    # Only our private server: ends the session we started and nothing else.
    t.run("kill-server", check=False)
