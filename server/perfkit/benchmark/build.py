"""Assemble the read_benchmark result: locate files, validate, summarize, compare, read candidates.

Kept apart from read.py so that registering the tool does not import numpy or pandas.
"""

from __future__ import annotations

import numpy as np

from perfkit.benchmark import campaign, stats
from perfkit.benchmark.candidates import mark_baselines, read_candidates
from perfkit.benchmark.load import read_benchmark_csv
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
) -> BenchmarkSummary:
    root = campaign.open_campaign(campaign_dir)
    bench = campaign.existing(root, campaign.BENCHMARK, campaign.BENCHMARK)
    if bench is None:
        raise InputError(
            "campaign_dir",
            f"'{campaign_dir}' has no {campaign.BENCHMARK}",
            "pass the campaign folder, or write benchmark.csv (see docs/campaign-format.md)",
        )
    file = campaign.BENCHMARK
    table = read_benchmark_csv(bench, file, columns)
    arms = split_arms(table, warmup_steps)
    names = list(arms)
    if baseline not in arms:
        raise InputError(
            "baseline", f"no arm '{baseline}' in {file} (arms: {', '.join(names)})", "pass baseline=<the baseline arm>"
        )
    cand = _pick_candidate(names, baseline, candidate, file)
    order = [baseline, cand] + [n for n in names if n not in (baseline, cand)]
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
            warnings.append(
                f"arm '{s.name}' has {s.runs} runs and the baseline {base.runs}: interleave the same "
                "number of runs per arm"
            )

    cands_path = campaign.existing(root, campaign.CANDIDATES, campaign.CANDIDATES)
    cands: list[Candidate] = []
    ref: str | None = None
    ref_rule: str | None = None
    if cands_path is not None:
        cands, cand_warnings = read_candidates(root, cands_path, campaign.CANDIDATES)
        warnings += cand_warnings
        ref, ref_rule = mark_baselines(cands, reference_baseline)
        known = set(names)
        for c in cands:
            if c.arm is not None and c.arm not in known:
                warnings.append(f"{campaign.CANDIDATES} line {c.line}: arm '{c.arm}' is not in {file}")
    elif reference_baseline is not None:
        ref, ref_rule = reference_baseline, "given by the caller"
    latest = campaign.existing(root, campaign.LATEST_REPORT, campaign.LATEST_REPORT)
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
        candidates=cands,
        candidates_file=campaign.CANDIDATES if cands_path is not None else None,
        reference_baseline=ref,
        reference_baseline_rule=ref_rule,
        latest_report=campaign.LATEST_REPORT if latest is not None else None,
        warnings=warnings,
    )
