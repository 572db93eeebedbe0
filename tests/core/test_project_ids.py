"""Project ids are today's JavaScript memoir's (FORMAT-LATEST §9), folder by folder.

Each row builds a folder in a scratch home and names the key memoir derives for it
(the origin URL after its replacements, case kept, or the home-relative path); the id
is ``git:``/``local:`` + the first 32 hex of the key's sha256, computed here from the
key so the expectation does not depend on the code under test. When a rebuilt copy of
memoir's ``scope.js`` is on disk (``MEMOIR_JS_LATEST``), the same folders are also
checked against memoir's own ``projectIdentity``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memoir_tui.core.format.items import empty_session
from memoir_tui.core.rules.model import working_set
from memoir_tui.core.rules.scope import _legacy_id, project_identity, same_project
from memoir_tui.core.workflows.memoir import Memoir


def _id(kind: str, key: str) -> str:
    return f"{kind}:" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _git(path: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)


def _repo(path: Path, origin: str | None = None, other: str | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q")
    if origin is not None:
        _git(path, "remote", "add", "origin", origin)
    if other is not None:
        _git(path, "remote", "add", "upstream", other)
    return path


ORIGINS = [
    ("git@github.com:Acme/Widget.git", "github.com/Acme/Widget"),
    ("https://github.com/Acme/Widget.git", "github.com/Acme/Widget"),
    ("https://github.com/Acme/Widget", "github.com/Acme/Widget"),
    ("http://gitlab.example.org/Team/Sub/Repo.git/", "gitlab.example.org/Team/Sub/Repo"),
    ("https://user:secret@github.com/Acme/Widget.git", "github.com/Acme/Widget"),
    ("https://token@github.com/acme/widget/", "github.com/acme/widget"),
    ("ssh://git@github.com/Acme/Widget.git", "github.com/Acme/Widget"),
    ("ssh://git@host.example:2222/acme/w.git", "host.example:2222/acme/w"),
    ("ssh://deploy@host.example/acme/w.git", "ssh://deploy@host.example/acme/w"),
    ("git@bitbucket.org:Team/Repo", "bitbucket.org/Team/Repo"),
    ("/srv/git/local-bare.git", "/srv/git/local-bare"),
    ("file:///srv/git/thing.git", "file:///srv/git/thing"),
]


@pytest.mark.parametrize(("origin", "key"), ORIGINS)
def test_origin_forms(tmp_path: Path, origin: str, key: str) -> None:
    home = tmp_path / "home"
    repo = _repo(home / "code" / "repo", origin)
    assert project_identity(repo, home=home).id == _id("git", key)
    # From a subfolder git finds the enclosing repository's origin.
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    assert project_identity(sub, home=home).id == _id("git", key)


def test_folders_without_origin(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    plain = home / "notes" / "plan"
    plain.mkdir(parents=True)
    no_origin = _repo(home / "code" / "solo")
    (no_origin / "pkg").mkdir()
    other_only = _repo(home / "code" / "fork", other="git@github.com:Acme/Up.git")
    outside = tmp_path / "elsewhere" / "proj"
    outside.mkdir(parents=True)
    link = home / "shortcut"
    link.symlink_to(plain)
    rows = {
        home: "",
        plain: "notes/plan",
        no_origin: "code/solo",
        # A subfolder of a repository without an origin is a project of its own.
        no_origin / "pkg": "code/solo/pkg",
        other_only: "code/fork",
        outside: "../elsewhere/proj",
        # Symlinks are resolved: the link names its target's project.
        link: "notes/plan",
    }
    for folder, key in rows.items():
        assert project_identity(folder, home=home).id == _id("local", key), folder


def test_tilde_shared_and_formed_ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "w").mkdir(parents=True)
    monkeypatch.chdir(home / "w")  # a path is read from the working folder: not a repo here
    assert project_identity("~/w", home=home).id == _id("local", "w")
    assert project_identity("shared", home=home).id == "shared"
    formed = "git:" + "0123456789abcdef" * 2
    assert project_identity(formed, home=home).id == formed
    # Upper-case hex is not an id memoir forms: it is read as a path.
    upper = "git:" + "ABCDEF0123456789" * 2
    assert project_identity(upper, home=home).id.startswith("local:")


def test_memoir_project_root_replaces_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memoir_tui.core.rules.scope import working_project

    home = tmp_path / "home"
    target = home / "work" / "app"
    target.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "work")
    monkeypatch.setenv("MEMOIR_PROJECT_ROOT", str(target))
    found = working_project(home=home)
    assert found is not None and found.id == _id("local", "work/app")


def test_a_store_with_old_ids_keeps_every_item_in_its_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    repo = _repo(home / "code" / "widget", "git@github.com:Acme/Widget.git")
    folder = home / "notes"
    folder.mkdir(parents=True)
    old_repo = _legacy_id(repo.resolve(), home.resolve())
    old_folder = _legacy_id(folder.resolve(), home.resolve())
    assert old_repo.startswith("git:") and len(old_repo) == 20
    state = empty_session()
    state["current"]["goals"] = [
        {"text": "ship widget", "set_on": "2026-01-01T00:00:00.000Z", "project": old_repo},
    ]
    state["current"]["decisions"] = [
        {
            "text": "notes in markdown",
            "date": "2026-01-02T00:00:00.000Z",
            "project": old_folder,
            "project_label": "~/notes",
        }
    ]
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    (store_dir / "session.json").write_text(json.dumps(state))
    new_repo = project_identity(repo, home=home)
    store = Memoir(store_dir, project=new_repo.id, project_label=new_repo.label)
    # Read: the old stamp is the same project (nothing orphaned, nothing leaks).
    assert [g.text for g in store.working_set().goals] == ["ship widget"]
    assert same_project(old_repo, new_repo.id)
    elsewhere = Memoir(store_dir, project=_id("git", "github.com/Other/x"))
    assert elsewhere.working_set().goals == ()
    # Write: the next write of this project re-stamps its items in today's form, and a
    # folder named by its label is re-stamped too; the audit log says so.
    store.add_next_action("write the changelog")
    on_disk = json.loads((store_dir / "session.json").read_text())
    assert on_disk["current"]["goals"][0]["project"] == new_repo.id
    assert on_disk["current"]["decisions"][0]["project"] == _id("local", "notes")
    audit = (store_dir / "audit.jsonl").read_text()
    assert "migrate_project_ids" in audit


def test_shared_and_unstamped_items_are_seen_everywhere() -> None:
    state = empty_session()
    state["current"]["goals"] = [
        {"text": "a", "set_on": "2026-01-01T00:00:00.000Z", "project": "shared"},
        {"text": "b", "set_on": "2026-01-01T00:00:00.000Z"},
        {"text": "c", "set_on": "2026-01-01T00:00:00.000Z", "project": _id("git", "x/y")},
    ]
    ws = working_set(state, project=_id("local", "p"), all_projects=False)
    assert sorted(g.text for g in ws.goals) == ["a", "b"]


JS = os.environ.get("MEMOIR_JS_LATEST")


@pytest.mark.skipif(
    not JS or not shutil.which("node"), reason="set MEMOIR_JS_LATEST to a rebuilt memoir"
)
def test_the_same_ids_as_memoirs_own_code(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folders = []
    for n, (origin, _key) in enumerate(ORIGINS):
        folders.append(_repo(home / f"r{n}", origin))
    plain = home / "plain" / "x"
    plain.mkdir(parents=True)
    folders += [home, plain, _repo(home / "solo"), tmp_path / "out"]
    (tmp_path / "out").mkdir(exist_ok=True)
    script = (
        f"import {{ projectIdentity }} from '{JS}/src/memory/scope.js';"
        "const dirs = JSON.parse(process.argv[1]);"
        "console.log(JSON.stringify(dirs.map((d) => projectIdentity(d))));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps([str(f) for f in folders])],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(home)},
    )
    theirs = json.loads(out.stdout)
    ours = [project_identity(f, home=home).id for f in folders]
    assert ours == theirs
