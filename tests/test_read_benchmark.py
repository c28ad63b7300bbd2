"""read_benchmark on campaigns with known answers: every figure is recomputed here from the same
numbers with the statistics module, numpy or plain sums, never taken from the tool's own output."""

from __future__ import annotations

import csv
import json
import math
import random
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.benchmark.read import read_benchmark
from perfkit.errors import InputError

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ building campaigns


def make_runs(
    seed: int,
    runs: int,
    steps: int,
    typical: float,
    first: float,
    noise: float = 0.01,
    slow_every: int = 0,
    slow: float = 0.0,
    mem: float = 60.0,
    launches: int = 1000,
) -> list[dict]:
    """Rows of one arm; every slow_every-th step (from step 3) takes `slow` seconds instead."""
    rng = random.Random(seed)
    rows = []
    for run in range(1, runs + 1):
        for step in range(1, steps + 1):
            if step == 1:
                t = first + run * 0.1
            elif slow_every and step >= 3 and (step - 3) % slow_every == 0:
                t = slow * (1 + rng.gauss(0, 0.005))
            else:
                t = typical * (1 + rng.gauss(0, noise))
            rows.append(
                {
                    "run": run,
                    "step": step,
                    "step_time_s": round(t, 5),
                    "peak_mem_gb": round(mem + run * 0.01 + step * 0.001, 3),
                    "kernel_launches": launches + (step % 7),
                }
            )
    return rows


def write_campaign(
    root: Path, arms: dict[str, list[dict]], header: tuple[str, ...] | None = None, rename: dict[str, str] | None = None
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    header = header or ("arm", "run", "step", "step_time_s", "peak_mem_gb", "kernel_launches")
    rename = rename or {}
    # Interleave runs the way a campaign records them: run 1 of every arm, then run 2, ...
    rows = [dict(r, arm=arm) for arm, rs in arms.items() for r in rs]
    rows.sort(key=lambda r: (r["run"], list(arms).index(r["arm"]), r["step"]))
    with open(root / "benchmark.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([rename.get(h, h) for h in header])
        for r in rows:
            w.writerow([r.get(h, "") for h in header])
    return root


def steady(rows: list[dict], warmup: int = 1) -> list[float]:
    return [r["step_time_s"] for r in rows if r["step"] > warmup]


def by_run(rows: list[dict], warmup: int = 1) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for r in rows:
        if r["step"] > warmup:
            out.setdefault(r["run"], []).append(r["step_time_s"])
    return out


# ------------------------------------------------------------------ independent references


def t_crit_by_integration(df: int) -> float:
    """The 97.5% point of Student's t by bisection on a Simpson-integrated density."""
    const = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def cdf(t: float, steps: int = 2000) -> float:
        h = t / steps
        f = lambda x: const * (1 + x * x / df) ** (-(df + 1) / 2)  # noqa: E731
        return 0.5 + h / 3 * (f(0) + f(t) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps)))

    lo, hi = 0.0, 50.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < 0.975 else (lo, mid)
    return (lo + hi) / 2


def median_ci_reference(values: list[float]) -> tuple[float, float] | None:
    x = sorted(values)
    n = len(x)
    best = None
    for k in range(1, (n + 1) // 2 + 1):
        if sum(math.comb(n, i) for i in range(k, n - k + 1)) / 2**n >= 0.95:
            best = k
    return None if best is None else (x[best - 1], x[n - best])


def exact_u_p(a: list[float], b: list[float]) -> float:
    import itertools

    pooled = sorted(a + b)
    rank = {v: (pooled.index(v) + 1 + len(pooled) - pooled[::-1].index(v)) / 2 for v in pooled}
    obs = sum(rank[v] for v in a)
    sums = [sum(rank[pooled_v] for pooled_v in combo) for combo in itertools.combinations(a + b, len(a))]
    lo = sum(s <= obs + 1e-9 for s in sums) / len(sums)
    hi = sum(s >= obs - 1e-9 for s in sums) / len(sums)
    return min(1.0, 2 * min(lo, hi))


def speedup_interval_reference(base: list[dict], pr: list[dict]) -> tuple[float, float]:
    """Welch t interval of ln(mean of run means) difference, by the delta method, exponentiated."""
    rb = [statistics.fmean(v) for v in by_run(base).values()]
    rc = [statistics.fmean(v) for v in by_run(pr).values()]
    mb, mc = statistics.fmean(rb), statistics.fmean(rc)
    vb = statistics.variance(rb) / (len(rb) * mb**2)
    vc = statistics.variance(rc) / (len(rc) * mc**2)
    df = (vb + vc) ** 2 / (vb**2 / (len(rb) - 1) + vc**2 / (len(rc) - 1))
    half = t_crit_by_integration(df) * math.sqrt(vb + vc)
    return math.exp(math.log(mb / mc) - half), math.exp(math.log(mb / mc) + half)


def check_arm(arm, rows: list[dict], warmup: int = 1, threshold: float | None = None):
    """Every per-arm figure against statistics/numpy on the same numbers."""
    x = steady(rows, warmup)
    runs = by_run(rows, warmup)
    n = len(x)
    assert arm.runs == len(runs) and arm.run_ids == sorted(runs)
    assert arm.steps == len(rows) and arm.steady_steps == n
    mean, med, sd = statistics.fmean(x), statistics.median(x), statistics.stdev(x)
    assert arm.mean.value == pytest.approx(mean, rel=1e-12)
    assert arm.median.value == pytest.approx(med, rel=1e-12)
    assert arm.stdev_s == pytest.approx(sd, rel=1e-9)
    assert arm.cv == pytest.approx(sd / mean, rel=1e-9)
    assert (arm.min_s, arm.max_s) == (pytest.approx(min(x)), pytest.approx(max(x)))
    assert arm.p10_s == pytest.approx(statistics.quantiles(x, n=10, method="inclusive")[0], rel=1e-12)
    assert arm.p90_s == pytest.approx(statistics.quantiles(x, n=10, method="inclusive")[-1], rel=1e-12)
    assert arm.mean_over_median == pytest.approx(mean / med, rel=1e-12)
    half = t_crit_by_integration(n - 1) * sd / math.sqrt(n)
    assert arm.mean.ci_low == pytest.approx(mean - half, rel=1e-6)
    assert arm.mean.ci_high == pytest.approx(mean + half, rel=1e-6)
    ref = median_ci_reference(x)
    if ref is None:
        assert arm.median.ci_low is None and "too few samples" in arm.median.ci_note
    else:
        assert (arm.median.ci_low, arm.median.ci_high) == (pytest.approx(ref[0]), pytest.approx(ref[1]))
    run_means = [statistics.fmean(v) for _, v in sorted(runs.items())]
    assert arm.run_mean.value == pytest.approx(statistics.fmean(run_means), rel=1e-12)
    if len(run_means) >= 2:
        half = t_crit_by_integration(len(run_means) - 1) * statistics.stdev(run_means) / math.sqrt(len(run_means))
        assert arm.run_mean.ci_high - arm.run_mean.value == pytest.approx(half, rel=1e-6)
    else:
        assert arm.run_mean.ci_low is None and "runs" in arm.run_mean.ci_note
    for pr in arm.per_run:
        vals = runs[pr.run]
        all_rows = [r for r in rows if r["run"] == pr.run]
        assert pr.mean_s == pytest.approx(statistics.fmean(vals), rel=1e-12)
        assert pr.median_s == pytest.approx(statistics.median(vals), rel=1e-12)
        assert pr.steady_steps == len(vals) and pr.steps == len(all_rows)
        assert pr.first_step_s == pytest.approx(next(r["step_time_s"] for r in all_rows if r["step"] == 1))
        assert pr.peak_mem_gb == pytest.approx(max(r["peak_mem_gb"] for r in all_rows))
        if threshold is not None:
            assert pr.slow_steps == sum(v > threshold for v in vals)
    firsts = [r["step_time_s"] for r in rows if r["step"] == 1]
    assert arm.first_step.mean_s == pytest.approx(statistics.fmean(firsts), rel=1e-12)
    assert arm.first_step.excess_s == pytest.approx(statistics.fmean(firsts) - med, rel=1e-9)
    assert (arm.first_step.min_s, arm.first_step.max_s) == (pytest.approx(min(firsts)), pytest.approx(max(firsts)))
    maxima = [max(r["peak_mem_gb"] for r in rows if r["run"] == k) for k in runs]
    assert arm.peak_mem.max_gb == pytest.approx(max(maxima)) and arm.peak_mem.min_run_max_gb == pytest.approx(
        min(maxima)
    )
    launches = [r["kernel_launches"] for r in rows if r["step"] > warmup]
    (metric,) = arm.metrics
    assert metric.name == "kernel_launches" and metric.samples == len(launches)
    assert metric.mean == pytest.approx(statistics.fmean(launches)) and metric.median == statistics.median(launches)
    if threshold is not None:
        slow = [v for v in x if v > threshold]
        assert arm.slow_steps.count == len(slow)
        assert arm.slow_steps.fraction == pytest.approx(len(slow) / n)
        assert arm.slow_steps.time_share == pytest.approx(sum(slow) / sum(x))


# ------------------------------------------------------------------ known answers


@pytest.fixture
def bimodal_8(tmp_path):
    """Baseline: 8 runs, a slow step every 10th step (1.8 s against a typical 1.0 s); PR: 8 runs, unimodal."""
    base = make_runs(1, runs=8, steps=41, typical=1.0, first=30.0, slow_every=10, slow=1.8, mem=61.0, launches=1800)
    pr = make_runs(2, runs=8, steps=41, typical=0.8, first=20.0, mem=58.5, launches=1200)
    return write_campaign(tmp_path / "c", {"baseline": base, "pr": pr}), base, pr


def test_bimodal_baseline_8_runs(bimodal_8):
    path, base, pr = bimodal_8
    res = read_benchmark(str(path))
    assert res.baseline == "baseline" and res.candidate == "pr" and [a.name for a in res.arms] == ["baseline", "pr"]
    b, c = res.arms
    threshold = b.slow_steps.threshold_s
    planted = [v for v in steady(base) if v > 1.5]
    assert len(planted) == 8 * 4
    # The automatic threshold sits in the valley: above every typical step, below every slow one.
    assert max(v for v in steady(base) if v < 1.5) < threshold < min(planted)
    assert "valley" in b.slow_steps.threshold_rule and c.slow_steps.threshold_s == threshold
    check_arm(b, base, threshold=threshold)
    check_arm(c, pr, threshold=threshold)
    assert b.bimodality.detected and b.bimodality.slow_count == 32
    assert b.bimodality.slow_center_s == pytest.approx(statistics.median(planted))
    assert not c.bimodality.detected
    assert b.slow_steps.count == 32 and c.slow_steps.count == 0
    cmp = res.comparison
    xb, xc = steady(base), steady(pr)
    assert cmp.speedup_mean == pytest.approx(statistics.fmean(xb) / statistics.fmean(xc), rel=1e-12)
    assert cmp.speedup_median == pytest.approx(statistics.median(xb) / statistics.median(xc), rel=1e-12)
    assert cmp.change_mean_pct == pytest.approx((statistics.fmean(xc) / statistics.fmean(xb) - 1) * 100, rel=1e-9)
    assert cmp.change_median_pct == pytest.approx((statistics.median(xc) / statistics.median(xb) - 1) * 100, rel=1e-9)
    assert cmp.show_mean_and_median and "bimodal" in cmp.show_reason
    low, high = speedup_interval_reference(base, pr)
    assert cmp.speedup_mean_ci_low == pytest.approx(low, rel=1e-6)
    assert cmp.speedup_mean_ci_high == pytest.approx(high, rel=1e-6)
    sig = cmp.significance
    rb = [statistics.fmean(v) for v in by_run(base).values()]
    rc = [statistics.fmean(v) for v in by_run(pr).values()]
    assert sig.verdict == "faster" and sig.exact
    assert sig.p_value == pytest.approx(exact_u_p(rc, rb)) and sig.p_value == pytest.approx(2 / math.comb(16, 8))
    assert sig.u == 0  # no PR run is slower than any baseline run
    assert (sig.runs_baseline, sig.runs_candidate) == (8, 8)
    assert cmp.slow_steps_baseline == 32 and cmp.slow_steps_candidate == 0
    first_b = statistics.fmean(r["step_time_s"] for r in base if r["step"] == 1)
    first_c = statistics.fmean(r["step_time_s"] for r in pr if r["step"] == 1)
    assert cmp.first_step_change_pct == pytest.approx((first_c / first_b - 1) * 100)
    mem_b, mem_c = max(r["peak_mem_gb"] for r in base), max(r["peak_mem_gb"] for r in pr)
    assert (cmp.peak_mem_baseline_gb, cmp.peak_mem_candidate_gb) == (pytest.approx(mem_b), pytest.approx(mem_c))
    (launch,) = cmp.metrics
    lb = statistics.fmean(r["kernel_launches"] for r in base if r["step"] > 1)
    lc = statistics.fmean(r["kernel_launches"] for r in pr if r["step"] > 1)
    assert launch.change_pct == pytest.approx((lc / lb - 1) * 100)
    # Provenance names the file and the columns behind each group of figures.
    assert b.source.file == "benchmark.csv" and "step_time_s" in b.source.columns and "'baseline'" in b.source.rows
    assert b.peak_mem.source.columns[-1] == "peak_mem_gb" and b.metrics[0].source.columns[-1] == "kernel_launches"
    assert "step" in b.first_step.source.rows and "== 1" in b.first_step.source.rows
    assert res.warnings == []


def test_unimodal_two_runs_is_too_few_to_test(tmp_path):
    base = make_runs(3, runs=2, steps=30, typical=1.0, first=12.0)
    pr = make_runs(4, runs=2, steps=30, typical=0.9, first=11.0)
    res = read_benchmark(str(write_campaign(tmp_path / "c", {"baseline": base, "pr": pr})))
    b, c = res.arms
    x = np.sort(np.array(steady(base)))
    q1, q3 = np.percentile(x, [25, 75])
    expected = max(q3 + 3 * (q3 - q1), 1.2 * np.median(x))
    assert b.slow_steps.threshold_s == pytest.approx(expected)
    check_arm(b, base, threshold=expected)
    check_arm(c, pr, threshold=expected)
    assert not b.bimodality.detected and not c.bimodality.detected
    sig = res.comparison.significance
    assert sig.verdict == "too_few_runs" and sig.p_value is None and sig.u is None
    assert sig.min_p_value == pytest.approx(1 / 3)
    assert "too few runs" in sig.note and "at least 4" in sig.note
    assert b.run_mean.ci_high - b.run_mean.value == pytest.approx(
        12.706 * statistics.stdev([r.mean_s for r in b.per_run]) / math.sqrt(2), rel=1e-3
    )
    assert not res.comparison.show_mean_and_median
    low, high = speedup_interval_reference(base, pr)
    assert (res.comparison.speedup_mean_ci_low, res.comparison.speedup_mean_ci_high) == (
        pytest.approx(low, rel=1e-6),
        pytest.approx(high, rel=1e-6),
    )


def test_overlapping_runs_are_not_significant(tmp_path):
    base = make_runs(5, runs=5, steps=20, typical=1.0, first=5.0, noise=0.03)
    pr = make_runs(6, runs=5, steps=20, typical=0.995, first=5.0, noise=0.03)
    res = read_benchmark(str(write_campaign(tmp_path / "c", {"baseline": base, "pr": pr})))
    sig = res.comparison.significance
    rb = [statistics.fmean(v) for v in by_run(base).values()]
    rc = [statistics.fmean(v) for v in by_run(pr).values()]
    assert sig.p_value == pytest.approx(exact_u_p(rc, rb))
    assert sig.p_value >= 0.05 and sig.verdict == "not_significant"


def test_too_few_samples_for_a_median_interval(tmp_path):
    base = make_runs(7, runs=1, steps=6, typical=1.0, first=3.0)
    pr = make_runs(8, runs=1, steps=6, typical=0.9, first=3.0)
    res = read_benchmark(str(write_campaign(tmp_path / "c", {"baseline": base, "pr": pr})))
    b = res.arms[0]
    assert b.steady_steps == 5 and b.median.ci_low is None and "need >= 6" in b.median.ci_note
    assert b.run_mean.ci_low is None and res.comparison.significance.verdict == "too_few_runs"
    assert res.comparison.speedup_mean_ci_low is None and "need >= 2" in res.comparison.speedup_ci_note
    check_arm(b, base)


def test_extra_arms_are_of_which_rows(tmp_path):
    base = make_runs(9, runs=4, steps=25, typical=1.0, first=9.0)
    alone = make_runs(10, runs=4, steps=25, typical=0.93, first=9.0)
    pr = make_runs(11, runs=4, steps=25, typical=0.85, first=7.0)
    on_top = make_runs(12, runs=4, steps=25, typical=0.88, first=8.0)
    path = write_campaign(tmp_path / "c", {"baseline": base, "fuse-only": alone, "pr": pr, "fuse+cache": on_top})
    res = read_benchmark(str(path))
    assert res.candidate == "pr"
    assert [a.name for a in res.arms] == ["baseline", "pr", "fuse-only", "fuse+cache"]
    assert [o.candidate for o in res.of_which] == ["fuse-only", "fuse+cache"]
    for other, rows in zip(res.of_which, (alone, on_top), strict=True):
        assert other.baseline == "baseline"
        assert other.speedup_mean == pytest.approx(statistics.fmean(steady(base)) / statistics.fmean(steady(rows)))
        assert other.speedup_median == pytest.approx(statistics.median(steady(base)) / statistics.median(steady(rows)))
        rb = [statistics.fmean(v) for v in by_run(base).values()]
        ro = [statistics.fmean(v) for v in by_run(rows).values()]
        assert other.significance.p_value == pytest.approx(exact_u_p(ro, rb))
        check_arm(res.arm(other.candidate), rows)
    picked = read_benchmark(str(path), candidate="fuse-only")
    assert picked.candidate == "fuse-only" and [o.candidate for o in picked.of_which] == ["pr", "fuse+cache"]


def test_several_arms_without_pr_need_a_candidate(tmp_path):
    rows = make_runs(13, runs=2, steps=5, typical=1.0, first=2.0)
    path = write_campaign(tmp_path / "c", {"baseline": rows, "a": rows, "b": rows})
    with pytest.raises(InputError) as err:
        read_benchmark(str(path))
    assert err.value.field == "candidate" and "a, b" in str(err.value)
    assert read_benchmark(str(path), candidate="b").candidate == "b"


def test_given_threshold_and_warmup(tmp_path):
    base = make_runs(14, runs=3, steps=30, typical=1.0, first=8.0, slow_every=7, slow=1.3)
    pr = make_runs(15, runs=3, steps=30, typical=0.9, first=6.0)
    path = write_campaign(tmp_path / "c", {"baseline": base, "pr": pr})
    res = read_benchmark(str(path), slow_threshold_s=1.1, warmup_steps=3)
    assert res.warmup_steps == 3 and res.arms[0].slow_steps.threshold_rule == "given by the caller"
    check_arm(res.arms[0], base, warmup=3, threshold=1.1)
    check_arm(res.arms[1], pr, warmup=3, threshold=1.1)
    zero = read_benchmark(str(path), warmup_steps=0)
    assert zero.arms[0].steady_steps == len(base)


def test_column_mapping_and_ignored_columns(tmp_path):
    base = make_runs(16, runs=2, steps=10, typical=1.0, first=4.0)
    pr = make_runs(17, runs=2, steps=10, typical=0.7, first=4.0)
    for r in base + pr:
        r["host"] = "node-a"
    header = ("arm", "run", "step", "step_time_s", "peak_mem_gb", "kernel_launches", "host")
    rename = {"arm": "variant", "run": "trial", "step_time_s": "iter_seconds", "peak_mem_gb": "max_mem"}
    path = write_campaign(tmp_path / "c", {"ref": base, "new": pr}, header=header, rename=rename)
    with pytest.raises(InputError) as err:
        read_benchmark(str(path))
    assert "'arm'" in str(err.value) and "'run'" in str(err.value) and "found columns: variant, trial" in str(err.value)
    res = read_benchmark(
        str(path),
        baseline="ref",
        columns={"arm": "variant", "run": "trial", "step_time_s": "iter_seconds", "peak_mem_gb": "max_mem"},
    )
    assert res.candidate == "new" and res.ignored_columns == ["host"]
    assert res.columns == {
        "arm": "variant",
        "run": "trial",
        "step": "step",
        "step_time_s": "iter_seconds",
        "peak_mem_gb": "max_mem",
    }
    check_arm(res.arms[0], base)
    assert res.arms[0].source.columns == ["variant", "trial", "step", "iter_seconds"]
    assert res.arms[0].peak_mem.column == "max_mem"


def test_missing_optional_columns(tmp_path):
    base = make_runs(18, runs=2, steps=8, typical=1.0, first=4.0)
    pr = make_runs(19, runs=2, steps=8, typical=0.7, first=4.0)
    path = write_campaign(tmp_path / "c", {"baseline": base, "pr": pr}, header=("arm", "run", "step", "step_time_s"))
    res = read_benchmark(str(path))
    assert res.arms[0].peak_mem is None and res.arms[0].metrics == [] and res.comparison.peak_mem_change_pct is None
    assert "peak_mem_gb" not in res.columns


def test_memory_recorded_on_some_steps_only(tmp_path):
    base = make_runs(20, runs=2, steps=8, typical=1.0, first=4.0)
    pr = make_runs(21, runs=2, steps=8, typical=0.7, first=4.0)
    for r in base + pr:
        if r["step"] != 8:
            r["peak_mem_gb"] = ""
    res = read_benchmark(str(write_campaign(tmp_path / "c", {"baseline": base, "pr": pr})))
    assert [r.peak_mem_gb for r in res.arms[0].per_run] == [r["peak_mem_gb"] for r in base if r["step"] == 8]


# ------------------------------------------------------------------ candidates


def write_candidates(path: Path, records: list) -> None:
    (path / "records").mkdir(exist_ok=True)
    (path / "records" / "candidates.jsonl").write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"
    )


@pytest.fixture
def small(tmp_path):
    base = make_runs(22, runs=2, steps=8, typical=1.0, first=4.0)
    pr = make_runs(23, runs=2, steps=8, typical=0.7, first=4.0)
    return write_campaign(tmp_path / "c", {"baseline": base, "pr": pr})


def test_candidates_marks_other_baselines_and_finds_reports(small):
    sha1, sha2, sha3 = "aa11" + "0" * 36, "bb22" + "1" * 36, "cc33" + "2" * 36
    (small / "commits" / sha1 / "trace").mkdir(parents=True)
    (small / "commits" / sha1 / "report.md").write_text("# one\n")
    (small / "commits" / sha2[:12]).mkdir(parents=True)  # folder named by an abbreviated sha
    (small / "commits" / sha2[:12] / "report.md").write_text("# two\n")
    (small / "latest-report.md").write_text("# latest\n")
    write_candidates(
        small,
        [
            {"sha": sha1, "title": "old win", "shipped": True, "baseline": "0ld0ba5e1234", "before": 2.0, "after": 1.5},
            "",
            {
                "sha": sha2,
                "title": "new win",
                "shipped": True,
                "baseline": "feedface12345678",
                "effect_pct": -7.5,
                "arm": "pr",
                "exp": "exp-3",
            },
            {
                "sha": sha3,
                "title": "dropped",
                "shipped": False,
                "baseline": "feedface1234",
                "before": 1.0,
                "after": 1.01,
                "reason": "no gain",
            },
        ],
    )
    res = read_benchmark(str(small))
    assert res.candidates_file == "records/candidates.jsonl" and res.latest_report == "latest-report.md"
    assert res.reference_baseline == "feedface12345678" and "last shipped" in res.reference_baseline_rule
    one, two, three = res.candidates
    assert (one.line, two.line, three.line) == (1, 3, 4)
    assert one.other_baseline and not two.other_baseline and not three.other_baseline  # sha prefixes match
    assert one.effect_pct == pytest.approx(-25.0) and three.effect_pct == pytest.approx(1.0)
    assert one.report == f"commits/{sha1}/report.md" and one.trace == f"commits/{sha1}/trace/"
    assert two.report == f"commits/{sha2[:12]}/report.md" and two.trace is None
    assert three.report is None and three.note == "no gain" and two.other_fields == {"exp": "exp-3"}
    pinned = read_benchmark(str(small), reference_baseline="0ld0ba5e1234")
    assert [c.other_baseline for c in pinned.candidates] == [False, True, True]


def test_recorded_effect_that_disagrees_is_reported_with_a_warning(small):
    write_candidates(
        small,
        [
            {
                "sha": "abc1234",
                "title": "t",
                "shipped": True,
                "baseline": "b",
                "before": 1.0,
                "after": 0.9,
                "effect_pct": -5.0,
            }
        ],
    )
    res = read_benchmark(str(small))
    assert res.candidates[0].effect_pct == -5.0
    assert any("line 1" in w and "-10.00" in w for w in res.warnings)


def test_example_campaign_matches_a_pandas_summary():
    import pandas as pd

    path = ROOT / "examples" / "campaign"
    res = read_benchmark(str(path))
    df = pd.read_csv(path / "benchmark.csv")
    st = df[df.step > 1]
    means, medians = st.groupby("arm").step_time_s.mean(), st.groupby("arm").step_time_s.median()
    assert res.comparison.speedup_mean == pytest.approx(means["baseline"] / means["pr"])
    assert res.comparison.speedup_median == pytest.approx(medians["baseline"] / medians["pr"])
    assert res.of_which[0].candidate == "fused-loss"
    assert res.arms[0].bimodality.detected and not res.arms[1].bimodality.detected
    assert res.comparison.show_mean_and_median and res.comparison.significance.verdict == "faster"
    mem = df.groupby(["arm", "run"]).peak_mem_gb.max()
    assert res.comparison.peak_mem_baseline_gb == pytest.approx(mem["baseline"].max())
    marked = {c.sha[:7]: c.other_baseline for c in res.candidates}
    assert marked == {"52aa61f": True, "1f6d2c8": True, "c4f1e2a": False, "7d3e9b0": False, "e90b4c7": False}
    assert all(c.report for c in res.candidates if c.shipped)
    assert res.warnings == []


def test_reading_writes_nothing(bimodal_8):
    path = bimodal_8[0]
    before = {p: p.stat().st_mtime_ns for p in path.rglob("*")}
    read_benchmark(str(path))
    assert {p: p.stat().st_mtime_ns for p in path.rglob("*")} == before


# ------------------------------------------------------------------ bad input


def csv_text(path: Path, text: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "benchmark.csv").write_text(text)
    return path


GOOD = "arm,run,step,step_time_s\n" + "".join(
    f"{arm},{run},{step},{t}\n" for arm, t in (("baseline", 1.0), ("pr", 0.8)) for run in (1, 2) for step in (1, 2, 3)
)


@pytest.mark.parametrize(
    "text,field,words",
    [
        ("", "benchmark.csv", ["empty"]),
        ("arm,run,step,step_time_s\n", "benchmark.csv", ["no rows"]),
        ("arm,run,step_time_s\nbaseline,1,1.0\n", "benchmark.csv", ["'step'", "found columns: arm, run, step_time_s"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,3,fast"), "benchmark.csv column 'step_time_s'", ["line 13", "'fast'"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,3,NaN"), "benchmark.csv column 'step_time_s'", ["line 13", "'NaN'"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,3,"), "benchmark.csv column 'step_time_s'", ["line 13", "empty"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,3,inf"), "benchmark.csv column 'step_time_s'", ["line 13"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,3,-0.8"), "benchmark.csv column 'step_time_s'", ["above 0", "line 13"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,0,0.8"), "benchmark.csv column 'step'", [">= 1", "line 13"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2.5,3,0.8"), "benchmark.csv column 'run'", ["whole number", "line 13"]),
        (GOOD.replace("pr,2,3,0.8", ",2,3,0.8"), "benchmark.csv column 'arm'", ["empty", "line 13"]),
        (GOOD.replace("pr,2,3,0.8", "pr,2,2,0.8"), "benchmark.csv", ["arm 'pr', run 2, step 2", "lines 12, 13"]),
        (GOOD.replace("baseline,1,1,1.0\n", "baseline,1,1,1.0,7\n"), "benchmark.csv", ["cannot be read", "line 2"]),
        (GOOD.replace("pr,1,1,0.8\n", "pr,1,1,0.8,7\n"), "benchmark.csv", ["cannot be read", "line 8"]),
        (
            "arm,run,step,step_time_s\nbaseline,1,1,1.0\npr,1,1,0.8\n",
            "benchmark.csv arm 'baseline'",
            ["no steady-state steps", "warmup_steps"],
        ),
        (GOOD + "pr,3,1,0.8\n", "benchmark.csv arm 'pr' run 3", ["no steady-state steps"]),
        ("arm,run,step,step_time_s\nbaseline,1,1,1.0\nbaseline,1,2,1.0\n", "candidate", ["only the baseline"]),
        (
            GOOD.replace("arm,run,step,step_time_s", "arm,run,step,step_time_s,peak_mem_gb")
            .replace("\n", ",1\n")
            .replace("arm,run,step,step_time_s,peak_mem_gb,1\n", "arm,run,step,step_time_s,peak_mem_gb\n")
            .replace("pr,2,3,0.8,1", "pr,2,3,0.8,lots"),
            "benchmark.csv column 'peak_mem_gb'",
            ["line 13", "'lots'"],
        ),
    ],
)
def test_bad_benchmark_files(tmp_path, text, field, words):
    path = csv_text(tmp_path / "c", text)
    with pytest.raises(InputError) as err:
        read_benchmark(str(path))
    assert err.value.field == field, str(err.value)
    for w in words:
        assert w in str(err.value), str(err.value)
    assert err.value.fix


def test_nan_in_an_extra_metric_names_the_line(tmp_path):
    text = GOOD.replace("step_time_s\n", "step_time_s,tokens_per_s\n", 1)
    lines = text.splitlines()
    body = [f"{line},{1000 + i}" for i, line in enumerate(lines[1:])]
    body[4] = body[4].rsplit(",", 1)[0] + ",nan"
    path = csv_text(tmp_path / "c", "\n".join([lines[0], *body]) + "\n")
    with pytest.raises(InputError) as err:
        read_benchmark(str(path))
    assert err.value.field == "benchmark.csv column 'tokens_per_s'" and "line 6" in str(err.value)


@pytest.mark.parametrize(
    "kwargs,field,words",
    [
        ({"baseline": "base"}, "baseline", ["no arm 'base'", "baseline, pr"]),
        ({"candidate": "nope"}, "candidate", ["no arm 'nope'"]),
        ({"candidate": "baseline"}, "candidate", ["also the baseline"]),
        ({"columns": {"time": "t"}}, "columns", ["unknown role 'time'"]),
        ({"columns": {"step_time_s": "t"}}, "columns", ["'t'", "found: arm, run, step, step_time_s"]),
        ({"columns": {"step": "run"}}, "columns", ["more than one role"]),
    ],
)
def test_bad_parameters(tmp_path, kwargs, field, words):
    path = csv_text(tmp_path / "c", GOOD)
    with pytest.raises(InputError) as err:
        read_benchmark(str(path), **kwargs)
    assert err.value.field == field
    for w in words:
        assert w in str(err.value), str(err.value)


def test_missing_campaign_and_missing_benchmark(tmp_path):
    with pytest.raises(InputError) as err:
        read_benchmark(str(tmp_path / "nowhere"))
    assert err.value.field == "campaign_dir" and "does not exist" in str(err.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as err:
        read_benchmark(str(tmp_path / "empty"))
    assert err.value.field == "campaign_dir" and "no benchmark.csv" in str(err.value)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError) as err:
        read_benchmark(str(tmp_path / "file"))
    assert "not a folder" in str(err.value)


@pytest.mark.parametrize(
    "line,field,words",
    [
        ('{"sha": "abc1234", "title": "t", "shipped": true', "records/candidates.jsonl line 2", ["not valid JSON"]),
        ('["abc1234"]', "records/candidates.jsonl line 2", ["not an object"]),
        ('{"sha": "abc1234", "title": "t"}', "records/candidates.jsonl line 2", ["no 'shipped'"]),
        ('{"title": "t", "shipped": true}', "records/candidates.jsonl line 2", ["no 'sha'"]),
        (
            '{"sha": "abc1234", "title": "t", "shipped": "yes"}',
            "records/candidates.jsonl line 2 field 'shipped'",
            ["true or false"],
        ),
        (
            '{"sha": "abc1234", "title": "t", "shipped": true, "before": 1, "after": 0.9}',
            "records/candidates.jsonl line 2",
            ["baseline"],
        ),
        (
            '{"sha": "abc1234", "title": "t", "shipped": true, "baseline": "b", "after": "fast"}',
            "records/candidates.jsonl line 2 field 'after'",
            ["finite number"],
        ),
        (
            '{"sha": "../../etc", "title": "t", "shipped": true}',
            "records/candidates.jsonl line 2 field 'sha'",
            ["not a commit sha"],
        ),
        (
            '{"sha": "abc1234", "title": "t", "shipped": true, "report": "../outside.md"}',
            "records/candidates.jsonl line 2 field 'report'",
            ["not a path inside"],
        ),
        (
            '{"sha": "abc1234", "title": "t", "shipped": true, "report": "/etc/passwd"}',
            "records/candidates.jsonl line 2 field 'report'",
            ["not a path inside"],
        ),
    ],
)
def test_bad_candidates(small, line, field, words):
    write_candidates(small, [{"sha": "abc1234", "title": "fine", "shipped": False}, line])
    with pytest.raises(InputError) as err:
        read_benchmark(str(small))
    assert err.value.field == field, str(err.value)
    for w in words:
        assert w in str(err.value)


# ------------------------------------------------------------------ staying inside the campaign folder


def test_symlinks_out_of_the_campaign_are_refused(small, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "benchmark.csv").write_text((small / "benchmark.csv").read_text())
    (outside / "secret.md").write_text("not yours")
    (outside / "commit").mkdir()
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "benchmark.csv").symlink_to(outside / "benchmark.csv")
    with pytest.raises(InputError) as err:
        read_benchmark(str(linked))
    assert err.value.field == "benchmark.csv" and "outside the campaign folder" in str(err.value)

    (small / "records").mkdir()
    (small / "records" / "candidates.jsonl").symlink_to(outside / "secret.md")
    with pytest.raises(InputError) as err:
        read_benchmark(str(small))
    assert err.value.field == "records/candidates.jsonl"
    (small / "records" / "candidates.jsonl").unlink()

    (small / "latest-report.md").symlink_to(outside / "secret.md")
    with pytest.raises(InputError) as err:
        read_benchmark(str(small))
    assert err.value.field == "latest-report.md"
    (small / "latest-report.md").unlink()

    sha = "abcdef1234567"
    (small / "commits").mkdir()
    (small / "commits" / sha).symlink_to(outside / "commit", target_is_directory=True)
    write_candidates(small, [{"sha": sha, "title": "t", "shipped": True}])
    with pytest.raises(InputError) as err:
        read_benchmark(str(small))
    assert "outside the campaign folder" in str(err.value) and "line 1" in err.value.field

    (small / "commits" / sha).unlink()
    (small / "commits" / sha).mkdir()
    (small / "commits" / sha / "report.md").symlink_to(outside / "secret.md")
    with pytest.raises(InputError) as err:
        read_benchmark(str(small))
    assert "outside the campaign folder" in str(err.value)


def test_symlinks_that_stay_inside_are_fine(small):
    (small / "data").mkdir()
    (small / "benchmark.csv").rename(small / "data" / "bench.csv")
    (small / "benchmark.csv").symlink_to(Path("data") / "bench.csv")
    assert read_benchmark(str(small)).candidate == "pr"


GOOD_CELL = st.floats(0.5, 2.0).map(lambda v: ("ok", f"{v:.4f}"))
BAD_CELL = st.sampled_from(
    [("bad", ""), ("bad", "nan"), ("bad", "NaN"), ("bad", "fast"), ("bad", "-1"), ("bad", "inf"), ("bad", "0")]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(GOOD_CELL, GOOD_CELL, GOOD_CELL, GOOD_CELL, BAD_CELL), min_size=16, max_size=16))
def test_any_bad_cell_is_an_error_and_clean_files_are_right(tmp_path_factory, cells):
    path = tmp_path_factory.mktemp("fuzz")
    keys = [(arm, run, step) for arm in ("baseline", "pr") for run in (1, 2) for step in (1, 2, 3, 4)]
    lines = ["arm,run,step,step_time_s"] + [f"{a},{r},{s},{c[1]}" for (a, r, s), c in zip(keys, cells, strict=True)]
    (path / "benchmark.csv").write_text("\n".join(lines) + "\n")
    # Cells that are not finite numbers are reported first; then step times that are not above 0.
    not_finite = [i + 2 for i, c in enumerate(cells) if c[0] == "bad" and c[1] not in ("-1", "0")]
    not_positive = [i + 2 for i, c in enumerate(cells) if c[1] in ("-1", "0")]
    bad = not_finite or not_positive
    if bad:
        with pytest.raises(InputError) as err:
            read_benchmark(str(path))
        assert (
            err.value.field == "benchmark.csv column 'step_time_s'"
            and f"line{'s' if len(bad) > 1 else ''} {bad[0]}" in str(err.value)
        )
        return
    res = read_benchmark(str(path))
    values = {k: float(c[1]) for k, c in zip(keys, cells, strict=True)}
    for arm in res.arms:
        x = [v for (a, _, s), v in values.items() if a == arm.name and s > 1]
        assert arm.mean.value == pytest.approx(statistics.fmean(x)) and arm.median.value == pytest.approx(
            statistics.median(x)
        )
