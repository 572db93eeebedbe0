"""Passages: the lines of a document that matched, with a line of context.

Windows of (matched line ± 1) are merged when they touch, chosen best first
(distinct query terms, then hits) until the byte budget is spent, and shown in
document order, separated by ``…``. Frontmatter is never part of a passage:
only lines from the body start onward are considered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoir_tui.core.recall.text import QueryTerm, terms, words

GAP = "…"
DEFAULT_BUDGET = 700


@dataclass(frozen=True, slots=True)
class Passage:
    text: str
    lines: tuple[tuple[int, int], ...]  # 1-based inclusive line ranges of the file shown


def _prefilter(query: Sequence[QueryTerm]) -> re.Pattern[str]:
    """A cheap test a line must pass before it is tokenised: a word starting with a stem.

    Stems are lowercase ASCII-or-folded letters; a word that folds onto a stem starts
    with the stem's first characters, except where ``ies``/``ied`` became ``y``
    (``policies`` → ``policy``), so the last character is left out of the test.
    """
    heads = sorted({t.stem[: max(1, len(t.stem) - 1)] for t in query}, key=len, reverse=True)
    return re.compile(r"(?<![^\W_])(?:" + "|".join(map(re.escape, heads)) + ")", re.IGNORECASE)


def _line_hits(
    line: str, query: Sequence[QueryTerm], test: re.Pattern[str] | None = None
) -> set[int]:
    if test is not None and line.isascii() and not test.search(line):
        return set()
    toks = set(terms(line))
    if not toks:
        return set()
    hits: set[int] = set()
    for i, t in enumerate(query):
        if t.stem in toks or (t.prefix and any(tok.startswith(t.stem) for tok in toks)):
            hits.add(i)
    return hits


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def _clip(text: str, budget: int) -> str:
    """At most ``budget`` bytes of ``text``, cut on a character boundary, with an ellipsis."""
    if _utf8_len(text) <= budget:
        return text
    room = max(budget - _utf8_len(GAP), 0)
    clipped = text.encode("utf-8")[:room].decode("utf-8", "ignore")
    return clipped.rstrip() + GAP if room else ""


def _clip_around(line: str, query: Sequence[QueryTerm], budget: int) -> str:
    """A long line cut to the budget around its first matching word."""
    if _utf8_len(line) <= budget:
        return line
    lowered = line.lower()
    first = len(line)
    for t in query:
        pos = lowered.find(t.stem)
        if 0 <= pos < first:
            first = pos
    start = max(0, first - budget // 4) if first < len(line) else 0
    piece = line[start:]
    prefix = GAP if start else ""
    return prefix + _clip(piece, budget - _utf8_len(prefix))


def extract(
    lines: Sequence[str],
    body_start: int,
    query: Sequence[QueryTerm],
    budget: int = DEFAULT_BUDGET,
) -> Passage:
    """The passage of ``lines`` (a whole file, split) for ``query``, within ``budget`` bytes."""
    budget = max(int(budget), 16)
    n = len(lines)
    hits: dict[int, set[int]] = {}
    test = _prefilter(query) if query else None
    for i in range(body_start, n):
        found = _line_hits(lines[i], query, test)
        if found:
            hits[i] = found
    if not hits:
        return _opening(lines, body_start, budget)
    windows: list[list[int]] = []  # [start, end] inclusive, body-relative indices of the file
    for i in sorted(hits):
        start, end = max(body_start, i - 1), min(n - 1, i + 1)
        if windows and start <= windows[-1][1] + 1:
            windows[-1][1] = max(windows[-1][1], end)
        else:
            windows.append([start, end])

    def rank_key(w: list[int]) -> tuple[int, int, int]:
        covered: set[int] = set()
        count = 0
        for i in range(w[0], w[1] + 1):
            if i in hits:
                covered |= hits[i]
                count += 1
        return (-len(covered), -count, w[0])

    sep = _utf8_len("\n" + GAP + "\n")

    def render(lo: int, hi: int, room: int) -> str | None:
        """The window as text within ``room`` bytes: whole, then shortened, then its best line."""
        text = "\n".join(lines[lo : hi + 1])
        if _utf8_len(text) <= room:
            return text
        text = "\n".join(lines[i] if i in hits else _clip(lines[i], 80) for i in range(lo, hi + 1))
        if _utf8_len(text) <= room:
            return text
        matched = [i for i in range(lo, hi + 1) if i in hits]
        each = room // len(matched) - 1
        if each >= 40:
            text = "\n".join(_clip_around(lines[i], query, each) for i in matched)
            if _utf8_len(text) <= room:
                return text
        if room < 24:
            return None
        best = min(matched, key=lambda i: (-len(hits[i]), i))
        return _clip_around(lines[best], query, room)

    chosen: list[tuple[int, int, str]] = []
    used = 0
    for w in sorted(windows, key=rank_key):
        lo, hi = w[0], w[1]
        # trim blank context lines at the edges
        while lo < hi and not lines[lo].strip() and lo not in hits:
            lo += 1
        while hi > lo and not lines[hi].strip() and hi not in hits:
            hi -= 1
        room = budget - used - (sep if chosen else 0)
        text = render(lo, hi, room)
        if text is None:
            break
        chosen.append((lo, hi, text))
        used += _utf8_len(text) + (sep if len(chosen) > 1 else 0)
    chosen.sort()
    parts: list[str] = []
    for k, (_lo, _hi, text) in enumerate(chosen):
        if k:
            parts.append(GAP)
        parts.append(text)
    return Passage("\n".join(parts), tuple((lo + 1, hi + 1) for lo, hi, _ in chosen))


def _opening(lines: Sequence[str], body_start: int, budget: int) -> Passage:
    """No line matched (the match was in aliases, name or description): the body's start."""
    out: list[str] = []
    used = 0
    first = last = -1
    for i in range(body_start, len(lines)):
        line = lines[i]
        if not out and not line.strip():
            continue
        cost = _utf8_len(line) + (1 if out else 0)
        if used + cost > budget:
            if not out:
                out.append(_clip(line, budget))
                first = last = i
            break
        if first < 0:
            first = i
        out.append(line)
        last = i
        used += cost
        if len(out) >= 3:
            break
    while out and not out[-1].strip():
        out.pop()
        last -= 1
    if not out:
        return Passage("", ())
    return Passage("\n".join(out), ((first + 1, last + 1),))


def highlight_spans(text: str, query: Sequence[QueryTerm]) -> list[tuple[int, int]]:
    """Character spans of ``text`` whose words match the query (for a UI to highlight)."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"[^\W_]+", text):
        word = m.group(0)
        folded = terms(word)
        if not folded:
            continue
        tok = folded[0]
        if any(t.stem == tok or (t.prefix and tok.startswith(t.stem)) for t in query):
            spans.append((m.start(), m.end()))
    return spans


__all__ = ["DEFAULT_BUDGET", "Passage", "extract", "highlight_spans", "words"]
