"""What lint_wording needs from the draft the user gave render_pr: read_benchmark's options and the job.

Only the draft's `benchmark` block and `job` field are read, so lint reads the campaign the way
render_pr did, and knows the job's own name, without loading (or depending on) the publish draft.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from perfkit.benchmark.options import BenchmarkOptions
from perfkit.errors import InputError

MAX_BYTES = 4 * 1024**2  # the same cap render_pr puts on a draft


def _from_file(p: Path) -> Any:
    import yaml

    if p.stat().st_size > MAX_BYTES:
        raise InputError("draft", f"{p.name} is larger than 4 MiB", "pass the draft file given to render_pr")
    text = p.read_bytes().decode("utf-8", "replace")
    try:
        return yaml.safe_load(text) if p.suffix.lower() in (".yaml", ".yml") else json.loads(text)
    except (ValueError, RecursionError, yaml.YAMLError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise InputError("draft", f"{p.name} cannot be read: {first}", "fix the file given to render_pr") from None


def _data(draft: dict[str, Any] | str, campaign_dir: str) -> Any:
    if isinstance(draft, dict):
        return draft
    s = draft.strip()
    if s.startswith("{"):
        try:
            return json.loads(s)
        except (ValueError, RecursionError) as exc:
            raise InputError("draft", f"is not valid JSON: {exc}", "pass the draft given to render_pr") from None
    p = Path(s).expanduser()
    if not p.is_file() and not p.is_absolute():
        p = Path(campaign_dir) / s
    if not p.is_file():
        raise InputError("draft", f"'{s[:200]}' is not a file", "pass the draft as an object, JSON text or a file path")
    return _from_file(p)


def draft_job(draft: dict[str, Any] | str | None, campaign_dir: str) -> str | None:
    """The draft's job name (its words are the job's, not campaign vocabulary), or None."""
    if draft is None:
        return None
    data = _data(_checked(draft), campaign_dir)
    job = data.get("job") if isinstance(data, dict) else None
    return job if isinstance(job, str) and job.strip() else None


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
    try:
        return BenchmarkOptions.model_validate(block)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise InputError(f"draft.benchmark.{loc}".rstrip("."), err["msg"].lower(), "see docs/publish.md") from None
