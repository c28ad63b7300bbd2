"""triage_builds on large generated files: perfkit's bounded diff against a whole-file difflib diff
(what perfkit did before) and against GNU `diff -u` (what a user would type).

Two builds hold a kernel file of N lines whose changed region is small (a typical regression), one
whose lines all differ, and one drawn from a handful of repeated lines (the worst case for a line
diff). Each runs in-process (difflib) or as a process (diff); the figure to read is the median and
how it grows with N: linear grows about 2x per doubling, quadratic 4x.

Usage: python bench/bench_triage_sizes.py [--sizes 5000,10000,20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import difflib
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from perfkit.triage.compare import triage_builds


def _write(root: Path, n: int) -> None:
    lines = [f"  v{i} = w{i % 97} * s{i % 13};" for i in range(n)]
    worst = [f"  u{i} = w{i % 89};" for i in range(n)]
    changed = list(lines)
    changed[n // 2 : n // 2 + 5] = [f"  v{i} = half(w{i});" for i in range(5)]
    rnd = random.Random(n)
    vocab = ["}", "", "  sync();", "  x = load(p);", "  store(q, x);", "  i += 1;"]
    for side, small, other in (("good", lines, lines), ("bad", changed, worst)):
        k = root / side / "kernels"
        k.mkdir(parents=True)
        (k / "small_change.cpp").write_text("\n".join(small) + "\n")
        (k / "all_changed.cpp").write_text("\n".join(other) + "\n")
        # generated code repeats a few lines everywhere: the worst case of a line diff
        (k / "repetitive.cpp").write_text("\n".join(rnd.choice(vocab) for _ in range(n)) + "\n")


def _whole_file_difflib(root: Path) -> None:
    """The previous approach: SequenceMatcher over every line of both files."""
    for name in ("small_change.cpp", "all_changed.cpp", "repetitive.cpp"):
        a = (root / "good" / "kernels" / name).read_text().splitlines()
        b = (root / "bad" / "kernels" / name).read_text().splitlines()
        list(difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3))


def _gnu_diff(root: Path) -> None:
    subprocess.run(["diff", "-ru", str(root / "good" / "kernels"), str(root / "bad" / "kernels")], capture_output=True)


def _ours(root: Path) -> None:
    triage_builds(str(root / "good"), str(root / "bad"), subdirs=["kernels"])


def _time(fn, root: Path, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(root)
        runs.append(time.perf_counter() - t)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5000,10000,20000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--difflib-max", type=int, default=10000, help="skip the whole-file difflib above this size")
    args = ap.parse_args()
    print("| lines per file | perfkit triage_builds (s) | whole-file difflib (s) | GNU diff -ru (s) |")
    print("|---:|---:|---:|---:|")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            _write(root, n)
            ours = _time(_ours, root, args.repeat)
            old = f"{_time(_whole_file_difflib, root, 1):.2f}" if n <= args.difflib_max else "(skipped)"
            gnu = _time(_gnu_diff, root, args.repeat)
            print(f"| {n:,} | {ours:.2f} | {old} | {gnu:.3f} |")


if __name__ == "__main__":
    main()
