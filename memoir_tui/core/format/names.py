"""The one rule for the name of an entry file this project writes, and how a name as
a person types it becomes one.

An entry name is a bare lowercase slug ending in ``.md``: it starts with a letter or
digit, holds only ``a-z 0-9 . _ -``, never ``..``, and its stem is at most 121
characters. Writing refuses anything else; ``validate`` warns about files (written by
other tools) whose names break it. Reading and syncing accept more (see
``sync.layout.SYNCED_NAME_RE``): names other tools wrote are carried, never renamed.
"""

from __future__ import annotations

import re
import unicodedata

ENTRY_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,120}\.md$")
"""A bare lowercase ``.md`` slug (``is_entry_name`` also refuses ``..``)."""

SLUG_LIMIT = 120
_SLUG_RUN_RE = re.compile(r"[^a-z0-9._-]+")


def is_entry_name(name: object, suffix: str = ".md") -> bool:
    """True for a name this project writes an entry file under: a slug and ``suffix``
    (a host's own ending for the files it reads, ``.mdc`` for Cursor's rules)."""
    if not isinstance(name, str) or not name.endswith(suffix):
        return False
    as_md = name[: -len(suffix)] + ".md"
    return bool(ENTRY_NAME_RE.match(as_md)) and ".." not in as_md


def slugify(text: str) -> str:
    """``Build Notes`` → ``build-notes``: accents folded to ASCII, lowercase, every run of
    other characters one ``-``, no ``-``/``.``/``_`` at either end, at most
    ``SLUG_LIMIT`` characters. ``""`` when nothing usable is left or the slug would
    hold ``..``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_RUN_RE.sub("-", ascii_text.lower())
    slug = re.sub(r"-{2,}", "-", slug).strip("-._")
    if not slug or ".." in slug:
        return ""
    return slug[:SLUG_LIMIT].rstrip("-._")
