"""The lean session-start path prints what the full path prints, and imports little."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memoir_tui.core.door import config
from memoir_tui.core.format.review_file import LoadedReview
from memoir_tui.core.hosts.adapters import hook_hosts
from memoir_tui.core.loop import session_start
from memoir_tui.core.rules.waiting import waiting_count
from tests.deadlines import SAFETY_NET
from tests.hooks.helpers import make_world, start_event
from tests.world import World


def _world(tmp_path: Path) -> World:
    w = make_world(tmp_path)
    for args in (
        ("goal", "Ship the CSV importer"),
        ("next", "Write the parser"),
        ("note", "Use SQLite", "--why", "one file"),
        ("ask", "Which encodings?"),
    ):
        assert w.cli(*args).returncode == 0
    (w.store_dir / "review.json").write_text(
        json.dumps(
            {
                "version": 1,
                "items": [
                    {"id": "a", "text": "We decided to use tabs.", "state": "candidate"},
                    {"id": "b", "text": "We chose pytest.", "state": "pinned"},
                    {"id": "c", "text": "Elsewhere.", "project": "other-project"},
                ],
            }
        )
    )
    return w


def test_the_lean_path_prints_what_the_full_path_prints(tmp_path: Path) -> None:
    w = _world(tmp_path)
    for cwd in (w.project, w.home):
        event = json.dumps(start_event(w, cwd=str(cwd)))
        lean = w.cli("hook", "session-start", "--host", "claude", stdin=event, cwd=cwd)
        full = subprocess.run(
            [sys.executable, "-m", "memoir_tui", "hook", "session-start", "--host", "claude"],
            input=event,
            capture_output=True,
            text=True,
            env={**w.process_env(), session_start.FULL_PATH_ENV: "1"},
            cwd=cwd,
            timeout=SAFETY_NET,
        )
        assert lean.returncode == full.returncode == 0
        assert lean.stdout == full.stdout and lean.stdout, (lean.stderr, full.stderr)
        assert "Ship the CSV importer" in lean.stdout and "captured decision" in lean.stdout


def test_the_lean_path_imports_neither_store_nor_transaction(tmp_path: Path) -> None:
    w = _world(tmp_path)
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['memoir_tui', 'hook', 'session-start', '--host', 'claude']\n"
        "try:\n"
        "    runpy.run_module('memoir_tui', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = sorted(m for m in sys.modules if m.startswith(('memoir_tui', 'textual', 'mcp')))\n"
        "sys.stderr.write('MODULES ' + ' '.join(names))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        input=json.dumps(start_event(w)),
        capture_output=True,
        text=True,
        env=w.process_env(),
        cwd=w.project,
        timeout=SAFETY_NET,
    )
    assert "hookSpecificOutput" in done.stdout, done.stderr
    loaded = set(done.stderr.split("MODULES ", 1)[1].split())
    for heavy in (
        "memoir_tui.core.door.store",
        "memoir_tui.core.door.transaction",
        "memoir_tui.core.door.config",
        "memoir_tui.core.hosts.adapters",
        "memoir_tui.core.services.review",
        "memoir_tui.cli",
        "textual",
        "mcp",
    ):
        assert heavy not in loaded, heavy


def test_every_host_reads_the_shape_the_lean_path_prints() -> None:
    assert {h.output for h in hook_hosts()} == {"json"}
    assert session_start.CONFIG_FILE == config.CONFIG_FILE


_ITEM = st.fixed_dictionaries(
    {"text": st.one_of(st.text(max_size=5), st.integers())},
    optional={
        "state": st.sampled_from(["candidate", "pinned", "rejected", "odd", None]),
        "project": st.sampled_from(["p", "q", ""]),
    },
)


@given(st.lists(st.one_of(_ITEM, st.integers())), st.sampled_from([None, "p"]))
def test_the_lean_waiting_count_is_the_queues(items: list[Any], project: str | None) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "review.json").write_text(json.dumps({"version": 1, "items": items}))
        loaded = LoadedReview(state={"items": items}, path=root / "review.json")
        assert session_start.waiting_in_scope(root, project) == waiting_count(
            loaded, project=project
        )


def _modules_after(w: World, argv: list[str], stdin: str) -> tuple[set[str], str]:
    probe = (
        "import runpy, sys\n"
        f"sys.argv = ['memoir_tui', *{argv!r}]\n"
        "try:\n"
        "    runpy.run_module('memoir_tui', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = sorted(m for m in sys.modules if m.startswith('memoir_tui'))\n"
        "sys.stderr.write('MODULES ' + ' '.join(names))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        input=stdin,
        capture_output=True,
        text=True,
        env=w.process_env(),
        cwd=w.project,
        timeout=SAFETY_NET,
    )
    err, _, names = done.stderr.partition("MODULES ")
    return set(names.split()), err


def test_a_stop_with_nothing_new_ends_before_the_store_is_imported(tmp_path: Path) -> None:
    from tests.hooks.test_hook_events import SHOP_SESSION, _copy_shop, _stop_event

    w = _world(tmp_path)
    transcript = _copy_shop(w) / f"{SHOP_SESSION}.jsonl"
    event = json.dumps(_stop_event(w, transcript))
    argv = ["hook", "stop", "--host", "claude"]
    first, err = _modules_after(w, argv, event)
    assert "memoir_tui.core.door.store" in first, err  # something new: the full capture ran
    queued = json.loads((w.store_dir / "review.json").read_text())["items"]
    assert len(queued) > 3  # the fixture's decisions joined the three written above
    again, err = _modules_after(w, argv, event)
    assert "memoir_tui.core.door.store" not in again and "memoir_tui.cli" not in again, err
    assert json.loads((w.store_dir / "review.json").read_text())["items"] == queued
