"""Tabs that stay on screen at any width."""

from __future__ import annotations

from textual import on
from textual.widgets import Tab, TabbedContent, Tabs

TAB_GUTTER = 2
"""Columns a tab adds around its label (Textual's ``Tab`` has ``padding: 0 1``)."""


class PaneTabs(TabbedContent):
    """A ``TabbedContent`` whose tabs shrink to their first word when they do not fit.

    The shell's eleven named tabs need 125 columns; on a narrower terminal the
    last ones would scroll out of sight. Then every tab but the active one
    shows only the first word of its label (the shell's labels start with the
    pane's number key: ``"8 Sync"`` → ``"8"``), so all stay visible.
    It has no bindings of its own.
    """

    def __init__(self, *, initial: str = "", id: str | None = None) -> None:
        super().__init__(initial=initial, id=id)
        self._named: dict[Tab, str] = {}
        self._badges: dict[str, str] = {}

    def set_badge(self, pane_id: str, badge: str) -> None:
        """Show ``badge`` (a count) after the tab's name, even when it shrinks to its number."""
        if self._badges.get(pane_id, "") != badge:
            self._badges[pane_id] = badge
            self.fit_labels()

    def badge(self, pane_id: str) -> str:
        """The count shown after a tab's name ("" if none)."""
        return self._badges.get(pane_id, "")

    def on_resize(self) -> None:
        self.fit_labels()

    @on(TabbedContent.TabActivated)
    def _active_tab_named(self) -> None:
        self.fit_labels()  # the message goes on up to the app as well

    def fit_labels(self) -> None:
        """Name every tab when all fit; else name only the active one."""
        width = self.size.width
        tab_strip = self.query(Tabs).first(Tabs) if self.is_mounted else None
        if not width or tab_strip is None:
            return
        for tab in tab_strip.query(Tab):
            self._named.setdefault(tab, tab.label_text)
        # The last tab's right padding may fall off the edge: it is blank.
        needed = sum(len(label) + TAB_GUTTER for label in self._named.values()) - 1
        fits = needed <= width
        active = tab_strip.active_tab
        for tab, label in self._named.items():
            wanted = label if fits or tab is active else (label.split() or [label])[0]
            badge = self._badges.get(self._pane_id(tab), "")
            if badge:
                wanted += f" · {badge}" if wanted == label else f"·{badge}"
            if tab.label_text != wanted:
                tab.label = wanted

    @staticmethod
    def _pane_id(tab: Tab) -> str:
        # TabbedContent names each tab after its pane: "--content-tab-<pane id>".
        return (tab.id or "").removeprefix("--content-tab-")
