"""Each metric per arm and against the baseline, in its own unit and direction.

Runs are the independent units: a per-run metric is averaged over runs with a t interval, and
the Mann-Whitney verdict is taken over per-run values whatever the shape. A statistic of
per-request values (p50, p99) is computed per run and also pooled over the arm's requests; the
pooled value gets an order-statistic interval, the way a median does, and a high percentile
says how many pooled requests lie above it.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from perfkit.benchmark import stats
from perfkit.benchmark.metric_models import ArmMetric, MetricComparison, MetricEstimate
from perfkit.benchmark.metric_spec import MetricSpec, better

TAIL_FROM = 90.0  # percentiles from here up report how many requests lie above them


def quantile_of(stat: str) -> float | None:
    """'p99' -> 0.99, 'median' -> 0.5; None for mean, min, max."""
    if stat in ("median", "p50"):
        return 0.5
    if stat.startswith("p"):
        return float(stat[1:]) / 100.0
    return None


def _stat(sorted_values: np.ndarray, stat: str) -> float:
    q = quantile_of(stat)
    if q is not None:
        return stats.percentile(sorted_values, q * 100.0)
    if stat == "min":
        return float(sorted_values[0])
    if stat == "max":
        return float(sorted_values[-1])
    return float(sorted_values.mean())


def _run_mean_estimate(per_run: list[float], what: str) -> MetricEstimate:
    x = np.asarray(per_run, dtype=float)
    sd = float(x.std(ddof=1)) if len(x) > 1 else None
    ci = stats.mean_ci(float(x.mean()), sd, len(x))
    return MetricEstimate(
        value=float(x.mean()),
        ci_low=ci.low,
        ci_high=ci.high,
        ci_note=ci.note.replace("samples", "runs") if ci.note else None,
        method=f"mean over runs of {what}; Student t interval over runs",
    )


def arm_metric(spec: MetricSpec, arm: str, runs: list[tuple[int, np.ndarray]]) -> ArmMetric:
    """runs: (run id, that run's values of the metric's column, NaN dropped, for steps the steady rows)."""
    ids = [r for r, v in runs if len(v)]
    counts = [len(v) for _, v in runs if len(v)]
    if spec.level == "run":
        per_run = [float(v[0]) for _, v in runs if len(v)]
        return ArmMetric(
            arm=arm,
            estimate=_run_mean_estimate(per_run, "the value each run reports"),
            per_run=per_run,
            run_ids=ids,
            samples=len(per_run),
            run_samples=[1] * len(per_run),
        )
    if spec.level == "step":
        per_run = [float(v.mean()) for _, v in runs if len(v)]
        total = sum(len(v) for _, v in runs)
        return ArmMetric(
            arm=arm,
            estimate=_run_mean_estimate(per_run, "each run's mean over its steady-state steps"),
            per_run=per_run,
            run_ids=ids,
            samples=total,
            run_samples=counts,
        )
    stat = spec.stat or "mean"
    sorted_runs = [np.sort(v) for _, v in runs if len(v)]
    per_run = [_stat(v, stat) for v in sorted_runs]
    pooled = np.sort(np.concatenate(sorted_runs)) if sorted_runs else np.array([])
    n = len(pooled)
    q = quantile_of(stat)
    tail = tail_note = None
    if q is None:
        est = _run_mean_estimate(per_run, f"each run's {stat} over its requests")
        if stat == "mean":
            est.value = float(pooled.mean())
            est.method = "mean over all requests of the arm; Student t interval over the per-run means"
    else:
        ci = stats.quantile_ci(pooled, q)
        cover = f" (exact coverage {ci.coverage:.3f})" if ci.coverage is not None else ""
        est = MetricEstimate(
            value=stats.percentile(pooled, q * 100.0),
            ci_low=ci.low,
            ci_high=ci.high,
            ci_note=ci.note,
            method=f"{stat} of all {n:,} requests of the arm (linear interpolation); interval between order "
            f"statistics from the binomial distribution{cover}",
        )
        if q * 100.0 >= TAIL_FROM:
            tail = int(n - np.searchsorted(pooled, est.value, side="right"))
            per = min(len(v) for v in sorted_runs)
            tail_note = (
                f"the {stat} of {n:,} requests rests on the {tail:,} slowest; a single run's {stat} "
                f"(at least {per:,} requests) rests on about {max(0, math.floor(per * (1 - q))):,}"
            )
    return ArmMetric(
        arm=arm,
        estimate=est,
        per_run=per_run,
        run_ids=ids,
        samples=n,
        run_samples=counts,
        tail_samples=tail,
        tail_note=tail_note,
    )


def compare_metric(spec: MetricSpec, base: ArmMetric, cand: ArmMetric) -> MetricComparison:
    b, c = base.estimate.value, cand.estimate.value
    change = (c - b) / b * 100.0 if b else 0.0
    if spec.direction == "lower":
        speedup = b / c if c else math.inf
        ratio = stats.ratio_ci(base.per_run, cand.per_run)
    else:
        speedup = c / b if b else math.inf
        ratio = stats.ratio_ci(cand.per_run, base.per_run)
    is_better = better(spec.direction, c - b)
    outcome: Literal["better", "worse", "unchanged"] = (
        "unchanged" if is_better is None else "better" if is_better else "worse"
    )
    min_p = stats.u_min_p(len(base.per_run), len(cand.per_run))
    verdict: Literal["better", "worse", "not_significant", "too_few_runs"]
    if min_p > stats.ALPHA:
        verdict, p = "too_few_runs", None
        note = (
            f"too few runs to test: with {len(base.per_run)} and {len(cand.per_run)} runs the smallest "
            f"possible p-value is {min_p:.3g}"
        )
    else:
        test = stats.mann_whitney_u(cand.per_run, base.per_run)
        p = test.p_value
        assert p is not None
        cand_lower = test.a_lower
        if p < stats.ALPHA:
            verdict = "better" if (cand_lower == (spec.direction == "lower")) else "worse"
            note = (
                f"{spec.name} is {verdict} in {cand.arm}: p = {p:.3g} over {len(cand.per_run)} and "
                f"{len(base.per_run)} runs"
            )
        else:
            verdict = "not_significant"
            note = f"{spec.name}: no significant difference, p = {p:.3g}"
    return MetricComparison(
        key=spec.key,
        name=spec.name,
        unit=spec.unit,
        direction=spec.direction,
        baseline=base,
        candidate=cand,
        change_pct=change,
        speedup=speedup,
        speedup_ci_low=ratio.low,
        speedup_ci_high=ratio.high,
        outcome=outcome,
        verdict=verdict,
        p_value=p,
        note=note,
    )
