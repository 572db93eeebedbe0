"""Quarantine, secret scanning, status, the review queue, config and URL masking."""

from __future__ import annotations

import json

import pytest

from memoir_tui.core.sync import (
    NotConfiguredError,
    RemoteQuarantinedError,
    SecretsFoundError,
    mask_url,
    sync_status,
)
from memoir_tui.core.sync.config import load_sync_config
from memoir_tui.core.workflows.memoir import Memoir

from .helpers import make_machines, remote_file, remote_head, tamper, tree_bytes, write_entry

GITHUB_TOKEN = "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"


def test_a_newer_format_remote_is_quarantined_and_contributes_nothing(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    a.store.add_goal("from A")
    a.sync()

    def newer(work):
        session = json.loads((work / "session.json").read_text())
        session["version"] = 2
        session["current"]["goals"].append({"text": "v2 goal", "set_on": "2030-01-01"})
        (work / "session.json").write_text(json.dumps(session))

    tamper(a.remote, tmp_path, newer)
    head = remote_head(a.remote)
    b.store.add_goal("B's goal")
    before = tree_bytes(b.root)
    for action in (b.pull, b.sync, b.push):
        with pytest.raises(RemoteQuarantinedError, match="newer memoir format"):
            action()
    assert tree_bytes(b.root) == before
    assert remote_head(a.remote) == head  # nothing was pushed over it
    status = sync_status(b.store)
    assert status.quarantined and "newer" in status.quarantined
    assert "v2 goal" not in b.view()["goals"]


def test_a_newer_sync_layout_is_quarantined(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    a.sync()

    def newer(work):
        header = json.loads((work / "memoir-sync.json").read_text())
        header["layout"] = 99
        (work / "memoir-sync.json").write_text(json.dumps(header))

    tamper(a.remote, tmp_path, newer)
    with pytest.raises(RemoteQuarantinedError, match="layout 99"):
        b.sync()


def test_secrets_block_the_push_naming_file_and_rule_only(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    a.store.add_goal("harmless")
    write_entry(a.root, "fact_ci", f"the CI token is {GITHUB_TOKEN}")
    with pytest.raises(SecretsFoundError) as info:
        a.sync()
    err = info.value
    assert GITHUB_TOKEN not in str(err) and GITHUB_TOKEN[:10] not in str(err)
    assert [(f.path, f.rule) for f in err.findings] == [("memory/fact_ci.md", "github-token")]
    assert "line 6" in err.findings[0].line()
    assert remote_head(a.remote) is None  # nothing left the machine

    # The same finding inside a JSON file is located by its JSON path.
    session = json.loads((a.root / "session.json").read_text())
    session["current"]["goals"][0]["note"] = "password=hunter2"
    (a.root / "session.json").write_text(json.dumps(session))
    with pytest.raises(SecretsFoundError) as info:
        a.sync()
    wheres = {(f.path, f.where) for f in info.value.findings}
    assert ("session.json", "current.goals[0].note") in wheres
    assert "hunter2" not in str(info.value)

    # Explicit override: pushed.
    assert a.sync(allow_secrets=True).pushed
    # A secret that already sits on the remote does not block others' later pushes.
    b.store.add_goal("B's work")
    assert b.sync().pushed


def test_status_before_and_after(tmp_path):
    store = Memoir(tmp_path / "lonely", machine_label="L")
    status = sync_status(store)
    assert not status.configured and "sync init" in status.lines()[0]
    with pytest.raises(NotConfiguredError):
        from memoir_tui.core.sync import run_sync

        run_sync(store, "sync")

    a, b = make_machines(tmp_path, "AB")
    status = sync_status(a.store)
    assert status.configured and status.never_synced and status.remote == str(a.remote)
    a.store.add_goal("one")
    write_entry(a.root, "fact_x", "x")
    status = sync_status(a.store)
    assert set(status.local_changes) == {"session.json", "memory/fact_x.md"}
    assert status.ahead == 2
    a.sync()
    status = sync_status(a.store)
    assert status.ahead == 0 and status.behind == 0 and status.last_ok
    assert status.last_push and status.last_sync
    assert [m.label for m in status.machines] == ["A"] and status.machines[0].this_machine

    b.store.add_next_action("b's action")
    b.sync()
    assert sync_status(a.store).behind == 0  # no fetch yet
    fetched = sync_status(a.store, fetch=True)
    assert fetched.behind == 1 and fetched.problem is None
    a.store.add_goal("two")
    assert sync_status(a.store).local_changes == ("session.json",)
    result = a.sync()
    assert result.merge.items_added == 1
    status = sync_status(a.store)
    assert status.last_merge is not None and status.last_merge.items_added == 1
    assert {m.label for m in status.machines} == {"A", "B"}
    data = status.to_dict()
    assert json.loads(json.dumps(data))["machines"][0]["id"]
    assert any("machines:" in line for line in status.lines())


def test_merge_report_counts_tombstones_and_conflicts(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    a.store.note_decision("keep it simple")
    a.store.add_next_action("old action")
    a.sync()
    b.sync()
    a.store.hide_decision(a.store.resolve_decision("keep it simple").key)
    a.store.complete_next_action("old action")
    a.sync()
    report = b.sync().merge
    assert report.tombstones_applied == 2
    assert report.conflicts_resolved >= 1
    assert "keep it simple" not in b.view()["decisions"]


def test_review_queue_merges_both_ways(tmp_path):
    a, b = make_machines(tmp_path, "AB")

    def queue(*texts):
        return {
            "version": 1,
            "items": [
                {"text": t, "state": "candidate", "captured_at": "2026-01-01T00:00:00.000Z"}
                for t in texts
            ],
        }

    (a.root / "review.json").write_text(json.dumps(queue("from A")))
    (b.root / "review.json").write_text(json.dumps(queue("from B")))
    a.sync()
    assert b.sync().merge.review == "merged"
    a.sync()
    for m in (a, b):
        texts = {i["text"] for i in json.loads((m.root / "review.json").read_text())["items"]}
        assert texts == {"from A", "from B"}
    remote = json.loads(remote_file(a.remote, "review.json"))
    assert {i["text"] for i in remote["items"]} == {"from A", "from B"}


def test_init_rejects_foreign_branch_and_masks_urls(tmp_path):
    from memoir_tui.core.sync import ModeMismatchError, SyncError, init_sync

    from .helpers import git, make_remote

    remote = make_remote(tmp_path / "r")
    work = tmp_path / "clone"
    git("clone", "--quiet", str(remote), str(work))
    (work / "README").write_text("hello")
    git("add", "README", cwd=work)
    git("commit", "--quiet", "-m", "x", cwd=work)
    git("push", "--quiet", "origin", "HEAD:refs/heads/main", cwd=work)
    store = Memoir(tmp_path / "s", machine_label="S")
    with pytest.raises(SyncError, match="git init --bare"):
        init_sync(store, str(tmp_path / "missing.git"))
    with pytest.raises(ModeMismatchError, match="other files"):
        init_sync(store, str(remote), work_dir=str(tmp_path / "w"))
    result = init_sync(store, str(remote), branch="memoir", work_dir=str(tmp_path / "w"))
    assert result.remote_empty and load_sync_config(store.root).branch == "memoir"

    assert mask_url("https://user:s3cret@host/x.git") == "https://user:***@host/x.git"
    assert mask_url("https://tok3n@host/x.git") == "https://***@host/x.git"
    assert mask_url("git@host:me/x.git") == "git@host:me/x.git"
    assert mask_url("/srv/x.git") == "/srv/x.git"


@pytest.mark.parametrize(
    ("mode", "extra"),
    [("pull", {"allow_secrets": True}), ("push", {"rewrite_history": True}), ("merge", {})],
)
def test_a_sync_run_refuses_options_its_mode_cannot_use(tmp_path, mode, extra):
    from memoir_tui.core.sync import run_sync

    with pytest.raises(ValueError):
        run_sync(Memoir(tmp_path / "store"), mode, **extra)


def test_without_git_sync_refuses_with_a_sync_error_and_forget_finds_no_history(
    tmp_path, monkeypatch
):
    from memoir_tui.core.base.gitexe import GitNotFoundError, git_executable
    from memoir_tui.core.services.places import git_objects_hold
    from memoir_tui.core.sync.errors import GitError
    from memoir_tui.core.sync.git import Git

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(GitNotFoundError, match="git is not installed"):
        git_executable()
    with pytest.raises(GitError, match="git is not installed"):
        Git(tmp_path / "repo.git", machine_id="m", label="m")
    assert git_objects_hold(tmp_path / "repo.git", "anything") is False
