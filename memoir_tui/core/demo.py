"""The demo store: a realistic memoir store copied from fixtures shipped in the package.

``memoir-tui --demo`` runs on a fresh copy in a temporary directory, so trying
the app never reads or writes the user's real store or any host tool's
directory. The fixtures live in ``memoir_tui/demo/`` (package data).
"""

from __future__ import annotations

import shutil
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

DEMO_PACKAGE = "memoir_tui"
DEMO_DIR = "demo"
# The label of the machine whose ``machine.id`` ships with the demo.
DEMO_MACHINE_LABEL = "work-laptop"


class DemoStoreError(Exception):
    """The demo target is not an empty directory."""


def demo_fixtures() -> Traversable:
    """The shipped fixture tree (``session.json``, ``machine.id``, ``memory/``)."""
    return resources.files(DEMO_PACKAGE).joinpath(DEMO_DIR)


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for child in source.iterdir():
        if child.name.startswith((".", "__")):
            continue
        if child.is_dir():
            _copy_tree(child, target / child.name)
        else:
            (target / child.name).write_bytes(child.read_bytes())


def create_demo_store(target_dir: Path) -> Path:
    """Copy the demo fixtures into ``target_dir`` (missing or empty) and return it.

    The caller owns ``target_dir`` (typically from ``tempfile.mkdtemp``) and
    removes it when done; see :func:`remove_demo_store`.
    """
    target_dir = Path(target_dir)
    if target_dir.exists() and any(target_dir.iterdir()):
        raise DemoStoreError(f"{target_dir} is not empty; the demo store needs an empty directory")
    _copy_tree(demo_fixtures(), target_dir)
    return target_dir


def remove_demo_store(target_dir: Path) -> None:
    """Delete a demo store directory made by :func:`create_demo_store`."""
    shutil.rmtree(target_dir, ignore_errors=True)
