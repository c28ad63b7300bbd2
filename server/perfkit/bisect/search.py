"""Which point to test next: the one piece of the engine a smarter strategy replaces.

The engine knows nothing about halving. It hands a strategy the length of a linear candidate
list and the marks so far, and gets back a decision: test these indices, or the answer is this
index, or only this set can be named. A noise-aware strategy (repeat a point until a confidence
target) or a parallel one (several devices, several points at once) fits the same contract.

Convention: index -1 is the start, known to be in the old state; the last index is known to be in
the new state. For a regression old is good and new is bad; for a find-fix search the reverse.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

Mark = Literal["old", "new", "skip"]


@dataclass(frozen=True)
class Decision:
    test: list[int] = field(default_factory=list)
    found: int | None = None
    candidates: list[int] = field(default_factory=list)
    remaining: int = 0  # estimated tests still needed in this search


class Strategy(Protocol):
    def decide(self, n: int, marks: dict[int, Mark], cheap: Callable[[int], bool] | None = None) -> Decision:
        """cheap(i): testing index i costs less right now (for example no reinstall is needed)."""


def _bounds(n: int, marks: dict[int, Mark]) -> tuple[int, int]:
    hi = min([i for i, m in marks.items() if m == "new" and 0 <= i < n] + [n - 1])
    lo = max([i for i, m in marks.items() if m == "old" and -1 <= i < hi] + [-1])
    return lo, hi


class Bisection:
    """Binary search that steps around skipped points, as `git bisect` does, and saves installs.

    The next point is the untested index nearest the middle of the open interval, except that a
    cheap index (one that needs no reinstall) is preferred anywhere the worst case stays the same:
    with s positions left and b = ceil(log2 s) tests to go, any i that leaves at most 2**(b-1)
    positions on either side costs no extra test in the worst case. Replayed over every possible
    culprit of the pypto history this needs 8% fewer submodule installs than plain midpoints, with
    the same runs (bench/bench_bisect.py). When every index between the last old and the first new mark is skipped,
    the answer is the whole set, never a guess.
    """

    def decide(self, n: int, marks: dict[int, Mark], cheap: Callable[[int], bool] | None = None) -> Decision:
        if n <= 0:
            raise ValueError("empty candidate list")
        lo, hi = _bounds(n, marks)
        if hi - lo == 1:
            return Decision(found=hi)
        open_ = [i for i in range(lo + 1, hi) if i not in marks]
        if not open_:
            return Decision(candidates=list(range(lo + 1, hi + 1)))
        mid = (lo + hi) / 2
        budget = expected_tests(hi - lo)
        half = 2 ** (budget - 1)
        pool = [i for i in open_ if i - lo <= half and hi - i <= half] or open_
        if cheap is not None:
            pool = [i for i in pool if cheap(i)] or pool
        pick = min(pool, key=lambda i: (abs(i - mid), i))
        return Decision(test=[pick], remaining=budget)


def expected_tests(span: int) -> int:
    """Tests a halving search needs when the answer is one of `span` positions, the last known."""
    return math.ceil(math.log2(span)) if span > 1 else 0


DEFAULT = Bisection()
