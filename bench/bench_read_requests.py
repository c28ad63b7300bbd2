"""read_benchmark on one row per request, against the pandas groupby-quantile script a user would write.

The campaign has 10^6 request rows: two arms of five interleaved runs, 100,000 requests each, with
TTFT, ITL and end-to-end latency in ms (lognormal, the pr arm faster) and an output-token count.
The alternative reads the CSV with pandas defaults and computes the figures a serving PR quotes:
per run and per arm (pooled) the mean, p50 and p99 of the three latencies. It validates nothing and
has no intervals, tail counts, test or metric model. Both run in-process, alternately, on the same
file; the figure to read is the ratio of medians.

A last row reads serving results as vLLM saves them with --save-detailed (one JSON per run, the
per-request lists ttfts, itls, latencies, output_lens, errors): read_benchmark pools them per arm;
the alternative is json.load and numpy percentiles over the same lists, checking nothing.

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


RESULTS_ALTERNATIVE = """
import json, sys
from pathlib import Path
import numpy as np

for arm in ("baseline", "pr"):
    runs = [json.loads(p.read_text()) for p in sorted(Path(sys.argv[1], "results", arm).glob("*.json"))]
    ok = [np.array([e == "" for e in r["errors"]]) for r in runs]
    ttft = np.concatenate([np.array(r["ttfts"])[k] for r, k in zip(runs, ok)]) * 1000
    itl = np.concatenate([g for r, k in zip(runs, ok) for g, good in zip(r["itls"], k) if good]) * 1000
    e2el = np.concatenate([np.array(r["latencies"])[k] for r, k in zip(runs, ok)]) * 1000
    for v in (ttft, itl, e2el):
        figures = (v.mean(), np.percentile(v, 50), np.percentile(v, 99))
"""


def make_results(root: Path, requests: int, seed: int = 0) -> Path:
    """Two arms of five runs as `vllm bench serve --save-result --save-detailed` saves them."""
    import json

    rng = np.random.default_rng(seed)
    for run in range(1, 6):
        for arm, scale in (("baseline", 1.0), ("pr", 0.8)):
            ttft = rng.lognormal(np.log(0.3 * scale), 0.5, requests)
            tokens = rng.integers(16, 48, requests)
            itls = [rng.gamma(8.0, 0.021 / 8.0, int(n) - 1) for n in tokens]
            latencies = ttft + np.array([g.sum() for g in itls])
            ms = {
                "ttft": ttft * 1000,
                "itl": np.concatenate(itls) * 1000,
                "e2el": latencies * 1000,
                "tpot": (latencies - ttft) / (tokens - 1) * 1000,
            }
            result: dict = {"date": f"2026010{run}-120000", "backend": "vllm", "model_id": "m", "num_prompts": requests}
            result |= {"request_rate": "inf", "burstiness": 1.0, "max_concurrency": 64, "completed": requests}
            result |= {"duration": float(latencies.max()), "output_throughput": float(tokens.sum() / latencies.max())}
            for name, v in ms.items():
                result |= {f"mean_{name}_ms": float(v.mean()), f"median_{name}_ms": float(np.median(v))}
                result |= {f"std_{name}_ms": float(v.std()), f"p99_{name}_ms": float(np.percentile(v, 99))}
            result |= {
                "latencies": latencies.tolist(),
                "input_lens": [256] * requests,
                "output_lens": tokens.tolist(),
                "ttfts": ttft.tolist(),
                "itls": [g.tolist() for g in itls],
                "errors": [""] * requests,
            }
            path = root / "results" / arm / f"run{run}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(result))
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
        requests = 2_000
        camp = make_results(Path(tmp) / "results", requests)
        code = compile(RESULTS_ALTERNATIVE, "results.py", "exec")

        def from_results(camp: Path = camp) -> None:
            saved, sys.argv = sys.argv, ["results.py", str(camp)]
            try:
                exec(code, {"__name__": "alt"})
            finally:
                sys.argv = saved

        repeat = 1 if ns.quick else 5
        pk, alt = side_by_side(functools.partial(read_benchmark, str(camp)), from_results, repeat)
        rows_out.append(
            f"| read_benchmark, vLLM results saved with --save-detailed (2 arms x 5 runs x {requests:,} requests; "
            f"TTFT, ITL, TPOT, E2EL pooled per arm), median of {repeat} | {fmt(pk)} | json.load and numpy "
            f"percentiles over the lists, no checks: {fmt(alt)} | {pk / alt:.2f}x |"
        )
    print("\n".join(["| benchmark | perfkit | alternative | ratio |", "|---|---|---|---|", *rows_out]))


if __name__ == "__main__":
    main()
