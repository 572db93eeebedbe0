"""Frontmatter: the restricted YAML subset of FORMAT §2.

Reading is lenient (any YAML PyYAML's safe loader accepts, minus implicit
date conversion: a date stays the string that was written, so rewriting a
file never changes ``2026-04-18`` into something else). Writing emits only the
subset — ``key: value`` scalars, one level of nested mapping, and lists of
scalars — and rejects anything deeper with ``FrontmatterError``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from memoir_tui.core.base.errors import MemoirError

FENCE = "---"


class FrontmatterError(MemoirError):
    """Frontmatter that cannot be read, or a value a writer may not emit."""


class _StringDatesLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver: dates stay strings."""


_StringDatesLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_LOADER: type[yaml.SafeLoader | yaml.CSafeLoader] = _StringDatesLoader
if getattr(yaml, "__with_libyaml__", False):  # the C parser is ~10x faster on big corpora

    class _CStringDatesLoader(yaml.CSafeLoader):
        pass

    _CStringDatesLoader.yaml_implicit_resolvers = _StringDatesLoader.yaml_implicit_resolvers
    _LOADER = _CStringDatesLoader


@dataclass(frozen=True, slots=True)
class Parsed:
    """A markdown file split into its frontmatter mapping and body."""

    meta: dict[str, Any]
    body: str
    has_frontmatter: bool
    error: str | None = None  # frontmatter present but unreadable: meta is empty


_OPEN_RE = re.compile(r"\A\ufeff?---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)


def split(text: str) -> tuple[str | None, str]:
    """``(frontmatter_text, body)``; frontmatter is None when there is no block."""
    m = _OPEN_RE.match(text)
    if not m:
        return None, text
    close = _CLOSE_RE.search(text, m.end())
    if not close:
        return None, text
    fm = text[m.end() : close.start()]
    rest = text[close.end() :]
    if rest.startswith("\r\n"):
        rest = rest[2:]
    elif rest.startswith("\n"):
        rest = rest[1:]
    return fm, rest


def parse(text: str) -> Parsed:
    """Parse a markdown document; never raises on bad YAML (see ``Parsed.error``)."""
    fm, body = split(text)
    if fm is None:
        return Parsed({}, body, False)
    try:
        data = yaml.load(fm, Loader=_LOADER)
    except yaml.YAMLError as exc:
        return Parsed({}, body, True, error=f"frontmatter is not valid YAML: {_first_line(exc)}")
    except (RecursionError, ValueError) as exc:
        return Parsed({}, body, True, error=f"frontmatter cannot be read: {exc}")
    if data is None:
        return Parsed({}, body, True)
    if not isinstance(data, dict):
        return Parsed({}, body, True, error="frontmatter is not a mapping of keys to values")
    meta = {str(k): v for k, v in data.items()}
    return Parsed(meta, body, True)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# --- writing -------------------------------------------------------------------

_PLAIN_SAFE = re.compile(r"^[A-Za-z0-9_./@+-][A-Za-z0-9 _./@+:,()'-]*$")
_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "~", "y", "n"}


def _scalar(value: Any, where: str) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise FrontmatterError(f"{where}: non-finite number cannot be written")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    raise FrontmatterError(f"{where}: a {type(value).__name__} cannot be written as a scalar")


def _string(value: str) -> str:
    if (
        _PLAIN_SAFE.match(value)
        and value.lower() not in _YAML_WORDS
        and not value.endswith(" ")
        and ": " not in value
        and " #" not in value
        and _reads_back_as_string(value)
    ):
        return value
    # JSON string syntax is valid YAML double-quoted syntax, with escapes for
    # newlines: multi-line text never needs a block scalar. Characters YAML
    # does not allow in a stream (controls, DEL, surrogates) are escaped too.
    return _NON_PRINTABLE.sub(
        lambda m: f"\\u{ord(m.group()):04x}", json.dumps(value, ensure_ascii=False)
    )


_NON_PRINTABLE = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


def _reads_back_as_string(value: str) -> bool:
    try:
        return yaml.load(f"k: {value}", Loader=_LOADER) == {"k": value}
    except yaml.YAMLError:
        return False


def _key(key: Any, where: str) -> str:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise FrontmatterError(f"{where}: key {key!r} is not a plain name")
    # `no:` or `on:` would read back as a boolean key under YAML 1.1
    return key if _reads_back_as_string(key) and key.lower() not in _YAML_WORDS else json.dumps(key)


def dump_meta(meta: dict[str, Any]) -> str:
    """Render a mapping as frontmatter text in the subset (without the fences)."""
    lines: list[str] = []
    for raw_key, value in meta.items():
        key = _key(raw_key, "frontmatter")
        if isinstance(value, dict):
            if not value:
                lines.append(f"{key}: {{}}")
                continue
            lines.append(f"{key}:")
            for sub_key, sub_value in value.items():
                where = f"{key}.{sub_key}"
                sk = _key(sub_key, key)
                if isinstance(sub_value, dict | list):
                    raise FrontmatterError(f"{where}: nesting deeper than one level is not allowed")
                lines.append(f"  {sk}: {_scalar(sub_value, where)}")
        elif isinstance(value, list | tuple):
            if not value:
                lines.append(f"{key}: []")
                continue
            lines.append(f"{key}:")
            for item in value:
                if isinstance(item, dict | list | tuple):
                    raise FrontmatterError(f"{key}: list items must be plain values")
                lines.append(f"  - {_scalar(item, key)}")
        else:
            lines.append(f"{key}: {_scalar(value, key)}")
    return "\n".join(lines) + ("\n" if lines else "")


def render(meta: dict[str, Any], body: str) -> str:
    """A whole document: fenced frontmatter (if any) and the body."""
    if not meta:
        return body
    return f"{FENCE}\n{dump_meta(meta)}{FENCE}\n{body}"
