"""MCP cold start: process spawn to the answer of tools/list, perfkit against a bare MCPServer.

Both servers are started alternately in one run, so machine noise hits both; the ratio of the
medians is the figure to read. Usage: python bench/bench_cold_start.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import StdioServerParameters, stdio_client
from mcp.client.session import ClientSession

HERE = Path(__file__).resolve().parent


async def time_to_tools_list(args: list[str]) -> tuple[float, int]:
    params = StdioServerParameters(command=sys.executable, args=args)
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
    samples: dict[str, list[float]] = {"perfkit": [], "bare": []}
    ntools = 0
    for _ in range(ns.repeat):
        t, ntools = anyio.run(time_to_tools_list, perfkit_args)
        samples["perfkit"].append(t)
        t, _ = anyio.run(time_to_tools_list, bare_args)
        samples["bare"].append(t)
    pk, bare = statistics.median(samples["perfkit"]), statistics.median(samples["bare"])
    print("| benchmark | perfkit | alternative | ratio |")
    print("|---|---|---|---|")
    print(
        f"| MCP cold start to tools/list ({ntools} tools), median of {ns.repeat} | {pk * 1000:.0f} ms "
        f"| bare MCPServer, no tools: {bare * 1000:.0f} ms | {pk / bare:.2f}x |"
    )


if __name__ == "__main__":
    main()
