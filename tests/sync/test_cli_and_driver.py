"""The sync commands as a user runs them, and the git merge driver inside real merges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memoir_tui.core.sync.driver import merge_files
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

from .helpers import git, make_remote, write_entry

TOKEN = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The command as a user runs it: a real process."""
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=SAFETY_NET,
        stdin=subprocess.DEVNULL,
    )


class Run:
    """The same command in this process (faster): exit code, stdout, stderr."""

    def __init__(self, capsys, monkeypatch) -> None:
        self.capsys, self.monkeypatch = capsys, monkeypatch

    def __call__(self, *args: str, env: dict[str, str] | None = None):
        from memoir_tui.__main__ import main

        with self.monkeypatch.context() as mp:
            for key, value in (env or {}).items():
                mp.setenv(key, value)
            self.capsys.readouterr()
            code = main(list(args))
            out = self.capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)


@pytest.fixture
def run(capsys, monkeypatch):
    return Run(capsys, monkeypatch)


def test_cli_init_sync_status_and_secret_refusal(tmp_path, run):
    remote = make_remote(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    env = {"MEMOIR_PASSPHRASE": "pass phrase"}
    proc = cli("--store", str(a), "sync", "init", str(remote), "--encrypt",
               "--scrypt-n", "1024", env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "encrypted" in proc.stdout and "pass phrase" not in proc.stdout
    proc = run("--store", str(b), "sync", "init", str(remote), "--encrypt", "--scrypt-n", "1024")
    assert proc.returncode == 0, proc.stderr
    config = json.loads((a / "sync.json").read_text())
    assert config["encrypt"] is True and config["remote"] == str(remote)
    assert (a / "sync.json").stat().st_mode & 0o777 == 0o600

    Memoir(a, machine_label="A").add_goal("goal typed on A")
    proc = cli("--store", str(a), "sync", env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("pushed"), proc.stderr
    proc = run("--store", str(b), "sync", "pull", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["merge"]["items_added"] == 1
    assert "goal typed on A" in run("--store", str(b), "status").stdout

    proc = run("--store", str(b), "sync", "pull")  # no passphrase anywhere, no terminal
    assert proc.returncode == 1 and "MEMOIR_PASSPHRASE" in proc.stderr

    write_entry(b, "fact_token", f"token {TOKEN}")
    proc = run("--store", str(b), "sync", "push", env=env)
    assert proc.returncode == 1
    assert "memory/fact_token.md" in proc.stderr and "github-token" in proc.stderr
    assert TOKEN not in proc.stderr + proc.stdout
    proc = run("--store", str(b), "sync", "push", "--allow-secrets", env=env)
    assert proc.returncode == 0, proc.stderr

    proc = run("--store", str(a), "sync", "status", "--json")
    status = json.loads(proc.stdout)
    assert status["encrypted"] is True and status["configured"] is True
    text = run("--store", str(a), "sync", "status").stdout
    assert "encryption:  on" in text and "machines:" in text

    proc = run("--store", str(a), "sync", "init")
    assert proc.returncode == 1 and "REMOTE" in proc.stderr


def test_key_file_must_be_private(tmp_path, run):
    remote = make_remote(tmp_path)
    key = tmp_path / "key"
    key.write_text("pass\n")
    key.chmod(0o640)
    proc = run("--store", str(tmp_path / "s"), "sync", "init", str(remote), "--encrypt",
               "--key-file", str(key))  # fmt: skip
    assert proc.returncode == 1 and "chmod 600" in proc.stderr
    assert not (tmp_path / "s" / "sync.json").exists()
    key.chmod(0o600)
    proc = run("--store", str(tmp_path / "s"), "sync", "init", str(remote), "--encrypt",
               "--key-file", str(key), "--scrypt-n", "1024")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "pass" not in (tmp_path / "s" / "sync.json").read_text().replace("passphrase", "")


def _commit_all(repo: Path, message: str) -> None:
    git("add", "session.json", ".gitattributes", cwd=repo)
    git("commit", "--quiet", "-m", message, cwd=repo)


def test_merge_driver_in_a_store_kept_in_git(tmp_path, run):
    repo = tmp_path / "store"
    repo.mkdir()
    git("init", "--quiet", "-b", "main", cwd=repo)
    store = Memoir(repo, machine_label="M")
    store.add_goal("shared goal")
    proc = run("--store", str(repo), "sync", "init", "--driver-only")
    assert proc.returncode == 0, proc.stderr
    assert "session.json merge=memoir" in (repo / ".gitattributes").read_text()
    assert "merge-driver" in git("config", "merge.memoir.driver", cwd=repo).decode()
    again = run("--store", str(repo), "sync", "init", "--driver-only")
    assert again.returncode == 0
    assert (repo / ".gitattributes").read_text().count("session.json merge=memoir") == 1
    _commit_all(repo, "base")

    git("checkout", "--quiet", "-b", "other", cwd=repo)
    store.add_goal("goal on the other branch")
    store.note_decision("drop the cache")
    _commit_all(repo, "other")
    git("checkout", "--quiet", "main", cwd=repo)
    store.add_next_action("action on main")
    _commit_all(repo, "main")
    git("merge", "--quiet", "--no-edit", "other", cwd=repo)
    ws = store.working_set()
    assert {g.text for g in ws.goals} == {"shared goal", "goal on the other branch"}
    assert {a.text for a in ws.next_actions} == {"action on main"}
    assert {d.text for d in ws.decisions} == {"drop the cache"}


def test_merge_driver_leaves_conflicts_for_what_it_cannot_read(tmp_path, run):
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_text("{}")
    ours.write_text(json.dumps({"version": 1, "current": {"goals": [{"text": "mine"}]}}))
    theirs.write_text(json.dumps({"version": 2, "current": {"goals": [{"text": "future"}]}}))
    original = ours.read_bytes()
    assert merge_files(base, ours, theirs, "session.json").code == 1
    assert ours.read_bytes() == original
    theirs.write_text("{not json")
    assert merge_files(base, ours, theirs, "session.json").code == 1
    theirs.write_text(json.dumps({"version": 1, "current": {"goals": [{"text": "theirs"}]}}))
    assert merge_files(base, ours, theirs, "session.json").code == 0
    goals = {g["text"] for g in json.loads(ours.read_text())["current"]["goals"]}
    assert goals == {"mine", "theirs"}
    # The review queue merges with core.review's rules.
    ours.write_text(json.dumps({"version": 1, "items": [{"text": "a", "state": "candidate"}]}))
    theirs.write_text(json.dumps({"version": 1, "items": [{"text": "a", "state": "rejected"}]}))
    assert merge_files(base, ours, theirs, "review.json").code == 0
    items = json.loads(ours.read_text())["items"]
    assert [(i["text"], i["state"]) for i in items] == [("a", "rejected")]
    proc = run("merge-driver", str(base), str(ours), str(theirs), "review.json")
    assert proc.returncode == 0, proc.stderr
