"""What a bisect does about points it cannot test: a budget, jumps away, blocks, and grouped reasons.

A skip storm (a run command broken everywhere but the two ends) used to test every point; a
runtime pointer that always crashes used to be probed commit by commit because its points were
the cheap ones. The rules here bound both: the search stops after a budget of skips, a skipped
middle sends the next test somewhere pseudo-random and not next door (as `git bisect skip` does),
a runtime that skipped twice without a single verdict counts as one skipped block, and identical
reasons with no verdict at all say the command is wrong before the budget is spent.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

STORM_AFTER = 3  # skips with one reason and no verdict before the command is called wrong


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


def jump_away(open_: list[int], skipped: set[int], mid: float, seed: object) -> int:
    """A pseudo-random open index, biased towards mid like git's skip_away, not next to a skip when
    another choice exists. Reproducible from the seed, so a resumed bisect makes the same choice."""
    far = [i for i in open_ if i - 1 not in skipped and i + 1 not in skipped]
    pool = sorted(far or open_, key=lambda i: (abs(i - mid), i))
    r = random.Random(repr(seed)).random()
    return pool[min(len(pool) - 1, int(len(pool) * r * math.sqrt(r)))]


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


def storm(verdicts: Iterable[tuple[str, str]]) -> str | None:
    """The one reason every point of a search skipped with, once STORM_AFTER did and none gave a verdict."""
    seen = list(verdicts)
    if len(seen) < STORM_AFTER or any(v != "skip" for v, _ in seen):
        return None
    reasons = {r for _, r in seen}
    return reasons.pop() if len(reasons) == 1 else None
