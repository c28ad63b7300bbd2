"""Serving-benchmark result files in the shapes vLLM and SGLang write them, from simulated requests.

vLLM (`vllm bench serve`): one JSON object per run, written with json.dump (NaN and Infinity allowed);
setup first (date, backend, model and tokenizer ids, num_prompts, request_rate as the text "inf" when
unlimited, burstiness, max_concurrency), then the run's figures, then `latencies` and `queue_times`
(always) and, with --save-detailed, the per-request lists. --append-result writes runs into one file,
a newline before each but the first. With SAVE_TO_PYTORCH_BENCHMARK_FORMAT, `<stem>.pytorch.json`
holds one record per metric. SGLang (bench_serving): one JSON line per run, appended, setup keys with
the request rate as Infinity; --output-details adds the per-request lists.

The summary figures are computed here the way the benchmarks compute them (failed requests left out,
np.percentile's linear interpolation, ITL over every gap of every request), so a test can recompute
them independently of perfkit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Run:
    """One simulated run: per-request times in seconds; errors '' for a completed request."""

    ttfts: list[float]
    itls: list[list[float]]
    latencies: list[float]
    input_lens: list[int]
    output_lens: list[int]
    errors: list[str]
    duration: float

    def ok(self) -> np.ndarray:
        return np.array([e == "" for e in self.errors])


def simulate(rng: np.random.Generator, requests: int, ttft_s: float, itl_s: float, failed: int = 0) -> Run:
    out_lens = rng.integers(32, 96, requests)
    ttfts = rng.lognormal(np.log(ttft_s), 0.45, requests)
    itls = [list(rng.gamma(8.0, itl_s / 8.0, int(n) - 1)) for n in out_lens]
    errors = [""] * requests
    for i in rng.choice(requests, failed, replace=False) if failed else []:
        errors[int(i)] = "ClientConnectorError: Cannot connect to host"
        ttfts[i], itls[i], out_lens[i] = 0.0, [], 0
    latencies = [0.0 if e else float(t + sum(g)) for t, g, e in zip(ttfts, itls, errors, strict=True)]
    return Run(
        ttfts=[float(t) for t in ttfts],
        itls=[[float(x) for x in g] for g in itls],
        latencies=latencies,
        input_lens=[int(x) for x in rng.integers(200, 300, requests)],
        output_lens=[int(x) for x in out_lens],
        errors=errors,
        duration=float(max(latencies) * 1.02 + 1.0),
    )


def _stats(values: list[float], prefix: str, percentiles: tuple[float, ...]) -> dict[str, float]:
    ms = np.asarray(values or [0.0]) * 1000.0
    out = {f"mean_{prefix}_ms": float(ms.mean()), f"median_{prefix}_ms": float(np.median(ms))}
    out[f"std_{prefix}_ms"] = float(ms.std())
    for p in percentiles:
        word = str(int(p)) if int(p) == p else str(p)
        out[f"p{word}_{prefix}_ms"] = float(np.percentile(ms, p))
    return out


def figures(run: Run, percentiles: tuple[float, ...] = (99,)) -> dict[str, float]:
    """The run's summary as the benchmarks compute it: completed requests only."""
    ok = run.ok()
    ttfts = [t for t, k in zip(run.ttfts, ok, strict=True) if k]
    lat = [x for x, k in zip(run.latencies, ok, strict=True) if k]
    itls = [g for one, k in zip(run.itls, ok, strict=True) if k for g in one]
    tpots = [
        (x - t) / (n - 1)
        for x, t, n, k in zip(run.latencies, run.ttfts, run.output_lens, ok, strict=True)
        if k and n > 1
    ]
    completed = int(ok.sum())
    total_in = sum(n for n, k in zip(run.input_lens, ok, strict=True) if k)
    total_out = sum(run.output_lens)
    out: dict[str, float] = {
        "duration": run.duration,
        "completed": completed,
        "failed": len(ok) - completed,
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "request_throughput": completed / run.duration,
        "request_goodput": None,  # type: ignore[dict-item]  # vLLM writes null without --goodput
        "output_throughput": total_out / run.duration,
        "total_token_throughput": (total_in + total_out) / run.duration,
    }
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", lat)):
        out |= _stats(values, name, percentiles)
    return out


def vllm_result(run: Run, *, detailed: bool, date: str, request_rate: object = "inf", **setup: object) -> dict:
    """One run as `vllm bench serve --save-result [--save-detailed]` saves it."""
    head = {
        "date": date,
        "endpoint_type": "vllm",
        "backend": "vllm",
        "label": None,
        "model_id": "Qwen/Qwen2.5-7B-Instruct",
        "tokenizer_id": "Qwen/Qwen2.5-7B-Instruct",
        "num_prompts": len(run.ttfts),
        "request_rate": request_rate,
        "burstiness": 1.0,
        "max_concurrency": 32,
        **setup,
    }
    body = figures(run)
    body |= {"max_output_tokens_per_s": 900.0, "max_concurrent_requests": 32, "rtfx": 0.0}
    body |= {"latencies": run.latencies, "queue_times": [0.0] * len(run.latencies)}
    if detailed:
        body |= {
            "input_lens": run.input_lens,
            "output_lens": run.output_lens,
            "start_times": [0.01 * i for i in range(len(run.ttfts))],
            "ttfts": run.ttfts,
            "itls": run.itls,
            "generated_texts": ["text"] * len(run.ttfts),
            "errors": run.errors,
        }
    return head | body


def pytorch_records(result: dict) -> list[dict]:
    """What vLLM writes to `<stem>.pytorch.json` beside a result (infinities as the text 'inf')."""
    keys = [k for k in ("median_ttft_ms", "mean_ttft_ms", "p99_ttft_ms", "mean_itl_ms", "p99_itl_ms") if k in result]
    extra = {k: v for k, v in result.items() if k not in keys and not isinstance(v, list)}
    return [
        {
            "benchmark": {"name": "vLLM benchmark", "extra_info": {"args": {"request_rate": "inf", "num_prompts": 1}}},
            "model": {"name": result["model_id"]},
            "metric": {"name": k, "benchmark_values": [result[k]], "extra_info": extra},
        }
        for k in keys
    ]


def sglang_result(run: Run, *, details: bool, **setup: object) -> dict:
    """One run as SGLang's bench_serving appends it to --output-file (json.dumps: Infinity for inf)."""
    f = figures(run, percentiles=(95, 99))
    ok = run.ok()
    out = {
        "backend": "sglang",
        "dataset_name": "random",
        "request_rate": float("inf"),
        "max_concurrency": None,
        "sharegpt_output_len": None,
        "random_input_len": 256,
        "random_output_len": 64,
        "random_range_ratio": 0.0,
        **setup,
        "duration": f["duration"],
        "completed": f["completed"],
        "total_input_tokens": f["total_input_tokens"],
        "total_output_tokens": f["total_output_tokens"],
        "total_output_tokens_retokenized": f["total_output_tokens"],
        "request_throughput": f["request_throughput"],
        "input_throughput": f["total_input_tokens"] / run.duration,
        "output_throughput": f["output_throughput"],
        "mean_e2e_latency_ms": f["mean_e2el_ms"],
        "median_e2e_latency_ms": f["median_e2el_ms"],
        "std_e2e_latency_ms": f["std_e2el_ms"],
        "p99_e2e_latency_ms": f["p99_e2el_ms"],
        **{k: f[k] for k in f if k.endswith(("_ttft_ms", "_tpot_ms", "_itl_ms")) and not k.startswith("p95_tpot")},
        "concurrency": float(sum(x for x, k in zip(run.latencies, ok, strict=True) if k) / run.duration),
        "accept_length": None,
    }
    if details:
        out |= {
            "input_lens": run.input_lens,
            "output_lens": run.output_lens,
            "ttfts": run.ttfts,
            "itls": run.itls,
            "generated_texts": ["text"] * len(run.ttfts),
            "errors": run.errors,
        }
    return out


def write_vllm(path: Path, result: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return path


def append_vllm(path: Path, result: dict) -> Path:
    """--append-result: a newline before every run but the first, none at the end."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as f:
        if f.tell() != 0:
            f.write("\n")
        json.dump(result, f)
    return path


def append_sglang(path: Path, result: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(result) + "\n")
    return path
