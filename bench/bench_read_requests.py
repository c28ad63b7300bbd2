"""read_benchmark on one row per request, against the pandas groupby-quantile script a user would write.

The campaign has 10^6 request rows: two arms of five interleaved runs, 100,000 requests each, with
TTFT, ITL and end-to-end latency in ms (lognormal, the pr arm faster) and an output-token count.
The alternative reads the CSV with pandas defaults and computes the figures a serving PR quotes:
per run and per arm (pooled) the mean, p50 and p99 of the three latencies. It validates nothing and
has no intervals, tail counts, test or metric model. Both run in-process, alternately, on the same
file; the figure to read is the ratio of medians.

Usage: python bench/bench_read_requests.py [--quick]
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from bench_read_benchmark import fmt, side_by_side  # the same timing and figures as the step-row benchmark
from perfkit.benchmark.read import read_benchmark

ALTERNATIVE = """
import sys
import pandas as pd

df = pd.read_csv(sys.argv[1] + "/benchmark.csv")
cols = ["ttft_ms", "itl_ms", "e2el_ms"]
per_run = df.groupby(["arm", "run"])[cols].quantile([0.5, 0.99])
per_run_mean = df.groupby(["arm", "run"])[cols].mean()
pooled = df.groupby("arm")[cols].quantile([0.5, 0.99])
pooled_mean = df.groupby("arm")[cols].mean()
change = (pooled.loc["pr"] - pooled.loc["baseline"]) / pooled.loc["baseline"] * 100
"""


def make_campaign(root: Path, rows: int, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    arms, runs = ["baseline", "pr"], 5
    per = rows // (len(arms) * runs)
    arm = np.tile(np.repeat(arms, per), runs)  # interleaved: baseline run 1, pr run 1, baseline run 2, ...
    run = np.repeat(np.arange(1, runs + 1), len(arms) * per)
    scale = np.where(arm == "pr", 0.7, 1.0)
    root.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(
        {
            "arm": arm,
            "run": run,
            "ttft_ms": (rng.lognormal(np.log(300.0), 0.6, len(arm)) * scale).round(2),
            "itl_ms": rng.normal(21.0, 2.0, len(arm)).round(3),
            "e2el_ms": (rng.lognormal(np.log(6000.0), 0.3, len(arm)) * scale).round(1),
            "output_tokens": rng.integers(128, 512, len(arm)),
        }
    ).to_csv(root / "benchmark.csv", index=False)
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ns = ap.parse_args()
    rows_out = []
    with tempfile.TemporaryDirectory() as tmp:
        code = compile(ALTERNATIVE, "summary.py", "exec")
        for rows, repeat in ((100_000, 5), (1_000_000, 5)):
            repeat = 1 if ns.quick else repeat
            camp = make_campaign(Path(tmp) / f"c{rows}", rows)

            def alternative(camp: Path = camp) -> None:
                saved, sys.argv = sys.argv, ["summary.py", str(camp)]
                try:
                    exec(code, {"__name__": "alt"})
                finally:
                    sys.argv = saved

            pk, alt = side_by_side(functools.partial(read_benchmark, str(camp)), alternative, repeat)
            rows_out.append(
                f"| read_benchmark, {rows:,} request rows (2 arms x 5 runs; mean, p50, p99 of 3 latencies), "
                f"median of {repeat} | {fmt(pk)} | pandas groupby-quantile script, no checks: {fmt(alt)} "
                f"| {pk / alt:.2f}x |"
            )
    print("\n".join(["| benchmark | perfkit | alternative | ratio |", "|---|---|---|---|", *rows_out]))


if __name__ == "__main__":
    main()
