"""metrics.yaml beside benchmark.csv: the campaign's shape, its metric declarations and extra setup keys."""

from __future__ import annotations

from pathlib import Path

from pydantic import ConfigDict, Field, ValidationError

from perfkit.base_model import Model
from perfkit.benchmark.metric_spec import METRICS_FILE, MetricDecl, Shape
from perfkit.errors import InputError, from_validation

MAX_METRICS_BYTES = 256 * 1024


class CampaignMetrics(Model):
    """metrics.yaml: the campaign's shape and metric declarations."""

    model_config = ConfigDict(extra="forbid")

    shape: Shape | None = Field(None, description="steps, runs or requests; default: read from benchmark.csv")
    metrics: list[MetricDecl] = Field(default_factory=list, max_length=1000)
    infer: bool = Field(True, description="false: only the declared metrics, no column is inferred")
    setup: list[str] = Field(
        default_factory=list,
        max_length=1000,
        description="more columns or keys that say how the benchmark was run (never metrics), beside the ones "
        "perfkit knows (request_rate, max_concurrency, num_prompts, ...)",
    )


def read_campaign_metrics(path: Path | None) -> CampaignMetrics:
    """The declarations of metrics.yaml at path; the defaults when there is none."""
    from perfkit.guards import limits, safe_yaml

    if path is None:
        return CampaignMetrics()
    text = limits.read_regular_text(path, METRICS_FILE, MAX_METRICS_BYTES, "keep metrics.yaml to the declarations")
    try:
        data = safe_yaml.load(text)
    except safe_yaml.YamlRefused as exc:
        raise InputError(
            METRICS_FILE, f"is not valid YAML ({exc})", "fix the file (see docs/campaign-format.md)"
        ) from None
    if data is None:
        return CampaignMetrics()
    try:
        return CampaignMetrics.model_validate(data)
    except ValidationError as exc:
        raise from_validation(exc, METRICS_FILE, "see docs/campaign-format.md", sep=" ") from None
