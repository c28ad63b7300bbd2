"""MCP cold start: process spawn to the answer of tools/list, perfkit against a bare MCPServer.

Both servers are started alternately in one run, so machine noise hits both; the ratio of the
medians is the figure to read. perfkit answers tools/list from its cached list (perfkit.mcp_server.tool_list_cache),
written by the first start after an install or a code change; that first start is measured too,
with an empty cache folder each time. Usage: python bench/bench_cold_start.py [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import StdioServerParameters, stdio_client
from mcp.client.session import ClientSession

HERE = Path(__file__).resolve().parent


async def time_to_tools_list(args: list[str], cache: str) -> tuple[float, int]:
    env = dict(os.environ) | {"PERFKIT_CACHE_DIR": cache}
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    start = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            elapsed = time.perf_counter() - start
    return elapsed, len(tools.tools)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ns = ap.parse_args()
    perfkit_args = ["-m", "perfkit.cli", "serve"]
    bare_args = [str(HERE / "bare_server.py")]
    samples: dict[str, list[float]] = {"perfkit": [], "bare": [], "first": [], "bare_first": []}
    ntools = 0
    with tempfile.TemporaryDirectory() as warm:
        anyio.run(time_to_tools_list, perfkit_args, warm)  # the one start that fills the cache
        for i in range(ns.repeat):
            t, ntools = anyio.run(time_to_tools_list, perfkit_args, warm)
            samples["perfkit"].append(t)
            t, _ = anyio.run(time_to_tools_list, bare_args, warm)
            samples["bare"].append(t)
            if i % 3 == 0:  # a first start after an install or a code change: nothing cached yet
                with tempfile.TemporaryDirectory() as empty:
                    samples["first"].append(anyio.run(time_to_tools_list, perfkit_args, empty)[0])
                samples["bare_first"].append(anyio.run(time_to_tools_list, bare_args, warm)[0])
    med = {k: statistics.median(v) for k, v in samples.items()}
    print("| benchmark | perfkit | alternative | ratio |")
    print("|---|---|---|---|")
    print(
        f"| MCP cold start to tools/list ({ntools} tools), median of {ns.repeat} | {med['perfkit'] * 1000:.0f} ms "
        f"| bare MCPServer, no tools: {med['bare'] * 1000:.0f} ms | {med['perfkit'] / med['bare']:.2f}x |"
    )
    print(
        f"| the same, first start after an install or a code change (tool list not cached yet), median of "
        f"{len(samples['first'])} | {med['first'] * 1000:.0f} ms | bare MCPServer: {med['bare_first'] * 1000:.0f} ms "
        f"| {med['first'] / med['bare_first']:.2f}x |"
    )


if __name__ == "__main__":
    main()
