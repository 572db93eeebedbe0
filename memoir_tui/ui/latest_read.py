"""``LatestRead``: the one way a widget reads off the UI thread.

A pane asks for a read (the review queue, the audit log, a recall search…)
whenever what it shows may be stale, often several times in a row. Each read
runs in a thread worker; only the answer to the *newest* request is applied,
on the UI thread, and only while the widget is still attached and the app is
not closing. Older answers are dropped, whatever order they arrive in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Generic, TypeVar

from textual.widget import Widget

T = TypeVar("T")


class LatestRead(Generic[T]):
    """Runs ``read`` in a thread and hands the newest result to ``apply``.

    ``read`` should turn expected failures into a value (a snapshot with an
    ``error``); anything it raises goes to ``failed`` (by default an error
    notification), and the read counts as finished.
    """

    def __init__(
        self,
        owner: Widget,
        name: str,
        apply: Callable[[T], object],
        *,
        failed: Callable[[str], object] | None = None,
    ) -> None:
        self._owner = owner
        self._name = name
        self._apply = apply
        self._failed = failed
        self._latest = 0
        self._landed = 0

    @property
    def pending(self) -> bool:
        """True from a request until its answer (or a newer one) has been applied."""
        return self._landed < self._latest

    def supersede(self) -> None:
        """Drop every answer still on its way: what to show was decided without a read."""
        self._latest += 1
        self._landed = self._latest

    def start(self, read: Callable[[], T]) -> None:
        self._latest += 1
        request = self._latest
        owner = self._owner

        def run() -> None:
            try:
                result: T = read()
            except Exception as err:
                from memoir_tui.core import shown  # an error may quote a needle

                self._hand_over(request, None, f"{self._name}: {shown(str(err))}")
                return
            self._hand_over(request, result, None)

        owner.run_worker(run, name=self._name, group=self._name, thread=True, exit_on_error=False)

    def _hand_over(self, request: int, result: T | None, error: str | None) -> None:
        # RuntimeError: the app is closing, nobody is left to show it to.
        with contextlib.suppress(RuntimeError):
            self._owner.app.call_from_thread(self._land, request, result, error)

    def _land(self, request: int, result: T | None, error: str | None) -> None:
        if request != self._latest:
            return  # an answer to an older request; a newer one is on its way
        self._landed = request
        owner = self._owner
        if not owner.is_attached or getattr(owner.app, "closing", False):
            return
        if error is not None:
            if self._failed is not None:
                self._failed(error)
            else:
                owner.app.notify(error, severity="error", timeout=8)
            return
        self._apply(result)  # type: ignore[arg-type]  # no error: ``read`` returned a T
