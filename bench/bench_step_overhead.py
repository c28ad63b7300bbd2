"""perfkit's own cost per check run against `git bisect run`'s, with a check that costs nothing.

A generated history of 1,024 commits (optionally over a tree of many files) with a bug that lands at
one commit; the check greps one file. perfkit (bisect_start, bisect_run, bisect_reset, in this
process: its private worktree, state, lock, logs, the checkout watch and the verdict search) and
`git bisect start/run/reset` in a clone of the same history take turns, A B A B, and each whole
bisect is divided by the check runs it made. CPU is this process's and its children's (every git
and shell they started), so both sides count the same things. The ratios are per pair, quoted as
the median: the machine's speed drifts, the ratio of neighbours much less.

With --checkout-paths lib/d0 the check also reads that folder (on both sides), and perfkit is told
so (checkout_paths): its worktree then holds that folder and the top-level files, not the whole tree.

Usage: python bench/bench_step_overhead.py [--files 20000] [--repeat 5] [--commits 1024] [--checkout-paths lib/d0]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

CHECK = "if grep -q BUG src.txt; then echo FAIL; else echo PASS; fi"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def history(repo: Path, commits: int, files: int) -> tuple[str, str]:
    """commits commits; the first adds `files` small files beside src.txt; BUG lands at 2/3 of the way."""
    from perfkit.cli.demo.fastimport import Commit, write_history

    bug = commits * 2 // 3
    tree = {f"lib/d{i // 500}/f{i}.c": f"int f{i};\n" for i in range(files)}
    log = [Commit("c0", {"src.txt": "0\n", **tree}, author="b <b@example.com>")]
    for i in range(1, commits):
        log.append(Commit(f"c{i}", {"src.txt": f"{i}{' BUG' if i >= bug else ''}\n"}, author="b <b@example.com>"))
    shas = write_history(repo, log, start_time=1_700_000_000, step=1)
    return shas[0], shas[bug]


def usage() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def perfkit_once(repo: Path, good: str, culprit: str, paths: list[str] | None) -> tuple[float, float, int]:
    from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

    check = CHECK if not paths else f"ls {paths[0]} >/dev/null && {{ {CHECK}; }}"
    t, c = time.perf_counter(), usage()
    bisect_start(str(repo), good, run=check, verify_ends=False, checkout_paths=paths)
    res = bisect_run(str(repo))
    bisect_reset(str(repo))
    wall, cpu = time.perf_counter() - t, usage() - c
    assert res.culprit is not None and res.culprit.commit == culprit, res.message
    return wall, cpu, res.runs


def git_once(repo: Path, good: str, culprit: str, script: Path) -> tuple[float, float, int]:
    t, c = time.perf_counter(), usage()
    git(repo, "bisect", "start", "HEAD", good)
    out = git(repo, "bisect", "run", "sh", str(script))
    git(repo, "bisect", "reset")
    wall, cpu = time.perf_counter() - t, usage() - c
    assert f"{culprit} is the first bad commit" in out, out[-400:]
    return wall, cpu, out.count("running ")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=1024)
    ap.add_argument("--files", type=int, default=0, help="files in the tree besides the checked one")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--checkout-paths", nargs="*", default=None, help="the folders the check reads")
    args = ap.parse_args()
    paths = args.checkout_paths or None
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ["XDG_STATE_HOME"] = str(base / "state")  # perfkit's state and logs, away from the user's
        os.environ["XDG_CACHE_HOME"] = str(base / "cache")
        ours, good, culprit = base / "ours", *history(base / "ours", args.commits, args.files)
        git(base, "clone", "-q", str(ours), "theirs")
        theirs = base / "theirs"
        script = base / "check.sh"
        reads = f"ls {paths[0]} >/dev/null || exit 2\n" if paths else ""
        script.write_text(reads + "if grep -q BUG src.txt; then exit 1; fi\nexit 0\n")
        perfkit_once(ours, good, culprit, paths)  # warm-up: imports, caches, the page cache
        git_once(theirs, good, culprit, script)
        rows = []
        for _ in range(args.repeat):
            pw, pc, pr = perfkit_once(ours, good, culprit, paths)
            gw, gc, gr = git_once(theirs, good, culprit, script)
            rows.append((pw / pr, pc / pr, gw / gr, gc / gr, pr, gr))
    med = [statistics.median(r[i] for r in rows) for i in range(4)]
    wall_ratio = statistics.median(r[0] / r[2] for r in rows)
    cpu_ratio = statistics.median(r[1] / r[3] for r in rows)
    what = f"{args.commits:,} commits" + (f" over {args.files:,} files" if args.files else "")
    if paths:
        what += f", checkout_paths {' '.join(paths)} (the folder the check reads)"
    runs = f"perfkit {rows[0][4]} runs, git {rows[0][5]}"
    print("| benchmark | perfkit | alternative | ratio |")
    print("|---|---|---|---|")
    print(
        f"| wall time per check run, generated history of {what}, trivial check, start + run + reset, "
        f"median of {args.repeat} pairs ({runs}) | {med[0] * 1000:.0f} ms | `git bisect start/run/reset`: "
        f"{med[2] * 1000:.0f} ms | {wall_ratio:.2f}x |"
    )
    print(
        f"| CPU per check run (the process and every child), the same | {med[1] * 1000:.0f} ms | "
        f"`git bisect run`: {med[3] * 1000:.0f} ms | {cpu_ratio:.2f}x |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
