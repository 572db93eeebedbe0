"""No open can hang: a FIFO, a folder and a link to ``/dev/zero`` planted as each file the
tool opens; every command and both hooks exit within 2 s, with a sentence (never a
traceback), and the hooks exit 0. Every command that opens a file (found by running the
matrix once over an ordinary disk and listening to Python's ``open`` audit events) names
that file in a sentence when it is special, so none skips it silently.

One driver process per (file, kind) imports the CLI once and forks each command from
it, so the matrix costs one interpreter start per cell; the 2 s deadline is the
measurement itself (a hang is a kill at the deadline, never a wait on a clock to decide).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memoir_tui.cli import build_parser
from tests.deadlines import SAFETY_NET
from tests.paths import REPO

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

# Seconds per command on an idle machine, stretched by the load *now* (a shared machine
# with ten runnable processes per core is ten times slower; a hang is for ever either
# way). The stretch is read while a command runs, not once when the module is imported:
# the load of a busy run grows after its workers start.
IDLE_DEADLINE = 2.0


def stretched(seconds: float) -> float:
    return seconds * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


# install-hooks and install-mcp end by running what they registered (each hook, the MCP
# server's initialize and tools/list) as the doctor does: several interpreter starts,
# each under the 2 s deadline itself, so the command as a whole gets that many.
SLOW = {"install-hooks": 6 * IDLE_DEADLINE, "install-mcp": 3 * IDLE_DEADLINE}

# Each file the tool opens, by where it lives: the store ("S"), the home ("H").
FILES = {
    "memoir-tui.toml": ("S", "memoir-tui.toml"),
    "redo journal": ("S", ".memoir-tui-commit.json"),
    "machine.id": ("S", "machine.id"),
    "session.json": ("S", "session.json"),
    "session.json.lock": ("S", "session.json.lock"),
    "review.json": ("S", "review.json"),
    "audit.jsonl": ("S", "audit.jsonl"),
    "sync.json": ("S", "sync.json"),
    "capture-state.json": ("S", "capture-state.json"),
    "CLAUDE.md": ("H", ".claude/CLAUDE.md"),
    "session.json.flock": ("S", "session.json.flock"),
    "transcript": ("H", ".claude/projects/-work-app/0001.jsonl"),
}
WATCHED = sorted({rel.split("/")[-1] for _where, rel in FILES.values()})
# Files an ordinary disk does not hold (no sync set up, no commit half done): nothing
# opens them there, so their rows ask only that some command names them.
NOT_ON_AN_ORDINARY_DISK = {"sync.json", ".memoir-tui-commit.json"}
# The files whose every reader is held to naming them (the rest: some command names them).
# Not yet held, readers still quiet when last measured (2026-12-04): CLAUDE.md (forget
# everywhere, recall), capture-state.json (hook stop), machine.id (done), memoir-tui.toml
# (uninstall-hooks), review.json (hook session-start, review), session.json (recall).
EVERY_READER_NAMES = {"transcript", "audit.jsonl", "session.json.lock", "session.json.flock"}

KINDS = ("fifo", "folder", "devzero")

# Readers on an ordinary disk that are rightly quiet here: with the store's lock file
# unusable, install-hooks and install-mcp were refused (in a sentence), so their uninstallers
# find nothing to remove and take no lock; the doctor looks at a folder there with lstat only.
_NOTHING_TO_UNDO = {"uninstall-hooks claude", "uninstall-mcp claude-code"}
# Recall's probe of a Claude Code project folder (``adapters.walk.claude_project_cwd``) reads
# the newest transcripts' heads to learn the project's folder, only when its index is stale
# (so on an ordinary disk it opens the transcript on some runs), and skips a special one
# without a word: a leftover, outside the transcript readers proper (capture, the Stop hook,
# forget everywhere), which all name it.
KNOWN_QUIET: dict[str, dict[str, set[str]]] = {
    "transcript": {kind: {"recall ship"} for kind in KINDS},
    "session.json.flock": {
        "fifo": _NOTHING_TO_UNDO,
        "folder": _NOTHING_TO_UNDO | {"doctor"},
        "devzero": _NOTHING_TO_UNDO,
    },
}

# What Claude Code sends a hook: its session's transcript among it (the Stop hook reads it).
HOOK_PAYLOAD = {"session_id": "s1", "cwd": "", "hook_event_name": "SessionStart"}
TRANSCRIPT_LINE = {
    "type": "user",
    "uuid": "u1",
    "parentUuid": None,
    "sessionId": "s1",
    "cwd": "/home/dev/app",
    "timestamp": "2026-01-01T00:00:00Z",
    "message": {"role": "user", "content": "We decided to ship on Fridays from now on."},
}

# Every subcommand with arguments that make it do its work (discovered below: a new
# command without an entry here fails the guard test).
COMMANDS: dict[str, list[list[str]]] = {
    "validate": [["validate"]],
    "merge": [["merge", "{S}/session.json", "{S}/session.json"]],
    "forget": [["forget", "ship", "--everywhere", "--dry-run"], ["forget", "ship", "--yes"]],
    "config": [["config", "show"]],
    "status": [["status"]],
    "capture": [["capture"]],
    "consolidate": [["consolidate"]],
    "doctor": [["doctor"]],
    "hook": [["hook", "session-start"], ["hook", "stop"]],
    "install-hooks": [["install-hooks", "claude"]],
    "uninstall-hooks": [["uninstall-hooks", "claude"]],
    "hooks": [["hooks", "status"]],
    "inject": [["inject", "--dry-run"], ["inject"]],
    "install-mcp": [["install-mcp", "claude-code"]],
    "uninstall-mcp": [["uninstall-mcp", "claude-code"]],
    "merge-driver": [["merge-driver", "{S}/a.json", "{S}/b.json", "{S}/c.json", "session.json"]],
    "recall": [["recall", "ship"]],
    "index": [["index"]],
    "review": [["review"]],
    "sync": [["sync", "status"]],
    "trash": [["trash", "list"]],
    "goal": [["goal", "Ship the hostile disk fix"]],
    "next": [["next", "Write the guard"]],
    "done": [["done", "Write the guard"]],
    "unpark": [["unpark", "Write the guard"]],
    "note": [["note", "A note about shipping"]],
    "ask": [["ask", "Is shipping safe?"]],
    "why": [["why", "ship"]],
    "session": [["session"]],
    "resume": [["resume"]],
}

DRIVER = r"""
import json, os, signal, sys, time
sys.argv = ["memoir-tui"]
from memoir_tui.cli import build_parser, run_command  # imported once, before the forks
import importlib, pkgutil, memoir_tui.core, memoir_tui.commands
# Every module a command may load on first use, loaded here once: a fork then pays for
# the command's work, not for importing it again (the faces with a screen stay out).
for package in (memoir_tui.core, memoir_tui.commands):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)
runs, out_dir, payload, watched = json.loads(os.environ["DRIVE"])
cpus = os.cpu_count() or 1  # each idle deadline is stretched by the load while it runs
results = []
for n, (argv, deadline) in enumerate(runs):
    out, err = f"{out_dir}/{n}.out", f"{out_dir}/{n}.err"
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        opened = set()

        def listen(event, args, opened=opened, watched=frozenset(watched)):
            # an open, or a link made to the name (the JavaScript lock protocol's create)
            path = args[0] if event == "open" else args[1] if event == "os.link" else None
            if isinstance(path, (str, bytes, os.PathLike)):
                name = os.path.basename(os.fsdecode(path))
                if name in watched:
                    opened.add(name)

        try:
            fd = os.open(payload, os.O_RDONLY)
            sys.addaudithook(listen)  # which watched files this command opens
            os.dup2(fd, 0)
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT, 0o600), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT, 0o600), 2)
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", closefd=False)
            sys.stderr = open(2, "w", closefd=False)
            from memoir_tui.__main__ import main
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 99
        sys.stdout.flush(); sys.stderr.flush()
        with open(f"{out_dir}/{n}.opened", "w") as fh:
            fh.write(json.dumps(sorted(opened)))
        os._exit(code or 0)
    hung = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > deadline * max(1.0, os.getloadavg()[0] / cpus):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            hung, status = True, 0
            break
        time.sleep(0.01)
    results.append({
        "argv": argv, "hung": hung, "seconds": round(time.monotonic() - start, 3),
        "rc": os.waitstatus_to_exitcode(status) if not hung else None,
        "out": open(out, errors="replace").read()[-20000:],
        "err": open(err, errors="replace").read()[-20000:],
        "opened": json.loads(open(f"{out_dir}/{n}.opened").read())
        if os.path.exists(f"{out_dir}/{n}.opened") else [],
    })
print(json.dumps(results))
"""


def _subcommands() -> set[str]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


def test_every_subcommand_is_in_the_matrix():
    missing = _subcommands() - set(COMMANDS)
    assert not missing, f"add sample arguments for {sorted(missing)} to COMMANDS"


def _plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")


def _world(tmp_path: Path, *, seeded: Path | None = None) -> tuple[Path, Path, dict[str, str]]:
    """A home with a project in it and a store; a copy of ``seeded``'s when given."""
    home, store = tmp_path / "home", tmp_path / "store"
    if seeded is None:
        (home / "work" / "app" / ".git").mkdir(parents=True)
        store.mkdir(mode=0o700)
    else:
        for part in (home, store):
            shutil.copytree(seeded / part.name, part, symlinks=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "MEMOIR_HOME": str(store),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "EDITOR": "true",
        "PYTHONPATH": str(REPO),
    }
    env.pop("CLAUDE_CONFIG_DIR", None)
    return home, store, env


def _seed_once(home: Path, store: Path, env: dict[str, str]) -> None:
    """An ordinary store (a goal, a decision) before the planting, made by the CLI."""
    for args in (["goal", "Ship it"], ["note", "We ship on Fridays"]):
        subprocess.run(
            [sys.executable, "-m", "memoir_tui", *args],
            env=env,
            cwd=home,
            capture_output=True,
            timeout=60,
            check=True,
        )
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text("# rules\n")
    for name in ("a.json", "b.json", "c.json"):
        (store / name).write_text('{"version": 1}\n')


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    """One seeded home and store, copied into each cell: the CLI seeds it once per module
    (two interpreter starts a cell saved). Nothing in it names its folder: the project ids
    are of home-relative paths, the same in every copy."""
    tmp_path = tmp_path_factory.mktemp("seeded")
    _seed_once(*_world(tmp_path))
    return tmp_path


def _drive(tmp_path: Path, home: Path, store: Path, env: dict[str, str]) -> list[dict]:
    """Every command of the matrix, forked one after another from one driver process."""
    payload = tmp_path / "payload.json"
    transcript = home / FILES["transcript"][1]
    payload.write_text(json.dumps({**HOOK_PAYLOAD, "transcript_path": str(transcript)}))
    runs = [
        ([part.replace("{S}", str(store)) for part in argv], SLOW.get(command, IDLE_DEADLINE))
        for command, argvs in COMMANDS.items()
        for argv in argvs
    ]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    env = {**env, "DRIVE": json.dumps([runs, str(out_dir), str(payload), WATCHED])}
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER],
        env=env,
        cwd=home / "work" / "app",
        capture_output=True,
        text=True,
        timeout=SAFETY_NET,  # the driver kills each hung command itself
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def ordinary_disk(tmp_path_factory, seeded) -> list[dict]:
    """The matrix over an ordinary disk (a transcript with a line in it): which command
    opens which file, and that each sample's arguments do the command's work."""
    tmp_path = tmp_path_factory.mktemp("ordinary")
    home, store, env = _world(tmp_path, seeded=seeded)
    transcript = home / FILES["transcript"][1]
    transcript.parent.mkdir(parents=True)
    transcript.write_text(json.dumps(TRANSCRIPT_LINE) + "\n")
    (store / "memoir-tui.toml").write_text("# every default\n")
    return _drive(tmp_path, home, store, env)


def test_the_ordinary_disk_matrix_runs_each_sample(ordinary_disk):
    """A sample refused for its arguments would test nothing: each one parses, and every
    file of the matrix is opened by some command (else its row proves nothing)."""
    misused = [" ".join(r["argv"]) for r in ordinary_disk if r["rc"] == 2 or r["hung"]]
    assert not misused, f"these samples do not run: {misused}"
    opened = {name for r in ordinary_disk for name in r["opened"]}
    assert opened == set(WATCHED) - NOT_ON_AN_ORDINARY_DISK, (
        f"never opened: {sorted(set(WATCHED) - NOT_ON_AN_ORDINARY_DISK - opened)}"
    )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_special_file_never_hangs_a_command_or_a_hook(
    tmp_path, name, kind, ordinary_disk, seeded
):
    home, store, env = _world(tmp_path, seeded=seeded)
    where, rel = FILES[name]
    planted = (store if where == "S" else home) / rel
    _plant(planted, kind)
    results = _drive(tmp_path, home, store, env)
    quick = [r for r in results if r["argv"][0] not in SLOW]
    slowest = max(quick, key=lambda r: r["seconds"])
    print(  # the measurement, shown with -s
        f"\nMEASURED {name} as a {kind}: slowest {' '.join(slowest['argv'])} "
        f"{slowest['seconds']:.2f} s of {len(results)} runs (idle deadline {IDLE_DEADLINE:.1f} s)"
    )
    hung = [" ".join(r["argv"]) for r in results if r["hung"]]
    assert not hung, f"hung on {name} as a {kind}: {hung}"
    tracebacks = [" ".join(r["argv"]) for r in results if "Traceback" in r["err"]]
    assert not tracebacks, f"{name} as a {kind}: a traceback from {tracebacks}"
    silent = [
        " ".join(r["argv"])
        for r in results
        if r["rc"] not in (0, None) and not (r["err"] + r["out"]).strip()
    ]
    assert not silent, f"{name} as a {kind}: failed without a sentence: {silent}"
    for r in results:
        if r["argv"][0] == "hook":
            assert r["rc"] == 0, f"hook {r['argv'][1]} exited {r['rc']}: {r['err']}"
    # Every command that opens this file on an ordinary disk names it here.
    basename = rel.split("/")[-1]
    assert [r["argv"][0] for r in results] == [r["argv"][0] for r in ordinary_disk]
    readers = [
        r for r, seen in zip(results, ordinary_disk, strict=True) if basename in seen["opened"]
    ]
    if basename in NOT_ON_AN_ORDINARY_DISK or name not in EVERY_READER_NAMES:
        named = [r for r in results if basename in r["out"] + r["err"]]
        assert named, f"no command said anything about {name} as a {kind}"
    else:
        assert readers, f"no command opens {name}: its row proves nothing"
        quiet = {" ".join(r["argv"][:2]) for r in readers if basename not in r["out"] + r["err"]}
        known = KNOWN_QUIET.get(name, {}).get(kind, set())
        assert not quiet - known, (
            f"{name} as a {kind}: these commands read it and said nothing: {sorted(quiet - known)}"
        )
    for r in readers:
        said = [line for line in (r["out"] + r["err"]).splitlines() if basename in line]
        assert not any("[Errno" in line for line in said), (
            f"{' '.join(r['argv'])}: an errno, not a sentence: {said}"
        )


MCP_CALLS = [
    ("memoir_session", {}),
    ("memoir_set_goal", {"text": "Ship the hostile disk fix"}),
    ("memoir_note", {"text": "We ship on Fridays"}),
    ("memoir_sync_status", {}),
]


# Each file as a FIFO (the kind that blocks an open), then every file at once as each kind.
MCP_CASES = [((name,), "fifo") for name in sorted(FILES)] + [
    (tuple(sorted(FILES)), kind) for kind in KINDS
]


@pytest.mark.parametrize(
    "names, kind", MCP_CASES, ids=[f"{'all' if len(n) > 1 else n[0]}-{k}" for n, k in MCP_CASES]
)
def test_a_special_file_never_hangs_the_mcp_server(tmp_path, names, kind, seeded):
    """``initialize`` is answered, then a read, writes and a sync status each answer (a
    result or an error sentence), and the server exits when its input closes."""
    home, store, env = _world(tmp_path, seeded=seeded)
    for name in names:
        where, rel = FILES[name]
        _plant((store if where == "S" else home) / rel, kind)
    name = "+".join(names) if len(names) == 1 else "every file"
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "hostile-disk", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ] + [
        {
            "jsonrpc": "2.0",
            "id": n,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        }
        for n, (tool, args) in enumerate(MCP_CALLS, start=1)
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "memoir_tui", "--mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=home / "work" / "app",
        text=True,
    )
    replies: queue.Queue[dict] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with contextlib.suppress(ValueError):
                message = json.loads(line)
                if "id" in message:
                    replies.put(message)

    threading.Thread(target=read, daemon=True).start()
    assert proc.stdin is not None
    try:
        for n, message in enumerate(messages):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" not in message:
                continue
            # an interpreter start before the first answer, a call's own time after
            wait = stretched(2 * IDLE_DEADLINE if n == 0 else IDLE_DEADLINE)
            try:
                reply = replies.get(timeout=wait)
            except queue.Empty:
                pytest.fail(
                    f"the MCP server hung on {message.get('params', {}).get('name') or message['method']} with {name} as a {kind}"
                )
            assert reply["id"] == message["id"]
            assert "Traceback" not in json.dumps(reply), reply
            if n == 0:
                assert "result" in reply, reply
            elif len(names) == 1 and reply.get("result", {}).get("isError"):
                # a call refused over the one planted file says which file, in a sentence
                said = " ".join(c.get("text", "") for c in reply["result"].get("content", []))
                assert FILES[names[0]][1].split("/")[-1] in said, (name, kind, said)
                assert "[Errno" not in said and "\n" not in said.strip(), said
        proc.stdin.close()
        try:
            proc.wait(timeout=stretched(2 * IDLE_DEADLINE))
        except subprocess.TimeoutExpired:
            pytest.fail(f"the MCP server did not exit on end of input ({name} as a {kind})")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read() if proc.stderr else ""
    assert "Traceback" not in err, err[-3000:]
