"""git as a subprocess, in a clean environment, on the sync copy (a bare repository).

Nothing here touches the store: the sync copy is a cache of the remote, and
commits are built with ``git fast-import`` straight from bytes in memory, so
there is no working tree or index to leave half-written when a process dies.

Every call runs with ``GIT_CONFIG_NOSYSTEM``, no pager, no terminal prompts
(ssh in batch mode unless the user set ``GIT_SSH_COMMAND``), the C locale,
none of the caller's ``GIT_DIR``-style variables, and per-call ``-c`` settings
for the identity, signing, hooks and automatic gc.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memoir_tui.core.base.gitexe import GitNotFoundError, git_env, git_executable
from memoir_tui.core.sync.errors import GitError

NETWORK_TIMEOUT = 300.0
LOCAL_TIMEOUT = 120.0
MAX_BLOB_BYTES = 32 * 1024 * 1024

_RETRYABLE_PUSH = (
    "[rejected]",
    "non-fast-forward",
    "fetch first",
    "stale info",
    "failed to update ref",
    "cannot lock ref",
    "remote rejected",
    "incorrect old value",
)
_MISSING_REMOTE_REF = ("couldn't find remote ref", "could not find remote ref")


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str
    kind: str
    sha: str
    path: str


class Git:
    """git commands on one bare repository, identified as one machine."""

    def __init__(self, repo: Path, *, machine_id: str, label: str) -> None:
        self.repo = repo
        self.machine_id = machine_id
        self.label = label
        try:
            self._exe = git_executable()
        except GitNotFoundError as exc:
            raise GitError(str(exc)) from None  # a sync failure is a SyncError
        self._env = git_env()

    # --- plumbing ----------------------------------------------------------------

    def _base(self) -> list[str]:
        name = "".join(ch for ch in self.label if ch.isprintable() and ch not in "<>\n") or "memoir"
        return [
            self._exe,
            "-c",
            f"user.name=memoir-tui ({name})",
            "-c",
            f"user.email={self.machine_id}@memoir-tui.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "gc.auto=0",
            "-c",
            "maintenance.auto=false",
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "transfer.fsckObjects=true",
            "-c",
            "credential.interactive=false",
            "--git-dir",
            str(self.repo),
        ]

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        check: bool = True,
        timeout: float = LOCAL_TIMEOUT,
    ) -> subprocess.CompletedProcess[bytes]:
        cmd = [*self._base(), *args]
        try:
            proc = subprocess.run(
                cmd,
                input=input,
                capture_output=True,
                env=self._env,
                timeout=timeout,
                cwd=self.repo if self.repo.is_dir() else None,
                stdin=None if input is not None else subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} did not finish within {timeout:.0f} s") from None
        if check and proc.returncode != 0:
            raise GitError(f"git {args[0]} failed: {_tail(proc.stderr)}")
        return proc

    # --- the repository ----------------------------------------------------------

    def init(self) -> None:
        self.repo.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [self._exe, "init", "--bare", "--quiet", str(self.repo)],
            capture_output=True,
            env=self._env,
            timeout=LOCAL_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            raise GitError(f"git init failed: {_tail(proc.stderr)}")

    def is_healthy(self) -> bool:
        """The skeleton of a bare repository is there (git itself reports deeper damage)."""
        return all((self.repo / name).exists() for name in ("HEAD", "objects", "refs", "config"))

    def clear_stale_locks(self) -> list[str]:
        """Remove ``*.lock`` files a killed git left behind (the caller holds the sync lock)."""
        removed = []
        if not self.repo.is_dir():
            return removed
        for dirpath, _dirs, files in os.walk(self.repo):
            for name in files:
                if name.endswith(".lock") or name == "gc.pid":
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(dirpath, name))
                        removed.append(name)
        return removed

    def rev_parse(self, ref: str) -> str | None:
        proc = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        out = proc.stdout.decode().strip()
        return out if proc.returncode == 0 and out else None

    def update_ref(self, ref: str, sha: str | None) -> None:
        self.update_refs({ref: sha})

    def update_refs(self, refs: Mapping[str, str | None]) -> None:
        """Set (or delete, for None) several refs in one transaction."""
        lines = [
            f"delete {ref}\n" if sha is None else f"update {ref} {sha}\n"
            for ref, sha in refs.items()
        ]
        self.run("update-ref", "--stdin", input="".join(lines).encode())

    def is_ancestor(self, older: str, newer: str) -> bool:
        proc = self.run("merge-base", "--is-ancestor", older, newer, check=False)
        return proc.returncode == 0

    def count(self, exclude: str | None, include: str | None) -> int:
        if include is None:
            return 0
        spec = [include] if exclude is None else [f"{exclude}..{include}"]
        proc = self.run("rev-list", "--count", *spec, check=False)
        try:
            return int(proc.stdout.decode().strip() or 0)
        except ValueError:
            return 0

    # --- remote ---------------------------------------------------------------

    def fetch(self, url: str, branch: str, tracking: str) -> str | None:
        """Fetch ``branch`` into ``tracking``; None when the remote has no such branch."""
        proc = self.run(
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            "--",
            url,
            f"+refs/heads/{branch}:{tracking}",
            check=False,
            timeout=NETWORK_TIMEOUT,
        )
        if proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").lower()
            if any(m in err for m in _MISSING_REMOTE_REF):
                self.update_ref(tracking, None)
                return None
            raise GitError(f"git fetch failed: {_tail(proc.stderr)}")
        return self.rev_parse(tracking)

    def push(self, url: str, commit: str, branch: str, *, lease: str | None) -> bool:
        """Push ``commit`` to ``branch``. False when rejected because the remote moved."""
        args = ["push", "--quiet", "--porcelain"]
        if lease is not None:
            args.append(f"--force-with-lease=refs/heads/{branch}:{lease}")
        args += ["--", url, f"{commit}:refs/heads/{branch}"]
        proc = self.run(*args, check=False, timeout=NETWORK_TIMEOUT)
        if proc.returncode == 0:
            return True
        text = (proc.stdout + proc.stderr).decode("utf-8", "replace").lower()
        if any(m in text for m in _RETRYABLE_PUSH):
            return False
        raise GitError(f"git push failed: {_tail(proc.stderr or proc.stdout)}")

    # --- trees -----------------------------------------------------------------

    def list_tree(self, commit: str) -> list[TreeEntry]:
        out = self.run("ls-tree", "-r", "-z", "--full-tree", commit).stdout
        entries = []
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, path = record.partition(b"\t")
            mode, kind, sha = meta.decode().split(" ")
            entries.append(TreeEntry(mode, kind, sha, path.decode("utf-8", "surrogateescape")))
        return entries

    def read_blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        wanted = list(dict.fromkeys(shas))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", input=("\n".join(wanted) + "\n").encode()).stdout
        blobs: dict[str, bytes] = {}
        pos = 0
        for sha in wanted:
            nl = out.index(b"\n", pos)
            header = out[pos:nl].decode().split(" ")
            if len(header) != 3 or header[1] != "blob":
                raise GitError(f"object {sha} is missing from the sync copy or not a file")
            size = int(header[2])
            if size > MAX_BLOB_BYTES:
                raise GitError(f"object {sha} is larger than {MAX_BLOB_BYTES // 2**20} MiB")
            start = nl + 1
            blobs[header[0]] = out[start : start + size]
            pos = start + size + 1
        return blobs

    def commit_files(
        self,
        ref: str,
        files: Mapping[str, bytes | str],
        *,
        parent: str | None,
        message: str,
    ) -> str:
        """One commit holding exactly ``files`` (bytes inline, or an existing blob's sha).

        ``reset`` starts ``ref`` afresh, so without ``parent`` the commit is a root
        (an orphan); ``get-mark`` prints the new commit's id on stdout.
        """
        stamp = int(time.time())
        ident = f"memoir-tui <{self.machine_id}@memoir-tui.invalid> {stamp} +0000"
        msg = message.encode("utf-8")
        chunks: list[bytes] = [
            b"feature done\nfeature get-mark\n",
            f"reset {ref}\n\ncommit {ref}\nmark :1\n".encode(),
        ]
        chunks.append(f"committer {ident}\n".encode())
        chunks.append(f"data {len(msg)}\n".encode() + msg + b"\n")
        if parent is not None:
            chunks.append(f"from {parent}\n".encode())
        chunks.append(b"deleteall\n")
        for path in sorted(files):
            _check_path(path)
            content = files[path]
            if isinstance(content, str):
                chunks.append(f"M 100644 {content} {path}\n".encode())
            else:
                chunks.append(f"M 100644 inline {path}\n".encode())
                chunks.append(f"data {len(content)}\n".encode() + content + b"\n")
        chunks.append(b"\nget-mark :1\ndone\n")
        out = self.run("fast-import", "--quiet", "--force", input=b"".join(chunks)).stdout
        sha = out.decode("ascii", "replace").strip()
        if len(sha) not in (40, 64) or any(ch not in "0123456789abcdef" for ch in sha):
            raise GitError("git fast-import made no commit")
        return sha


def _check_path(path: str) -> None:
    if (
        not path
        or path.startswith("/")
        or any(part in ("", ".", "..", ".git") for part in path.split("/"))
        or any(ch in path for ch in '\n\r\t"\\ ')
    ):
        raise GitError(f"refusing to commit an unsafe path {path!r}")


def _tail(stderr: bytes, limit: int = 400) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    tail = " / ".join(lines[-3:]) if lines else "(no message)"
    from memoir_tui.core.sync.config import mask_url

    return " ".join(mask_url(word) for word in tail.split(" "))[:limit]
