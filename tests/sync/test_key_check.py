"""Every encrypted sync checks the passphrase, even when the remote has not moved (issue 16).

An idle sync used to answer "up to date" (exit 0) without reading the remote at all, so a
wrong or missing passphrase went unnoticed until the remote changed. Real git, real
remote, the commands as a user runs them (``memoir-tui sync``, ``sync pull``, ``sync
push``), in this process for speed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memoir_tui.core.workflows.memoir import Memoir

from .helpers import make_remote

PASS = "pass phrase for the test"


def run(*args: str, env: dict[str, str | None], capsys, monkeypatch):
    from memoir_tui.__main__ import main

    with monkeypatch.context() as mp:
        for key, value in env.items():
            if value is None:
                mp.delenv(key, raising=False)
            else:
                mp.setenv(key, value)
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out.out, out.err)


@pytest.fixture
def idle(tmp_path: Path, capsys, monkeypatch):
    """A store synced with an encrypted remote, so the next sync has nothing to do."""
    remote = make_remote(tmp_path)
    root = tmp_path / "a"

    def cli(*args: str, passphrase: str | None = PASS):
        env = {"MEMOIR_PASSPHRASE": passphrase}
        return run("--store", str(root), *args, env=env, capsys=capsys, monkeypatch=monkeypatch)

    init = cli("sync", "init", str(remote), "--encrypt", "--scrypt-n", "1024")
    assert init.returncode == 0, init.stderr
    Memoir(root, machine_label="A").add_goal("a goal to carry")
    first = cli("sync")
    assert first.returncode == 0 and first.stdout.startswith("pushed"), first.stderr
    again = cli("sync")
    assert again.returncode == 0 and "up to date; nothing new" in again.stdout, again.stderr
    return cli


@pytest.mark.parametrize("verb", [("sync",), ("sync", "pull"), ("sync", "push")])
def test_a_wrong_passphrase_fails_an_idle_sync(idle, verb: tuple[str, ...]) -> None:
    proc = idle(*verb, passphrase="not the passphrase")
    assert proc.returncode != 0
    assert "wrong passphrase" in proc.stderr
    assert "up to date" not in proc.stdout
    assert "not the passphrase" not in proc.stderr + proc.stdout
    # the right one still works, and the idle shortcut is taken again afterwards
    assert idle(*verb).returncode == 0


@pytest.mark.parametrize("verb", [("sync",), ("sync", "pull"), ("sync", "push")])
def test_a_missing_passphrase_fails_an_idle_sync(idle, verb: tuple[str, ...]) -> None:
    proc = idle(*verb, passphrase=None)  # no variable, no key file, no terminal
    assert proc.returncode != 0
    assert "no passphrase was given" in proc.stderr
    assert "up to date" not in proc.stdout
