"""One metric of one arm against the baseline, in the metric's own direction (part of stage 4).

Runs are the independent units: the Mann-Whitney verdict is over per-run values whatever the shape,
and the speedup's interval comes from the per-run values too.
"""

from __future__ import annotations

import math
from typing import Literal

from perfkit.benchmark import stats
from perfkit.benchmark.metric_models import ArmMetric, MetricComparison
from perfkit.benchmark.metric_spec import MetricSpec, better
from perfkit.benchmark.metric_summary import ArmMetrics


def compare_metric(m: ArmMetrics, base: ArmMetric, cand: ArmMetric) -> MetricComparison:
    spec: MetricSpec = m.spec
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
        basis=m.basis,
        basis_note=m.basis_note,
    )
