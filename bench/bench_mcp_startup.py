"""Start-up and warm latency of ``memoir-tui --mcp`` against a bare SDK server (the floor).

    .venv/bin/python bench/bench_mcp_startup.py [--runs 10] [--calls 200] [--json]

* start-up: spawn → initialize → first ``tools/list`` reply, measured by the
  SDK's stdio client, for our server (``python -m memoir_tui --mcp``) and for a
  bare ``MCPServer`` with one tool (written inline below). The runs alternate
  between the two so drift hits both alike. Shutdown is not counted.
* warm latency: one spawned server, a few warm-up calls, then ``--calls``
  sequential round trips of ``memoir_status`` (read), of ``memoir_add_next``
  (a locked write) and of the floor's one tool.
* import: ``import memoir_tui.mcp.server`` vs ``import mcp.server.mcpserver``
  in a fresh interpreter, the bulk of start-up.

Everything runs on scratch directories: HOME and MEMOIR_HOME point at a temp
dir, so the real store is never touched.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[1]

FLOOR_SERVER = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("floor")


@server.tool()
def ping() -> str:
    """Reply pong."""
    return "pong"


server.run("stdio")
'''


def _env(scratch: Path) -> dict[str, str]:
    return {
        "HOME": str(scratch / "home"),
        "MEMOIR_HOME": str(scratch / "store"),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(REPO),
        "MEMOIR_TUI_LOG_LEVEL": "WARNING",
    }


def ours(scratch: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memoir_tui", "--mcp"], env=_env(scratch), cwd=REPO
    )


def floor(scratch: Path) -> StdioServerParameters:
    script = scratch / "floor_server.py"
    script.write_text(FLOOR_SERVER, encoding="utf-8")
    return StdioServerParameters(
        command=sys.executable, args=[str(script)], env=_env(scratch), cwd=REPO
    )


@asynccontextmanager
async def session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    with open(os.devnull, "w") as devnull:
        async with (
            stdio_client(params, errlog=devnull) as (read, write),
            ClientSession(read, write, read_timeout_seconds=60) as s,
        ):
            yield s


async def startup_ms(params: StdioServerParameters) -> float:
    started = time.perf_counter()
    async with session(params) as s:
        await s.initialize()
        tools = await s.list_tools()
        elapsed = (time.perf_counter() - started) * 1000
        assert tools.tools
    return elapsed


async def warm_ms(params: StdioServerParameters, tool: str, calls: int, vary: bool) -> list[float]:
    samples = []
    async with session(params) as s:
        await s.initialize()
        for i in range(5):
            await s.call_tool(tool, {"text": f"warm-up {i}"} if vary else {})
        for i in range(calls):
            args = {"text": f"bench write {i}"} if vary else {}
            started = time.perf_counter()
            result = await s.call_tool(tool, args)
            samples.append((time.perf_counter() - started) * 1000)
            assert not result.is_error, result.content
    return samples


def import_ms(module: str, runs: int = 5) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = [
        float(
            subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                check=True,
                cwd=REPO,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            ).stdout
        )
        * 1000
        for _ in range(runs)
    ]
    return statistics.median(out)


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))],
        "min": ordered[0],
        "max": ordered[-1],
        "n": len(ordered),
    }


async def main_async(runs: int, calls: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="memoir-bench-") as tmp:
        scratch = Path(tmp)
        (scratch / "home").mkdir()
        (scratch / "store").mkdir()
        # A cap above the write count, so every add_next appends.
        (scratch / "store" / "memoir-tui.toml").write_text(
            f"[caps]\nnext_actions = {calls + 100}\n", encoding="utf-8"
        )
        our_params, floor_params = ours(scratch), floor(scratch)
        await startup_ms(our_params)  # one untimed run each: warm the page cache
        await startup_ms(floor_params)
        start_ours, start_floor = [], []
        for _ in range(runs):
            start_ours.append(await startup_ms(our_params))
            start_floor.append(await startup_ms(floor_params))
        status = await warm_ms(our_params, "memoir_status", calls, vary=False)
        writes = await warm_ms(our_params, "memoir_add_next", calls, vary=True)
        ping = await warm_ms(floor_params, "ping", calls, vary=False)
    return {
        "python": platform.python_version(),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "startup_ours_ms": summary(start_ours),
        "startup_floor_ms": summary(start_floor),
        "warm_memoir_status_ms": summary(status),
        "warm_memoir_add_next_ms": summary(writes),
        "warm_floor_ping_ms": summary(ping),
        "import_memoir_tui_mcp_server_ms": import_ms("memoir_tui.mcp.server"),
        "import_mcp_server_mcpserver_ms": import_ms("mcp.server.mcpserver"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="start-up runs per server")
    parser.add_argument("--calls", type=int, default=200, help="warm calls per tool")
    parser.add_argument("--json", action="store_true", help="print the raw results as JSON")
    ns = parser.parse_args()
    results = asyncio.run(main_async(ns.runs, ns.calls))
    if ns.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"python {results['python']}, {results['machine']}")
    print("| measure | median ms | p95 ms | min ms | max ms | n |")
    print("|---|---:|---:|---:|---:|---:|")
    for key, label in [
        ("startup_ours_ms", "start-up → first tools/list: memoir-tui --mcp"),
        ("startup_floor_ms", "start-up → first tools/list: bare SDK server (floor)"),
        ("warm_memoir_status_ms", "warm call: memoir_status"),
        ("warm_memoir_add_next_ms", "warm call: memoir_add_next (locked write)"),
        ("warm_floor_ping_ms", "warm call: floor ping"),
    ]:
        s = results[key]
        assert isinstance(s, dict)
        print(
            f"| {label} | {s['median']:.1f} | {s['p95']:.1f} | {s['min']:.1f} | "
            f"{s['max']:.1f} | {s['n']:.0f} |"
        )
    print(
        f"import memoir_tui.mcp.server: {results['import_memoir_tui_mcp_server_ms']:.0f} ms; "
        f"import mcp.server.mcpserver: {results['import_mcp_server_mcpserver_ms']:.0f} ms "
        "(median of 5 fresh interpreters)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
