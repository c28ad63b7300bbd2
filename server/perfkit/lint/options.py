"""What lint_wording needs from the draft the user gave render_pr: the changes measured alone, the unit, the job.

lint reads the campaign with the draft's `benchmark` block (Draft.benchmark, read_benchmark's options),
so it reads it the way render_pr did; render_pr's own lint asks these same questions of its draft.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfkit.benchmark.options import BenchmarkOptions

if TYPE_CHECKING:
    from perfkit.draft.model import Draft


def bench_options(draft: Draft | None) -> BenchmarkOptions:
    """The draft's benchmark options (their defaults with no draft, or a draft with no block)."""
    return draft.benchmark if draft is not None else BenchmarkOptions()


def draft_job(draft: Draft) -> str | None:
    """The draft's job name (its words are the job's, not campaign vocabulary), or None."""
    return draft.job if draft.job and draft.job.strip() else None


def draft_words(draft: Draft) -> tuple[dict[str, str], str]:
    """The draft's names of changes measured alone (name -> arm) and its unit ('step', 'iteration')."""
    arms = {c.name: c.arm for c in draft.changes if c.name and c.arm}
    return arms, draft.unit if draft.unit.strip() else "step"
