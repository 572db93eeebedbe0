"""The CLI as a user runs it: real processes on the scratch store."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET


def run(*args: str, store=None, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = os.environ.copy()
    if store is not None:
        env["MEMOIR_HOME"] = str(store)
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=SAFETY_NET,
    )


def test_help_and_a_subcommand_import_neither_textual_nor_mcp(store_dir):
    probe = (
        "import sys, runpy; sys.argv = ['memoir-tui', *sys.argv[1:]];\n"
        "try:\n    runpy.run_module('memoir_tui', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'mcp') or m.startswith('memoir_tui.app')]\n"
        "print('LEAK', bad, file=sys.stderr)"
    )
    for args in (["--help"], ["status"], ["validate"], ["config", "show"]):
        proc = subprocess.run(
            [sys.executable, "-c", probe, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMOIR_HOME": str(store_dir)},
            timeout=SAFETY_NET,
        )
        assert "LEAK []" in proc.stderr, (args, proc.stderr)


def test_validate_exit_codes_and_lines(tmp_path):
    good = tmp_path / "fact_ok.md"
    good.write_text("---\ntype: fact\nname: ok\n---\n")
    bad = tmp_path / "lesson_bad.md"
    bad.write_text("---\ntype: lesson\nname: bad\n---\n")
    ok = run("validate", str(good))
    assert ok.returncode == 0 and ok.stdout == ""
    proc = run("validate", str(good), str(bad))
    assert proc.returncode == 1
    assert f"{bad}: error [lesson.trigger]" in proc.stdout
    assert all(line.startswith(str(bad)) for line in proc.stdout.splitlines())


def test_merge_command(tmp_path):
    a = {
        "version": 1,
        "created_at": "2026-01-01",
        "updated_at": "2026-01-01",
        "current": {"goals": [{"text": "a", "set_on": "2026-01-01"}]},
    }
    b = {
        "version": 1,
        "created_at": "2026-01-02",
        "updated_at": "2026-01-02",
        "current": {"goals": [{"text": "b", "set_on": "2026-01-02"}]},
    }
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    proc = run("merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert proc.returncode == 0
    assert [g["text"] for g in json.loads(proc.stdout)["current"]["goals"]] == ["b", "a"]
    out = tmp_path / "out.json"
    assert (
        run("merge", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "-o", str(out)).returncode
        == 0
    )
    assert json.loads(out.read_text())["created_at"] == "2026-01-01"
    (tmp_path / "bad.json").write_text("{")
    bad = run("merge", str(tmp_path / "a.json"), str(tmp_path / "bad.json"))
    assert bad.returncode == 1 and "not valid JSON" in bad.stderr and "Traceback" not in bad.stderr


def test_forget_hides_exactly_one(store_dir):
    store = Memoir(store_dir)
    store.note_decision("Use uv for environments", why="fast")
    store.note_decision("Use ruff for linting")
    ambiguous = run("forget", "use", "--yes", store=store_dir)
    assert ambiguous.returncode == 1 and "Use ruff for linting" in ambiguous.stderr
    refused = run("forget", "uv", store=store_dir, stdin="")
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert len(store.working_set().decisions) == 2
    proc = run("forget", "uv", "--yes", store=store_dir)
    assert proc.returncode == 0
    assert "cannot be undone" in proc.stdout and "Use uv for environments" in proc.stdout
    assert [d.text for d in store.working_set().decisions] == ["Use ruff for linting"]
    purge = run("forget", "ruff", "--purge", "--yes", store=store_dir)
    assert purge.returncode == 0
    assert "Use ruff for linting" not in (store_dir / "session.json").read_text()


def test_config_path_show_and_errors(store_dir):
    assert run("config", "path", store=store_dir).stdout.strip() == str(
        store_dir / "memoir-tui.toml"
    )
    assert "goals = 5" in run("config", "show", store=store_dir).stdout
    (store_dir / "memoir-tui.toml").write_text("[caps]\ngoals = 'many'\n")
    proc = run("config", "show", store=store_dir)
    assert proc.returncode == 1
    assert (
        "memoir-tui.toml:2" in proc.stderr
        and "caps.goals" in proc.stderr
        and "Traceback" not in proc.stderr
    )


def test_status_never_shows_tombstones(store_dir):
    store = Memoir(store_dir)
    store.note_decision("Secret plan", why="x")
    store.hide_decision(store.resolve_decision("secret").key)
    store.add_next_action("Finish")
    store.complete_next_action("Finish")
    out = run("status", store=store_dir).stdout
    assert "Secret plan" not in out and "Finish" not in out


def test_status_lists_what_a_full_list_parked_or_archived(store_dir):
    """Past the caps an item is parked or archived, still the person's: status says
    where it is instead of leaving it out."""
    from tests.conftest import store_past_its_caps

    store_past_its_caps(store_dir)
    out = run("status", store=store_dir).stdout
    for title, place in (
        ("Goals", "archived"),
        ("Next actions", "parked"),
        ("Open questions", "archived"),
        ("Decisions", "archived"),
    ):
        assert f"\n{title} (1 + 1 {place}" in out, out
    assert "  - old goal (archived)" in out and "  - new goal  [" in out
    assert "  - old step (parked)" in out and "  - old decision (archived)" in out


@pytest.mark.parametrize("tool", ["cursor", "claude-code"])
def test_install_mcp_dry_run_then_real(tmp_path, tool):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    dry = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "install-mcp", tool, "--dry-run"],
        capture_output=True,
        text=True,
        env=env,
        timeout=SAFETY_NET,
    )
    assert dry.returncode == 0 and "+" in dry.stdout and "memoir-tui" in dry.stdout
    assert not any(home.rglob("*.json"))
    real = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "install-mcp", tool],
        capture_output=True,
        text=True,
        env=env,
        timeout=SAFETY_NET,
    )
    assert real.returncode == 0
    (config,) = [p for p in home.rglob("*.json")]
    servers = json.loads(config.read_text())["mcpServers"]
    assert "--mcp" in servers["memoir-tui"]["args"]
    undo = subprocess.run(
        [sys.executable, "-m", "memoir_tui", "uninstall-mcp", tool],
        capture_output=True,
        text=True,
        env=env,
        timeout=SAFETY_NET,
    )
    assert undo.returncode == 0
    assert "memoir-tui" not in json.loads(config.read_text()).get("mcpServers", {})


def test_review_list_keeps_to_the_project_it_runs_in(store_dir, tmp_path):
    from memoir_tui.core.rules.scope import working_project

    repo = tmp_path / "shop"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    found = working_project(repo)
    assert found is not None
    here = found.id
    Memoir(store_dir).review.enqueue(
        [
            {"text": text, "kind": "decision", "source": "user", "project": project}
            for text, project in (
                ("Use SQS for invoices", here),
                ("Static export for marketing", "git:" + "b" * 32),
            )
        ]
    )
    env = {**os.environ, "MEMOIR_HOME": str(store_dir)}
    env.pop("MEMOIR_PROJECT_ROOT", None)

    def listing(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "memoir_tui", "review", "list", *extra],
            capture_output=True,
            text=True,
            env=env,
            cwd=repo,
            timeout=120,
        )

    scoped = listing()
    assert "Use SQS" in scoped.stdout and "Static export" not in scoped.stdout
    assert "1 more in other projects (--all-projects shows them)" in scoped.stderr
    assert "Static export" in listing("--all-projects").stdout
