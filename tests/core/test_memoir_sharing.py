"""Which JavaScript memoir shares the store, said where the caps are said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoir_tui.core import config as config_module
from memoir_tui.core.config import load_config


def _fake_memoir(tmp_path: Path, version: str) -> Path:
    package = tmp_path / "lib" / "memoir-cli"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"name": "memoir-cli", "version": version}))
    program = package / "bin" / "memoir.js"
    program.write_text("#!/usr/bin/env node\n")
    program.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "memoir").symlink_to(program)
    return bin_dir


@pytest.mark.parametrize(
    ("version", "warned"), [("3.12.0", True), ("3.9.1", True), ("3.14.0", False)]
)
def test_the_caps_line_names_memoir_and_warns_about_a_312_sync_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, warned: bool
) -> None:
    monkeypatch.setenv("PATH", str(_fake_memoir(tmp_path, version)))
    config_module.installed_memoir_version.cache_clear()
    store = tmp_path / "store"
    store.mkdir()
    (store / "telemetry-id").write_text("x")  # what memoir 3.12's `next` leaves behind
    note = load_config(store).caps_note
    assert f"memoir {version} is on PATH" in note
    assert ("drops the parked and archived lists" in note) is warned
    config_module.installed_memoir_version.cache_clear()
