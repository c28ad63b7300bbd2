"""Assemble the read_benchmark result: locate files, validate, summarize, compare, read candidates.

Kept apart from read.py so that registering the tool does not import numpy or pandas.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from perfkit.benchmark import campaign, metric_build, stats, wide_load
from perfkit.benchmark.candidates import mark_baselines, read_candidates
from perfkit.benchmark.load import read_benchmark_csv
from perfkit.benchmark.metric_spec import Level, MetricDecl, MetricSpec, resolve
from perfkit.benchmark.models import BenchmarkSummary, Candidate
from perfkit.benchmark.summarize import ArmData, compare, split_arms, summarize_arm
from perfkit.errors import InputError


def _pick_candidate(names: list[str], baseline: str, candidate: str | None, file: str) -> str:
    others = [n for n in names if n != baseline]
    if candidate is not None:
        if candidate not in names:
            raise InputError(
                "candidate", f"no arm '{candidate}' in {file} (arms: {', '.join(names)})", "pass one of those arms"
            )
        if candidate == baseline:
            raise InputError("candidate", f"'{candidate}' is also the baseline", "pass the PR's arm")
        return candidate
    if not others:
        raise InputError("candidate", f"{file} has only the baseline arm '{baseline}'", "add the rows of the PR's arm")
    if "pr" in others:
        return "pr"
    if len(others) == 1:
        return others[0]
    raise InputError(
        "candidate",
        f"{file} has several arms besides the baseline ({', '.join(others)}) and none is named 'pr'",
        "pass candidate=<the PR's arm>",
    )


def _check_steady(arm: ArmData, warmup_steps: int, file: str) -> list[str]:
    if not arm.steady.any():
        raise InputError(
            f"{file} arm '{arm.name}'",
            f"has no steady-state steps: its steps go up to {int(arm.steps.max())} and warmup_steps is {warmup_steps}",
            "record more steps per run or lower warmup_steps",
        )
    warnings: list[str] = []
    bounds = np.flatnonzero(arm.runs[1:] != arm.runs[:-1]) + 1
    for part_runs, part_steps, part_steady in zip(
        np.split(arm.runs, bounds), np.split(arm.steps, bounds), np.split(arm.steady, bounds), strict=True
    ):
        run = int(part_runs[0])
        if not part_steady.any():
            raise InputError(
                f"{file} arm '{arm.name}' run {run}",
                f"has no steady-state steps: its steps go up to {int(part_steps.max())} and "
                f"warmup_steps is {warmup_steps}",
                "record more steps in that run, drop the run, or lower warmup_steps",
            )
        lo, hi = int(part_steps.min()), int(part_steps.max())
        if lo != 1:
            warnings.append(
                f"arm '{arm.name}' run {run} has no step 1 (first step {lo}): its first-step time is "
                "unknown and its warm-up is counted from step 1"
            )
        if hi - lo + 1 != len(part_steps):
            warnings.append(
                f"arm '{arm.name}' run {run} is missing {hi - lo + 1 - len(part_steps)} of the steps {lo}..{hi}"
            )
    return warnings


def build_summary(
    campaign_dir: str,
    baseline: str,
    candidate: str | None,
    warmup_steps: int,
    slow_threshold_s: float | None,
    columns: dict[str, str] | None,
    reference_baseline: str | None,
    shape: str | None = None,
    metrics: list[MetricDecl] | None = None,
    headline: list[str] | None = None,
) -> BenchmarkSummary:
    root = campaign.open_campaign(campaign_dir)
    declared = metric_build.read_campaign_metrics(root)
    shape = shape or (declared.shape if declared else None)
    from_campaign = declared.metrics if declared else []
    infer = declared.infer if declared else True
    bench = campaign.existing(root, campaign.BENCHMARK, campaign.BENCHMARK)
    results = campaign.existing(root, wide_load.RESULTS, wide_load.RESULTS)
    if bench is None and (results is None or shape == "steps"):
        raise InputError(
            "campaign_dir",
            f"'{campaign_dir}' has no {campaign.BENCHMARK}",
            "pass the campaign folder, or write benchmark.csv or results/<arm>/*.json (see docs/campaign-format.md)",
        )
    if bench is None or shape in ("runs", "requests") or _wide(bench, columns):
        if bench is not None:
            wide_shape: Literal["runs", "requests"] | None = (
                "runs" if shape == "runs" else "requests" if shape == "requests" else None
            )
            wide = wide_load.read_wide_csv(bench, campaign.BENCHMARK, columns, wide_shape)
        else:
            wide = wide_load.read_results(root, columns)
        return _wide_summary(
            root, wide, baseline, candidate, from_campaign, metrics or [], headline or [], reference_baseline, infer
        )
    file = campaign.BENCHMARK
    table = read_benchmark_csv(bench, file, columns)
    arms = split_arms(table, warmup_steps)
    names = list(arms)
    cand, order = _arm_order(names, baseline, candidate, file)
    warnings: list[str] = []
    for name in order:
        warnings += _check_steady(arms[name], warmup_steps, file)
    shapes = {name: stats.find_slow_cluster(arms[name].steady_sorted) for name in order}
    if slow_threshold_s is not None:
        threshold, rule = slow_threshold_s, "given by the caller"
    else:
        threshold, rule = stats.automatic_slow_threshold(arms[baseline].steady_sorted, shapes[baseline])
    summaries = [summarize_arm(arms[n], table, warmup_steps, threshold, rule, shapes[n]) for n in order]
    base = summaries[0]
    comparison = compare(base, summaries[1], table)
    of_which = [compare(base, s, table) for s in summaries[2:]]
    for s in summaries[1:]:
        if s.runs != base.runs:
            warnings.append(_uneven_runs(s.name, s.runs, base.runs))

    cands, ref, ref_rule, cand_warnings = _candidates(root, names, reference_baseline, file)
    warnings += cand_warnings
    latest = campaign.existing(root, campaign.LATEST_REPORT, campaign.LATEST_REPORT)
    model, uninferred = metric_build.build_model(
        [table.columns["step_time_s"], *table.metrics],
        "step",
        from_campaign,
        metrics or [],
        headline or [],
        [] if infer else table.metrics,
        implicit=_step_spec(table.columns["step_time_s"]),
    )
    values = {
        col: {n: _step_runs(arms[n], col, table.columns["step_time_s"]) for n in order}
        for col in {s.column for s in model}
    }
    compared, compared_other = metric_build.compare_all(model, values, baseline, cand, order[2:])
    return BenchmarkSummary(
        campaign_dir=str(root),
        benchmark_file=file,
        columns=table.columns,
        ignored_columns=table.ignored,
        warmup_steps=warmup_steps,
        baseline=baseline,
        candidate=cand,
        arms=summaries,
        comparison=comparison,
        of_which=of_which,
        metric_model=model,
        uninferred=uninferred,
        metrics=compared,
        metrics_of_which=compared_other,
        arm_names=order,
        candidates=cands,
        candidates_file=_candidates_file(root),
        reference_baseline=ref,
        reference_baseline_rule=ref_rule,
        latest_report=campaign.LATEST_REPORT if latest is not None else None,
        warnings=warnings,
    )


def _step_spec(column: str) -> MetricSpec:
    return resolve(
        MetricDecl(column=column, name="step time", unit="s", direction="lower", level="step"),
        "inferred",
        f"'{column}' holds the step time (the step_time_s role): lower is better",
        "step",
    )


def _step_runs(arm: ArmData, column: str, time_column: str) -> list[tuple[int, np.ndarray]]:
    """(run, that run's steady-state values of column) for one arm of the steps shape."""
    values = arm.times if column == time_column else arm.metrics[column]
    bounds = np.flatnonzero(arm.runs[1:] != arm.runs[:-1]) + 1
    out = []
    for r, v, st in zip(
        np.split(arm.runs, bounds), np.split(values, bounds), np.split(arm.steady, bounds), strict=True
    ):
        kept = v[st]
        out.append((int(r[0]), kept[~np.isnan(kept)]))
    return out


def _wide(bench: Path, columns: dict[str, str] | None) -> bool:
    import pandas as pd  # type: ignore[import-untyped]

    from perfkit.benchmark.load import MAX_BYTES

    # a pipe, a folder or an oversized file is refused before anything opens it for reading
    campaign.check_text_file(bench, campaign.BENCHMARK, MAX_BYTES, "write one CSV row per step, run or request")
    try:
        header = pd.read_csv(bench, nrows=0, skipinitialspace=True)
    except Exception:  # the steps reader names what is wrong with the file
        return False
    return wide_load.is_wide_header([str(c).strip() for c in header.columns], columns)


def _candidates(
    root: Path, names: list[str], reference_baseline: str | None, file: str
) -> tuple[list[Candidate], str | None, str | None, list[str]]:
    cands_path = campaign.existing(root, campaign.CANDIDATES, campaign.CANDIDATES)
    cands: list[Candidate] = []
    ref: str | None = None
    ref_rule: str | None = None
    warnings: list[str] = []
    if cands_path is not None:
        cands, warnings = read_candidates(root, cands_path, campaign.CANDIDATES)
        ref, ref_rule = mark_baselines(cands, reference_baseline)
        known = set(names)
        for c in cands:
            if c.arm is not None and c.arm not in known:
                warnings.append(f"{campaign.CANDIDATES} line {c.line}: arm '{c.arm}' is not in {file}")
    elif reference_baseline is not None:
        ref, ref_rule = reference_baseline, "given by the caller"
    return cands, ref, ref_rule, warnings


def _arm_order(names: list[str], baseline: str, candidate: str | None, file: str) -> tuple[str, list[str]]:
    """The candidate and the arms in report order (baseline, candidate, the rest as in the file), for every shape."""
    if baseline not in names:
        raise InputError(
            "baseline", f"no arm '{baseline}' in {file} (arms: {', '.join(names)})", "pass baseline=<the baseline arm>"
        )
    cand = _pick_candidate(names, baseline, candidate, file)
    return cand, [baseline, cand] + [n for n in names if n not in (baseline, cand)]


def _uneven_runs(name: str, runs: int, baseline_runs: int) -> str:
    return f"arm '{name}' has {runs} runs and the baseline {baseline_runs}: interleave the same number of runs per arm"


def _wide_summary(
    root: Path,
    wide: wide_load.WideTable,
    baseline: str,
    candidate: str | None,
    from_campaign: list[MetricDecl],
    from_caller: list[MetricDecl],
    headline: list[str],
    reference_baseline: str | None,
    infer: bool = True,
) -> BenchmarkSummary:
    """The runs and requests shapes: no step times, every figure a metric in its own unit."""
    from perfkit.benchmark.load import ARM, RUN

    names = wide.arms
    cand, order = _arm_order(names, baseline, candidate, wide.file)
    level: Level = "run" if wide.shape == "runs" else "request"
    declared = {d.column for d in from_campaign + from_caller}
    skip = [] if infer else [c for c in wide.metrics if c not in declared]
    model, uninferred = metric_build.build_model(wide.metrics, level, from_campaign, from_caller, headline, skip)
    if not model:
        raise InputError(
            wide.file,
            "has no column whose better direction is known ("
            + "; ".join(f"{u.column}: {u.reason}" for u in uninferred[:5])
            + ")",
            "declare the metrics in metrics.yaml (column, unit, direction: lower or higher)",
        )
    frame = wide.frame
    values = {
        col: {n: metric_build.runs_of(frame, names.index(n), f"m:{col}", ARM, RUN) for n in order}
        for col in {s.column for s in model}
    }
    compared, compared_other = metric_build.compare_all(model, values, baseline, cand, order[2:])
    warnings: list[str] = []
    runs = {n: len(values[model[0].column][n]) for n in order}
    for n in order[1:]:
        if runs[n] != runs[baseline]:
            warnings.append(_uneven_runs(n, runs[n], runs[baseline]))
    cands, ref, ref_rule, cand_warnings = _candidates(root, names, reference_baseline, wide.file)
    latest = campaign.existing(root, campaign.LATEST_REPORT, campaign.LATEST_REPORT)
    return BenchmarkSummary(
        campaign_dir=str(root),
        benchmark_file=wide.file,
        columns=wide.columns,
        ignored_columns=wide.ignored,
        warmup_steps=0,
        baseline=baseline,
        candidate=cand,
        shape=wide.shape,
        metric_model=model,
        uninferred=uninferred,
        metrics=compared,
        metrics_of_which=compared_other,
        arm_names=order,
        candidates=cands,
        candidates_file=_candidates_file(root),
        reference_baseline=ref,
        reference_baseline_rule=ref_rule,
        latest_report=campaign.LATEST_REPORT if latest is not None else None,
        warnings=warnings + cand_warnings,
    )


def _candidates_file(root: Path) -> str | None:
    return campaign.CANDIDATES if campaign.existing(root, campaign.CANDIDATES, campaign.CANDIDATES) else None
