"""CLI command modules discovered by ``memoir_tui.cli``.

Each module here defines ``register(subparsers) -> None`` adding its
subcommands (with ``set_defaults(run=...)``). Keep top-level imports light:
every module is imported to build the parser, so heavy imports belong inside
the command functions. Never import textual or mcp here.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memoir_tui.core import Memoir


def open_store(ns: argparse.Namespace, *, actor: str = "cli") -> Memoir:
    """The store every command works on: ``--store`` (else the default), opened for
    the project of the working directory (every project outside one); a damaged
    or newer-version session is said on stderr, once."""
    from memoir_tui.core import open_memoir

    store = open_memoir(ns.store, actor=actor)
    for notice in store.opening_notices():
        print(f"memoir-tui: {notice}", file=sys.stderr)
    return store
