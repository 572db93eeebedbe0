"""No open can hang: a FIFO, a folder and a link to ``/dev/zero`` planted as each file the
tool opens; every command and both hooks exit within 2 s, with a sentence (never a
traceback), and the hooks exit 0.

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
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memoir_tui.cli import build_parser
from tests.paths import REPO

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

# Seconds per command on an idle machine, stretched by the load (a shared machine with
# ten runnable processes per core is ten times slower; a hang is for ever either way).
DEADLINE = 2.0 * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
# install-hooks and install-mcp end by running what they registered (each hook, the MCP
# server's initialize and tools/list) as the doctor does: several interpreter starts,
# each under the 2 s deadline itself, so the command as a whole gets that many.
SLOW = {"install-hooks": 6 * DEADLINE, "install-mcp": 3 * DEADLINE}

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
    "transcript": ("H", ".claude/projects/-work-app/0001.jsonl"),
}
KINDS = ("fifo", "folder", "devzero")

HOOK_PAYLOAD = json.dumps({"session_id": "s1", "cwd": "", "hook_event_name": "SessionStart"})

# Every subcommand with arguments that make it do its work (discovered below: a new
# command without an entry here fails the guard test).
COMMANDS: dict[str, list[list[str]]] = {
    "validate": [["validate"]],
    "merge": [["merge", "{S}/session.json", "{S}/session.json", "--dry-run"]],
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
import memoir_tui.core.store, memoir_tui.core.hook_run  # noqa: F401
runs, out_dir, payload = json.loads(os.environ["DRIVE"])
results = []
for n, (argv, deadline) in enumerate(runs):
    out, err = f"{out_dir}/{n}.out", f"{out_dir}/{n}.err"
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(payload, os.O_RDONLY)
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
        os._exit(code or 0)
    hung = False
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            hung, status = True, 0
            break
        time.sleep(0.01)
    results.append({
        "argv": argv, "hung": hung, "seconds": round(time.monotonic() - start, 3),
        "rc": os.waitstatus_to_exitcode(status) if not hung else None,
        "out": open(out, errors="replace").read()[-2000:],
        "err": open(err, errors="replace").read()[-2000:],
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


def _world(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    home, store = tmp_path / "home", tmp_path / "store"
    (home / "work" / "app" / ".git").mkdir(parents=True)
    store.mkdir(mode=0o700)
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


def _seed(home: Path, store: Path, env: dict[str, str]) -> None:
    """An ordinary store (a goal, a decision) before the planting."""
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


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_special_file_never_hangs_a_command_or_a_hook(tmp_path, name, kind):
    home, store, env = _world(tmp_path)
    _seed(home, store, env)
    where, rel = FILES[name]
    planted = (store if where == "S" else home) / rel
    _plant(planted, kind)
    payload = tmp_path / "payload.json"
    payload.write_text(HOOK_PAYLOAD)
    runs = [
        ([part.replace("{S}", str(store)) for part in argv], SLOW.get(command, DEADLINE))
        for command, argvs in COMMANDS.items()
        for argv in argvs
    ]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    env["DRIVE"] = json.dumps([runs, str(out_dir), str(payload)])
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER],
        env=env,
        cwd=home / "work" / "app",
        capture_output=True,
        text=True,
        timeout=60 + sum(deadline for _argv, deadline in runs),
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    quick = [r for r in results if r["argv"][0] not in SLOW]
    slowest = max(quick, key=lambda r: r["seconds"])
    print(  # the measurement, shown with -s
        f"\nMEASURED {name} as a {kind}: slowest {' '.join(slowest['argv'])} "
        f"{slowest['seconds']:.2f} s of {len(results)} runs (deadline {DEADLINE:.1f} s)"
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
    named = [r for r in results if rel.split("/")[-1] in r["out"] + r["err"]]
    assert named or name in ("transcript", "audit.jsonl", "session.json.lock"), (
        f"no command said anything about {name} as a {kind}"
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
def test_a_special_file_never_hangs_the_mcp_server(tmp_path, names, kind):
    """``initialize`` is answered, then a read, writes and a sync status each answer (a
    result or an error sentence), and the server exits when its input closes."""
    home, store, env = _world(tmp_path)
    _seed(home, store, env)
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
            wait = 2 * DEADLINE if n == 0 else DEADLINE
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
        proc.stdin.close()
        try:
            proc.wait(timeout=2 * DEADLINE)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the MCP server did not exit on end of input ({name} as a {kind})")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read() if proc.stderr else ""
    assert "Traceback" not in err, err[-3000:]
