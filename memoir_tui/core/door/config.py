"""``memoir-tui.toml``: one typed, documented config file in the store directory.

Named so it cannot collide with the JavaScript tool's ``config.json`` in the
same folder. A missing file means defaults; an invalid value is a
``ConfigError`` naming the key and its line — never a traceback. A section or key
this version does not know (as a newer memoir-tui would write) is read past with a
warning (``Config.warnings``), never refused: the file stays forward-compatible.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.format.merge import Caps

CONFIG_FILE = "memoir-tui.toml"

KNOWN_TOOLS = (
    "memoir",
    "claude-code",
    "cursor",
    "windsurf",
    "gemini",
    "codex",
    "copilot",
    "cline",
    "continue",
    "zed",
    "kiro",
    "serena",
    "amazonq",
    "aider",
    "opencode",
    "agents-md",
)


INJECT_TARGETS = (
    "claude",
    "claude-project",
    "agents-md",
    "codex",
    "gemini",
    "gemini-project",
    "cursor",
    "windsurf",
)


@dataclass(frozen=True, slots=True)
class ConsolidateSettings:
    """``[consolidate]``: bounds for the clean-up proposals."""

    near_duplicate_threshold: float = 85.0  # rapidfuzz ratio, 0-100
    stale_action_days: int = 30
    stale_question_days: int = 30
    stale_entry_days: int = 180
    bloat_bytes: int = 8 * 1024
    bloat_lines: int = 200
    index_max_lines: int = 200  # Claude Code loads MEMORY.md up to 200 lines ...
    index_max_bytes: int = 25_000  # ... or 25 KB, whichever comes first


@dataclass(frozen=True, slots=True)
class InjectConfig:
    """``[inject]``: the pinned working-set block in assistants' instruction files."""

    enabled: bool = False  # inject after every mutation
    targets: tuple[str, ...] = INJECT_TARGETS
    projects: tuple[Path, ...] = ()
    max_block_chars: int = 4000
    all_projects: bool = False  # global files also show project-scoped items


class ConfigError(MemoirError):
    """An invalid config value, with the key and line that hold it."""

    def __init__(self, path: Path, key: str, message: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: [{key}] {message}")
        self.path, self.key, self.line = path, key, line


@dataclass(frozen=True, slots=True)
class Config:
    """Settings read from ``memoir-tui.toml`` (or defaults)."""

    path: Path
    lock_wait_seconds: float = 10.0
    caps: Caps = field(default_factory=Caps)
    project_roots: tuple[Path, ...] = ()
    tools: tuple[str, ...] = KNOWN_TOOLS
    exists: bool = False
    # a recall query stats every indexed file while the index holds at most this many
    recall_full_check_files: int = 20_000
    consolidate: ConsolidateSettings = field(default_factory=ConsolidateSettings)
    inject: InjectConfig = field(default_factory=InjectConfig)
    theme: str | None = None  # [app] theme: the app's colour theme, remembered across runs
    # Where the visible caps come from: "defaults" (ours), "config" ([caps] sets them all)
    # or "javascript" (the JavaScript tool's files are in this store: its caps, except
    # those [caps] sets); ``js_footprint`` names the file that showed it.
    caps_source: str = "defaults"
    js_footprint: str = ""
    caps_set: tuple[str, ...] = ()  # the visible caps [caps] sets itself
    # one sentence per section or key this version does not know (read past, never refused)
    warnings: tuple[str, ...] = ()

    @property
    def caps_note(self) -> str:
        """One line saying which visible caps are in force and why."""
        caps = self.caps
        numbers = "/".join(str(getattr(caps, name)) for name in VISIBLE_CAPS)
        why = (
            f"{self.js_footprint} keeps only these"
            if self.js_footprint.endswith(" on PATH")
            else "its files are in this store"
        )
        if self.caps_source == "javascript" and not self.caps_set:
            return (
                f"caps: JavaScript memoir's ({numbers}) — {why}; "
                "set [caps] to change" + memoir_sharing_note()
            )
        if self.caps_source == "javascript":
            return (
                f"caps: {numbers} — JavaScript memoir's where [caps] in {self.path.name} does "
                f"not set them ({why})" + memoir_sharing_note()
            )
        if self.caps_source == "config" and len(self.caps_set) < len(VISIBLE_CAPS):
            return f"caps: {numbers} — [caps] in {self.path.name}, else memoir-tui's defaults"
        if self.caps_source == "config":
            return f"caps: {numbers} — set by [caps] in {self.path.name}"
        return f"caps: memoir-tui's defaults ({numbers}); set [caps] to change"


# The visible caps, in the order ``caps_note`` names them (goals/next actions/questions/
# decisions), and the JavaScript tool's values for them (FORMAT §3): it trims every list
# to these on each write, silently, so sharing a store we keep to them too.
VISIBLE_CAPS = ("goals", "next_actions", "open_questions", "decisions")
JS_CAPS = {"goals": 3, "next_actions": 8, "open_questions": 5, "decisions": 10}
# telemetry-id/telemetry-disclosed: memoir 3.12 writes them on its first run, even for
# `next` and `ask`, which leave no events.jsonl.
JS_FOOTPRINT_FILES = ("config.json", "events.jsonl", "telemetry-id", "telemetry-disclosed")


@functools.lru_cache(maxsize=1)
def installed_memoir_version() -> str:
    """The version of the JavaScript ``memoir`` on PATH ("" if none or unknown), read
    from its package.json beside the resolved program (no node start-up)."""
    import json
    import shutil

    program = shutil.which("memoir")
    if not program:
        return ""
    from memoir_tui.core.base.safeio import read_file_safely

    try:
        package = Path(os.path.realpath(program)).parent.parent / "package.json"
        data = json.loads(read_file_safely(package, max_bytes=1_000_000))
    except (OSError, ValueError):
        return ""
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else ""


def caps_over_memoirs(caps: Caps) -> list[str]:
    """Each visible cap that keeps more live than the JavaScript memoir does, named with
    its value there ("next actions 8"): its next write trims or parks the rest."""
    return [
        f"{name.replace('_', ' ').replace('open ', '')} {JS_CAPS[name]}"
        for name in VISIBLE_CAPS
        if getattr(caps, name) > JS_CAPS[name]
    ]


def memoir_sharing_note() -> str:
    """What a person sharing a store with the JavaScript memoir must know about its
    version: 3.12 and older rebuild the session on a sync merge without the parked and
    archived lists that 3.13+ (and this tool) keep past the caps."""
    version = installed_memoir_version()
    if not version:
        return ""
    if _older_than_3_13(version):
        return (
            f"; memoir {version} is on PATH: its sync merge drops the parked and archived "
            "lists — upgrade it (npm i -g memoir-cli@latest) before syncing with it"
        )
    return f"; memoir {version} is on PATH"


def js_footprint(store_dir: Path) -> str:
    """The JavaScript tool's file in ``store_dir`` that shows it uses this store ("" if
    none): its ``config.json`` or ``events.jsonl``, or a lock file holding a bare PID
    (ours hold ``pid@host``)."""
    for name in JS_FOOTPRINT_FILES:
        if (store_dir / name).is_file():
            return name
    lock = store_dir / "session.json.lock"
    try:
        from memoir_tui.core.base.safeio import open_for_reading

        with open_for_reading(lock) as fh:  # a FIFO as the lock: never blocks
            content = fh.read(64).strip()
    except OSError:
        return ""
    if content.isdigit():
        return lock.name + " (a bare PID)"
    return ""


def _old_memoir_on_path(store_dir: Path) -> str:
    """ "memoir X on PATH" when a memoir older than 3.13 is installed and this is its
    default store ("" otherwise). 3.12 trims every list to its caps from the front on
    each write and leaves no file of its own when telemetry is off, so items we kept live
    past its caps would be dropped by its next ``memoir next``; under its caps we park or
    archive them instead, which its writes carry through."""
    version = installed_memoir_version()
    if not version or not _older_than_3_13(version):
        return ""
    home = os.environ.get("HOME")
    if not home or os.environ.get("MEMOIR_HOME"):
        return ""
    try:
        if Path(store_dir).resolve() != (Path(home) / ".config" / "memoir").resolve():
            return ""
    except OSError:
        return ""
    return f"memoir {version} on PATH"


def _older_than_3_13(version: str) -> bool:
    parts = version.split(".")
    try:
        return (int(parts[0]), int(parts[1])) < (3, 13)
    except (ValueError, IndexError):
        return False


def _effective_caps(store_dir: Path, explicit: dict[str, int]) -> tuple[dict[str, int], str, str]:
    """The cap values to use, where they come from, and the footprint that decided it."""
    if all(name in explicit for name in VISIBLE_CAPS):
        return explicit, "config", ""
    found = js_footprint(store_dir) or _old_memoir_on_path(store_dir)
    if found:
        values = {**{k: v for k, v in JS_CAPS.items() if k not in explicit}, **explicit}
        return values, "javascript", found
    return explicit, "config" if explicit else "defaults", ""


def config_path(store_dir: Path) -> Path:
    return store_dir / CONFIG_FILE


def _line_of(text: str, table: str, key: str) -> int | None:
    """Best-effort line number of ``key`` inside ``[table]`` (tomllib gives none)."""
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[\s*([^\]]+?)\s*\]", stripped)
        if header:
            current = header.group(1).strip().strip('"')
            continue
        if current == table and re.match(rf'^"?{re.escape(key)}"?\s*=', stripped):
            return number
    return None


def load_config(store_dir: Path) -> Config:
    path = config_path(store_dir)
    try:
        from memoir_tui.core.base.safeio import read_text_safely

        text = read_text_safely(path, max_bytes=1024 * 1024)  # a FIFO: a sentence, no hang
    except FileNotFoundError:
        values, source, found = _effective_caps(store_dir, {})
        return Config(path=path, caps=Caps(**values), caps_source=source, js_footprint=found)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "file", f"cannot be read: {exc}") from None
    from memoir_tui.core.base.safeio import DEFAULT_MAX_DEPTH, nesting_depth

    if nesting_depth(text) > DEFAULT_MAX_DEPTH:
        raise ConfigError(
            path, "file", f"is nested too deeply (more than {DEFAULT_MAX_DEPTH} levels); not read"
        )
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(path, "file", "is nested too deeply to read") from None
    except tomllib.TOMLDecodeError as exc:
        at_line = re.search(r"at line (\d+)", str(exc))
        line = getattr(exc, "lineno", None) or (int(at_line.group(1)) if at_line else None)
        raise ConfigError(path, "file", f"is not valid TOML: {exc}", line) from None

    def fail(table: str, key: str, message: str) -> ConfigError:
        return ConfigError(path, f"{table}.{key}", message, _line_of(text, table, key))

    warnings: list[str] = []

    def unknown_key(table: str, key: str, known: str = "") -> None:
        """A key a newer version may know: read past it, with a sentence."""
        line = _line_of(text, table, key)
        where = f"{path}:{line}" if line else str(path)
        hint = f" (known: {known})" if known else ""
        warnings.append(
            f"{where}: [{table}] {key} is not known to this version of memoir-tui and was "
            f"ignored{hint}"
        )

    known_tables = {"store", "caps", "recall", "consolidate", "inject", "app"}
    for table in list(data):
        if table not in known_tables:
            warnings.append(
                f"{path}: section [{table}] is not known to this version of memoir-tui and was "
                f"ignored (known: {', '.join(sorted(known_tables))})"
            )
            del data[table]
        elif not isinstance(data[table], dict):
            raise ConfigError(path, table, f"must be a table ([{table}])")

    store = data.get("store", {})
    lock_wait = store.get("lock_wait_seconds", 10.0)
    if (
        isinstance(lock_wait, bool)
        or not isinstance(lock_wait, int | float)
        or not 0 <= lock_wait <= 3600
    ):
        raise fail("store", "lock_wait_seconds", "must be a number of seconds between 0 and 3600")
    for key in store:
        if key != "lock_wait_seconds":
            unknown_key("store", key, "lock_wait_seconds")

    caps_table = data.get("caps", {})
    cap_names = {f.name for f in fields(Caps)}
    cap_values: dict[str, int] = {}
    for key, value in caps_table.items():
        if key not in cap_names:
            unknown_key("caps", key, ", ".join(sorted(cap_names)))
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail("caps", key, "must be a positive integer")
        cap_values[key] = value
    cap_values, caps_source, found = _effective_caps(store_dir, cap_values)
    try:
        caps = Caps(**cap_values)
    except ValueError as exc:
        bad = "hidden_decisions" if "hidden_decisions" in cap_values else "completed_actions"
        raise fail("caps", bad, str(exc)) from None

    recall = data.get("recall", {})
    roots_raw: Any = recall.get("project_roots", [])
    if not isinstance(roots_raw, list) or not all(isinstance(r, str) for r in roots_raw):
        raise fail("recall", "project_roots", "must be a list of directory paths")
    roots = tuple(Path(os.path.expanduser(r)) for r in roots_raw)
    tools_raw: Any = recall.get("tools", list(KNOWN_TOOLS))
    if not isinstance(tools_raw, list) or not all(isinstance(t, str) for t in tools_raw):
        raise fail("recall", "tools", "must be a list of tool names")
    unknown = [t for t in tools_raw if t not in KNOWN_TOOLS]
    if unknown:
        raise fail(
            "recall", "tools", f"unknown tool {unknown[0]!r}; known: {', '.join(KNOWN_TOOLS)}"
        )
    full_check: Any = recall.get("full_check_files", 20_000)
    if isinstance(full_check, bool) or not isinstance(full_check, int) or full_check < 0:
        raise fail("recall", "full_check_files", "must be a whole number of files, 0 or more")
    for key in recall:
        if key not in ("project_roots", "tools", "full_check_files"):
            unknown_key("recall", key, "full_check_files, project_roots, tools")

    return Config(
        path=path,
        lock_wait_seconds=float(lock_wait),
        caps=caps,
        project_roots=roots,
        tools=tuple(tools_raw),
        exists=True,
        recall_full_check_files=full_check,
        consolidate=_load_consolidate(data.get("consolidate", {}), fail, unknown_key),
        inject=_load_inject(data.get("inject", {}), fail, unknown_key),
        theme=_load_app(data.get("app", {}), fail, unknown_key),
        caps_source=caps_source,
        js_footprint=found,
        caps_set=tuple(k for k in VISIBLE_CAPS if k in caps_table),
        warnings=tuple(warnings),
    )


def _load_app(table: dict[str, Any], fail: Any, warn_unknown: Any) -> str | None:
    for key in table:
        if key != "theme":
            warn_unknown("app", key, "theme")
    theme = table.get("theme")
    if theme is not None and (not isinstance(theme, str) or not theme.strip()):
        raise fail("app", "theme", "must be a theme's name")
    return theme.strip() if isinstance(theme, str) else None


_SAFE_VALUE = re.compile(r"^[A-Za-z0-9 ._+-]{1,64}$")


def with_setting(text: str, table: str, key: str, value: str) -> str:
    """``text`` of a TOML file with ``[table] key = "value"`` set, every other line kept."""
    if not _SAFE_VALUE.match(value):
        raise ConfigError(Path(CONFIG_FILE), f"{table}.{key}", f"{value!r} is not a plain name")
    line = f'{key} = "{value}"'
    lines = text.splitlines(keepends=True)
    current = None
    header_at = None
    for n, raw in enumerate(lines):
        stripped = raw.strip()
        header = re.match(r"^\[\s*([^\]]+?)\s*\]", stripped)
        if header:
            current = header.group(1).strip().strip('"')
            if current == table:
                header_at = n
            continue
        if current == table and re.match(rf'^"?{re.escape(key)}"?\s*=', stripped):
            newline = "\n" if raw.endswith("\n") else ""
            lines[n] = line + newline
            return "".join(lines)
    if header_at is not None:
        lines.insert(header_at + 1, line + "\n")
        return "".join(lines)
    prefix = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return text + prefix + f"[{table}]\n{line}\n"


class _SettingWrite(Protocol):
    """What ``remember_setting`` does inside a transaction (``core.transaction.Transaction``)."""

    def read_bytes(self, path: Path) -> bytes | None: ...

    def write_text(self, path: Path, text: str) -> None: ...

    def audit(self, operation: str, list_name: str) -> None: ...


class SettingsDoor(Protocol):
    """What ``remember_setting`` needs of a store: its root and its one door
    (``core.store.Store`` is one), named here so config imports nothing above it."""

    @property
    def root(self) -> Path: ...

    def transaction(
        self, op: str, *, files: Iterable[str] = ...
    ) -> AbstractContextManager[_SettingWrite]: ...


def remember_setting(store: SettingsDoor, table: str, key: str, value: str) -> Path:
    """Write one setting into ``memoir-tui.toml`` through the store's door (other lines,
    comments included, kept); the result must still load, or nothing is written."""
    from memoir_tui.core.format.items import FILES

    path = config_path(store.root)
    with store.transaction("remember_setting", files=(FILES,)) as tx:
        old = tx.read_bytes(path)
        text = old.decode("utf-8") if old is not None else ""
        new = with_setting(text, table, key, value)
        try:
            tomllib.loads(new)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(path, "file", f"would not be valid TOML: {exc}") from None
        tx.write_text(path, new)
        tx.audit("remember_setting", "config")
    return path


def _load_consolidate(table: dict[str, Any], fail: Any, warn_unknown: Any) -> ConsolidateSettings:
    values: dict[str, Any] = {}
    known = {f.name: f for f in fields(ConsolidateSettings)}
    for key, value in table.items():
        if key not in known:
            warn_unknown("consolidate", key, ", ".join(sorted(known)))
            continue
        if key == "near_duplicate_threshold":
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 < value <= 100
            ):
                raise fail("consolidate", key, "must be a number above 0 and at most 100")
            values[key] = float(value)
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail("consolidate", key, "must be a positive integer")
        else:
            values[key] = value
    return ConsolidateSettings(**values)


def _load_inject(table: dict[str, Any], fail: Any, warn_unknown: Any) -> InjectConfig:
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in ("enabled", "all_projects"):
            if not isinstance(value, bool):
                raise fail("inject", key, "must be true or false")
            values[key] = value
        elif key == "targets":
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise fail("inject", key, "must be a list of target names")
            unknown = [t for t in value if t not in INJECT_TARGETS]
            if unknown:
                raise fail(
                    "inject",
                    key,
                    f"unknown target {unknown[0]!r}; known: {', '.join(INJECT_TARGETS)}",
                )
            values[key] = tuple(value)
        elif key == "projects":
            if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
                raise fail("inject", key, "must be a list of directory paths")
            values[key] = tuple(Path(os.path.expanduser(p)) for p in value)
        elif key == "max_block_chars":
            if isinstance(value, bool) or not isinstance(value, int) or not 200 <= value <= 100_000:
                raise fail("inject", key, "must be a whole number between 200 and 100000")
            values[key] = value
        else:
            warn_unknown("inject", key, "all_projects, enabled, max_block_chars, projects, targets")
    return InjectConfig(**values)


def render_config(config: Config) -> str:
    """The effective configuration as TOML, for ``memoir-tui config show``."""
    caps = config.caps
    lines = [
        f"# effective configuration ({'from ' + str(config.path) if config.exists else 'defaults'})",
        "",
        "[store]",
        f"lock_wait_seconds = {config.lock_wait_seconds}",
        "",
        "[caps]",
        f"# {config.caps_note}",
        *([f"# (found here: {config.js_footprint})"] if config.js_footprint else []),
        *(f"{f.name} = {getattr(caps, f.name)}" for f in fields(Caps)),
        "",
        "[recall]",
        "project_roots = [" + ", ".join(f'"{p}"' for p in config.project_roots) + "]",
        "tools = [" + ", ".join(f'"{t}"' for t in config.tools) + "]",
        f"full_check_files = {config.recall_full_check_files}",
        "",
        "[consolidate]",
        *(f"{f.name} = {getattr(config.consolidate, f.name)}" for f in fields(ConsolidateSettings)),
        "",
        "[inject]",
        f"enabled = {'true' if config.inject.enabled else 'false'}",
        "targets = [" + ", ".join(f'"{t}"' for t in config.inject.targets) + "]",
        "projects = [" + ", ".join(f'"{p}"' for p in config.inject.projects) + "]",
        f"max_block_chars = {config.inject.max_block_chars}",
        f"all_projects = {'true' if config.inject.all_projects else 'false'}",
        "",
        "[app]",
        f'theme = "{config.theme}"' if config.theme else "# theme = (the app's default)",
    ]
    return "\n".join(lines) + "\n"
