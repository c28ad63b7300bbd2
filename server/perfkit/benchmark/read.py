"""The read_benchmark tool: a campaign folder in, every figure a PR may quote out."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from perfkit.benchmark.models import BenchmarkSummary


def read_benchmark(
    campaign_dir: Annotated[
        str,
        Field(
            description="The campaign folder: it holds benchmark.csv and optionally "
            "records/candidates.jsonl, commits/<sha>/ and latest-report.md."
        ),
    ],
    baseline: Annotated[str, Field(description="Name of the baseline arm in benchmark.csv.")] = "baseline",
    candidate: Annotated[
        str | None,
        Field(
            description="Name of the PR's arm. Default: the arm named 'pr', else the only arm that is not the baseline."
        ),
    ] = None,
    warmup_steps: Annotated[
        int,
        Field(
            ge=0,
            description="Steps 1..warmup_steps of every run are left out of the steady-state figures "
            "(step 1, the one-time cost, is reported on its own).",
        ),
    ] = 1,
    slow_threshold_s: Annotated[
        float | None,
        Field(
            gt=0,
            allow_inf_nan=False,
            description="A steady-state step slower than this many seconds counts as slow. Default: automatic, "
            "from the baseline (the valley between its clusters when bimodal, else max(Q3 + 3 IQR, 1.2 x median)); "
            "the same threshold applies to every arm.",
        ),
    ] = None,
    columns: Annotated[
        dict[str, str] | None,
        Field(
            description='Map roles to differently named columns, for example {"step_time_s": "iter_time", '
            '"run": "trial"}. Roles: arm, run, step, step_time_s, peak_mem_gb (the runs and requests shapes use '
            "arm and run; in results JSON they name the keys)."
        ),
    ] = None,
    reference_baseline: Annotated[
        str | None,
        Field(
            description="The baseline (commit or label, as written in candidates.jsonl) the PR's numbers are "
            "measured against; candidates measured against another one are marked. Default: the baseline of the "
            "last shipped candidate."
        ),
    ] = None,
    shape: Annotated[
        Literal["steps", "runs", "requests"] | None,
        Field(
            description="steps: one row per training step (arm, run, step, step_time_s); runs: one row per run "
            "with metric columns (or results/<arm>/*.json|*.jsonl as vLLM and SGLang save them); requests: one row "
            "per request, statistics computed per run. Default: metrics.yaml's shape, else a benchmark.csv without "
            "a step column is runs (one row per arm and run) or requests (several)."
        ),
    ] = None,
    metrics: Annotated[
        list[dict[str, Any] | str] | None,
        Field(
            description="Metric declarations, each {column, name, unit, direction: lower|higher, level: "
            "step|request|run, stat: mean|median|p90|p95|p99, headline}; they win over the campaign's metrics.yaml. "
            "Undeclared columns are inferred only when the name is unambiguous (*_tok_s, throughput: higher; "
            "*_ms, *_s, ttft, itl, tpot, latency: lower); see metric_model and uninferred in the result. Each "
            "declaration is an object or its JSON text (on the command line, repeat --metrics '{...}')."
        ),
    ] = None,
    headline: Annotated[
        list[str] | None,
        Field(description="The metrics to lead with (key, column or name). Default: declared headline metrics."),
    ] = None,
) -> BenchmarkSummary:
    """Summarize a performance campaign's benchmark.csv with the statistics a maintainer asks for:
    per arm the steady-state mean and median with 95% intervals, spread, per-run figures, first-step
    (one-time) cost, slow steps, bimodality and peak memory; the PR's arm against the baseline (speedups,
    percentage change, Mann-Whitney U across runs or an explicit 'too few runs'); the other arms as 'of which'
    rows; and the tried candidates from records/candidates.jsonl, marking effects measured against another
    baseline. Serving campaigns (one row per run, or per request, or vLLM/SGLang result JSON) get every metric
    in its own unit and direction (metric_model says declared or inferred, and why). Each figure names its file
    and columns. Reads files inside the campaign folder only; writes nothing."""
    from perfkit.benchmark.build import build_summary

    decls = _declarations(metrics)
    return build_summary(
        campaign_dir,
        baseline,
        candidate,
        warmup_steps,
        slow_threshold_s,
        columns,
        reference_baseline,
        shape,
        decls,
        headline,
    )


def _declarations(metrics: list[dict[str, Any] | str] | None) -> list[Any]:
    from pydantic import ValidationError

    from perfkit.benchmark.metric_spec import MetricDecl
    from perfkit.errors import InputError

    out = []
    for i, m in enumerate(metrics or []):
        if isinstance(m, str):
            from perfkit.guards import limits

            m = limits.load_json(m, f"metrics[{i}]", "give each declaration as a JSON object")
        try:
            out.append(MetricDecl.model_validate(m))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"])
            raise InputError(
                f"metrics[{i}].{loc}".rstrip("."), err["msg"].lower(), "see docs/campaign-format.md"
            ) from None
    return out
