"""Project identity and the one visibility predicate."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from memoir_tui.core.format.identity import iso_from_ms, parse_iso_ms, text_hash
from memoir_tui.core.rules.scope import (
    LIST_DATE_FIELDS,
    ProjectIdentity,
    as_of,
    believed_at,
    current_project,
    find_git_dir,
    is_visible,
    normalize_remote_url,
    project_identity,
    read_remote_url,
)

ID = re.compile(r"^(git|local):[0-9a-f]{32}$")  # memoir's ids (FORMAT-LATEST §9)


def ms(iso: str) -> int:
    value = parse_iso_ms(iso)
    assert value is not None
    return value


def make_repo(root: Path, url: str | None = None, *, extra: str = "") -> Path:
    git = root / ".git"
    git.mkdir(parents=True)
    config = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
    if url is not None:
        config += (
            f'[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        )
    (git / "config").write_text(config + extra)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


# --- remote URL normalisation ---------------------------------------------------------

SAME_REPO = [
    "git@github.com:owner/repo.git",
    "git@github.com:owner/repo",
    "git@GitHub.com:Owner/Repo.git",
    "github.com:owner/repo.git",
    "https://github.com/owner/repo",
    "https://github.com/owner/repo.git",
    "https://github.com/owner/repo/",
    "https://GITHUB.COM/Owner/Repo.git/",
    "http://github.com/owner/repo",
    "https://user@github.com/owner/repo.git",
    "https://user:" + "tok3n@github.com/owner/repo.git",
    "ssh://git@github.com/owner/repo.git",
    "ssh://git@github.com:22/owner/repo.git",
    "git+ssh://git@github.com/owner/repo",
    "git://github.com/owner/repo.git",
    "git@github.com:/owner/repo.git",
    "  https://github.com//owner//repo.git  ",
]


@pytest.mark.parametrize("url", SAME_REPO)
def test_every_spelling_of_one_remote_normalises_alike(url):
    assert normalize_remote_url(url) == "github.com/owner/repo"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@gitlab.com:group/sub/project.git", "gitlab.com/group/sub/project"),
        ("https://gitlab.example.org:8443/team/app.git", "gitlab.example.org/team/app"),
        ("ssh://git@gitlab.example.org:2222/team/app.git", "gitlab.example.org/team/app"),
        ("file:///srv/git/project.git", "srv/git/project"),
        ("/srv/git/project.git", "srv/git/project"),
        ("ssh://host/~alice/repo.git", "host/alice/repo"),
        ("https://github.com/owner/other", "github.com/owner/other"),
    ],
)
def test_remote_normalisation_table(url, expected):
    assert normalize_remote_url(url) == expected


def test_different_repositories_stay_different():
    names = {
        normalize_remote_url(u)
        for u in (
            "git@github.com:owner/repo.git",
            "git@github.com:owner/repo2.git",
            "git@github.com:other/repo.git",
            "git@gitlab.com:owner/repo.git",
        )
    }
    assert len(names) == 4


# --- project identity -----------------------------------------------------------------


def test_git_remote_identity_is_the_same_wherever_it_is_cloned(home, tmp_path):
    a = make_repo(home / "code" / "repo", "git@github.com:Owner/Repo.git")
    b = make_repo(tmp_path / "elsewhere" / "checkout", "https://github.com/Owner/Repo")
    (a / "src" / "pkg").mkdir(parents=True)
    ia = project_identity(a / "src" / "pkg", home=home)
    ib = project_identity(b, home=home)
    assert ia == ib
    assert ia.kind == "git-remote"
    assert ia.label == "github.com/Owner/Repo"  # case kept, as memoir keeps it
    assert ia.id == "git:" + hashlib.sha256(b"github.com/Owner/Repo").hexdigest()[:32]
    assert ID.match(ia.id)


def test_only_origin_names_a_repository(home):
    repo = home / "r"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text(
        '[remote "upstream"]\n\turl = git@github.com:up/stream.git\n'
        '[remote "origin"]\n\turl = "git@github.com:me/fork.git" ; my fork\n'
    )
    assert read_remote_url(repo / ".git") == "git@github.com:me/fork.git"
    assert project_identity(repo, home=home).label == "github.com/me/fork"
    # memoir asks git for remote.origin.url only: another remote alone is no repository id
    (repo / ".git" / "config").write_text('[remote "upstream"]\n\turl = git@github.com:up/stream\n')
    assert project_identity(repo, home=home).kind == "path"
    (repo / ".git" / "config").write_text("[remote.origin]\n    URL = https://host/old/style\n")
    assert project_identity(repo, home=home).label == "host/old/style"


def test_git_config_parsing_tolerates_noise(home):
    repo = make_repo(
        home / "noisy",
        None,
        extra=(
            '# comment\n; other comment\n[branch "main"]\n\tremote = origin\n'
            '[remote "origin"] url = https://github.com/x/y.git # inline\n'
            "[include]\n\tpath = ~/.gitconfig-extra\n\xff garbage line\n"
        ),
    )
    assert project_identity(repo, home=home).label == "github.com/x/y"


def test_worktree_dot_git_file_reaches_the_shared_config(home, tmp_path):
    main = make_repo(home / "main", "git@github.com:owner/repo.git")
    wt_git = main / ".git" / "worktrees" / "feature"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    (wt_git / "gitdir").write_text(str(tmp_path / "wt" / ".git") + "\n")
    wt = tmp_path / "wt"
    (wt / "deep").mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert find_git_dir(wt / "deep") == (wt, wt_git)
    assert project_identity(wt / "deep", home=home) == project_identity(main, home=home)


def test_relative_gitdir_and_submodule(home):
    outer = make_repo(home / "outer", "git@github.com:o/outer.git")
    modules = outer / ".git" / "modules" / "sub"
    modules.mkdir(parents=True)
    (modules / "config").write_text('[remote "origin"]\n\turl = git@github.com:o/sub.git\n')
    sub = outer / "sub"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    assert project_identity(sub, home=home).label == "github.com/o/sub"
    assert project_identity(outer, home=home).label == "github.com/o/outer"


def test_folders_without_an_origin_are_each_their_own_project(home):
    main = make_repo(home / "solo", None)
    (main / "sub" / "dir").mkdir(parents=True)
    ident = project_identity(main, home=home)
    assert ident.kind == "path" and ident.label == "~/solo"
    # memoir keys a folder without an origin by its own path, subfolders included
    assert project_identity(main / "sub" / "dir", home=home).id != ident.id


def test_path_identity_is_home_relative(home, tmp_path):
    other_home = tmp_path / "other-machine-home"
    (home / "notes").mkdir()
    (other_home / "notes").mkdir(parents=True)
    a = project_identity(home / "notes", home=home)
    b = project_identity(other_home / "notes", home=other_home)
    assert a == b and a.kind == "path" and a.label == "~/notes" and ID.match(a.id)
    assert project_identity(home / "notes2", home=home).id != a.id
    outside = project_identity(tmp_path / "outside", home=home)
    assert outside.kind == "path" and outside.id != a.id
    assert outside.label == (tmp_path / "outside").resolve().as_posix()


def test_home_has_its_own_identity(home, tmp_path):
    ident = project_identity(home, home=home)
    assert ident.kind == "home"
    assert ident.id == "local:" + hashlib.sha256(b"").hexdigest()[:32]
    assert ident.label == "~"
    # Stable across machines and spellings of the home path.
    other = tmp_path / "h2"
    other.mkdir()
    assert project_identity(other, home=other) == ident
    assert project_identity(home / ".", home=home) == ident
    # And different from every project below it.
    (home / "proj").mkdir()
    assert project_identity(home / "proj", home=home).id != ident.id


def test_a_dotfiles_repo_in_home_names_the_folders_below_it_as_git_does(home):
    # memoir runs `git config --get remote.origin.url` in the folder: git finds the
    # enclosing repository, so a dotfiles repository in home names the folders below it.
    make_repo(home, "git@github.com:me/dotfiles.git")
    (home / "notes").mkdir()
    notes = project_identity(home / "notes", home=home)
    assert notes.kind == "git-remote" and notes.label == "github.com/me/dotfiles"


def test_symlinked_checkout_is_the_same_project(home, tmp_path):
    real = make_repo(tmp_path / "real", None)
    link = home / "link"
    link.symlink_to(real)
    assert project_identity(link, home=home) == project_identity(real, home=home)


def test_current_project_defaults(home, monkeypatch):
    (home / "p").mkdir()
    monkeypatch.chdir(home / "p")
    monkeypatch.setenv("HOME", str(home))
    assert current_project() == project_identity(home / "p", home=home)
    assert isinstance(current_project(home, home=home), ProjectIdentity)


def test_no_subprocess(monkeypatch, home):
    import subprocess

    def boom(*a, **k):
        raise AssertionError("project_identity must not run git")

    monkeypatch.setattr(subprocess, "Popen", boom)
    make_repo(home / "r", "git@github.com:a/b.git")
    assert project_identity(home / "r", home=home).kind == "git-remote"


# --- visibility --------------------------------------------------------------------------

A = "git:aaaaaaaaaaaaaaaa"
B = "git:bbbbbbbbbbbbbbbb"
HOME = "home:cccccccccccccccc"
NOW = ms("2026-06-15T12:00:00Z")


def item(text: str, **extra) -> dict:
    return {"text": text, "date": "2026-01-01T00:00:00.000Z", **extra}


def visible(items, project, *, list_name="decisions", all_projects=False, at_ms=NOW):
    return [
        i["text"]
        for i in items
        if is_visible(
            i, list_name=list_name, project=project, all_projects=all_projects, at_ms=at_ms
        )
    ]


@pytest.mark.parametrize("list_name", ["decisions", "goals", "next_actions", "open_questions"])
def test_two_projects_never_leak_into_each_other(list_name):
    items = [
        item("a only", project=A),
        item("b only", project=B),
        item("home only", project=HOME),
        item("global"),
        item("global empty", project=""),
    ]
    assert visible(items, A, list_name=list_name) == ["a only", "global", "global empty"]
    assert visible(items, B, list_name=list_name) == ["b only", "global", "global empty"]
    assert visible(items, HOME, list_name=list_name) == ["home only", "global", "global empty"]
    assert visible(items, None, list_name=list_name) == ["global", "global empty"]
    assert len(visible(items, A, list_name=list_name, all_projects=True)) == 5
    assert len(visible(items, None, list_name=list_name, all_projects=True)) == 5


def test_malformed_project_fails_closed():
    for bad in (123, ["x"], {"id": A}, True):
        assert not is_visible(item("x", project=bad), list_name="decisions", project=A, at_ms=NOW)
        assert is_visible(
            item("x", project=bad), list_name="decisions", project=A, all_projects=True, at_ms=NOW
        )
    assert is_visible(item("x", project=None), list_name="decisions", project=A, at_ms=NOW)


def test_hidden_purged_and_rejected_are_never_visible():
    hidden = item("h", hidden=True, hidden_at="2026-07-01T00:00:00Z", project=A)
    purged = {"text": "[purged]", "text_hash": text_hash("secret"), "date": "2026-01-01"}
    rejected = item("r", state="rejected")
    rejected_caps = item("r2", state="Rejected")
    for i in (hidden, purged, rejected, rejected_caps):
        for at in (NOW, ms("2020-01-01"), None):
            assert not is_visible(i, list_name="decisions", project=A, all_projects=True, at_ms=at)
    assert is_visible(item("c", state="pinned"), list_name="decisions", project=A, at_ms=NOW)
    assert not is_visible("not a mapping", list_name="decisions", project=A)  # type: ignore[arg-type]


def test_completed_items_are_hidden_from_their_done_at():
    goal = {"text": "ship", "set_on": "2026-01-01", "done_at": "2026-03-01T00:00:00Z"}
    assert not is_visible(goal, list_name="goals", project=None, at_ms=NOW)
    assert is_visible(goal, list_name="goals", project=None, at_ms=ms("2026-02-01"))
    garbage = {"text": "x", "done_at": "not a date"}
    assert not is_visible(garbage, list_name="next_actions", project=None, at_ms=NOW)
    tombstone = {"text": "done thing", "done_at": "2026-03-01T00:00:00Z"}
    assert is_visible(tombstone, list_name="completed_actions", project=None, at_ms=NOW)


@pytest.mark.parametrize(
    ("window", "at", "expected"),
    [
        ({}, "2026-06-15", True),
        ({"valid_from": "2026-06-01"}, "2026-05-31T23:59:59.999Z", False),
        ({"valid_from": "2026-06-01"}, "2026-06-01T00:00:00Z", True),
        # valid_until ends it from that instant ("now or past", FORMAT-LATEST §10)
        ({"valid_until": "2026-06-30"}, "2026-06-29T23:59:59.999Z", True),
        ({"valid_until": "2026-06-30"}, "2026-06-30T00:00:00Z", False),
        ({"valid_until": "2026-06-30T12:00:00Z"}, "2026-06-30T11:59:59.999Z", True),
        ({"valid_until": "2026-06-30T12:00:00Z"}, "2026-06-30T12:00:00Z", False),
        ({"valid_until": "2026-02"}, "2026-01-31T23:00:00Z", True),
        ({"valid_until": "2026-02"}, "2026-02-01T00:00:00Z", False),
        ({"valid_until": "2026"}, "2025-12-31T23:00:00Z", True),
        ({"valid_from": "2026-01-01", "valid_until": "2026-01-31"}, "2026-01-15", True),
        ({"valid_from": "2026-01-01", "valid_until": "2026-01-31"}, "2026-02-15", False),
        ({"valid_from": "2026-01-01", "valid_until": "2026-01-31"}, "2025-12-15", False),
        ({"valid_from": "2026-06-01T00:00:00+02:00"}, "2026-05-31T22:30:00Z", True),
        ({"valid_from": "garbage", "valid_until": "also garbage"}, "2026-06-15", True),
        ({"valid_from": 20260601}, "2026-01-01", True),  # not a string: no bound
    ],
)
def test_validity_window(window, at, expected):
    assert (
        is_visible(item("x", **window), list_name="decisions", project=None, at_ms=ms(at))
        is expected
    )


def test_validity_defaults_to_now():
    past = item("x", valid_until="2001-01-01")
    future = item("y", valid_from="2999-01-01")
    assert not is_visible(past, list_name="decisions", project=None)
    assert not is_visible(future, list_name="decisions", project=None)
    assert is_visible(item("z", valid_from="2001-01-01"), list_name="decisions", project=None)


def test_believed_at_and_as_of():
    decisions = [
        {"text": "old", "date": "2026-01-01T00:00:00Z", "project": A},
        {"text": "new", "date": "2026-05-01T00:00:00Z", "project": A},
        {"text": "undated"},
        {"text": "other project", "date": "2026-01-01T00:00:00Z", "project": B},
        {"text": "expired", "date": "2026-01-01T00:00:00Z", "valid_until": "2026-02-01"},
        {
            "text": "forgotten later",
            "date": "2026-01-01",
            "hidden": True,
            "hidden_at": "2026-06-01",
        },
        "junk",
    ]
    march = ms("2026-03-01")
    believed = believed_at(decisions, "date", march)
    assert [d["text"] for d in believed] == [
        "old",
        "undated",
        "other project",
        "expired",
        "forgotten later",
    ]
    assert [d["text"] for d in as_of(decisions, list_name="decisions", project=A, at_ms=march)] == [
        "old",
        "undated",
    ]
    assert [
        d["text"]
        for d in as_of(decisions, list_name="decisions", project=A, at_ms=ms("2026-01-15"))
    ] == ["old", "undated", "expired"]
    assert [
        d["text"]
        for d in as_of(decisions, list_name="decisions", project=A, all_projects=True, at_ms=march)
    ] == ["old", "undated", "other project"]
    goals = [{"text": "g", "set_on": "2026-01-01", "done_at": "2026-04-01"}]
    assert as_of(goals, list_name="goals", project=None, at_ms=march) == goals
    assert as_of(goals, list_name="goals", project=None, at_ms=ms("2026-05-01")) == []
    assert LIST_DATE_FIELDS["goals"] == "set_on"
    assert iso_from_ms(march).startswith("2026-03-01")
