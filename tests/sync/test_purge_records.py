"""A purge beats an edit: `forget --everywhere --purge` on A while B edits the same entry
file before it syncs. After both sync, in any order, no file on either machine and no
object reachable on the remote holds the words, and B is told its edit was discarded.
Two machines, one local bare remote, real git."""

from __future__ import annotations

import hashlib
import json
import os
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.sync.entry_sync import plan_entry_sync
from memoir_tui.core.sync.layout import sha256
from memoir_tui.core.sync.purges import (
    PURGES,
    PurgeRecord,
    Taints,
    encode_records,
    merge_records,
    parse_records,
    version_key,
)

from .helpers import all_git_objects, git, make_machines, remote_file, tree_bytes, write_entry

WORD = "Quillfeather"
NAME = "fact_codename"
PATH = f"memory/{NAME}.md"


def _forget(m, *, purge: bool = True):
    if m.encrypted:
        os.environ["MEMOIR_PASSPHRASE"] = m.passphrase
    try:
        return m.store.forget.apply(WORD, purge=purge)
    finally:
        os.environ.pop("MEMOIR_PASSPHRASE", None)


def _holders(root) -> list[str]:
    word = WORD.lower().encode()
    return [p for p, data in tree_bytes(root).items() if word in data.lower()]


def _reachable_blobs(remote) -> bytes:
    listed = git("--git-dir", str(remote), "rev-list", "--objects", "--all").decode()
    shas = "\n".join(line.split()[0] for line in listed.splitlines()).encode() + b"\n"
    return git("--git-dir", str(remote), "cat-file", "--batch", input=shas)


def _setup(tmp_path, *, alone: bool, encrypted: bool = False):
    a, b = make_machines(tmp_path, "AB", encrypted=encrypted)
    body = f"The codename is {WORD}." if alone else f"The codename is {WORD}.\nKeep it short."
    write_entry(a.root, NAME, body)
    write_entry(a.root, "fact_other", "Builds run nightly.")
    for m in (a, b, a, b):
        m.sync()
    assert WORD.encode() in (b.root / PATH).read_bytes()
    # B edits the entry before it hears of the purge: the words stay in its copy
    write_entry(b.root, NAME, f"{body}\nAdded on B.", updated="2026-06-01")
    return a, b


def _check_nowhere(a, b) -> None:
    for m in (a, b):
        for root in (m.root, m.work):
            assert _holders(root) == [], (m.name, root)
        assert b"Builds run nightly." in (m.root / "memory" / "fact_other.md").read_bytes()
    if not a.encrypted:
        assert WORD.lower().encode() not in _reachable_blobs(a.remote).lower()
        for m in (a, b):  # the sync copies' objects, reachable or not (git compresses them)
            assert WORD.lower().encode() not in all_git_objects(m.work / "repo.git").lower()
        assert WORD.lower().encode() not in git("--git-dir", str(a.remote), "log", "-p", "--all")
    entries = [sorted(p.name for p in (m.root / "memory").iterdir()) for m in (a, b)]
    assert entries[0] == entries[1], entries


def _told(results) -> list[str]:
    return [
        n
        for r in results
        for n in r.merge.notes
        if PATH in n and "purged on A" in n and ("discarded" in n or "replaced" in n)
    ]


@pytest.mark.parametrize("alone", [False, True], ids=["lines", "whole-file"])
@pytest.mark.parametrize("order", ["A-B-A", "B-A-B"])
def test_a_purge_on_a_beats_an_edit_on_b_in_either_order(tmp_path, order, alone):
    a, b = _setup(tmp_path, alone=alone)
    told = []
    if order == "A-B-A":
        _forget(a)  # its own sync pushes the purged state
        told.append(b.sync())
        # the Sync pane reads the same sentence
        from memoir_tui.core.sync import sync_status

        last = sync_status(b.store).last_merge
        assert last is not None and _told([SimpleNamespace(merge=last)])
        assert PATH in last.discarded
        a.sync()
    else:
        told.append(b.sync())  # B's edit reaches the remote first
        _forget(a)
        told.append(b.sync())
    told.append(b.sync())
    a.sync()
    _check_nowhere(a, b)
    assert _told(told), [r.merge.notes for r in told]
    if order == "A-B-A":
        assert any(PATH in r.merge.discarded for r in told)
    # the entry converges on A's purged version (or is gone on both)
    mine, theirs = (m.root / PATH for m in (a, b))
    assert mine.exists() == theirs.exists() == (not alone)
    if not alone:
        assert mine.read_bytes() == theirs.read_bytes()
        assert b"Keep it short." in mine.read_bytes()


def test_a_purge_whose_own_sync_failed_still_wins_when_b_pushes_first(tmp_path):
    """A forgets while the remote is away, B pushes its edit, then A syncs: A's sync
    discards B's version and replaces the remote's history."""
    a, b = _setup(tmp_path, alone=False)
    away = a.remote.with_name("remote-away.git")
    os.rename(a.remote, away)
    try:
        _forget(a)
    finally:
        os.rename(away, a.remote)
    b.sync()
    assert WORD.encode() in remote_file(a.remote, PATH)
    result = a.sync()
    assert result.rewritten and PATH in result.merge.discarded_remote, result
    told = [b.sync(), b.sync()]
    a.sync()
    _check_nowhere(a, b)
    assert _told(told)


def test_encrypted_a_b_a(tmp_path):
    a, b = _setup(tmp_path, alone=False, encrypted=True)
    _forget(a)
    told = [b.sync(), b.sync()]
    a.sync()
    _check_nowhere(a, b)
    assert any(PATH in r.merge.discarded for r in told)


def test_b_s_kept_copies_of_the_purged_entry_go_too(tmp_path):
    """A clean-up on B kept the old bytes in B's trash; A's purge reaches them."""
    a, b = _setup(tmp_path, alone=False)
    with b.store.transaction("test_keep", files=("files",)) as tx:
        tx.write_text(b.root / PATH, (b.root / PATH).read_text() + "More on B.\n")
        assert b.store.trash.keep(tx, "a clean-up on B")
    assert _holders(b.root / "trash")
    _forget(a)
    b.sync()
    a.sync()
    b.sync()
    _check_nowhere(a, b)


def test_the_record_holds_neither_the_words_nor_their_hash(tmp_path):
    a, b = _setup(tmp_path, alone=False)
    _forget(a)
    b.sync()
    record = remote_file(a.remote, PURGES)
    assert record == (a.root / PURGES).read_bytes() == (b.root / PURGES).read_bytes()
    forms = {WORD, WORD.lower(), f"The codename is {WORD}.", f"The codename is {WORD}.\n"}
    hashes = {f(s.encode()).hexdigest() for s in forms for f in (hashlib.sha256, hashlib.sha1)}
    from memoir_tui.core.format.identity import text_hash

    hashes |= {text_hash(s) for s in forms}
    low = record.lower()
    assert WORD.lower().encode() not in low
    assert NAME.encode() not in low  # not even the file's name
    assert not [h for h in hashes if h.encode() in low]
    raw = json.loads(record)
    (rec,) = raw["records"].values()
    assert rec["purge"] is True and rec["label"] == "A" and len(rec["salt"]) == 32


def test_a_plain_delete_still_loses_to_an_edit(tmp_path):
    """Only a forget is a delete sync can never bring back; a person's rm is not."""
    a, b = _setup(tmp_path, alone=False)
    (a.root / PATH).unlink()
    a.sync()
    b.sync()
    a.sync()
    for m in (a, b):
        assert b"Added on B." in (m.root / PATH).read_bytes(), m.name
    assert not (a.root / PURGES).exists()


def test_a_later_edit_on_b_after_it_honoured_the_purge_syncs_as_usual(tmp_path):
    a, b = _setup(tmp_path, alone=False)
    _forget(a)
    b.sync()
    write_entry(b.root, NAME, "Rewritten on B after the purge.", updated="2026-07-01")
    b.sync()
    a.sync()
    for m in (a, b):
        assert b"Rewritten on B after the purge." in (m.root / PATH).read_bytes(), m.name


def test_a_plain_forget_beats_an_edit_too_without_replacing_history(tmp_path):
    a, b = _setup(tmp_path, alone=False)
    head = git("--git-dir", str(a.remote), "rev-parse", "main").strip()
    _forget(a, purge=False)
    assert git("--git-dir", str(a.remote), "merge-base", "--is-ancestor", head, "main") == b""
    told = [b.sync()]
    a.sync()
    assert [n for n in told[0].merge.notes if PATH in n and "forgotten on A" in n], told
    assert (a.root / PATH).read_bytes() == (b.root / PATH).read_bytes()
    assert WORD.encode() not in (b.root / PATH).read_bytes()


def test_a_third_machine_whose_base_is_b_s_pushed_edit_honours_it_too(tmp_path):
    """B pushed its edit and C took it in (its base) and edited again; A's purge then
    discards B's version, records it, and C's edit of it is discarded too."""
    a, b, c = make_machines(tmp_path, "ABC")
    write_entry(a.root, NAME, f"The codename is {WORD}.\nKeep it short.")
    for m in (a, b, c, a, b, c):
        m.sync()
    write_entry(b.root, NAME, f"The codename is {WORD}.\nKeep it short.\nOn B.")
    b.sync()
    c.sync()
    write_entry(c.root, NAME, f"The codename is {WORD}.\nKeep it short.\nOn B.\nOn C.")
    _forget(a)
    told = [c.sync(), b.sync(), c.sync()]
    a.sync()
    for m in (a, b, c):
        for root in (m.root, m.work):
            assert _holders(root) == [], (m.name, root)
    assert WORD.lower().encode() not in _reachable_blobs(a.remote).lower()
    assert PATH in told[0].merge.discarded, told[0].merge


def test_words_b_wrote_in_a_new_entry_before_the_purge_go_too(tmp_path):
    """B pushed a new entry holding the words before A's purge: A's forget takes them in
    with its sync and forgets them once more, so its receipt leaves no entry behind."""
    a, b = _setup(tmp_path, alone=False)
    write_entry(b.root, "fact_new_on_b", f"{WORD} ships in May.\nAsk Ana.")
    b.sync()
    receipt = _forget(a)
    assert not [p for p in receipt.remaining if p.kind == "entry"], receipt.render()
    told = [b.sync(), b.sync()]
    a.sync()
    _check_nowhere(a, b)
    assert b"Ask Ana." in (b.root / "memory" / "fact_new_on_b.md").read_bytes()
    assert _told(told)


def test_conflict_copies_of_the_purged_entry_go_on_both_machines(tmp_path):
    """Both machines edited the entry once (a conflict copy on each), then B edits the
    copy and A purges: neither the entry nor its copy brings the words back."""
    a, b = _setup(tmp_path, alone=False)
    write_entry(a.root, NAME, f"The codename is {WORD}.\nOn A.", updated="2026-05-01")
    a.sync()
    result = b.sync()
    (copy,) = result.merge.conflict_copies
    for m in (a, b, a):
        m.sync()
    assert WORD.encode() in (a.root / copy).read_bytes()
    (b.root / copy).write_bytes((b.root / copy).read_bytes() + b"B edits the copy.\n")
    _forget(a)
    told = [b.sync(), b.sync()]
    a.sync()
    _check_nowhere(a, b)
    assert any(copy in r.merge.discarded for r in told), [r.merge for r in told]


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


def _taints(base: bytes, here: str) -> Taints:
    salt = "5a" * 16
    key = version_key(salt, PATH, sha256(base))
    record = PurgeRecord(
        "ab" * 16, "2026-01-01T00:00:00.000Z", "A", "A", True, salt, frozenset({key})
    )
    return Taints({record.id: record}, here)


@given(base=st.sampled_from([b"v1\n", b"v2\n"]), mine=_data, theirs=_data)
def test_with_a_record_made_on_a_both_machines_agree_and_a_purge_beats_an_edit(base, mine, theirs):
    """A forgot (its version ``mine``), B's version is ``theirs``; both last synced
    ``base``. Each merges the other's: the same files, and when both changed, A's."""
    on_a_side = {PATH: mine} if mine is not None else {}
    on_b_side = {PATH: theirs} if theirs is not None else {}
    digests = {PATH: sha256(base)}
    on_a = _apply(on_a_side, plan_entry_sync(on_a_side, on_b_side, digests, _taints(base, "A")))
    on_b = _apply(on_b_side, plan_entry_sync(on_b_side, on_a_side, digests, _taints(base, "B")))
    assert on_a == on_b
    if mine != base and theirs != base and theirs is not None:
        assert on_a == on_a_side  # the purge wins: no conflict copy, B's edit is not kept


_hex32 = st.text("0123456789abcdef", min_size=32, max_size=32)
_record = st.builds(
    PurgeRecord,
    id=st.sampled_from(["a" * 32, "b" * 32, "c" * 32]),
    at=st.sampled_from(["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"]),
    machine=st.sampled_from(["m1", "m2"]),
    label=st.sampled_from(["A", "B"]),
    purge=st.booleans(),
    salt=_hex32,
    versions=st.frozensets(st.text("0123456789abcdef", min_size=64, max_size=64), max_size=3),
)
_table = st.lists(_record, max_size=4).map(lambda rs: {r.id: r for r in rs})


@given(x=_table, y=_table, z=_table)
def test_records_merge_by_union_in_any_order_and_survive_the_file(x, y, z):
    assert merge_records(x, y) == merge_records(y, x)
    assert merge_records(merge_records(x, y), z) == merge_records(x, merge_records(y, z))
    assert merge_records(x, x) == x
    assert parse_records(encode_records(x)) == x
    merged = merge_records(x, y)
    for rid in set(x) | set(y):
        wanted = set().union(*(t[rid].versions for t in (x, y) if rid in t))
        assert merged[rid].versions == wanted
