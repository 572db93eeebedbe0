"""Register (and unregister) memoir-tui's stdio MCP server in host coding tools' config files.

Each host tool keeps its MCP servers in a file of its own shape: a JSON object
under ``mcpServers`` (Claude Code, Cursor, Gemini CLI, Windsurf), ``servers``
(VS Code / Copilot) or ``context_servers`` (Zed, whose settings are JSON with
comments), or TOML ``[mcp_servers.<name>]`` tables (Codex). Where each file
lives, per scope and platform, and its shape come from the adapters' data
(``memoir_tui.core.hosts.adapters``, each adapter's ``mcp`` hosts): this module
spells no path. Several of those files also hold a great deal of unrelated
state (``~/.claude.json``, editor settings), so the one rule here is:
**change our entry and nothing else**.

Design
------
* Planning is separate from writing. ``plan_install`` / ``plan_uninstall``
  read the file and return a frozen :class:`ConfigChange` (path, old text, new
  text, unified diff); ``apply_change`` is the one function that writes. A dry
  run is a plan that is shown instead of applied. Paths are resolved from an
  explicit ``home`` and ``env`` mapping (never ``Path.home()`` or
  ``os.environ`` implicitly), so tests and previews run on scratch directories.
* Edits are textual, never a reserialisation: ``memoir_tui.core.hosts.config_splice``
  splices our member into (or out of) the JSON/JSONC text, or cuts and appends
  our TOML table, keeping every other byte, comment and the file's layout, and
  refuses any edit whose result would differ from the old data plus (or minus)
  our entry. Install/uninstall round trips restore the original bytes.
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
* Writes go through :func:`memoir_tui.core.base.fsutil.atomic_write_text`; if the
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

import difflib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.identity import text_hash
from memoir_tui.core.format.items import FILES
from memoir_tui.core.hosts import config_splice
from memoir_tui.core.hosts.adapters import McpHost, mcp_hosts
from memoir_tui.core.hosts.config_splice import ConfigTextError, UnparseableConfig

if TYPE_CHECKING:
    from memoir_tui.core.door.store import Store

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
    def __init__(self, tool: str, why: str = "") -> None:
        self.tool = tool
        super().__init__(why or f"unknown tool {tool!r}; known tools: {describe_known_tools()}")


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
    if host.entry_shape == "opencode":
        return (*(k for k, _ in host.entry_extras), "command", "environment")
    return (*(k for k, _ in host.entry_extras), "command", "args", "env")


def entry_for(host: McpHost, server: ServerSpec) -> dict[str, Any]:
    """Our entry as ``host`` expects it: its fixed keys, then command, args, env."""
    entry: dict[str, Any] = dict(host.entry_extras)
    if host.entry_shape == "opencode":
        entry["command"] = [server.command, *server.args]
        entry["enabled"] = True  # a default: a user who switched it off keeps that
        entry.update((k, list(v) if isinstance(v, tuple) else v) for k, v in host.entry_defaults)
        if server.env:
            entry["environment"] = dict(server.env)
        return entry
    entry["command"] = server.command
    entry["args"] = list(server.args)
    entry.update((k, list(v) if isinstance(v, tuple) else v) for k, v in host.entry_defaults)
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
    """The host named ``name`` or one of its aliases, else the first host of the tool the
    registry's one resolver reads in ``name`` (``claude``, ``Claude Code``, ``vscode`` …)."""
    from memoir_tui.core.hosts.adapters import BY_NAME, fold_tool_name, resolve_tool

    wanted = fold_tool_name(name) if isinstance(name, str) else ""
    for tool in known_tools():
        if wanted == tool.name or wanted in tool.aliases:
            return tool
    for described in mcp_hosts(installable=False):
        if wanted == described.name:
            # Described, not edited: Continue's YAML gets the block to add by hand.
            if described.file_format == "yaml":
                raise UnknownToolError(name, _refusal(described))
            raise UnknownToolError(name)
    try:
        adapter = BY_NAME[resolve_tool(name)]
    except MemoirError:
        raise UnknownToolError(name) from None
    for tool in adapter.mcp:
        if tool in known_tools():
            return tool
    raise UnknownToolError(name)


def _refusal(host: McpHost) -> str:
    """Why ``host`` is not edited, and what to add by hand."""
    entry = entry_for(host, ServerSpec())
    args = "".join(f"\n      - {a}" for a in entry.get("args", []))
    snippet = f"  - name: {SERVER_NAME}\n    command: {entry['command']}\n    args:{args}"
    return (
        f"{host.name}'s {host.file_format.upper()} config is not edited: memoir-tui cannot "
        "splice a YAML list byte-exact, so it refuses rather than rewrite your file. Add "
        f"this under mcpServers: in {host.user[0].root.shown(host.user[0].file)} yourself:"
        f"\n{snippet}"
    )


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
    kind: str = "mcp"  # "mcp" | "hooks": names the audit operation and list

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
    old = read_config_text(target.path)
    new = _edit(old, target, server, action == "install")
    return ConfigChange(
        tool=target.tool.name,
        scope=target.scope,
        action=action,
        server_name=server.name,
        path=target.path,
        old_text=old,
        new_text=new,
        diff=unified_diff(target.path, old, new),
    )


def apply_change(store: Store, change: ConfigChange) -> Path | None:
    """Write a planned change through the store's door (locked, atomic, audited; the
    backup and the edit land together). Returns the backup it made.

    Nothing is written when the plan has no change. The file must still hold
    exactly ``change.old_text`` (else :class:`StaleConfigError`).
    """
    if not change.changed:
        return None
    if change.new_text is None:  # pragma: no cover - plans never delete files
        raise ValueError("a change that deletes the file is not supported")
    path = change.path
    # Written through a symlink (dotfile managers) only when it stays inside the home:
    # the transaction resolves it (``safeio.write_target``) and keeps the link.
    target = path
    backup_created: Path | None = None
    op = f"{'uninstall' if change.action == 'uninstall' else 'install'}_{change.kind}"
    with store.transaction(op, files=(FILES,)) as tx:
        current = tx.read_bytes(target)
        current_text = None if current is None else current.decode("utf-8", errors="replace")
        if current_text != change.old_text:
            raise StaleConfigError(path, "the file changed since the change was planned; run again")
        if current is not None:
            backup = backup_path_for(path)
            # Keep the oldest backup: the file as it was before memoir-tui ever touched it.
            if not backup.exists() and not backup.is_symlink():
                tx.create(backup, current, mode=target.stat().st_mode & 0o7777, scan=False)
                backup_created = backup
        # Other servers' entries may carry their own tokens: only what we add is new.
        tx.write_text(target, change.new_text)
        tx.audit(op, f"{change.kind}_config", text_hash(str(target)))
    return backup_created


def _read_bytes(path: Path) -> bytes | None:
    from memoir_tui.core.base.safeio import (
        home_folder,
        owner_folder,
        read_file_safely,
        write_target,
    )

    # a link out of the home is named, never read (nor written: the transaction refuses)
    write_target(path, within=owner_folder(path, home_folder()))
    try:
        return read_file_safely(path, max_bytes=64 * 1024 * 1024)
    except FileNotFoundError:
        return None


def read_config_text(path: Path) -> str | None:
    if path.is_dir():
        raise ConfigParseError(path, "is a directory, not a config file")
    from memoir_tui.core.base.safeio import LinkOutsideError

    try:
        data = _read_bytes(path)
    except LinkOutsideError:
        raise
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


def unified_diff(path: Path, old: str | None, new: str | None) -> str:
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
    for key, value in desired.items():  # a host's defaults, where the user set none
        if key not in managed and key not in merged:
            merged[key] = value
    return merged


def manual_snippet(tool: str | McpHost, server: ServerSpec | None = None) -> str:
    """What to add by hand when we refuse to edit a file."""
    host = tool if isinstance(tool, McpHost) else get_tool(tool)
    server = server or ServerSpec()
    entry = entry_for(host, server)
    if host.file_format == "toml":
        return config_splice.render_toml_table(host.container, server.name, entry)
    return json.dumps({host.container: {server.name: entry}}, indent=2, ensure_ascii=False)


def _edit(text: str | None, target: ConfigTarget, server: ServerSpec, install: bool) -> str | None:
    """The file's new text with our entry added or updated (install) or removed."""
    host, name = target.tool, server.name
    toml = host.file_format == "toml"
    try:
        if install:
            desired = entry_for(host, server)
            if text is None:
                if toml:
                    return config_splice.render_toml_table(host.container, name, desired)
                return config_splice.new_json_document(host.container, name, desired)
            read = config_splice.toml_entries if toml else config_splice.json_entries
            merged = _merged_entry(
                read(text, host.container).get(name), desired, managed_keys(host)
            )
            if toml:
                return config_splice.put_toml_table(text, host.container, name, merged)
            return config_splice.put_json_entry(text, host.container, name, merged)
        if text is None:
            return None
        if toml:
            return config_splice.remove_toml_table(text, host.container, name)
        return config_splice.remove_json_entry(
            text, host.container, name, drop_empty_container=not target.dedicated
        )
    except UnparseableConfig as exc:
        raise ConfigParseError(target.path, exc.reason) from None
    except ConfigTextError as exc:
        raise ConfigRefusedError(target.path, exc.reason) from None
