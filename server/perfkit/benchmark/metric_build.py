"""The metric model of a campaign (declared, then inferred) and its per-metric comparisons.

Declarations come from metrics.yaml beside benchmark.csv and from the caller (the draft's
benchmark block); the caller's win for the same metric. Columns nobody declared become metrics
only when their name leaves no doubt about the better direction (metric_spec.infer).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from perfkit.benchmark import campaign
from perfkit.benchmark.metric_models import MetricComparison
from perfkit.benchmark.metric_spec import Level, MetricDecl, MetricSpec, Shape, Uninferred, infer, resolve
from perfkit.benchmark.metric_summary import arm_metric, compare_metric
from perfkit.errors import InputError

METRICS_FILE = "metrics.yaml"
MAX_METRICS_BYTES = 256 * 1024
REQUEST_STATS = ("mean", "p50", "p99")  # what an inferred per-request column reports


class CampaignMetrics(BaseModel):
    """metrics.yaml: the campaign's shape and metric declarations."""

    model_config = ConfigDict(extra="forbid")

    shape: Shape | None = Field(None, description="steps, runs or requests; default: read from benchmark.csv")
    metrics: list[MetricDecl] = Field(default_factory=list)
    infer: bool = Field(True, description="false: only the declared metrics, no column is inferred")


def read_campaign_metrics(root: Path) -> CampaignMetrics | None:
    from perfkit.guards import limits, safe_yaml

    path = campaign.existing(root, METRICS_FILE, METRICS_FILE)
    if path is None:
        return None
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
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise InputError(f"{METRICS_FILE} {loc}".strip(), err["msg"].lower(), "see docs/campaign-format.md") from None


def _decl_key(d: MetricDecl, level: Level) -> str:
    lvl = d.level or level
    return d.column if lvl != "request" else f"{d.column}@{d.stat or 'mean'}"


def build_model(
    numeric: list[str],
    level: Level,
    from_campaign: list[MetricDecl],
    from_caller: list[MetricDecl],
    headline: list[str],
    exclude: Iterable[str] = (),
    implicit: MetricSpec | None = None,
) -> tuple[list[MetricSpec], list[Uninferred]]:
    """Declared metrics first (caller over campaign), then the inferable columns; the headline marked.

    implicit: a metric the shape itself defines (the steps shape's step time); it leads the list and
    is the default headline.
    """
    specs: dict[str, MetricSpec] = {implicit.key: implicit} if implicit else {}
    for source, decls in (("campaign", from_campaign), ("draft", from_caller)):
        for d in decls:
            if d.column not in numeric:
                raise InputError(
                    f"{'draft.benchmark.metrics' if source == 'draft' else METRICS_FILE} column '{d.column}'",
                    f"is not a numeric column of the campaign (numeric columns: {', '.join(numeric) or 'none'})",
                    "declare one of those columns",
                )
            where = "metrics.yaml" if source == "campaign" else "the draft's benchmark.metrics"
            specs[_decl_key(d, level)] = resolve(d, source, f"declared in {where}", level)  # type: ignore[arg-type]
    declared_columns = {s.column for s in specs.values()}
    uninferred: list[Uninferred] = []
    for col in numeric:
        if col in declared_columns or col in exclude:
            continue
        guess = infer(col)
        if isinstance(guess, str):
            uninferred.append(Uninferred(column=col, reason=guess))
            continue
        decl, reason = guess
        stats = REQUEST_STATS if level == "request" else (None,)
        for st in stats:
            d = decl.model_copy(update={"stat": st, "name": None if st else decl.name})
            spec = resolve(d, "inferred", reason, level)
            specs.setdefault(spec.key, spec)
    ordered = list(specs.values())
    wanted = [h.strip() for h in headline if h.strip()]
    if wanted:
        for h in wanted:
            hits = [s for s in ordered if h in (s.key, s.column, s.name)]
            if not hits:
                raise InputError(
                    "headline",
                    f"'{h}' names no metric (metrics: {', '.join(s.key for s in ordered) or 'none'})",
                    "name a metric by its key, column or name",
                )
            exact = [s for s in hits if s.key == h]
            for s in exact or hits:
                s.headline = True
    elif not any(s.headline for s in ordered) and ordered:
        first = implicit or next((s for s in ordered if s.declared != "inferred"), None) or _default_head(ordered)
        first = specs.get(first.key, first)
        first.headline = True
    return ordered, uninferred


def _default_head(specs: list[MetricSpec]) -> MetricSpec:
    """Without a declared headline: a throughput first (what serving PRs lead with), else the first metric."""
    rates = [s for s in specs if s.direction == "higher"]
    return next((s for s in rates if "output" in s.column), rates[0] if rates else specs[0])


def compare_all(
    model: list[MetricSpec],
    values: dict[str, dict[str, list[tuple[int, np.ndarray]]]],
    baseline: str,
    candidate: str,
    others: list[str],
) -> tuple[list[MetricComparison], list[MetricComparison]]:
    """values[column][arm] = per-run arrays. The PR's arm for every metric; other arms for the headline ones."""
    main, of_which = [], []
    for spec in model:
        per_arm = values[spec.column]
        base = arm_metric(spec, baseline, per_arm[baseline])
        main.append(compare_metric(spec, base, arm_metric(spec, candidate, per_arm[candidate])))
        if spec.headline:
            for o in others:
                of_which.append(compare_metric(spec, base, arm_metric(spec, o, per_arm[o])))
    return main, of_which


def runs_of(frame: Any, arm_code: int, column: str, arm_col: str, run_col: str) -> list[tuple[int, np.ndarray]]:
    """(run id, the run's non-empty values of column) for one arm of a frame sorted by arm and run."""
    codes = frame[arm_col].to_numpy()
    lo, hi = np.searchsorted(codes, arm_code, side="left"), np.searchsorted(codes, arm_code, side="right")
    runs = frame[run_col].to_numpy()[lo:hi]
    vals = frame[column].to_numpy(dtype=float)[lo:hi]
    bounds = np.flatnonzero(runs[1:] != runs[:-1]) + 1
    out = []
    for r, v in zip(np.split(runs, bounds), np.split(vals, bounds), strict=True):
        if len(r):
            out.append((int(r[0]), v[~np.isnan(v)]))
    return out
