"""Guard: the receipt of ``forget --everywhere`` never says "nowhere" wrongly.

Every place kind registered for forget (``adapters.PLACES``, which ``core/places.py``
reaches) is discovered here, not listed: for each, the needle — a plain word and a
pasted token — is planted in that place alone, in a scratch home and project, and the
receipt must name the file planted; after the forget, a grep of the whole home finds the
needle only in files the receipt's "still there" names. A project's places are reached
from inside the project and, from outside any project, through the folders an MCP client
declares as its roots (``Forgetter.within``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from memoir_tui.core.hosts.adapters import PLACES, KeptPlace
from memoir_tui.core.services.places import _base
from tests.trust.test_forget_every_place import TOKEN, holders, still_there

WORD = "Marrowglint"


def git(*args: str, cwd: Path) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def concrete(pattern: str) -> str:
    """A file name the place's pattern matches: ``**`` one folder, ``*`` one character
    (none at the very end: ``memories_*.sqlite*`` → ``memories_1.sqlite``)."""
    out = pattern.replace("**", "p")
    if out.endswith("*"):
        out = out[:-1]
    return out.replace("*", "1")


def plant_file(path: Path, needle: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    line = f"{WORD} ships with {needle} in CI" if needle != WORD else f"{WORD} ships in CI"
    if ".sqlite" in path.name:
        db = sqlite3.connect(path)
        db.execute("create table memories (id integer primary key, text text)")
        db.execute("insert into memories (text) values (?)", (line,))
        db.commit()
        db.close()
    elif path.suffix == ".jsonl":
        path.write_text(json.dumps({"type": "user", "message": {"content": line}}) + "\n")
    elif path.suffix == ".json":
        path.write_text(json.dumps({"version": 1, "records": [{"id": "r1", "text": line}]}))
    else:
        path.write_text(f"# Notes\n{line}\nAnother line.\n")


def plant(place: KeptPlace, home: Path, store: Path, project: Path, needle: str) -> list[Path]:
    """The needle in ``place`` alone; returns the files planted (what the receipt names)."""
    if place.scope == "project":
        base: Path | None = project
    else:
        base = _base(place, store, home, dict(os.environ))
    assert base is not None, place.name
    if place.rule == "canonical":
        memory_id = hashlib.sha256(b"shared\0guard.md").hexdigest()
        record = base / concrete(place.pattern).replace("1.md", f"{memory_id}.md")
        older = base / place.history.format(id=memory_id) / "rev1.md"
        for path, revision in ((older, 1), (record, 2)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                f'---\nid: "{memory_id}"\nname: "guard"\ntype: "fact"\n'
                f'project: "shared"\nrevision: {revision}\n---\n'
                f"{WORD} and {needle} (revision {revision})\n"
            )
        return [record, older]
    if place.rule == "git":
        folder = base / place.pattern
        note = folder / "notes.md"
        plant_file(note, needle)
        git("init", "-q", cwd=folder)
        git("add", "-A", cwd=folder)
        git("commit", "-q", "-m", "notes", cwd=folder)
        return [note, folder]  # the file, and the folder whose history holds it
    path = base / concrete(place.pattern)
    plant_file(path, needle)
    return [path]


CASES = [
    pytest.param(place, needle, via, id=f"{place.name}-{label}-{via}")
    for place in PLACES
    for needle, label in ((WORD, "text"), (TOKEN, "token"))
    for via in (("cwd", "roots") if place.scope == "project" else ("cwd",))
]


def test_every_registered_place_is_covered() -> None:
    """A guard that checks nothing cannot fail: every place kind is a case."""
    assert {p.name for p in PLACES} == {c.values[0].name for c in CASES}
    assert {p.rule for p in PLACES} >= {"canonical", "git", "read-only"}


@pytest.mark.parametrize(("place", "needle", "via"), CASES)
def test_the_receipt_names_every_place_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, place: KeptPlace, needle: str, via: str
) -> None:
    from memoir_tui.core.workflows.memoir import Memoir

    home = tmp_path / "home"
    store_root = home / ".config" / "memoir"
    project = home / "work" / "app"
    for folder in (store_root, project):
        folder.mkdir(parents=True)
    git("init", "-q", cwd=project)
    for key, value in {
        "HOME": home,
        "MEMOIR_HOME": store_root,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
    }.items():
        monkeypatch.setenv(key, str(value))
    planted = plant(place, home, store_root, project, needle)
    assert holders(home, needle), "the needle was planted"

    monkeypatch.chdir(project if via == "cwd" else home)  # home: no project of its own
    store = Memoir(store_root, actor="cli")
    forget = store.forget.within([project] if via == "roots" else [])
    found = forget.apply(needle, purge=True, dry_run=True)
    shown = found.render()
    assert "found in none" not in shown and "nowhere" not in shown
    found_paths = {p.path for p in found.found}
    for path in planted:
        named = str(path) in found_paths or any(
            p.path.startswith(str(path) + os.sep) for p in found.found
        )
        assert named, (str(path), sorted(found_paths))
    if place.scope == "project":
        assert f"project folders: {project}" in shown  # the folder searched is named

    receipt = store.forget.within([project] if via == "roots" else []).apply(needle, purge=True)
    text = receipt.render()
    assert TOKEN not in text
    assert "nowhere" not in text
    left = holders(home, needle)
    assert left <= still_there(text), sorted(left - still_there(text))
    if place.rule == "read-only":
        assert {str(p) for p in planted} <= still_there(text)  # never edited here: named
        assert place.remedy and place.remedy in text  # with its owner's remedy


def test_the_apps_summary_names_what_is_left_each_with_its_remedy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app shows the receipt in a toast: its summary comes first and the whole fits a
    small terminal, each place still holding the text named with its owner's remedy."""
    from memoir_tui.core.workflows.forget import forget_everywhere
    from memoir_tui.core.workflows.memoir import Memoir
    from tests.trust.test_forget_every_place import build
    from tests.trust.test_forget_everywhere import env_for

    home = tmp_path / "home"
    project = build(home)
    for key, value in env_for(home).items():
        if key != "PYTHONPATH":
            monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    outcome = forget_everywhere(
        Memoir(home / ".config" / "memoir", actor="app").forget, TOKEN, purge=True
    )
    lines = outcome.message.splitlines()
    assert outcome.changed and TOKEN not in outcome.message
    assert lines[0].startswith("forgot '[REDACTED:github-token]' in ")
    assert "still in 6 place(s)" in lines[0]
    assert len(lines) <= 12  # one line a place (the toast wraps them), no long notes
    left = holders(home, TOKEN)
    assert len(left) == 5  # and the Codex memories' git history, named below
    for path in left:
        assert any(path.replace(str(home), "~") in line and " → " in line for line in lines), path
    assert any("`codex debug clear-memories`" in line for line in lines)
    assert any("`claude project purge" in line for line in lines)
    assert any("git-history: ~/.codex/memories → " in line for line in lines)


def _host_cases() -> list:
    """Every host tool's file the adapters know (project files, and global files under the
    tool's first root), discovered from the registry."""
    from memoir_tui.core.hosts.adapters import ADAPTERS

    cases = []
    for adapter in ADAPTERS:
        for loc in adapter.project_files:
            for via in ("cwd", "roots"):
                name = f"{adapter.name}-project-{loc.pattern}-{via}"
                cases.append(pytest.param(adapter.name, "project", loc.pattern, via, id=name))
        if not adapter.roots:
            continue
        kept = {p.pattern for p in PLACES if p.owner == adapter.name}
        for loc in adapter.global_files:
            if loc.roots is None and loc.pattern not in kept:  # kept places: above
                name = f"{adapter.name}-global-{loc.pattern}"
                cases.append(pytest.param(adapter.name, "global", loc.pattern, "cwd", id=name))
    return cases


HOST_CASES = _host_cases()


def test_host_cases_cover_every_project_location() -> None:
    from memoir_tui.core.hosts.adapters import ADAPTERS

    wanted = {(a.name, loc.pattern) for a in ADAPTERS for loc in a.project_files}
    assert wanted and wanted <= {(c.values[0], c.values[2]) for c in HOST_CASES}


@pytest.mark.parametrize(("tool", "scope", "pattern", "via"), HOST_CASES)
def test_the_receipt_names_every_host_tools_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str, scope: str, pattern: str, via: str
) -> None:
    """Cline's memory bank, Serena's memories, CLAUDE.md, AGENTS.md … : each found, named
    and its lines removed, from inside the project and through an MCP client's roots."""
    from memoir_tui.core.hosts.adapters import BY_NAME
    from memoir_tui.core.hosts.adapters.guard import claude_slug
    from memoir_tui.core.workflows.memoir import Memoir

    home = tmp_path / "home"
    store_root = home / ".config" / "memoir"
    project = home / "work" / "app"
    for folder in (store_root, project):
        folder.mkdir(parents=True)
    git("init", "-q", cwd=project)
    env = {
        "HOME": home,
        "MEMOIR_HOME": store_root,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_STATE_HOME": home / ".local" / "state",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, str(value))
    if scope == "project":
        base = project
    else:
        root = BY_NAME[tool].roots[0].resolve(home, dict(os.environ), store_root)
        assert root is not None
        base = root
    rel = concrete(pattern.replace("<project>", claude_slug(str(project))))
    path = base / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# Notes\n{WORD} ships in CI\nAnother line.\n")

    monkeypatch.chdir(project if via == "cwd" else home)
    store = Memoir(store_root, actor="cli")
    receipt = store.forget.within([project] if via == "roots" else []).apply(WORD, purge=True)
    text = receipt.render()
    assert "nowhere" not in text
    assert str(path) in {p.path for p in receipt.found}, text
    assert not holders(home, WORD), text  # its lines went
    assert path.read_text() == "# Notes\nAnother line.\n"
