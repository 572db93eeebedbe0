"""One resolver for host tool names: every name the registry spells for a tool (its
own name, label, MCP and hook hosts' names and aliases) and every alias people type
reaches the same tool from every command; a wrong name lists the right ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.base.errors import MemoirError
from memoir_tui.core.hosts.adapters import (
    ADAPTERS,
    TOOL_ALIASES,
    fold_tool_name,
    hook_host,
    resolve_tool,
)
from memoir_tui.core.hosts.mcp_install import get_tool
from tests.deadlines import SAFETY_NET

REPO = Path(__file__).resolve().parents[2]


def _spellings() -> list[tuple[str, str]]:
    """(what a person may type, the adapter) read from the registry's data."""
    out = []
    for a in ADAPTERS:
        names = [a.name, a.label, a.label.upper(), a.name.replace("-", "_")]
        names += [h.name for h in a.mcp] + [alias for h in a.mcp for alias in h.aliases]
        names += [h.name for h in a.hooks]
        out += [(n, a.name) for n in names]
    out += list(TOOL_ALIASES.items())
    return out


@pytest.mark.parametrize(("typed", "tool"), _spellings())
def test_every_spelling_reaches_its_tool(typed: str, tool: str) -> None:
    assert resolve_tool(typed) == tool


def test_commands_share_it() -> None:
    for typed in ("claude", "claude-code", "Claude Code", "CLAUDE_CODE"):
        assert get_tool(typed).name == "claude-code"  # install-mcp
        assert hook_host(typed).name == "claude"  # install-hooks, hook --host
    assert get_tool("vscode").name == get_tool("copilot").name == "vscode"
    assert hook_host("gemini-cli").name == "gemini"


def test_a_wrong_name_lists_the_right_ones() -> None:
    with pytest.raises(MemoirError) as err:
        resolve_tool("clod")
    assert "claude-code" in str(err.value) and "cursor" in str(err.value)
    with pytest.raises(MemoirError) as err:
        hook_host("cursor")
    assert "Cursor is not a hook host" in str(err.value) and "claude-code" in str(err.value)


@given(st.text(max_size=30))
def test_folding_is_idempotent(name: str) -> None:
    assert fold_tool_name(fold_tool_name(name)) == fold_tool_name(name)


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(REPO)}
    env["MEMOIR_HOME"] = str(home / ".config" / "memoir")
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,
    )


def test_the_cli_takes_every_alias(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("Use pnpm for installs.\n")
    for typed in ("claude", "claude-code"):
        proc = _cli(home, "recall", "--tool", typed, "pnpm")
        assert proc.returncode == 0, proc.stderr
        assert "CLAUDE.md" in proc.stdout
    proc = _cli(home, "install-hooks", "claude-code", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "settings.json" in proc.stdout
    wrong = _cli(home, "recall", "--tool", "clod", "pnpm")
    assert wrong.returncode == 1 and "known: memoir, claude-code" in wrong.stderr
    wrong = _cli(home, "install-hooks", "clod", "--dry-run")
    assert wrong.returncode == 1 and "claude-code, gemini, codex" in wrong.stderr


def test_no_command_keeps_its_own_list_of_tool_names() -> None:
    """Every CLI argument naming a tool or host (discovered by parsing the package) is
    free text the one resolver reads: none restricts it with ``choices``."""
    import ast

    import memoir_tui

    package = Path(memoir_tui.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
            ):
                continue
            names = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if any(str(n).lstrip("-") in ("tool", "host") for n in names):
                found.append((path.name, names, [k.arg for k in node.keywords]))
    assert len(found) >= 4  # recall --tool, install-mcp, install-hooks, hook --host …
    assert [f for f in found if "choices" in f[2]] == []
