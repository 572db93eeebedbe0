"""Entry files sync three-way against the last synced base: two machines, one bare
remote, real git. An edit or a delete on one side wins over an unchanged other side;
both sides changed keeps both, named; a forget --everywhere --purge never comes back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.sync.entry_sync import conflict_path, plan_entry_sync
from memoir_tui.core.sync.layout import sha256

from .helpers import git, make_machines, tree_bytes, write_entry


def _sync_all(*machines, rounds: int = 2) -> None:
    for _ in range(rounds):
        for m in machines:
            m.sync()


def _entries(m) -> dict[str, bytes]:
    return m.view()["entries"]


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
def test_an_edit_on_one_side_reaches_the_other_even_with_an_older_date(tmp_path, encrypted):
    a, b = make_machines(tmp_path, "AB", encrypted=encrypted)
    write_entry(a.root, "fact_deploy", "Deploys go through the blue pipeline", updated="2026-05-01")
    _sync_all(a, b)
    assert b"blue pipeline" in _entries(b)["fact_deploy.md"]
    # an edit that leaves `updated` older and its bytes sorting lower than the old copy
    write_entry(a.root, "fact_deploy", "Always deploy via green", updated="2026-01-01")
    _sync_all(a, b)
    for m in (a, b):
        assert b"Always deploy via green" in _entries(m)["fact_deploy.md"], m.name
        assert b"blue pipeline" not in b"".join(_entries(m).values()), m.name
    # … and the same from the other side
    write_entry(b.root, "fact_deploy", "A deploy needs two reviews", updated="2025-01-01")
    _sync_all(b, a)
    assert b"two reviews" in _entries(a)["fact_deploy.md"]


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
def test_a_delete_on_one_side_propagates(tmp_path, encrypted):
    a, b = make_machines(tmp_path, "AB", encrypted=encrypted)
    write_entry(a.root, "fact_old", "an old fact")
    write_entry(a.root, "fact_kept", "a kept fact")
    _sync_all(a, b)
    assert "fact_old.md" in _entries(b)
    (a.root / "memory" / "fact_old.md").unlink()
    _sync_all(a, b)
    for m in (a, b):
        assert set(_entries(m)) == {"fact_kept.md"}, m.name
    # a delete on the machine that did not write it propagates too
    (b.root / "memory" / "fact_kept.md").unlink()
    _sync_all(b, a)
    assert _entries(a) == {} and _entries(b) == {}


def test_an_edit_on_both_sides_keeps_both_and_names_the_copy(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    write_entry(a.root, "fact_db", "We use Postgres")
    _sync_all(a, b)
    write_entry(a.root, "fact_db", "We use Postgres 16", updated="2026-03-01")
    write_entry(b.root, "fact_db", "We use Postgres on RDS", updated="2026-02-01")
    a.sync()
    result = b.sync()
    assert result.merge.conflict_copies, result
    copy = result.merge.conflict_copies[0]
    assert copy.startswith("memory/fact_db.conflict-") and copy.endswith(".md")
    assert copy in result.merge.summary() and copy in " ".join(result.merge.notes)
    _sync_all(a, b)
    assert _entries(a) == _entries(b)
    texts = b"\n".join(_entries(a).values())
    assert b"We use Postgres 16" in texts and b"We use Postgres on RDS" in texts
    assert set(_entries(a)) == {"fact_db.md", copy.removeprefix("memory/")}
    # the sync state the Sync pane reads names it too
    from memoir_tui.core.sync import sync_status

    last = sync_status(b.store).last_merge
    assert last is not None and copy in last.conflict_copies


def test_a_delete_on_one_side_and_an_edit_on_the_other_keeps_the_edit(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    write_entry(a.root, "fact_x", "first words")
    _sync_all(a, b)
    (a.root / "memory" / "fact_x.md").unlink()
    write_entry(b.root, "fact_x", "edited on B")
    a.sync()
    b.sync()
    _sync_all(a, b)
    for m in (a, b):
        assert b"edited on B" in _entries(m)["fact_x.md"], m.name


def test_a_remote_file_holding_a_secret_is_withheld_never_deleted_from_the_remote(tmp_path):
    a, b = make_machines(tmp_path, "AB")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    write_entry(a.root, "fact_token", f"token {token}")
    a.sync(allow_secrets=True)
    b.sync()
    b.sync()
    assert "fact_token.md" not in _entries(b)
    a.sync()
    assert "fact_token.md" in _entries(a)


@pytest.mark.parametrize(
    ("encrypted", "in_session"),
    [(False, True), (True, True), (False, False)],
    ids=["plain", "encrypted", "entries-only"],
)
def test_forget_everywhere_purge_on_a_synced_store_leaves_the_text_nowhere(
    tmp_path, encrypted, in_session
):
    a, b = make_machines(tmp_path, "AB", encrypted=encrypted)
    secret_words = "Quillfeather"
    write_entry(a.root, "fact_codename", f"The codename is {secret_words}.\nKeep it short.")
    write_entry(a.root, "fact_other", "Builds run nightly.")
    if in_session:
        a.store.note_decision(f"Ship {secret_words} behind a flag", why="safety")
    _sync_all(a, b)
    assert secret_words.encode() in b"".join(_entries(b).values())

    import os

    if encrypted:
        os.environ["MEMOIR_PASSPHRASE"] = a.passphrase
    try:
        receipt = a.store.forget.apply(secret_words, purge=True)
    finally:
        os.environ.pop("MEMOIR_PASSPHRASE", None)
    # an encrypted history cannot be searched, so the receipt names it whatever it holds
    unsearchable = ("remote", "sync") if encrypted else ("remote",)
    assert not [p for p in receipt.remaining if p.kind not in unsearchable], receipt.render()
    _sync_all(a, b)

    word = secret_words.lower().encode()
    for m in (a, b):
        for root in (m.root, m.work):
            holders = [p for p, data in tree_bytes(root).items() if word in data.lower()]
            assert holders == [], (m.name, root, holders)
        assert b"Keep it short." in _entries(m)["fact_codename.md"]
        assert b"Builds run nightly." in _entries(m)["fact_other.md"]
        if not encrypted:
            objects = git("--git-dir", str(m.work / "repo.git"), "log", "-p", "--all")
            assert word not in objects.lower(), m.name
    reachable = git("--git-dir", str(a.remote), "log", "-p", "--all").lower()
    assert word not in reachable
    if not encrypted:
        # the remote's reachable objects, whole: nothing holds it
        listed = git("--git-dir", str(a.remote), "rev-list", "--objects", "--all").decode()
        shas = "\n".join(line.split()[0] for line in listed.splitlines()).encode() + b"\n"
        blobs = git("--git-dir", str(a.remote), "cat-file", "--batch", input=shas)
        assert word not in blobs.lower()


# --- the rule itself, over bytes (Hypothesis) ----------------------------------------------

_data = st.one_of(st.none(), st.sampled_from([b"v1\n", b"v2\n", b"v3\n"]))


def _apply(local: dict[str, bytes], actions) -> dict[str, bytes]:
    out = dict(local)
    for act in actions:
        if act.action == "delete":
            out.pop(act.path, None)
        elif act.action in ("write", "conflict"):
            out[act.path] = act.data
    return out


@given(base=_data, mine=_data, theirs=_data)
def test_the_three_way_rule(base, mine, theirs):
    path = "memory/fact_x.md"
    local = {path: mine} if mine is not None else {}
    remote = {path: theirs} if theirs is not None else {}
    digests = {path: sha256(base)} if base is not None else {}
    after = _apply(local, plan_entry_sync(local, remote, digests))
    if theirs == base:  # only this side changed (or nothing): it stands
        assert after == local
    elif mine == base:  # only the remote changed: it wins, delete included
        assert after == remote
    elif mine is None or theirs is None:  # a delete against an edit: the edit is kept
        assert after.get(path) == (mine if theirs is None else theirs)
    elif mine != theirs:  # both changed: both kept, one under the name, one beside it
        kept = after[path]
        other = mine if kept == theirs else theirs
        assert kept in (mine, theirs)
        assert after[conflict_path(path, other)] == other


@given(mine=_data, theirs=_data, base=_data)
def test_both_machines_agree_on_the_merged_files(mine, theirs, base):
    """A merges B's push, B merges A's: the same files either way (convergence)."""
    path = "memory/fact_x.md"
    a = {path: mine} if mine is not None else {}
    b = {path: theirs} if theirs is not None else {}
    digests = {path: sha256(base)} if base is not None else {}
    on_a = _apply(a, plan_entry_sync(a, b, digests))
    on_b = _apply(b, plan_entry_sync(b, a, digests))
    assert on_a == on_b


def test_a_push_rejected_mid_cycle_merges_again_from_what_it_took_in(tmp_path, monkeypatch):
    """Attempt 1 takes B's edit in; B edits again before A's push lands; attempt 2
    must see only B's second edit (not "both changed": A's copy came from B)."""
    from memoir_tui.core.sync.git import Git

    a, b = make_machines(tmp_path, "AB")
    write_entry(a.root, "fact_x", "zero")
    _sync_all(a, b)
    write_entry(b.root, "fact_x", "one")
    b.sync()
    a.store.add_goal("something of A's to push")
    original = Git.push
    calls = []

    def push_after_b_moves(self, *args, **kwargs):
        if not calls:
            calls.append(1)
            write_entry(b.root, "fact_x", "two")
            monkeypatch.setattr(Git, "push", original)
            b.sync()
            monkeypatch.setattr(Git, "push", push_after_b_moves)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Git, "push", push_after_b_moves)
    result = a.sync()
    monkeypatch.setattr(Git, "push", original)
    assert result.attempts == 2 and result.pushed, result
    assert result.merge.conflict_copies == ()
    b.sync()
    for m in (a, b):
        assert set(_entries(m)) == {"fact_x.md"}, m.name
        assert _entries(m)["fact_x.md"].endswith(b"two\n"), m.name
