"""Campaigns measured in their own metrics: serving results per run, per request, end to end.

The expected figures are recomputed here with pandas from the files as the benchmark scripts
wrote them, never taken from perfkit's output.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import anyio
import numpy as np
import pandas as pd
import pytest
from helpers.procs import perfkit
from mcp import Client
from perfkit.benchmark.read import read_benchmark
from perfkit.errors import InputError
from perfkit.lint.lint import lint_wording
from perfkit.mcp_server.server import build_server
from perfkit.publish.cells import sig

ROOT = Path(__file__).resolve().parents[1]
SERVING = ROOT / "examples" / "serving"
sys.path.insert(0, str(SERVING))
sys.path.insert(0, str(ROOT / "examples" / "publish"))

import make_example  # noqa: E402
from target_repo import build as build_target  # noqa: E402


def _results_frame(campaign: Path) -> pd.DataFrame:
    rows = []
    for p in sorted((campaign / "results").glob("*/*.json")):
        obj = json.loads(p.read_text())
        rows.append({"arm": p.parent.name, **{k: v for k, v in obj.items() if isinstance(v, (int, float))}})
    return pd.DataFrame(rows)


def _expected(campaign: Path, column: str) -> tuple[float, float, float]:
    means = _results_frame(campaign).groupby("arm")[column].mean()
    b, c = float(means["baseline"]), float(means["pr"])
    return b, c, (c - b) / b * 100


def _call(tool: str, args: dict):
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return await client.call_tool(tool, args)

    return anyio.run(go)


def test_serving_example_is_current_and_lint_clean(tmp_path):
    result, campaign, repo = make_example.render(tmp_path)
    for produced, example in make_example.OUTPUTS.items():
        assert (SERVING / example).read_text() == (tmp_path / "out" / produced).read_text(), (
            f"examples/serving/{example} is stale: run python examples/serving/make_example.py"
        )
    assert result.lint_pr == [] and result.lint_issue == []
    for example in make_example.OUTPUTS.values():
        res = lint_wording(
            path=str(SERVING / example), campaign_dir=str(campaign), repo=str(repo), draft=str(SERVING / "draft.json")
        )
        assert res.findings == [], [(f.rule, f.line, f.excerpt) for f in res.findings]
        assert "direction" in res.rules_run


def test_serving_over_mcp_recomputed_with_pandas(tmp_path):
    campaign = tmp_path / "campaign"
    shutil.copytree(SERVING / "campaign", campaign)
    out = _call("read_benchmark", {"campaign_dir": str(campaign)})
    assert not out.is_error, out.content[0].text
    s = out.structured_content
    assert s["shape"] == "runs" and s["comparison"] is None
    by_key = {m["key"]: m for m in s["metrics"]}
    for column, direction in (("output_throughput", "higher"), ("p99_ttft_ms", "lower"), ("p99_itl_ms", "lower")):
        b, c, change = _expected(campaign, column)
        m = by_key[column]
        assert m["direction"] == direction
        assert m["baseline"]["estimate"]["value"] == pytest.approx(b)
        assert m["candidate"]["estimate"]["value"] == pytest.approx(c)
        assert m["change_pct"] == pytest.approx(change)
        assert m["speedup"] == pytest.approx(c / b if direction == "higher" else b / c)
    assert by_key["output_throughput"]["outcome"] == "better" and by_key["p99_itl_ms"]["outcome"] == "worse"
    assert by_key["output_throughput"]["verdict"] == "better"  # 5 against 5 runs fully separated
    heads = [x["key"] for x in s["metric_model"] if x["headline"]]
    assert heads == ["output_throughput", "p99_ttft_ms"]
    itl = next(x for x in s["metric_model"] if x["key"] == "median_itl_ms")
    assert itl["declared"] == "campaign" and "direction inferred" in itl["reason"]

    repo = build_target(tmp_path / "repo")
    rendered = _call(
        "render_pr",
        {
            "campaign_dir": str(campaign),
            "repo": str(repo),
            "draft": str(SERVING / "draft.json"),
            "out_dir": str(tmp_path / "o"),
        },
    )
    assert not rendered.is_error, rendered.content[0].text
    r = rendered.structured_content
    tb, tc, _ = _expected(campaign, "output_throughput")
    lb, lc, lchange = _expected(campaign, "p99_ttft_ms")
    # one headline figure keeps the title within 100 characters; the second is the table's second row
    assert f": {sig(tb)} to {sig(tc)} output tokens/s, mostly from" in r["pr_title"] and len(r["pr_title"]) <= 100
    assert "world size" not in (tmp_path / "o" / "proposed-pr-description.md").read_text()
    text = (tmp_path / "o" / "proposed-pr-description.md").read_text()
    assert f"| {lchange:+.1f}% |" in text
    assert "raises output throughput **" in text and "lowers TTFT p99" in text
    assert "one-time cost" not in text
    assert "NCCL_P2P_LEVEL" not in text.split("## Correctness Verification")[0]  # a setting: never a per-commit row
    assert "(lower is better)" in text and "-53.8% TTFT p99" in text
    issue = (tmp_path / "o" / "proposed-issue.md").read_text()
    assert "takes TTFT p99 from 1,583 ms to 731 ms on its own, in its screening run" in issue
    assert r["lint_pr"] == [] and r["lint_issue"] == []


def _sglang_campaign(root: Path) -> Path:
    """SGLang's bench_serving appends one JSON line per run to its output file; no metrics.yaml."""
    rng = np.random.default_rng(7)
    for arm, thr, ttft in (("baseline", 1900.0, 900.0), ("pr", 2100.0, 800.0)):
        lines = []
        for _ in range(6):
            lines.append(
                json.dumps(
                    {
                        "backend": "sglang",
                        "dataset_name": "random",
                        "request_rate": 8.0,
                        "max_concurrency": 32,
                        "duration": 120.5,
                        "completed": 960,
                        "total_input_tokens": 983040,
                        "total_output_tokens": 245760,
                        "request_throughput": thr / 256 * rng.normal(1, 0.01),
                        "input_throughput": thr * 4 * rng.normal(1, 0.01),
                        "output_throughput": thr * rng.normal(1, 0.01),
                        "mean_e2e_latency_ms": 9000 * rng.normal(1, 0.01),
                        "median_e2e_latency_ms": 8800 * rng.normal(1, 0.01),
                        "std_e2e_latency_ms": 1200.0,
                        "mean_ttft_ms": ttft * rng.normal(1, 0.02),
                        "p99_ttft_ms": ttft * 3 * rng.normal(1, 0.02),
                        "p95_itl_ms": 41.0 * rng.normal(1, 0.01),
                        "concurrency": 31.2,
                    }
                )
            )
        d = root / "results" / arm
        d.mkdir(parents=True)
        (d / "bench_serving.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_sglang_jsonl_is_read_as_written_and_inferred_with_reasons(tmp_path):
    campaign = _sglang_campaign(tmp_path / "c")
    s = read_benchmark(str(campaign))
    model = {m.key: m for m in s.metric_model}
    assert model["output_throughput"].direction == "higher" and model["output_throughput"].declared == "inferred"
    assert "rate" in model["output_throughput"].reason
    assert model["p95_itl_ms"].direction == "lower" and model["p95_itl_ms"].name == "ITL p95"
    assert model["median_e2e_latency_ms"].name == "end-to-end latency p50"
    unused = {u.column for u in s.uninferred}
    assert {"std_e2e_latency_ms", "completed", "total_input_tokens", "duration", "concurrency"} <= unused
    assert [m.key for m in s.metric_model if m.headline] == ["output_throughput"]
    frame = pd.DataFrame(
        [
            {"arm": p.parent.name, **json.loads(line)}
            for p in sorted((campaign / "results").glob("*/*.jsonl"))
            for line in p.read_text().splitlines()
        ]
    )
    mean = frame.groupby("arm")["mean_ttft_ms"].mean()
    m = next(x for x in s.metrics if x.key == "mean_ttft_ms")
    assert m.baseline.estimate.value == pytest.approx(mean["baseline"]) and m.candidate.per_run == pytest.approx(
        list(frame[frame.arm == "pr"]["mean_ttft_ms"])
    )


def _requests_campaign(root: Path, per_run: int = 200) -> Path:
    rng = np.random.default_rng(11)
    rows = []
    for run in range(1, 6):
        for arm, scale in (("baseline", 1.0), ("pr", 0.7)):
            ttft = rng.lognormal(np.log(300 * scale), 0.5, per_run)
            itl = rng.normal(21.0, 2.0, per_run)
            rows += [
                {"arm": arm, "run": run, "request": k, "ttft_ms": t, "itl_ms": i, "output_tokens": 256}
                for k, (t, i) in enumerate(zip(ttft, itl, strict=True))
            ]
    root.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(root / "benchmark.csv", index=False)
    return root


def test_requests_percentiles_with_intervals_and_tail_counts(tmp_path):
    campaign = _requests_campaign(tmp_path / "c")
    s = read_benchmark(str(campaign))
    assert s.shape == "requests"
    frame = pd.read_csv(campaign / "benchmark.csv")
    p99 = next(m for m in s.metrics if m.key == "ttft_ms@p99")
    per_run = frame[frame.arm == "baseline"].groupby("run")["ttft_ms"].quantile(0.99)
    assert p99.baseline.per_run == pytest.approx(list(per_run))
    pooled = frame[frame.arm == "baseline"]["ttft_ms"]
    assert p99.baseline.estimate.value == pytest.approx(pooled.quantile(0.99))
    assert p99.baseline.samples == 1000 and p99.baseline.tail_samples == int((pooled > pooled.quantile(0.99)).sum())
    lo, hi = p99.baseline.estimate.ci_low, p99.baseline.estimate.ci_high
    assert lo is not None and hi is not None and lo < p99.baseline.estimate.value < hi
    assert "rests on the 10 slowest" in (p99.baseline.tail_note or "")
    assert "about 2" in (p99.baseline.tail_note or "")  # one run of 200 requests: 2 values above its p99
    assert p99.direction == "lower" and p99.outcome == "better"
    assert {u.column for u in s.uninferred} == {"request", "output_tokens"}


def test_a_p99_of_too_few_requests_has_no_interval():
    from perfkit.benchmark import stats

    few = stats.quantile_ci(np.sort(np.arange(200.0)), 0.99)
    assert few.low is None and "too few samples" in (few.note or "")
    # values 0..n-1, so the interval's ends are the order statistics' ranks minus one
    for n, q in ((1000, 0.99), (101, 0.5), (400, 0.9), (5000, 0.999)):
        ci = stats.quantile_ci(np.arange(float(n)), q)
        assert ci.low is not None and ci.high is not None and ci.coverage is not None
        lo, hi = int(ci.low) + 1, int(ci.high) + 1
        assert ci.coverage == pytest.approx(_covers(n, q, lo, hi), abs=1e-9)
        assert _covers(n, q, lo, hi) >= 0.95
        # neither end can move in and keep 95%: a wider interval than needed fails here
        assert _covers(n, q, lo + 1, hi) < 0.95 and _covers(n, q, lo, hi - 1) < 0.95, (n, q, lo, hi)
    med = stats.median_ci(np.arange(101.0))
    lo = int(med.low) + 1
    assert int(med.high) + 1 == 102 - lo  # symmetric: [x(L), x(n + 1 - L)]
    assert _covers(101, 0.5, lo, 102 - lo) >= 0.95 > _covers(101, 0.5, lo + 1, 101 - lo)


def _covers(n: int, q: float, lo: int, hi: int) -> float:
    """P(lo <= B < hi) for B ~ Binomial(n, q): [x(lo), x(hi)] covers the population q-quantile."""
    return float(sum(math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(lo, hi)))


def test_requests_campaign_on_the_cli(tmp_path):
    campaign = _requests_campaign(tmp_path / "c")
    decl = json.dumps({"column": "ttft_ms", "name": "TTFT", "stat": "p99", "headline": True, "unit": "ms"})
    proc = perfkit("read-benchmark", str(campaign), "--metrics", decl, "--json", timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    head = [m for m in out["metric_model"] if m["headline"]]
    assert [(h["key"], h["declared"], h["name"]) for h in head] == [("ttft_ms@p99", "draft", "TTFT")]
    frame = pd.read_csv(campaign / "benchmark.csv")
    m = next(x for x in out["metrics"] if x["key"] == "ttft_ms@p99")
    q = frame.groupby("arm")["ttft_ms"].quantile(0.99)
    assert m["change_pct"] == pytest.approx((q["pr"] - q["baseline"]) / q["baseline"] * 100)
    human = perfkit("read-benchmark", str(campaign), timeout=120)
    assert human.returncode == 0 and "ttft_ms@p99" in human.stdout and "rests on the" in human.stdout

    bad = perfkit("read-benchmark", str(campaign), "--metrics", '{"column": "request"}', timeout=120)
    assert bad.returncode == 2 and "metrics 'request'" in bad.stderr and "direction" in bad.stderr


def test_bad_metric_declarations_name_the_field(tmp_path):
    campaign = tmp_path / "c"
    shutil.copytree(SERVING / "campaign", campaign)
    (campaign / "metrics.yaml").write_text("metrics:\n  - column: output_throughput\n    direction: up\n")
    with pytest.raises(InputError) as err:
        read_benchmark(str(campaign))
    assert err.value.field.startswith("metrics.yaml metrics.0.direction")
    (campaign / "metrics.yaml").write_text("metrics:\n  - column: tokens\n    direction: higher\n")
    with pytest.raises(InputError) as err:
        read_benchmark(str(campaign))
    assert "tokens" in err.value.field and "numeric columns" in err.value.problem
    (campaign / "metrics.yaml").write_text("metrics: [\n")
    with pytest.raises(InputError) as err:
        read_benchmark(str(campaign))
    assert err.value.field == "metrics.yaml"


def test_step_campaign_chart_is_optional_and_from_the_same_summary(tmp_path):
    from perfkit.publish.render import render_pr

    campaign = tmp_path / "campaign"
    shutil.copytree(ROOT / "examples" / "campaign", campaign)
    repo = build_target(tmp_path / "repo")
    draft = json.loads((ROOT / "examples" / "publish" / "draft.json").read_text()) | {"chart": True}
    result = render_pr(str(campaign), str(repo), draft=draft, out_dir=str(tmp_path / "o"))
    text = Path(result.pr_path).read_text()
    b = read_benchmark(str(campaign))
    means = ", ".join(sig(r.mean_s) for r in b.arm("baseline").per_run)
    medians = ", ".join(sig(r.median_s) for r in b.arm("pr").per_run)
    assert "```mermaid\nxychart-beta" in text and f"line [{means}]" in text and f"line [{medians}]" in text
    assert text.index("```mermaid") > text.index("<details>")
    assert result.lint_pr == []
    plain = (ROOT / "templates" / "pr-description.example.md").read_text()
    assert (
        text.replace(text[text.index("Step time per run (") : text.index("```\n\n", text.index("```mermaid")) + 5], "")
        == plain
    )


def test_the_demo_publishes_the_serving_example_too(tmp_path):
    import io

    from perfkit.cli.demo.publish_act import serving_act

    out = io.StringIO()
    assert serving_act(tmp_path / "serving", build_target(tmp_path / "repo"), out)
    text = out.getvalue()
    assert "output throughput 2,387 to 2,789 output tokens/s, +16.8%, better (higher is better)" in text
    assert "TTFT p99 1,583 to 707.2 ms, -55.3%, better (lower is better)" in text
    assert "lint_wording findings (serving): 0" in text
    pr = (tmp_path / "serving" / "campaign" / "proposed-pr-description.md").read_text()
    assert pr.startswith("# [perf] Llama-3.1-70B serving on 8 H100: 2,387 to 2,789 output tokens/s")


def _slow_step_campaign(root: Path) -> Path:
    """A training campaign whose PR arm is slower, renamed columns, a throughput column, no warm-up left out."""
    rng = np.random.default_rng(5)
    rows = []
    for run in range(1, 5):
        for arm, t in (("baseline", 0.80), ("pr", 0.96)):
            for step in range(1, 41):
                v = t * rng.normal(1, 0.01)
                rows.append({"variant": arm, "trial": run, "step": step, "iter_s": v, "train_tok_s": 8192 / v})
    root.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(root / "benchmark.csv", index=False)
    return root


def test_a_slower_step_campaign_is_worded_as_slower(tmp_path):
    from perfkit.publish.render import render_pr

    campaign = _slow_step_campaign(tmp_path / "c")
    draft = {
        "job": "ResNet-50 training",
        "gpu": "A100",
        "gpu_count": 4,
        "parallelism": "DDP 4",
        "benchmark": {"columns": {"arm": "variant", "run": "trial", "step_time_s": "iter_s"}, "warmup_steps": 0},
    }
    result = render_pr(str(campaign), str(build_target(tmp_path / "repo")), draft=draft, out_dir=str(tmp_path / "o"))
    text = Path(result.pr_path).read_text()
    frame = pd.read_csv(campaign / "benchmark.csv")
    means = frame.groupby("variant")["iter_s"].mean()
    slower = means["pr"] / means["baseline"]
    assert f"**{slower:.2f}x slower** on the mean" in text and "x faster" not in text
    assert f"{sig(means['baseline'])} s to {sig(means['pr'])} s per step at DDP 4, mostly" in result.pr_title
    assert "one-time cost" not in text  # no warm-up: step 1 is part of the steady state
    tok = frame.groupby("variant")["train_tok_s"].mean()
    change = (tok["pr"] - tok["baseline"]) / tok["baseline"] * 100
    assert "| train throughput, tokens/s (mean per step, higher is better) |" in text and f"{change:+.1f}%" in text
    assert [f for f in result.lint_pr if f.rule in ("direction", "unbacked-number")] == []


def test_settings_named_by_the_draft_are_not_the_prs_contribution(tmp_path):
    from perfkit.publish.render import render_pr

    campaign = tmp_path / "campaign"
    shutil.copytree(SERVING / "campaign", campaign)
    lines = (campaign / "records" / "candidates.jsonl").read_text().splitlines()
    plain = [json.loads(x) for x in lines]
    for r in plain:
        r.pop("kind", None)  # not marked in the records: the draft's shared settings still say it
    (campaign / "records" / "candidates.jsonl").write_text("".join(json.dumps(r) + "\n" for r in plain))
    draft = json.loads((SERVING / "draft.json").read_text())
    result = render_pr(str(campaign), str(build_target(tmp_path / "repo")), draft=draft, out_dir=str(tmp_path / "o"))
    text = Path(result.pr_path).read_text()
    assert "Set NCCL_P2P_LEVEL=NVL in the launcher" not in text
    assert "`3b9e1f0c7a2d`" in text and "`8d2c6a4e0f1b`" in text


def test_render_pr_on_the_cli_for_the_serving_example(tmp_path):
    campaign = tmp_path / "campaign"
    shutil.copytree(SERVING / "campaign", campaign)
    repo = build_target(tmp_path / "repo")
    proc = perfkit(
        "render-pr",
        str(campaign),
        str(repo),
        "--draft",
        str(SERVING / "draft.json"),
        "--out-dir",
        str(tmp_path / "o"),
        "--json",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    b, c, _ = _expected(campaign, "output_throughput")
    assert out["pr_title"].startswith(f"[perf] Llama-3.1-70B serving on 8 H100: {sig(b)} to {sig(c)} output tokens/s")
    assert out["lint_pr"] == [] and out["lint_issue"] == []
    assert (tmp_path / "o" / "proposed-pr-description.md").read_text() == (
        SERVING / "pr-description.example.md"
    ).read_text()


def _result(**values) -> str:
    return json.dumps({"backend": "vllm", "completed": 100, **values})


@pytest.mark.parametrize(
    "files,field,words",
    [
        ({"results/baseline/r.json": "[1, 2]"}, "results", ["no serving result", "a JSON list"]),
        (
            {"results/baseline/r.jsonl": _result(output_throughput=1.0) + "\n{oops\n"},
            "results/baseline/r.jsonl line 2",
            ["not valid JSON"],
        ),
        ({"results/r.json": _result(output_throughput=1.0)}, "results/r.json", ["names no arm"]),
        ({"results/baseline/r.json": "[" * 200 + "]" * 200}, "results/baseline/r.json", ["levels deep"]),
        ({"results/baseline/r.json": _result(output_throughput="fast")}, "candidate", ["only the baseline"]),
        (
            {
                "results/baseline/r.json": _result(output_throughput=1e300),
                "results/pr/r.json": _result(output_throughput=2.0),
            },
            "results/baseline/r.json key 'output_throughput'",
            ["magnitudes", "line 1"],
        ),
    ],
)
def test_bad_results_files_name_the_file(tmp_path, files, field, words):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    with pytest.raises(InputError) as err:
        read_benchmark(str(tmp_path))
    assert err.value.field == field, str(err.value)
    for w in words:
        assert w in str(err.value), str(err.value)


def test_results_with_arm_keys_nan_and_a_link_outside(tmp_path):
    lines = [
        _result(
            arm=arm,
            run=run,
            output_throughput=base * (1 + 0.01 * run),
            p99_ttft_ms=None if run == 2 else 900.0 / base,
        )
        for arm, base in (("baseline", 100.0), ("pr", 120.0))
        for run in (1, 2, 3, 4)
    ]
    (tmp_path / "c" / "results").mkdir(parents=True)
    (tmp_path / "c" / "results" / "all.jsonl").write_text("\n".join(lines) + "\n")
    s = read_benchmark(str(tmp_path / "c"))
    thr = next(m for m in s.metrics if m.key == "output_throughput")
    assert thr.baseline.run_ids == [1, 2, 3, 4] and thr.change_pct == pytest.approx(20.0)
    ttft = next(m for m in s.metrics if m.key == "p99_ttft_ms")
    assert ttft.baseline.run_ids == [1, 3, 4]  # null: a run without the value, said in the warnings
    assert any("'p99_ttft_ms' is null or missing in 2 of 8" in w and "all.jsonl line 2" in w for w in s.warnings)
    nan = "\n".join(lines).replace('"p99_ttft_ms": null', '"p99_ttft_ms": NaN', 1)
    (tmp_path / "c" / "results" / "all.jsonl").write_text(nan + "\n")
    with pytest.raises(InputError) as err:  # NaN is not a missing value: it is refused, with its line
        read_benchmark(str(tmp_path / "c"))
    assert err.value.field == "results/all.jsonl key 'p99_ttft_ms'" and "line 2 ('NaN')" in err.value.problem
    (tmp_path / "c" / "results" / "all.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "secret.json").write_text(_result(output_throughput=5.0))
    (tmp_path / "c" / "results" / "x.json").symlink_to(tmp_path / "secret.json")
    with pytest.raises(InputError) as err:
        read_benchmark(str(tmp_path / "c"))
    assert "outside the campaign folder" in err.value.problem


def test_requests_campaign_renders_its_percentiles_lint_clean(tmp_path):
    from perfkit.publish.render import render_pr

    campaign = _requests_campaign(tmp_path / "c")
    draft = {"job": "Qwen2-7B serving", "gpu": "L40S", "gpu_count": 1, "chart": True}
    draft["benchmark"] = {"headline": ["ttft_ms@p99", "itl_ms@p50"]}
    result = render_pr(str(campaign), str(build_target(tmp_path / "repo")), draft=draft, out_dir=str(tmp_path / "o"))
    text = Path(result.pr_path).read_text()
    frame = pd.read_csv(campaign / "benchmark.csv")
    q = frame.groupby("arm")["ttft_ms"].quantile(0.99)
    assert result.pr_title.startswith(f"[perf] Qwen2-7B serving on 1 L40S: TTFT p99 {sig(q['baseline'])} ms to ")
    assert "; above it: 10 of 1,000 requests and 10 of 1,000 |" in text
    assert "interleaved, 200 requests per run." in text and "the difference is not significant" not in text[:200]
    per_run = frame[frame.arm == "pr"].groupby("run")["ttft_ms"].quantile(0.99)
    assert "line [" + ", ".join(sig(v).replace(",", "") for v in per_run) + "]" in text
    assert result.lint_pr == [] and result.lint_issue == []


def test_pipes_in_place_of_campaign_files_are_refused_without_blocking(tmp_path):
    import os

    for rel in ("metrics.yaml", "benchmark.csv", "results/pr/run1.json"):
        campaign = tmp_path / rel.replace("/", "_")
        shutil.copytree(SERVING / "campaign", campaign)
        (campaign / rel).unlink(missing_ok=True)
        os.mkfifo(campaign / rel)
        if rel == "results/pr/run1.json":  # a pipe among results is not a result: the other four runs are read
            s = read_benchmark(str(campaign))
            assert len(s.metrics[0].candidate.per_run) == 4
            assert any("results/pr/run1.json: left aside, it is not a regular file" in n for n in s.notes)
            continue
        with pytest.raises(InputError) as err:
            read_benchmark(str(campaign))
        assert "pipe" in str(err.value) and rel in err.value.field
