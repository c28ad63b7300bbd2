"""What lint_wording needs from the draft the user gave render_pr: read_benchmark's options and the job.

Only the draft's `benchmark` block and `job` field are read, so lint reads the campaign the way
render_pr did, and knows the job's own name, without loading (or depending on) the publish draft.
"""

from __future__ import annotations

from typing import Any

from perfkit.benchmark.options import BenchmarkOptions
from perfkit.errors import InputError


def _data(draft: dict[str, Any] | str, campaign_dir: str) -> Any:
    from perfkit.guards.draft_source import read_data  # the same reader and limits as render_pr

    return read_data(draft, campaign_dir)


def draft_job(draft: dict[str, Any] | str | None, campaign_dir: str) -> str | None:
    """The draft's job name (its words are the job's, not campaign vocabulary), or None."""
    if draft is None:
        return None
    data = _data(_checked(draft), campaign_dir)
    job = data.get("job") if isinstance(data, dict) else None
    return job if isinstance(job, str) and job.strip() else None


def draft_words(draft: dict[str, Any] | str | None, campaign_dir: str) -> tuple[dict[str, str], str]:
    """The draft's names of changes measured alone (name -> arm) and its unit ('step', 'iteration')."""
    if draft is None:
        return {}, "step"
    data = _data(_checked(draft), campaign_dir)
    if not isinstance(data, dict):
        return {}, "step"
    arms = {}
    for c in data.get("changes") or []:
        if isinstance(c, dict) and isinstance(c.get("arm"), str) and isinstance(c.get("name"), str):
            arms[c["name"]] = c["arm"]
    unit = data.get("unit")
    return arms, unit if isinstance(unit, str) and unit.strip() else "step"


def _checked(draft: object) -> dict[str, Any] | str:
    if not isinstance(draft, (dict, str)):
        raise InputError("draft", f"has type {type(draft).__name__}", "pass an object, JSON text or a file path")
    return draft


def bench_options(draft: dict[str, Any] | str | None, campaign_dir: str) -> BenchmarkOptions:
    """The draft's benchmark options (defaults when no draft or no block)."""
    if draft is None:
        return BenchmarkOptions.model_validate({})
    data = _data(_checked(draft), campaign_dir)
    block = data.get("benchmark") if isinstance(data, dict) else None
    if block is None:
        return BenchmarkOptions.model_validate({})
    return BenchmarkOptions.from_arguments(block, where="draft.benchmark.")
