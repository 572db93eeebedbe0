"""The audit log: atomic appends from real processes, rotation, torn lines, no raw text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from memoir_tui.core.door.audit import (
    AUDIT_FILE,
    AuditRecord,
    append_audit,
    audit_paths,
    read_audit,
)
from memoir_tui.core.format.identity import iso_from_ms, text_hash
from tests.deadlines import SAFETY_NET

T0 = 1_780_000_000_000
MACHINE = "0f8fad5b-d9cb-469f-a165-70867728950e"


def rec(
    n: int = 0, *, actor: str = "cli", operation: str = "add_goal", text: str = "x"
) -> AuditRecord:
    return AuditRecord.for_text(
        actor=actor,
        operation=operation,
        list_name="goals",
        text=f"{text} {n}",
        machine_id=MACHINE,
        time=iso_from_ms(T0 + n * 1000),
    )


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def test_append_and_read_back_newest_first(store_dir):
    for n in range(3):
        append_audit(store_dir, rec(n))
    records = read_audit(store_dir)
    assert [r.time for r in records] == [iso_from_ms(T0 + n * 1000) for n in (2, 1, 0)]
    assert records[0] == rec(2)
    raw = lines(store_dir / AUDIT_FILE)
    assert raw[0] == {
        "time": iso_from_ms(T0),
        "actor": "cli",
        "operation": "add_goal",
        "list": "goals",
        "identity_hash": text_hash("x 0"),
        "machine_id": MACHINE,
    }
    assert not (store_dir / "events.jsonl").exists()  # the JavaScript tool's file is not ours


def test_filters_and_limit(store_dir):
    append_audit(store_dir, rec(0, actor="app", operation="add_goal"))
    append_audit(store_dir, rec(1, actor="mcp", operation="hide_decision"))
    append_audit(store_dir, rec(2, actor="app", operation="hide_decision"))
    append_audit(store_dir, rec(3, actor="capture", operation="add_candidate"))
    assert [r.time for r in read_audit(store_dir, actor="app")] == [rec(2).time, rec(0).time]
    assert [r.actor for r in read_audit(store_dir, operation="hide_decision")] == ["app", "mcp"]
    assert read_audit(store_dir, actor="app", operation="hide_decision") == [
        rec(2, actor="app", operation="hide_decision")
    ]
    assert [r.time for r in read_audit(store_dir, limit=2)] == [rec(3).time, rec(2).time]
    assert read_audit(store_dir, limit=0) == []
    assert read_audit(store_dir / "missing") == []


def test_no_raw_text_ever_reaches_the_file(store_dir):
    secret_text = "Use PostgreSQL because the deploy key is kept in vault"
    append_audit(
        store_dir,
        AuditRecord.for_text(
            actor="app", operation="note_decision", list_name="decisions", text=secret_text
        ),
    )
    data = (store_dir / AUDIT_FILE).read_text()
    for word in ("PostgreSQL", "postgresql", "deploy", "vault", secret_text):
        assert word not in data
    assert text_hash(secret_text) in data
    # The record type refuses text in every field, not only by convention.
    with pytest.raises(ValueError):
        AuditRecord(time=iso_from_ms(T0), actor="app", operation="x", identity_hash=secret_text)
    with pytest.raises(ValueError):
        AuditRecord(time=iso_from_ms(T0), actor="app", operation=secret_text)
    with pytest.raises(ValueError):
        AuditRecord(time=iso_from_ms(T0), actor=secret_text, operation="x")
    with pytest.raises(ValueError):
        AuditRecord(time=iso_from_ms(T0), actor="app", operation="x", list_name=secret_text)
    with pytest.raises(ValueError):
        AuditRecord(time=iso_from_ms(T0), actor="app", operation="x", machine_id=secret_text)
    with pytest.raises(ValueError):
        AuditRecord(time=secret_text, actor="app", operation="x")


def test_hash_identity_matches_store_identity():
    # Case and surrounding whitespace do not change an item's identity, nor its audit hash.
    a = AuditRecord.for_text(actor="cli", operation="x", list_name="goals", text="  Ship V1 ")
    b = AuditRecord.for_text(actor="cli", operation="x", list_name="goals", text="ship v1")
    assert a.identity_hash == b.identity_hash == text_hash("ship v1")
    merge = AuditRecord.for_text(actor="sync", operation="merge", list_name="", text=None)
    assert merge.identity_hash == ""


def test_truncated_last_line_is_skipped_and_the_next_append_starts_fresh(store_dir):
    append_audit(store_dir, rec(0))
    append_audit(store_dir, rec(1))
    path = store_dir / AUDIT_FILE
    whole = path.read_bytes()
    path.write_bytes(whole[:-20])  # a crash mid-write: the last record is torn
    assert read_audit(store_dir) == [rec(0)]
    append_audit(store_dir, rec(2))
    assert read_audit(store_dir) == [rec(2), rec(0)]
    assert path.read_bytes().endswith(b"\n")


def test_garbage_and_unknown_fields_are_survived(store_dir):
    path = store_dir / AUDIT_FILE
    good = dict(rec(0).to_json(), future_field={"nested": [1, 2]}, v=2)
    path.write_bytes(
        b"\x00\xff not json\n"
        + json.dumps(good).encode()
        + b"\n[1, 2]\n"
        + b'{"time": "not a date", "actor": "cli", "operation": "x"}\n'
        + b'{"actor": "cli"}\n'
        + b"\n"
        + b'{"time": "2026-01-0'
    )
    assert read_audit(store_dir) == [rec(0)]


def test_rotation_keeps_two_generations(store_dir):
    size = len(rec(0).to_line())
    max_bytes = size * 10
    for n in range(45):
        append_audit(store_dir, rec(n), max_bytes=max_bytes)
    live, first, second = audit_paths(store_dir)
    assert live.stat().st_size <= max_bytes
    assert first.exists() and second.exists()
    assert not live.with_name(AUDIT_FILE + ".3").exists()
    records = read_audit(store_dir)
    # Ten records a file: 20-29 in .2, 30-39 in .1, 40-44 live; 0-19 rotated away.
    assert [r.time for r in records] == [rec(n).time for n in range(44, 19, -1)]
    assert len(lines(second)) == len(lines(first)) == 10 and len(lines(live)) == 5


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from memoir_tui.core.door.audit import AuditRecord, append_audit
    root, worker, count, max_bytes = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    for n in range(count):
        append_audit(
            root,
            AuditRecord.for_text(
                actor="cli",
                operation="op" + worker,
                list_name="decisions",
                text=f"worker {worker} item {n}",
                machine_id="machine-" + worker,
                time="2026-06-01T00:00:00.000Z",
            ),
            max_bytes=max_bytes,
        )
    """
)


def _run_writers(root, workers: int, count: int, max_bytes: int) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(w), str(count), str(max_bytes)],
            env=os.environ.copy(),
        )
        for w in range(workers)
    ]
    for p in procs:
        assert p.wait(timeout=SAFETY_NET) == 0


def _check_every_line(root, workers: int, count: int) -> None:
    seen: dict[str, set[str]] = {str(w): set() for w in range(workers)}
    total = 0
    for path in audit_paths(root):
        if not path.exists():
            continue
        for raw in path.read_bytes().split(b"\n"):
            if not raw:
                continue
            data = json.loads(raw)  # every line parses: no interleaving, no torn writes
            worker = data["machine_id"].removeprefix("machine-")
            seen[worker].add(data["identity_hash"])
            total += 1
    assert total == workers * count
    for w in range(workers):
        assert seen[str(w)] == {text_hash(f"worker {w} item {n}") for n in range(count)}
    assert len(read_audit(root)) == workers * count


def test_concurrent_appends_from_real_processes(store_dir):
    _run_writers(store_dir, workers=4, count=200, max_bytes=10_000_000)
    assert not audit_paths(store_dir)[1].exists()
    _check_every_line(store_dir, workers=4, count=200)


def test_concurrent_appends_while_rotating(store_dir):
    # Sized so 800 records need exactly two rotations: nothing may be lost or torn.
    size = len(
        AuditRecord.for_text(
            actor="cli",
            operation="op0",
            list_name="decisions",
            text="x",
            machine_id="machine-0",
            time="2026-06-01T00:00:00.000Z",
        ).to_line()
    )
    _run_writers(store_dir, workers=4, count=200, max_bytes=size * 330)
    assert audit_paths(store_dir)[2].exists()
    _check_every_line(store_dir, workers=4, count=200)


@pytest.mark.parametrize("kind", ["fifo", "folder", "devzero"])
def test_the_audit_pane_reader_names_a_special_audit_file(store_dir, kind):
    """The audit pane reads through ``read_audit``: a FIFO, a folder or a link to
    ``/dev/zero`` as ``audit.jsonl`` is one sentence naming it (the pane shows it), and
    the read never blocks (a FIFO with no writer would hang an open)."""
    from memoir_tui.core.base.errors import MemoirError

    path = store_dir / "audit.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")
    with pytest.raises(MemoirError) as said:
        read_audit(store_dir, limit=10)
    sentence = str(said.value)
    assert str(path) in sentence and "\n" not in sentence and "[Errno" not in sentence
