"""What a bisect will cost, said before it starts: runs and rounds, as a range, with devices and noise.

A single number hides what decides the cost: a deterministic check costs the halving runs plus the
default's confirmation runs per search (about four), a flaky one costs what its flake rate allows (the
information a run carries falls as the rate grows), and with d devices a round tests d points, so
halving becomes (d + 1)-section. The formulas are in docs/bisect.md ("The start estimate"); the
noisy bounds follow the simulator's measurements (docs/performance.md), not a promise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfkit.bisect.models import BisectSettings

CONFIRM_RUNS = 4  # the default's confirmation runs per search, most of the time (noisy.Adaptive)
HIGH_RATE = 0.10  # an unknown flake rate: the high end assumes the rate the prior allows (rate_prior.DEFAULT_PRIOR)
CONFIRM_ROUNDS = 2  # with devices: rounds of its own the confirmation takes at most (often none: it rides along)
UNKNOWN_RATE_RUNS = 1  # what not knowing the rate costs over being told it (0.66 to 0.88 runs measured)


@dataclass(frozen=True)
class Span:
    low: int
    high: int

    def __add__(self, other: Span) -> Span:
        return Span(self.low + other.low, self.high + other.high)

    def words(self, unit: str) -> str:
        many = unit + "s"
        if self.high == 0:
            return f"no {unit}"
        if self.low == self.high:
            return f"about {self.low} {unit if self.low == 1 else many}"
        return f"{self.low} to {self.high} {many}"


@dataclass(frozen=True)
class Estimate:
    runs: Span
    rounds: Span | None  # with devices
    flaky: Span | None  # noise off: what the search costs if the check turns out to flake


def _h(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def halving(n: int) -> Span:
    """Runs plain halving needs over n positions (the last known): floor to ceil of log2 n."""
    if n <= 1:
        return Span(0, 0)
    return Span(math.floor(math.log2(n)), math.ceil(math.log2(n)))


def ksection(n: int, d: int) -> Span:
    """Rounds (d + 1)-section needs over n positions."""
    if n <= 1:
        return Span(0, 0)
    return Span(max(1, math.floor(math.log(n, d + 1) + 1e-9)), math.ceil(math.log(n, d + 1) - 1e-9))


def noisy(n: int, confidence: float, rate: float, told: bool) -> Span:
    """Runs of the noise-aware search: low, a check that never flakes (log2 n plus half the bits the
    confidence asks for); high, one that flakes at `rate` both ways (Burnashev's bound
    log2 n / C + log2(1 / (1 - confidence)) / C1, plus a run when the rate is not told)."""
    if n <= 1:
        return Span(0, 0)
    bits = math.log2(n)
    sure = math.log2(1 / (1 - confidence))
    r = min(max(rate, 0.005), 0.45)
    capacity = 1 - _h(r)
    c1 = (1 - 2 * r) * math.log2((1 - r) / r)
    low = math.ceil(bits + sure / 2)
    high = math.ceil(bits / capacity + sure / c1 + (0 if told else UNKNOWN_RATE_RUNS))
    return Span(low, max(low, high))


def confirmation(n: int, ends_run: bool) -> Span:
    """The default's confirmation: runs until the answer holds the confidence under a prior that lets the
    check flake (noisy.Adaptive). A deterministic check pays about CONFIRM_RUNS, fewer over a few commits,
    where the answer sits next to an end that was run."""
    if n <= 1:
        return Span(0, 2) if ends_run else Span(0, 0)
    return Span(1 if n <= 5 else 2, CONFIRM_RUNS)


def _rate(s: BisectSettings) -> tuple[float, bool]:
    told = [r for r in (s.flaky_fail, s.flaky_pass) if r is not None]
    return (max(told), True) if told else (HIGH_RATE, False)


def search(n: int, s: BisectSettings, noise: bool, ends_run: bool) -> tuple[Span, Span | None]:
    """Runs of one search over n positions, and what it costs instead if a flaky check shows itself."""
    rate, told = _rate(s)
    conf = s.confidence or 0.99
    if noise:
        return noisy(n, conf, rate, told), None
    plain = halving(n) + confirmation(n, ends_run)
    return plain, noisy(n, conf, rate, told)


def start(s: BisectSettings, level1: int, largest_move: int, noise: bool) -> Estimate:
    """The whole bisect: the end checks, level 1, and a level 2 inside the range's largest pointer move."""
    ends = Span(2, 2) if s.verify_ends else Span(0, 0)
    one, flaky1 = search(level1, s, noise, s.verify_ends)
    two, flaky2 = search(largest_move, s, noise, False) if largest_move else (Span(0, 0), None)
    runs = ends + one + Span(0, two.high)  # level 2 runs only when the culprit moves the pointer
    flaky = None
    if flaky1 is not None:
        flaky = ends + flaky1 + (Span(0, flaky2.high) if flaky2 else Span(0, 0))
        flaky = flaky if flaky.high > runs.high else None  # nothing to search: no difference to state
    d = len(s.devices)
    if d <= 1:
        return Estimate(runs, None, flaky)
    # the ends share the first round with level-1 points; the confirmation of culprit and parent rides along
    # on the devices the last halving round leaves free, or takes up to two rounds of its own
    end_rounds = Span(1, 1) if s.verify_ends else Span(0, 0)
    if noise:  # the noise model leads each round; the other devices take the quantiles of its posterior
        lvl1 = Span(ksection(level1, d).low + one.low - halving(level1).low, one.high)
        lvl2 = Span(0, two.high)
    else:
        lvl1 = ksection(level1, d) + Span(0, CONFIRM_ROUNDS)
        lvl2 = Span(0, ksection(largest_move, d).high + CONFIRM_ROUNDS) if largest_move else Span(0, 0)
    return Estimate(runs, end_rounds + lvl1 + lvl2, flaky)


def words(e: Estimate, devices: int, ends: bool) -> str:
    text = e.runs.words("run")
    if e.rounds is not None:
        text += f" in {e.rounds.words('round')} on {devices} devices"
    text += ", the two end checks included" if ends else ""
    if e.flaky is not None:
        text += f" (if the check turns out to flake, the noise-aware search takes over: {e.flaky.words('run')})"
    return text
