"""How read_benchmark reads a campaign: its options, declared once.

read_benchmark's parameters (after campaign_dir) are these fields, with their types, bounds and
descriptions: the tool's signature is made from this model (perfkit.tools.model_signature), so the
MCP input schema and the CLI options show exactly what the model accepts. render_pr's draft carries
the same object as its `benchmark` block and lint_wording reads it from there, so all three read a
campaign the same way.
It lives with the benchmark reader, below publish and lint, so that lint can read the campaign the
way render_pr did without loading a publish draft.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationError

from perfkit.base_model import Model
from perfkit.benchmark.metric_spec import MetricDecl

if TYPE_CHECKING:
    from perfkit.benchmark.models import BenchmarkSummary

Role = Literal["arm", "run", "step", "step_time_s", "peak_mem_gb"]
ROLES: tuple[str, ...] = ("arm", "run", "step", "step_time_s", "peak_mem_gb")
Name = Annotated[str, StringConstraints(min_length=1, max_length=1000)]


class BenchmarkOptions(Model):
    """read_benchmark's options; render_pr's draft.benchmark; what lint_wording reads the campaign with."""

    model_config = ConfigDict(extra="forbid")

    baseline: Name = Field("baseline", description="Name of the baseline arm in benchmark.csv.")
    candidate: Name | None = Field(
        None,
        description="Name of the PR's arm. Default: the arm named 'pr', else the only arm that is not the baseline.",
    )
    warmup_steps: int = Field(
        1,
        ge=0,
        le=10**9,
        description="Steps 1..warmup_steps of every run are left out of the steady-state figures "
        "(step 1, the one-time cost, is reported on its own).",
    )
    slow_threshold_s: float | None = Field(
        None,
        gt=0,
        le=1e9,
        allow_inf_nan=False,
        description="A steady-state step slower than this many seconds counts as slow. Default: automatic, "
        "from the baseline (the valley between its clusters when bimodal, else max(Q3 + 3 IQR, 1.2 x median)); "
        "the same threshold applies to every arm.",
    )
    columns: dict[Role, Name] | None = Field(
        None,
        max_length=len(ROLES),
        description='Map roles to differently named columns, for example {"step_time_s": "iter_time", '
        '"run": "trial"}. Roles: arm, run, step, step_time_s, peak_mem_gb (the runs and requests shapes use '
        "arm and run; in results JSON they name the keys).",
    )
    reference_baseline: Name | None = Field(
        None,
        description="The baseline (commit or label, as written in candidates.jsonl) the PR's numbers are "
        "measured against; candidates measured against another one are marked. Default: the baseline of the "
        "last shipped candidate.",
    )
    shape: Literal["steps", "runs", "requests"] | None = Field(
        None,
        description="steps: one row per training step (arm, run, step, step_time_s); runs: one row per run "
        "with metric columns (or results/<arm>/*.json|*.jsonl as vLLM and SGLang save them); requests: one row "
        "per request, statistics computed per run. Default: metrics.yaml's shape, else a benchmark.csv without "
        "a step column is runs (one row per arm and run) or requests (several).",
    )
    metrics: list[MetricDecl] | None = Field(
        None,
        max_length=1000,
        description="Metric declarations, each {column, name, unit, direction: lower|higher, level: "
        "step|request|run, stat: mean|median|p90|p95|p99, headline}; they win over the campaign's metrics.yaml. "
        "Undeclared columns are inferred only when the name is unambiguous (*_tok_s, throughput: higher; "
        "*_ms, *_s, ttft, itl, tpot, latency: lower); see metric_model and uninferred in the result. Each "
        "declaration is an object or its JSON text (on the command line, repeat --metrics '{...}').",
    )
    headline: list[Name] | None = Field(
        None,
        max_length=100,
        description="The metrics to lead with (key, column or name). Default: declared headline metrics.",
    )

    @classmethod
    def from_arguments(cls, values: object, where: str = "") -> BenchmarkOptions:
        """The options from a tool call or a draft block; a value the model refuses is an InputError
        naming it (where: the block's path, such as 'draft.benchmark.')."""
        from perfkit.errors import InputError, from_validation

        given = {k: v for k, v in values.items() if v is not None} if isinstance(values, Mapping) else values
        try:
            return cls.model_validate(given)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = [str(x) for x in err["loc"]]
            if loc[:1] == ["columns"] and "[key]" in loc:
                raise InputError(
                    f"{where}columns",
                    f"unknown role '{loc[1]}'",
                    f"map these roles to your column names: {', '.join(ROLES)}",
                ) from None
            raise from_validation(exc, where.rstrip("."), "see docs/campaign-format.md") from None

    def read(self, campaign_dir: str) -> BenchmarkSummary:
        """read_benchmark with these options: render_pr and lint_wording read the same way."""
        from perfkit.benchmark.pipeline import read_campaign

        return read_campaign(campaign_dir, self)
