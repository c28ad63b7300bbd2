"""Each metric for every arm, in its own unit: the per-run values and the estimate a description quotes.

Runs are the independent units: a per-run metric is averaged over runs with a t interval (and the
comparison's Mann-Whitney verdict is taken over per-run values whatever the shape). A statistic of
per-request values (p50, p99) is computed per run and also pooled over the arm's requests; the
pooled value gets an order-statistic interval, the way a median does, and a high percentile says
how many pooled requests lie above it.

Where results files saved per-request lists (vLLM's --save-detailed, SGLang's --output-details) for
every run of every arm, a saved statistic of those requests (p99_ttft_ms, mean_itl_ms) is computed
again over all the arm's requests pooled, with an order-statistic interval; otherwise it is the
mean of the per-run values, and `basis` says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from perfkit.benchmark import stats
from perfkit.benchmark.metric_models import ArmMetric, Basis, MetricEstimate
from perfkit.benchmark.metric_spec import MetricSpec, request_statistic
from perfkit.benchmark.table import Measurements, metric

if TYPE_CHECKING:
    from perfkit.benchmark.step_figures import ArmData

TAIL_FROM = 90.0  # percentiles from here up report how many requests lie above them
AGREE = 0.005  # a saved per-run statistic and the same statistic of its saved requests agree within 0.5%


@dataclass
class ArmMetrics:
    """One metric of the model for every arm, and what its estimates are."""

    spec: MetricSpec
    arms: dict[str, ArmMetric]
    basis: Basis
    basis_note: str | None = None


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


def arm_metric(
    spec: MetricSpec, arm: str, runs: list[tuple[int, np.ndarray]], what: str = "requests", presorted: bool = False
) -> ArmMetric:
    """runs: (run id, that run's values of the metric's column, NaN dropped, for steps the steady rows).

    what: the word for one per-request value ('requests', or 'token gaps' for inter-token latency);
    presorted: each run's values are sorted already (the statistics of one column share one sort)."""
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
    sorted_runs = [v if presorted else np.sort(v) for _, v in runs if len(v)]
    per_run = [_stat(v, stat) for v in sorted_runs]
    # merging sorted runs: a stable sort finds them and merges in about n log(runs)
    pooled = np.sort(np.concatenate(sorted_runs), kind="stable") if sorted_runs else np.array([])
    n = len(pooled)
    q = quantile_of(stat)
    tail = tail_note = None
    if q is None:
        est = _run_mean_estimate(per_run, f"each run's {stat} over its {what}")
        if stat == "mean":
            est.value = float(pooled.mean())
            est.method = f"mean over all {what} of the arm; Student t interval over the per-run means"
    else:
        ci = stats.quantile_ci(pooled, q)
        cover = f" (exact coverage {ci.coverage:.3f})" if ci.coverage is not None else ""
        est = MetricEstimate(
            value=stats.percentile(pooled, q * 100.0),
            ci_low=ci.low,
            ci_high=ci.high,
            ci_note=ci.note,
            method=f"{stat} of all {n:,} {what} of the arm pooled (linear interpolation); interval between "
            f"order statistics from the binomial distribution{cover}",
        )
        if q * 100.0 >= TAIL_FROM:
            tail = int(n - np.searchsorted(pooled, est.value, side="right"))
            per = min(len(v) for v in sorted_runs)
            tail_note = (
                f"the {stat} of {n:,} {what} rests on the {tail:,} slowest; a single run's {stat} "
                f"(at least {per:,} {what}) rests on about {max(0, math.floor(per * (1 - q))):,}"
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


# ---- every arm of one metric


class NoValues(ValueError):
    """A metric with no value at all in one arm: nothing to estimate, nothing to compare."""

    def __init__(self, arm: str) -> None:
        super().__init__(arm)
        self.arm = arm


def _measured(arm: str, runs: list[tuple[int, np.ndarray]]) -> list[tuple[int, np.ndarray]]:
    if not any(len(v) for _, v in runs):
        raise NoValues(arm)
    return runs


def step_arm_metrics(spec: MetricSpec, arms: dict[str, ArmData], time_column: str, order: list[str]) -> ArmMetrics:
    """A metric of the steps shape for every arm: per run, the mean over its steady-state steps."""
    out = {}
    for n in order:
        arm = arms[n]
        values = arm.times if spec.column == time_column else arm.metrics[spec.column]
        runs = []
        for run, rows in arm.runs:
            kept = values[rows][arm.steady[rows]]
            runs.append((run, kept[~np.isnan(kept)]))
        out[n] = arm_metric(spec, n, _measured(n, runs))
    return ArmMetrics(spec, out, "mean_of_runs")


def _runs(table: Measurements, arm: int, column: str) -> list[tuple[int, np.ndarray]]:
    """(run, the run's non-empty values of column, sorted) for one arm of the table; the statistics of
    one column (mean, p50, p99) share these, so each run is sorted once."""
    key = (arm, column)
    if key not in table.sorted_runs:
        values = table.frame[metric(column)].to_numpy(dtype=float)
        out = []
        for s in table.runs.of_arm(arm):
            v = values[s.rows]
            out.append((s.run, np.sort(v[~np.isnan(v)])))
        table.sorted_runs[key] = out
    return table.sorted_runs[key]


def arm_metrics(spec: MetricSpec, table: Measurements, order: list[str], warnings: list[str]) -> ArmMetrics:
    """A metric of the runs or requests shape for every arm; pooled over the per-request lists results
    files saved, when every run of every arm saved them (see the module's docstring)."""
    code = {n: i for i, n in enumerate(table.arms)}
    saved = {n: _measured(n, _runs(table, code[n], spec.column)) for n in order}
    pooled = request_statistic(spec.column) if spec.level == "run" else None
    lists = table.requests.values.get(pooled[0], {}) if pooled else {}
    if pooled is None or not lists:
        over_requests = spec.level == "request" and (spec.stat or "mean") not in ("min", "max")
        basis: Basis = "pooled_requests" if over_requests else "mean_of_runs"
        return ArmMetrics(spec, {n: arm_metric(spec, n, saved[n], presorted=True) for n in order}, basis)
    quantity, stat = pooled
    lacking = [
        (n, s.run) for n in order for s in table.runs.of_arm(code[n]) if len(lists.get((code[n], s.run), ())) == 0
    ]
    key = table.requests.keys[quantity]
    if lacking:
        n, run = lacking[0]
        more = f" (and {len(lacking) - 1} other runs)" if len(lacking) > 1 else ""
        note = (
            f"the mean of the per-run values: run {run} of arm '{n}'{more} saved no per-request {key}, so the "
            "requests of every run cannot be pooled"
        )
        return ArmMetrics(spec, {n: arm_metric(spec, n, saved[n], presorted=True) for n in order}, "mean_of_runs", note)
    as_requests = spec.model_copy(update={"level": "request", "stat": stat})
    what = "token gaps" if quantity == "itl" else "requests"
    arms = {}
    for n in order:
        runs = [(s.run, lists[(code[n], s.run)]) for s in table.runs.of_arm(code[n])]
        arms[n] = arm_metric(as_requests, n, runs, what)
        for (run, given), computed in zip(saved[n], arms[n].per_run, strict=False):
            if len(given) and not np.isclose(given[0], computed, rtol=AGREE, atol=0.0):
                warnings.append(
                    f"arm '{n}' run {run}: '{spec.column}' is saved as {given[0]:.6g}, and its per-request {key} "
                    f"give {computed:.6g}; the figures use the per-request values"
                )
    return ArmMetrics(spec, arms, "pooled_requests")
