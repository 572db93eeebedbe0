"""``memoir-tui install-mcp`` / ``uninstall-mcp``: what the command prints and its exit codes.

The planning and the edits are tested in ``tests/test_mcp_install.py``; here
only the face: output, exit codes, and that a refusal leaves the file alone.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from memoir_tui.commands.install_mcp import run_install_cli
from memoir_tui.core.door import transaction
from memoir_tui.core.hosts.mcp_install import ServerSpec, backup_path_for
from memoir_tui.core.workflows.memoir import Memoir
from tests.core.test_mcp_install import FIXTURES, NO_ENV, expected_entry, files_under, load, place


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


def cli(tool: str, home: Path, project: Path | None = None, **kw: Any) -> tuple[int, str]:
    out = io.StringIO()
    code = run_install_cli(
        Memoir(actor="cli"),
        tool,
        project,
        kw.pop("dry_run", False),
        kw.pop("uninstall", False),
        home=home,
        env=NO_ENV,
        out=out,
        platform="linux",
        **{"live_check": False, **kw},  # the live check has tests of its own
    )
    return code, out.getvalue()


def test_cli_dry_run_prints_the_diff_and_writes_nothing(home: Path) -> None:
    path = place("gemini", "gemini_settings.json", home, None)
    original = path.read_bytes()
    code, output = cli("gemini", home, dry_run=True)
    assert code == 0
    assert output.startswith(f"--- {path}\n+++ {path}\n")
    assert '+    "memoir-tui": {\n' in output
    assert output.endswith(f"(dry run: {path} was not written)\n")
    assert path.read_bytes() == original
    assert files_under(path.parent) == {path.name: original}


def test_cli_install_and_uninstall_summaries(home: Path, project: Path) -> None:
    path = place("cursor", "cursor_mcp.json", home, project)
    code, output = cli("cursor", home, project)
    assert code == 0
    assert output == (
        f"Registered MCP server 'memoir-tui' for cursor (project) in {path}; "
        f"original saved as {backup_path_for(path)}\n"
    )
    code, output = cli("cursor", home, project)
    assert (code, output) == (
        0,
        f"MCP server 'memoir-tui' is already registered for cursor (project) in {path}; "
        "nothing to do\n",
    )
    code, output = cli("cursor", home, project, dry_run=True)
    assert code == 0 and "nothing to do" in output
    code, output = cli("cursor", home, project, uninstall=True)
    assert (code, output) == (
        0,
        f"Removed MCP server 'memoir-tui' for cursor (project) from {path}\n",
    )
    code, output = cli("cursor", home, project, uninstall=True)
    assert code == 0 and "is not registered" in output
    assert path.read_bytes() == (FIXTURES / "cursor_mcp.json").read_bytes()


def test_cli_fresh_install_has_no_backup_note(home: Path) -> None:
    code, output = cli("claude", home)
    assert code == 0
    assert output == (
        f"Registered MCP server 'memoir-tui' for claude-code (user) in {home / '.claude.json'}\n"
    )


def test_cli_unknown_tool_exits_2(home: Path) -> None:
    code, output = cli("notepad", home)
    assert code == 2
    assert "unknown tool 'notepad'" in output and "claude-code (alias claude)" in output
    assert list(home.iterdir()) == []


def test_cli_usage_errors_exit_2(home: Path, tmp_path: Path) -> None:
    code, output = cli("windsurf", home, tmp_path)
    assert code == 2 and "windsurf has no project-level MCP config file" in output
    code, output = cli("cursor", home, tmp_path / "missing")
    assert code == 2 and "does not exist" in output


def test_cli_parse_error_exits_1_and_explains(home: Path) -> None:
    path = home / ".codex/config.toml"
    path.parent.mkdir()
    path.write_text("model = = broken\n")
    code, output = cli("codex", home)
    assert code == 1
    assert f"refusing to edit {path}: invalid TOML" in output
    assert "left untouched" in output
    assert "[mcp_servers.memoir-tui]" in output  # the snippet to add by hand
    assert path.read_text() == "model = = broken\n"
    code, output = cli("codex", home, uninstall=True)
    assert code == 1 and "[mcp_servers.memoir-tui]" not in output


def test_cli_write_failure_exits_1(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = place("cursor", "cursor_mcp.json", home, None)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(transaction, "write_file_safely", refuse)  # every write of the door
    code, output = cli("cursor", home)
    assert code == 1 and "could not write" in output and "Permission denied" in output
    assert path.read_bytes() == (FIXTURES / "cursor_mcp.json").read_bytes()


def test_cli_passes_the_server_spec(home: Path) -> None:
    server = ServerSpec(command="/abs/memoir-tui", env={"MEMOIR_HOME": "/x"})
    code, _ = cli("zed", home, server=server)
    assert code == 0
    entry = load(home / ".config/zed/settings.json")["context_servers"]["memoir-tui"]
    assert entry == expected_entry("zed", server)


def test_install_and_uninstall_are_audited(home: Path) -> None:
    from memoir_tui.core.door.audit import read_audit

    store = Memoir(actor="cli")
    assert cli("cursor", home)[0] == 0
    assert read_audit(store.root, limit=1)[0].operation == "install_mcp"
    assert cli("cursor", home, uninstall=True)[0] == 0
    assert read_audit(store.root, limit=1)[0].operation == "uninstall_mcp"
