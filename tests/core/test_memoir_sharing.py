"""Which JavaScript memoir shares the store, said where the caps are said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoir_tui.core.door import config as config_module
from memoir_tui.core.door.config import load_config


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


@pytest.mark.parametrize(("version", "kept_to_memoirs"), [("3.12.0", True), ("3.14.0", False)])
def test_an_old_memoir_on_path_holds_its_default_store_to_its_caps_with_no_file_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str, kept_to_memoirs: bool
) -> None:
    """memoir 3.12 with telemetry off leaves no file of its own, yet its next write trims
    every list to its caps from the front: installed and sharing the default store, it
    holds the live lists to its caps (the rest parked or archived), which it carries."""
    home = tmp_path / "home"
    store = home / ".config" / "memoir"
    store.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMOIR_HOME", raising=False)
    monkeypatch.setenv("PATH", str(_fake_memoir(tmp_path, version)))
    config_module.installed_memoir_version.cache_clear()
    try:
        config = load_config(store)
        elsewhere = tmp_path / "other-store"
        elsewhere.mkdir()
        assert load_config(elsewhere).caps_source == "defaults"
    finally:
        config_module.installed_memoir_version.cache_clear()
    assert (config.caps.next_actions == 8) is kept_to_memoirs
    if kept_to_memoirs:
        assert config.caps_note.startswith(
            f"caps: JavaScript memoir's (3/8/5/10) — memoir {version} on PATH keeps only these"
        )


def _files(root: Path) -> list[tuple[str, bytes]]:
    return sorted((str(p), p.read_bytes()) for p in root.rglob("*") if p.is_file())


def test_the_doctor_names_who_shares_the_store_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memoir_tui.core.loop.doctor import check_sharing
    from memoir_tui.core.workflows.memoir import Memoir

    store_dir = tmp_path / "store"
    store_dir.mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    config_module.installed_memoir_version.cache_clear()
    try:
        (alone,) = check_sharing(Memoir(store_dir))
        assert alone.status == "pass" and "no sign of the JavaScript memoir" in alone.line()
        (store_dir / "events.jsonl").write_text("")
        store = Memoir(store_dir)
        for n in range(12):
            store.note_decision(f"choice {n}")
        monkeypatch.setenv("PATH", str(_fake_memoir(tmp_path, "3.12.0")))
        config_module.installed_memoir_version.cache_clear()
        before = _files(store_dir)
        (shared,) = check_sharing(Memoir(store_dir))
        assert _files(store_dir) == before
    finally:
        config_module.installed_memoir_version.cache_clear()
    line = shared.line()
    assert shared.status == "warn"
    assert "its events.jsonl is in the store" in line and "memoir 3.12.0 is on PATH" in line
    assert "archived_decisions (2)" in line and "sync merge drops" in line
