"""Result models of the metric path of read_benchmark: one entry per metric, in its own unit and direction."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from perfkit.base_model import Model
from perfkit.guards.outside_text import CampaignName, CampaignText

Basis = Literal["pooled_requests", "mean_of_runs"]


class MetricEstimate(Model):
    """A metric's central value for one arm, with its 95% interval, in the metric's unit."""

    value: float = Field(description="runs and steps: mean of the per-run values; requests: the statistic pooled")
    ci_low: float | None = Field(description="lower bound of the 95% interval; null when there is none")
    ci_high: float | None = Field(description="upper bound of the 95% interval; null when there is none")
    ci_note: str | None = Field(default=None, description="why there is no interval")
    method: str = Field(description="how value and interval are computed")


class ArmMetric(Model):
    """One metric of one arm."""

    arm: CampaignName = Field(description="the arm's name")
    estimate: MetricEstimate = Field(description="the arm's value of the metric")
    per_run: list[float] = Field(description="the metric per run, in run order")
    run_ids: list[int] = Field(description="the run indices of per_run")
    samples: int = Field(description="values behind the estimate: runs, steady steps, or requests pooled")
    run_samples: list[int] = Field(
        default_factory=list, description="values per run: 1 for a per-run metric, else steady steps or requests"
    )
    tail_samples: int | None = Field(
        default=None, description="for a high percentile: pooled requests above it (what the figure rests on)"
    )
    tail_note: str | None = Field(default=None, description="the tail count in words, for a high percentile")


class MetricComparison(Model):
    """One metric of one arm against the baseline, with the verdict in the metric's direction."""

    key: CampaignName = Field(description="the metric's key (see metric_model)")
    name: CampaignName = Field(description="the metric's name")
    unit: CampaignName = Field(description="the metric's unit")
    direction: Literal["lower", "higher"] = Field(description="which way is better")
    baseline: ArmMetric
    candidate: ArmMetric
    change_pct: float = Field(description="(candidate - baseline) / baseline, in percent; the sign is the data's")
    speedup: float = Field(
        description="how many times better the candidate is: baseline / candidate when lower is better, "
        "candidate / baseline when higher is better (above 1 means better)"
    )
    speedup_ci_low: float | None = Field(description="approximate 95% interval of speedup from the per-run values")
    speedup_ci_high: float | None = Field(description="upper bound of that interval")
    outcome: Literal["better", "worse", "unchanged"] = Field(description="the change read in the metric's direction")
    verdict: Literal["better", "worse", "not_significant", "too_few_runs"] = Field(
        description="Mann-Whitney U over the per-run values, read in the metric's direction"
    )
    p_value: float | None = Field(description="two-sided p-value; null when verdict is too_few_runs")
    note: CampaignText = Field(description="the verdict in one sentence")
    basis: Basis = Field(
        description="what each arm's estimate is: 'pooled_requests', the statistic over every request of the arm "
        "pooled (per-request rows, or the per-request lists a results file saved); 'mean_of_runs', the mean of "
        "the per-run values (per_run). A description quoting the figure says which"
    )
    basis_note: CampaignText | None = Field(
        default=None, description="why the estimate is not pooled over requests when it could have been, if so"
    )
