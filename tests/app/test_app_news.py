"""News, not only truth: a list that jumps between two reads of the disk raises a banner
that says which list, from how many to how many, and who; the header warns when the
JavaScript memoir shares the store and keeps fewer than the caps in force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memoir_tui.core.workflows.memoir import Memoir
from memoir_tui.widgets.news_banner import NewsBanner, is_news
from memoir_tui.widgets.store_bar import StoreBar
from tests.app.helpers import SIZE, make_app, settle
from tests.conftest import JulyClock

MACHINE = "5d1c7a20-0b8e-4c55-9a3e-7f21d6c0b9aa"


def _decision(n: int, *, hidden: bool = False) -> dict[str, Any]:
    d: dict[str, Any] = {
        "text": f"Decision number {n} about the build",
        "why": "because",
        "machine_id": MACHINE,
        "date": f"2026-06-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:00.000Z",
    }
    if hidden:
        d["hidden"] = True
        d["text"] = f"Hidden decision number {n}"
    return d


def _session(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "version": 1,
        "created_at": "2026-03-02T09:14:05.120Z",
        "updated_at": "2026-07-01T00:00:00.000Z",
        "machines": {MACHINE: {"label": "laptop", "last_seen": "2026-07-01T00:00:00.000Z"}},
        "current": {
            "goals": [],
            "next_actions": [],
            "completed_actions": [],
            "open_questions": [],
            "decisions": decisions,
        },
        "history": [],
    }


def _write_like_memoir(root: Path, session: dict[str, Any]) -> None:
    """What the JavaScript memoir does: session.json rewritten whole (no audit line of
    ours), one line appended to its own events.jsonl."""
    (root / "session.json").write_text(json.dumps(session, indent=2))
    with (root / "events.jsonl").open("a") as fh:
        fh.write(json.dumps({"type": "note", "at": "2026-07-02T00:00:00.000Z"}) + "\n")


def _store(tmp_path: Path, *, caps: int | None = None) -> Memoir:
    root = tmp_path / "store"
    root.mkdir()
    live = [_decision(n) for n in range(815)]
    tombstones = [_decision(n, hidden=True) for n in range(134)]
    (root / "session.json").write_text(json.dumps(_session(live + tombstones)))
    if caps:
        (root / "memoir-tui.toml").write_text(
            f"[caps]\ngoals = 5\nnext_actions = 20\nopen_questions = 10\ndecisions = {caps}\n"
        )
    return Memoir(root, clock=JulyClock(), machine_label="work-laptop", actor="app")


def test_a_handful_is_not_news_more_is() -> None:
    assert not is_news(10, 10)
    assert not is_news(10, 11)  # one more decision: the screen shows it, no banner
    assert not is_news(100, 105)
    assert is_news(100, 94)  # more than five
    assert is_news(5, 8)  # more than a fifth
    assert is_news(815, 10) and is_news(10, 815)


async def test_a_javascript_trim_while_open_raises_the_banner_with_the_count(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, caps=1000)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        banner = app.query_one(NewsBanner)
        assert not banner.lines and not banner.display
        assert len(app.state.decisions) == 815
        # The header does not warn yet: no JavaScript footprint in the store.
        assert "WARNING" not in app.query_one(StoreBar).caps_note

        # memoir note, in another terminal: 10 decisions kept, 10 tombstones.
        kept = [_decision(n) for n in range(10)] + [_decision(n, hidden=True) for n in range(10)]
        _write_like_memoir(store.root, _session(kept))
        assert app.poll_store()
        await settle(pilot)

        assert len(app.state.decisions) == 10  # the truth …
        assert banner.display and len(banner.lines) == 2  # … and the news
        warned, line = banner.lines
        # The JavaScript memoir's files appeared: the caps warning, uncut, first …
        assert warned.startswith("Caps: the JavaScript memoir shares this store (events.jsonl)")
        assert "keeps only goals 3, next actions 8, questions 5, decisions 10" in warned
        # … then what changed, by how much, by whom, and the way back.
        assert "decisions 815 → 10" in line
        assert "hidden decisions (tombstones) 134 → 10" in line
        assert "JavaScript memoir" in line and "events.jsonl" in line
        assert "Way back: none, no copy is kept." in line
        # The header now warns: [caps] keeps 1000 decisions, the JavaScript memoir 10.
        caps = app.query_one(StoreBar).caps_note
        assert "WARNING: the JavaScript memoir shares this store" in caps
        assert "decisions 10: its next write trims to that" in caps

        # The banner stays through further reads that change little …
        _write_like_memoir(store.root, _session([*kept, _decision(900)]))
        assert app.poll_store()
        await settle(pilot)
        assert len(app.state.decisions) == 11
        assert banner.lines == [warned, line]
        # … and goes when clicked.
        await pilot.click(NewsBanner)
        await settle(pilot)
        assert not banner.lines and not banner.display


async def test_another_memoir_tui_is_named_by_its_audit_lines_and_our_own_writes_are_not_news(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, caps=1000)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        banner = app.query_one(NewsBanner)
        # Another memoir-tui (the CLI, on the desktop) adds eight decisions.
        other = Memoir(store.root, clock=JulyClock(), machine_label="home-desktop", actor="cli")
        for n in range(8):
            other.note_decision(f"Desktop decision {n}", why="measured")
        assert app.poll_store()
        await settle(pilot)
        assert len(banner.lines) == 1
        assert "decisions 815 → 823" in banner.lines[0]
        assert "another memoir-tui (cli on home-desktop)" in banner.lines[0]
        banner.dismiss()

        # This app's own writes are never news, however many.
        for n in range(7):
            app.write(lambda s, n=n: s.note_decision(f"Own decision {n}", why="typed"))
            await settle(pilot)
        assert len(app.state.decisions) == 830
        assert not banner.lines


async def test_a_list_pushed_into_the_archive_says_so_as_the_way_back(tmp_path: Path) -> None:
    store = _store(tmp_path)  # 815 decisions, our default cap of 50: the next write settles
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        other = Memoir(store.root, clock=JulyClock(), machine_label="home-desktop", actor="mcp")
        other.note_decision("One more from the agent", why="asked")
        assert app.poll_store()
        await settle(pilot)
        [line] = app.query_one(NewsBanner).lines
        assert "decisions 815 → 50" in line and "another memoir-tui (mcp" in line
        assert "766 of the decisions moved to the archive (still in the store)" in line


async def test_the_palette_dismisses_the_news(tmp_path: Path) -> None:
    store = _store(tmp_path, caps=1000)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "app: dismiss news" not in {c.title for c in app.get_system_commands(app.screen)}
        _write_like_memoir(store.root, _session([_decision(n) for n in range(10)]))
        assert app.poll_store()
        await settle(pilot)
        banner = app.query_one(NewsBanner)
        assert banner.lines
        [dismiss] = [
            c for c in app.get_system_commands(app.screen) if c.title == "app: dismiss news"
        ]
        dismiss.callback()
        await settle(pilot)
        assert not banner.lines and not banner.display


async def test_a_store_shared_with_the_javascript_memoir_says_its_caps_from_the_start(
    tmp_path: Path,
) -> None:
    store = _store(tmp_path, caps=1000)
    (store.root / "config.json").write_text("{}")  # the JavaScript memoir's own file
    app = make_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.query_one(StoreBar).caps_note.startswith("WARNING: the JavaScript memoir")
        [line] = app.query_one(NewsBanner).lines  # said whole, where 80 columns don't cut it
        assert line.startswith("Caps: the JavaScript memoir shares this store (config.json)")


async def test_news_read_just_before_a_write_of_ours_is_still_said(tmp_path: Path) -> None:
    store = _store(tmp_path, caps=1000)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        banner = app.query_one(NewsBanner)
        other = Memoir(store.root, clock=JulyClock(), machine_label="home-desktop", actor="mcp")
        for n in range(6):
            other.note_decision(f"Agent decision {n}", why="asked")
        theirs = store.load().state
        store.note_decision("Typed here", why="mine")
        ours = store.load().state
        # Both readings are asked for before either is counted (no await between): the
        # first, another writer's, is still compared, then ours becomes the baseline.
        banner.observe(store.root, theirs)
        banner.observe(store.root, ours, own=True)
        assert banner.pending
        await settle(pilot)
        assert not banner.pending
        [line] = banner.lines
        assert "decisions 815 → 821" in line and "mcp on home-desktop" in line
        assert "Way back" not in line  # nothing left: there is nothing to go back to


async def test_a_review_queue_that_jumps_is_news(tmp_path: Path) -> None:
    store = _store(tmp_path, caps=1000)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        capture = Memoir(store.root, clock=JulyClock(), actor="capture")
        capture.review.enqueue(
            [
                {"text": f"Use tool number {n} for the build", "source": "transcript"}
                for n in range(7)
            ]
        )
        assert app.poll_store()
        await settle(pilot)
        [line] = app.query_one(NewsBanner).lines
        assert line == "Changed on disk: review candidates 0 → 7."


def _reading(decisions: int, *records: tuple[str, str], archived: int = 0, js: str = "") -> Any:
    from memoir_tui.core.door.audit import AuditRecord
    from memoir_tui.widgets.news_banner import Reading

    audit = tuple(
        AuditRecord(
            time=f"2026-07-01T00:00:{n:02d}.000Z", actor=actor, operation=op, machine_id="m-1"
        )
        for n, (actor, op) in enumerate(records)
    )
    return Reading(
        counts={"decisions": decisions, "archived_decisions": archived},
        audit_head=tuple(reversed(audit)),
        machines={"m-1": "desktop"},
        js_footprint=js,
    )


def test_who_and_the_way_back_come_from_the_audit_lines_between_two_reads() -> None:
    from memoir_tui.widgets.news_banner import news_between

    before = _reading(40, ("app", "note_decision"))
    # a sync: its copy keeps what was there before
    synced = _reading(12, ("app", "note_decision"), ("sync", "sync_apply"))
    assert news_between(before, synced) == (
        "decisions 40 → 12 — by a sync (audit: sync). Way back: the sync copy's history "
        "holds the state before it (Sync pane)."
    )
    # a clean-up elsewhere: the trash keeps what it removed
    cleaned = _reading(30, ("app", "note_decision"), ("cli", "consolidate_apply"))
    assert news_between(before, cleaned) == (
        "decisions 40 → 30 — by another memoir-tui (cli on desktop). Way back: the trash "
        "keeps what it removed (memoir-tui trash list / restore)."
    )
    # no new audit line, no footprint: a writer that keeps no log
    silent = _reading(10, ("app", "note_decision"))
    assert "a writer that keeps no audit log" in news_between(before, silent)
    # a small change is no news at all
    assert news_between(before, _reading(41, ("app", "note_decision"), ("cli", "x"))) == ""
