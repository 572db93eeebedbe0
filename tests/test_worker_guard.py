"""No worker error can take the app down: every ``run_worker`` call in the package is
either the shared read idiom's (``ui/latest_read.py``) or passes
``exit_on_error=False`` and reports errors itself. Discovered by parsing the package."""

from __future__ import annotations

import ast
from pathlib import Path

import memoir_tui

PACKAGE = Path(memoir_tui.__file__).parent


def _worker_calls() -> list[tuple[str, int, ast.Call]]:
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name == "run_worker":
                    calls.append((str(path.relative_to(PACKAGE)), node.lineno, node))
    return calls


def _keeps_the_app_up(call: ast.Call) -> bool:
    return any(
        k.arg == "exit_on_error" and isinstance(k.value, ast.Constant) and k.value.value is False
        for k in call.keywords
    )


def test_every_worker_is_the_read_idiom_or_cannot_end_the_app() -> None:
    calls = _worker_calls()
    assert any(path == "ui/latest_read.py" for path, _n, _c in calls)  # it found some
    bare = [f"{path}:{line}" for path, line, call in calls if not _keeps_the_app_up(call)]
    assert bare == [], f"bare run_worker calls (use ui/latest_read.py): {bare}"


def test_the_guard_sees_a_bare_call() -> None:
    tree = ast.parse("self.run_worker(read, thread=True)")
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert not _keeps_the_app_up(call)
