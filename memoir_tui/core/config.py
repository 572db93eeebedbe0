"""``memoir-tui.toml``: one typed, documented config file in the store directory.

Named so it cannot collide with the JavaScript tool's ``config.json`` in the
same folder. A missing file means defaults; an invalid value is a
``ConfigError`` naming the key and its line — never a traceback.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from memoir_tui.core.errors import MemoirError
from memoir_tui.core.merge import Caps

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
    "aider",
    "agents-md",
)


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
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config(path=path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "file", f"cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        line = getattr(exc, "lineno", None) or (int(found.group(1)) if found else None)
        raise ConfigError(path, "file", f"is not valid TOML: {exc}", line) from None

    def fail(table: str, key: str, message: str) -> ConfigError:
        return ConfigError(path, f"{table}.{key}", message, _line_of(text, table, key))

    known_tables = {"store", "caps", "recall"}
    for table, value in data.items():
        if table not in known_tables:
            raise ConfigError(
                path, table, f"unknown section; known: {', '.join(sorted(known_tables))}"
            )
        if not isinstance(value, dict):
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
            raise fail("store", key, "unknown key")

    caps_table = data.get("caps", {})
    cap_names = {f.name for f in fields(Caps)}
    cap_values: dict[str, int] = {}
    for key, value in caps_table.items():
        if key not in cap_names:
            raise fail("caps", key, f"unknown key; known: {', '.join(sorted(cap_names))}")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail("caps", key, "must be a positive integer")
        cap_values[key] = value
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
    for key in recall:
        if key not in ("project_roots", "tools"):
            raise fail("recall", key, "unknown key")

    return Config(
        path=path,
        lock_wait_seconds=float(lock_wait),
        caps=caps,
        project_roots=roots,
        tools=tuple(tools_raw),
        exists=True,
    )


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
        *(f"{f.name} = {getattr(caps, f.name)}" for f in fields(Caps)),
        "",
        "[recall]",
        "project_roots = [" + ", ".join(f'"{p}"' for p in config.project_roots) + "]",
        "tools = [" + ", ".join(f'"{t}"' for t in config.tools) + "]",
    ]
    return "\n".join(lines) + "\n"
