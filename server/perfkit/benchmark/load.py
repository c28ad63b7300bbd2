"""Stage 2 of read_benchmark: read every located file once, through the guards, into one Loaded campaign.

metrics.yaml first (it can declare the shape and more setup keys), then the measurements, from
benchmark.csv (steps_csv, wide_csv) or from results/ as the serving benchmarks save them (results),
then records/candidates.jsonl. Every file is read whole once, as a regular file within its size
limit (limits), and every number passes the one number rule (number_rule). The arms are named
here: which is the baseline, which is the PR's, in report order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perfkit.benchmark.campaign import CANDIDATES, CampaignFiles
from perfkit.benchmark.candidates import mark_baselines, read_candidates
from perfkit.benchmark.measurements import read_measurements
from perfkit.benchmark.metric_spec import SETUP
from perfkit.benchmark.metrics_yaml import CampaignMetrics, read_campaign_metrics
from perfkit.benchmark.models import Candidate
from perfkit.benchmark.table import Measurements, arm_order

if TYPE_CHECKING:  # the options come from the caller; loading never calls back into the pipeline
    from perfkit.benchmark.options import BenchmarkOptions


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
    table = read_measurements(files, columns, shape, setup)
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
