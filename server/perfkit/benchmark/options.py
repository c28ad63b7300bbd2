"""How read_benchmark reads a campaign, as one object render_pr's draft and lint_wording share.

It lives with the benchmark reader, below publish and lint, so that lint can read the campaign the
way render_pr did without loading a publish draft.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from perfkit.benchmark.metric_spec import MetricDecl

if TYPE_CHECKING:
    from perfkit.benchmark.models import BenchmarkSummary


class BenchmarkOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    baseline: str = Field("baseline", description="Arm name of the baseline (read_benchmark's baseline).")
    candidate: str | None = Field(None, description="Arm name of this PR (read_benchmark's candidate).")
    warmup_steps: int = Field(1, ge=0, description="Steps per run excluded from the steady state.")
    slow_threshold_s: float | None = Field(
        None, gt=0, allow_inf_nan=False, description="Step time above which a step counts as slow."
    )
    columns: dict[str, str] | None = Field(
        None, description="Map roles to differently named columns (read_benchmark's columns)."
    )
    reference_baseline: str | None = Field(
        None, description="The baseline the PR's numbers are measured against (read_benchmark's reference_baseline)."
    )
    shape: Literal["steps", "runs", "requests"] | None = Field(
        None, description="steps, runs or requests (read_benchmark's shape). Default: metrics.yaml, else the file's."
    )
    metrics: list[MetricDecl] = Field(
        default_factory=list,
        description="Metric declarations (column, name, unit, direction, level, stat, headline); they win over "
        "metrics.yaml for the same metric.",
    )
    headline: list[str] = Field(
        default_factory=list, description="The metrics the title and the result table lead with (key, column or name)."
    )

    def read(self, campaign_dir: str) -> BenchmarkSummary:
        """read_benchmark with every option of this block: render_pr and lint_wording read the same way."""
        from perfkit.benchmark.read import read_benchmark

        return read_benchmark(
            campaign_dir,
            baseline=self.baseline,
            candidate=self.candidate,
            warmup_steps=self.warmup_steps,
            slow_threshold_s=self.slow_threshold_s,
            columns=self.columns,
            reference_baseline=self.reference_baseline,
            shape=self.shape,
            metrics=[m.model_dump(exclude_none=True) for m in self.metrics] or None,
            headline=self.headline or None,
        )
