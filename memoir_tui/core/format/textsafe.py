"""Text safety at the door and on the way out.

Memory text is written by agents and read back into terminals, instruction
files and other agents' context. Two rules keep that safe:

* **In** (``clean_input``): C0 and C1 control characters and the bidirectional
  overrides/isolates are stripped; ``\\r\\n`` and a lone ``\\r`` become ``\\n``;
  a one-line field (every item's text, why, rejected) has its line breaks and
  tabs folded into single spaces, so it can never forge a heading or a list
  line in what is rendered from it. A field that allows lines keeps ``\\n``.
* **Out** (``shown`` and ``for_terminal``): whatever was stored before these
  rules, or came from a file we did not write, is printed with every such
  character made visible as ``\\uXXXX`` (valid inside a JSON string too), so
  ``ESC[2J``, OSC 52, NUL or a right-to-left override never reach a
  terminal raw; ``shown`` also folds a one-line field's line breaks.
"""

from __future__ import annotations

import re

# C0 (bar \t \n), DEL, C1; the bidi embeddings/overrides/isolates and marks.
_BIDI = "\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069"
_UNSAFE_OUT_RE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_STRIP_IN_RE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}]")
_BREAKS_RE = re.compile(r"[\t\n\u2028\u2029\x85]+")


def clean_input(text: str, *, lines: bool = False) -> str:
    """``text`` as it may be stored: no control or bidi characters; one line unless
    ``lines`` (then ``\\n`` is kept, ``\\t`` too)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _STRIP_IN_RE.sub("", text)
    if not lines:
        text = _BREAKS_RE.sub(" ", text)
        text = re.sub(r" {2,}", " ", text)
    else:
        text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    return text


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def for_terminal(text: str) -> str:
    """``text`` with every control (bar ``\\n`` and ``\\t``) and bidi character made visible."""
    return _UNSAFE_OUT_RE.sub(_visible, text)


def shown(text: str) -> str:
    """A one-line field as it may be printed: line breaks folded, the rest made visible."""
    return for_terminal(_BREAKS_RE.sub(" ", text.replace("\r", " ")))
