"""How this project runs git: the executable on PATH and a clean environment.

``git_env`` keeps none of the caller's ``GIT_DIR``-style variables (only the ssh,
proxy and certificate ones), reads no system config, never pages or prompts (ssh in
batch mode unless the user set ``GIT_SSH_COMMAND``) and runs in the C locale. Sync's
``Git`` and forget's history checks (``places``) both run git this way.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

from memoir_tui.core.base.errors import MemoirError


class GitNotFoundError(MemoirError):
    """git is not installed, or not on PATH."""


# Variables that steer where git reads or writes; none may leak in from the caller.
_KEEP_GIT_VARS = frozenset(
    {
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSH_VARIANT",
        "GIT_PROXY_COMMAND",
        "GIT_SSL_CAINFO",
        "GIT_SSL_CAPATH",
        "GIT_HTTP_PROXY_AUTHMETHOD",
    }
)


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if not k.startswith("GIT_") or k in _KEEP_GIT_VARS
    }
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_EDITOR": "true",
            "GIT_MERGE_AUTOEDIT": "no",
            "GIT_OPTIONAL_LOCKS": "0",
            "LC_ALL": "C",
            "LANG": "C",
        }
    )
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def git_executable() -> str:
    found = shutil.which("git")
    if not found:
        raise GitNotFoundError("git is not installed (or not on PATH); sync needs it")
    return found
