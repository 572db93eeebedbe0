"""``DamageBanner``: a store file the app could not take at its word, said until it is fixed.

A garbage ``session.json``, one of the wrong shape, one from a newer format,
or an unreadable ``review.json`` would otherwise look like an empty store.
The banner stays (it is not a toast) while the damage is on disk, names the
file, says where its original bytes are and what the app will and will not do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widgets import Static

from memoir_tui.core import MISSHAPEN, NEWER_VERSION, NOT_REGULAR, UNREADABLE, LoadedSession
from memoir_tui.ui.fields import home_relative
from memoir_tui.ui.latest_read import LatestRead

if TYPE_CHECKING:
    from memoir_tui.core import Memoir


def session_damage(loaded: LoadedSession) -> str:
    """One paragraph on what is wrong with ``session.json``; "" when nothing is."""
    name = home_relative(str(loaded.path))
    kept = (
        f"its original bytes are kept in {home_relative(str(loaded.backup))}"
        if loaded.backup
        else "its original bytes are left as they are"
    )
    if loaded.damage == UNREADABLE:
        return (
            f"{name} could not be parsed, so the working set below is empty; {kept}. "
            "Your next change writes a new session.json (the copy stays)."
        )
    if loaded.damage == MISSHAPEN:
        return (
            f"{name} has parts of the wrong shape, shown here as empty; {kept}. "
            "Your next change rewrites it without those parts (the copy stays)."
        )
    if loaded.damage == NOT_REGULAR:
        return (
            f"READ-ONLY: {name} is not a regular file (a FIFO, a device or a link out of "
            "the store), so it is not read and every change is refused; replace it with a "
            "regular file."
        )
    if loaded.damage == NEWER_VERSION:
        return (
            f"READ-ONLY: {name} is from a newer memoir format; this app shows what it "
            f"understands and refuses every change; {kept}. Upgrade memoir-tui to write to it."
        )
    return ""


@dataclass(frozen=True, slots=True)
class _ReviewState:
    text: str  # what is wrong with the queue file, "" when nothing is
    waiting: int  # candidates waiting for a person


class DamageBanner(Static):
    """Shown only while a store file is damaged; no key bindings."""

    DEFAULT_CSS = """
    DamageBanner {
        display: none;
        height: auto;
        max-height: 6;
        width: 1fr;
        padding: 0 1;
        background: $error 30%;
        color: $text;
        border-left: thick $error;
    }
    DamageBanner.-damaged {
        display: block;
    }
    """

    def __init__(self, *, on_waiting: Callable[[int], object] | None = None) -> None:
        """``on_waiting`` hears how many candidates wait, from the same read of the queue."""
        super().__init__("", id="damage-banner", markup=False)
        self._session = ""
        self._review = ""
        self._shown = ""  # the text on screen: the same text again is not laid out again
        self._on_waiting = on_waiting
        self._review_read: LatestRead[_ReviewState] = LatestRead(
            self, "review-state", self._review_read_done
        )

    @property
    def text(self) -> str:
        return "\n".join(t for t in (self._session, self._review) if t)

    def show_session(self, loaded: LoadedSession) -> None:
        self._session = session_damage(loaded)
        self._show()

    def check_review(self, store: Memoir) -> None:
        """Read the review queue once, off the UI thread: its damage, and what waits in
        the scope the header names (this project's and global candidates, or all)."""
        project = None if getattr(self.app, "all_projects", True) else store.project

        def read() -> _ReviewState:
            # Imported here, in the worker: the review core is not needed for the first paint.
            from memoir_tui.core import waiting_count

            loaded = store.review.load()
            text = ""
            if loaded.damaged or loaded.read_only:
                text = (
                    f"Review queue: {loaded.notice}. The Review pane shows no candidates "
                    "until it is fixed; nothing is deleted."
                )
            return _ReviewState(text, waiting_count(loaded, project=project))

        self._review_read.start(read)

    def _review_read_done(self, state: _ReviewState) -> None:
        self._review = state.text
        self._show()
        if self._on_waiting is not None:
            self._on_waiting(state.waiting)

    def _show(self) -> None:
        text = self.text
        if text == self._shown:
            return
        self._shown = text
        self.update(text)
        self.set_class(bool(text), "-damaged")
