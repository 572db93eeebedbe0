"""The layers' import rules, checked on every module the package has (found, not listed).

The floors of the core, bottom first, are its folders (``FLOORS``; the tree in
docs/ARCHITECTURE.md is this table). Every import counts for them — module-level,
inside functions (lazy imports are still imports), under ``if TYPE_CHECKING:`` (a
type is a dependency too), and the ``"module:function"`` strings the core resolves
at run time (after-commit hooks, the façade's name table). The rules:

* a floor imports only the floors below it, and its own;
* no two modules import each other, however indirectly, type-only imports included;
* the faces import the core through its façade, ``memoir_tui.core``, and nothing deeper;
* no module of the core imports the façade (it would close a circle through it);
* core imports neither textual nor mcp, nor any face; the MCP server never imports
  textual or the app; the app never imports mcp; the CLI and its commands import
  neither (these four count what runs: an import under ``TYPE_CHECKING`` loads nothing);
* no face imports the lock or the atomic-write helpers: every change goes through the
  store's transaction.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deadlines import SAFETY_NET

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "memoir_tui"
PACKAGE = "memoir_tui"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module (or, for ``from m import name``, "m.name" if a module)
    line: int
    source: str = ""  # what the statement names (``from memoir_tui.core import x``: the façade)
    type_only: bool = False  # under ``if TYPE_CHECKING:``
    kind: str = "import"  # "import", or "string" for a "module:function" the code resolves


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {
    module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py")) if "__pycache__" not in p.parts
}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of every node inside an ``if TYPE_CHECKING:`` body."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                inside |= {id(n) for n in ast.walk(child)}
    return inside


# A "module:function" the core resolves at run time (an after-commit hook, a façade name).
# Faces name their lazily loaded panes the same way; those are the app's own business.
STRING_LOCATION = re.compile(r"^(memoir_tui\.core(?:\.\w+)*):\w+$")


def imports_of(module: str) -> list[Import]:
    """Every import of ``module``: runtime, lazy and type-only, and for a core module the
    ``"module:function"`` strings it resolves (``"memoir_tui.core.services.inject:…"``)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    typed = _type_checking_nodes(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[Import] = []
    for node in ast.walk(tree):
        type_only = id(node) in typed
        if isinstance(node, ast.Import):
            out += [
                Import(module, alias.name, node.lineno, alias.name, type_only)
                for alias in node.names
            ]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                candidate = f"{source}.{alias.name}"
                target = candidate if candidate in MODULES else source
                out.append(Import(module, target, node.lineno, source, type_only))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and under(module, "memoir_tui.core")
        ):
            found = STRING_LOCATION.match(node.value)
            if found and found.group(1) in MODULES:
                out.append(
                    Import(module, found.group(1), node.lineno, found.group(1), kind="string")
                )
    return out


ALL_IMPORTS = [imp for module in MODULES for imp in imports_of(module)]
# What runs: the face rules below are about what a process loads.
RUNTIME_IMPORTS = [i for i in ALL_IMPORTS if not i.type_only and i.kind == "import"]


FACES = (
    "memoir_tui.app",
    "memoir_tui.panes",
    "memoir_tui.dialogs",
    "memoir_tui.ui",
    "memoir_tui.widgets",
)
HEADLESS_FACES = ("memoir_tui.mcp", "memoir_tui.cli", "memoir_tui.commands")

RULES: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
    (
        "core imports no UI, no MCP and no face",
        ("memoir_tui.core",),
        ("textual", "rich", "mcp", "memoir_tui.mcp", *FACES, *HEADLESS_FACES[1:]),
    ),
    ("the MCP server never imports textual or the app", ("memoir_tui.mcp",), ("textual", *FACES)),
    ("the app never imports mcp", FACES, ("mcp", "memoir_tui.mcp")),
    (
        "the CLI imports neither textual nor mcp",
        ("memoir_tui.cli", "memoir_tui.commands"),
        ("textual", "mcp", "memoir_tui.mcp", *FACES),
    ),
    (
        "faces change files only through the store's transaction",
        (*FACES, *HEADLESS_FACES, "memoir_tui.__main__"),
        ("memoir_tui.core.door.lock", "memoir_tui.core.base.fsutil", "filelock"),
    ),
]


def test_the_guard_sees_every_module_and_its_lazy_imports() -> None:
    # Discovered, not listed: the faces and core are all there …
    assert {"memoir_tui.app", "memoir_tui.core.workflows.memoir", "memoir_tui.mcp.server"} <= set(
        MODULES
    )
    assert len(MODULES) > 80
    # … an import inside a function counts (the composition builds services lazily),
    # so does one under TYPE_CHECKING, and so does a hook's "module:function" string.
    found = imports_of("memoir_tui.core.workflows.memoir")
    assert "memoir_tui.core.services.trash" in {i.target for i in found}
    assert any(i.type_only for i in found)
    assert "memoir_tui.core.services.inject" in {i.target for i in found if i.kind == "string"}


@pytest.mark.parametrize("rule, sources, forbidden", RULES, ids=[r[0] for r in RULES])
def test_layer_rule(rule: str, sources: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    broken = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in RUNTIME_IMPORTS
        if under(i.module, *sources) and under(i.target, *forbidden)
    ]
    assert not broken, f"{rule}:\n" + "\n".join(broken)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for imp in ALL_IMPORTS:
        if imp.target in MODULES and imp.target != imp.module:
            graph[imp.module].add(imp.target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    # Type-only imports and resolved strings count: a cycle through them is still two
    # modules that cannot be understood (or moved) apart. A package's __init__ importing
    # its own submodules (and them importing it back) is how a package exposes its parts;
    # every other cycle is a layering mistake.
    cycles = [
        c for c in _cycles(_graph()) if not all(m == c[0] or m.startswith(c[0] + ".") for m in c)
    ]
    assert not cycles, "import cycles:\n" + "\n".join(" ↔ ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# --- the floors of the core ------------------------------------------------------------

CORE = "memoir_tui.core"
# Bottom first. A floor imports only those below it (and its own modules).
FLOORS: tuple[tuple[str, str], ...] = (
    ("base", "no memoir words: errors, file-system safety, the cache folder, git's path"),
    ("format", "the files' shapes: items, identity, session, review queue, entries, merge"),
    ("rules", "pure decisions over formats: scope, labels, the working set's model, settling"),
    ("door", "the store's owner and its one way in: transaction, lock, audit, config, hooks"),
    ("hosts", "where each assistant keeps memory, and how its files are edited"),
    ("recall", "the private index over every memory, and its search"),
    ("services", "acts on the store, each handed the door and the services it uses"),
    ("sync", "carrying a store between machines"),
    ("workflows", "the composition (open_memoir) and acts that reach across services and sync"),
    ("capture", "candidates from transcripts into the review queue"),
    ("loop", "the agent loop: brief, hooks, session start, doctor, agent view"),
    ("", "the façade: memoir_tui.core itself, its answers and the demo store"),
)
FLOOR_NAMES = tuple(name for name, _ in FLOORS)
CORE_MODULES = sorted(m for m in MODULES if under(m, CORE))


def floor_of(module: str) -> str:
    """The floor a core module stands on: its first folder under core/, or the façade."""
    rest = module[len(CORE) + 1 :] if module != CORE else ""
    first = rest.split(".", 1)[0]
    return first if first in FLOOR_NAMES else ""


def upward(imports: list[Import]) -> list[str]:
    return [
        f"{i.module}:{i.line} ({floor_of(i.module) or 'façade'}) imports {i.target} "
        f"({floor_of(i.target) or 'façade'})"
        + (" under TYPE_CHECKING" if i.type_only else "")
        + (" as a string" if i.kind == "string" else "")
        for i in imports
        if under(i.module, CORE)
        and under(i.target, CORE)
        and FLOOR_NAMES.index(floor_of(i.target)) > FLOOR_NAMES.index(floor_of(i.module))
    ]


def test_every_folder_of_the_core_is_a_floor() -> None:
    folders = {p.name for p in (PACKAGE_DIR / "core").iterdir() if (p / "__init__.py").exists()}
    assert folders == set(FLOOR_NAMES) - {""}, "a folder of core/ that FLOORS does not name"
    top_level = {p.stem for p in (PACKAGE_DIR / "core").glob("*.py")}
    assert top_level == {"__init__", "answers", "demo"}, "only the façade lives in core/ itself"


@pytest.mark.parametrize("floor", FLOOR_NAMES, ids=[f or "façade" for f in FLOOR_NAMES])
def test_a_floor_imports_only_the_floors_below(floor: str) -> None:
    below = FLOOR_NAMES[: FLOOR_NAMES.index(floor) + 1]
    broken = upward(
        [i for i in ALL_IMPORTS if under(i.module, CORE) and floor_of(i.module) == floor]
    )
    assert not broken, (
        f"{floor or 'the façade'} may import only {', '.join(f or 'façade' for f in below)}:\n"
        + "\n".join(broken)
    )


@pytest.mark.parametrize(
    "lower, higher",
    [("format", "services"), ("door", "services"), ("door", "workflows"), ("services", "")],
    ids=[
        "format never imports services",
        "the door never imports a service",
        "the door never imports the composition",
        "a service never imports the façade",
    ],
)
def test_named_floor_rules(lower: str, higher: str) -> None:
    broken = [
        f"{i.module}:{i.line} imports {i.target}"
        for i in ALL_IMPORTS
        if under(i.module, CORE)
        and floor_of(i.module) == lower
        and under(i.target, CORE)
        and floor_of(i.target) == higher
    ]
    assert not broken, "\n".join(broken)


def test_the_floor_rule_catches_an_upward_import() -> None:
    # A door module naming a service — the mistake the floors exist to catch — is found,
    # whether it is imported at run time, for types only, or named as a string.
    door, service = "memoir_tui.core.door.transaction", "memoir_tui.core.services.review"
    for imp in (
        Import(door, service, 1),
        Import(door, service, 2, type_only=True),
        Import(door, service, 3, kind="string"),
    ):
        assert upward([imp]), imp
    assert not upward([Import(service, door, 4)])


FACE_PREFIXES = (*FACES, *HEADLESS_FACES, "memoir_tui.__main__")

# Where a face reaches under the façade, and why. Empty: every name a face uses is
# exported by memoir_tui.core (a new one is added to its _WHERE table, not here).
FACADE_EXCEPTIONS: dict[str, str] = {}


def test_faces_import_the_core_through_its_facade() -> None:
    broken = [
        f"{i.module}:{i.line} imports {i.source}"
        for i in ALL_IMPORTS
        if under(i.module, *FACE_PREFIXES)
        and i.kind == "import"
        and under(i.source, CORE)
        and i.source != CORE
        and i.module not in FACADE_EXCEPTIONS
    ]
    assert not broken, "faces import `from memoir_tui.core import …` only:\n" + "\n".join(broken)


def test_no_module_of_the_core_imports_the_facade() -> None:
    broken = [
        f"{i.module}:{i.line}"
        for i in ALL_IMPORTS
        if under(i.module, CORE) and i.module != CORE and i.source == CORE and i.kind == "import"
    ]
    assert not broken, "\n".join(broken)


def _facade_table() -> dict[str, str]:
    tree = ast.parse(MODULES[CORE].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "_WHERE":
            return ast.literal_eval(node.value)
    raise AssertionError("memoir_tui/core/__init__.py has no _WHERE table")


def test_the_facade_exports_exactly_its_table_and_every_name_resolves() -> None:
    import memoir_tui.core as facade

    table = _facade_table()
    assert sorted(facade.__all__) == sorted(table)
    for name in table:
        assert getattr(facade, name) is not None, name
    # the TYPE_CHECKING block (what mypy and editors read) names the same things
    tree = ast.parse(MODULES[CORE].read_text(encoding="utf-8"))
    typed = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(CORE)
        for alias in node.names
    }
    assert typed == set(table)


def test_no_facade_name_is_shadowed_by_a_module_of_the_core() -> None:
    # Importing memoir_tui.core.capture sets the package's attribute ``capture`` to that
    # subpackage: a façade name spelled like a module of the core would then be the module.
    table = _facade_table()
    modules = {m[len(CORE) + 1 :].split(".", 1)[0] for m in CORE_MODULES if m != CORE}
    shadowed = [name for name in table if name in modules and table[name] != f"{CORE}.{name}"]
    assert not shadowed, shadowed


def test_importing_the_facade_imports_nothing_else() -> None:
    code = (
        "import sys, memoir_tui.core; "
        "print(sorted(m for m in sys.modules if m.startswith('memoir_tui.') and m != 'memoir_tui.core'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=SAFETY_NET
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
