"""Host tools as data: where each keeps its memory, rules and MCP config.

Each ``Adapter`` is a frozen value read by one generic walker
(``memoir_tui.core.adapters.walk``); adding a tool means adding a value here,
not code. Paths follow ../shared/HOST_TOOLS.md: every location is probed, a
missing directory is simply absent.

A location's ``pattern`` is relative to the tool's root (global) or to a
project directory (project), ``/``-separated, with ``*`` (one path segment,
``fnmatch`` style), ``**`` (any number of directories) and ``<project>`` (one
directory naming a Claude Code project: its files belong to the project whose
working directory the transcripts inside record).
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# File names never read or returned, whatever a pattern says: credentials and settings
# that may hold tokens. Matched case-insensitively against the file name.
DENIED_NAMES = (
    ".credentials.json",
    "credentials*",
    "settings.json",
    "settings.local.json",
    "auth.json",
    "*.key",
    "*.pem",
    "*.p12",
    "*.pfx",
    ".env",
    ".env.*",
    "id_rsa*",
    "id_ed25519*",
    ".netrc",
    "*.sqlite*",
    "*.db",
)

# Also refused unless the file is markdown (a memory *about* token rotation is fine).
DENIED_UNLESS_MARKDOWN = (
    "*token*",
    "*secret*",
    "*password*",
    "*.json",
    "*.toml",
    "*.yaml",
    "*.yml",
)

MARKDOWN_SUFFIXES = (".md", ".mdc", ".markdown")
MAX_FILE_BYTES = 512 * 1024  # larger files are skipped with a note


_DENIED_RE = re.compile("|".join(fnmatch.translate(p) for p in DENIED_NAMES))
_DENIED_UNLESS_MD_RE = re.compile("|".join(fnmatch.translate(p) for p in DENIED_UNLESS_MARKDOWN))


def is_denied(name: str) -> bool:
    """A credentials or settings file: never read, never returned, never written."""
    lowered = name.lower()
    if _DENIED_RE.match(lowered):
        return True
    return not is_markdown(lowered) and _DENIED_UNLESS_MD_RE.match(lowered) is not None


def is_markdown(name: str) -> bool:
    return name.lower().endswith(MARKDOWN_SUFFIXES)


@dataclass(frozen=True, slots=True)
class Root:
    """A tool's global directory: ``$env`` if set, else ``default`` under ``base``.

    ``base`` is ``home`` (``$HOME``), ``config`` (``$XDG_CONFIG_HOME``, else
    ``~/.config``) or ``store`` (the memoir store directory).
    """

    default: str
    env: str | None = None
    base: str = "home"

    def resolve(self, home: Path, env: Mapping[str, str], store_root: Path | None) -> Path | None:
        if self.env and env.get(self.env):
            return Path(os.path.expanduser(env[self.env]))
        if self.base == "store":
            return store_root / self.default if store_root is not None else None
        if self.base == "config":
            xdg = env.get("XDG_CONFIG_HOME")
            config = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".config"
            return config / self.default if self.default else config
        return home / self.default if self.default else home


@dataclass(frozen=True, slots=True)
class Location:
    """A pattern of files, what they are, and which of them a tool always loads."""

    pattern: str
    kind: str = "rules"  # "memory" | "rules" | "instructions"
    always: str | None = "*"  # file-name glob of always-loaded files; None = loaded on demand

    def always_loaded(self, name: str) -> bool:
        return self.always is not None and fnmatch.fnmatchcase(name, self.always)


@dataclass(frozen=True, slots=True)
class Adapter:
    """One host tool (or the store itself), as data."""

    name: str
    label: str
    roots: tuple[Root, ...] = ()
    global_files: tuple[Location, ...] = ()
    project_files: tuple[Location, ...] = ()
    suffixes: tuple[str, ...] = MARKDOWN_SUFFIXES  # file filter; exact names in patterns pass
    mcp_config: tuple[str, ...] = ()  # "~/…" home-relative or "<project>/…"; descriptive
    # where a new memory file goes (``memoir_remember``): ``write_global`` relative to the
    # tool's first root; ``write_project`` relative to the project directory, or, when it
    # holds "<project>", to the tool's root with the Claude Code project directory there
    write_global: str | None = None
    write_project: str | None = None
    write_suffix: str = ".md"

    def accepts(self, name: str, pattern_segment: str) -> bool:
        """The file filter: a suffix we read, or a name the pattern spells out exactly.

        (Credentials are refused separately, by ``is_denied``.)
        """
        if not any(c in pattern_segment for c in "*?["):
            return name == pattern_segment
        return name.lower().endswith(self.suffixes)

    def global_dirs(
        self, home: Path, env: Mapping[str, str], store_root: Path | None = None
    ) -> list[Path]:
        out: list[Path] = []
        for root in self.roots:
            path = root.resolve(home, env, store_root)
            if path is not None and path not in out:
                out.append(path)
        return out


ADAPTERS: tuple[Adapter, ...] = (
    Adapter(
        name="memoir",
        label="memoir store",
        write_global="memory",
        roots=(Root("", base="store"),),
        global_files=(Location("memory/*.md", kind="memory", always=None),),
    ),
    Adapter(
        name="claude-code",
        label="Claude Code",
        write_project="projects/<project>/memory",
        roots=(Root(".claude", env="CLAUDE_CONFIG_DIR"),),
        global_files=(
            Location("CLAUDE.md", kind="instructions"),
            Location("rules/**/*.md", kind="rules"),
            Location("projects/<project>/memory/*.md", kind="memory", always="MEMORY.md"),
        ),
        project_files=(
            Location("CLAUDE.md", kind="instructions"),
            Location(".claude/CLAUDE.md", kind="instructions"),
            Location("CLAUDE.local.md", kind="instructions"),
            Location(".claude/rules/**/*.md", kind="rules"),
        ),
        mcp_config=("~/.claude.json", "<project>/.mcp.json"),
    ),
    Adapter(
        name="cursor",
        label="Cursor",
        write_project=".cursor/rules",
        write_suffix=".mdc",
        roots=(Root(".cursor"),),
        project_files=(
            Location(".cursor/rules/**/*.mdc", kind="rules", always=None),
            Location(".cursorrules", kind="rules"),
        ),
        suffixes=(".mdc",),
        mcp_config=("~/.cursor/mcp.json", "<project>/.cursor/mcp.json"),
    ),
    Adapter(
        name="windsurf",
        label="Windsurf",
        write_global="memories",
        write_project=".windsurf/rules",
        roots=(Root(".codeium/windsurf"),),
        global_files=(
            Location("memories/global_rules.md", kind="rules"),
            Location("memories/*.md", kind="memory", always=None),
        ),
        project_files=(
            Location(".windsurf/rules/**/*.md", kind="rules", always=None),
            Location(".devin/rules/**/*.md", kind="rules", always=None),
            Location(".windsurfrules", kind="rules"),
        ),
        mcp_config=("~/.codeium/windsurf/mcp_config.json",),
    ),
    Adapter(
        name="gemini",
        label="Gemini CLI",
        roots=(Root(".gemini"),),
        global_files=(Location("GEMINI.md", kind="instructions"),),
        project_files=(
            Location("GEMINI.md", kind="instructions"),
            Location(".gemini/GEMINI.md", kind="instructions"),
        ),
        mcp_config=("~/.gemini/settings.json", "<project>/.gemini/settings.json"),
    ),
    Adapter(
        name="codex",
        label="Codex CLI",
        write_global="memories",
        roots=(Root(".codex", env="CODEX_HOME"),),
        global_files=(
            Location("AGENTS.override.md", kind="instructions"),
            Location("AGENTS.md", kind="instructions"),
            Location("memories/*.md", kind="memory", always=None),
        ),
        project_files=(Location("AGENTS.override.md", kind="instructions"),),
        mcp_config=("~/.codex/config.toml", "<project>/.codex/config.toml"),
    ),
    Adapter(
        name="copilot",
        label="GitHub Copilot",
        write_global="instructions",
        write_project=".github/instructions",
        write_suffix=".instructions.md",
        roots=(Root(".copilot", env="COPILOT_HOME"),),
        global_files=(
            Location("copilot-instructions.md", kind="instructions"),
            Location("instructions/**/*.instructions.md", kind="rules", always=None),
        ),
        project_files=(
            Location(".github/copilot-instructions.md", kind="instructions"),
            Location(".github/instructions/**/*.instructions.md", kind="rules", always=None),
        ),
        mcp_config=(
            "<project>/.vscode/mcp.json",
            "<project>/.mcp.json",
            "~/.copilot/mcp-config.json",
        ),
    ),
    Adapter(
        name="cline",
        label="Cline",
        write_global="",
        write_project=".clinerules",
        roots=(Root("Documents/Cline/Rules"), Root("Cline/Rules")),
        global_files=(Location("*.md", kind="rules"),),
        project_files=(
            Location(".clinerules/**/*.md", kind="rules"),
            Location(".cline/rules/**/*.md", kind="rules"),
            Location(".clinerules", kind="rules"),
        ),
        mcp_config=(
            "~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/"
            "cline_mcp_settings.json",
        ),
    ),
    Adapter(
        name="continue",
        label="Continue",
        write_global="rules",
        write_project=".continue/rules",
        roots=(Root(".continue"),),
        global_files=(Location("rules/*.md", kind="rules", always=None),),
        project_files=(
            Location(".continue/rules/*.md", kind="rules", always=None),
            Location(".continuerules", kind="rules"),
        ),
        mcp_config=("~/.continue/config.yaml", "<project>/.continue/mcpServers/*.yaml"),
    ),
    Adapter(
        name="zed",
        label="Zed",
        roots=(Root("zed", base="config"),),
        project_files=(Location(".rules", kind="rules"),),
        mcp_config=("~/.config/zed/settings.json", "<project>/.zed/settings.json"),
    ),
    Adapter(
        name="aider",
        label="Aider",
        project_files=(Location("CONVENTIONS.md", kind="rules", always=None),),
    ),
    Adapter(
        name="agents-md",
        label="AGENTS.md",
        roots=(Root(".agents"), Root("opencode", base="config")),
        global_files=(Location("AGENTS.md", kind="instructions"),),
        project_files=(
            Location("AGENTS.md", kind="instructions"),
            Location("AGENT.md", kind="instructions"),
        ),
    ),
)

BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}


def get_adapter(name: str) -> Adapter:
    try:
        return BY_NAME[name]
    except KeyError:
        from memoir_tui.core.errors import MemoirError

        raise MemoirError(
            f"unknown tool {name!r}; known: {', '.join(a.name for a in ADAPTERS)}"
        ) from None


def tool_dir(name: str, home: Path, env: Mapping[str, str] | None = None) -> Path:
    """A tool's own global directory: its environment override, else its default.

    ``tool_dir("claude-code", home)`` is ``$CLAUDE_CONFIG_DIR`` when set (it
    moves the whole ``~/.claude`` tree), else ``home/.claude``; ``"codex"``
    honours ``$CODEX_HOME``. ``env`` defaults to the process environment.
    """
    root = get_adapter(name).roots[0].resolve(home, os.environ if env is None else env, None)
    assert root is not None  # only the store's own adapter has no home-based root
    return root
