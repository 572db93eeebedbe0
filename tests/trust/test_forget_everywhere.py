"""``forget TEXT --everywhere``: one text out of every place, with a receipt.

The scratch home holds a codename in a decision (and its why), a review
candidate, a Claude Code memory file, a Cursor rule and an AGENTS.md, plus a
recall index that has read it and a sync remote whose history holds it. After
``forget CODENAME --everywhere --purge --yes`` no file under the home holds it
(every file walked and searched case-insensitively, the recall index and the
audit log included) and the receipt lists every place, and names the remote's
unreachable objects with the command that expires them.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memoir_tui.core.sync import init_sync, run_sync
from memoir_tui.core.workflows.memoir import Memoir
from tests.deadlines import SAFETY_NET
from tests.sync.helpers import TEST_SCRYPT_N, git, make_remote

REPO = Path(__file__).resolve().parents[2]
CODENAME = "Quillfeather"
WORD = CODENAME.lower().encode()
OTHER = "Marrowgate"  # only in one decision: what `forget --purge` (one decision) takes out
GC = "git reflog expire --expire=now --all && git gc --prune=now"


def env_for(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "MEMOIR_HOME": str(home / ".config" / "memoir"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PYTHONPATH": str(REPO),
    }


def memoir(home: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoir_tui", *args],
        cwd=home,
        env=env_for(home),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=SAFETY_NET,
    )


def holders(home: Path, word: bytes = WORD) -> list[str]:
    """Every file under ``home`` that holds ``word`` (the codename), in any case."""
    found = []
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            path = Path(dirpath) / name
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if word in data.lower():
                found.append(str(path.relative_to(home)))
    return sorted(found)


def all_bytes(home: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _dirs, files in os.walk(home):
        for name in files:
            path = Path(dirpath) / name
            out[str(path.relative_to(home))] = path.read_bytes()
    return out


def build_world(home: Path, monkeypatch: pytest.MonkeyPatch | None = None) -> dict[str, Path]:
    """The five places, written as each tool writes them."""
    home.mkdir(parents=True)
    if monkeypatch is not None:
        for key, value in env_for(home).items():
            if key != "PYTHONPATH":
                monkeypatch.setenv(key, value)
    root = home / ".config" / "memoir"
    project = home / "work" / "app"
    (project / ".cursor" / "rules").mkdir(parents=True)
    root.mkdir(parents=True)
    (root / "memoir-tui.toml").write_text(f'[recall]\nproject_roots = ["{project}"]\n')
    env = env_for(home)
    code = (
        "from memoir_tui.core.workflows.memoir import Memoir\n"
        "s = Memoir(actor='cli')\n"
        # captured before it was noted: the queue holds its words too
        f"s.review.enqueue([{{'text': 'Pay {OTHER} from the reserve', 'source': 'user',"
        " 'extractor': 'test'}])\n"
        f"s.note_decision('Ship {CODENAME} behind a flag', why='{CODENAME} is not public yet')\n"
        "s.note_decision('Use tabs')\n"
        f"s.note_decision('Pay {OTHER} from the reserve', why='{OTHER} is cheaper')\n"
        f"s.review.enqueue([{{'text': 'Rename {CODENAME} before launch', 'source': 'user',"
        " 'extractor': 'test'}])\n"
        "s.add_goal('Keep the build green')\n"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=SAFETY_NET, cwd=home)
    claude = home / ".claude" / "projects" / "-work-app" / "memory"
    claude.mkdir(parents=True)
    places = {
        "claude": claude / "launch.md",
        "cursor": project / ".cursor" / "rules" / "codename.mdc",
        "agents": project / "AGENTS.md",
    }
    places["claude"].write_text(
        f"---\nname: launch\ndescription: launch notes\n---\nThe {CODENAME.upper()} launch is in May.\n"
        "Builds run nightly.\n"
    )
    places["cursor"].write_text(
        f"---\ndescription: naming\n---\nCall it {CODENAME} in code only.\n"
    )
    places["agents"].write_text(
        f"# Agents\n\nUse tabs.\nNever say {CODENAME} in commits.\nBe brief.\n"
    )
    (root / "memory").mkdir(exist_ok=True)
    return places


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, Path], Path]:
    home = tmp_path / "home"
    places = build_world(home, monkeypatch)
    # recall has read it: the index holds it
    assert "Quillfeather" in memoir(home, "recall", CODENAME).stdout
    # a sync remote, outside the home, holds it in its history
    store = Memoir(home / ".config" / "memoir", actor="cli")
    remote = make_remote(tmp_path)
    init_sync(store, str(remote), scrypt_n=TEST_SCRYPT_N)
    run_sync(store, "sync")
    assert WORD in git("log", "--all", "-p", cwd=remote).lower()
    assert len(holders(home)) >= 6  # (git objects are compressed: the sync copy is not seen)
    return home, places, remote


def remote_objects(remote: Path) -> bytes:
    return git("cat-file", "--batch-all-objects", "--batch", cwd=remote).lower()


def test_forget_everywhere_purge_leaves_it_in_no_file_and_the_receipt_names_every_place(
    world,
) -> None:
    home, places, remote = world
    proc = memoir(home, "forget", CODENAME, "--everywhere", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    receipt = proc.stdout
    # every place, with a line of context
    assert "session: " in receipt and "(decisions): Ship Quillfeather behind a flag" in receipt
    assert "review: " in receipt and "Rename Quillfeather before launch" in receipt
    for path in places.values():
        assert str(path) in receipt, path
    assert "The QUILLFEATHER launch is in May." in receipt
    assert "recall: " in receipt
    # what is left: nothing under the home, the remote's unreachable objects outside it
    assert holders(home) == []
    assert f"still there, 1 place(s):\n  remote: {remote}" in receipt
    assert GC in receipt
    assert WORD not in git("log", "--all", "-p", cwd=remote).lower()  # unreachable now
    assert WORD in remote_objects(remote)  # … but stored, as the receipt says
    git("reflog", "expire", "--expire=now", "--all", cwd=remote)
    git("gc", "--prune=now", "--quiet", cwd=remote)
    assert WORD not in remote_objects(remote)
    # surgical: the other lines of each host file stay, a file only holding it goes
    assert places["agents"].read_text() == "# Agents\n\nUse tabs.\nBe brief.\n"
    assert places["claude"].read_text().endswith("---\nBuilds run nightly.\n")
    assert not places["cursor"].exists()
    # the rest of the store is untouched, and the caches rebuild without it
    status = memoir(home, "status")
    assert "Use tabs" in status.stdout and "Keep the build green" in status.stdout
    assert CODENAME.lower() not in memoir(home, "recall", CODENAME).stdout.lower()
    assert holders(home) == []


def test_dry_run_changes_no_byte_and_without_yes_or_a_tty_it_refuses(world) -> None:
    home, places, _remote = world
    before = all_bytes(home)
    dry = memoir(home, "forget", CODENAME, "--everywhere", "--purge", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "dry run: nothing was changed" in dry.stdout
    for path in places.values():
        assert str(path) in dry.stdout
    assert all_bytes(home) == before
    refused = memoir(home, "forget", CODENAME, "--everywhere", "--purge", stdin="FORGET\n")
    assert refused.returncode == 1 and "pass --yes" in refused.stderr
    assert all_bytes(home) == before


def test_without_purge_it_hides_and_keeps_the_old_bytes_in_the_trash(world) -> None:
    home, places, _remote = world
    proc = memoir(home, "forget", CODENAME, "--everywhere", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "kept the old bytes" in proc.stdout
    assert "Ship Quillfeather" not in memoir(home, "status").stdout
    assert "Never say" not in places["agents"].read_text()
    # what still holds it is named: the hidden decision's tombstone and the trash copies
    left = holders(home)
    assert left and all(p.startswith(".config/memoir/") for p in left)
    assert ".config/memoir/session.json" in left
    for rel in left:
        assert str(home / rel) in proc.stdout, rel
    assert "--purge removes them" in proc.stdout
    restore = memoir(home, "trash", "restore", "--last")
    if restore.returncode == 0:  # the trash puts host files back as they were
        assert "Never say" in places["agents"].read_text()


def test_a_host_file_linked_out_of_its_folder_is_named_never_edited(tmp_path: Path) -> None:
    """The walker never follows a link out of a tool's folders (it could lead anywhere):
    such a file is not edited, and the receipt names it, and its target, as still there."""
    home = tmp_path / "home"
    places = build_world(home)
    dotfiles = tmp_path / "dotfiles"  # a dotfiles repository outside the home
    dotfiles.mkdir()
    target = dotfiles / "AGENTS.md"
    target.write_bytes(places["agents"].read_bytes())
    places["agents"].unlink()
    places["agents"].symlink_to(target)
    before = target.read_bytes()
    proc = memoir(home, "forget", CODENAME, "--everywhere", "--purge", "--yes")
    assert proc.returncode == 0, proc.stderr
    assert places["agents"].is_symlink() and target.read_bytes() == before
    remaining = proc.stdout.split("still there", 1)[1]
    assert f"host-link: {places['agents']} (a link to {target}" in remaining
    assert "remove the lines there by hand" in remaining
    assert holders(home) == ["work/app/AGENTS.md"]  # only the link the receipt names


async def test_the_mcp_tool_gives_the_cli_receipt_for_the_same_call(
    tmp_path: Path,
) -> None:
    receipts = []
    for face in ("cli", "mcp"):
        home = tmp_path / face / "home"
        build_world(home)
        if face == "cli":
            memoir(home, "recall", CODENAME)
            proc = memoir(home, "forget", CODENAME, "--everywhere", "--purge", "--yes")
            assert proc.returncode == 0, proc.stderr
            text = proc.stdout
        else:
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "memoir_tui", "--mcp"],
                env=env_for(home),
                cwd=home,
            )
            async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
                await session.initialize()
                dry = await session.call_tool(
                    "memoir_forget",
                    {"text": CODENAME, "everywhere": True, "purge": True, "dry_run": True},
                )
                assert "dry run: nothing was changed" in dry.content[0].text
                assert len(holders(home)) >= 5
                result = await session.call_tool(
                    "memoir_forget", {"text": CODENAME, "everywhere": True, "purge": True}
                )
            assert not result.is_error, result.content[0].text
            text = result.content[0].text
        assert holders(home) == []
        receipts.append(text.replace(str(home), "<home>"))

    # The served process keeps its own recall index (built at start, so more files):
    # every other line of the two receipts is the same.
    def same_part(text: str) -> list[str]:
        return [
            line
            for line in text.splitlines()
            if "recall" not in line and not re.match(r"(found in|changed) \d+", line)
        ]

    assert same_part(receipts[0]) == same_part(receipts[1])
    assert "Ship Quillfeather behind a flag" in receipts[0]


# --- SIGKILL at any instant -----------------------------------------------------------


def _kill_loop(
    tmp_path: Path, args: tuple[str, ...], word: bytes, iterations: int
) -> tuple[int, int]:
    """Start ``forget``, SIGKILL it at a random delay, run ``status``; then the text is in
    no file (the forget committed) or every file holding it is as it was (it had not,
    and running it again to the end leaves it nowhere). Returns both counts."""
    template = tmp_path / "template"
    build_world(template)
    memoir(template, "recall", CODENAME)  # an index to drop
    config = Path(".config/memoir/memoir-tui.toml")

    def copy_to(home: Path) -> None:
        shutil.copytree(template, home, symlinks=True)
        toml = home / config
        toml.write_text(toml.read_text().replace(str(template), str(home)))

    original = all_bytes(template)
    holding = {rel for rel, data in original.items() if word in data.lower()}
    timing = tmp_path / "timing"
    copy_to(timing)
    started = time.monotonic()
    assert memoir(timing, *args).returncode == 0
    full = time.monotonic() - started
    assert holders(timing, word) == []
    rng = random.Random(16)
    committed = untouched = 0
    for i in range(iterations):
        home = tmp_path / f"run{i}"
        copy_to(home)
        proc = subprocess.Popen(
            [sys.executable, "-m", "memoir_tui", *args],
            cwd=home,
            env=env_for(home),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.2, 1.1) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=SAFETY_NET)
        after = memoir(home, "status")  # any command: it finishes what the kill left
        assert after.returncode == 0, after.stderr
        left = holders(home, word)
        if not left:
            committed += 1
        else:
            untouched += 1
            now = all_bytes(home)
            for rel in holding - {str(config)}:
                if "recall-" in rel:
                    continue  # a cache: dropped or not, it is rebuilt from the files
                assert now.get(rel) == original[rel], (i, rel)  # nothing half way
            assert ".config/memoir/session.json" in left, (i, left)
            assert memoir(home, *args).returncode == 0
            assert holders(home, word) == [], (i, holders(home, word))
        shutil.rmtree(home)
    return committed, untouched


@pytest.mark.parametrize(
    "args",
    [
        ("forget", f"Pay {OTHER} from the reserve", "--purge", "--yes"),
        ("forget", CODENAME, "--everywhere", "--purge", "--yes"),
    ],
    ids=["purge-one", "everywhere"],
)
def test_sigkill_at_any_instant_leaves_it_nowhere_once_the_next_command_ran(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    word = (CODENAME if "--everywhere" in args else OTHER).lower().encode()
    committed, untouched = _kill_loop(tmp_path, args, word, iterations=20)
    print(f"killed after the commit: {committed}, before it: {untouched}")
    assert committed + untouched == 20


KILL_AT = """
import os, signal, sys
from memoir_tui import cli
from memoir_tui.core.workflows import purge
from memoir_tui.core.door import transaction

where = sys.argv.pop(1)
if where == "after-commit":  # committed; the caches not yet dropped
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)
    purge.drop_recall_indexes = die
else:  # half way through the commit's writes
    real = transaction._apply
    def apply_one_then_die(writes):
        writes = list(writes)
        if len(writes) < 2:
            return real(writes)
        real(writes[:1])
        os.kill(os.getpid(), signal.SIGKILL)
    transaction._apply = apply_one_then_die
ns = cli.build_parser().parse_args(sys.argv[1:])
sys.exit(cli.run_command(ns))
"""


@pytest.mark.parametrize("where", ["after-commit", "mid-commit"])
@pytest.mark.parametrize("everywhere", [False, True], ids=["purge-one", "everywhere"])
def test_a_kill_at_the_worst_instant_is_finished_by_the_next_command(
    tmp_path: Path, where: str, everywhere: bool
) -> None:
    home = tmp_path / "home"
    build_world(home)
    assert OTHER in memoir(home, "recall", OTHER).stdout  # the index holds it
    args = (
        ["forget", CODENAME, "--everywhere", "--purge", "--yes"]
        if everywhere
        else ["forget", f"Pay {OTHER} from the reserve", "--purge", "--yes"]
    )
    word = (CODENAME if everywhere else OTHER).lower().encode()
    if everywhere:  # the index holds the codename too
        assert CODENAME in memoir(home, "recall", CODENAME).stdout
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT, where, *args],
        cwd=home,
        env=env_for(home),
        capture_output=True,
        timeout=SAFETY_NET,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    assert holders(home, word), "the kill should leave the text somewhere"
    assert memoir(home, "status").returncode == 0  # any command
    assert holders(home, word) == []


def test_the_javascript_tools_event_log_loses_the_lines_and_other_store_files_are_named(
    store_dir: Path,
) -> None:
    events = store_dir / "events.jsonl"
    events.write_text(
        '{"type":"goal","text":"start"}\n'
        f'{{"type":"note","text":"Ship {CODENAME} behind a flag"}}\n'
        '{"type":"done"}\n'
    )
    notes = store_dir / "notes.txt"  # not ours to edit: named, left as it is
    notes.write_text(f"{CODENAME}\n")
    store = Memoir(store_dir, actor="cli")
    store.note_decision(f"Ship {CODENAME} behind a flag")
    receipt = store.forget.apply(CODENAME, purge=True)
    assert events.read_text() == '{"type":"goal","text":"start"}\n{"type":"done"}\n'
    assert notes.read_text() == f"{CODENAME}\n"
    assert [p.kind for p in receipt.remaining] == ["store-file"]
    assert receipt.remaining[0].path == str(notes)
    assert holders(store_dir) == ["notes.txt"]
