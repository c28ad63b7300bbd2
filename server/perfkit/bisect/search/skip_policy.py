"""What a bisect does about points it cannot test: a budget, jumps away, blocks, and grouped reasons.

A skip storm (a run command broken everywhere but the two ends) used to test every point; a
runtime pointer that always crashes used to be probed commit by commit because its points were
the cheap ones. The rules here bound both: the search stops after a budget of skips, a skipped
middle sends the next test somewhere pseudo-random and not next door (as `git bisect skip` does),
a runtime that skipped twice without a single verdict counts as one skipped block, and identical
reasons with no verdict at all say the command is wrong before the budget is spent.

Skips come in contiguous blocks (a build broken from one commit to a later fix), so the chance that
an untested commit skips falls with its distance to the nearest known skip: the next test goes
where a verdict is likely, not next door to a skip (64 skipped, then 63, then 65 is the pattern
this prevents), and a commit between two skips a few commits apart, with no verdict between them,
is taken to be inside their block. Past the budget only commits outside such blocks are still
tried, so the budget never ends a search with a testable stretch untried. The same reason at
points inside one stretch is a broken stretch of history, not a broken command: a search that has
only skipped sends its next test far from the skips, and only a reason repeated over a quarter of
the range is a storm.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

STORM_AFTER = 3  # skips with one reason and no verdict before the command is called wrong
BLOCK_GAP = 10  # two skips at most this far apart, with no verdict between them, stand for the block between
NEAR = 0.75  # chance that the neighbour of a skipped commit skips too; each commit further multiplies it again
INSIDE = 0.95  # chance that a commit between two skips a few commits apart skips too


def default_budget(n: int) -> int:
    """Skips allowed in a search over n positions: twice the tests a clean search needs, at least 4."""
    return max(4, 2 * math.ceil(math.log2(n + 1)))


def blocked(lo: int, hi: int, marks: Mapping[int, str], group: Callable[[int], object]) -> set[int]:
    """Indices in (lo, hi) whose group skipped at least twice and never gave a verdict."""
    skips: dict[object, int] = {}
    judged: set[object] = set()
    for i, m in marks.items():
        key = group(i) if 0 <= i else None
        if key is None:
            continue
        if m == "skip":
            skips[key] = skips.get(key, 0) + 1
        else:
            judged.add(key)
    dead = {k for k, c in skips.items() if c >= 2 and k not in judged}
    if not dead:
        return set()
    return {i for i in range(lo + 1, hi) if group(i) in dead}


def _reach(i: int, skipped: list[int], judged: list[int]) -> tuple[int | None, int | None]:
    """Distance from i to the nearest known skip below and above it, None when none or a verdict is between."""
    k = bisect.bisect_left(skipped, i)
    out: list[int | None] = []
    for s in (skipped[k - 1] if k > 0 else None, skipped[k] if k < len(skipped) else None):
        if s is None or s == i:
            out.append(None)
            continue
        a, b = min(i, s), max(i, s)
        j = bisect.bisect_right(judged, a)
        out.append(None if j < len(judged) and judged[j] < b else b - a)
    return out[0], out[1]


def sandwiched(i: int, skipped: list[int], judged: list[int], gap: int = BLOCK_GAP) -> bool:
    """Whether i lies between two known skips at most `gap` apart with no verdict between: inside a block."""
    below, above = _reach(i, skipped, judged)
    return below is not None and above is not None and below + above <= gap


def skip_chance(i: int, skipped: list[int], judged: list[int]) -> float:
    """How likely index i is to skip, from the nearest known skips not cut off by a verdict.

    skipped and judged are sorted. Inside a block (between two skips a few commits apart) a skip is
    nearly certain; beside one it halves about every two commits of distance."""
    if sandwiched(i, skipped, judged):
        return INSIDE
    return max((NEAR**d for d in _reach(i, skipped, judged) if d is not None), default=0.0)


def spread(points: Iterable[int], n: int) -> bool:
    """Whether the points cover at least a quarter of a search over n positions: more than one broken stretch."""
    order = sorted(set(points))
    return len(order) >= 2 and order[-1] - order[0] >= max(2, n // 4)


def far_probe(open_: list[int], skipped: list[int], mid: float) -> int:
    """The open index farthest from every known skip (ties: nearest the middle): where a search that has
    only skipped so far learns whether the whole range is broken or one stretch of it."""

    def gap(i: int) -> int:
        k = bisect.bisect_left(skipped, i)
        near = [abs(i - skipped[j]) for j in (k - 1, k) if 0 <= j < len(skipped)]
        return min(near, default=len(open_))

    return max(open_, key=lambda i: (gap(i), -abs(i - mid), -i))


@dataclass(frozen=True)
class SkipGroup:
    reason: str
    count: int
    points: list[str]


def group_reasons(skips: Iterable[tuple[str, str]]) -> list[SkipGroup]:
    """(reason, point label) pairs grouped by reason, the most frequent first."""
    groups: dict[str, list[str]] = {}
    for reason, label in skips:
        groups.setdefault(reason, []).append(label)
    return [SkipGroup(r, len(p), p) for r, p in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))]


def storm(verdicts: Iterable[tuple[str, str]], where: Iterable[int] | None = None, n: int = 0) -> str | None:
    """The one reason every point of a search skipped with, once STORM_AFTER did and none gave a verdict.

    where: the points' positions in a search over n; unless they cover a quarter of it, the reason
    may belong to one broken stretch of history, and the search goes on around it (the strategies
    send the third test of a search that only skipped far from the first two to find out)."""
    seen = list(verdicts)
    if len(seen) < STORM_AFTER or any(v != "skip" for v, _ in seen):
        return None
    reasons = {r for _, r in seen}
    if len(reasons) != 1:
        return None
    if where is not None and not spread(where, n):
        return None
    return reasons.pop()
