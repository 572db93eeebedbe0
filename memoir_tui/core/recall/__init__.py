"""Recall: one fast ranked search over the store and every host tool's memory files.

Public API (see ``service``): ``Recall``, ``Hit``, ``EntryInfo``, ``IndexStatus``.
Importing this package is cheap; SQLite and YAML load on first use.
"""

from __future__ import annotations

from memoir_tui.core.recall.service import EntryInfo, Hit, IndexStatus, Recall

__all__ = ["EntryInfo", "Hit", "IndexStatus", "Recall"]
