"""Host tools as data: where each keeps its memory, rules, instructions and MCP config.

This module is the only place that spells a host tool's folders and file names
(a guard test holds every other module to that). Each ``Adapter`` is a frozen
value read by one generic walker (``memoir_tui.core.hosts.adapters.walk``); inject
reads ``INSTRUCTION_FILES``, capture and consolidate read Claude Code's
folders through ``transcripts_dir`` and ``project_memory_dirs``, and
``mcp_install`` reads each adapter's ``mcp`` hosts. Adding a tool means adding
a value here, not code. Paths follow ../shared/HOST_TOOLS.md: every location is
probed, a missing directory is simply absent.

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


def expand_home(value: str, home: Path) -> Path:
    """A directory named in the environment, ``~`` meaning ``home`` (never the real one)."""
    if value == "~":
        return home
    if value.startswith("~/"):
        return home / value[2:]
    return Path(os.path.expanduser(value))


@dataclass(frozen=True, slots=True)
class Root:
    """A tool's directory: ``$env`` if set, else ``default`` under ``base``.

    ``base`` is ``home`` (``$HOME``), ``config`` (``$XDG_CONFIG_HOME``, else
    ``~/.config``), ``appdata`` (Windows' ``%APPDATA%``, else
    ``~/AppData/Roaming``) or ``store`` (the memoir store directory).
    """

    default: str
    env: str | None = None
    base: str = "home"

    def resolve(self, home: Path, env: Mapping[str, str], store_root: Path | None) -> Path | None:
        if self.env and env.get(self.env):
            return expand_home(env[self.env], home)
        if self.base == "store":
            return store_root / self.default if store_root is not None else None
        if self.base == "config":
            xdg = env.get("XDG_CONFIG_HOME")
            # The XDG spec says a relative value is invalid and must be ignored.
            base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".config"
        elif self.base == "appdata":
            appdata = env.get("APPDATA")
            base = expand_home(appdata, home) if appdata else home / "AppData" / "Roaming"
        else:
            base = home
        return base / self.default if self.default else base

    def shown(self, sub: str = "") -> str:
        """How a face names this directory (or ``sub`` in it): its default, ``~`` the home."""
        text = {"home": "~", "config": "~/.config", "appdata": "%APPDATA%", "store": "<store>"}[
            self.base
        ]
        for part in (self.default, sub):
            if part:
                text += "/" + part
        return text


@dataclass(frozen=True, slots=True)
class Location:
    """A pattern of files, what they are, and which of them a tool always loads."""

    pattern: str
    kind: str = "rules"  # "memory" | "rules" | "instructions"
    always: str | None = "*"  # file-name glob of always-loaded files; None = loaded on demand
    roots: tuple[int, ...] | None = None  # global files: under these of the tool's roots only

    def always_loaded(self, name: str) -> bool:
        return self.always is not None and fnmatch.fnmatchcase(name, self.always)


@dataclass(frozen=True, slots=True)
class UserFile:
    """A user-level config file: ``file`` under ``root``, on platforms starting ``platform``.

    ``platform`` is a ``sys.platform`` prefix (``darwin``, ``win``); ``""`` is any.
    """

    root: Root
    file: str
    platform: str = ""


@dataclass(frozen=True, slots=True)
class StartupLimit:
    """How long a host waits for an MCP server to start before it drops it, and the
    knob that raises it: a key on the server's own entry (``entry_key``) or an
    environment variable the host reads (``env_var``; Claude Code also takes it from
    its settings files' ``env``). ``default`` (in ``unit``, "s" or "ms") applies
    when the knob is unset. Only limits the host documents are recorded."""

    default: float
    unit: str = "s"
    entry_key: str = ""
    env_var: str = ""
    source: str = ""  # where the fact was read (for docs/HOSTS.md and the reader)

    def seconds(self, value: float) -> float:
        return value / 1000 if self.unit == "ms" else float(value)


@dataclass(frozen=True, slots=True)
class McpHost:
    """Where one host registers MCP servers, per scope and platform, and the file's shape.

    ``name`` is what ``install-mcp`` calls it (a host can be a face of an adapter:
    VS Code is Copilot's editor). ``container`` is the key (JSON) or table (TOML)
    holding one entry per server; ``entry_extras`` are fixed keys the host expects
    beside ``command``/``args``/``env``. A file is ``dedicated`` when it exists
    only to list MCP servers (an emptied container stays there as ``{}``); shared
    settings files are not. ``installable`` is False for hosts described here but
    not edited by ``install-mcp`` (a YAML list, a path that is a pattern, an entry
    shape we have not verified).
    """

    name: str
    user: tuple[UserFile, ...]  # the first whose platform matches
    project: str | None = None  # relative to the project directory; None = no project file
    aliases: tuple[str, ...] = ()
    file_format: str = "json"  # "json" (comments and trailing commas tolerated) | "toml" | "yaml"
    container: str = "mcpServers"
    entry_extras: tuple[tuple[str, str], ...] = ()
    # keys written on a new entry and added to one that lacks them; a user's value stays
    entry_defaults: tuple[tuple[str, object], ...] = ()
    # "stdio": command, args, env | "opencode": command is one list (program and
    # arguments), the environment is "environment", and "enabled" switches it
    entry_shape: str = "stdio"
    dedicated_user: bool = True
    dedicated_project: bool = True
    installable: bool = True
    startup: StartupLimit | None = None  # the host's documented start-up limit, if any

    def user_file(self, home: Path, env: Mapping[str, str], platform: str) -> Path:
        for candidate in self.user:
            if platform.startswith(candidate.platform):
                root = candidate.root.resolve(home, env, None)
                assert root is not None  # user files never live in the store
                return root / candidate.file
        raise LookupError(f"{self.name} has no user config file for {platform}")

    def project_file(self, project: Path) -> Path | None:
        return project / self.project if self.project is not None else None


@dataclass(frozen=True, slots=True)
class InstructionFile:
    """An always-loaded file that inject writes the pinned block into.

    ``paths`` are relative to the tool's directory (``scope="global"``) or to a
    project directory: the first that is a file is the one; when none is and
    ``create`` is set, the last is created, provided ``requires`` (relative, ""
    for the base itself) is a directory. ``locate`` skips the file when every
    group of ``covered_by`` has a file (each of its readers has its own); inject
    also skips it when ``defers_to`` is a file beside it that it imports
    (``@name``: the tool reads the block there), which takes reading it.
    ``limit`` is the whole file's size limit in ``unit``; ``own_file`` marks a
    file that exists only for the block.
    """

    target: str  # inject's name for it ([inject] targets)
    tool: str  # the adapter whose directory ``paths`` are relative to (global scope)
    scope: str  # "global" | "project"
    paths: tuple[str, ...]
    create: bool = False
    requires: str = ""
    limit: int | None = None
    unit: str = "chars"  # "chars" | "bytes"
    own_file: bool = False
    defers_to: str | None = None
    covered_by: tuple[tuple[str, ...], ...] = ()

    def locate(self, base: Path) -> Path | None:
        """The file under ``base`` the block goes into, or None when there is none to use."""
        if self.covered_by and all(
            any((base / name).is_file() for name in group) for group in self.covered_by
        ):
            return None
        found = next((base / p for p in self.paths if (base / p).is_file()), None)
        if found is not None:
            return found
        if self.create and (base / self.requires).is_dir():
            return base / self.paths[-1]
        return None


HOOK_VERBS = ("session-start", "stop", "pre-compact", "session-end")
"""What ``memoir-tui hook VERB`` answers (a host event names one in ``HookEvent.verb``)."""


@dataclass(frozen=True, slots=True)
class HookEvent:
    """One host event we answer: the host's name for it, our verb, and how it is run."""

    host_event: str  # "SessionStart"
    verb: str  # what ``memoir-tui hook VERB`` calls it
    matcher: str | None = None  # the host's matcher (session sources), None: every source
    timeout: int = 10  # in the host's ``timeout_unit``
    background: bool = False  # Claude Code's ``async``: the session does not wait for it
    capture: bool = False  # the event's input is a turn (or a flush point) capture reads


@dataclass(frozen=True, slots=True)
class SettingsFile:
    """One settings file a host reads (at one level) that can switch hooks off or
    trust a project: ``path`` is under ``root`` (user level) or relative to the
    project (``root`` None); ``file_format`` is "json" (comments tolerated) or "toml"."""

    path: str
    root: Root | None = None
    file_format: str = "json"

    def locate(self, home: Path, env: Mapping[str, str], project: Path | None) -> Path | None:
        if self.root is None:
            return project / self.path if project is not None else None
        root = self.root.resolve(home, env, None)
        return root / self.path if root is not None else None


@dataclass(frozen=True, slots=True)
class HookHost:
    """Where one host keeps its hooks (per scope), which events we install, and how
    the host reads a hook's output.

    Every host here nests the same way: ``hooks.<Event>`` is a list of matcher
    groups, each with a ``hooks`` list of ``{"type": "command", ...}`` handlers.
    ``disabled_by`` are settings (a key path and the value) with which the host
    runs no hooks at all; ``enable_note`` says what a host may need besides.
    ``captures`` is whether its transcripts are ones capture reads.
    """

    name: str  # what ``--host`` and ``install-hooks`` call it
    label: str
    user: UserFile
    project: str | None
    events: tuple[HookEvent, ...]
    timeout_unit: str = "s"  # "s" | "ms"
    output: str = "json"  # "json": hookSpecificOutput.additionalContext | "plain"
    captures: bool = False
    disabled_by: tuple[tuple[tuple[str, ...], object], ...] = ()
    enable_note: str = ""
    # How the host matches a lifecycle matcher against the event's source:
    # "alternatives" (Claude Code, Codex: ``a|b`` of plain words are exact
    # alternatives, anything else a full-match regex) or "exact" (Gemini CLI:
    # ``matcher === trigger``). Absent, empty or "*" matches every source.
    matcher_rule: str = "alternatives"
    sources: tuple[str, ...] = ("startup", "resume", "clear")  # SessionStart's sources
    # every settings file, lowest precedence first, read for ``disabled_by`` (the
    # last level that sets a key wins) and for ``disabled_names``
    levels: tuple[SettingsFile, ...] = ()
    # a list of handler names (or commands) the host skips, in any level (Gemini)
    disabled_names: tuple[tuple[str, ...], ...] = ()
    # what a project-level hooks file needs before the host runs it: "" nothing,
    # "codex" a trusted project in config.toml, "gemini" a trusted folder when
    # folder trust is on, "claude" a folder (or a parent) whose trust dialog was accepted
    project_trust: str = ""
    trust_file: SettingsFile | None = None  # where the host records trusted folders
    max_timeout: float | None = None  # the host's cap on a handler's timeout (seconds)

    def user_file(self, home: Path, env: Mapping[str, str]) -> Path:
        root = self.user.root.resolve(home, env, None)
        assert root is not None  # hook settings never live in the store
        return root / self.user.file

    def project_file(self, project: Path) -> Path | None:
        return project / self.project if self.project is not None else None


@dataclass(frozen=True, slots=True)
class Adapter:
    """One host tool (or the store itself), as data."""

    name: str
    label: str
    roots: tuple[Root, ...] = ()
    global_files: tuple[Location, ...] = ()
    project_files: tuple[Location, ...] = ()
    suffixes: tuple[str, ...] = MARKDOWN_SUFFIXES  # file filter; exact names in patterns pass
    mcp: tuple[McpHost, ...] = ()
    # where session transcripts live, relative to the first root (one directory per project)
    transcripts: str | None = None
    # where a new memory file goes (``memoir_remember``): ``write_global`` relative to the
    # tool's first root; ``write_project`` relative to the project directory, or, when it
    # holds "<project>", to the tool's root with the Claude Code project directory there
    write_global: str | None = None
    write_project: str | None = None
    write_suffix: str = ".md"
    hooks: tuple[HookHost, ...] = ()  # where ``install-hooks`` puts our hook entries
    # what a new file there needs for the host to load it: activation frontmatter, written
    # first (``alwaysApply: true``), and whether the host wants a ``description`` too
    write_meta: tuple[tuple[str, object], ...] = ()
    write_description: bool = False
    # the index beside it that the host loads (Claude Code's MEMORY.md): a new file gets its
    # line there in the same commit; ``write_index_limit`` is (lines, bytes) the host loads
    write_index: str | None = None
    write_index_limit: tuple[int, int] | None = None
    # prose for replies: how the host loads a new file ({where}: the project, or every
    # project), and what it does read (a refusal names it)
    write_loads: str = ""
    write_reads: str = ""

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


# Names more than one value below spells.
MEMOIR_MEMORIES = "memories"  # today's memoir's canonical memories, in the store
CLAUDE_DIR = ".claude"
CLAUDE_MD = "CLAUDE.md"
CLAUDE_PROJECTS = "projects"  # <claude dir>/projects/<project>/: transcripts and memory
CLAUDE_MEMORY_INDEX = "MEMORY.md"  # the auto-memory index Claude Code loads (200 lines/25 KB)
AGENTS_MD = "AGENTS.md"
AGENTS_OVERRIDE_MD = "AGENTS.override.md"  # Codex: replaces AGENTS.md in its directory
GEMINI_MD = "GEMINI.md"
INJECT_CURSOR_FILE = "memoir-session.mdc"  # the JavaScript tool's name, so both share one file
CODEX_DOC_LIMIT = 32 * 1024  # bytes: Codex's project_doc_max_bytes default
WINDSURF_GLOBAL_LIMIT = 6_000  # characters, the whole global_rules.md
_VSCODE_USER = (
    ("darwin", Root("Library/Application Support/Code/User")),
    ("win", Root("Code/User", base="appdata")),
    ("", Root("Code/User", base="config")),
)
_CLINE_SETTINGS = "globalStorage/saoudrizwan.claude-dev/settings"


def _in_vscode(sub: str, name: str) -> tuple[UserFile, ...]:
    """A file in VS Code's user directory, per platform."""
    return tuple(
        UserFile(Root(f"{root.default}/{sub}" if sub else root.default, base=root.base), name, p)
        for p, root in _VSCODE_USER
    )


ADAPTERS: tuple[Adapter, ...] = (
    Adapter(
        name="memoir",
        label="memoir store",
        write_global="memory",
        write_loads="No host loads the store's memory/ by itself: agents find it with "
        "memoir_recall and memoir_list ({where})",
        roots=(Root("", base="store"),),
        global_files=(
            Location("memory/*.md", kind="memory", always=None),
            # today's memoir's canonical memories (<64 hex>.md; FORMAT-LATEST §11): recalled
            # and shown here; forget hides or purges them by memoir's own rules (PLACES)
            Location(f"{MEMOIR_MEMORIES}/*.md", kind="memory", always=None),
        ),
    ),
    Adapter(
        name="claude-code",
        label="Claude Code",
        write_project=f"{CLAUDE_PROJECTS}/<project>/memory",
        write_description=True,
        write_index=CLAUDE_MEMORY_INDEX,
        write_index_limit=(200, 25 * 1024),
        write_loads="Claude Code loads the first 200 lines or 25 KB of this folder's "
        f"{CLAUDE_MEMORY_INDEX} at the start of every session in {{where}} and reads a topic "
        "file when its index line points there; subagents do not load it",
        write_reads="Claude Code loads ~/.claude/CLAUDE.md, ~/.claude/rules/**/*.md, a "
        "project's CLAUDE.md and .claude/rules/, and a project's auto memory "
        f"(~/.claude/{CLAUDE_PROJECTS}/<project>/memory/, indexed by {CLAUDE_MEMORY_INDEX}); "
        "pass project=… to write a memory for a project",
        roots=(Root(CLAUDE_DIR, env="CLAUDE_CONFIG_DIR"),),
        transcripts=CLAUDE_PROJECTS,
        global_files=(
            Location(CLAUDE_MD, kind="instructions"),
            Location("rules/**/*.md", kind="rules"),
            Location(
                f"{CLAUDE_PROJECTS}/<project>/memory/*.md",
                kind="memory",
                always=CLAUDE_MEMORY_INDEX,
            ),
        ),
        project_files=(
            Location(CLAUDE_MD, kind="instructions"),
            Location(f"{CLAUDE_DIR}/{CLAUDE_MD}", kind="instructions"),
            Location("CLAUDE.local.md", kind="instructions"),
            Location(f"{CLAUDE_DIR}/rules/**/*.md", kind="rules"),
        ),
        mcp=(
            McpHost(
                name="claude-code",
                aliases=("claude",),
                # user scope: ~/.claude.json, or $CLAUDE_CONFIG_DIR/.claude.json (not inside
                # ~/.claude); the file holds unrelated state too, so it is not dedicated
                user=(UserFile(Root("", env="CLAUDE_CONFIG_DIR"), ".claude.json"),),
                project=".mcp.json",
                entry_extras=(("type", "stdio"),),
                dedicated_user=False,
                # a server that has not answered initialize within MCP_TIMEOUT ms (30 s
                # unset) is dropped; set in the environment or a settings file's "env"
                startup=StartupLimit(
                    30_000, "ms", env_var="MCP_TIMEOUT", source="code.claude.com/docs/en/mcp"
                ),
            ),
            # Claude Desktop: claude_desktop_config.json in its app-data folder (macOS
            # ~/Library/Application Support/Claude, Windows %APPDATA%\Claude; Linux builds
            # use ~/.config/Claude); "mcpServers", stdio entries; it also keeps its own
            # preferences there, so the file is not dedicated. No project file.
            McpHost(
                name="claude-desktop",
                user=(
                    UserFile(
                        Root("Library/Application Support/Claude"),
                        "claude_desktop_config.json",
                        "darwin",
                    ),
                    UserFile(Root("Claude", base="appdata"), "claude_desktop_config.json", "win"),
                    UserFile(Root("Claude", base="config"), "claude_desktop_config.json"),
                ),
                dedicated_user=False,
            ),
        ),
        hooks=(
            HookHost(
                name="claude",
                label="Claude Code",
                user=UserFile(Root(CLAUDE_DIR, env="CLAUDE_CONFIG_DIR"), "settings.json"),
                project=f"{CLAUDE_DIR}/settings.json",
                events=(
                    HookEvent("SessionStart", "session-start", "startup|resume|clear", 10),
                    HookEvent("Stop", "stop", None, 60, background=True),
                    HookEvent("PreCompact", "pre-compact", None, 60),
                    HookEvent("SessionEnd", "session-end", None, 60),
                ),
                captures=True,
                disabled_by=((("disableAllHooks",), True),),
                # user < project < local (managed settings are not read here)
                levels=(
                    SettingsFile("settings.json", Root(CLAUDE_DIR, env="CLAUDE_CONFIG_DIR")),
                    SettingsFile(f"{CLAUDE_DIR}/settings.json"),
                    SettingsFile(f"{CLAUDE_DIR}/settings.local.json"),
                ),
                # a project's settings (its hooks) and .mcp.json run only in a folder the
                # user trusted: projects[<folder or a parent>].hasTrustDialogAccepted
                project_trust="claude",
                trust_file=SettingsFile(".claude.json", Root("", env="CLAUDE_CONFIG_DIR")),
            ),
        ),
    ),
    Adapter(
        name="cursor",
        label="Cursor",
        write_project=".cursor/rules",
        write_suffix=".mdc",
        write_meta=(("alwaysApply", True),),
        write_description=True,
        write_loads="Cursor applies this rule to every Agent and Chat request in {where} "
        "(alwaysApply: true); Tab completion does not use rules",
        write_reads="Cursor loads a project's .cursor/rules/*.mdc and AGENTS.md; its user "
        "rules live in Cursor Settings, not in a file it reads, so pass project=…",
        # ~/.cursor (MCP, the pinned block), then Cursor's user directory (Electron's
        # per-platform data folder), where the JavaScript tool keeps global user rules
        roots=(
            Root(".cursor"),
            Root("Cursor/User", base="config"),
            Root("Library/Application Support/Cursor/User"),
            Root("Cursor/User", base="appdata"),
        ),
        global_files=(Location("rules/*.md", kind="rules", roots=(1, 2, 3)),),
        project_files=(
            Location(".cursor/rules/**/*.mdc", kind="rules", always=None),
            Location(".cursorrules", kind="rules"),
        ),
        suffixes=(".mdc", ".md"),
        mcp=(
            McpHost(
                name="cursor",
                user=(UserFile(Root(".cursor"), "mcp.json"),),
                project=".cursor/mcp.json",
            ),
        ),
    ),
    Adapter(
        name="windsurf",
        label="Windsurf",
        write_project=".windsurf/rules",
        write_meta=(("trigger", "always_on"),),
        write_loads="Windsurf's Cascade loads this rule in every conversation in {where} "
        "(trigger: always_on; at most 12,000 characters a rule)",
        write_reads="Windsurf loads ~/.codeium/windsurf/memories/global_rules.md (one file) "
        "and a project's .windsurf/rules/*.md; the other files in memories/ are Cascade's "
        "own auto-generated memories, so pass project=… to write a rule",
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
        # Windsurf documents no project-level MCP file.
        mcp=(
            McpHost(
                name="windsurf", user=(UserFile(Root(".codeium/windsurf"), "mcp_config.json"),)
            ),
        ),
    ),
    Adapter(
        name="gemini",
        label="Gemini CLI",
        write_reads="Gemini CLI loads ~/.gemini/GEMINI.md and the GEMINI.md files of a "
        "project, one file each, not a folder of memory files",
        roots=(Root(".gemini"),),
        transcripts="tmp",  # tmp/<project_hash>/chats/session-*.jsonl
        global_files=(Location(GEMINI_MD, kind="instructions"),),
        project_files=(
            Location(GEMINI_MD, kind="instructions"),
            Location(f".gemini/{GEMINI_MD}", kind="instructions"),
        ),
        mcp=(
            McpHost(
                name="gemini",
                user=(UserFile(Root(".gemini"), "settings.json"),),
                project=".gemini/settings.json",
                dedicated_user=False,
                dedicated_project=False,
                # connect waits the entry's "timeout" ms, 10 minutes unset
                startup=StartupLimit(
                    600_000,
                    "ms",
                    entry_key="timeout",
                    source="gemini-cli mcp-client.ts (MCP_DEFAULT_TIMEOUT_MSEC)",
                ),
            ),
        ),
        hooks=(
            HookHost(
                name="gemini",
                label="Gemini CLI",
                user=UserFile(Root(".gemini"), "settings.json"),
                project=".gemini/settings.json",
                # Gemini matches a lifecycle matcher by exact string (hookPlanner
                # matchesTrigger: matcher === trigger), so no matcher: every source.
                events=(
                    HookEvent("SessionStart", "session-start", None, 10_000),
                    # the turn itself (prompt, prompt_response) after each agent loop
                    HookEvent("AfterAgent", "stop", None, 60_000),
                    # flush points: the whole chat recording is read again
                    HookEvent("PreCompress", "pre-compact", None, 60_000),
                    HookEvent("SessionEnd", "session-end", None, 60_000),
                ),
                timeout_unit="ms",
                captures=True,
                disabled_by=(
                    (("hooksConfig", "enabled"), False),
                    (("tools", "enableHooks"), False),
                ),
                matcher_rule="exact",
                levels=(
                    SettingsFile("settings.json", Root(".gemini")),
                    SettingsFile(".gemini/settings.json"),
                ),
                disabled_names=(("hooksConfig", "disabled"), ("hooks", "disabled")),
                project_trust="gemini",
                trust_file=SettingsFile("trustedFolders.json", Root(".gemini")),
            ),
        ),
    ),
    Adapter(
        name="codex",
        label="Codex CLI",
        write_reads="Codex CLI loads $CODEX_HOME/AGENTS.md (AGENTS.override.md when present) "
        "and each project's AGENTS.md; ~/.codex/memories is kept by Codex's own memory "
        "pipeline, so it has no folder a new memory file is read from",
        roots=(Root(".codex", env="CODEX_HOME"),),
        transcripts="sessions",  # sessions/YYYY/MM/DD/rollout-*.jsonl
        global_files=(
            Location(AGENTS_OVERRIDE_MD, kind="instructions"),
            Location(AGENTS_MD, kind="instructions"),
            Location("memories/*.md", kind="memory", always=None),
        ),
        project_files=(Location(AGENTS_OVERRIDE_MD, kind="instructions"),),
        mcp=(
            McpHost(
                name="codex",
                user=(UserFile(Root(".codex", env="CODEX_HOME"), "config.toml"),),
                # read only in trusted projects
                project=".codex/config.toml",
                file_format="toml",
                container="mcp_servers",
                # Codex drops a server that has not started within startup_timeout_sec
                # (10 s by default); ours took 5-18 s on a loaded machine.
                entry_defaults=(("startup_timeout_sec", 30),),
                dedicated_user=False,
                dedicated_project=False,
                startup=StartupLimit(
                    10,
                    "s",
                    entry_key="startup_timeout_sec",
                    source="developers.openai.com/codex/mcp",
                ),
            ),
        ),
        hooks=(
            HookHost(
                name="codex",
                label="Codex CLI",
                user=UserFile(Root(".codex", env="CODEX_HOME"), "hooks.json"),
                project=".codex/hooks.json",
                events=(
                    HookEvent("SessionStart", "session-start", "startup|resume|clear", 10),
                    # Stop ignores matchers; its input names the rollout (transcript_path)
                    HookEvent("Stop", "stop", None, 60),
                ),
                captures=True,
                enable_note="Codex asks you to trust a new hook before it runs it (/hooks); "
                "builds before hooks were on by default also need [features] hooks = true "
                "in config.toml",
                disabled_by=(
                    (("features", "hooks"), False),
                    (("features", "codex_hooks"), False),
                ),
                levels=(
                    SettingsFile("config.toml", Root(".codex", env="CODEX_HOME"), "toml"),
                    SettingsFile(".codex/config.toml", file_format="toml"),
                ),
                project_trust="codex",
            ),
        ),
    ),
    Adapter(
        name="copilot",
        label="GitHub Copilot",
        write_global="instructions",
        write_project=".github/instructions",
        write_suffix=".instructions.md",
        write_meta=(("applyTo", "**"),),
        write_loads="GitHub Copilot applies this instructions file to every request in {where} "
        '(applyTo: "**")',
        roots=(Root(".copilot", env="COPILOT_HOME"),),
        global_files=(
            Location("copilot-instructions.md", kind="instructions"),
            Location("instructions/**/*.instructions.md", kind="rules", always=None),
        ),
        project_files=(
            Location(".github/copilot-instructions.md", kind="instructions"),
            Location(".github/instructions/**/*.instructions.md", kind="rules", always=None),
        ),
        mcp=(
            # Copilot in VS Code: the profile's mcp.json and .vscode/mcp.json, under "servers".
            McpHost(
                name="vscode",
                aliases=("copilot",),
                user=_in_vscode("", "mcp.json"),
                project=".vscode/mcp.json",
                container="servers",
                entry_extras=(("type", "stdio"),),
            ),
            # Copilot's portable format (Copilot CLI): $COPILOT_HOME/mcp-config.json,
            # "mcpServers", entries {"type": "local"|"stdio", command, args, env, "tools":
            # ["*"]} ("tools" limits what Copilot may call; "*" is all). Its project file is
            # .mcp.json, Claude Code's: install-mcp claude-code --project serves both.
            McpHost(
                name="copilot-cli",
                user=(UserFile(Root(".copilot", env="COPILOT_HOME"), "mcp-config.json"),),
                entry_extras=(("type", "local"),),
                entry_defaults=(("tools", ("*",)),),
            ),
        ),
    ),
    Adapter(
        name="cline",
        label="Cline",
        write_global="",
        write_project=".clinerules",
        write_loads="Cline combines every file in this folder into each task's rules in "
        "{where} (each can be switched off in its Rules panel)",
        roots=(Root("Documents/Cline/Rules"), Root("Cline/Rules")),
        global_files=(Location("*.md", kind="rules"),),
        project_files=(
            Location(".clinerules/**/*.md", kind="rules"),
            Location(".cline/rules/**/*.md", kind="rules"),
            Location(".clinerules", kind="rules"),
            # Cline's memory bank: markdown the custom instructions tell Cline to read
            Location("memory-bank/*.md", kind="memory", always=None),
        ),
        mcp=(
            # Cline (VS Code extension): cline_mcp_settings.json in the extension's global
            # storage, "mcpServers" with stdio entries (command, args, env; Cline adds
            # "disabled" and "autoApprove" itself). No project file.
            McpHost(
                name="cline",
                user=_in_vscode(_CLINE_SETTINGS, "cline_mcp_settings.json"),
            ),
        ),
    ),
    Adapter(
        name="continue",
        label="Continue",
        write_global="rules",
        write_project=".continue/rules",
        write_meta=(("alwaysApply", True),),
        write_loads="Continue includes this rule in every Agent and Chat request in {where} "
        "(alwaysApply: true); autocomplete does not use rules",
        roots=(Root(".continue"),),
        global_files=(Location("rules/*.md", kind="rules", always=None),),
        project_files=(
            Location(".continue/rules/*.md", kind="rules", always=None),
            Location(".continuerules", kind="rules"),
        ),
        mcp=(
            # a YAML list, and per-project block files
            McpHost(
                name="continue",
                user=(UserFile(Root(".continue"), "config.yaml"),),
                project=".continue/mcpServers/*.yaml",
                file_format="yaml",
                dedicated_user=False,
                installable=False,
            ),
        ),
    ),
    Adapter(
        name="zed",
        label="Zed",
        write_reads="Zed loads one rules file at a project's top level (.rules, else the "
        "first of AGENTS.md, CLAUDE.md and the like), not a folder of memory files",
        roots=(Root("zed", base="config"),),
        project_files=(Location(".rules", kind="rules"),),
        mcp=(
            McpHost(
                name="zed",
                # %APPDATA%\Zed on Windows, ~/.config/zed on macOS, $XDG_CONFIG_HOME/zed on Linux
                user=(
                    UserFile(Root("Zed", base="appdata"), "settings.json", "win"),
                    UserFile(Root(".config/zed"), "settings.json", "darwin"),
                    UserFile(Root("zed", base="config"), "settings.json"),
                ),
                project=".zed/settings.json",
                container="context_servers",
                # Zed's own settings migrator inserts "source": "custom" into command entries
                # that lack it; writing it ourselves keeps our entry stable across Zed starts.
                entry_extras=(("source", "custom"),),
                dedicated_user=False,
                dedicated_project=False,
            ),
        ),
    ),
    Adapter(
        name="kiro",
        label="Kiro",
        write_global="steering",
        write_project=".kiro/steering",
        write_meta=(("inclusion", "always"),),
        write_loads="Kiro includes this steering file in every interaction in {where} "
        "(inclusion: always)",
        roots=(Root(".kiro"),),
        global_files=(Location("steering/*.md", kind="rules"),),
        project_files=(Location(".kiro/steering/*.md", kind="rules"),),
        # Kiro: ~/.kiro/settings/mcp.json and <project>/.kiro/settings/mcp.json (the
        # workspace file wins), "mcpServers" with command, args, env (and its own
        # "disabled", "autoApprove").
        mcp=(
            McpHost(
                name="kiro",
                user=(UserFile(Root(".kiro"), "settings/mcp.json"),),
                project=".kiro/settings/mcp.json",
            ),
        ),
    ),
    Adapter(
        name="serena",
        label="Serena",
        write_reads="Serena keeps a project's memories in .serena/memories/ and writes them "
        "itself (its write_memory tool); it reads them on demand",
        roots=(Root(".serena"),),
        project_files=(Location(".serena/memories/*.md", kind="memory", always=None),),
    ),
    Adapter(
        name="amazonq",
        label="Amazon Q Developer",
        write_reads="Amazon Q Developer loads a project's .amazonq/rules/**/*.md and AmazonQ.md",
        project_files=(
            Location(".amazonq/rules/**/*.md", kind="rules"),
            Location("AmazonQ.md", kind="instructions"),
        ),
    ),
    Adapter(
        name="aider",
        label="Aider",
        write_reads="Aider loads nothing by itself: only files named by --read or read: in "
        ".aider.conf.yml",
        project_files=(Location("CONVENTIONS.md", kind="rules", always=None),),
    ),
    Adapter(
        name="opencode",
        label="OpenCode",
        write_reads="OpenCode loads AGENTS.md (a project's, and ~/.config/opencode/AGENTS.md), "
        "one file each, not a folder of memory files",
        # OpenCode's config: ~/.config/opencode/opencode.json and a project's opencode.json;
        # MCP servers under "mcp", a local one {"type": "local", "command": [program, …],
        # "enabled": true, "environment": {…}} (opencode.ai/docs/mcp-servers).
        mcp=(
            McpHost(
                name="opencode",
                user=(UserFile(Root("opencode", base="config"), "opencode.json"),),
                project="opencode.json",
                container="mcp",
                entry_extras=(("type", "local"),),
                entry_shape="opencode",
                # OpenCode gives a local server 5 s to list its tools ("timeout", ms);
                # ours can take longer on a loaded machine
                entry_defaults=(("timeout", 30_000),),
                dedicated_user=False,
                dedicated_project=False,
                startup=StartupLimit(
                    5_000, "ms", entry_key="timeout", source="opencode.ai/docs/mcp-servers"
                ),
            ),
        ),
    ),
    Adapter(
        name="agents-md",
        label="AGENTS.md",
        write_reads="AGENTS.md is one file per project (and ~/.agents/AGENTS.md), read by "
        "many hosts, not a folder of memory files",
        roots=(Root(".agents"), Root("opencode", base="config")),
        global_files=(Location(AGENTS_MD, kind="instructions"),),
        project_files=(
            Location(AGENTS_MD, kind="instructions"),
            Location("AGENT.md", kind="instructions"),
        ),
    ),
)

BY_NAME: dict[str, Adapter] = {a.name: a for a in ADAPTERS}


@dataclass(frozen=True, slots=True)
class KeptPlace:
    """A place a tool keeps memory that forget treats by its owner's own rules.

    ``scope``: ``store`` (relative to the memoir store), ``global`` (to the owner's
    first root) or ``project`` (to a project directory). ``rule`` says what forget may
    do there: ``canonical`` (hide or purge a memory as today's memoir does,
    FORMAT-LATEST §11), ``git`` (the folder is a git repository: the lines removed by
    the host-file pass are committed, and its history named) or ``read-only`` (never
    edited here: named, with ``remedy``, the owner's own way to let go of it).
    ``history`` is where earlier copies stay (``{id}``: a canonical memory's id).
    """

    name: str
    owner: str  # the adapter
    label: str
    scope: str  # "store" | "global" | "project"
    pattern: str  # "*" one segment, "**" any number of folders
    rule: str  # "canonical" | "git" | "read-only"
    history: str = ""
    remedy: str = ""


CODEX_CLEAR_MEMORIES = "codex debug clear-memories"  # openai/codex PR 13085
CLAUDE_PROJECT_PURGE = "claude project purge"  # Claude Code 2.1.115+: a project's state

PLACES: tuple[KeptPlace, ...] = (
    KeptPlace(
        "memoir-memories",
        "memoir",
        "today's memoir's canonical memories",
        "store",
        f"{MEMOIR_MEMORIES}/*.md",
        "canonical",
        history=f"{MEMOIR_MEMORIES}/history/{{id}}",
    ),
    KeptPlace(
        "memoir-ledger",
        "memoir",
        "memoir's project ledger",
        "project",
        ".memoir/work.json",
        "read-only",
        remedy="today's memoir keeps every record's text in its ledger (a retraction hides "
        "it from the active view, the text stays); delete the project's .memoir/work.json "
        "and .memoir/work-backups/ to let go of it",
    ),
    KeptPlace(
        "memoir-ledger-backups",
        "memoir",
        "memoir's project ledger backups",
        "project",
        ".memoir/work-backups/*.json",
        "read-only",
        remedy="the ledger's backups keep every saved revision; delete the named files",
    ),
    KeptPlace(
        "memoir-handoff",
        "memoir",
        "memoir's handoff view",
        "project",
        ".memoir/HANDOFF.md",
        "read-only",
        remedy="memoir renders it from .memoir/work.json on its next save",
    ),
    KeptPlace(
        "codex-memories",
        "codex",
        "Codex memories",
        "global",
        "memories",
        "git",
        history="memories/.git",
    ),
    KeptPlace(
        "codex-memory-db",
        "codex",
        "Codex's memory database",
        "global",
        "memories_*.sqlite*",
        "read-only",
        remedy=f"`{CODEX_CLEAR_MEMORIES}` clears every Codex memory (its memories folder, this "
        "database, and marks threads so they are not summarised again); Codex regenerates "
        "memories/*.md from this database otherwise",
    ),
    KeptPlace(
        "codex-rollouts",
        "codex",
        "Codex session rollouts",
        "global",
        "sessions/**/rollout-*.jsonl",
        "read-only",
        remedy="Codex has no command that edits a rollout: delete the named files (those "
        "sessions can no longer be resumed)",
    ),
    KeptPlace(
        "claude-transcripts",
        "claude-code",
        "Claude Code transcripts",
        "global",
        f"{CLAUDE_PROJECTS}/**/*.jsonl",
        "read-only",
        remedy=f"`{CLAUDE_PROJECT_PURGE} <project folder> --dry-run`, then without "
        "--dry-run (Claude Code 2.1.115+), deletes a project's transcripts and state; or "
        "delete the named files",
    ),
)

# The always-loaded files inject writes the pinned block into, in the order it visits
# them: the global files (under each tool's directory), then each project's. Order
# matters: when two paths name one file (AGENTS.md linked to CLAUDE.md), the first wins.
INSTRUCTION_FILES: tuple[InstructionFile, ...] = (
    InstructionFile("claude", "claude-code", "global", (CLAUDE_MD,), create=True),
    InstructionFile(
        "codex",
        "codex",
        "global",
        (AGENTS_OVERRIDE_MD, AGENTS_MD),  # an override, when present, replaces AGENTS.md
        create=True,
        limit=CODEX_DOC_LIMIT,
        unit="bytes",
    ),
    InstructionFile("gemini", "gemini", "global", (GEMINI_MD,), create=True),
    InstructionFile(
        "windsurf",
        "windsurf",
        "global",
        ("memories/global_rules.md",),
        create=True,
        limit=WINDSURF_GLOBAL_LIMIT,
    ),
    # Cursor documents no global rules file: keep the JavaScript tool's one up to date.
    InstructionFile("cursor", "cursor", "global", (f"rules/{INJECT_CURSOR_FILE}",), own_file=True),
    # Never created in a project: a new CLAUDE.md would switch Claude Code's AGENTS.md
    # fallback off.
    InstructionFile(
        "claude-project",
        "claude-code",
        "project",
        (CLAUDE_MD, f"{CLAUDE_DIR}/{CLAUDE_MD}"),
        defers_to=AGENTS_MD,
    ),
    InstructionFile(
        "agents-md",
        "codex",
        "project",
        (AGENTS_OVERRIDE_MD,),
        limit=CODEX_DOC_LIMIT,
        unit="bytes",
    ),
    # Read by Codex (unless overridden) and Claude Code (when there is no CLAUDE.md).
    InstructionFile(
        "agents-md",
        "agents-md",
        "project",
        (AGENTS_MD,),
        limit=CODEX_DOC_LIMIT,
        unit="bytes",
        covered_by=((AGENTS_OVERRIDE_MD,), (CLAUDE_MD, f"{CLAUDE_DIR}/{CLAUDE_MD}")),
    ),
    InstructionFile("gemini-project", "gemini", "project", (GEMINI_MD,)),
    InstructionFile(
        "cursor",
        "cursor",
        "project",
        (f".cursor/rules/{INJECT_CURSOR_FILE}",),
        create=True,
        requires=".cursor",
        own_file=True,
    ),
)


@dataclass(frozen=True, slots=True)
class StartupFile:
    """A file a host puts in the model's context when a session starts, and its window.

    ``paths`` are relative to the tool's first root (``scope="global"``), to the
    project directory (``"project"``) or to Claude Code's memory folder for the
    project (``"memory"``); with ``every`` each that exists is loaded (``*``
    patterns allowed), else only the first. ``limit`` (in ``unit``: chars,
    bytes or lines) is where the host stops reading, ``also`` a second limit
    that applies too (MEMORY.md: 200 lines and 25 KB); files with the same
    ``budget`` share one limit, in order. ``always_rule``: a rule file loads
    only when its frontmatter says so (Cursor's ``alwaysApply: true``).
    """

    host: str  # the adapter
    scope: str  # "global" | "project" | "memory"
    paths: tuple[str, ...]
    every: bool = False
    limit: int | None = None
    unit: str = "chars"
    also: tuple[int, str] | None = None
    budget: str = ""
    always_rule: bool = False


CLAUDE_MEMORY_LINES = 200  # Claude Code loads MEMORY.md's first 200 lines …
CLAUDE_MEMORY_BYTES = 25 * 1024  # … and at most 25 KB of it

STARTUP_FILES: tuple[StartupFile, ...] = (
    StartupFile("claude-code", "global", (CLAUDE_MD,)),
    StartupFile(
        "claude-code",
        "project",
        (CLAUDE_MD, f"{CLAUDE_DIR}/{CLAUDE_MD}", "CLAUDE.local.md"),
        every=True,
    ),
    StartupFile(
        "claude-code",
        "memory",
        (CLAUDE_MEMORY_INDEX,),
        limit=CLAUDE_MEMORY_LINES,
        unit="lines",
        also=(CLAUDE_MEMORY_BYTES, "bytes"),
    ),
    StartupFile(
        "codex",
        "global",
        (AGENTS_OVERRIDE_MD, AGENTS_MD),
        limit=CODEX_DOC_LIMIT,
        unit="bytes",
        budget="codex-docs",
    ),
    StartupFile(
        "codex",
        "project",
        (AGENTS_OVERRIDE_MD, AGENTS_MD),
        limit=CODEX_DOC_LIMIT,
        unit="bytes",
        budget="codex-docs",
    ),
    StartupFile("gemini", "global", (GEMINI_MD,)),
    StartupFile("gemini", "project", (GEMINI_MD, f".gemini/{GEMINI_MD}"), every=True),
    StartupFile("windsurf", "global", ("memories/global_rules.md",), limit=WINDSURF_GLOBAL_LIMIT),
    StartupFile("cursor", "global", (f"rules/{INJECT_CURSOR_FILE}",), always_rule=True),
    StartupFile(
        "cursor", "project", (".cursor/rules/*.mdc", ".cursorrules"), every=True, always_rule=True
    ),
)


# What a person (or the JavaScript tool) may type for a tool, folded by ``fold_tool_name``,
# beside each adapter's own name, label and its MCP and hook hosts' names and aliases.
TOOL_ALIASES: dict[str, str] = {
    "claude": "claude-code",
    "claudecode": "claude-code",
    "claude-desktop": "claude-code",
    "cc": "claude-code",
    "store": "memoir",
    "memoir-tui": "memoir",
    "agents": "agents-md",
    "agents.md": "agents-md",
    "agent.md": "agents-md",
    "github-copilot": "copilot",
    "copilot-chat": "copilot",
    "vs-code": "copilot",
    "code": "copilot",
    "gemini-cli": "gemini",
    "codex-cli": "codex",
    "openai-codex": "codex",
    "codeium": "windsurf",
    "cascade": "windsurf",
    "devin": "windsurf",
    "zed-editor": "zed",
    "amazon-q": "amazonq",
    "amazon-q-developer": "amazonq",
    "q": "amazonq",
    "kiro-ide": "kiro",
    "aider-chat": "aider",
    "continue-dev": "continue",
    "roo": "cline",
    "claude-dev": "cline",
}


def fold_tool_name(name: str) -> str:
    """``" Claude Code "`` → ``claude-code``: case, spaces and underscores folded."""
    return "-".join(name.strip().lower().replace("_", " ").split())


def tool_names() -> dict[str, str]:
    """Every name a tool answers to (folded) → its adapter: its own name and label, its
    MCP and hook hosts' names and aliases, and ``TOOL_ALIASES``."""
    out: dict[str, str] = {}
    for adapter in ADAPTERS:
        names = [adapter.name, adapter.label]
        for host in adapter.mcp:
            names += [host.name, *host.aliases]
        names += [h.name for h in adapter.hooks]
        for n in names:
            out.setdefault(fold_tool_name(n), adapter.name)
    for alias, tool in TOOL_ALIASES.items():
        out.setdefault(fold_tool_name(alias), tool)
    return out


def resolve_tool(name: str, *, among: tuple[str, ...] | None = None, what: str = "tool") -> str:
    """The adapter a person means by ``name`` (any alias, any case); with ``among``, one
    of those adapters only. Unknown or outside ``among``: a ``MemoirError`` that lists
    the names that work. The one resolver every command, MCP argument and pane uses."""
    from memoir_tui.core.base.errors import MemoirError

    known = among if among is not None else tuple(a.name for a in ADAPTERS)
    key = fold_tool_name(name) if isinstance(name, str) else ""
    found = tool_names().get(key)
    if found is None and key:
        # the JavaScript tool matches a unique substring of a tool's name or label
        hits = [
            a.name
            for a in ADAPTERS
            if a.name in known and (key in a.name or key in fold_tool_name(a.label))
        ]
        if len(hits) > 1:
            raise MemoirError(
                f"{what} {name!r} is ambiguous ({', '.join(hits)}); known: {', '.join(known)}"
            )
        found = hits[0] if hits else None
    if found is None or found not in known:
        extra = f" ({BY_NAME[found].label} is not a {what} here)" if found in BY_NAME else ""
        raise MemoirError(f"unknown {what} {name!r}{extra}; known: {', '.join(known)}")
    return found


def get_adapter(name: str) -> Adapter:
    """The adapter named ``name`` or any alias of it (``resolve_tool``)."""
    found = BY_NAME.get(name)
    return found if found is not None else BY_NAME[resolve_tool(name)]


def tool_dir(name: str, home: Path, env: Mapping[str, str] | None = None) -> Path:
    """A tool's own global directory: its environment override, else its default.

    ``tool_dir("claude-code", home)`` is ``$CLAUDE_CONFIG_DIR`` when set (it
    moves the whole ``~/.claude`` tree), else ``home/.claude``; ``"codex"``
    honours ``$CODEX_HOME``. ``env`` defaults to the process environment.
    """
    root = get_adapter(name).roots[0].resolve(home, os.environ if env is None else env, None)
    assert root is not None  # only the store's own adapter has no home-based root
    return root


def transcripts_dir(name: str, home: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where ``name`` keeps its session transcripts (Claude Code: ``<claude dir>/projects``)."""
    sub = get_adapter(name).transcripts
    if sub is None:
        raise ValueError(f"{name} keeps no transcripts we read")
    return tool_dir(name, home, env) / sub


def project_memory_dirs(name: str, home: Path, env: Mapping[str, str] | None = None) -> list[Path]:
    """A tool's per-project memory folders (Claude Code: ``<claude dir>/projects/*/memory``).

    Read from its ``<project>`` memory locations; sorted, symlinked folders left out.
    """
    root = tool_dir(name, home, env)
    out: list[Path] = []
    for loc in get_adapter(name).global_files:
        if loc.kind != "memory" or "<project>/" not in loc.pattern:
            continue
        before, _, after = loc.pattern.partition("<project>/")
        holder = root / before.rstrip("/") if before else root
        inner = after.rpartition("/")[0]
        try:
            names = sorted(os.listdir(holder))
        except OSError:
            continue
        for entry in names:
            d = holder / entry / inner if inner else holder / entry
            if d.is_dir() and not d.is_symlink():
                out.append(d)
    return out


def describe_dir(name: str, sub: str = "") -> str:
    """A tool's directory (or ``sub`` in it) for help texts: ``$CODEX_HOME, else ~/.codex``."""
    root = get_adapter(name).roots[0]
    if root.env:
        return f"${root.env}{'/' + sub if sub else ''}, else {root.shown(sub)}"
    return root.shown(sub)


def instruction_files_shown(scope: str) -> list[str]:
    """Inject's files for help texts: ``~/.claude/CLAUDE.md`` …, or project-relative paths.

    Global files are named by the path inject creates (the last of their ``paths``).
    """
    out: list[str] = []
    for f in INSTRUCTION_FILES:
        if f.scope != scope:
            continue
        paths = (get_adapter(f.tool).roots[0].shown(f.paths[-1]),) if scope == "global" else f.paths
        out += [p for p in paths if p not in out]
    return out


def mcp_hosts(*, installable: bool | None = None) -> tuple[McpHost, ...]:
    """Every host's MCP registration, in adapter order (``installable`` filters)."""
    return tuple(
        host
        for adapter in ADAPTERS
        for host in adapter.mcp
        if installable is None or host.installable == installable
    )


def hook_hosts() -> tuple[HookHost, ...]:
    """Every host whose hooks ``install-hooks`` edits, in adapter order."""
    return tuple(host for adapter in ADAPTERS for host in adapter.hooks)


def hook_host(name: str) -> HookHost:
    """The hook host ``name`` means: its own name (``claude``) or any name of its tool
    (``claude-code``, ``Claude Code`` …); an unknown one is refused listing the known."""
    for host in hook_hosts():
        if host.name == name:
            return host
    with_hooks = tuple(a.name for a in ADAPTERS if a.hooks)
    return BY_NAME[resolve_tool(name, among=with_hooks, what="hook host")].hooks[0]
