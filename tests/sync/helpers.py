"""Machines, remotes and inspection helpers for the sync tests (real git, temp dirs)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoir_tui.core.base.gitexe import git_env
from memoir_tui.core.format.identity import iso_from_ms
from memoir_tui.core.sync import init_sync, run_sync
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET

PASSPHRASE = "correct horse battery staple"
TEST_SCRYPT_N = 2**10


class SharedClock:
    """One clock for every machine of a test: each call one second after the last."""

    def __init__(self, start_ms: int = 1_780_000_000_000) -> None:
        self.ms = start_ms

    def __call__(self) -> str:
        self.ms += 1000
        return iso_from_ms(self.ms)


def git(*args: str, cwd: Path | None = None, input: bytes | None = None) -> bytes:
    proc = subprocess.run(
        [
            "git",
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=cwd,
        input=input,
        capture_output=True,
        env=git_env(),
        timeout=SAFETY_NET,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout


def make_remote(tmp: Path) -> Path:
    remote = tmp / "remote.git"
    git("init", "--bare", "--quiet", str(remote))
    return remote


@dataclass
class Machine:
    name: str
    root: Path
    work: Path
    remote: Path
    clock: SharedClock
    encrypted: bool = False
    passphrase: str = PASSPHRASE
    store: Memoir = field(init=False)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.store = Memoir(self.root, clock=self.clock, machine_label=self.name)

    @property
    def kw(self) -> dict[str, Any]:
        return {"passphrase": self.passphrase} if self.encrypted else {}

    def init(self, **extra: Any):
        return init_sync(
            self.store,
            str(self.remote),
            encrypt=self.encrypted,
            scrypt_n=TEST_SCRYPT_N,
            work_dir=str(self.work),
            **self.kw,
            **extra,
        )

    def sync(self, **extra: Any):
        return run_sync(self.store, "sync", **self.kw, **extra)

    def pull(self, **extra: Any):
        return run_sync(self.store, "pull", **self.kw, **extra)

    def push(self, **extra: Any):
        return run_sync(self.store, "push", **self.kw, **extra)

    def view(self) -> dict[str, Any]:
        """What a person sees, for convergence checks."""
        ws = self.store.working_set()
        return {
            "goals": sorted(i.text for i in ws.goals),
            "next_actions": sorted(i.text for i in ws.next_actions),
            "questions": sorted(i.text for i in ws.open_questions),
            "completed": sorted(c.text for c in ws.completed_actions),
            "decisions": sorted(d.text for d in ws.decisions),
            "tombstones": sorted((d.key, d.purged) for d in ws.tombstones),
            "entries": entry_files(self.root),
        }


def make_machines(tmp: Path, names: str, *, encrypted: bool = False) -> list[Machine]:
    remote = make_remote(tmp)
    clock = SharedClock()
    machines = [
        Machine(n, tmp / f"store-{n}", tmp / f"work-{n}", remote, clock, encrypted=encrypted)
        for n in names
    ]
    for m in machines:
        m.init()
    return machines


def entry_files(root: Path) -> dict[str, bytes]:
    memory = root / "memory"
    if not memory.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir()) if p.suffix == ".md"}


def write_entry(root: Path, name: str, body: str, *, updated: str = "2026-01-01") -> None:
    memory = root / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / f"{name}.md").write_text(
        f"---\ntype: fact\nname: {name}\nupdated: {updated}\n---\n{body}\n", encoding="utf-8"
    )


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path → bytes)."""
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            full = Path(dirpath) / name
            if full.is_symlink():
                continue
            out[str(full.relative_to(root))] = full.read_bytes()
    return out


def all_git_objects(repo: Path) -> bytes:
    """The content of every object in a repository, reachable or not."""
    return git("--git-dir", str(repo), "cat-file", "--batch-all-objects", "--batch")


def log_all(repo: Path) -> bytes:
    return git("--git-dir", str(repo), "log", "-p", "--all", "--format=%H %s")


def remote_head(remote: Path, branch: str = "main") -> str | None:
    proc = subprocess.run(
        [
            "git",
            "--git-dir",
            str(remote),
            "rev-parse",
            "--verify",
            "--quiet",
            f"refs/heads/{branch}",
        ],
        capture_output=True,
        env=git_env(),
    )
    return proc.stdout.decode().strip() or None


def remote_file(remote: Path, path: str, branch: str = "main") -> bytes:
    return git("--git-dir", str(remote), "show", f"refs/heads/{branch}:{path}")


def tamper(remote: Path, tmp: Path, edit) -> None:
    """Clone the remote, let ``edit(worktree)`` change files, and push a normal commit."""
    work = tmp / f"tamper-{os.urandom(4).hex()}"
    git("clone", "--quiet", "--branch", "main", str(remote), str(work))
    edit(work)
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "tamper", cwd=work)
    git("push", "--quiet", "origin", "HEAD:refs/heads/main", cwd=work)
