"""CPU time of ``find_secrets`` on ordinary text (it runs on every write), against another
revision's scanner in the same process.

    .venv/bin/python bench/bench_secrets.py [--against REV] [--rounds 8]

Both scanners read the same texts (the ordinary prose, code and links of
``tests/trust/test_secrets.py``, cut to 10 KB and 100 KB), rounds alternating so drift
hits both alike; the best of each is reported (CPU time, not wall time, so other jobs on
a shared machine count less). ``--against`` loads that revision's
``memoir_tui/core/format/secrets.py`` with ``git show`` (default: the first parent of HEAD).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _load_revision(rev: str):  # type: ignore[no-untyped-def]
    source = subprocess.run(
        ["git", "show", f"{rev}:memoir_tui/core/format/secrets.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "secrets_then.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("secrets_then", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["secrets_then"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD~1", help="a git revision (default HEAD~1)")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()

    from memoir_tui.core.format import secrets as now
    from tests.trust.test_secrets import _ordinary_text

    then = _load_revision(args.against)
    texts = {size: _ordinary_text(size) for size in (10_000, 100_000)}
    best: dict[tuple[str, int], float] = {}
    for _ in range(args.rounds):
        for name, module in ((args.against, then), ("now", now)):
            for size, text in texts.items():
                for _ in range(10 if size == 10_000 else 3):
                    started = time.process_time()
                    module.find_secrets(text)
                    spent = time.process_time() - started
                    best[(name, size)] = min(best.get((name, size), float("inf")), spent)
    for size in texts:
        print(
            f"{size // 1000:>3} KB: {args.against} {best[(args.against, size)] * 1000:.3f} ms, "
            f"now {best[('now', size)] * 1000:.3f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
