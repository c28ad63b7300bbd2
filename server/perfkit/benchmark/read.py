"""The read_benchmark tool: a campaign folder in, every figure a PR may quote out.

Its options are BenchmarkOptions' fields (options.py), declared once there: the signature below is
made from the model, so the MCP schema, the CLI and render_pr's draft block cannot differ.
Importing this module imports neither numpy nor pandas (registering the tool stays cheap).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from perfkit.benchmark.models import BenchmarkSummary
from perfkit.benchmark.options import BenchmarkOptions
from perfkit.tools.model_signature import signature


def read_benchmark(
    campaign_dir: Annotated[
        str,
        Field(
            min_length=1,
            max_length=4096,
            description="The campaign folder: it holds benchmark.csv (or results/<arm>/*.json as vLLM and "
            "SGLang save them) and optionally metrics.yaml, records/candidates.jsonl, commits/<sha>/ and "
            "latest-report.md.",
        ),
    ],
    **options: Any,
) -> BenchmarkSummary:
    """Summarize a performance campaign's benchmark.csv with the statistics a maintainer asks for:
    per arm the steady-state mean and median with 95% intervals, spread, per-run figures, first-step
    (one-time) cost, slow steps, bimodality and peak memory; the PR's arm against the baseline (speedups,
    percentage change, Mann-Whitney U across runs or an explicit 'too few runs'); the other arms as 'of which'
    rows; and the tried candidates from records/candidates.jsonl, marking effects measured against another
    baseline. Serving campaigns (one row per run, or per request, or vLLM/SGLang result JSON read as saved,
    per-request lists pooled) get every metric in its own unit and direction (metric_model says declared or
    inferred, and why), and their setup (request rate, concurrency, prompt count) under setup. Each figure
    names its file and columns. Reads files inside the campaign folder only; writes nothing."""
    from perfkit.benchmark.pipeline import read_campaign

    return read_campaign(campaign_dir, BenchmarkOptions.from_arguments(options))


setattr(read_benchmark, "__signature__", signature(read_benchmark, BenchmarkOptions))  # noqa: B010
