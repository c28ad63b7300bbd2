"""read_benchmark against the pandas script a user would otherwise write, at 10^4, 10^5 and 10^6 rows.

The alternative reads benchmark.csv with pandas defaults and computes the same headline summary
with groupby: per-arm steady-state mean, median, stdev, p10, p90, min, max; per-run mean and
median; first step; peak memory per run; speedups against the baseline. It validates nothing and
has no intervals, test, bimodality or provenance, so it is the floor to compare against.
Both run in-process, alternately, on the same file; the figure to read is the ratio of medians.
A last row times the whole command (`perfkit read-benchmark DIR --json`) against
`python script.py DIR`, process start and imports included.

Usage: python bench/bench_read_benchmark.py [--quick] [--out docs/perf-read-benchmark.md]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from perfkit.benchmark.read import read_benchmark

ALTERNATIVE = """
import sys
import pandas as pd

df = pd.read_csv(sys.argv[1] + "/benchmark.csv")
steady = df[df.step > 1]
g = steady.groupby("arm").step_time_s
summary = pd.DataFrame({"mean": g.mean(), "median": g.median(), "std": g.std(), "min": g.min(), "max": g.max(),
                        "p10": g.quantile(0.1), "p90": g.quantile(0.9)})
per_run = steady.groupby(["arm", "run"]).step_time_s.agg(["mean", "median"])
first = df[df.step == 1].groupby("arm").step_time_s.mean()
mem = df.groupby(["arm", "run"]).peak_mem_gb.max().groupby("arm").max()
speedup_mean = summary.loc["baseline", "mean"] / summary["mean"]
speedup_median = summary.loc["baseline", "median"] / summary["median"]
if __name__ == "__main__" and "--print" in sys.argv:
    print(summary, per_run, first, mem, speedup_mean, speedup_median, sep="\\n")
"""


def make_campaign(root: Path, rows: int, seed: int = 0) -> Path:
    """Three arms, eight interleaved runs each; the baseline and one arm have 8% slow steps."""
    rng = np.random.default_rng(seed)
    arms, runs = ["baseline", "pr", "fused"], 8
    per = rows // (len(arms) * runs)
    arm = np.repeat(arms, runs * per)
    run = np.tile(np.repeat(np.arange(1, runs + 1), per), len(arms))
    step = np.tile(np.arange(1, per + 1), len(arms) * runs)
    typical = np.select([arm == "baseline", arm == "pr"], [0.91, 0.80], 0.86)
    t = typical * (1 + rng.normal(0, 0.012, len(arm)))
    slow = (arm != "pr") & (rng.random(len(arm)) < 0.08)
    t[slow] = 1.6 * (1 + rng.normal(0, 0.02, int(slow.sum())))
    t[step == 1] = 30.0 + rng.normal(0, 1, int((step == 1).sum()))
    root.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(
        {
            "arm": arm,
            "run": run,
            "step": step,
            "step_time_s": t.round(5),
            "peak_mem_gb": (60 + rng.normal(0, 0.1, len(arm))).round(2),
            "kernel_launches": rng.integers(1200, 1900, len(arm)),
        }
    ).to_csv(root / "benchmark.csv", index=False)
    return root


def time_once(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def side_by_side(a, b, repeat: int) -> tuple[float, float]:
    ta, tb = [], []
    a(), b()  # warm the page cache and the imports
    for _ in range(repeat):
        ta.append(time_once(a))
        tb.append(time_once(b))
    return statistics.median(ta), statistics.median(tb)


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--out", help="also write the markdown to this file")
    ns = ap.parse_args()
    rows_out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        script = tmp_path / "summary.py"
        script.write_text(ALTERNATIVE)
        namespace: dict = {}
        code = compile(ALTERNATIVE, str(script), "exec")
        for rows, repeat in ((10_000, 7), (100_000, 5), (1_000_000, 3)):
            if ns.quick:
                repeat = max(1, repeat // 3)
            camp = make_campaign(tmp_path / f"c{rows}", rows)
            argv = [str(script), str(camp)]

            def alternative(argv: list[str] = argv) -> None:
                saved, sys.argv = sys.argv, argv
                try:
                    exec(code, dict(namespace, __name__="alt"))
                finally:
                    sys.argv = saved

            pk, alt = side_by_side(functools.partial(read_benchmark, str(camp)), alternative, repeat)
            rows_out.append(
                f"| read_benchmark, {rows:,} rows (3 arms x 8 runs), median of {repeat} | {fmt(pk)} "
                f"| pandas groupby script, no checks: {fmt(alt)} | {pk / alt:.2f}x |"
            )
        camp = tmp_path / "c1000000"
        env = dict(os.environ)
        cli = [sys.executable, "-m", "perfkit.cli", "read-benchmark", str(camp), "--json"]
        alt_cmd = [sys.executable, str(script), str(camp)]
        run = lambda cmd: subprocess.run(cmd, check=True, capture_output=True, env=env)  # noqa: E731
        repeat = 1 if ns.quick else 3
        pk, alt = side_by_side(lambda: run(cli), lambda: run(alt_cmd), repeat)
        rows_out.append(
            f"| `perfkit read-benchmark DIR --json`, 1,000,000 rows, whole process, median of {repeat} "
            f"| {fmt(pk)} | `python script.py DIR`: {fmt(alt)} | {pk / alt:.2f}x |"
        )
    table = ["| benchmark | perfkit | alternative | ratio |", "|---|---|---|---|", *rows_out]
    print("\n".join(table))
    if ns.out:
        write_doc(Path(ns.out), table)


def write_doc(path: Path, table: list[str]) -> None:
    """The page: its fixed head, the table, then the sections it already had after the table (kept)."""
    kept = ""
    if path.exists():
        old = path.read_text()
        kept = old[old.index("\n## ") :] if "\n## " in old else ""
    text = [
        "# Performance: read_benchmark",
        "",
        "Reading and summarizing benchmark.csv, against the pandas script a user would otherwise write (read the",
        "file, `groupby` arm and run, the same headline figures). The script checks nothing and computes no",
        "intervals, test, bimodality or provenance; read_benchmark also validates every cell, looks for",
        "duplicated (arm, run, step) rows, and runs the statistics for every arm. The campaigns have three arms",
        "of eight interleaved runs, a slow-step cluster in two arms, peak memory and one extra metric.",
        "The machine is shared and noisy, so both run alternately in one process; read the ratio.",
        "The last row times whole processes, so it adds interpreter start and imports on both sides (for perfkit,",
        "the CLI loads every tool's declaration).",
        "",
        "Reproduce with `python bench/bench_read_benchmark.py --out docs/perf-read-benchmark.md`.",
        "",
        *table,
        "",
    ]
    path.write_text("\n".join(text) + kept)


if __name__ == "__main__":
    main()
