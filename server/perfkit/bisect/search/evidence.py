"""What the runs said, point by point: the evidence behind a confidence, the noise seen, the skips grouped.

A noisy check is only trustworthy when its evidence is on show: how often each point was run,
how often it passed and failed, the metric of each run. A point whose runs disagree is direct
proof the check is noisy, so it is reported whether or not noise was switched on. Skips grouped
by reason tell a broken run command (one reason everywhere) from a few broken commits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from perfkit.bisect.command import error_line
from perfkit.bisect.models import PointEvidence, SkipReason, StepRecord
from perfkit.bisect.search import skip_policy


def points(steps: Sequence[StepRecord], every: bool) -> list[PointEvidence]:
    """Runs per (phase family, superproject, submodule) point; all of them, or only those run twice or more."""
    by: dict[tuple[str, str, str | None], PointEvidence] = {}
    for s in steps:
        key = (_family(s.phase), s.superproject, s.submodule)
        e = by.get(key)
        if e is None:
            e = by[key] = PointEvidence(
                phase=s.phase, point=s.short, superproject=s.superproject, submodule=s.submodule, runs=0, passes=0,
                fails=0, skips=0,
            )  # fmt: skip
        e.runs += 1
        e.passes += s.verdict == "good"
        e.fails += s.verdict == "bad"
        e.skips += s.verdict == "skip"
        if s.metric is not None:
            e.metrics.append(s.metric)
    return [e for e in by.values() if every or e.runs > 1]


def _family(phase: str) -> str:
    """The end checks and level 1 test the same kind of point (a superproject commit at its own pointer)."""
    return "level1" if phase in ("verify_good", "verify_bad", "level1") else phase


def noise_seen(steps: Sequence[StepRecord]) -> list[str]:
    """One line per point whose runs gave both verdicts."""
    out = []
    for e in points(steps, every=False):
        if e.passes and e.fails:
            out.append(f"{e.point} ({e.phase}): {e.passes} pass, {e.fails} fail in {e.runs} runs")
    return out


def skip_reasons(steps: Sequence[StepRecord]) -> list[SkipReason]:
    groups = skip_policy.group_reasons((s.reason, s.short) for s in steps if s.verdict == "skip")
    return [SkipReason(reason=g.reason, count=g.count, points=g.points) for g in groups]


def storm_reason(
    steps: Sequence[StepRecord], phase: str, where: Callable[[StepRecord], int | None] | None = None, n: int = 0
) -> str | None:
    """The one reason every run of this search skipped with, once enough did and none gave a verdict, at
    points spread over the range (where: a step's position in the search), quoting the line they all printed."""
    runs = [s for s in steps if s.phase == phase]
    at = None if where is None else [i for i in (where(s) for s in runs) if i is not None]
    reason = skip_policy.storm(((s.verdict, s.reason) for s in runs), at, n)
    if reason is None:
        return None
    line = error_line.shared(s.log for s in runs)
    return f"{reason}, every run ending on {line!r}" if line else reason
