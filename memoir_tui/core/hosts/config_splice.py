"""Edit one entry of a host tool's config file in place, keeping every other byte.

Host tools keep their settings in JSON (often with comments: JSONC) or TOML
files that also hold a great deal of unrelated state and the author's own
layout. Re-dumping a parsed file would lose comments, key spelling (``\\u00e9``
escapes), number formatting and layout, so these functions edit the text:

* JSON / JSONC: a small span-tracking reader (``//`` and ``/* */`` comments,
  trailing commas) locates the members; one member of the top-level object
  ``container`` is spliced in or cut out, in the file's own indentation (tabs /
  2 / 4 spaces), key-colon spacing and newline style. Every comment stays where
  it was. A new entry goes last in its object and removal cuts it the same way,
  so a put/remove round trip gives back the original bytes.
* TOML: ``tomllib`` validates; the ``[container.name]`` table (and subtables
  such as ``.env``) is removed by line ranges and a freshly rendered table is
  appended at the end after one blank line. Every other byte, comments
  included, stays. An entry written with dotted keys or as an inline table is
  refused rather than rewritten; a file without a final newline gets one back
  after a round trip.

After every edit the new text is parsed again and compared with the old data
plus (or minus) the entry; if anything else would differ, the edit is refused
(``UnsafeEdit``). Text that cannot be parsed, or whose shape is not an object /
table where one is needed, raises ``UnparseableConfig``. A byte order mark is
kept. These are pure functions of text: reading, writing, backups and what an
entry should hold are the caller's (``memoir_tui.core.hosts.mcp_install``).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from json.decoder import scanstring
from typing import Any, Literal


class ConfigTextError(ValueError):
    """A refusal to edit a config text; ``reason`` is a sentence fit for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnparseableConfig(ConfigTextError):
    """The text cannot be parsed, or its shape is not the one the edit needs."""


class UnsafeEdit(ConfigTextError):
    """The text parses, but this edit cannot be made (or verified) without touching more."""


def _split_bom(text: str) -> tuple[str, str]:
    # Parsers reject a BOM; keep it aside and put it back so the bytes stay the user's.
    if text.startswith("\ufeff"):
        return "\ufeff", text[1:]
    return "", text


# --------------------------------------------------------------------------- JSON / JSONC


def json_entries(text: str, container: str) -> dict[str, Any]:
    """The members of the top-level object ``container`` (``{}`` when absent or blank)."""
    if _is_blank(text.lstrip("\ufeff")):
        return {}
    root = _parse_jsonc(_split_bom(text)[1])
    holder = _container(root, container)
    return dict(holder.value.value) if holder is not None else {}


def parse_jsonc_value(text: str) -> Any:
    """The whole JSON/JSONC document as data (``{}`` for blank text)."""
    if _is_blank(text.lstrip("\ufeff")):
        return {}
    return _parse_jsonc(_split_bom(text)[1]).value


def new_json_document(container: str, name: str, value: Any) -> str:
    """A fresh file holding only ``{container: {name: value}}``, two-space indented."""
    return json.dumps({container: {name: value}}, indent=2, ensure_ascii=False) + "\n"


def put_json_entry(text: str, container: str, name: str, value: Any) -> str:
    """``text`` with ``container[name]`` set to ``value`` and nothing else changed.

    An existing member is replaced in place; a new one goes last in its object
    (the container is added last at the top level when missing). Blank text is
    an empty config: it becomes a fresh document. Unchanged text is returned
    when the member already holds ``value``.
    """
    bom, body = _split_bom(text)
    if _is_blank(text.lstrip("\ufeff")):
        return bom + new_json_document(container, name, value)
    strict = _is_strict_json(body)
    root = _parse_jsonc(body)
    holder = _container(root, container)
    entries = holder.value.value if holder is not None else {}
    if name in entries and entries[name] == value:
        return text
    style = _detect_json_style(body, root)
    expected = copy.deepcopy(root.value)
    if holder is None:
        edits = _insert_member_edits(body, root, container, {name: value}, style, True)
    else:
        obj = holder.value
        ours = _last_member(obj, name)
        root_multiline = "\n" in body[root.start : root.end]
        if ours is None:
            edits = _insert_member_edits(body, obj, name, value, style, root_multiline)
        else:
            multiline = "\n" in body[obj.start : obj.end]
            indent = (
                _indent_at(body, ours.key_start)
                if _starts_line(body, ours.key_start)
                else _member_indent(body, obj, style)
            )
            rendered = _render_json(value, indent, style, multiline)
            edits = [(ours.value.start, ours.value.end, rendered)]
    new_body = _apply_edits(body, edits)
    expected.setdefault(container, {})[name] = value
    _verify_json(new_body, expected, strict, name)
    return bom + new_body


def remove_json_entry(text: str, container: str, name: str, *, drop_empty_container: bool) -> str:
    """``text`` without ``container[name]`` (every duplicate of it), nothing else changed.

    With ``drop_empty_container`` a container left empty goes too, provided
    nothing (not even a comment) is inside it; otherwise it stays as ``{}``.
    """
    bom, body = _split_bom(text)
    if _is_blank(text.lstrip("\ufeff")):
        return text
    strict = _is_strict_json(body)
    root = _parse_jsonc(body)
    holder = _container(root, container)
    if holder is None or name not in holder.value.value:
        return text
    expected = copy.deepcopy(root.value)
    new_body = body
    # Remove every occurrence (duplicate keys), the effective last one first.
    while True:
        root_now = _parse_jsonc(new_body)
        holder = _last_member(root_now, container)
        ours = _last_member(holder.value, name) if holder else None
        if holder is None or ours is None:
            break
        new_body = _apply_edits(new_body, _remove_member_edits(new_body, holder.value, ours))
    del expected[container][name]
    if drop_empty_container and not expected[container]:
        root_now = _parse_jsonc(new_body)
        holders = [m for m in root_now.members if m.key == container]
        holder = holders[-1]
        # Only an empty container with nothing (no comments) inside goes.
        if len(holders) == 1 and _is_blank(_body_between(new_body, holder.value)):
            new_body = _apply_edits(new_body, _remove_member_edits(new_body, root_now, holder))
            del expected[container]
    _verify_json(new_body, expected, strict, name)
    return bom + new_body


def _array_member(root: _Node, container: str, name: str) -> _Member | None:
    holder = _container(root, container)
    if holder is None:
        return None
    member = _last_member(holder.value, name)
    if member is not None and member.value.kind != "array":
        raise UnparseableConfig(f"{container}.{name} is not a JSON array")
    return member


def append_json_array_item(text: str, container: str, name: str, value: Any) -> str:
    """``text`` with ``value`` added last to the array ``container[name]``, every other
    byte kept (the array is created, as ``put_json_entry`` would, when missing)."""
    bom, body = _split_bom(text)
    if _is_blank(body):
        return put_json_entry(text, container, name, [value])
    strict = _is_strict_json(body)
    root = _parse_jsonc(body)
    member = _array_member(root, container, name)
    if member is None:
        return put_json_entry(text, container, name, [value])
    array = member.value
    style = _detect_json_style(body, root)
    nl = style.newline
    multiline = "\n" in body[array.start : array.end]
    array_indent = (
        _indent_at(body, array.start)
        if _starts_line(body, array.start)
        else (_indent_at(body, member.key_start))
    )
    if array.elements and _starts_line(body, array.elements[0][0].start):
        indent = _indent_at(body, array.elements[0][0].start)
    else:
        indent = array_indent + style.unit
    close = array.end - 1
    if not array.elements:
        rendered = _render_json(value, indent, style, True)
        edits: list[_Edit] = [
            (array.start, array.end, "[" + nl + indent + rendered + nl + array_indent + "]")
        ]
    else:
        last, comma = array.elements[-1]
        trailing = comma is not None
        if multiline:
            rendered = _render_json(value, indent, style, True)
            if _starts_line(body, close):
                at = _line_start(body, close)
                edits = [(at, at, indent + rendered + ("," if trailing else "") + nl)]
                if not trailing:
                    edits.append((last.end, last.end, ","))
            else:
                at = comma + 1 if comma is not None else last.end
                edits = [(at, at, ("" if trailing else ",") + nl + indent + rendered)]
        else:
            rendered = _render_json(value, indent, style, False)
            at = comma + 1 if comma is not None else last.end
            space = " " if style.item_sep.endswith(" ") else ""
            edits = [(at, at, ("" if trailing else ",") + space + rendered)]
    new_body = _apply_edits(body, edits)
    expected = copy.deepcopy(root.value)
    expected[container][name].append(value)
    _verify_json(new_body, expected, strict, name)
    return bom + new_body


def replace_json_array_item(text: str, container: str, name: str, index: int, value: Any) -> str:
    """``text`` with item ``index`` of ``container[name]`` replaced, nothing else changed."""
    bom, body = _split_bom(text)
    strict = _is_strict_json(body)
    root = _parse_jsonc(body)
    member = _array_member(root, container, name)
    if member is None or not 0 <= index < len(member.value.elements):
        raise UnsafeEdit(f"{container}.{name} has no item {index}")
    node, _comma = member.value.elements[index]
    style = _detect_json_style(body, root)
    multiline = "\n" in body[node.start : node.end]
    rendered = _render_json(value, _indent_at(body, node.start), style, multiline)
    new_body = _apply_edits(body, [(node.start, node.end, rendered)])
    expected = copy.deepcopy(root.value)
    expected[container][name][index] = value
    _verify_json(new_body, expected, strict, name)
    return bom + new_body


def remove_json_array_item(text: str, container: str, name: str, index: int) -> str:
    """``text`` without item ``index`` of ``container[name]``; an array left empty goes,
    and its container too when nothing else is in it."""
    bom, body = _split_bom(text)
    strict = _is_strict_json(body)
    root = _parse_jsonc(body)
    member = _array_member(root, container, name)
    if member is None or not 0 <= index < len(member.value.elements):
        raise UnsafeEdit(f"{container}.{name} has no item {index}")
    elements = member.value.elements
    if len(elements) == 1:
        return remove_json_entry(text, container, name, drop_empty_container=True)
    node, comma = elements[index]
    close = member.value.end - 1
    end = comma + 1 if comma is not None else node.end
    edits: list[_Edit]
    if _starts_line(body, node.start) and body[end : _line_end(body, end)].strip() == "":
        start = _line_start(body, node.start)
        stop = min(_line_end(body, end) + 1, len(body))
        edits = [(start, stop, "")]
        prev_comma = elements[index - 1][1] if index > 0 else None
        if comma is None and prev_comma is not None:
            edits.append((prev_comma, prev_comma + 1, ""))
    elif comma is not None:
        stop = end
        while stop < close and body[stop] in " \t":
            stop += 1
        edits = [(node.start, stop, "")]
    else:
        prev_comma = elements[index - 1][1]
        assert prev_comma is not None  # a middle item always has one
        edits = [(prev_comma, node.end, "")]
    new_body = _apply_edits(body, edits)
    expected = copy.deepcopy(root.value)
    del expected[container][name][index]
    _verify_json(new_body, expected, strict, name)
    return bom + new_body


def _container(root: _Node, key: str) -> _Member | None:
    """The top-level member ``key`` (the last, as every reader takes), checked to be an object."""
    if root.kind != "object":
        raise UnparseableConfig("the top level is not a JSON object")
    holder = _last_member(root, key)
    if holder is not None and holder.value.kind != "object":
        raise UnparseableConfig(f"{key!r} is not a JSON object")
    return holder


class _JsoncSyntaxError(Exception):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int  # offset of the key's opening quote
    key_end: int  # offset just past the key's closing quote
    value: _Node
    comma: int | None  # offset of the comma after the value, if any


@dataclass(frozen=True)
class _Node:
    kind: Literal["object", "array", "scalar"]
    start: int
    end: int  # exclusive
    value: Any
    members: tuple[_Member, ...] = ()
    elements: tuple[tuple[_Node, int | None], ...] = ()  # an array's items, comma offsets


_WS = re.compile(r"[ \t\r\n]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_LITERALS: tuple[tuple[str, Any], ...] = (("true", True), ("false", False), ("null", None))


class _JsoncReader:
    """JSON plus ``//`` / ``/* */`` comments and trailing commas, with member offsets.

    Values match ``json.loads`` (duplicate keys: the last wins, in the first's place).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)

    def document(self) -> _Node:
        i = self._skip(0)
        if i >= self.n:
            raise _JsoncSyntaxError("the document is empty", i)
        node, i = self._value(i)
        i = self._skip(i)
        if i < self.n:
            raise _JsoncSyntaxError("unexpected text after the top-level value", i)
        return node

    def _skip(self, i: int) -> int:
        text, n = self.text, self.n
        while i < n:
            m = _WS.match(text, i)
            if m:
                i = m.end()
                continue
            if text.startswith("//", i):
                j = text.find("\n", i)
                i = n if j < 0 else j
            elif text.startswith("/*", i):
                j = text.find("*/", i + 2)
                if j < 0:
                    raise _JsoncSyntaxError("unterminated /* comment", i)
                i = j + 2
            else:
                break
        return i

    def _string(self, i: int) -> tuple[str, int]:
        try:
            return scanstring(self.text, i + 1, False)
        except json.JSONDecodeError as exc:
            raise _JsoncSyntaxError(exc.msg.lower(), exc.pos) from exc

    def _value(self, i: int) -> tuple[_Node, int]:
        text = self.text
        c = text[i] if i < self.n else ""
        if c == "{":
            return self._object(i)
        if c == "[":
            return self._array(i)
        if c == '"':
            s, end = self._string(i)
            return _Node("scalar", i, end, s), end
        m = _NUMBER.match(text, i)
        if m:
            token = m.group()
            number: int | float = float(token) if m.group(1) or m.group(2) else int(token)
            return _Node("scalar", i, m.end(), number), m.end()
        for word, value in _LITERALS:
            if text.startswith(word, i):
                return _Node("scalar", i, i + len(word), value), i + len(word)
        if not c:
            raise _JsoncSyntaxError("unexpected end of file, expected a value", i)
        raise _JsoncSyntaxError(f"unexpected character {c!r}, expected a value", i)

    def _object(self, start: int) -> tuple[_Node, int]:
        text = self.text
        members: list[_Member] = []
        value: dict[str, Any] = {}
        i = self._skip(start + 1)
        while True:
            if i >= self.n:
                raise _JsoncSyntaxError("unterminated object", start)
            if text[i] == "}":
                return _Node("object", start, i + 1, value, tuple(members)), i + 1
            if text[i] != '"':
                raise _JsoncSyntaxError("expected a string key or '}'", i)
            key, key_end = self._string(i)
            j = self._skip(key_end)
            if text[j : j + 1] != ":":
                raise _JsoncSyntaxError("expected ':' after the key", j)
            node, j = self._value(self._skip(j + 1))
            j = self._skip(j)
            comma = None
            if text[j : j + 1] == ",":
                comma = j
                j = self._skip(j + 1)
            elif j >= self.n:
                raise _JsoncSyntaxError("unterminated object", start)
            elif text[j] != "}":
                raise _JsoncSyntaxError("expected ',' or '}' after a value", j)
            members.append(_Member(key, i, key_end, node, comma))
            value[key] = node.value
            i = j

    def _array(self, start: int) -> tuple[_Node, int]:
        text = self.text
        items: list[Any] = []
        elements: list[tuple[_Node, int | None]] = []
        i = self._skip(start + 1)
        while True:
            if i >= self.n:
                raise _JsoncSyntaxError("unterminated array", start)
            if text[i] == "]":
                return _Node("array", start, i + 1, items, (), tuple(elements)), i + 1
            node, j = self._value(i)
            items.append(node.value)
            j = self._skip(j)
            comma = j if text[j : j + 1] == "," else None
            elements.append((node, comma))
            if comma is not None:
                j = self._skip(j + 1)
            elif j >= self.n:
                raise _JsoncSyntaxError("unterminated array", start)
            elif text[j] != "]":
                raise _JsoncSyntaxError("expected ',' or ']' after a value", j)
            i = j


def _parse_jsonc(text: str) -> _Node:
    try:
        return _JsoncReader(text).document()
    except _JsoncSyntaxError as exc:
        line = text.count("\n", 0, exc.offset) + 1
        column = exc.offset - (text.rfind("\n", 0, exc.offset) + 1) + 1
        raise UnparseableConfig(
            f"invalid JSON at line {line}, column {column}: {exc.message}"
        ) from None
    except RecursionError:
        raise UnparseableConfig("invalid JSON: nested too deeply") from None


def _is_strict_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # too deep for json: our reader refuses it next
        return False
    return True


def _last_member(obj: _Node, key: str) -> _Member | None:
    # With duplicate keys the last one is the one every JSON reader uses.
    for member in reversed(obj.members):
        if member.key == key:
            return member
    return None


@dataclass(frozen=True)
class _JsonStyle:
    unit: str  # one indentation step: "\t", "  ", "    " ...
    newline: str
    colon: str  # between key and value: ": ", ":" ...
    item_sep: str  # between members of a one-line object: ", " or ","


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    """Offset of the "\\n" ending the line that holds ``pos`` (or the end of text)."""
    j = text.find("\n", pos)
    return len(text) if j < 0 else j


def _starts_line(text: str, pos: int) -> bool:
    return text[_line_start(text, pos) : pos].strip(" \t") == ""


def _indent_at(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _is_blank(s: str) -> bool:
    return s.strip(" \t\r\n") == ""


def _detect_json_style(text: str, root: _Node) -> _JsonStyle:
    unit = "  "
    pending = deque([root])
    while pending:
        obj = pending.popleft()
        if obj.members and _starts_line(text, obj.members[0].key_start):
            outer = _indent_at(text, obj.start)
            inner = _indent_at(text, obj.members[0].key_start)
            if inner.startswith(outer) and len(inner) > len(outer):
                unit = inner[len(outer) :]
                break
        pending.extend(m.value for m in obj.members if m.value.kind == "object")
    colon = ": "
    if root.members:
        first = root.members[0]
        between = text[first.key_end : first.value.start]
        if re.fullmatch(r"[ \t]*:[ \t]*", between):
            colon = between
    return _JsonStyle(
        unit=unit,
        newline="\r\n" if "\r\n" in text else "\n",
        colon=colon,
        item_sep=", " if colon.endswith(" ") else ",",
    )


def _render_json(value: Any, indent: str, style: _JsonStyle, multiline: bool) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False, separators=(style.item_sep, style.colon))
    rendered = json.dumps(
        value, ensure_ascii=False, indent=style.unit, separators=(",", style.colon)
    )
    # json.dumps escapes newlines inside strings, so every "\n" here is layout.
    return rendered.replace("\n", style.newline + indent)


def _member_indent(text: str, obj: _Node, style: _JsonStyle) -> str:
    if obj.members and _starts_line(text, obj.members[0].key_start):
        return _indent_at(text, obj.members[0].key_start)
    return _indent_at(text, obj.start) + style.unit


_Edit = tuple[int, int, str]


def _apply_edits(text: str, edits: list[_Edit]) -> str:
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _insert_member_edits(
    text: str, obj: _Node, key: str, value: Any, style: _JsonStyle, prefer_multiline: bool
) -> list[_Edit]:
    """Add ``key: value`` as the last member of ``obj``, in the object's own layout."""
    nl = style.newline
    close = obj.end - 1
    obj_indent = _indent_at(text, obj.start)
    multiline = "\n" in text[obj.start : obj.end] or (not obj.members and prefer_multiline)
    indent = _member_indent(text, obj, style)
    member = (
        json.dumps(key, ensure_ascii=False)
        + style.colon
        + _render_json(value, indent, style, multiline)
    )
    if not obj.members:
        if _is_blank(text[obj.start + 1 : close]):
            if multiline:
                return [(obj.start, obj.end, "{" + nl + indent + member + nl + obj_indent + "}")]
            return [(obj.start, obj.end, "{" + member + "}")]
        # Only comments inside: keep them and put our member after them.
        if _starts_line(text, close):
            at = _line_start(text, close)
            return [(at, at, indent + member + nl)]
        if multiline:
            return [(close, close, nl + indent + member + nl + obj_indent)]
        return [(close, close, member)]
    last = obj.members[-1]
    # Follow the object's own comma style: with a trailing comma already there, ours gets one too.
    trailing = last.comma is not None
    own_comma = "," if trailing else ""
    if multiline and _starts_line(text, close):
        # A new line just before the closing brace: comments after the last member stay with it.
        at = _line_start(text, close)
        edits: list[_Edit] = [(at, at, indent + member + own_comma + nl)]
        if not trailing:
            edits.append((last.value.end, last.value.end, ","))
        return edits
    at = last.comma + 1 if last.comma is not None else last.value.end
    lead = "" if trailing else ","
    if multiline:
        return [(at, at, lead + nl + indent + member + own_comma)]
    space = " " if style.item_sep.endswith(" ") else ""
    return [(at, at, lead + space + member + own_comma)]


def _remove_member_edits(text: str, obj: _Node, member: _Member) -> list[_Edit]:
    """Cut ``member`` out of ``obj`` without touching anyone else's comments."""
    index = next(i for i, m in enumerate(obj.members) if m is member)
    prev = obj.members[index - 1] if index > 0 else None
    close = obj.end - 1
    end = member.comma + 1 if member.comma is not None else member.value.end
    if (
        len(obj.members) == 1
        and _is_blank(text[obj.start + 1 : member.key_start])
        and _is_blank(text[end:close])
    ):
        return [(obj.start, obj.end, "{}")]
    if _starts_line(text, member.key_start) and text[end : _line_end(text, end)].strip() == "":
        start = _line_start(text, member.key_start)
        stop = _line_end(text, end)
        stop = min(stop + 1, len(text))
        edits: list[_Edit] = [(start, stop, "")]
        # We were last: the comma before us is now a trailing comma, which strict JSON forbids.
        if member.comma is None and prev is not None and prev.comma is not None:
            edits.append((prev.comma, prev.comma + 1, ""))
        return edits
    if member.comma is not None:
        stop = end
        while stop < close and text[stop] in " \t":
            stop += 1
        return [(member.key_start, stop, "")]
    if prev is not None and prev.comma is not None:
        if _is_blank(text[prev.comma + 1 : member.key_start]):
            return [(prev.comma, member.value.end, "")]
        # Comments sit between the comma and us: keep them (and their line breaks).
        start = member.key_start
        while start > prev.comma + 1 and text[start - 1] in " \t":
            start -= 1
        return [(prev.comma, prev.comma + 1, ""), (start, member.value.end, "")]
    return [(member.key_start, member.value.end, "")]


def _body_between(text: str, obj: _Node) -> str:
    """The text between an object's braces."""
    return text[obj.start + 1 : obj.end - 1]


_VERIFY_FAILED = object()  # never equal to any parsed document


def _verify_json(new_body: str, expected: Any, strict: bool, name: str) -> None:
    try:
        actual = json.loads(new_body) if strict else _parse_jsonc(new_body).value
    except ValueError:  # UnparseableConfig is a ValueError too
        actual = _VERIFY_FAILED
    if actual != expected:
        raise UnsafeEdit(
            f"internal check failed: the edit would change more than the {name!r} entry "
            "(please report this); nothing was written"
        )


# --------------------------------------------------------------------------- TOML


@dataclass(frozen=True)
class _TomlHeader:
    start: int  # offset of the header line's start
    end: int  # offset just past the header line (after its newline)
    key: tuple[str, ...]
    is_array: bool


_TOML_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_TOML_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2}|.)", re.S)
_TOML_SIMPLE_ESCAPES = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    '"': '"',
    "\\": "\\",
}


def _toml_unescape(s: str) -> str:
    def replace(m: re.Match[str]) -> str:
        code = m.group(1)
        if code[0] in "uUx" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _TOML_SIMPLE_ESCAPES.get(code, code)

    return _TOML_ESCAPE.sub(replace, s)


def _skip_toml_string(text: str, i: int) -> int:
    """Offset just past the string literal starting at ``i``."""
    q = text[i]
    n = len(text)
    if text.startswith(q * 3, i):
        j = i + 3
        while j < n:
            if q == '"' and text[j] == "\\":
                j += 2
                continue
            if text.startswith(q * 3, j):
                # Up to two more quotes may close the string: they belong to its content.
                end = j + 3
                extra = 0
                while end < n and text[end] == q and extra < 2:
                    end += 1
                    extra += 1
                return end
            j += 1
        return n
    j = i + 1
    while j < n and text[j] != q and text[j] != "\n":
        if q == '"' and text[j] == "\\":
            j += 1
        j += 1
    return j + 1


def _parse_toml_header(text: str, i: int) -> tuple[tuple[str, ...], bool, int]:
    """Parse ``[a."b".c]`` or ``[[...]]`` at ``i``; returns (key, is_array, end offset)."""
    is_array = text.startswith("[[", i)
    j = i + (2 if is_array else 1)
    parts: list[str] = []
    while True:
        while text[j] in " \t":
            j += 1
        c = text[j]
        if c == '"':
            end = _skip_toml_string(text, j)
            parts.append(_toml_unescape(text[j + 1 : end - 1]))
            j = end
        elif c == "'":
            end = text.index("'", j + 1)
            parts.append(text[j + 1 : end])
            j = end + 1
        else:
            m = _TOML_BARE_KEY.match(text, j)
            if not m:
                raise ValueError(f"unexpected {c!r} in a table header")
            parts.append(m.group())
            j = m.end()
        while text[j] in " \t":
            j += 1
        if text[j] == ".":
            j += 1
            continue
        closing = "]]" if is_array else "]"
        if not text.startswith(closing, j):
            raise ValueError("unterminated table header")
        return tuple(parts), is_array, j + len(closing)


def _toml_headers(text: str) -> list[_TomlHeader]:
    """Every ``[table]`` / ``[[array]]`` header line, skipping strings, comments and values.

    A ``[`` only opens a header at the start of a statement outside any array or
    inline table: that is what tells ``["a"]`` inside a multi-line array apart.
    """
    headers: list[_TomlHeader] = []
    n = len(text)
    i = 0
    depth = 0
    statement_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            if depth == 0:
                statement_start = True
            i += 1
        elif c in " \t\r":
            i += 1
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "[" and depth == 0 and statement_start:
            key, is_array, after = _parse_toml_header(text, i)
            line_end = _line_end(text, after)
            end = min(line_end + 1, n)
            headers.append(_TomlHeader(_line_start(text, i), end, key, is_array))
            i = end
        else:
            statement_start = False
            if c in "\"'":
                i = _skip_toml_string(text, i)
                continue
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
            i += 1
    return headers


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _last_content_end(text: str, start: int, stop: int) -> int:
    """End of the last line in [start, stop) that is neither blank nor only a comment.

    Trailing comments before the next header usually introduce *that* table, so
    they are not ours to remove.
    """
    last = start
    pos = start
    while pos < stop:
        j = text.find("\n", pos, stop)
        line_end = stop if j < 0 else j + 1
        if not _is_blank_or_comment(text[pos:line_end]):
            last = line_end
        pos = line_end
    return last


def _only_blank_or_comment_lines(s: str) -> bool:
    return all(_is_blank_or_comment(line) for line in s.split("\n"))


def _toml_entry_spans(text: str, container: str, name: str) -> list[tuple[int, int]]:
    headers = _toml_headers(text)
    spans: list[list[int]] = []
    for index, header in enumerate(headers):
        if header.key[:2] != (container, name):
            continue
        block_end = headers[index + 1].start if index + 1 < len(headers) else len(text)
        end = _last_content_end(text, header.end, block_end)
        if spans and _only_blank_or_comment_lines(text[spans[-1][1] : header.start]):
            # Our table and its subtable (e.g. .env) with only blanks/comments between: one cut.
            spans[-1][1] = end
        else:
            spans.append([header.start, end])
    return [(s, e) for s, e in spans]


def _drop_one_blank_line(before: str) -> str:
    if before.endswith("\n\r\n"):
        return before[:-2]
    if before.endswith("\n\n"):
        return before[:-1]
    return before


def _strip_leading_blank_lines(after: str) -> str:
    while after:
        j = after.find("\n")
        if j < 0 or after[:j].strip():
            break
        after = after[j + 1 :]
    return after


def _cut_toml_spans(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in reversed(spans):
        before, after = text[:start], text[end:]
        if not after.strip():
            # We were last: drop the blank line install put before us.
            after = ""
            before = _drop_one_blank_line(before)
        elif before == "" or before.endswith(("\n\n", "\n\r\n")):
            after = _strip_leading_blank_lines(after)
        text = before + after
    return text


def _append_toml_table(text: str, table: str, nl: str) -> str:
    if text == "":
        return table
    if not text.endswith("\n"):
        text += nl
    return text + nl + table


def _toml_key(key: str) -> str:
    return key if _TOML_BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    # Enough TOML for config entries: our keys plus whatever a user added to our table.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    raise TypeError(f"cannot render {type(value).__name__} as TOML")


def render_toml_table(container: str, name: str, entry: Mapping[str, Any], nl: str = "\n") -> str:
    """``[container.name]`` and one ``key = value`` line per member of ``entry``."""
    lines = [f"[{_toml_key(container)}.{_toml_key(name)}]"]
    lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in entry.items()]
    return nl.join(lines) + nl


def _without_entry(data: dict[str, Any], container: str, name: str) -> dict[str, Any]:
    """``data`` minus the entry, with an emptied ``container`` counted as absent."""
    data = copy.deepcopy(data)
    entries = data.get(container)
    if isinstance(entries, dict):
        entries.pop(name, None)
        if not entries:
            del data[container]
    return data


def _load_toml(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UnparseableConfig(f"invalid TOML: {exc}") from None


def toml_entries(text: str, container: str) -> dict[str, Any]:
    """The tables under the top-level table ``container`` (``{}`` when absent)."""
    entries = _load_toml(_split_bom(text)[1]).get(container)
    if entries is not None and not isinstance(entries, dict):
        raise UnparseableConfig(f"{container!r} is not a table")
    return dict(entries or {})


def put_toml_table(text: str, container: str, name: str, value: Mapping[str, Any]) -> str:
    """``text`` with ``[container.name]`` holding ``value``: the old table cut, a new one last."""
    return _edit_toml(text, container, name, dict(value))


def remove_toml_table(text: str, container: str, name: str) -> str:
    """``text`` without ``[container.name]`` and its subtables; nothing else changed."""
    return _edit_toml(text, container, name, None)


def _edit_toml(text: str, container: str, name: str, value: dict[str, Any] | None) -> str:
    bom, body = _split_bom(text)
    data = _load_toml(body)
    entries = toml_entries(body, container)
    if value is not None and name in entries and entries[name] == value:
        return text
    if value is None and name not in entries:
        return text

    try:
        spans = _toml_entry_spans(body, container, name)
    except (ValueError, IndexError):
        # tomllib accepted the file but our header scan did not: refuse rather than guess.
        raise UnsafeEdit("could not locate the table headers safely; edit it by hand") from None
    stripped = _cut_toml_spans(body, spans)
    try:
        remaining = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        remaining = None
    if remaining is not None and name in (remaining.get(container) or {}):
        raise UnsafeEdit(
            f"the {name!r} entry is written with dotted keys or an inline table, "
            "which memoir-tui does not rewrite; edit it by hand"
        )
    if remaining is None or _without_entry(remaining, container, name) != _without_entry(
        data, container, name
    ):
        raise UnsafeEdit("internal check failed: removing our table would change other settings")
    if value is None:
        return bom + stripped

    nl = "\r\n" if "\r\n" in body else "\n"
    new_body = _append_toml_table(stripped, render_toml_table(container, name, value, nl), nl)
    try:
        new_data = tomllib.loads(new_body)
    except tomllib.TOMLDecodeError as exc:
        # e.g. ``mcp_servers = { ... }`` is an inline table, which a later header cannot extend.
        raise UnsafeEdit(f"appending our table would make the file invalid ({exc})") from None
    new_entries = new_data.get(container)
    if (
        not isinstance(new_entries, dict)
        or new_entries.get(name) != value
        or _without_entry(new_data, container, name) != _without_entry(data, container, name)
    ):
        raise UnsafeEdit("appending our table would not give the expected settings")
    return bom + new_body
