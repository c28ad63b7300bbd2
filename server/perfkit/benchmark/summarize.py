"""Stage 3 of read_benchmark: every arm summarised on its own, from the loaded table.

The steps shape gets the step-time figures (step_figures: steady state, per run, first step, slow
steps, bimodality, peak memory); every shape gets each metric of the metric model (metric_build)
per arm (metric_summary). Runs come from the table's run groups (one pandas groupby). Nothing here
compares two arms: that is the next stage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perfkit.benchmark.metric_build import build_model
from perfkit.benchmark.metric_spec import Level, MetricSpec, Uninferred
from perfkit.benchmark.metric_summary import ArmMetrics, NoValues, arm_metrics, step_arm_metrics
from perfkit.benchmark.models import ArmSummary
from perfkit.benchmark.step_figures import step_arms, step_spec
from perfkit.errors import InputError

if TYPE_CHECKING:  # the loaded campaign is stage 2's; this stage never calls back into it
    from perfkit.benchmark.load import Loaded


@dataclass
class Summaries:
    """Stage 3's answer: each arm on its own; the comparisons are stage 4's."""

    loaded: Loaded
    model: list[MetricSpec]
    uninferred: list[Uninferred]
    metrics: list[ArmMetrics]
    arms: list[ArmSummary] = field(default_factory=list)  # steps shape: in report order
    warnings: list[str] = field(default_factory=list)


def summarise(loaded: Loaded) -> Summaries:
    table, options, order = loaded.table, loaded.options, loaded.order
    decls = options.metrics or []
    infer = loaded.declared.infer
    if table.shape == "steps":
        summaries, arms, warnings = step_arms(table, options, order)
        time_col = table.columns["step_time_s"]
        model, uninferred = build_model(
            [time_col, *table.metrics],
            "step",
            loaded.declared.metrics,
            decls,
            options.headline or [],
            [] if infer else table.metrics,
            implicit=step_spec(time_col),
            setup=table.ignored,
        )
        warnings = [*loaded.warnings, *warnings]
        metrics = _every(model, lambda spec: step_arm_metrics(spec, arms, time_col, order), table.file, warnings)
        return Summaries(loaded, [m.spec for m in metrics], uninferred, metrics, summaries, warnings)
    level: Level = "run" if table.shape == "runs" else "request"
    declared = {d.column for d in loaded.declared.metrics + decls}
    skip = [] if infer else [c for c in table.metrics if c not in declared]
    model, uninferred = build_model(
        table.metrics, level, loaded.declared.metrics, decls, options.headline or [], skip, setup=table.ignored
    )
    if not model:
        raise InputError(
            table.file,
            "has no column whose better direction is known ("
            + "; ".join(f"{u.column}: {u.reason}" for u in uninferred[:5])
            + ")",
            "declare the metrics in metrics.yaml (column, unit, direction: lower or higher)",
        )
    warnings = list(loaded.warnings)
    metrics = _every(model, lambda spec: arm_metrics(spec, table, order, warnings), table.file, warnings)
    if not metrics:
        raise InputError(table.file, "has no metric with a value in every arm", "measure the same metrics in every arm")
    if not any(m.spec.headline for m in metrics):  # the headline was the metric left out
        metrics[0].spec.headline = True
    return Summaries(loaded, [m.spec for m in metrics], uninferred, metrics, [], warnings)


def _every(
    model: list[MetricSpec], per_arm: Callable[[MetricSpec], ArmMetrics], file: str, warnings: list[str]
) -> list[ArmMetrics]:
    """Each metric for every arm; an inferred metric one arm never measured is left out and said,
    a declared one is an error (its declaration names a column that arm lacks)."""
    out = []
    for spec in model:
        try:
            out.append(per_arm(spec))
        except NoValues as missing:
            if spec.declared != "inferred":
                raise InputError(
                    f"metrics '{spec.column}'",
                    f"has no value in arm '{missing.arm}' of {file}",
                    "declare a metric every arm measured",
                ) from None
            warnings.append(f"'{spec.column}' has no value in arm '{missing.arm}': it is left out of the metrics")
    return out
