"""The shell's panes, in tab order, as data: what the first screen needs to know.

The tabs, the number keys and the palette's ``go:`` commands need only a
pane's id, title and area name; its class (and the core modules behind it:
sync, consolidate, inject, …) is imported when the pane is first shown, or
when the help screen or the palette needs its bindings. That keeps those
imports off the path to the first screen.

This module imports neither textual nor any pane (not even for types: the base
imports it, never the other way); adding a pane is adding a :class:`PaneSpec`
here and a :class:`~memoir_tui.panes.base.Pane` subclass whose ``PANE_ID``
names it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PaneSpec:
    """One tab: its id (``app.pane.<id>`` bindings), title, palette area and class."""

    pane_id: str
    title: str
    area: str
    location: str
    """``"module:ClassName"`` of the Pane subclass."""

    @property
    def key(self) -> str:
        """The key that shows this pane: 1 to 9, 0 for the tenth, then ``-`` beside it."""
        return PANE_KEYS[PANES.index(self)]

    @property
    def binding_key(self) -> str:
        """``key`` as Textual names it (``-`` is ``minus``)."""
        return {"-": "minus"}.get(self.key, self.key)

    def load(self) -> type[Any]:
        """Import the pane's class (cheap after the first time); typed as a ``Pane``
        by :func:`memoir_tui.panes.base.load_pane` (this module names no pane type)."""
        module_name, _, class_name = self.location.partition(":")
        pane_class: type[Any] = getattr(importlib.import_module(module_name), class_name)
        return pane_class


PANES: tuple[PaneSpec, ...] = (
    PaneSpec(
        "working-set", "Working set", "working set", "memoir_tui.panes.working_set:WorkingSetPane"
    ),
    PaneSpec("decisions", "Decisions", "decisions", "memoir_tui.panes.decisions:DecisionsPane"),
    PaneSpec("review", "Review", "review", "memoir_tui.panes.review:ReviewPane"),
    PaneSpec("recall", "Recall", "recall", "memoir_tui.panes.recall:RecallPane"),
    PaneSpec("entries", "Entries", "entries", "memoir_tui.panes.entries:EntriesPane"),
    PaneSpec(
        "consolidate",
        "Consolidate",
        "consolidate",
        "memoir_tui.panes.consolidate:ConsolidatePane",
    ),
    PaneSpec("inject", "Inject", "inject", "memoir_tui.panes.inject:InjectPane"),
    PaneSpec("sync", "Sync", "sync", "memoir_tui.panes.sync:SyncPane"),
    PaneSpec("audit", "Audit", "audit", "memoir_tui.panes.audit:AuditPane"),
    PaneSpec("history", "History", "history", "memoir_tui.panes.history:HistoryPane"),
    PaneSpec("agent-view", "Agent view", "agent view", "memoir_tui.panes.agent_view:AgentViewPane"),
)
"""Pane *n* is on number key *n* (the tenth on 0, the eleventh on ``-``)."""

PANE_KEYS = "1234567890-"


def pane_spec(pane_id: str) -> PaneSpec:
    """The registry entry for ``pane_id``; KeyError names the unknown id."""
    for spec in PANES:
        if spec.pane_id == pane_id:
            return spec
    raise KeyError(f"no pane {pane_id!r}; known: {', '.join(s.pane_id for s in PANES)}")
