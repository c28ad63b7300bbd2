"""Stage 4 of read_benchmark: every arm against the baseline, and the answer assembled.

The steps shape compares step time (step_compare); every shape compares each metric in its own
direction (metric_compare). Runs are the independent units, so every test is over per-run values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfkit.benchmark.metric_compare import compare_metric
from perfkit.benchmark.models import BenchmarkSummary, Comparison
from perfkit.benchmark.step_compare import compare

if TYPE_CHECKING:  # stage 3's answer; this stage calls no earlier one
    from perfkit.benchmark.summarize import Summaries


def compare_arms(s: Summaries) -> BenchmarkSummary:
    loaded = s.loaded
    table, order = loaded.table, loaded.order
    baseline, cand, others = order[0], order[1], order[2:]
    warnings = list(s.warnings)
    comparison = None
    of_which: list[Comparison] = []
    runs = {n: len(table.runs.of_arm(table.arms.index(n))) for n in order}
    if s.arms:
        base = s.arms[0]
        comparison = compare(base, s.arms[1], table.file, table.columns)
        of_which = [compare(base, a, table.file, table.columns) for a in s.arms[2:]]
        runs = {a.name: a.runs for a in s.arms}
    for n in order[1:]:
        if runs[n] != runs[baseline]:
            warnings.append(
                f"arm '{n}' has {runs[n]} runs and the baseline {runs[baseline]}: interleave the same number of "
                "runs per arm"
            )
    metrics, metrics_of_which = [], []
    for m in s.metrics:
        metrics.append(compare_metric(m, m.arms[baseline], m.arms[cand]))
        if m.spec.headline:
            metrics_of_which += [compare_metric(m, m.arms[baseline], m.arms[o]) for o in others]
    files = loaded.files
    return BenchmarkSummary(
        campaign_dir=str(files.root),
        benchmark_file=table.file,
        result_files=table.files if table.files != [table.file] else [],
        columns=table.columns,
        ignored_columns=table.ignored,
        setup=table.setup,
        warmup_steps=loaded.options.warmup_steps if s.arms else 0,
        baseline=baseline,
        candidate=cand,
        shape=table.shape,
        arms=s.arms,
        comparison=comparison,
        of_which=of_which,
        metric_model=s.model,
        uninferred=s.uninferred,
        metrics=metrics,
        metrics_of_which=metrics_of_which,
        arm_names=order,
        candidates=loaded.candidates,
        candidates_file=files.candidates_name,
        reference_baseline=loaded.reference_baseline,
        reference_baseline_rule=loaded.reference_rule,
        latest_report=files.latest_report_name,
        warnings=warnings,
        notes=table.notes,
    )
