"""Guards over the package's source: host-tool facts live only in the adapters' data.

The names checked are not listed here: they are read from the adapters' data
(``ADAPTERS``, ``INSTRUCTION_FILES`` and ``STARTUP_FILES``) — every path segment that names a
file or directory (``.claude``, ``CLAUDE.md``, ``mcp.json``, ``global_rules.md``
…) and every environment override (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` …).
Every module of the package is scanned with ``ast`` for string literals that
spell one; docstrings are prose, not paths, and are skipped. Only the registry
itself may spell them. Tests (which spell paths on purpose, to check the
registry independently) and docs are outside the package and not scanned.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

from memoir_tui.core.hosts import adapters
from memoir_tui.core.hosts.adapters import ADAPTERS, INSTRUCTION_FILES, STARTUP_FILES

PACKAGE = Path(__file__).resolve().parents[1] / "memoir_tui"
REGISTRY = Path(adapters.__file__)  # wherever the registry lives

# Fields of the data that hold names of things other than files (tool names, labels,
# file suffixes the walker filters on, JSON keys, platforms, units).
NOT_PATHS = frozenset(
    {
        "name",
        "label",
        "aliases",
        "target",
        "tool",
        "scope",
        "kind",
        "base",
        "platform",
        "suffixes",
        "write_suffix",
        "file_format",
        "container",
        "entry_extras",
        "unit",
        # hook hosts: event names, our verbs, matchers and output shapes, not paths
        "host_event",
        "verb",
        "matcher",
        "timeout_unit",
        "output",
        "disabled_by",
        "enable_note",
        "host",
        "budget",
        "write_meta",  # frontmatter keys and values
        "write_loads",  # prose for replies
        "write_reads",
    }
)
# Segments the data uses that are not any tool's own: XDG's config directory.
SHARED = frozenset({".config"})
_TOKEN_EDGES = "\"'`()[]{},;:!?$~*"


def _strings(value: object, field: str = "") -> Iterator[tuple[str, str]]:
    """Every (field, string) reachable in a value of the adapters' data."""
    if isinstance(value, str):
        yield field, value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name not in NOT_PATHS:
                yield from _strings(getattr(value, f.name), f.name)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _strings(item, field)


def host_tool_names() -> set[str]:
    names: set[str] = set()
    for field, text in _strings(
        (*[a for a in ADAPTERS if a.name != "memoir"], *INSTRUCTION_FILES, *STARTUP_FILES)
    ):
        if field == "env":
            names.add(text)
            continue
        for segment in text.split("/"):
            wild = any(c in segment for c in "*?[<")
            if "." in segment and not wild and segment not in SHARED:
                names.add(segment)
    return names


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of string constants that are statements (docstrings, commented-out prose)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _spelled(text: str, names: set[str]) -> set[str]:
    found = set()
    for token in re.split(r"\s+", text):
        for segment in re.split(r"[/\\]", token.strip(_TOKEN_EDGES)):
            segment = segment.strip(_TOKEN_EDGES)
            if segment in names:
                found.add(segment)
    return found


def test_the_registry_names_the_tools_it_should() -> None:
    names = host_tool_names()
    # A sample, so the discovery above cannot quietly find nothing.
    for expected in (".claude", ".codeium", "CLAUDE.md", "AGENTS.md", "mcp.json", "CODEX_HOME"):
        assert expected in names
    assert not names & {".md", ".mdc", "memory", "projects"}


def test_no_module_outside_the_registry_spells_a_host_tool_path() -> None:
    names = host_tool_names()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == REGISTRY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        prose = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in prose
            ):
                for name in sorted(_spelled(node.value, names)):
                    offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {name}")
    assert not offenders, "host-tool paths belong in core/adapters:\n" + "\n".join(offenders)


def test_core_never_prints() -> None:
    offenders = []
    for path in sorted((PACKAGE / "core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            printing = isinstance(func, ast.Name) and func.id == "print"
            writing = (
                isinstance(func, ast.Attribute)
                and func.attr == "write"
                and isinstance(func.value, ast.Attribute)
                and func.value.attr in ("stdout", "stderr")
            )
            if printing or writing:
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not offenders, "core returns values; faces print:\n" + "\n".join(offenders)
