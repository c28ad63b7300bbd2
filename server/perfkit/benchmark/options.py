"""How read_benchmark reads a campaign, as one object render_pr's draft and lint_wording share.

It lives with the benchmark reader, below publish and lint, so that lint can read the campaign the
way render_pr did without loading a publish draft.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class BenchmarkOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    baseline: str = Field("baseline", description="Arm name of the baseline (read_benchmark's baseline).")
    candidate: str | None = Field(None, description="Arm name of this PR (read_benchmark's candidate).")
    warmup_steps: int = Field(1, ge=0, description="Steps per run excluded from the steady state.")
    slow_threshold_s: float | None = Field(
        None, gt=0, allow_inf_nan=False, description="Step time above which a step counts as slow."
    )
