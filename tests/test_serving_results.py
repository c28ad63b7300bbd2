"""Serving results read exactly as vLLM and SGLang save them, through MCP and the CLI.

The campaigns are written the way the benchmarks write them (tests/helpers/serving_files.py): one
JSON object per run, several in one file with --append-result, per-request lists with
--save-detailed or --output-details, the `.pytorch.json` companion beside each result, the
request rate as "inf" or Infinity. Every expected figure is recomputed here from the simulated
requests with numpy and pandas, never read from perfkit's answer.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import anyio
import numpy as np
import pandas as pd
import pytest
from helpers.procs import perfkit
from helpers.serving_files import (
    Run,
    append_sglang,
    append_vllm,
    pytorch_records,
    sglang_result,
    simulate,
    vllm_result,
    write_vllm,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from perfkit.benchmark.read import read_benchmark
from perfkit.mcp_server.server import build_server

RUNS = 5
REQUESTS = 240
ARMS = (("baseline", 0.30, 0.0200), ("pr", 0.21, 0.0207))  # the PR: faster first token, slightly slower ITL


def _call(args: dict):
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return await client.call_tool("read_benchmark", args)

    return anyio.run(go)


def _runs(seed: int = 3) -> dict[str, list[Run]]:
    rng = np.random.default_rng(seed)
    out: dict[str, list[Run]] = {name: [] for name, _, _ in ARMS}
    for k in range(RUNS):  # interleaved: baseline run 1, pr run 1, baseline run 2, ...
        for name, ttft, itl in ARMS:
            out[name].append(simulate(rng, REQUESTS, ttft, itl, failed=2 if k == 1 else 0))
    return out


def _ms(runs: list[Run], key: str) -> np.ndarray:
    """Every completed request's value in ms, pooled over runs (ITL: every gap of every request)."""
    if key == "itl":
        return np.array([g for r in runs for one, ok in zip(r.itls, r.ok(), strict=True) if ok for g in one]) * 1000
    values = {"ttft": "ttfts", "e2el": "latencies"}[key]
    return np.array([v for r in runs for v, ok in zip(getattr(r, values), r.ok(), strict=True) if ok]) * 1000


def _coverage(pooled: np.ndarray, q: float, low: float, high: float) -> float:
    """P(x(l) <= true q-quantile < x(u)) for the ranks of low and high: sum of Binomial(n, q) terms."""
    x = np.sort(pooled)
    n = len(x)
    l_rank = int(np.searchsorted(x, low, side="left")) + 1  # 1-based order statistics
    u_rank = int(np.searchsorted(x, high, side="left")) + 1
    assert x[l_rank - 1] == low and x[u_rank - 1] == high

    def pmf(k: int) -> float:  # in logs: n is the pooled count, tens of thousands of token gaps
        return math.exp(
            math.lgamma(n + 1)
            - math.lgamma(k + 1)
            - math.lgamma(n - k + 1)
            + k * math.log(q)
            + (n - k) * math.log1p(-q)
        )

    return sum(pmf(k) for k in range(l_rank, u_rank))


def _vllm_campaign(root: Path, runs: dict[str, list[Run]], *, detailed=lambda arm, k: True, companion=True) -> Path:
    for name, arm_runs in runs.items():
        for k, run in enumerate(arm_runs, 1):
            result = vllm_result(run, detailed=detailed(name, k), date=f"2025030{k}-10{15 + k}00")
            stem = f"vllm-infqps-concurrency32-Qwen2.5-7B-Instruct-run{k}"  # vLLM's own file names
            write_vllm(root / "results" / name / f"{stem}.json", result)
            if companion:
                (root / "results" / name / f"{stem}.pytorch.json").write_text(json.dumps(pytorch_records(result)))
    return root


def test_vllm_detailed_results_are_pooled_over_requests_over_mcp(tmp_path):
    runs = _runs()
    campaign = _vllm_campaign(tmp_path / "c", runs)
    out = _call({"campaign_dir": str(campaign)})
    assert not out.is_error, out.content[0].text
    s = out.structured_content
    assert s["shape"] == "runs" and len(s["result_files"]) == 2 * RUNS
    assert not any(f.endswith(".pytorch.json") for f in s["result_files"])
    companions = [n for n in s["notes"] if ".pytorch.json" in n]
    assert len(companions) == 2 * RUNS and all("left aside" in n and "PyTorch" in n for n in companions)
    failed = [n for n in s["notes"] if "requests failed" in n]
    assert len(failed) == 2 and all("run2" in n and "2 of 240" in n for n in failed)
    by_key = {m["key"]: m for m in s["metrics"]}
    for key, quantity, q in (
        ("p99_ttft_ms", "ttft", 0.99),
        ("median_itl_ms", "itl", 0.5),
        ("p99_e2el_ms", "e2el", 0.99),
    ):
        m = by_key[key]
        assert m["basis"] == "pooled_requests", key
        for arm in ("baseline", "pr"):
            pooled = _ms(runs[arm], quantity)
            side = m["baseline" if arm == "baseline" else "candidate"]
            est = side["estimate"]
            assert est["value"] == pytest.approx(np.percentile(pooled, q * 100)), key
            assert side["samples"] == len(pooled)
            assert est["ci_low"] <= est["value"] <= est["ci_high"]
            assert _coverage(pooled, q, est["ci_low"], est["ci_high"]) >= 0.95
            per_run = [np.percentile(_ms([r], quantity), q * 100) for r in runs[arm]]
            assert side["per_run"] == pytest.approx(per_run)
    itl = by_key["mean_itl_ms"]
    assert itl["baseline"]["estimate"]["value"] == pytest.approx(_ms(runs["baseline"], "itl").mean())
    assert itl["outcome"] == "worse" and by_key["p99_ttft_ms"]["outcome"] == "better"
    tpot = by_key["mean_tpot_ms"]
    expect = [
        (lat - t) / (n - 1) * 1000
        for r in runs["pr"]
        for lat, t, n, ok in zip(r.latencies, r.ttfts, r.output_lens, r.ok(), strict=True)
        if ok and n > 1
    ]
    assert tpot["basis"] == "pooled_requests" and tpot["candidate"]["estimate"]["value"] == pytest.approx(
        np.mean(expect)
    )
    thr = by_key["output_throughput"]
    frame = pd.DataFrame(
        [
            {"arm": p.parent.name, **json.loads(p.read_text())}
            for p in sorted((campaign / "results").glob("*/*.json"))
            if not p.name.endswith(".pytorch.json")
        ]
    )
    assert thr["basis"] == "mean_of_runs"
    assert thr["candidate"]["estimate"]["value"] == pytest.approx(frame[frame.arm == "pr"]["output_throughput"].mean())
    assert thr["candidate"]["run_ids"] == [1, 2, 3, 4, 5]  # the companions are not a sixth run
    keys = {m["key"] for m in s["metric_model"]}
    assert not keys & {"request_rate", "num_prompts", "max_concurrency", "burstiness", "request_goodput"}
    setup = {a["arm"]: {(v["key"], json.dumps(v["value"])): v for v in a["values"]} for a in s["setup"]}
    prompts = setup["pr"][("num_prompts", str(REQUESTS))]
    assert prompts["every_run"] and prompts["runs"] == RUNS and len(prompts["files"]) == RUNS
    assert setup["baseline"][("request_rate", '"inf"')]["every_run"]
    assert setup["baseline"][("max_concurrency", "32")]["every_run"]
    dates = [v for (k, _), v in setup["pr"].items() if k == "date"]
    assert len(dates) == RUNS and not any(v["every_run"] for v in dates)


def test_vllm_appended_results_some_not_detailed_on_the_cli(tmp_path):
    runs = _runs(seed=5)
    campaign = tmp_path / "c"
    for name, arm_runs in runs.items():
        for k, run in enumerate(arm_runs, 1):  # run 3 of the pr arm saved without --save-detailed
            detailed = not (name == "pr" and k == 3)
            rate = float("inf") if k % 2 else "inf"  # older vLLM wrote the float: Infinity
            append_vllm(
                campaign / "results" / name / "serve.json",
                vllm_result(run, detailed=detailed, date="d", request_rate=rate),
            )
    text = (campaign / "results" / "pr" / "serve.json").read_text()
    assert not text.endswith("\n") and text.count("\n") == RUNS - 1 and "Infinity" in text
    proc = perfkit("read-benchmark", str(campaign), "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert s["result_files"] == ["results/baseline/serve.json", "results/pr/serve.json"]
    by_key = {m["key"]: m for m in s["metrics"]}
    ttft = by_key["p99_ttft_ms"]
    assert (
        ttft["basis"] == "mean_of_runs" and "run 3 of arm 'pr'" in ttft["basis_note"] and "ttfts" in ttft["basis_note"]
    )
    rows = [
        {"arm": p.parent.name, **json.loads(line)}
        for p in sorted((campaign / "results").glob("*/serve.json"))
        for line in p.read_text().splitlines()
    ]
    means = pd.DataFrame(rows).groupby("arm")["p99_ttft_ms"].mean()
    assert ttft["baseline"]["estimate"]["value"] == pytest.approx(means["baseline"])
    assert ttft["change_pct"] == pytest.approx((means["pr"] - means["baseline"]) / means["baseline"] * 100)
    rates = [v for a in s["setup"] for v in a["values"] if v["key"] == "request_rate"]
    assert {v["value"] for v in rates} == {"inf", "Infinity"}  # each as written; neither is a metric
    assert any("serve.json line 3" in f for v in rates for f in v["files"])  # runs named by their line
    human = perfkit("read-benchmark", str(campaign), timeout=120)
    assert human.returncode == 0 and "TTFT p99" in human.stdout


def test_sglang_jsonl_with_output_details(tmp_path):
    runs = _runs(seed=9)
    campaign = tmp_path / "c"
    for name, arm_runs in runs.items():
        for run in arm_runs:
            append_sglang(campaign / "results" / name / "sglang_bench.jsonl", sglang_result(run, details=True))
    text = (campaign / "results" / "pr" / "sglang_bench.jsonl").read_text()
    assert '"request_rate": Infinity' in text and '"max_concurrency": null' in text
    s = read_benchmark(str(campaign))
    by_key = {m.key: m for m in s.metrics}
    for key, q in (("p95_itl_ms", 0.95), ("p99_itl_ms", 0.99)):
        m = by_key[key]
        pooled = _ms(runs["pr"], "itl")
        assert m.basis == "pooled_requests" and m.candidate.estimate.value == pytest.approx(
            np.percentile(pooled, q * 100)
        )
        assert m.candidate.samples == len(pooled) and "token gaps" in m.candidate.estimate.method
    e2e = by_key["mean_e2e_latency_ms"]
    assert e2e.basis == "mean_of_runs"  # SGLang saves no per-request latencies: the per-run means
    assert {"concurrency", "completed", "duration"} <= {u.column for u in s.uninferred}
    shared = {v.key: v for a in s.setup if a.arm == "pr" for v in a.values}
    assert shared["random_input_len"].value == 256 and shared["random_input_len"].every_run
    assert shared["request_rate"].value == "Infinity" and shared["max_concurrency"].value is None
    assert s.warnings == []


# ---- one number rule, in every reader, naming file and line


def _result_text(**changes) -> str:
    rng = np.random.default_rng(1)
    result = vllm_result(simulate(rng, 12, 0.3, 0.02), detailed=True, date="d") | changes
    return json.dumps(result)


def _results_campaign(root: Path, bad: str, name: str = "run3.json") -> Path:
    rng = np.random.default_rng(2)
    for arm in ("baseline", "pr"):
        for k in range(1, 5):
            path = root / "results" / arm / f"run{k}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(vllm_result(simulate(rng, 12, 0.3, 0.02), detailed=True, date="d")))
    (root / "results" / "pr" / name).write_text(bad)
    return root


def _pretty_with_repeat() -> str:
    lines = json.dumps(json.loads(_result_text()), indent=1).splitlines()
    at = next(i for i, line in enumerate(lines) if '"output_throughput"' in line)
    return "\n".join([*lines[: at + 1], ' "output_throughput": 1.0,', *lines[at + 1 :]])


def _jsonl(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


RESULT_CASES = [
    (
        "nan",
        _result_text().replace('"p99_ttft_ms": ', '"p99_ttft_ms": NaN, "x": '),
        "results/pr/run3.json key 'p99_ttft_ms'",
        ["line 1", "'NaN'", "finite"],
    ),
    (
        "inf",
        _result_text(output_throughput=float("inf")),
        "results/pr/run3.json key 'output_throughput'",
        ["line 1", "'Infinity'"],
    ),
    (
        "negative",
        _result_text(request_throughput=-3.0),
        "results/pr/run3.json key 'request_throughput'",
        ["a rate", "cannot be negative", "line 1"],
    ),
    ("repeat", _pretty_with_repeat(), "results/pr/run3.json line", ['"output_throughput"', "twice"]),
    (
        "nan-request",
        _result_text(ttfts=[0.1, 0.2, float("nan")] + [0.1] * 9),
        "results/pr/run3.json key 'ttfts'",
        ["request 2", "'NaN'"],
    ),
    (
        "negative-gap",
        _result_text(itls=[[0.02, -0.01]] + [[0.02]] * 11),
        "results/pr/run3.json key 'itls'",
        ["request 0", "a time", "negative"],
    ),
    ("text", _result_text(p99_ttft_ms="fast"), "results/pr/run3.json key 'p99_ttft_ms'", ["'fast'", "holds a number"]),
    ("lengths", _result_text(ttfts=[0.1] * 11), "results/pr/run3.json", ["different lengths", "ttfts 11"]),
]


@pytest.mark.parametrize("case,text,field,words", RESULT_CASES, ids=[c[0] for c in RESULT_CASES])
def test_results_json_refuses_bad_numbers_naming_file_and_line(tmp_path, case, text, field, words):
    campaign = _results_campaign(tmp_path / "c", text)
    out = _call({"campaign_dir": str(campaign)})
    assert out.is_error
    message = out.content[0].text
    assert field in message, message
    for w in words:
        assert w in message, message
    if case == "repeat":
        line = next(i for i, t in enumerate(text.splitlines(), 1) if t == ' "output_throughput": 1.0,')
        assert f"results/pr/run3.json line {line}:" in message, message


def _sglang_lines(n: int = 4) -> list[str]:
    rng = np.random.default_rng(4)
    return [json.dumps(sglang_result(simulate(rng, 10, 0.3, 0.02), details=False)) for _ in range(n)]


JSONL_CASES = [
    (
        "nan",
        lambda lines: lines[:2] + [lines[2].replace('"mean_ttft_ms": ', '"mean_ttft_ms": NaN, "y": ')] + lines[3:],
        "results/pr/bench.jsonl key 'mean_ttft_ms'",
        ["line 3"],
    ),
    (
        "negative",
        lambda lines: lines[:1] + [lines[1].replace('"output_throughput": ', '"output_throughput": -')] + lines[2:],
        "results/pr/bench.jsonl key 'output_throughput'",
        ["line 2", "negative"],
    ),
    (
        "repeat",
        lambda lines: lines[:1] + [lines[1].replace("{", '{"completed": 1, ', 1)] + lines[2:],
        "results/pr/bench.jsonl line 2",
        ['"completed"', "twice"],
    ),
]


@pytest.mark.parametrize("case,edit,field,words", JSONL_CASES, ids=[c[0] for c in JSONL_CASES])
def test_results_jsonl_refuses_bad_numbers_naming_file_and_line(tmp_path, case, edit, field, words):
    campaign = tmp_path / "c"
    for arm in ("baseline", "pr"):
        lines = _sglang_lines()
        path = campaign / "results" / arm / "bench.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(_jsonl(edit(lines) if arm == "pr" else lines))
    proc = perfkit("read-benchmark", str(campaign), timeout=120)
    assert proc.returncode == 2, proc.stdout
    assert field in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


STEPS = "arm,run,step,step_time_s,tokens_per_s\n" + "".join(
    f"{arm},{run},{step},{t},{8192 / t}\n"
    for arm, t in (("baseline", 1.0), ("pr", 0.8))
    for run in (1, 2)
    for step in (1, 2, 3)
)
WIDE = "arm,run,output_throughput,p99_ttft_ms\n" + "".join(
    f"{arm},{run},{thr},{ttft}\n"
    for arm, thr, ttft in (("baseline", 1900, 900), ("pr", 2100, 800))
    for run in (1, 2, 3)
)
REQUESTS_CSV = "arm,run,ttft_ms\n" + "".join(
    f"{arm},{run},{300 + i}\n" for arm in ("baseline", "pr") for run in (1, 2) for i in range(5)
)
CANDIDATE = '{"sha": "abc1234", "title": "t", "shipped": true, "baseline": "b", "before": 1.0, "after": 0.9}'

CSV_CASES = [
    (
        "steps-nan",
        "benchmark.csv",
        STEPS.replace(",10240.0\n", ",nan\n", 1),
        "benchmark.csv column 'tokens_per_s'",
        ["line 8", "'nan'"],
    ),
    (
        "steps-inf",
        "benchmark.csv",
        STEPS.replace(",8192.0\n", ",inf\n", 1),
        "benchmark.csv column 'tokens_per_s'",
        ["line 2", "'inf'"],
    ),
    (
        "steps-negative",
        "benchmark.csv",
        STEPS.replace(",8192.0\n", ",-8192.0\n", 1),
        "benchmark.csv column 'tokens_per_s'",
        ["line 2", "a rate", "negative"],
    ),
    (
        "runs-negative",
        "benchmark.csv",
        WIDE.replace(",900\n", ",-900\n", 1),
        "benchmark.csv column 'p99_ttft_ms'",
        ["line 2", "a latency or time"],
    ),
    (
        "runs-inf",
        "benchmark.csv",
        WIDE.replace("1900,", "inf,", 1),
        "benchmark.csv column 'output_throughput'",
        ["line 2", "'inf'"],
    ),
    (
        "requests-nan",
        "benchmark.csv",
        REQUESTS_CSV.replace(",302\n", ",NaN\n", 1),
        "benchmark.csv column 'ttft_ms'",
        ["line 4", "'NaN'"],
    ),
    (
        "candidates-negative",
        "records/candidates.jsonl",
        CANDIDATE.replace('"before": 1.0', '"before": -1.0'),
        "records/candidates.jsonl line 1 field 'before'",
        ["cannot be negative"],
    ),
    (
        "candidates-nan",
        "records/candidates.jsonl",
        CANDIDATE.replace('"after": 0.9', '"after": NaN'),
        "records/candidates.jsonl line 1",
        ["finite number"],
    ),
    (
        "candidates-repeat",
        "records/candidates.jsonl",
        CANDIDATE.replace('"title": "t"', '"title": "t", "title": "u"'),
        "records/candidates.jsonl line 1",
        ['"title"', "twice"],
    ),
]


@pytest.mark.parametrize("case,rel,text,field,words", CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_csv_and_jsonl_readers_follow_the_same_rule(tmp_path, case, rel, text, field, words):
    campaign = tmp_path / "c"
    campaign.mkdir()
    (campaign / "benchmark.csv").write_text(STEPS)
    (campaign / rel).parent.mkdir(parents=True, exist_ok=True)
    (campaign / rel).write_text(text)
    from perfkit.errors import InputError

    with pytest.raises(InputError) as err:
        read_benchmark(str(campaign))
    assert err.value.field.startswith(field), str(err.value)
    for w in words:
        assert w in str(err.value), str(err.value)


# ---- any mutation of a valid file: an answer, or an error naming the file and the line


def _base_campaign(root: Path) -> tuple[Path, dict[str, bytes]]:
    """Two arms of four runs: vLLM results with a few per-request lists, and their SGLang twin."""
    rng = np.random.default_rng(8)
    files = {}
    for arm in ("baseline", "pr"):
        for k in range(1, 5):
            run = simulate(rng, 6, 0.3 if arm == "baseline" else 0.25, 0.02)
            files[f"results/{arm}/run{k}.json"] = json.dumps(vllm_result(run, detailed=k % 2 == 0, date="d")).encode()
    return root, files


MUTATED = "results/pr/run2.json"
LOCATED = (" line ", " key ", " request ", "offset", "NUL", "levels deep", "empty", "JSON")


@st.composite
def _mutation(draw, original: bytes) -> bytes:
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        kind = draw(st.sampled_from(["replace", "insert", "delete", "token"]))
        if kind == "replace" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(
                st.sampled_from([b"NaN", b"-", b"Infinity", b'"x"', b",", b"}", b"\n", b"1e999", b"null"])
            )
        elif kind == "delete" and data:
            del data[at : at + draw(st.integers(1, 8))]
        else:
            text = data.decode("utf-8", "replace")
            key = draw(st.sampled_from(["p99_ttft_ms", "output_throughput", "ttfts", "errors", "completed"]))
            value = draw(st.sampled_from(["NaN", "-1", "Infinity", '"fast"', "null", "[]", "[NaN]", "1e400"]))
            text = re.sub(rf'("{key}": )([^,\]}}]+|\[[^\]]*\])', rf"\g<1>{value}", text, count=1)
            data = bytearray(text.encode())
    return bytes(data)


_ROOT, _FILES = _base_campaign(Path("."))


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=_mutation(_FILES[MUTATED]))
def test_any_mutation_of_a_result_is_read_or_named_by_file_and_line(tmp_path_factory, data):
    from perfkit.errors import InputError

    campaign = tmp_path_factory.mktemp("m")
    for rel, content in _FILES.items():
        (campaign / rel).parent.mkdir(parents=True, exist_ok=True)
        (campaign / rel).write_bytes(data if rel == MUTATED else content)
    try:
        s = read_benchmark(str(campaign))
    except InputError as exc:
        text = str(exc)
        if exc.field.startswith(MUTATED):
            assert any(w in text for w in LOCATED), text
        else:  # what the mutation took away from the whole campaign: said of the campaign
            assert exc.field in ("results", "candidate") or exc.field.startswith("results column"), text
        return
    dumped = json.dumps(s.model_dump(mode="json"), allow_nan=False)  # every figure finite
    assert MUTATED in s.result_files or any(MUTATED in n for n in s.notes)  # read, or left aside and said
    assert json.loads(dumped)["shape"] == "runs"


# ---- campaign text in the answer is bounded, with its full length said


def test_campaign_text_is_capped_with_its_length_stated(tmp_path):
    campaign = tmp_path / "c"
    rng = np.random.default_rng(6)
    huge_key = "k" * 50_000
    for arm in ("baseline", "pr"):
        for k in range(1, 5):
            result = vllm_result(simulate(rng, 6, 0.3, 0.02), detailed=False, date="d", label="L" * 300_000)
            write_vllm(campaign / "results" / arm / f"run{k}.json", result | {huge_key: 1.0})
    (campaign / "records").mkdir()
    title = "T" * 900_000
    (campaign / "records" / "candidates.jsonl").write_text(
        json.dumps({"sha": "abc1234", "title": title, "shipped": True, "note": "n" * 60_000, "extra": "e" * 60_000})
        + "\n"
    )
    out = _call({"campaign_dir": str(campaign)})
    assert not out.is_error, out.content[0].text
    size = len(out.content[0].text)
    assert size < 300_000, size  # 1.5 MB of campaign text in, a bounded answer out
    s = out.structured_content
    cand = s["candidates"][0]
    assert cand["title"].startswith("T" * 300) and cand["title"].endswith("[cut: 900,000 characters in all]")
    assert cand["note"].endswith("[cut: 60,000 characters in all]")
    assert cand["other_fields"]["extra"].endswith("[cut: 60,000 characters in all]")
    assert any(u["column"].endswith("[cut: 50,000 characters in all]") for u in s["uninferred"])
    labels = [v for a in s["setup"] for v in a["values"] if v["key"] == "label"]
    assert labels and all(v["value"].endswith("[cut: 300,000 characters in all]") for v in labels)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]{}"\\a,:1 \né')), max_size=200))
def test_long_json_is_measured_as_deep_as_the_character_loop_measures_it(text):
    """Results with per-request lists are tens of MB: their nesting is counted with a regular expression
    and numpy, and must agree with the plain loop used for short texts on any text, valid JSON or not."""
    from perfkit.guards.limits import _json_depth_long, json_depth

    assert _json_depth_long(text) == json_depth(text)
