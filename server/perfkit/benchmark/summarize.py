"""Per-arm figures and arm-against-baseline comparisons, from a validated table."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from perfkit.benchmark import stats
from perfkit.benchmark.load import ARM, MEM, RUN, STEP, TIME, Table
from perfkit.benchmark.models import (
    ArmSummary,
    Bimodality,
    Comparison,
    Estimate,
    FirstStep,
    MetricChange,
    MetricSummary,
    PeakMemory,
    RunSummary,
    Significance,
    SlowSteps,
    Source,
)

BIMODAL_RULE = (
    "two-group split of the sorted steady-state times (largest between-group variance, each group "
    ">= 3 steps and >= 1%); bimodal when the upper median is >= 5% and >= 4 IQRs of the lower group "
    "above the lower median and the gap between them is a valley (fewer than half the steps of the "
    "sparser cluster in a window of the same width)"
)
SHOW_BOTH_GAP = 0.02  # speedup_mean and speedup_median differing by more than 2% need both shown


@dataclass
class ArmData:
    """The numpy views one arm's figures are computed from."""

    name: str
    runs: np.ndarray  # run index per row, sorted by (run, step)
    steps: np.ndarray
    times: np.ndarray
    steady: np.ndarray  # boolean mask: step > warmup
    mem: np.ndarray | None
    metrics: dict[str, np.ndarray]

    @functools.cached_property
    def steady_sorted(self) -> np.ndarray:
        return np.sort(self.times[self.steady])


def split_arms(table: Table, warmup_steps: int) -> dict[str, ArmData]:
    frame = table.frame  # sorted by arm, run, step
    codes = frame[ARM].to_numpy()
    bounds = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(codes)]])
    arms: dict[str, ArmData] = {}
    for s, e in sorted(zip(starts, ends, strict=True), key=lambda se: codes[se[0]]):
        part = frame.iloc[int(s) : int(e)]
        name = table.arms[int(codes[s])]
        steps = part[STEP].to_numpy()
        arms[name] = ArmData(
            name=name,
            runs=part[RUN].to_numpy(),
            steps=steps,
            times=part[TIME].to_numpy(dtype=float),
            steady=steps > warmup_steps,
            mem=part[MEM].to_numpy(dtype=float) if MEM in part else None,
            metrics={m: part[f"m:{m}"].to_numpy(dtype=float) for m in table.metrics},
        )
    return arms


def _estimate_mean(values: np.ndarray, method: str) -> Estimate:
    n = len(values)
    mean = float(values.mean())
    sd = float(values.std(ddof=1)) if n > 1 else None
    ci = stats.mean_ci(mean, sd, n)
    return Estimate(value=mean, ci_low=ci.low, ci_high=ci.high, ci_note=ci.note, n=n, method=method)


def _run_groups(arm: ArmData) -> list[tuple[int, slice]]:
    bounds = np.flatnonzero(arm.runs[1:] != arm.runs[:-1]) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(arm.runs)]])
    return [(int(arm.runs[s]), slice(int(s), int(e))) for s, e in zip(starts, ends, strict=True)]


def summarize_arm(
    arm: ArmData, table: Table, warmup_steps: int, threshold: float, threshold_rule: str, shape: stats.Split
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
    for run, sl in _run_groups(arm):
        times, steps, steady = arm.times[sl], arm.steps[sl], arm.steady[sl]
        st = times[steady]
        first = times[steps == 1]
        if len(first):
            first_steps.append(float(first[0]))
        mem = None
        if arm.mem is not None:
            m = arm.mem[sl]
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


def _metric(arm: ArmData, name: str, table: Table, rows: str) -> MetricSummary:
    values = arm.metrics[name]
    steady = values[arm.steady]
    present = steady[~np.isnan(steady)]
    per_run: list[float | None] = []
    for _, sl in _run_groups(arm):
        v = values[sl][arm.steady[sl]]
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


def _pct(new: float | None, old: float | None) -> float | None:
    if new is None or old is None or old == 0:
        return None
    return (new - old) / old * 100.0


def significance(base: ArmSummary, cand: ArmSummary) -> Significance:
    a = [r.mean_s for r in base.per_run]
    b = [r.mean_s for r in cand.per_run]
    min_p = stats.u_min_p(len(a), len(b))
    method = "Mann-Whitney U, two-sided, on the per-run mean step times"
    if min_p > stats.ALPHA:
        need = _runs_needed(len(a), len(b))
        return Significance(
            verdict="too_few_runs",
            method=method,
            runs_baseline=len(a),
            runs_candidate=len(b),
            u=None,
            p_value=None,
            min_p_value=min_p,
            alpha=stats.ALPHA,
            exact=True,
            note=f"too few runs to test: with {len(a)} and {len(b)} runs the smallest possible p-value is "
            f"{min_p:.3g}, above {stats.ALPHA}; {need}",
        )
    test = stats.mann_whitney_u(b, a)  # candidate first: u counts pairs where the candidate is slower
    assert test.p_value is not None
    verdict: Literal["faster", "slower", "not_significant"]
    if test.p_value < stats.ALPHA:
        verdict = "faster" if test.a_lower else "slower"
        note = (
            f"{cand.name} is {verdict} than {base.name}: p = {test.p_value:.3g} over {len(b)} and {len(a)} runs "
            f"(alpha {stats.ALPHA})"
        )
    else:
        verdict = "not_significant"
        note = (
            f"no significant difference: p = {test.p_value:.3g} over {len(b)} and {len(a)} runs (alpha {stats.ALPHA})"
        )
    return Significance(
        verdict=verdict,
        method=method,
        runs_baseline=len(a),
        runs_candidate=len(b),
        u=test.u_a,
        p_value=test.p_value,
        min_p_value=min_p,
        alpha=stats.ALPHA,
        exact=test.exact,
        note=note,
    )


def _runs_needed(n_a: int, n_b: int) -> str:
    k = 1
    while stats.u_min_p(k, k) > stats.ALPHA:
        k += 1
    other = max(n_a, n_b)
    small = 1
    while stats.u_min_p(small, other) > stats.ALPHA and small < other:
        small += 1
    extra = (
        f" (or {small} against the {other} of the other arm)"
        if small < k and stats.u_min_p(small, other) <= stats.ALPHA
        else ""
    )
    return f"run at least {k} interleaved runs per arm{extra}"


def compare(base: ArmSummary, cand: ArmSummary, table: Table) -> Comparison:
    cols = table.columns
    sm = base.mean.value / cand.mean.value
    smed = base.median.value / cand.median.value
    gap = abs(sm - smed) / smed
    bimodal = [a.name for a in (base, cand) if a.bimodality.detected]
    if bimodal:
        reason = f"bimodal step times in {' and '.join(bimodal)}: the mean counts the slow cluster, the median does not"
    elif gap > SHOW_BOTH_GAP:
        reason = f"speedup of the mean ({sm:.3f}x) and of the median ({smed:.3f}x) differ by {100 * gap:.1f}%"
    else:
        reason = f"neither arm is bimodal and the two speedups agree within {100 * SHOW_BOTH_GAP:.0f}%"
    bm = {m.name: m for m in base.metrics}
    cm = {m.name: m for m in cand.metrics}
    metrics = [
        MetricChange(name=n, baseline=bm[n].mean, candidate=cm[n].mean, change_pct=_pct(cm[n].mean, bm[n].mean))
        for n in bm
        if n in cm
    ]
    pb = base.peak_mem.max_gb if base.peak_mem else None
    pc = cand.peak_mem.max_gb if cand.peak_mem else None
    ratio = stats.ratio_ci([r.mean_s for r in base.per_run], [r.mean_s for r in cand.per_run])
    return Comparison(
        baseline=base.name,
        candidate=cand.name,
        speedup_mean=sm,
        speedup_median=smed,
        speedup_mean_ci_low=ratio.low,
        speedup_mean_ci_high=ratio.high,
        speedup_ci_note=ratio.note,
        change_mean_pct=(cand.mean.value - base.mean.value) / base.mean.value * 100.0,
        change_median_pct=(cand.median.value - base.median.value) / base.median.value * 100.0,
        significance=significance(base, cand),
        show_mean_and_median=bool(bimodal) or gap > SHOW_BOTH_GAP,
        show_reason=reason,
        slow_steps_baseline=base.slow_steps.count,
        slow_steps_candidate=cand.slow_steps.count,
        first_step_baseline_s=base.first_step.mean_s,
        first_step_candidate_s=cand.first_step.mean_s,
        first_step_change_pct=_pct(cand.first_step.mean_s, base.first_step.mean_s),
        peak_mem_baseline_gb=pb,
        peak_mem_candidate_gb=pc,
        peak_mem_change_pct=_pct(pc, pb),
        metrics=metrics,
        source=Source(
            file=table.file,
            columns=[cols["arm"], cols["run"], cols["step"], cols["step_time_s"]],
            rows=f"{cols['arm']} in ('{base.name}', '{cand.name}'), steady state",
            how="speedup = baseline / candidate; change = (candidate - baseline) / baseline",
        ),
    )
