"""``memoir-tui recall`` and ``memoir-tui index`` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_tui.__main__ import main
from tests.deadlines import SAFETY_NET
from tests.world import World

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cli(world: World, monkeypatch: pytest.MonkeyPatch):
    for key, value in world.cli_env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(world.project)

    def run(*argv: str) -> int:
        return main(["--store", str(world.store_dir), *argv])

    return run


def test_recall_json_shape(cli, capsys):
    assert cli("recall", "postgres", "--json", "--all-projects") == 0
    results = json.loads(capsys.readouterr().out)
    assert results and isinstance(results, list)
    first = results[0]
    assert {"path", "tool", "type", "score", "passage", "why"} <= set(first)
    assert os.path.isabs(first["path"]) and first["tool"] == "memoir"
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_recall_text_output(cli, capsys):
    assert cli("recall", "checkout", "stripe") == 0
    out = capsys.readouterr().out
    assert "Stripe" in out and "CLAUDE.md" in out and "matched" in out


def test_hidden_decision_absent_from_cli(cli, capsys):
    for query in ("ocelot vault", "zanzibar", "narwhal dashboard"):
        assert cli("recall", query, "--json", "--all-projects") == 0
        assert json.loads(capsys.readouterr().out) == []


def test_out_of_scope_absent_from_cli_unless_asked(cli, capsys, world: World):
    assert cli("recall", "platypus", "--json") == 0
    assert json.loads(capsys.readouterr().out) == []
    assert cli("recall", "platypus", "--json", "--project", str(world.other)) == 0
    assert json.loads(capsys.readouterr().out)
    assert cli("recall", "platypus", "--json", "--all-projects") == 0
    assert json.loads(capsys.readouterr().out)


def test_limit_tool_and_usage_errors(cli, capsys):
    assert cli("recall", "rule", "--json", "--all-projects", "--limit", "2") == 0
    assert len(json.loads(capsys.readouterr().out)) <= 2
    assert cli("recall", "rule", "--json", "--all-projects", "--tool", "cursor") == 0
    assert {r["tool"] for r in json.loads(capsys.readouterr().out)} == {"cursor"}
    assert cli("recall", "rule", "--tool", "nope") == 1
    assert "unknown tool" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        cli("recall", "rule", "--limit", "0")
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        cli("recall", "x", "--project", "a", "--all-projects")


def test_index_rebuild_and_status(cli, capsys):
    assert cli("index", "--status") == 0
    assert "no index yet" in capsys.readouterr().out
    assert cli("index", "--rebuild") == 0
    out = capsys.readouterr().out
    assert "rebuilt" in out and "documents" in out
    assert cli("index") == 0
    assert "0 added, 0 updated, 0 removed" in capsys.readouterr().out
    assert cli("index", "--status", "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status["exists"] and status["files"] > 10 and status["by_tool"]["memoir"] >= 4


def test_command_module_imports_stay_light():
    code = (
        "import sys, memoir_tui.cli as c; c.build_parser();"
        "heavy = [m for m in ('sqlite3', 'yaml', 'textual', 'mcp') if m in sys.modules];"
        "print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    ).stdout
    assert out.strip() == "[]"


def test_a_recall_builds_no_other_commands_parser(world: World):
    """The query path is lazy: no other command module is imported (issue 27)."""
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)
    code = (
        "import sys; from memoir_tui.__main__ import main;"
        f"main(['--store', {str(world.store_dir)!r}, 'recall', 'postgres', '--json']);"
        "mods = sorted(m for m in sys.modules if m.startswith('memoir_tui.commands.'));"
        "print(mods, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=world.project, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)
    assert proc.stderr.strip().splitlines()[-1] == "['memoir_tui.commands.recall']"


def test_recall_query_path_parses_no_yaml(world: World):
    """A fresh process answering from a built index never imports yaml."""
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)
    subprocess.run(
        [sys.executable, "-m", "memoir_tui", "index"], env=env, cwd=world.project, check=True,
        capture_output=True,
    )  # fmt: skip
    code = (
        "import sys; from memoir_tui.__main__ import main;"
        "main(['recall', 'postgres', '--json', '--all-projects']);"
        "print('YAML' if 'yaml' in sys.modules else 'NOYAML', file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=world.project, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["tool"] == "memoir"
    assert proc.stderr.strip().endswith("NOYAML")


def test_large_index_cli_revalidates_in_the_background(world: World):
    """Above full_check_files a query checks directories only; the CLI then re-checks every
    file in a detached child, so an in-place edit is found by a later query."""
    import sqlite3
    import time

    (world.store_dir / "memoir-tui.toml").write_text("[recall]\nfull_check_files = 0\n")
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)

    def recall(*words: str) -> list:
        proc = subprocess.run(
            [sys.executable, "-m", "memoir_tui", "recall", *words, "--json", "--all-projects"],
            env=env, cwd=world.project, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return json.loads(proc.stdout)

    subprocess.run(
        [sys.executable, "-m", "memoir_tui", "index", "--json"], env=env, cwd=world.project,
        check=True, capture_output=True,
    )  # fmt: skip
    db = next((world.cache / "memoir-tui").glob("recall-*.sqlite3"))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'last_full_check'")
    note = world.project / ".claude" / "rules" / "zz.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("Old content about herons.\n")
    # a new file in a new directory: the directory check finds it
    assert [r for r in recall("herons") if r["path"] == str(note)]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'last_full_check'")
    with open(note, "w", encoding="utf-8") as fh:  # in place: no directory changes
        fh.write("New content about egrets.\n")
    st = note.stat()
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    recall("flamingo")  # answers at once; starts the full check in a detached child
    deadline = time.monotonic() + SAFETY_NET  # a safety net: the condition decides
    found: list = []
    while time.monotonic() < deadline and not found:
        time.sleep(0.2)
        found = [r for r in recall("egrets") if r["path"] == str(note)]
    assert found, "the detached full check never picked up the in-place edit"


def test_json_into_a_reader_that_stops_early_ends_without_a_traceback(world: World):
    """``recall --json | head -c 100``: the reader closes the pipe long before the end."""
    mem = world.store_dir / "memory"
    for i in range(60):
        (mem / f"fact_heron-{i}.md").write_text(
            f"---\ntype: fact\nname: Heron note {i}\n---\n" + "herons wade at dawn. " * 200
        )
    env = world.cli_env()
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoir_tui", "recall", "herons", "--json", "--all-projects",
         "--limit", "60", "--budget", "4000"],
        env=env, cwd=world.project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    head = proc.stdout.read(100)
    proc.stdout.close()  # 60 × 4 KB of JSON cannot fit the pipe: the writer meets EPIPE
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert head.startswith(b"[") and "Traceback" not in err and "BrokenPipe" not in err


def test_outside_any_project_every_project_is_searched(world: World):
    """README: started outside any project (home, /), every face shows them all."""
    with world.recall(cwd=world.home) as recall:
        assert recall.search("platypus")  # only the configured project holds it
    with world.recall() as recall:  # inside the webshop project: its scope only
        assert not recall.search("platypus")
