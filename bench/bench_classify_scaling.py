"""classify_changes' time against the number of changed lines, and the share spent after the work.

A generated repository per size: Python modules of 200 lines under src/, and one delivery commit
that rewrites half the lines of each module in hunks of 5 (a flag read from the environment, a
default changed, a call renamed, a comment added), so 10^3, 10^4 and 10^5 changed lines are 10, 101
and 1,010 files (--one-file puts them all in one module). classify_changes runs through its
ToolSpec, as the MCP server and the CLI call it, in a child process per size and tree (--before
exports an older tree with git archive); the time is that process's CPU time (git's own time is in
its children and left out), best of --repeat, so other load on a shared machine does not inflate
it. The child also times the steps after the core function returns (the result made displayable,
the list cap, the finiteness check), so the table shows how much of the call they take.

The growth is printed per tenfold of changed lines and as the exponent k of n^k (linear is 1.0;
a tenfold is 3.32 doublings, so k = log10(ratio) and the ratio per doubling is 2^k).
Usage: python bench/bench_classify_scaling.py [--sizes 1000,10000,100000] [--repeat N] [--before SHA] [--one-file]
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
LINES_PER_FILE = 200

CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from perfkit.registry import all_tools
from perfkit.tools import spec as spec_mod
spec = next(s for s in all_tools() if s.name == "classify_changes")
after = [0.0]
depth = [0]
def timed(f):
    def g(*a, **k):
        depth[0] += 1
        t = time.process_time()
        try:
            return f(*a, **k)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                after[0] += time.process_time() - t
    return g
for name in ("displayable_result", "cap_lists", "_non_finite", "_scan"):  # this tree's and --before's
    if hasattr(spec_mod, name):
        setattr(spec_mod, name, timed(getattr(spec_mod, name)))
best = None
for _ in range(int(sys.argv[4])):
    after[0] = 0.0
    t = time.process_time()
    r = spec.call({"repo": sys.argv[2], "base": "base", "head": sys.argv[3]})
    t = time.process_time() - t
    if best is None or t < best[0]:
        best = (t, after[0])
hunks = sum(len(f.hunks) for c in r.commits for f in c.files)
print(best[0], best[1], hunks)
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True, env=ENV)


def module(i: int, changed: bool, lines: int) -> str:
    """A module of lines lines; when changed, half of them rewritten in hunks of 5."""
    out = ["import os", ""]
    for j in range(lines - 2):
        hunk, k = divmod(j, 10)  # hunks of 5 changed lines, 5 unchanged between
        if not changed or k >= 5:
            out.append(f"value_{i}_{j} = compute({i}, {j}, scale=1)")
        elif k == 0:
            out.append(f"value_{i}_{j} = os.environ.get('MOD_{i}_FLAG_{j}', '0')")
        elif k == 1:
            out.append(f"value_{i}_{j} = compute({i}, {j}, scale=2)")
        elif k == 2:
            out.append(f"value_{i}_{j} = compute_fast({i}, {j}, scale=1)")
        else:
            out.append(f"value_{i}_{j} = compute({i}, {j}, scale=1)  # checked {hunk}")
    return "\n".join(out) + "\n"


def build(path: Path, changed_lines: int, one_file: bool) -> None:
    lines = 2 * changed_lines + 2 if one_file else LINES_PER_FILE
    files = 1 if one_file else max(1, changed_lines * 2 // (LINES_PER_FILE - 2))
    git(path, "init", "-q", "-b", "main")
    src = path / "src"
    src.mkdir()
    for i in range(files):
        (src / f"mod_{i:04d}.py").write_text(module(i, False, lines))
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")
    git(path, "tag", "base")
    for i in range(files):
        (src / f"mod_{i:04d}.py").write_text(module(i, True, lines))
    git(path, "commit", "-q", "-am", "Read the flags and use compute_fast (#12)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", help="also time the tree at this commit (exported with git archive)")
    ap.add_argument("--one-file", action="store_true", help="every changed line in one file")
    ns = ap.parse_args()
    sizes = [int(s) for s in ns.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        trees = [("this tree", ROOT / "server")]
        if ns.before:
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", ns.before, "server"], capture_output=True, check=True
            )
            (Path(tmp) / "before").mkdir()
            subprocess.run(["tar", "-x", "-C", str(Path(tmp) / "before")], input=archive.stdout, check=True)
            trees.append((ns.before, Path(tmp) / "before" / "server"))
        repos = []
        for n in sizes:
            repo = Path(tmp) / f"r{n}"
            repo.mkdir()
            build(repo, n, ns.one_file)
            repos.append((n, repo))
        for label, src in trees:
            table(label, src, repos, ns.repeat)
    return 0


def table(label: str, src: Path, repos: list[tuple[int, Path]], repeat: int) -> None:
    print(f"\n{label}\n")
    print("| changed lines | hunks | classify_changes (ToolSpec.call) | of which after the core | growth | n^k |")
    print("|---|---|---|---|---|---|")
    prev: tuple[int, float] | None = None
    for n, repo in repos:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(src), str(repo), "HEAD", str(repeat)],
            capture_output=True,
            text=True,
            timeout=3600,
        )
        if out.returncode != 0:
            raise SystemExit(out.stderr[-2000:])
        t, after, hunks = out.stdout.split()
        total, post = float(t), float(after)
        growth = k = "-"
        if prev is not None:
            ratio = total / prev[1]
            k_val = math.log(ratio) / math.log(n / prev[0])
            growth, k = f"{ratio:.1f}x for {n / prev[0]:g}x the lines", f"{k_val:.2f}"
        print(
            f"| {n:,} | {int(hunks):,} | {total:.2f} s | {post:.2f} s ({post / total:.0%}) | {growth} | {k} |",
            flush=True,
        )
        prev = (n, total)


if __name__ == "__main__":
    raise SystemExit(main())
