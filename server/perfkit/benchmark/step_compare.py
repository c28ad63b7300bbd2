"""Step time of one arm against the baseline (part of stage 4, the steps shape).

Speedups of the mean and the median, an interval of the speedup from the per-run means, and a
Mann-Whitney U test across runs (or an explicit "too few runs" with the runs needed).
"""

from __future__ import annotations

from typing import Literal

from perfkit.benchmark import stats
from perfkit.benchmark.models import ArmSummary, Comparison, MetricChange, Significance, Source

SHOW_BOTH_GAP = 0.02  # speedup_mean and speedup_median differing by more than 2% need both shown


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


def compare(base: ArmSummary, cand: ArmSummary, file: str, cols: dict[str, str]) -> Comparison:
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
            file=file,
            columns=[cols["arm"], cols["run"], cols["step"], cols["step_time_s"]],
            rows=f"{cols['arm']} in ('{base.name}', '{cand.name}'), steady state",
            how="speedup = baseline / candidate; change = (candidate - baseline) / baseline",
        ),
    )
