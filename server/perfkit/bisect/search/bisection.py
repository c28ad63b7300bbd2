"""Which point to test next: the one piece of the engine a smarter strategy replaces.

The engine knows nothing about halving. It hands a strategy the length of a linear candidate
list and the marks so far, and gets back a decision: test these indices, or the answer is this
index, or only this set can be named. The noise-aware strategy (noisy.py) fits the same contract,
and so do several devices: asked for a round of `devices` points, a strategy returns them all in
`test` (a (d + 1)-section of the open interval here, ksection below), repeats allowed.

Convention: index -1 is the start, known to be in the old state; the last index is known to be in
the new state. For a regression old is good and new is bad; for a find-fix search the reverse.
A mark is one verdict or the list of verdicts of a point tested several times (repeats).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

from perfkit.bisect.search import skip_policy

Mark = Literal["old", "new", "skip"]
Marks = Mapping[int, "Mark | Sequence[Mark]"]
Stop = Literal["skip_budget", "no_information"]


@dataclass(frozen=True)
class Decision:
    test: list[int] = field(default_factory=list)
    found: int | None = None
    candidates: list[int] = field(default_factory=list)
    remaining: int = 0  # estimated tests still needed in this search
    confidence: float | None = None  # probability the answer is right (noise-aware search only)
    stopped: Stop | None = None  # why the search ended without the confidence it wanted
    noisy: bool = False  # the noise-aware search made this decision
    flaky: tuple[float, float] | None = None  # (old read as new, new read as old) rates used
    disagreeing: list[int] = field(default_factory=list)  # points whose repeats disagree
    note: str = ""
    end_fails: Literal["start", "end"] | None = None  # the evidence says an end is not what it was given as
    end_doubt: tuple[float, float] = (0.0, 0.0)  # P(start end is not old), P(last end is not new)
    confirming: bool = False  # halving has an answer and its runs are confirming it (test: the pick, then the pair)


class Strategy(Protocol):
    def decide(
        self,
        n: int,
        marks: Marks,
        cheap: Callable[[int], bool] | None = None,
        group: Callable[[int], object] | None = None,
        devices: int = 1,
    ) -> Decision:
        """cheap(i): testing index i costs less right now (for example no reinstall is needed).
        group(i): a key shared by indices that stand or fall together (the runtime pointer they pin).
        devices: with d > 1, `test` is a whole round, up to d indices tested at once (the first is the
        one-device pick or the round's own), the same index more than once when its evidence is what
        is missing."""


def verdicts(mark: Mark | Sequence[Mark]) -> list[Mark]:
    return [mark] if isinstance(mark, str) else list(mark)


def settled(mark: Mark | Sequence[Mark]) -> Mark:
    """One verdict for a point: its last non-skip verdict, or skip when it never gave one."""
    real = [v for v in verdicts(mark) if v != "skip"]
    return real[-1] if real else "skip"


def open_interval(n: int, marks: Mapping[int, Mark]) -> tuple[int, int]:
    """(lo, hi): the last old mark before the first new one (-1: the start) and that new mark (n - 1: the end)."""
    hi = min([i for i, m in marks.items() if m == "new" and 0 <= i < n] + [n - 1])
    lo = max([i for i, m in marks.items() if m == "old" and -1 <= i < hi] + [-1])
    return lo, hi


def ksection(n: int, marks: Marks, d: int) -> list[int]:
    """d untested indices cutting the open interval (lo, hi] into d + 1 parts whose sizes differ by at most
    one, so that whatever the verdicts at most ceil(s / (d + 1)) of its s positions are left (git-pisect's
    k-section): the j-th point is the untested index nearest lo + s * j / (d + 1), a tie going to the lower.
    An interval holding at most d untested indices gives all of them. Marks may hold repeats (their
    settled verdict counts); a skipped index is never chosen again."""
    flat = {i: settled(m) for i, m in marks.items()}
    lo, hi = open_interval(n, flat)
    open_ = [i for i in range(lo + 1, hi) if i not in flat]
    if len(open_) <= d:
        return open_
    chosen: list[int] = []
    for j in range(1, d + 1):
        target = lo + (hi - lo) * j / (d + 1)
        chosen.append(min((i for i in open_ if i not in chosen), key=lambda i: (abs(i - target), i)))
    return sorted(chosen)


def by_distance(lo: int, hi: int, mid: float) -> Iterator[int]:
    """Indices strictly between lo and hi, nearest mid first (ties: the lower index)."""
    below = math.ceil(mid) - 1 if mid != int(mid) else int(mid)
    above = below + 1
    below = min(below, hi - 1)
    above = max(above, lo + 1)
    while below > lo or above < hi:
        if below > lo and (above >= hi or mid - below <= above - mid):
            yield below
            below -= 1
        else:
            yield above
            above += 1


@dataclass(frozen=True)
class Bisection:
    """Binary search that steps around skipped points, as `git bisect` does, and saves installs.

    The next point is the untested index nearest the middle of the open interval, except that a
    cheap index (one that needs no reinstall) is preferred anywhere the worst case stays the same:
    with s positions left and b = ceil(log2 s) tests to go, any i that leaves at most 2**(b-1)
    positions on either side costs no extra test in the worst case. Replayed over every possible
    culprit of the pypto history this needs 8% fewer submodule installs than plain midpoints, with
    the same runs (bench/bench_bisect.py). When every index between the last old and the first new
    mark is skipped, the answer is the whole set, never a guess.

    Skips (skip_policy.py): once the open interval holds a skip, cheapness no longer counts (the
    cheap points are the ones sharing the crashing runtime), the next test goes where a verdict is
    likely (away from known skips, as `git bisect skip` jumps away), a group (runtime pointer) that
    skipped twice and never gave a verdict counts as skipped whole, and after `max_skips` skips (None:
    the default budget for n) the search tries only indices outside known skip blocks, then stops
    with the candidate set.
    """

    max_skips: int | None = None

    def decide(
        self,
        n: int,
        marks: Marks,
        cheap: Callable[[int], bool] | None = None,
        group: Callable[[int], object] | None = None,
        devices: int = 1,
    ) -> Decision:
        """With devices > 1 the round is the open interval's (d + 1)-section (ksection), or this
        decision's own pick when skips leave no untested index there; the answer and the stops are the
        same as with one device."""
        one = self._decide(n, marks, cheap, group)
        if devices <= 1 or not one.test:
            return one
        return replace(one, test=ksection(n, marks, devices) or one.test)

    def _decide(
        self,
        n: int,
        marks: Marks,
        cheap: Callable[[int], bool] | None,
        group: Callable[[int], object] | None,
    ) -> Decision:
        if n <= 0:
            raise ValueError("empty candidate list")
        flat = {i: settled(m) for i, m in marks.items()}
        lo, hi = open_interval(n, flat)
        if hi - lo == 1:
            return Decision(found=hi)
        skipped = {i for i, m in flat.items() if m == "skip" and lo < i < hi}
        if skipped and group is not None:
            skipped |= skip_policy.blocked(lo, hi, flat, group)
        budget = expected_tests(hi - lo)
        if skipped:
            pick = self._around_skips(n, lo, hi, flat, skipped)
            if pick is None:
                return Decision(candidates=list(range(lo + 1, hi + 1)))
            if isinstance(pick, Decision):
                return pick
            return Decision(test=[pick], remaining=budget)
        mid = (lo + hi) / 2
        half = 2 ** (budget - 1)
        window = (hi - half, lo + half)  # i inside keeps the worst case at `budget` tests
        pick = self._nearest(lo, hi, mid, flat, window, cheap)
        if pick is None:
            return Decision(candidates=list(range(lo + 1, hi + 1)))
        return Decision(test=[pick], remaining=budget)

    @staticmethod
    def _nearest(
        lo: int,
        hi: int,
        mid: float,
        flat: Mapping[int, Mark],
        window: tuple[int, int],
        cheap: Callable[[int], bool] | None,
    ) -> int | None:
        """Today's rule without listing the interval: nearest-first over the window (symmetric about
        mid), a cheap index first; with no open index in the window, the same over the interval."""
        first_in, first_any = None, None
        for i in by_distance(lo, hi, mid):
            if i in flat:
                continue
            if first_any is None:
                first_any = i
            if window[0] <= i <= window[1]:
                if cheap is None or cheap(i):
                    return i
                if first_in is None:
                    first_in = i
                continue
            if first_in is not None:
                return first_in  # nearest-first: nothing further is inside the window
            if cheap is None or cheap(i):
                return i
        return first_in if first_in is not None else first_any

    def _around_skips(
        self, n: int, lo: int, hi: int, flat: Mapping[int, Mark], skipped: set[int]
    ) -> int | Decision | None:
        """The open index whose verdict is worth most, a likely skip counting for little; past the budget,
        only indices outside known skip blocks are still tried (up to twice the budget), then the
        candidate set is the answer."""
        open_ = [i for i in range(lo + 1, hi) if i not in flat and i not in skipped]
        if not open_:
            return None
        tested_skips = sum(1 for m in flat.values() if m == "skip")
        limit = self.max_skips if self.max_skips is not None else skip_policy.default_budget(n)
        judged = sorted(i for i, m in flat.items() if m != "skip")
        known = sorted(i for i, m in flat.items() if m == "skip")
        chance = {i: skip_policy.skip_chance(i, known, judged) for i in open_}
        if tested_skips >= limit:
            fresh = [i for i in open_ if not skip_policy.sandwiched(i, known, judged)]
            if not fresh or tested_skips >= 2 * limit:
                return Decision(candidates=list(range(lo + 1, hi + 1)), stopped="skip_budget")
            open_ = fresh
        mid, span = (lo + hi) / 2, hi - lo
        if len(known) >= 2 and not any(0 <= i < n - 1 for i in judged):
            return skip_policy.far_probe(open_, known, mid)  # only skips so far: one stretch, or everywhere?
        return max(open_, key=lambda i: (entropy((i - lo) / span) * (1 - chance[i]), -abs(i - mid), -i))


def entropy(p: float) -> float:
    """Bits in a yes/no answer that is yes with probability p."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def expected_tests(span: int) -> int:
    """Tests a halving search needs when the answer is one of `span` positions, the last known."""
    return math.ceil(math.log2(span)) if span > 1 else 0


DEFAULT = Bisection()
