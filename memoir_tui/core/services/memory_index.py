"""A host's memory index (an adapter's ``write_index``) loses the lines linking a removed file.

Claude Code loads its index at session start and follows its lines
(``- [Title](file.md) — hook``) to the memory files beside it. A file removed
from that folder (forget everywhere) must take its line with it, in the same
commit, or the host keeps loading a dead link that still names the memory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memoir_tui.core.door.transaction import Transaction

# an index line: ``- [Title](file.md) — hook`` (as ``remember`` writes and reads them)
_LINK = re.compile(r"^\s*[-*+]\s+\[(?:[^\]\\]|\\.)*\]\(\s*<?(?:\./)?([^)>\s]+)>?")


def _linked(line: str, link: str) -> bool:
    match = _LINK.match(line)
    return match is not None and match.group(1) == link


def without_links(text: str, link: str) -> tuple[str, int]:
    """``text`` without the index lines linking to ``link``, and how many went."""
    kept: list[str] = []
    dropped = 0
    for line in text.splitlines(keepends=True):
        if _linked(line, link):
            dropped += 1
        else:
            kept.append(line)
    return "".join(kept), dropped


def drop_index_links(tx: Transaction, removed: Path, within: Path | str) -> list[str]:
    """Stage the removal of ``removed``'s lines from the index beside it; receipt lines."""
    from memoir_tui.core.hosts.adapters import ADAPTERS

    out: list[str] = []
    # the hosts' own index names (adapters' ``write_index``: Claude Code's)
    for name in sorted({a.write_index for a in ADAPTERS if a.write_index}):
        index = Path(removed).parent / name
        if index == Path(removed) or not os.path.lexists(index):
            continue
        from memoir_tui.core.base.safeio import LinkOutsideError

        try:
            data = tx.read_bytes(index, within=within)
        except LinkOutsideError:
            out.append(
                f"{index} is a link out of {within}: its line for {Path(removed).name} "
                "was left there (remove it by hand)"
            )
            continue
        if data is None:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new, dropped = without_links(text, Path(removed).name)
        if dropped:
            tx.write_text(index, new, scan=False, within=within)
            out.append(
                f"removed {dropped} line(s) linking to {Path(removed).name} from {index} "
                "(the host would load a dead link)"
            )
    return out
