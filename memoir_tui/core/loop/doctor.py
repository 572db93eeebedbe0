"""``memoir-tui doctor``: prove the wiring, not just describe it.

Silent setups are the failure this exists for: a hook that never fires, a
server a host cannot start, a store another tool left locked. So the checks
run the real thing where they can:

* the store: the session file (version, damage, read-only), the JavaScript
  tool's lock and how old it is, quarantined copies, the review queue;
* the recall index (a cache: where it is, that it is private) and the sync
  config (it parses; a key file it names exists);
* every MCP registration of ours a host holds: the exact registered command is
  spawned, ``initialize`` and ``tools/list`` are exchanged over stdio by hand
  (the CLI never imports the MCP SDK), and the time is reported;
* every hook of ours a host holds: a synthetic event is piped through the exact
  registered command the way the host runs it (``sh -c``), and its exit code,
  time, output size and output shape are checked; a host setting that turns
  hooks off fails the check;
* PATH: the program each registration names exists and runs.

A synthetic event names no transcript and sets ``MEMOIR_TUI_DOCTOR=1``, with
which a session-start hook skips the pinned-block refresh: the doctor writes
nothing.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import shlex
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoir_tui.core.workflows.memoir import Memoir

PASS, WARN, FAIL = "pass", "warn", "fail"
HANDSHAKE_SECONDS = 20.0
HOOK_SECONDS = 20.0
DOCTOR_ENV = "MEMOIR_TUI_DOCTOR"
STALE_LOCK_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Check:
    area: str
    status: str  # PASS | WARN | FAIL
    detail: str

    @property
    def failed(self) -> bool:
        return self.status == FAIL

    def line(self) -> str:
        return f"{self.status.upper():4}  {self.area}: {self.detail}"


# --- the store ------------------------------------------------------------------------

PERMISSION_WALK_LIMIT = 20_000  # entries looked at (lstat only, never opened)
# The store's own files: each must be a regular file (a folder there is named too).
STORE_FILE_NAMES = (
    "session.json",
    "review.json",
    "machine.id",
    "memoir-tui.toml",
    "sync.json",
    "capture-state.json",
    "audit.jsonl",
    ".memoir-tui-commit.json",
    "session.json.lock",
)


def _mode_words(mode: int) -> str:
    return f"{stat.S_IMODE(mode):04o}"


def check_permissions(store: Memoir) -> list[Check]:
    """The store's permissions and kinds, looked at with ``lstat`` only (nothing opened,
    nothing changed): the doctor prints the exact command that fixes what it finds.

    The rule (ARCHITECTURE, Trust): the store holds memory, so its folder is the
    owner's alone (0700, what memoir-tui makes). A folder or file that others may
    *write* fails (they could plant a link or change memory); a folder others may
    enter with files they may *read* (the JavaScript tool makes 0755 folders and
    0644 files) warns, naming the files. Inside a 0700 folder a file's own bits
    cannot be used by others, so they are not reported. A FIFO, a device or a socket
    among the store's files fails (nothing reads it; remove it); a link leading out of
    the store warns (memoir-tui never writes through it).
    """
    import shlex

    from memoir_tui.core.door.config import js_footprint

    root = store.root
    try:
        root_st = os.stat(root)
    except OSError:
        return []
    out: list[Check] = []
    quoted = shlex.quote(str(root))
    fix_all = f"chmod -R go-rwx {quoted}"
    made_by = ""
    if js_footprint(root):
        made_by = " (a folder first made by the JavaScript tool keeps its 0755/0644)"
    writable: list[str] = []
    readable: list[str] = []
    special: list[str] = []
    links_out: list[str] = []
    real_root = os.path.realpath(root)
    seen = 0
    for dirpath, dirs, names in os.walk(root):  # never follows a folder link
        for name in [*dirs, *names]:
            seen += 1
            if seen > PERMISSION_WALK_LIMIT:
                break
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            rel = os.path.relpath(path, root)
            if stat.S_ISLNK(st.st_mode):
                target = os.path.realpath(path)
                if not (target == real_root or target.startswith(real_root + os.sep)):
                    links_out.append(f"{rel} → {target}")
                continue
            known_file = dirpath == str(root) and name in STORE_FILE_NAMES
            if not (stat.S_ISREG(st.st_mode) or (stat.S_ISDIR(st.st_mode) and not known_file)):
                special.append(rel)
                continue
            if st.st_mode & 0o022:
                writable.append(f"{rel} ({_mode_words(st.st_mode)})")
            elif stat.S_ISREG(st.st_mode) and st.st_mode & 0o044:
                readable.append(rel)
    root_mode = root_st.st_mode
    if root_mode & 0o022:
        out.append(
            Check(
                "permissions",
                FAIL,
                f"{root} is {_mode_words(root_mode)}: others may write in it (plant a link, "
                f"change memory){made_by}; fix: {fix_all}",
            )
        )
    if writable:
        shown = ", ".join(writable[:4]) + (" …" if len(writable) > 4 else "")
        out.append(
            Check(
                "permissions",
                FAIL,
                f"{len(writable)} file(s) or folder(s) others may write: {shown}; fix: {fix_all}",
            )
        )
    if root_mode & 0o055 and not root_mode & 0o022:
        shown = ", ".join(readable[:4]) + (" …" if len(readable) > 4 else "")
        what = f"; {len(readable)} file(s) others may read: {shown}" if readable else ""
        out.append(
            Check(
                "permissions",
                WARN,
                f"{root} is {_mode_words(root_mode)}: others may list it{what}{made_by}; "
                f"fix: {fix_all}",
            )
        )
    if special:
        shown = ", ".join(special[:4]) + (" …" if len(special) > 4 else "")
        rm = " ".join(shlex.quote(os.path.join(str(root), s)) for s in special[:4])
        out.append(
            Check(
                "store files",
                FAIL,
                f"not regular files (a FIFO, a device, a socket, or a folder where the store "
                f"keeps a file; never read): {shown}; fix: rm -r {rm}",
            )
        )
    if links_out:
        shown = ", ".join(links_out[:4]) + (" …" if len(links_out) > 4 else "")
        out.append(
            Check(
                "store files",
                WARN,
                f"links out of the store (never written through, left as they are): {shown}",
            )
        )
    if not out:
        out.append(
            Check("permissions", PASS, f"{root} is {_mode_words(root_mode)}: only you can use it")
        )
    return out


def check_store(store: Memoir) -> list[Check]:
    from memoir_tui.core.format.items import REVIEW_FILE
    from memoir_tui.core.format.review_file import load_review
    from memoir_tui.core.rules.waiting import waiting_count

    out: list[Check] = []
    root = store.root
    if not root.exists():
        return [Check("store", WARN, f"{root} does not exist yet (created on the first write)")]
    if not os.access(root, os.W_OK):
        out.append(Check("store", FAIL, f"{root} is not writable"))
    from memoir_tui.core.format.session import NEWER_VERSION
    from memoir_tui.core.format.session_peek import peek_session

    # Never store.load(): it keeps a damaged or newer file aside, and the doctor writes nothing.
    peek = peek_session(store.session_path, now=store.clock())
    if peek.damage == NEWER_VERSION:
        out.append(Check("store", FAIL, f"read-only: {store.session_path} {peek.detail}"))
    elif peek.damage:
        out.append(Check("store", FAIL, f"{store.session_path} {peek.detail}"))
    else:
        ws = store.view(peek.state, all_projects=True)
        count = len(ws.goals) + len(ws.next_actions) + len(ws.open_questions) + len(ws.decisions)
        state = "present" if peek.exists else "not written yet"
        out.append(
            Check(
                "store", PASS, f"{root}: session.json {state}, {count} live item(s) in all projects"
            )
        )
    out += _lock_checks(store.session_path)
    quarantined = sorted(
        p.name
        for p in root.iterdir()
        if any(f".{kind}-" in p.name for kind in ("corrupted", "pre-migration", "misshapen"))
    )
    if quarantined:
        shown = ", ".join(quarantined[:4]) + (" …" if len(quarantined) > 4 else "")
        out.append(Check("store", WARN, f"{len(quarantined)} quarantined copy(ies) kept: {shown}"))
    review = load_review(root / REVIEW_FILE)
    if review.damaged or review.read_only:
        out.append(Check("review queue", FAIL, review.notice or "review.json cannot be used"))
    else:
        waiting = waiting_count(review)
        out.append(Check("review queue", PASS, f"{waiting} candidate(s) wait for review"))
    return out


def _lock_checks(session_path: Path) -> list[Check]:
    """The two locks by their real names: the JavaScript tool's ``session.json.lock``
    (a file that exists while held) and ours, a flock on ``session.json.flock``
    (the file stays; only whether someone holds it says anything)."""
    out: list[Check] = []
    js_lock = session_path.with_name(session_path.name + ".lock")
    try:
        age = time.time() - js_lock.stat().st_mtime
    except OSError:
        age = None
    if age is not None:
        status = FAIL if age > STALE_LOCK_SECONDS else WARN
        out.append(
            Check(
                "store lock",
                status,
                f"{js_lock.name} (the write lock memoir tools share) has been held for {age:.0f} s"
                + (" (stale? a writer may have been killed)" if status == FAIL else ""),
            )
        )
    flock = session_path.with_name(session_path.name + ".flock")
    if _flock_held(flock):
        out.append(Check("store lock", WARN, f"{flock.name} is held by a memoir-tui writer now"))
    return out


def _flock_held(path: Path) -> bool:
    """Whether another process holds ``path``'s flock (probed read-only, never created)."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def check_recall(store: Memoir, *, env: Mapping[str, str]) -> list[Check]:
    from memoir_tui.core.recall.index import cache_dir

    folder = cache_dir(env)
    if not folder.exists():
        return [
            Check("recall index", PASS, f"not built yet (built on the first recall in {folder})")
        ]
    loose = [
        p.name
        for p in folder.glob("*")
        if p.is_file() and not p.is_symlink() and p.stat().st_mode & 0o077
    ]
    if loose:
        return [Check("recall index", FAIL, f"readable by others in {folder}: {', '.join(loose)}")]
    size = sum(p.stat().st_size for p in folder.glob("*") if p.is_file())
    return [Check("recall index", PASS, f"{folder}: {size // 1024} KB, private (a cache)")]


def check_sync(store: Memoir) -> list[Check]:
    from memoir_tui.core.base.errors import MemoirError
    from memoir_tui.core.sync.config import load_sync_config, mask_url

    if not _sync_config_exists(store):
        return [Check("sync", PASS, "not set up (nothing leaves this machine)")]
    try:
        config = load_sync_config(store.root)
    except MemoirError as exc:
        return [Check("sync", FAIL, str(exc))]
    detail = f"remote {mask_url(config.remote)}, branch {config.branch}"
    if config.encrypt:
        detail += ", encrypted"
        if config.key_file and not Path(config.key_file).expanduser().is_file():
            return [Check("sync", FAIL, f"{detail}; its key file {config.key_file} is missing")]
    return [Check("sync", PASS, detail)]


def _sync_config_exists(store: Memoir) -> bool:
    from memoir_tui.core.sync.config import sync_config_path

    return sync_config_path(store.root).exists()


# --- MCP servers ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Registration:
    host: str
    path: Path
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    limit_s: float | None = None  # how long the host waits for the server to start
    # how to raise it, "{value}" standing for the new value in the knob's unit
    raise_with: str = ""
    limit_unit: str = "s"
    limit_what: str = ""  # the knob's name, and where it was read ("its default" when unset)


def _startup_limit(
    host: Any,
    entry: Mapping[str, Any],
    path: Path,
    *,
    home: Path,
    env: Mapping[str, str],
    project: Path | None,
) -> dict[str, Any]:
    """How long ``host`` waits for our server to start (its documented limit, read where
    the host reads it) and the exact knob that raises it; {} for a host that documents
    none. The doctor only reads: install-mcp writes the knob where it is on our entry."""
    from memoir_tui.core.hosts.mcp_install import SERVER_NAME

    limit = host.startup
    if limit is None:
        return {}
    unit = "ms" if limit.unit == "ms" else "s"
    if limit.entry_key:
        given = entry.get(limit.entry_key)
        ok = isinstance(given, int | float) and not isinstance(given, bool) and given > 0
        value = float(given) if ok else float(limit.default)
        what = f"{limit.entry_key} = {value:g} {unit}" if ok else f"{limit.entry_key} unset"
        if host.file_format == "toml":
            where = f"under [{host.container}.{SERVER_NAME}] in {path}"
            raise_with = f"{limit.entry_key} = {{value}} {where}"
        else:
            raise_with = f'"{limit.entry_key}": {{value}} in the {SERVER_NAME} entry of {path}'
        if any(key == limit.entry_key for key, _ in host.entry_defaults):
            raise_with += f" (memoir-tui install-mcp {host.name} writes it on a new entry)"
        return {
            "limit_s": limit.seconds(value),
            "raise_with": raise_with,
            "limit_unit": unit,
            "limit_what": what,
        }
    # an environment variable; a host that also reads it from its settings' "env" (Claude
    # Code applies that block over its own environment) is read there too, last level wins
    value, what = None, f"{limit.env_var} unset"
    if isinstance(env.get(limit.env_var), str):
        with contextlib.suppress(ValueError):
            value = float(env[limit.env_var])
            what = f"{limit.env_var}={env[limit.env_var]} in the environment"
    hooks = _hook_host_of(host)
    settings = None
    for level in hooks.levels if hooks is not None else ():
        file = level.locate(home, env, project)
        if file is None:
            continue
        settings = settings or (file if level.root is not None else None)
        data, _ = _read_settings(file, level.file_format)
        given = _dig(data, ("env", limit.env_var))
        if isinstance(given, str | int | float) and not isinstance(given, bool):
            with contextlib.suppress(ValueError):
                value = float(given)
                what = f'"env": {{"{limit.env_var}": {json.dumps(given)}}} in {file}'
    if value is None or value <= 0:
        value = float(limit.default)
    raise_with = f"{limit.env_var}={{value}} in the environment {host.name} starts in"
    if settings is not None:
        raise_with += f', or "env": {{"{limit.env_var}": "{{value}}"}} in {settings}'
    return {
        "limit_s": limit.seconds(value),
        "raise_with": raise_with,
        "limit_unit": unit,
        "limit_what": what,
    }


def _adapter_of(host: Any) -> Any:
    from memoir_tui.core.hosts.adapters import ADAPTERS

    return next((a for a in ADAPTERS if host in a.mcp), None)


def _hook_host_of(host: Any) -> Any:
    """The hook host of the same tool (its settings levels, its trust rule), if any."""
    adapter = _adapter_of(host)
    return adapter.hooks[0] if adapter is not None and adapter.hooks else None


def mcp_registrations(
    *, home: Path, env: Mapping[str, str], project: Path | None = None
) -> list[Registration]:
    """Our server's entry in every host config that holds one (user and project files)."""
    return [r for r in _registrations(home=home, env=env, project=project) if r.command]


def _registrations(
    *, home: Path, env: Mapping[str, str], project: Path | None = None
) -> list[Registration]:
    """Registrations, and (with an empty ``command``, the reason in ``args``) every
    host config file that exists but cannot be parsed."""
    import sys
    import tomllib

    from memoir_tui.core.hosts import config_splice
    from memoir_tui.core.hosts.mcp_install import SERVER_NAME, known_tools

    found: list[Registration] = []
    for host in known_tools():
        paths: list[Path] = []
        with contextlib.suppress(LookupError):
            paths.append(host.user_file(home, env, sys.platform))
        if project is not None and host.project_file(project) is not None:
            paths.append(host.project_file(project))  # type: ignore[arg-type]
        for path in paths:
            try:
                from memoir_tui.core.base.safeio import read_text_safely

                text = read_text_safely(path, max_bytes=64 * 1024 * 1024)
            except FileNotFoundError:
                continue
            except (OSError, UnicodeDecodeError) as exc:
                found.append(Registration(host.name, path, "", (f"cannot be read ({exc})",), {}))
                continue
            try:
                if host.file_format == "toml":
                    entries = tomllib.loads(text).get(host.container, {})
                else:
                    entries = config_splice.json_entries(text, host.container)
            except (ValueError, config_splice.ConfigTextError) as exc:
                reason = getattr(exc, "reason", None) or str(exc)
                found.append(
                    Registration(host.name, path, "", (f"cannot be parsed: {reason}",), {})
                )
                continue
            entry = entries.get(SERVER_NAME) if isinstance(entries, dict) else None
            raw = entry if isinstance(entry, dict) else {}
            if isinstance(entry, dict) and host.entry_shape == "opencode":
                argv = entry.get("command")
                if not isinstance(argv, list) or not argv or entry.get("enabled") is False:
                    continue
                entry = {"command": str(argv[0]), "args": argv[1:], "env": entry.get("environment")}
            if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
                continue
            args = entry.get("args") if isinstance(entry.get("args"), list) else []
            extra = entry.get("env") if isinstance(entry.get("env"), dict) else {}
            limit = _startup_limit(host, raw, path, home=home, env=env, project=project)
            found.append(
                Registration(
                    host.name,
                    path,
                    entry["command"],
                    tuple(str(a) for a in args),
                    {str(k): str(v) for k, v in extra.items()},
                    **limit,
                )
            )
    return found


def handshake(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout: float = HANDSHAKE_SECONDS,
) -> tuple[bool, float, str]:
    """Start a stdio MCP server, ``initialize`` and ``tools/list``: (ok, ms, detail)."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=dict(env),
                cwd=cwd,
            )
        except OSError as exc:
            return False, 0.0, f"cannot start {argv[0]}: {exc.strerror or exc}"
        try:
            ok, detail = _converse(proc, started + timeout)
        finally:
            _stop(proc)
        ms = (time.monotonic() - started) * 1000
        if not ok:
            errors.seek(0)
            tail = errors.read()[-400:].decode("utf-8", errors="replace").strip()
            if tail:
                detail += f"; its stderr ends: {tail.splitlines()[-1]}"
        return ok, ms, detail


def _converse(proc: subprocess.Popen[bytes], deadline: float) -> tuple[bool, str]:
    assert proc.stdin is not None and proc.stdout is not None
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "memoir-tui-doctor", "version": "1"},
        },
    }
    try:
        _send(proc, init)
        reply = _reply(proc, 1, deadline)
        if reply is None:
            return False, "no answer to initialize"
        if "error" in reply:
            return False, f"initialize failed: {reply['error']}"
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        listed = _reply(proc, 2, deadline)
    except (BrokenPipeError, OSError) as exc:
        return False, f"the server closed its pipe ({exc})"
    if listed is None:
        return False, "no answer to tools/list"
    tools = listed.get("result", {}).get("tools", []) if isinstance(listed, dict) else []
    names = [t.get("name") for t in tools if isinstance(t, dict)]
    if "memoir_session" not in names:
        return False, f"tools/list has no memoir_session ({len(names)} tools)"
    info = reply.get("result", {}).get("serverInfo", {})
    return True, f"{info.get('name', '?')} answered; {len(names)} tools"


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _reply(proc: subprocess.Popen[bytes], want: int, deadline: float) -> dict[str, Any] | None:
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            return None
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            try:
                message = json.loads(line)
            except ValueError:
                continue  # a stray line: stdout must hold only JSON-RPC, but keep reading
            if isinstance(message, dict) and message.get("id") == want:
                return message
    return None


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=3)
    except (subprocess.TimeoutExpired, OSError):
        proc.kill()
        proc.wait()


def check_mcp(*, home: Path, env: Mapping[str, str], project: Path | None = None) -> list[Check]:
    found = _registrations(home=home, env=env, project=project)
    out = [
        Check(f"mcp {r.host}", FAIL, f"{r.path} {r.args[0]}; its servers cannot be checked")
        for r in found
        if not r.command
    ]
    regs = [r for r in found if r.command]
    if not regs and not out:
        return [
            Check(
                "mcp",
                WARN,
                "memoir-tui's server is registered in no host (memoir-tui install-mcp HOST)",
            )
        ]
    for reg in regs:
        out += project_registration_checks(reg, home=home, env=env, project=project)
        out.append(check_registration(reg, home=home, env=env, cwd=project or home))
    return out


def project_registration_checks(
    reg: Registration, *, home: Path, env: Mapping[str, str], project: Path | None
) -> list[Check]:
    """A project file's server runs only where its host trusts the project (the same
    rule as the project's hooks) and, in Claude Code, once the user approved it."""
    from memoir_tui.core.hosts.mcp_install import SERVER_NAME, get_tool

    if project is None or not reg.path.is_relative_to(project):
        return []
    hooks = _hook_host_of(get_tool(reg.host))
    if hooks is None or not hooks.project_trust:
        return []
    area = f"mcp {reg.host}"
    rules = HostRules(hooks, home, env, project, (), (), (), {})
    why = rules.untrusted(reg.path)
    out = [Check(area, FAIL, why)] if why else []
    if hooks.project_trust != "claude":
        return out
    # Claude Code asks before it starts a server of a project's file; the answer is kept
    # in a settings file (any level) or, by older builds, in the project's record
    enabled = disabled = ""
    places: list[tuple[Any, str]] = []
    for level in hooks.levels:
        file = level.locate(home, env, project)
        if file is not None:
            places.append((_read_settings(file, level.file_format)[0], str(file)))
    trust_file = hooks.trust_file.locate(home, env, None) if hooks.trust_file else None
    if trust_file is not None:
        data, _ = _read_settings(trust_file, "json")
        for folder in (project, *project.parents):
            record = _dig(data, ("projects", str(folder)))
            if isinstance(record, dict):
                places.append((record, f'projects["{folder}"] in {trust_file}'))
    for data, where in places:
        listed_off = _dig(data, ("disabledMcpjsonServers",))
        if isinstance(listed_off, list) and SERVER_NAME in listed_off:
            disabled = disabled or where
        listed_on = _dig(data, ("enabledMcpjsonServers",))
        if (isinstance(listed_on, list) and SERVER_NAME in listed_on) or _dig(
            data, ("enableAllProjectMcpServers",)
        ) is True:
            enabled = enabled or where
    local = hooks.levels[-1].locate(home, env, project)
    if disabled:
        out.append(
            Check(
                area,
                FAIL,
                f"{hooks.label} will not start it: {SERVER_NAME} is in disabledMcpjsonServers "
                f"in {disabled} (you declined it); take it out of that list, or run "
                "claude mcp reset-project-choices and approve it when asked",
            )
        )
    elif not enabled:
        out.append(
            Check(
                area,
                WARN,
                f"{hooks.label} asks you to approve {SERVER_NAME} (a server of the project's "
                "file) the first time it starts here, and starts it only once you do; or add "
                f'"enabledMcpjsonServers": ["{SERVER_NAME}"] to {local}',
            )
        )
    return out


def check_registration(
    reg: Registration, *, home: Path, env: Mapping[str, str], cwd: Path
) -> Check:
    area = f"mcp {reg.host}"
    program = _program_path(reg.command, env)
    if program is None:
        return Check(area, FAIL, f"{reg.command} (in {reg.path}) is not found")
    ok, ms, detail = handshake(
        [reg.command, *reg.args], env={**env, **reg.env}, cwd=cwd if cwd.is_dir() else home
    )
    said = f"{detail} in {ms:.0f} ms ({reg.path})"
    if not ok or reg.limit_s is None:
        return Check(area, PASS if ok else FAIL, said)
    waits = f"the {reg.limit_s:g} s {reg.host} waits for a server to start ({reg.limit_what})"
    if ms > reg.limit_s * 500:
        # room for a slower start than this one: three times what it took, at least 30 s
        seconds = max(30.0, math.ceil(ms * 3 / 1000 / 10) * 10)
        value = f"{seconds * 1000:.0f}" if reg.limit_unit == "ms" else f"{seconds:.0f}"
        fix = f"; raise it: {reg.raise_with.replace('{value}', value)}" if reg.raise_with else ""
        if ms > reg.limit_s * 1000:
            return Check(area, FAIL, f"{said}: slower than {waits}, so it would drop it{fix}")
        return Check(area, WARN, f"{said}: over half {waits}{fix}")
    return Check(area, PASS, f"{said}, within {waits}")


def _program_path(command: str, env: Mapping[str, str]) -> str | None:
    if os.sep in command:
        return command if os.access(command, os.X_OK) else None
    return shutil.which(command, path=env.get("PATH"))


# --- hooks ------------------------------------------------------------------------------


def synthetic_event(host_event: str, cwd: Path) -> dict[str, Any]:
    event: dict[str, Any] = {
        "session_id": "memoir-tui-doctor",
        "transcript_path": "",
        "cwd": str(cwd),
        "hook_event_name": host_event,
    }
    if host_event == "SessionStart":
        event["source"] = "startup"
    if host_event == "Stop":
        event["stop_hook_active"] = False
    if host_event == "PreCompact":
        event["trigger"] = "manual"
    if host_event == "SessionEnd":
        event["reason"] = "other"
    return event


def run_hook_command(
    command: str, event: Mapping[str, Any], *, env: Mapping[str, str], cwd: Path
) -> tuple[int | None, float, bytes, bytes]:
    """Run ``command`` as a host does (``sh -c``), the event on stdin: (code, ms, out, err)."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            command,
            shell=True,
            input=json.dumps(event).encode(),
            capture_output=True,
            env={**env, DOCTOR_ENV: "1"},
            cwd=cwd,
            timeout=HOOK_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        return None, (time.monotonic() - started) * 1000, exc.stdout or b"", exc.stderr or b""
    return done.returncode, (time.monotonic() - started) * 1000, done.stdout, done.stderr


def check_hooks_file(
    host_name: str,
    path: Path,
    *,
    home: Path,
    env: Mapping[str, str],
    cwd: Path | None = None,
    project: Path | None = None,
    pending: str = FAIL,
) -> list[Check]:
    """Every hook of ours in one settings file: would the host run it (its matcher
    rule, its switches at every settings level, trust, approval), and does it work
    when run with a synthetic event within the host's timeout. ``pending`` is the
    verdict on what only the user can still give (trust a folder, approve a hook):
    install-hooks, which just wrote the hook, says it as a next step (WARN)."""
    from memoir_tui.core.hosts.hook_install import read_state

    state = read_state(host_name, path)
    area = f"hooks {state.host.name}"
    if state.error:
        return [Check(area, FAIL, f"{path} cannot be parsed: {state.error}")]
    if not state.ours:
        return []
    if project is None and cwd is not None and path.is_relative_to(cwd):
        project = cwd
    rules = HostRules.read(state.host, home=home, env=env, project=project)
    out = [Check(area, FAIL, problem) for problem in rules.problems]
    out += [Check(area, FAIL, f"hooks are turned off: {why}") for why in rules.off]
    if state.missing:
        out.append(Check(area, WARN, f"{path}: not installed for {', '.join(state.missing)}"))
    for event, cmd in state.foreign_memoir:
        out.append(Check(area, WARN, f"the JavaScript memoir's hook is here too ({event}: {cmd})"))
    untrusted = rules.untrusted(path)
    if untrusted:
        out.append(Check(area, pending, untrusted))
    where = cwd if cwd is not None and cwd.is_dir() else home
    for hook in state.ours:
        out.append(_check_one_hook(state.host, hook, rules, env, where))
        held = rules.unapproved(hook)
        if held is not None:
            out.append(Check(held.area, pending, held.detail) if held.failed else held)
    return out


@dataclass(frozen=True, slots=True)
class HostRules:
    """What a host's own settings say about running hooks here, read at every level."""

    host: Any
    home: Path
    env: Mapping[str, str]
    project: Path | None
    off: tuple[str, ...]  # "key = value in file": every hook is off
    skipped: tuple[tuple[str, str], ...]  # (handler name or command, the file listing it)
    problems: tuple[str, ...]  # a level's file that cannot be parsed
    codex_states: Mapping[str, Any]  # Codex: [hooks.state] in the user's config.toml

    @classmethod
    def read(
        cls, host: Any, *, home: Path, env: Mapping[str, str], project: Path | None
    ) -> HostRules:
        effective: dict[tuple[str, ...], tuple[object, Path]] = {}
        skipped: list[tuple[str, str]] = []
        problems: list[str] = []
        states: dict[str, Any] = {}
        for level in host.levels:
            path = level.locate(home, env, project)
            if path is None:
                continue
            data, error = _read_settings(path, level.file_format)
            if error:
                problems.append(f"{path} cannot be parsed ({error}); {host.label} may not start")
                continue
            if data is None:
                continue
            for keys, _ in host.disabled_by:
                value = _dig(data, keys)
                if value is not None:
                    effective[keys] = (value, path)  # a later level wins
            for keys in host.disabled_names:
                names = _dig(data, keys)
                if isinstance(names, list):
                    key = ".".join(keys)
                    skipped += [(n, f"{key} in {path}") for n in names if isinstance(n, str)]
            if level.root is not None and host.project_trust == "codex":
                found = _dig(data, ("hooks", "state"))
                if isinstance(found, dict):
                    states.update(found)
        off = tuple(
            f"{'.'.join(keys)} = {json.dumps(effective[keys][0])} in {effective[keys][1]}"
            for keys, value in host.disabled_by
            if keys in effective and effective[keys][0] == value
        )
        return cls(host, home, env, project, off, tuple(skipped), tuple(problems), states)

    def untrusted(self, hooks_file: Path) -> str:
        """Why the host will not run a project-level hooks file here ("" when it will)."""
        if self.project is None or not hooks_file.is_relative_to(self.project):
            return ""
        if self.host.project_trust == "codex":
            return _codex_untrusted(self.host, self.home, self.env, self.project)
        if self.host.project_trust == "gemini":
            return _gemini_untrusted(self.host, self.home, self.env, self.project)
        if self.host.project_trust == "claude":
            return _claude_untrusted(self.host, self.home, self.env, self.project)
        return ""

    def skipped_by(self, hook: Any) -> str:
        for name, where in self.skipped:
            if name in (hook.name, hook.command):
                return f"{self.host.label} skips it: {name!r} is listed in {where}"
        if self.host.project_trust == "codex":
            key, state = self.codex_state(hook)
            if isinstance(state, dict) and state.get("enabled") is False:
                return f"{self.host.label} skips it: [hooks.state] turns {key} off"
        return ""

    def codex_state(self, hook: Any) -> tuple[str, Any]:
        """Codex's key for one handler (``<hooks.json>:<event>:<group>:<handler>``,
        codex-rs/hooks ``hook_key``; builds that prefixed ``file:`` read too) and the
        user's ``[hooks.state]`` entry for it."""
        key = f"{hook.path}:{_snake(hook.host_event)}:{hook.group}:{hook.index}"
        for name in (key, f"file:{key}"):
            if name in self.codex_states:
                return name, self.codex_states[name]
        return key, None

    def unapproved(self, hook: Any) -> Check | None:
        """A hook the host holds until the user approves it (Codex: a new or changed
        hook runs only once trusted in /hooks, which records its ``trusted_hash``)."""
        if self.host.project_trust != "codex":
            return None
        area = f"hook {self.host.name} {hook.host_event}"
        key, state = self.codex_state(hook)
        trusted = state.get("trusted_hash") if isinstance(state, dict) else None
        user = self.host.levels[0].locate(self.home, self.env, None)
        if not isinstance(trusted, str):
            return Check(
                area,
                FAIL,
                f"{self.host.label} runs a new hook only once you trust it, and this one is "
                f'not trusted (no trusted_hash under [hooks.state."{key}"] in {user}): '
                "start codex, open /hooks and trust the memoir-tui hooks",
            )
        if trusted != codex_hook_hash(hook):
            return Check(
                area,
                WARN,
                f"trusted once, but its trusted_hash in {user} is not the hash of the hook as "
                "it reads now (changed by a later install-hooks?); if /hooks in codex lists it "
                "as modified, trust it again there",
            )
        return None


def codex_hook_hash(hook: Any) -> str:
    """The hash Codex records as a handler's ``trusted_hash``: its normalized identity
    (event label, the group's matcher, the one handler with its timeout made explicit)
    as canonical JSON (keys sorted, compact), SHA-256 (codex-rs/hooks discovery.rs
    ``command_hook_hash``, codex-rs/config fingerprint.rs ``version_for_toml``). A
    Codex that hashes other fields computes another value: hence only a warning."""
    import hashlib

    event = _snake(hook.host_event)
    handler: dict[str, Any] = {
        "type": "command",
        "command": hook.command,
        "timeout": max(1, int(hook.timeout)) if hook.timeout else 600,
        "async": False,
    }
    identity: dict[str, Any] = {"event_name": event, "hooks": [handler]}
    # Codex ignores the matcher of events that do not dispatch on one (Stop, prompts)
    if hook.matcher is not None and event not in ("stop", "user_prompt_submit"):
        identity["matcher"] = hook.matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


def _read_settings(path: Path, file_format: str) -> tuple[Any, str]:
    """(data, "") or (None, why it cannot be parsed); (None, "") when there is no file."""
    try:
        from memoir_tui.core.base.safeio import read_text_safely

        text = read_text_safely(path, max_bytes=64 * 1024 * 1024)
    except FileNotFoundError:
        return None, ""
    except (OSError, UnicodeDecodeError) as exc:
        return None, str(exc)
    try:
        if file_format == "toml":
            import tomllib

            return tomllib.loads(text), ""
        from memoir_tui.core.hosts import config_splice

        return config_splice.parse_jsonc_value(text), ""
    except Exception as exc:  # every parser's own error: named, never raised
        return None, getattr(exc, "reason", None) or str(exc) or type(exc).__name__


def _dig(data: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _codex_untrusted(host: Any, home: Path, env: Mapping[str, str], project: Path) -> str:
    user = host.levels[0].locate(home, env, None)
    data, _ = _read_settings(user, "toml") if user is not None else (None, "")
    projects = _dig(data, ("projects",)) or {}
    for folder in (project, *project.parents):
        entry = projects.get(str(folder)) if isinstance(projects, dict) else None
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return ""
    return (
        f"Codex reads a project's own settings only in a trusted project: {project} is not "
        f"trusted in {user} "
        '(trust it when Codex asks, or set trust_level = "trusted" under '
        f'[projects."{project}"])'
    )


def _claude_untrusted(host: Any, home: Path, env: Mapping[str, str], project: Path) -> str:
    """Claude Code reads a project's settings (its hooks) and its project MCP servers only
    in a trusted folder: ``projects[<the folder or a parent>].hasTrustDialogAccepted``
    in its global config (the trust dialog writes it; the home folder's is never kept)."""
    trust_file = host.trust_file.locate(home, env, None) if host.trust_file else None
    if trust_file is None:
        return ""
    data, error = _read_settings(trust_file, "json")
    if error:
        return f"{trust_file} cannot be parsed ({error}), so {host.label} trusts no folder"
    projects = _dig(data, ("projects",))
    for folder in (project, *project.parents):
        entry = projects.get(str(folder)) if isinstance(projects, dict) else None
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return ""
    return (
        f"{host.label} runs a project's hooks and MCP servers only in a folder you trusted, "
        f"and neither {project} nor a folder above it is trusted in {trust_file}: start "
        f"claude in {project} once and accept the trust dialog (or set "
        f'projects["{project}"].hasTrustDialogAccepted = true in {trust_file})'
    )


def _gemini_untrusted(host: Any, home: Path, env: Mapping[str, str], project: Path) -> str:
    user = host.levels[0].locate(home, env, None)
    settings, _ = _read_settings(user, "json") if user is not None else (None, "")
    if _dig(settings, ("security", "folderTrust", "enabled")) is not True:
        return ""  # folder trust off: every folder is trusted
    trust_file = host.trust_file.locate(home, env, None) if host.trust_file else None
    if trust_file is None:
        return ""
    rules, _ = _read_settings(trust_file, "json")
    trusted = False
    for folder, level in (rules or {}).items() if isinstance(rules, dict) else ():
        where = Path(folder)
        if level == "DO_NOT_TRUST" and where == project:
            trusted = False
            break
        base = where.parent if level == "TRUST_PARENT" else where
        if level in ("TRUST_FOLDER", "TRUST_PARENT") and project.is_relative_to(base):
            trusted = True
    if trusted:
        return ""
    return (
        f"Gemini CLI runs a project's hooks only in a trusted folder (folder trust is on; "
        f"its project settings and MCP servers too) and {project} is not trusted in "
        f'{trust_file}: trust it when Gemini CLI asks, or add "{project}": "TRUST_FOLDER" there'
    )


def _check_one_hook(
    host: Any, hook: Any, rules: HostRules, env: Mapping[str, str], cwd: Path
) -> Check:
    from memoir_tui.core.hosts.hook_install import matcher_matches

    area = f"hook {host.name} {hook.host_event}"
    if hook.verb == "session-start":
        fires = [s for s in host.sources if matcher_matches(host.matcher_rule, hook.matcher, s)]
        if not fires:
            how = (
                "by exact string"
                if host.matcher_rule == "exact"
                else "as exact alternatives or a regular expression"
            )
            return Check(
                area,
                FAIL,
                f"{host.label} would never run it: it matches {hook.matcher!r} {how} against "
                f"the session's source ({', '.join(host.sources)}) and none is matched "
                f"(in {hook.path}; run install-hooks {host.name} again)",
            )
    skipped = rules.skipped_by(hook)
    if skipped:
        return Check(area, FAIL, skipped)
    words = shlex.split(hook.command) if hook.command.strip() else []
    if not words or _program_path(words[0], env) is None:
        return Check(area, FAIL, f"{words[0] if words else hook.command!r} is not found")
    code, ms, stdout, stderr = run_hook_command(
        hook.command, synthetic_event(hook.host_event, cwd), env=env, cwd=cwd
    )
    if code is None:
        return Check(area, FAIL, f"did not finish within {HOOK_SECONDS:.0f} s")
    if code != 0:
        tail = stderr.decode("utf-8", errors="replace").strip().splitlines()
        return Check(area, FAIL, f"exit {code} in {ms:.0f} ms" + (f": {tail[-1]}" if tail else ""))
    limit_ms = _limit_ms(host, hook)
    if limit_ms is not None and ms > limit_ms:
        return Check(
            area,
            FAIL,
            f"exit 0 in {ms:.0f} ms, slower than the {limit_ms / 1000:g} s {host.label} "
            "waits for it (its timeout): the host would cut it off",
        )
    problem = _shape_problem(host, hook.verb, stdout)
    if problem:
        return Check(area, FAIL, f"exit 0 in {ms:.0f} ms, but {problem}")
    said = stderr.decode("utf-8", errors="replace").strip().splitlines()
    broken = [line for line in said if "Error" in line or "Traceback" in line]
    if broken:
        return Check(area, FAIL, f"exit 0 in {ms:.0f} ms, but it said: {broken[-1]}")
    limit = f" of the {limit_ms / 1000:g} s it may take" if limit_ms is not None else ""
    if limit_ms is not None and ms > limit_ms / 2:
        return Check(area, WARN, f"exit 0 in {ms:.0f} ms: over half{limit}")
    return Check(area, PASS, f"exit 0 in {ms:.0f} ms{limit}, {len(stdout)} bytes out")


def _limit_ms(host: Any, hook: Any) -> float | None:
    """The host's time limit for this handler, in ms (its own timeout, else the host's)."""
    if hook.timeout is not None and hook.timeout > 0:
        return hook.timeout * (1 if host.timeout_unit == "ms" else 1000)
    return HOST_DEFAULT_HOOK_MS.get(host.name)


# Each host's timeout for a handler that sets none (its docs/source): Claude Code 60 s,
# Gemini CLI 60,000 ms (our Codex handler always sets its own).
HOST_DEFAULT_HOOK_MS = {"claude": 60_000.0, "gemini": 60_000.0}


def _shape_problem(host: Any, verb: str, stdout: bytes) -> str | None:
    text = stdout.decode("utf-8", errors="replace").strip()
    if verb != "session-start":
        return "it printed on stdout, which the host would read" if text else None
    if not text:
        return None  # nothing to say is said as nothing
    if host.output == "plain":
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return "its output is not the JSON the host expects"
    context = value.get("hookSpecificOutput", {}) if isinstance(value, dict) else {}
    if not isinstance(context, dict) or not isinstance(context.get("additionalContext"), str):
        return "its output has no hookSpecificOutput.additionalContext"
    if len(context["additionalContext"]) > 9_000:
        return (
            f"its brief is {len(context['additionalContext'])} characters (the host cuts ~10,000)"
        )
    return None


def check_hooks(*, home: Path, env: Mapping[str, str], project: Path | None = None) -> list[Check]:
    from memoir_tui.core.hosts.adapters import hook_hosts
    from memoir_tui.core.hosts.hook_install import settings_paths

    out: list[Check] = []
    installed = False
    for host in hook_hosts():
        for path in settings_paths(host, home=home, env=env, project=project):
            checks = check_hooks_file(
                host.name, path, home=home, env=env, cwd=project, project=project
            )
            installed = installed or bool(checks)
            out += checks
    if not installed:
        out.append(
            Check(
                "hooks",
                WARN,
                "memoir-tui's hooks are installed in no host (memoir-tui install-hooks claude)",
            )
        )
    return out


def check_path(env: Mapping[str, str]) -> list[Check]:
    found = shutil.which("memoir-tui", path=env.get("PATH"))
    if found is None:
        return [
            Check(
                "PATH",
                WARN,
                "memoir-tui is not on PATH; registrations name their program by absolute path",
            )
        ]
    return [Check("PATH", PASS, f"memoir-tui is {found}")]


# The lists memoir 3.13+ adds to a session (and this tool keeps): their presence in the
# file says a writer of that kind has been here.
LATEST_LISTS = (
    "parked_actions",
    "archived_goals",
    "archived_questions",
    "archived_decisions",
    "completed_goals",
)


def check_sharing(store: Memoir) -> list[Check]:
    """Which JavaScript memoir shares this store, as far as it can be told (its files,
    the one on PATH, the 3.13+ lists in the file), and what that means for the caps."""
    from memoir_tui.core.door.config import (
        caps_over_memoirs,
        installed_memoir_version,
        js_footprint,
        memoir_sharing_note,
    )
    from memoir_tui.core.format.session_peek import peek_session

    version = installed_memoir_version()
    footprint = js_footprint(store.root) if store.root.is_dir() else ""
    peek = peek_session(store.session_path, now=store.clock())
    current = (peek.state or {}).get("current") if isinstance(peek.state, dict) else None
    kept = [
        f"{name} ({len(current[name])})"
        for name in LATEST_LISTS
        if isinstance(current, dict) and isinstance(current.get(name), list) and current[name]
    ]
    signs = [f"its {footprint} is in the store"] if footprint else []
    if version:
        signs.append(f"memoir {version} is on PATH")
    if kept:
        signs.append("the file holds " + ", ".join(kept))
    if not footprint and not version:
        return [
            Check(
                "memoir",
                PASS,
                "no sign of the JavaScript memoir (none on PATH, none of its files here)"
                + ("; " + signs[-1] if kept else ""),
            )
        ]
    over = caps_over_memoirs(store.config.caps)
    detail = "the JavaScript memoir shares this store: " + "; ".join(signs)
    warnings = memoir_sharing_note().partition(": ")[2] if "drops" in memoir_sharing_note() else ""
    if warnings:
        return [Check("memoir", WARN, f"{detail}; {warnings}")]
    if over:
        return [
            Check(
                "memoir",
                WARN,
                f"{detail}; [caps] keep more live than it does (it keeps {', '.join(over)}): "
                "its next write trims or parks the rest",
            )
        ]
    return [Check("memoir", PASS, detail + f"; {store.config.caps_note}")]


def run_doctor(
    store: Memoir, *, home: Path, env: Mapping[str, str], project: Path | None = None
) -> list[Check]:
    checks: list[Check] = []
    for part in (
        lambda: check_store(store),
        lambda: check_permissions(store),
        lambda: check_sharing(store),
        lambda: check_recall(store, env=env),
        lambda: check_sync(store),
        lambda: check_mcp(home=home, env=env, project=project),
        lambda: check_hooks(home=home, env=env, project=project),
        lambda: check_path(env),
    ):
        try:
            checks += part()
        except Exception as exc:  # one broken check must not hide the others
            checks.append(
                Check("doctor", FAIL, f"a check failed to run: {type(exc).__name__}: {exc}")
            )
    return checks


def summary(checks: Iterable[Check]) -> tuple[int, int, int]:
    counts = {PASS: 0, WARN: 0, FAIL: 0}
    for check in checks:
        counts[check.status] += 1
    return counts[PASS], counts[WARN], counts[FAIL]
