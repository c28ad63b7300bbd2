"""read_benchmark as four stages, each visited once, in order: open, load, summarise, compare.

1. campaign.open_campaign: the folder and every file in it that will be read, located and checked to
   stay inside the folder;
2. load.load_campaign: each of those files read once, through the guards (size, kind, the one number
   rule), into one table of measurements, the metric declarations and the candidates;
3. summarize.summarise: every arm on its own (step-time figures, each metric per arm);
4. compare.compare_arms: every arm against the baseline, and the answer.

A stage reads only what the stage before it returned: no stage opens a file or looks a path up
again, and none calls back into an earlier one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfkit.benchmark.campaign import open_campaign
from perfkit.benchmark.compare import compare_arms
from perfkit.benchmark.load import load_campaign
from perfkit.benchmark.models import BenchmarkSummary
from perfkit.benchmark.summarize import summarise

if TYPE_CHECKING:  # the caller's options (BenchmarkOptions.read calls this module)
    from perfkit.benchmark.options import BenchmarkOptions


def read_campaign(campaign_dir: str, options: BenchmarkOptions) -> BenchmarkSummary:
    files = open_campaign(campaign_dir)
    loaded = load_campaign(files, options)
    summaries = summarise(loaded)
    return compare_arms(summaries)
