"""Stage 2 of read_benchmark: read every located file once, through the guards, into one Loaded campaign.

metrics.yaml first (it can declare the shape and more setup keys), then the measurements, from
benchmark.csv (steps_csv, wide_csv) or from results/ as the serving benchmarks save them (results),
then records/candidates.jsonl. Every file is read whole once, as a regular file within its size
limit (limits), and every number passes the one number rule (number_rule). The arms are named
here: which is the baseline, which is the PR's, in report order.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Literal

from perfkit import limits
from perfkit.benchmark import cells, steps_csv, wide_csv
from perfkit.benchmark.campaign import BENCHMARK, CANDIDATES, CampaignFiles
from perfkit.benchmark.candidates import mark_baselines, read_candidates
from perfkit.benchmark.metric_spec import SETUP
from perfkit.benchmark.metrics_yaml import CampaignMetrics, read_campaign_metrics
from perfkit.benchmark.models import Candidate
from perfkit.benchmark.options import BenchmarkOptions
from perfkit.benchmark.results import read_results
from perfkit.benchmark.table import Measurements
from perfkit.errors import InputError

MAX_CSV_BYTES = limits.MAX_BENCHMARK_CSV_BYTES  # see there: what pandas needs in memory per byte read


@dataclass
class Loaded:
    """Everything the campaign's files hold, validated; the later stages read nothing else."""

    files: CampaignFiles
    options: BenchmarkOptions
    declared: CampaignMetrics
    table: Measurements
    candidate: str
    order: list[str]  # baseline, the PR's arm, then the other arms in file order
    candidates: list[Candidate] = field(default_factory=list)
    reference_baseline: str | None = None
    reference_rule: str | None = None
    warnings: list[str] = field(default_factory=list)


def load_campaign(files: CampaignFiles, options: BenchmarkOptions) -> Loaded:
    declared = read_campaign_metrics(files.metrics)
    shape = options.shape or declared.shape
    setup = SETUP | frozenset(declared.setup)
    columns = {str(k): v for k, v in options.columns.items()} if options.columns else None
    table = _measurements(files, columns, shape, setup)
    cand, order = arm_order(table.arms, options.baseline, options.candidate, table.file)
    loaded = Loaded(files, options, declared, table, cand, order, warnings=list(table.warnings))
    if files.candidates is not None:
        cands, warnings = read_candidates(files.root, files.candidates, CANDIDATES)
        loaded.candidates = cands
        loaded.reference_baseline, loaded.reference_rule = mark_baselines(cands, options.reference_baseline)
        known = set(table.arms)
        loaded.warnings += warnings + [
            f"{CANDIDATES} line {c.line}: arm '{c.arm}' is not in {table.file}"
            for c in cands
            if c.arm is not None and c.arm not in known
        ]
    elif options.reference_baseline is not None:
        loaded.reference_baseline, loaded.reference_rule = options.reference_baseline, "given by the caller"
    return loaded


def _measurements(
    files: CampaignFiles, columns: dict[str, str] | None, shape: str | None, setup: frozenset[str]
) -> Measurements:
    if files.benchmark is None:
        if shape == "steps":
            raise InputError(
                "campaign_dir",
                f"'{files.root}' has no {BENCHMARK}, and the steps shape is read from it",
                "write benchmark.csv, or declare the runs shape for results/<arm>/*.json",
            )
        return read_results(files.results, columns, setup, list(files.notes))
    import pandas as pd  # type: ignore[import-untyped]

    data = limits.read_regular_bytes(
        files.benchmark, BENCHMARK, MAX_CSV_BYTES, "write one CSV row per step, run or request, or split the campaign"
    )
    if b"\0" in data:
        raise InputError(BENCHMARK, "holds NUL bytes: it is a binary file, not text", "write benchmark.csv as text")
    try:
        header = pd.read_csv(io.BytesIO(data), nrows=0, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InputError(BENCHMARK, "is empty", "write a header line and one row per step, run or request") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(BENCHMARK, f"cannot be read as CSV ({cells.first_line(exc)})", "fix the file") from None
    found = [str(c).strip() for c in header.columns]
    cells.header_names(data, BENCHMARK)
    if shape in ("runs", "requests") or wide_csv.is_wide_header(found, columns):
        wide: Literal["runs", "requests"] | None = "runs" if shape == "runs" else "requests" if shape else None
        return wide_csv.read_wide(data, found, BENCHMARK, columns, wide, setup)
    return steps_csv.read_steps(data, found, BENCHMARK, columns, setup)


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


def arm_order(names: list[str], baseline: str, candidate: str | None, file: str) -> tuple[str, list[str]]:
    """The candidate and the arms in report order (baseline, candidate, the rest as in the file), for every shape."""
    if baseline not in names:
        raise InputError(
            "baseline", f"no arm '{baseline}' in {file} (arms: {', '.join(names)})", "pass baseline=<the baseline arm>"
        )
    cand = _pick_candidate(names, baseline, candidate, file)
    return cand, [baseline, cand] + [n for n in names if n not in (baseline, cand)]
