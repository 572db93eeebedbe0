"""Guards for issue 26: every write to a path and every open of a file for reading in the
package goes through ``core/safeio.py`` (or the transaction, which stages through it).

The guards *discover* the calls by walking every module's AST: ``open()`` (by mode),
``os.open`` (by flags), ``Path.read_*``/``write_*``, ``json.load``/``tomllib.load``,
``os.replace``/``os.rename``/``Path.rename``/``Path.replace``, ``shutil`` copies and
moves, and the old ``fsutil`` write helpers. A call found outside the helpers fails
unless the short allow-list below gives the reason it is safe.
"""

from __future__ import annotations

import ast

from tests.paths import REPO

PACKAGE = REPO / "memoir_tui"

# The helpers themselves.
HELPERS = {"memoir_tui/core/base/safeio.py", "memoir_tui/core/base/fsutil.py"}

WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
FSUTIL_WRITERS = {"atomic_write_bytes", "atomic_write_text", "write_new_private", "private_file"}
SHUTIL_WRITERS = {"copy", "copy2", "copyfile", "copytree", "move", "copyfileobj"}

# (module, function) → why the write there is safe without the helper. Keep it short.
WRITE_ALLOWED: dict[tuple[str, str], str] = {
    # An exclusive create publishes a staged temp (written by safeio) by os.link, which
    # never follows a link; where hard links are missing, a rename replaces, never follows.
    ("memoir_tui/core/door/transaction.py", "_create_exclusively"): "os.link / rename of our temp",
    # The JavaScript lock protocol's files: an O_EXCL create and an O_NOFOLLOW temp named
    # by this pid (issue 25a's file).
    ("memoir_tui/core/door/lock.py", "_try_create_exclusive"): "O_EXCL lock file",
    ("memoir_tui/core/door/lock.py", "_link_lock"): "O_NOFOLLOW temp of this pid",
    # Rotation renames within the store after write_target checked each destination.
    ("memoir_tui/core/door/audit.py", "_rotate"): "rename replaces a link, checked first",
    # Copies kept aside of a damaged session: O_EXCL (never follows, never replaces).
    ("memoir_tui/core/format/session.py", "_copy_aside"): "O_EXCL copy beside the file",
    # The recall index: write_target checks the path, then SQLite opens it.
    ("memoir_tui/core/recall/index.py", "_open"): "checked by write_target just above",
    # Sync keeps its own bare git copy under the user data folder (issue 25a's files).
    ("memoir_tui/core/sync/*", "*"): "the sync copy, ours alone; issue 25a",
    # The demo copies the package's bundled store into a folder mkdtemp just made.
    ("memoir_tui/core/demo.py", "_copy_tree"): "a fresh mkdtemp folder",
    # A detached child's stdio goes to os.devnull.
    ("memoir_tui/core/recall/service.py", "revalidate_detached"): "os.devnull",
    # A reader gone (EPIPE): stdout is pointed at os.devnull.
    ("memoir_tui/cli.py", "reader_gone"): "os.devnull",
    ("memoir_tui/commands/recall.py", "_write"): "os.devnull",
    # The lock's FIFO ticket queue (issue 25): empty O_NOFOLLOW files in the private
    # 0700 ``session.json.queue/`` folder, made only to be flocked and renamed there.
    ("memoir_tui/core/door/lock.py", "_draw_ticket"): "O_NOFOLLOW ticket, renamed in the queue",
    ("memoir_tui/core/door/lock.py", "_note_js_seen"): "O_NOFOLLOW empty marker in the queue",
    ("memoir_tui/core/door/lock.py", "_leave_a_gap"): "O_NOFOLLOW empty marker in the queue",
    # A journal never applied is renamed aside in the store: a rename never follows a link.
    ("memoir_tui/core/door/transaction.py", "_set_aside"): "rename within the store",
    # The concept model's download: an O_EXCL ("xb") part, renamed over the name.
    ("memoir_tui/core/recall/semantic.py", "fetch_model"): "O_EXCL part, then rename",
}

# Reads outside safeio that cannot hang.
READ_ALLOWED: dict[tuple[str, str], str] = {
    # Opened O_NOFOLLOW | O_NONBLOCK only to take or probe an flock, never read.
    ("memoir_tui/core/door/lock.py", "_wait_for_turn"): "a queue ticket's flock",
    ("memoir_tui/core/door/lock.py", "sweep_queue"): "a queue ticket's flock",
    ("memoir_tui/core/loop/doctor.py", "_flock_held"): "an flock probe",
    ("memoir_tui/core/sync/*", "*"): "the sync copy (issue 25a): git files it wrote",
    ("memoir_tui/core/demo.py", "_copy_tree"): "the package's own bundled demo files",
}


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        out.append((rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)))
    return out


def _names(node: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)} | {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name)
    }


def _receiver(call: ast.Call) -> str:
    func = call.func
    return ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""


def _is_transaction(call: ast.Call, rel: str = "") -> bool:
    """``tx.read_bytes``/``tx.write_text``…: the transaction, which stages via safeio."""
    receiver = _receiver(call)
    if receiver == "self" and rel == "memoir_tui/core/door/transaction.py":
        return True
    return receiver == "tx" or receiver.endswith(".tx") or receiver == "self.tx"


def _open_mode(call: ast.Call) -> str:
    mode: ast.AST | None = call.args[1] if len(call.args) > 1 else None
    for kw in call.keywords:
        if kw.arg == "mode":
            mode = kw.value
    if mode is None:
        return "r"
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "?"


def _classify(call: ast.Call, rel: str = "") -> str | None:
    """'write', 'read' or None for a call."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    receiver = _receiver(call)
    if isinstance(func, ast.Name) and name == "open":
        mode = _open_mode(call)
        return "write" if set(mode) & set("wax+?") else "read"
    if name == "open" and receiver in ("os", "io"):
        if receiver == "io":
            return "write" if set(_open_mode(call)) & set("wax+?") else "read"
        flags = _names(call.args[1]) if len(call.args) > 1 else set()
        return "write" if flags & WRITE_FLAGS else "read"
    if name == "open" and isinstance(func, ast.Attribute) and receiver not in ("os", "io"):
        # Path.open(mode) (crypto's ``keys.open(path, blob, version)`` decrypts: 3 args)
        if len(call.args) <= 1:
            mode = call.args[0] if call.args else None
            for kw in call.keywords:
                if kw.arg == "mode":
                    mode = kw.value
            text = mode.value if isinstance(mode, ast.Constant) else ("r" if mode is None else "?")
            return "write" if set(str(text)) & set("wax+?") else "read"
        return None
    if name in ("write_text", "write_bytes"):
        return None if _is_transaction(call, rel) else "write"
    if name in ("read_text", "read_bytes"):
        return None if _is_transaction(call, rel) else "read"
    if name in ("load",) and receiver in ("json", "tomllib"):
        return "read"
    if name in ("replace", "rename") and receiver == "os":
        return "write"
    if name in ("rename",) and receiver not in ("os",) and len(call.args) == 1:
        return "write"
    if name == "replace" and len(call.args) == 1 and not call.keywords:
        return "write"  # Path.replace(target); str.replace takes two arguments
    if receiver == "shutil" and name in SHUTIL_WRITERS:
        return "write"
    if name in FSUTIL_WRITERS:
        return "write"
    return None


def _calls(kind: str) -> list[tuple[str, str, int, str]]:
    found = []
    for rel, tree in _modules():
        if rel in HELPERS:
            continue
        stack: list[tuple[ast.AST, str]] = [(tree, "<module>")]
        while stack:
            node, fn = stack.pop()
            for child in ast.iter_child_nodes(node):
                inner = fn
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    inner = child.name
                if isinstance(child, ast.Call) and _classify(child, rel) == kind:
                    found.append((rel, inner, child.lineno, ast.unparse(child)[:90]))
                stack.append((child, inner))
    return found


def _allowed(table: dict[tuple[str, str], str], rel: str, fn: str) -> bool:
    for (module, function), _why in table.items():
        module_ok = rel == module or (module.endswith("/*") and rel.startswith(module[:-1]))
        if module_ok and function in ("*", fn):
            return True
    return False


def test_every_write_goes_through_safeio():
    stray = [
        f"{rel}:{line} in {fn}: {code}"
        for rel, fn, line, code in _calls("write")
        if not _allowed(WRITE_ALLOWED, rel, fn)
    ]
    assert not stray, "writes outside core/safeio.py:\n" + "\n".join(stray)


def test_every_open_for_reading_goes_through_safeio():
    stray = [
        f"{rel}:{line} in {fn}: {code}"
        for rel, fn, line, code in _calls("read")
        if not _allowed(READ_ALLOWED, rel, fn)
    ]
    assert not stray, "reads outside core/safeio.py:\n" + "\n".join(stray)


def test_the_guards_see_what_they_guard():
    """The classifier finds a planted write and read of each form (so a guard that found
    nothing would be a guard that cannot fail)."""
    sample = ast.parse(
        "open(p, 'w')\nopen(p)\nos.open(p, os.O_WRONLY | os.O_CREAT)\nos.open(p, os.O_RDONLY)\n"
        "p.write_text(s)\np.read_bytes()\ntx.write_text(p, s)\nos.replace(a, b)\n"
        "shutil.copy(a, b)\njson.load(fh)\np.replace(q)\ns.replace('a', 'b')\n"
        "atomic_write_bytes(p, b)\np.open('a')\n"
    )
    kinds = [_classify(n) for n in ast.walk(sample) if isinstance(n, ast.Call)]
    kinds = [k for k in kinds if k]
    assert kinds.count("write") == 8 and kinds.count("read") == 4, kinds


def test_every_allowed_entry_still_names_a_call():
    """An allow-list entry whose call is gone is removed, so the list stays short."""
    writes = {(rel, fn) for rel, fn, _l, _c in _calls("write")}
    reads = {(rel, fn) for rel, fn, _l, _c in _calls("read")}
    stale = [
        key
        for table, seen in ((WRITE_ALLOWED, writes), (READ_ALLOWED, reads))
        for key in table
        if not any(_allowed({key: ""}, rel, fn) for rel, fn in seen)
    ]
    assert not stale, f"allow-list entries that match no call: {stale}"
