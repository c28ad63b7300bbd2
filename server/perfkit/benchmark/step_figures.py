"""The step-time figures of each arm of a steps campaign: steady state, per run, first step, slow steps.

Part of stage 3 (summarize.py): each arm on its own, from the loaded table's run groups. The shape
rules (bimodality, the automatic slow-step threshold) are documented in docs/campaign-format.md.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from perfkit.benchmark import stats
from perfkit.benchmark.metric_spec import MetricDecl, MetricSpec, resolve
from perfkit.benchmark.models import (
    ArmSummary,
    Bimodality,
    Estimate,
    FirstStep,
    MetricSummary,
    PeakMemory,
    RunSummary,
    SlowSteps,
    Source,
)
from perfkit.benchmark.table import MEM, STEP, TIME, Measurements, metric
from perfkit.errors import InputError

if TYPE_CHECKING:
    from perfkit.benchmark.options import BenchmarkOptions

BIMODAL_RULE = (
    "two-group split of the sorted steady-state times (largest between-group variance, each group "
    ">= 3 steps and >= 1%); bimodal when the upper median is >= 5% and >= 4 IQRs of the lower group "
    "above the lower median and the gap between them is a valley (fewer than half the steps of the "
    "sparser cluster in a window of the same width)"
)


@dataclass
class ArmData:
    """The numpy views one arm's step figures are computed from; runs as slices of these arrays."""

    name: str
    runs: list[tuple[int, slice]]  # (run, its rows within the arm's arrays), in run order
    steps: np.ndarray
    times: np.ndarray
    steady: np.ndarray  # boolean mask: step > warmup
    mem: np.ndarray | None
    metrics: dict[str, np.ndarray]

    @functools.cached_property
    def steady_sorted(self) -> np.ndarray:
        return np.sort(self.times[self.steady])


def step_arms(
    table: Measurements, options: BenchmarkOptions, order: list[str]
) -> tuple[list[ArmSummary], dict[str, ArmData], list[str]]:
    """Every arm's step-time figures in report order, the arrays they came from, and the warnings."""
    arms = split_arms(table, options.warmup_steps, order)
    warnings: list[str] = []
    for name in order:
        warnings += check_steady(arms[name], options.warmup_steps, table.file)
    shapes = {name: stats.find_slow_cluster(arms[name].steady_sorted) for name in order}
    base = order[0]
    if options.slow_threshold_s is not None:
        threshold, rule = options.slow_threshold_s, "given by the caller"
    else:
        threshold, rule = stats.automatic_slow_threshold(arms[base].steady_sorted, shapes[base])
    summaries = [summarize_arm(arms[n], table, options.warmup_steps, threshold, rule, shapes[n]) for n in order]
    return summaries, arms, warnings


def split_arms(table: Measurements, warmup_steps: int, order: list[str]) -> dict[str, ArmData]:
    frame = table.frame  # sorted by arm, run, step
    arms: dict[str, ArmData] = {}
    code = {n: i for i, n in enumerate(table.arms)}
    for name in order:
        rows = table.runs.arm_rows(code[name])
        part = frame.iloc[rows]
        steps = part[STEP].to_numpy()
        start = rows.start
        arms[name] = ArmData(
            name=name,
            runs=[(s.run, slice(s.rows.start - start, s.rows.stop - start)) for s in table.runs.of_arm(code[name])],
            steps=steps,
            times=part[TIME].to_numpy(dtype=float),
            steady=steps > warmup_steps,
            mem=part[MEM].to_numpy(dtype=float) if MEM in part else None,
            metrics={m: part[metric(m)].to_numpy(dtype=float) for m in table.metrics},
        )
    return arms


def check_steady(arm: ArmData, warmup_steps: int, file: str) -> list[str]:
    if not arm.steady.any():
        raise InputError(
            f"{file} arm '{arm.name}'",
            f"has no steady-state steps: its steps go up to {int(arm.steps.max())} and warmup_steps is {warmup_steps}",
            "record more steps per run or lower warmup_steps",
        )
    warnings: list[str] = []
    for run, rows in arm.runs:
        steps = arm.steps[rows]
        if not arm.steady[rows].any():
            raise InputError(
                f"{file} arm '{arm.name}' run {run}",
                f"has no steady-state steps: its steps go up to {int(steps.max())} and warmup_steps is {warmup_steps}",
                "record more steps in that run, drop the run, or lower warmup_steps",
            )
        lo, hi = int(steps.min()), int(steps.max())
        if lo != 1:
            warnings.append(
                f"arm '{arm.name}' run {run} has no step 1 (first step {lo}): its first-step time is "
                "unknown and its warm-up is counted from step 1"
            )
        if hi - lo + 1 != len(steps):
            warnings.append(f"arm '{arm.name}' run {run} is missing {hi - lo + 1 - len(steps)} of the steps {lo}..{hi}")
    return warnings


def step_spec(column: str) -> MetricSpec:
    return resolve(
        MetricDecl(column=column, name="step time", unit="s", direction="lower", level="step"),
        "inferred",
        f"'{column}' holds the step time (the step_time_s role): lower is better",
        "step",
    )


def _estimate_mean(values: np.ndarray, method: str) -> Estimate:
    n = len(values)
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else None
    ci = stats.mean_ci(mean, sd, n)
    return Estimate(value=mean, ci_low=ci.low, ci_high=ci.high, ci_note=ci.note, n=n, method=method)


def summarize_arm(
    arm: ArmData, table: Measurements, warmup_steps: int, threshold: float, threshold_rule: str, shape: stats.Split
) -> ArmSummary:
    cols = table.columns
    time_col = cols["step_time_s"]
    steady_rows = f"{cols['arm']} == '{arm.name}', {cols['step']} > {warmup_steps}"
    x = arm.steady_sorted
    n = len(x)
    med = float(np.median(x))
    mean_est = _estimate_mean(x, "mean of steady-state steps; Student t interval over steps")
    mci = stats.median_ci(x)
    coverage = f" (exact coverage {mci.coverage:.3f})" if mci.coverage is not None else ""
    median_est = Estimate(
        value=med,
        ci_low=mci.low,
        ci_high=mci.high,
        ci_note=mci.note,
        n=n,
        method="median of steady-state steps; interval between order statistics from the "
        f"binomial distribution{coverage}",
    )
    per_run: list[RunSummary] = []
    first_steps: list[float] = []
    for run, rows in arm.runs:
        times, steps, steady = arm.times[rows], arm.steps[rows], arm.steady[rows]
        st = times[steady]
        first = times[steps == 1]
        if len(first):
            first_steps.append(float(first[0]))
        mem = None
        if arm.mem is not None:
            m = arm.mem[rows]
            m = m[~np.isnan(m)]
            mem = float(m.max()) if len(m) else None
        per_run.append(
            RunSummary(
                run=run,
                steps=len(times),
                steady_steps=len(st),
                mean_s=float(st.mean()),
                median_s=float(np.median(st)),
                first_step_s=float(first[0]) if len(first) else None,
                slow_steps=int((st > threshold).sum()),
                peak_mem_gb=mem,
            )
        )
    run_means = np.array([r.mean_s for r in per_run])
    run_mean_est = _estimate_mean(run_means, "mean of the per-run means; Student t interval over runs")
    if len(run_means) < 2:
        run_mean_est.ci_note = "too few runs: need >= 2 for an interval across runs"
    sd = float(x.std(ddof=1)) if n > 1 else None
    slow = x[x > threshold]
    src_time = Source(file=table.file, columns=[cols["arm"], cols["run"], cols["step"], time_col], rows=steady_rows)
    first_mean = float(np.mean(first_steps)) if first_steps else None
    first = FirstStep(
        mean_s=first_mean,
        min_s=min(first_steps) if first_steps else None,
        max_s=max(first_steps) if first_steps else None,
        runs=len(first_steps),
        excess_s=first_mean - med if first_mean is not None else None,
        source=Source(
            file=table.file,
            columns=[cols["arm"], cols["step"], time_col],
            rows=f"{cols['arm']} == '{arm.name}', {cols['step']} == 1",
            how="mean over runs; excess = that mean minus the steady-state median",
        ),
    )
    slow_steps = SlowSteps(
        threshold_s=threshold,
        threshold_rule=threshold_rule,
        count=int(len(slow)),
        fraction=len(slow) / n,
        time_share=float(slow.sum() / x.sum()),
        mean_slow_s=float(slow.mean()) if len(slow) else None,
        source=src_time.model_copy(update={"how": f"steady-state steps with {time_col} > {threshold:.6g}"}),
    )
    bimodality = Bimodality(
        detected=shape.detected,
        fast_center_s=shape.fast_center_s,
        slow_center_s=shape.slow_center_s,
        slow_count=shape.slow_count,
        split_s=shape.split_s,
        reason=shape.reason,
        rule=BIMODAL_RULE,
    )
    peak = None
    if arm.mem is not None:
        maxima = [r.peak_mem_gb for r in per_run if r.peak_mem_gb is not None]
        if maxima:
            peak = PeakMemory(
                column=cols["peak_mem_gb"],
                max_gb=max(maxima),
                min_run_max_gb=min(maxima),
                runs_with_data=len(maxima),
                source=Source(
                    file=table.file,
                    columns=[cols["arm"], cols["run"], cols["peak_mem_gb"]],
                    rows=f"{cols['arm']} == '{arm.name}', all steps",
                    how="max per run, then max over runs",
                ),
            )
    metrics = [_metric(arm, name, table, steady_rows) for name in table.metrics]
    return ArmSummary(
        name=arm.name,
        runs=len(per_run),
        run_ids=[r.run for r in per_run],
        steps=len(arm.times),
        steady_steps=n,
        mean=mean_est,
        median=median_est,
        run_mean=run_mean_est,
        stdev_s=sd,
        cv=sd / mean_est.value if sd is not None else None,
        min_s=float(x[0]),
        max_s=float(x[-1]),
        p10_s=stats.percentile(x, 10),
        p90_s=stats.percentile(x, 90),
        mean_over_median=mean_est.value / med,
        per_run=per_run,
        first_step=first,
        slow_steps=slow_steps,
        bimodality=bimodality,
        peak_mem=peak,
        metrics=metrics,
        source=src_time.model_copy(update={"how": "steady state: steps after the warm-up, pooled over runs"}),
    )


def _metric(arm: ArmData, name: str, table: Measurements, rows: str) -> MetricSummary:
    values = arm.metrics[name]
    steady = values[arm.steady]
    present = steady[~np.isnan(steady)]
    per_run: list[float | None] = []
    for _, run_rows in arm.runs:
        v = values[run_rows][arm.steady[run_rows]]
        v = v[~np.isnan(v)]
        per_run.append(float(v.mean()) if len(v) else None)
    has = len(present) > 0
    return MetricSummary(
        name=name,
        samples=int(len(present)),
        mean=float(present.mean()) if has else None,
        median=float(np.median(present)) if has else None,
        min=float(present.min()) if has else None,
        max=float(present.max()) if has else None,
        per_run_mean=per_run,
        source=Source(
            file=table.file,
            columns=[table.columns["arm"], table.columns["step"], name],
            rows=rows,
            how="over steady-state rows that have a value",
        ),
    )
