"""The CPU of a `perfkit --help` start against `python -c 'import mcp'` (what any MCP server pays first).

Both run as whole processes from this interpreter's environment, taking turns A B A B, and each
process's user and system time is read from the operating system when it is reaped; the ratio is
taken pair by pair and quoted as the median. A warm-up run of each fills the page cache and
perfkit's command list on disk.

Usage: python bench/bench_cli_start.py [--runs 7] [--command='bisect-run --help']
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys


def cpu_of(argv: list[str]) -> float:
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped here
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--command", default="--help", help="perfkit's arguments, as one string")
    args = ap.parse_args()
    ours = [sys.executable, "-c", "import sys; from perfkit.cli import main; sys.exit(main())", *args.command.split()]
    theirs = [sys.executable, "-c", "import mcp"]
    cpu_of(ours), cpu_of(theirs)
    pairs = [(cpu_of(ours), cpu_of(theirs)) for _ in range(args.runs)]
    a = statistics.median(p[0] for p in pairs)
    b = statistics.median(p[1] for p in pairs)
    r = statistics.median(p[0] / p[1] for p in pairs)
    print("| benchmark | perfkit | alternative | ratio |")
    print("|---|---|---|---|")
    print(
        f"| `perfkit {args.command}`, CPU of the whole process, median of {args.runs} pairs | "
        f"{a * 1000:.0f} ms | `python -c 'import mcp'`: {b * 1000:.0f} ms | {r:.2f}x |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
