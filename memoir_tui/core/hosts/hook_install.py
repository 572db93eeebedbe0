"""Install (and remove) memoir-tui's hooks in a host's settings file, touching nothing else.

The hosts here (``adapters.hook_hosts``) nest hooks alike:
``{"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command",
"command": "…"}]}]}}``. Our handlers are recognised by their command alone —
it names ``memoir-tui`` (or ``memoir_tui``) and ``hook <verb> --host <host>`` —
so a user's own handlers, in their own groups or in a group with ours, are
kept as they are, and so are every other key and every other event.

The guarantees are those of ``install-mcp`` (``core.mcp_install``), on which
this builds: planning is separate from writing; the edit is textual (one
event's list is spliced in, ``core.config_splice``), and refused when the text
does not parse or has another shape (never clobbered); the first write keeps a
backup beside the file; the file's mode is kept; installing twice changes
nothing; and uninstalling gives back the bytes from before the install
whenever nothing else changed since (else only our handlers are cut out).

The JavaScript memoir treats any hook command containing ``memoir`` as its own:
its ``hooks install`` would replace ours, its uninstall would remove them.
``foreign_memoir_hooks`` finds its handlers so faces can say so.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoir_tui.core.hosts import config_splice
from memoir_tui.core.hosts.adapters import HookEvent, HookHost, hook_host
from memoir_tui.core.hosts.config_splice import ConfigTextError, UnparseableConfig
from memoir_tui.core.hosts.mcp_install import (
    ConfigChange,
    ConfigParseError,
    backup_path_for,
    read_config_text,
    unified_diff,
)

CONTAINER = "hooks"
_OURS_RE = re.compile(
    r"memoir[-_]tui\b.*\bhook\s+(session-start|stop|pre-compact|session-end)\s+--host\s+(\w+)"
)


@dataclass(frozen=True, slots=True)
class HookCommand:
    """How the host should run us: ``program`` (already shell-quoted words) and the store."""

    program: str = "memoir-tui"
    store: Path | None = None

    def for_event(self, host: HookHost, event: HookEvent) -> str:
        store = f" --store {shlex.quote(str(self.store))}" if self.store else ""
        return f"{self.program}{store} hook {event.verb} --host {host.name}"


def is_ours(command: Any) -> bool:
    return ours_for(command) is not None


def ours_for(command: Any) -> tuple[str, str] | None:
    """``(verb, host)`` of one of our commands, else None."""
    if not isinstance(command, str):
        return None
    match = _OURS_RE.search(command)
    return (match.group(1), match.group(2)) if match else None


def handler_for(host: HookHost, event: HookEvent, command: HookCommand) -> dict[str, Any]:
    handler: dict[str, Any] = {"type": "command", "command": command.for_event(host, event)}
    if host.name == "gemini":  # Gemini CLI names its handlers in its UI
        handler = {"name": f"memoir-tui-{event.verb}", **handler}
    handler["timeout"] = event.timeout
    if event.background:
        handler["async"] = True
    return handler


def group_for(host: HookHost, event: HookEvent, command: HookCommand) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if event.matcher is not None:
        group["matcher"] = event.matcher
    group["hooks"] = [handler_for(host, event, command)]
    return group


def _handlers(group: Any) -> list[Any]:
    return (
        group.get("hooks")
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        else []
    )


def _check_shape(path: Path, events: Mapping[str, Any], names: Sequence[str]) -> None:
    for name in names:
        groups = events.get(name)
        if groups is None:
            continue
        if not isinstance(groups, list):
            raise ConfigParseError(path, f'"hooks.{name}" is not a list; it is left as it is')
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise ConfigParseError(
                    path, f'"hooks.{name}" holds an entry that is not a hook group'
                )


def _has_ours(group: Any) -> bool:
    return any(isinstance(h, dict) and is_ours(h.get("command")) for h in _handlers(group))


def _without_ours(group: dict[str, Any]) -> dict[str, Any] | None:
    """A group with our handlers cut out (None when nothing of the user's is left)."""
    kept = [h for h in _handlers(group) if not (isinstance(h, dict) and is_ours(h.get("command")))]
    return {**group, "hooks": kept} if kept else None


def _read_events(path: Path, text: str | None) -> dict[str, Any]:
    if text is None:
        return {}
    try:
        return config_splice.json_entries(text, CONTAINER)
    except ConfigTextError as exc:
        raise ConfigParseError(path, exc.reason) from exc


def _edit(
    path: Path, text: str | None, host: HookHost, command: HookCommand, install: bool
) -> str | None:
    """Our groups cut out of (and, to install, one appended to) each event's list.

    Items are spliced one by one, so the user's groups keep their bytes; a group
    holding the user's handlers beside ours keeps theirs.
    """
    events = _read_events(path, text)
    _check_shape(path, events, [e.host_event for e in host.events])
    new = text
    try:
        for event in host.events:
            groups = list(events.get(event.host_event) or [])
            wanted = group_for(host, event, command)
            ours = [i for i, g in enumerate(groups) if _has_ours(g)]
            if install and ours == [len(groups) - 1] and groups[-1] == wanted:
                continue  # already there, exactly: installing twice changes nothing
            for index in reversed(ours):
                rest = _without_ours(groups[index])
                if rest is None:
                    new = config_splice.remove_json_array_item(
                        new or "", CONTAINER, event.host_event, index
                    )
                else:
                    new = config_splice.replace_json_array_item(
                        new or "", CONTAINER, event.host_event, index, rest
                    )
            if install:
                new = config_splice.append_json_array_item(
                    new or "", CONTAINER, event.host_event, wanted
                )
    except UnparseableConfig as exc:
        raise ConfigParseError(path, exc.reason) from exc
    except ConfigTextError as exc:
        raise ConfigParseError(path, f"cannot be edited safely: {exc.reason}") from exc
    return new


def settings_paths(
    host: HookHost, *, home: Path, env: Mapping[str, str], project: Path | None
) -> list[Path]:
    """Every settings file the host reads hooks from here: the user's, then the
    project's (when a project is given and the host has one)."""
    paths = [host.user_file(home, env)]
    if project is not None and host.project_file(project) is not None:
        paths.append(settings_path(host, home=home, env=env, project=project))
    return paths


def settings_path(
    host: HookHost, *, home: Path, env: Mapping[str, str], project: Path | None
) -> Path:
    if project is None:
        return host.user_file(home, env)
    path = host.project_file(project)
    if path is None:
        raise ConfigParseError(project, f"{host.label} has no project hooks file")
    return path


def plan(
    host_name: str,
    *,
    install: bool,
    home: Path,
    env: Mapping[str, str],
    project: Path | None = None,
    command: HookCommand | None = None,
) -> ConfigChange:
    """Plan adding (or removing) our hooks for ``host_name``. Writes nothing."""
    host = hook_host(host_name)
    command = command or HookCommand()
    path = settings_path(host, home=home, env=env, project=project)
    old = read_config_text(path)
    new = _edit(path, old, host, command, install)
    if not install and old is not None and new != old:
        new = _restored_backup(path, old, host, command) or new
    return ConfigChange(
        tool=host.name,
        scope="project" if project is not None else "user",
        action="install" if install else "uninstall",
        server_name="memoir-tui hooks",
        path=path,
        old_text=old,
        new_text=new,
        diff=unified_diff(path, old, new),
        kind="hooks",
    )


def _restored_backup(path: Path, current: str, host: HookHost, command: HookCommand) -> str | None:
    """The backup's text when the file is exactly what installing into it made."""
    try:
        backup = read_config_text(backup_path_for(path))
        if backup is None:
            return None
        # Only a file with none of our hooks before is a backup to go back to.
        if _edit(path, backup, host, command, install=False) != backup:
            return None
        return backup if _edit(path, backup, host, command, install=True) == current else None
    except ConfigParseError:
        return None


# --- what is there ------------------------------------------------------------------


def matcher_matches(rule: str, matcher: Any, value: str) -> bool:
    """Whether a host running ``rule`` (``HookHost.matcher_rule``) fires a group with
    ``matcher`` for a lifecycle event whose source is ``value``.

    Absent, empty and ``*`` match everything on every host here. Gemini CLI
    compares the whole string (``matcher === trigger``), so ``startup|resume``
    matches no source. Claude Code and Codex read ``a|b`` of plain words as
    exact alternatives and anything else as a regular expression matched in
    full.
    """
    if matcher is None:
        return True
    if not isinstance(matcher, str):
        return False
    wanted = matcher.strip()
    if wanted in ("", "*"):
        return True
    if rule == "exact":
        return wanted == value
    if re.fullmatch(r"[\w\s|-]+", wanted):
        return any(part.strip() == value for part in wanted.split("|"))
    try:
        return re.fullmatch(wanted, value) is not None
    except re.error:
        return False


@dataclass(frozen=True, slots=True)
class InstalledHook:
    host: str
    path: Path
    host_event: str
    verb: str
    command: str
    matcher: str | None
    name: str | None = None  # the handler's "name" (Gemini lists names it skips)
    timeout: float | None = None  # in the host's unit, as written
    group: int = 0  # where it is: the group's index in the event's list
    index: int = 0  # and the handler's in the group


@dataclass(frozen=True, slots=True)
class HooksState:
    """What one settings file holds of ours and of the JavaScript memoir's."""

    host: HookHost
    path: Path
    exists: bool
    ours: tuple[InstalledHook, ...]
    foreign_memoir: tuple[tuple[str, str], ...]  # (event, command)
    disabled: tuple[str, ...]  # settings that turn the host's hooks off
    missing: tuple[str, ...]  # our events not installed
    error: str = ""


def _get(data: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def read_state(host_name: str, path: Path) -> HooksState:
    host = hook_host(host_name)
    try:
        text = read_config_text(path)
    except ConfigParseError as exc:
        return HooksState(host, path, True, (), (), (), (), error=exc.reason)
    if text is None:
        return HooksState(host, path, False, (), (), (), tuple(e.host_event for e in host.events))
    try:
        whole = _whole(text)
        events = _read_events(path, text)
    except ConfigParseError as exc:
        return HooksState(host, path, True, (), (), (), (), error=exc.reason)
    except ConfigTextError as exc:
        return HooksState(host, path, True, (), (), (), (), error=exc.reason)
    ours: list[InstalledHook] = []
    foreign: list[tuple[str, str]] = []
    for name, groups in events.items():
        if not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            for i, handler in enumerate(_handlers(group)):
                cmd = handler.get("command") if isinstance(handler, dict) else None
                if not isinstance(cmd, str):
                    continue
                found = ours_for(cmd)
                if found and found[1] == host.name:
                    matcher = group.get("matcher") if isinstance(group, dict) else None
                    label = handler.get("name")
                    timeout = handler.get("timeout")
                    ours.append(
                        InstalledHook(
                            host.name,
                            path,
                            name,
                            found[0],
                            cmd,
                            matcher,
                            label if isinstance(label, str) else None,
                            float(timeout)
                            if isinstance(timeout, int | float) and not isinstance(timeout, bool)
                            else None,
                            g,
                            i,
                        )
                    )
                elif "memoir" in cmd.lower() and not found:
                    foreign.append((name, cmd))
    disabled = tuple(
        ".".join(keys) + f" = {json.dumps(value)}"
        for keys, value in host.disabled_by
        if _get(whole, keys) == value
    )
    have = {h.host_event for h in ours}
    missing = tuple(e.host_event for e in host.events if e.host_event not in have)
    return HooksState(host, path, True, tuple(ours), tuple(foreign), disabled, missing)


def _whole(text: str) -> dict[str, Any]:
    """The whole settings document as data (comments and trailing commas tolerated)."""
    value = config_splice.parse_jsonc_value(text)
    return value if isinstance(value, dict) else {}
