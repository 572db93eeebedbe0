"""Tokens for recall: lowercase words, a small suffix folder, query terms.

The same ``terms`` function runs over documents at index time and over the
query at search time, so the index stores folded tokens (space separated) and
SQLite's FTS5 only has to split on spaces. The folder is deliberately small and
predictable rather than linguistic: plurals, ``-ing``, ``-ed``, ``-ies``/``-ied``
and ``-ation`` fold onto one stem, a final ``e`` is dropped so ``cache``,
``caches``, ``cached`` and ``caching`` meet. A plural ``-s`` may leave a
three-letter stem, and so may undoubling after ``-ing``/``-ed`` (``logs``,
``logging`` and ``logged`` meet ``log``; ``pods``, ``jobs``, ``keys``, ``bugs``,
``runs``, ``running`` their singulars); otherwise a suffix or the final ``e`` is
removed only when four letters are left (``note`` never becomes the stop word
``not``, ``coding`` never ``cod``). Words ending in ``-ss``, ``-us``, ``-is``, ``-ous`` and a
short list of others (``news``, ``alias``) keep their ``s``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MIN_STEM = 4  # most suffixes leave at least this many characters
MIN_SHORT_STEM = 3  # a plural -s or undoubling may leave this many (logs, running)
PREFIX_MIN = 3  # a query word of at least this many characters also matches longer words

# Words whose final s is not a plural (and irregular plurals worth folding).
_KEEP = frozenset(
    [
        "news",
        "lens",
        "bias",
        "alias",
        "atlas",
        "canvas",
        "whereas",
        "christmas",
        "chaos",
        "kudos",
        "always",
        "perhaps",
        "series",
        "species",
        "physics",
        "thus",
        "plus",
        "yes",
        "this",
        "gas",
        "bus",
    ]
)
_IRREGULAR = {
    "apis": "api",
    "aliases": "alias",
    "biases": "bias",
    "lenses": "lens",
    # plurals whose ending changes (issue 27's near forms)
    "indices": "index",
    "matrices": "matrix",
    "vertices": "vertex",
    "appendices": "appendix",
    "analyses": "analysis",
    "children": "child",
    "schemata": "schema",
}

_WORD_RE = re.compile(r"[^\W_]+")
# a camelCase or PascalCase identifier's parts: useCartTotals → use, Cart, Totals
_CAMEL_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_VOWELS = frozenset("aeiouy")
_NO_UNDOUBLE = frozenset("lsz")

_STOPWORDS_TEXT = """
a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing done down during each few
for from further had has have having he her here hers him his how i if in into is it its
itself just know knew me more most my no nor not now of off on once only or other our
ours out over own same she should so some such than that the their theirs them then there
these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours us use used using via vs
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_cache: dict[str, str] = {}


def _strip_diacritics(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(word: str) -> str:
    """The stem of one lowercase word (memoised: documents repeat words a lot)."""
    hit = _cache.get(word)
    if hit is not None:
        return hit
    stem = _fold(word)
    if len(_cache) < 200_000:
        _cache[word] = stem
    return stem


def _fold(w: str) -> str:
    if len(w) <= MIN_SHORT_STEM or w.isdigit() or w in _KEEP:
        return w
    irregular = _IRREGULAR.get(w)
    if irregular is not None:
        return irregular
    s = w
    if s.endswith("'s"):
        s = s[:-2]
    if (s.endswith("ies") and len(s) - 3 >= MIN_STEM - 1) or (
        s.endswith("ied") and len(s) - 3 >= MIN_STEM - 1
    ):
        s = s[:-3] + "y"
    elif s.endswith("sses") or (
        s.endswith(("xes", "ches", "shes", "zes")) and len(s) - 2 >= MIN_STEM
    ):
        s = s[:-2]
    elif s.endswith("ations") and len(s) - 4 >= MIN_STEM:
        s = s[:-4]
    elif s.endswith("ation") and len(s) - 3 >= MIN_STEM:
        s = s[:-3]
    elif s.endswith("ings") and len(s) - 4 >= MIN_STEM and _has_vowel(s[:-4]):
        s = _undouble(s[:-4])
    elif s.endswith("ing") and len(s) - 3 >= MIN_STEM and _has_vowel(s[:-3]):
        s = _undouble(s[:-3])
    elif s.endswith("ed") and not s.endswith("eed") and len(s) - 2 >= MIN_STEM:
        s = _undouble(s[:-2])
    elif (
        s.endswith("s")
        and not s.endswith(("ss", "us", "is", "ous"))
        and len(s) - 1 >= MIN_SHORT_STEM
    ):
        s = s[:-1]
        if s in _KEEP:
            return s
    if s.endswith("ment") and len(s) - 4 >= MIN_STEM + 2:
        s = s[:-4]  # deployment(s) → deploy (six letters left: never comment, document)
    if s.endswith(("izat", "isat")) and len(s) - 2 >= MIN_STEM:
        s = s[:-2]  # authorization → authoriz, as authorize
    if s.endswith("e") and len(s) - 1 >= MIN_STEM:
        s = s[:-1]
    return s


def _has_vowel(s: str) -> bool:
    return any(c in _VOWELS for c in s)


def _undouble(s: str) -> str:
    if (
        len(s) > MIN_SHORT_STEM
        and s[-1] == s[-2]
        and s[-1] not in _VOWELS
        and s[-1] not in _NO_UNDOUBLE
    ):
        return s[:-1]
    return s


def words(text: str) -> list[str]:
    """Lowercase words of ``text`` (letters and digits; ``_`` and punctuation split)."""
    out = _WORD_RE.findall(text.lower())
    if not text.isascii():
        out = [w if w.isascii() else _strip_diacritics(w) for w in out]
    return out


def camel_parts(text: str) -> str:
    """The parts of ``text``'s camelCase identifiers, folded (``useCartTotals`` →
    ``use cart total``), so a query in plain words meets the identifier. They are
    indexed as body words wherever the identifier stands: weaker than a name's words."""
    out: list[str] = []
    for w in _WORD_RE.findall(text):
        if w.islower() or w.isupper() or (w.istitle() and sum(c.isupper() for c in w) == 1):
            continue
        parts = _CAMEL_RE.findall(w)
        if len(parts) > 1:
            out += [fold(x.lower()) for x in parts if len(x) > 1 and x.isascii()]
    return " ".join(out)


def terms(text: str) -> list[str]:
    """Folded tokens of ``text``, in order; one-character tokens are dropped."""
    return [fold(w) for w in words(text) if len(w) > 1]


def index_text(text: str) -> str:
    """What FTS5 stores for a field: folded tokens separated by spaces."""
    return " ".join(terms(text))


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """One word of a query: its stem, and whether longer words may match it as a prefix."""

    word: str  # as typed, lowercased
    stem: str
    prefix: bool

    def fts(self) -> str:
        quoted = f'"{self.stem}"'
        return f"{quoted}*" if self.prefix else quoted


def parse_query(query: str) -> list[QueryTerm]:
    """Distinct query terms, stop words dropped (unless the query is only stop words)."""
    raw = [w for w in words(query) if len(w) > 1]
    kept = [w for w in raw if w not in STOPWORDS] or raw
    seen: set[str] = set()
    out: list[QueryTerm] = []
    for w in kept:
        stem = fold(w)
        if stem in seen:
            continue
        seen.add(stem)
        # identifiers with digits (k8s, ec2, s3) are matched as written
        prefix = len(w) >= PREFIX_MIN and len(stem) >= PREFIX_MIN and w.isalpha()
        out.append(QueryTerm(w, stem, prefix))
    return out[:16]
