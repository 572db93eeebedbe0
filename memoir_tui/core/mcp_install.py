"""Register (and unregister) memoir-tui's stdio MCP server in host coding tools' config files.

Each host tool keeps its MCP servers in a file of its own shape: a JSON object
under ``mcpServers`` (Claude Code, Cursor, Gemini CLI, Windsurf), ``servers``
(VS Code / Copilot) or ``context_servers`` (Zed, whose settings are JSON with
comments), or TOML ``[mcp_servers.<name>]`` tables (Codex). Where each file
lives, per scope and platform, and its shape come from the adapters' data
(``memoir_tui.core.adapters``, each adapter's ``mcp`` hosts): this module
spells no path. Several of those files also hold a great deal of unrelated
state (``~/.claude.json``, editor settings), so the one rule here is:
**change our entry and nothing else**.

Design
------
* Planning is separate from writing. ``plan_install`` / ``plan_uninstall``
  read the file and return a frozen :class:`ConfigChange` (path, old text, new
  text, unified diff); ``apply_change`` writes it. A dry run is a plan that is
  printed instead of applied. Paths are resolved from an explicit ``home`` and
  ``env`` mapping (never ``Path.home()`` or ``os.environ`` implicitly), so tests
  and previews run on scratch directories.
* Edits are textual, never a reserialisation. Re-dumping a parsed file would
  lose comments, key spelling (``\\u00e9`` escapes), number formatting and the
  author's layout. Instead:

  - JSON (strict or JSONC): a small span-tracking reader (``//`` and ``/* */``
    comments, trailing commas) locates the members; we splice in or cut out
    exactly one member, in the file's own indentation (tabs / 2 / 4 spaces),
    key-colon spacing and newline style. Every comment stays where it was.
    Install appends the member last in its object and uninstall removes it the
    same way, so an install/uninstall round trip restores the original bytes.
  - TOML: ``tomllib`` validates; our ``[mcp_servers.memoir-tui]`` table (and
    subtables such as ``.env``) is removed by line ranges and a freshly
    rendered table is appended at the end after one blank line. Every other
    byte, comments included, stays.

  After every edit the new text is parsed again and compared with the old data
  plus (or minus) our entry; if anything else would differ, the edit is refused
  rather than written.
* Anything we cannot parse (invalid JSON/TOML, a non-object top level, a
  server map that is not an object/table, non-UTF-8 bytes) raises
  :class:`ConfigParseError` and the file is left byte-identical.
* Our entry is the member named ``memoir-tui`` (``ServerSpec.name``) so it never
  collides with the JavaScript tool's ``memoir`` server. On install only the
  keys we manage (``command``, ``args``, ``env`` and the tool's fixed
  ``type``/``source``) are set; any other key a user added to our entry
  (``disabled``, ``trust``, timeouts ...) is kept. An empty ``env`` is omitted.
* Empty containers on uninstall: in files that exist only to list MCP servers
  (``.mcp.json``, Cursor/VS Code ``mcp.json``, Windsurf ``mcp_config.json``) an
  emptied ``mcpServers``/``servers`` object is kept as ``{}`` (tools create
  those files with the empty object, and ``{}`` alone looks broken). In shared
  settings files (``~/.claude.json``, Gemini and Zed ``settings.json``) an
  emptied container is removed, since install most likely created it. Codex
  TOML has no container: ``[mcp_servers.x]`` headers create it implicitly.
* Backups: before the first write to an existing file, its bytes are copied to
  ``<name>.memoir-tui.bak`` beside it. An existing backup is never overwritten,
  so it always holds the file as it was before memoir-tui first touched it
  (repeated installs, updates and uninstalls keep that one pristine copy rather
  than piling up timestamped ones). A file that did not exist gets no backup.
* Writes go through :func:`memoir_tui.core.fsutil.atomic_write_text`; if the
  config path is a symlink (dotfile managers), the link's target is written so
  the link survives. ``apply_change`` refuses if the file changed since it was
  planned. New files are created with the atomic writer's 0600 mode, which
  suits configs that may carry secrets in ``env``.

Known limits: the Claude Code *local* scope (``projects[<dir>].mcpServers`` in
``~/.claude.json``) is not handled; a Codex entry written with dotted keys or as
an inline table is refused (with a snippet to edit by hand) rather than
rewritten; a TOML file without a final newline gets one back after a round trip.
Hosts the adapters describe but mark not ``installable`` (Copilot CLI, Cline,
Continue) are not offered.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
import sys
import tomllib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from json.decoder import scanstring
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TextIO

from memoir_tui.core.adapters import McpHost, mcp_hosts
from memoir_tui.core.errors import MemoirError
from memoir_tui.core.fsutil import atomic_write_bytes, atomic_write_text

SERVER_NAME = "memoir-tui"
DEFAULT_COMMAND = "memoir-tui"
DEFAULT_ARGS: tuple[str, ...] = ("--mcp",)
BACKUP_SUFFIX = ".memoir-tui.bak"

Scope = Literal["user", "project"]
Action = Literal["install", "uninstall"]


# --------------------------------------------------------------------------- errors


class McpInstallError(MemoirError):
    """Base class: a refusal with a message fit for a person."""


class UnknownToolError(McpInstallError, ValueError):
    def __init__(self, tool: str) -> None:
        self.tool = tool
        super().__init__(f"unknown tool {tool!r}; known tools: {describe_known_tools()}")


class UnsupportedScopeError(McpInstallError, ValueError):
    """The tool has no config file for the requested scope (e.g. Windsurf projects)."""


class InvalidProjectError(McpInstallError, ValueError):
    """``--project`` does not name an existing directory."""


class ConfigRefusedError(McpInstallError):
    """We will not edit this file; it is left byte-identical."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class ConfigParseError(ConfigRefusedError):
    """The file could not be parsed, or its shape is not what the tool documents."""


class StaleConfigError(ConfigRefusedError):
    """The file changed between planning and applying; plan again."""


# --------------------------------------------------------------------------- server


@dataclass(frozen=True)
class ServerSpec:
    """How the host tool should start our server: ``command args...`` with ``env`` added.

    ``env`` is the *server's* environment (e.g. ``{"MEMOIR_HOME": ...}``), not the
    environment used to find config files.
    """

    command: str = DEFAULT_COMMAND
    args: Sequence[str] = DEFAULT_ARGS
    env: Mapping[str, str] = field(default_factory=dict)
    name: str = SERVER_NAME

    def __post_init__(self) -> None:
        # Normalise to immutable values so a frozen spec cannot change under a plan.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        if not self.command or not isinstance(self.command, str):
            raise ValueError("ServerSpec.command must be a non-empty string")
        if not all(isinstance(a, str) for a in self.args):
            raise ValueError("ServerSpec.args must be strings")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in self.env.items()):
            raise ValueError("ServerSpec.env must map strings to strings")
        if not self.name or not isinstance(self.name, str):
            raise ValueError("ServerSpec.name must be a non-empty string")

    def __hash__(self) -> int:
        return hash((self.command, self.args, tuple(self.env.items()), self.name))

    @classmethod
    def python_module(
        cls, executable: str | None = None, env: Mapping[str, str] | None = None
    ) -> ServerSpec:
        """``<python> -m memoir_tui --mcp``: works without the console script on PATH."""
        return cls(
            command=executable or sys.executable,
            args=("-m", "memoir_tui", "--mcp"),
            env=env or {},
        )


# --------------------------------------------------------------------------- tools


def managed_keys(host: McpHost) -> tuple[str, ...]:
    """The keys of our entry that install sets (a user's other keys are kept)."""
    return (*(k for k, _ in host.entry_extras), "command", "args", "env")


def entry_for(host: McpHost, server: ServerSpec) -> dict[str, Any]:
    """Our entry as ``host`` expects it: its fixed keys, then command, args, env."""
    entry: dict[str, Any] = dict(host.entry_extras)
    entry["command"] = server.command
    entry["args"] = list(server.args)
    if server.env:
        entry["env"] = dict(server.env)
    return entry


def known_tools() -> tuple[McpHost, ...]:
    """The hosts install-mcp edits, from the adapters' data."""
    return mcp_hosts(installable=True)


def describe_known_tools() -> str:
    parts = []
    for tool in known_tools():
        alias = f" (alias {', '.join(tool.aliases)})" if tool.aliases else ""
        parts.append(tool.name + alias)
    return ", ".join(parts)


def get_tool(name: str) -> McpHost:
    """The tool named ``name`` or one of its aliases (case-insensitive)."""
    wanted = name.strip().lower()
    for tool in known_tools():
        if wanted == tool.name or wanted in tool.aliases:
            return tool
    raise UnknownToolError(name)


@dataclass(frozen=True)
class ConfigTarget:
    """The file a tool reads for one scope, and whether it is a dedicated MCP file."""

    tool: McpHost
    scope: Scope
    path: Path
    dedicated: bool


def resolve_target(
    tool: str | McpHost,
    *,
    home: Path,
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> ConfigTarget:
    host = tool if isinstance(tool, McpHost) else get_tool(tool)
    env = env if env is not None else {}
    platform = platform or sys.platform
    if project is None:
        return ConfigTarget(
            host, "user", host.user_file(Path(home), env, platform), host.dedicated_user
        )
    project = Path(project)
    path = host.project_file(project)
    if path is None:
        raise UnsupportedScopeError(
            f"{host.name} has no project-level MCP config file; "
            "install it for the user instead (without --project)"
        )
    if not project.is_dir():
        raise InvalidProjectError(f"project directory {project} does not exist")
    return ConfigTarget(host, "project", path, host.dedicated_project)


def resolve_config_path(
    tool: str | McpHost,
    *,
    home: Path,
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> Path:
    """The MCP config file ``tool`` reads: the user file, or the project's with ``project``."""
    return resolve_target(tool, home=home, project=project, env=env, platform=platform).path


# --------------------------------------------------------------------------- the change


@dataclass(frozen=True)
class ConfigChange:
    """A planned edit of one config file. ``old_text`` is None when the file is missing."""

    tool: str
    scope: Scope
    action: Action
    server_name: str
    path: Path
    old_text: str | None
    new_text: str | None
    diff: str

    @property
    def changed(self) -> bool:
        return self.old_text != self.new_text

    @property
    def backup_path(self) -> Path:
        return backup_path_for(self.path)


def backup_path_for(path: Path) -> Path:
    """Where the pre-memoir-tui copy of ``path`` is kept: ``<name>.memoir-tui.bak`` beside it."""
    path = Path(path)
    return path.with_name(path.name + BACKUP_SUFFIX)


def plan_install(
    tool: str | McpHost,
    *,
    home: Path,
    project: Path | None = None,
    server: ServerSpec | None = None,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> ConfigChange:
    """Plan adding (or updating) our server entry in ``tool``'s config. Writes nothing."""
    target = resolve_target(tool, home=home, project=project, env=env, platform=platform)
    return _plan(target, server or ServerSpec(), "install")


def plan_uninstall(
    tool: str | McpHost,
    *,
    home: Path,
    project: Path | None = None,
    server: ServerSpec | None = None,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> ConfigChange:
    """Plan removing our entry (only ours, by ``server.name``). Writes nothing."""
    target = resolve_target(tool, home=home, project=project, env=env, platform=platform)
    return _plan(target, server or ServerSpec(), "uninstall")


def _plan(target: ConfigTarget, server: ServerSpec, action: Action) -> ConfigChange:
    old = _read_config(target.path)
    install = action == "install"
    if target.tool.file_format == "toml":
        new = _edit_toml(old, target, server, install)
    else:
        new = _edit_json(old, target, server, install)
    return ConfigChange(
        tool=target.tool.name,
        scope=target.scope,
        action=action,
        server_name=server.name,
        path=target.path,
        old_text=old,
        new_text=new,
        diff=_unified_diff(target.path, old, new),
    )


def apply_change(change: ConfigChange) -> Path | None:
    """Write a planned change. Returns the backup path if this call created one.

    Nothing is written when the plan has no change. The file must still hold
    exactly ``change.old_text`` (else :class:`StaleConfigError`).
    """
    if not change.changed:
        return None
    if change.new_text is None:  # pragma: no cover - plans never delete files
        raise ValueError("a change that deletes the file is not supported")
    path = change.path
    # Write through a symlink (dotfile managers) instead of replacing the link itself.
    target = path.resolve() if path.is_symlink() else path
    current = _read_bytes(target)
    current_text = None if current is None else current.decode("utf-8", errors="replace")
    if current_text != change.old_text:
        raise StaleConfigError(path, "the file changed since the change was planned; run again")
    backup_created: Path | None = None
    if current is not None:
        backup = backup_path_for(path)
        # Keep the oldest backup: it is the file as it was before memoir-tui ever touched it.
        if not backup.exists() and not backup.is_symlink():
            atomic_write_bytes(backup, current, mode=target.stat().st_mode & 0o7777)
            backup_created = backup
    atomic_write_text(target, change.new_text)
    return backup_created


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _read_config(path: Path) -> str | None:
    if path.is_dir():
        raise ConfigParseError(path, "is a directory, not a config file")
    try:
        data = _read_bytes(path)
    except OSError as exc:
        raise ConfigRefusedError(path, f"cannot read: {exc.strerror or exc}") from exc
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigParseError(
            path, f"is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from exc


def _split_lines(text: str) -> list[str]:
    # Only "\n" ends a line here: str.splitlines would also split on U+2028 etc.
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def _unified_diff(path: Path, old: str | None, new: str | None) -> str:
    if old == new:
        return ""
    lines = difflib.unified_diff(
        _split_lines(old or ""),
        _split_lines(new or ""),
        fromfile="/dev/null" if old is None else str(path),
        tofile="/dev/null" if new is None else str(path),
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _split_bom(text: str) -> tuple[str, str]:
    # Parsers reject a BOM; keep it aside and put it back so the bytes stay the user's.
    if text.startswith("\ufeff"):
        return "\ufeff", text[1:]
    return "", text


def _merged_entry(current: Any, desired: dict[str, Any], managed: Sequence[str]) -> dict[str, Any]:
    """Our desired entry, keeping any extra keys a user put on an existing entry."""
    if not isinstance(current, dict):
        return dict(desired)
    merged = dict(current)
    for key in managed:
        if key in desired:
            merged[key] = desired[key]
        else:
            merged.pop(key, None)
    return merged


def manual_snippet(tool: str | McpHost, server: ServerSpec | None = None) -> str:
    """What to add by hand when we refuse to edit a file."""
    host = tool if isinstance(tool, McpHost) else get_tool(tool)
    server = server or ServerSpec()
    entry = entry_for(host, server)
    if host.file_format == "toml":
        return _render_toml_table(server.name, entry, "\n")
    return json.dumps({host.container: {server.name: entry}}, indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------- JSON / JSONC


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
        i = self._skip(start + 1)
        while True:
            if i >= self.n:
                raise _JsoncSyntaxError("unterminated array", start)
            if text[i] == "]":
                return _Node("array", start, i + 1, items), i + 1
            node, j = self._value(i)
            items.append(node.value)
            j = self._skip(j)
            if text[j : j + 1] == ",":
                j = self._skip(j + 1)
            elif j >= self.n:
                raise _JsoncSyntaxError("unterminated array", start)
            elif text[j] != "]":
                raise _JsoncSyntaxError("expected ',' or ']' after a value", j)
            i = j


def _parse_jsonc(text: str, path: Path) -> _Node:
    try:
        return _JsoncReader(text).document()
    except _JsoncSyntaxError as exc:
        line = text.count("\n", 0, exc.offset) + 1
        column = exc.offset - (text.rfind("\n", 0, exc.offset) + 1) + 1
        raise ConfigParseError(
            path, f"invalid JSON at line {line}, column {column}: {exc.message}"
        ) from None
    except RecursionError:
        raise ConfigParseError(path, "invalid JSON: nested too deeply") from None


def _is_strict_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
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


def _fresh_json(target: ConfigTarget, name: str, entry: dict[str, Any]) -> str:
    doc = {target.tool.container: {name: entry}}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _edit_json(
    text: str | None, target: ConfigTarget, server: ServerSpec, install: bool
) -> str | None:
    tool, path, name = target.tool, target.path, server.name
    key = tool.container
    desired = entry_for(tool, server)
    if text is None or _is_blank(text.lstrip("\ufeff")):
        # A missing or empty file holds no servers: create it on install, leave it otherwise.
        if not install:
            return text
        bom, _ = _split_bom(text or "")
        return bom + _fresh_json(target, name, desired)
    bom, body = _split_bom(text)
    strict = _is_strict_json(body)
    root = _parse_jsonc(body, path)
    if root.kind != "object":
        raise ConfigParseError(path, "the top level is not a JSON object")
    container = _last_member(root, key)
    if container is not None and container.value.kind != "object":
        raise ConfigParseError(path, f"{key!r} is not a JSON object")
    style = _detect_json_style(body, root)
    expected = copy.deepcopy(root.value)

    if install:
        servers = container.value.value if container else {}
        merged = _merged_entry(servers.get(name), desired, managed_keys(tool))
        if name in servers and servers[name] == merged:
            return text
        if container is None:
            edits = _insert_member_edits(body, root, key, {name: merged}, style, True)
        else:
            obj = container.value
            ours = _last_member(obj, name)
            root_multiline = "\n" in body[root.start : root.end]
            if ours is None:
                edits = _insert_member_edits(body, obj, name, merged, style, root_multiline)
            else:
                multiline = "\n" in body[obj.start : obj.end]
                indent = (
                    _indent_at(body, ours.key_start)
                    if _starts_line(body, ours.key_start)
                    else _member_indent(body, obj, style)
                )
                rendered = _render_json(merged, indent, style, multiline)
                edits = [(ours.value.start, ours.value.end, rendered)]
        new_body = _apply_edits(body, edits)
        expected.setdefault(key, {})[name] = merged
    else:
        if container is None or name not in container.value.value:
            return text
        new_body = body
        # Remove every occurrence (duplicate keys), the effective last one first.
        while True:
            root_now = _parse_jsonc(new_body, path)
            holder = _last_member(root_now, key)
            ours = _last_member(holder.value, name) if holder else None
            if holder is None or ours is None:
                break
            new_body = _apply_edits(new_body, _remove_member_edits(new_body, holder.value, ours))
        del expected[key][name]
        if not target.dedicated and not expected[key]:
            root_now = _parse_jsonc(new_body, path)
            holders = [m for m in root_now.members if m.key == key]
            holder = holders[-1]
            # Only an empty container with nothing (no comments) inside goes.
            if len(holders) == 1 and _is_blank(_body_between(new_body, holder.value)):
                new_body = _apply_edits(new_body, _remove_member_edits(new_body, root_now, holder))
                del expected[key]

    _verify_json(new_body, expected, strict, path)
    return bom + new_body


def _body_between(text: str, obj: _Node) -> str:
    """The text between an object's braces."""
    return text[obj.start + 1 : obj.end - 1]


_VERIFY_FAILED = object()  # never equal to any parsed document


def _verify_json(new_body: str, expected: Any, strict: bool, path: Path) -> None:
    try:
        actual = json.loads(new_body) if strict else _parse_jsonc(new_body, path).value
    except (ValueError, ConfigParseError):
        actual = _VERIFY_FAILED
    if actual != expected:
        raise ConfigRefusedError(
            path,
            "internal check failed: the edit would change more than the memoir-tui entry "
            "(please report this); nothing was written",
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


def _toml_entry_spans(text: str, name: str) -> list[tuple[int, int]]:
    headers = _toml_headers(text)
    spans: list[list[int]] = []
    for index, header in enumerate(headers):
        if header.key[:2] != ("mcp_servers", name):
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
    # Enough TOML for MCP entries: our keys plus whatever a user added to our table.
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


def _render_toml_table(name: str, entry: Mapping[str, Any], nl: str) -> str:
    lines = [f"[mcp_servers.{_toml_key(name)}]"]
    lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in entry.items()]
    return nl.join(lines) + nl


def _without_entry(data: dict[str, Any], name: str) -> dict[str, Any]:
    """``data`` minus our server, with an emptied ``mcp_servers`` counted as absent."""
    data = copy.deepcopy(data)
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        servers.pop(name, None)
        if not servers:
            del data["mcp_servers"]
    return data


def _load_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigParseError(path, f"invalid TOML: {exc}") from None


def _edit_toml(
    text: str | None, target: ConfigTarget, server: ServerSpec, install: bool
) -> str | None:
    tool, path, name = target.tool, target.path, server.name
    desired = entry_for(tool, server)
    if text is None:
        return _render_toml_table(name, desired, "\n") if install else None
    bom, body = _split_bom(text)
    data = _load_toml(body, path)
    servers = data.get("mcp_servers")
    if servers is not None and not isinstance(servers, dict):
        raise ConfigParseError(path, "'mcp_servers' is not a table")
    servers = servers or {}
    merged = _merged_entry(servers.get(name), desired, managed_keys(tool))
    if install and name in servers and servers[name] == merged:
        return text
    if not install and name not in servers:
        return text

    try:
        spans = _toml_entry_spans(body, name)
    except (ValueError, IndexError):
        # tomllib accepted the file but our header scan did not: refuse rather than guess.
        raise ConfigRefusedError(
            path, "could not locate the table headers safely; edit it by hand"
        ) from None
    stripped = _cut_toml_spans(body, spans)
    try:
        remaining = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError:
        remaining = None
    if remaining is not None and name in (remaining.get("mcp_servers") or {}):
        raise ConfigRefusedError(
            path,
            f"the {name!r} server is written with dotted keys or an inline table, "
            "which memoir-tui does not rewrite; edit it by hand",
        )
    if remaining is None or _without_entry(remaining, name) != _without_entry(data, name):
        raise ConfigRefusedError(
            path, "internal check failed: removing our table would change other settings"
        )
    if not install:
        return bom + stripped

    nl = "\r\n" if "\r\n" in body else "\n"
    new_body = _append_toml_table(stripped, _render_toml_table(name, merged, nl), nl)
    try:
        new_data = tomllib.loads(new_body)
    except tomllib.TOMLDecodeError as exc:
        # e.g. ``mcp_servers = { ... }`` is an inline table, which a later header cannot extend.
        raise ConfigRefusedError(
            path, f"appending our table would make the file invalid ({exc})"
        ) from None
    new_servers = new_data.get("mcp_servers")
    if (
        not isinstance(new_servers, dict)
        or new_servers.get(name) != merged
        or _without_entry(new_data, name) != _without_entry(data, name)
    ):
        raise ConfigRefusedError(path, "appending our table would not give the expected settings")
    return bom + new_body


# --------------------------------------------------------------------------- CLI face


def run_install_cli(
    tool: str,
    project: Path | None,
    dry_run: bool,
    uninstall: bool,
    *,
    home: Path,
    env: Mapping[str, str],
    out: TextIO,
    server: ServerSpec | None = None,
    platform: str | None = None,
) -> int:
    """``memoir-tui install-mcp`` / ``uninstall-mcp``: plan, then print the diff or apply.

    Exit codes: 0 done (or nothing to do), 1 refused (unparseable file, unsafe
    edit, write failure; the file is untouched), 2 usage (unknown tool, a scope
    the tool lacks, a missing project directory).
    """
    server = server or ServerSpec()
    try:
        host = get_tool(tool)
    except UnknownToolError as exc:
        print(f"memoir-tui: {exc}", file=out)
        return 2
    planner = plan_uninstall if uninstall else plan_install
    try:
        change = planner(
            host, home=home, project=project, server=server, env=env, platform=platform
        )
    except (UnsupportedScopeError, InvalidProjectError) as exc:
        print(f"memoir-tui: {exc}", file=out)
        return 2
    except ConfigRefusedError as exc:
        print(f"memoir-tui: refusing to edit {exc.path}: {exc.reason}", file=out)
        print("The file was left untouched.", file=out)
        if not uninstall:
            print(f"To register the server by hand, merge this into {exc.path}:", file=out)
            print(manual_snippet(host, server), file=out)
        return 1

    where = f"{host.name} ({change.scope})"
    if not change.changed:
        if uninstall:
            print(
                f"MCP server {server.name!r} is not registered for {where} in {change.path}; "
                "nothing to do",
                file=out,
            )
        else:
            print(
                f"MCP server {server.name!r} is already registered for {where} "
                f"in {change.path}; nothing to do",
                file=out,
            )
        return 0
    if dry_run:
        out.write(change.diff)
        print(f"(dry run: {change.path} was not written)", file=out)
        return 0
    try:
        backup = apply_change(change)
    except ConfigRefusedError as exc:
        print(f"memoir-tui: refusing to edit {exc.path}: {exc.reason}", file=out)
        return 1
    except OSError as exc:
        print(f"memoir-tui: could not write {change.path}: {exc}", file=out)
        return 1
    verb = "Removed" if uninstall else "Registered"
    preposition = "from" if uninstall else "in"
    kept = f"; original saved as {backup}" if backup else ""
    print(
        f"{verb} MCP server {server.name!r} for {where} {preposition} {change.path}{kept}", file=out
    )
    return 0
