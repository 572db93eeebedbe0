"""``python -m memoir_tui.mcp [--store DIR]``: the MCP server without the CLI's parser.

The supported entry point is ``memoir-tui --mcp``; this one exists for
debugging and benchmarking the server on its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memoir_tui.mcp.server import run_server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memoir_tui.mcp")
    parser.add_argument("--store", type=Path, default=None, help="store directory")
    ns = parser.parse_args(argv)
    return run_server(ns.store)


if __name__ == "__main__":
    sys.exit(main())
