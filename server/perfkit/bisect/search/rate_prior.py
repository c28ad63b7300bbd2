"""What the search believes about a flake rate nobody told it: a prior it integrates over, not a guess it trusts.

A rate estimated from a dozen runs is uncertain, and fixing it at its estimate makes every stated
confidence optimistic (at 10% flips a search stopping at 0.99 was right 95% of the time). Here an
unknown rate is a mixture of Beta distributions; the likelihood of a side's verdicts (flips and
agreements) integrates the rate out in closed form, so no run is spent on pretending to know it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class RatePrior:
    """Components (share, mean, weight): a Beta with that mean and `weight` pseudo-runs, mixed by share."""

    components: tuple[tuple[float, float, float], ...]

    def log_marginal(self, flips: float, agrees: float) -> float:
        """log P(these verdicts on one side | the prior), the rate integrated out."""
        if len(self.components) == 1:
            _, mean, weight = self.components[0]
            return _log_beta_ratio(mean, weight, flips, agrees)
        terms = [
            math.log(share) + _log_beta_ratio(mean, weight, flips, agrees) for share, mean, weight in self.components
        ]
        top = max(terms)
        return top + math.log(sum(math.exp(t - top) for t in terms))

    def mean(self, flips: float, agrees: float) -> float:
        """The posterior mean of the rate after these verdicts."""
        if len(self.components) == 1:
            _, mean, weight = self.components[0]
            return (mean * weight + flips) / (weight + flips + agrees)
        terms = [
            math.log(share) + _log_beta_ratio(mean, weight, flips, agrees) for share, mean, weight in self.components
        ]
        top = max(terms)
        odds = [math.exp(t - top) for t in terms]
        means = [(mean * weight + flips) / (weight + flips + agrees) for _, mean, weight in self.components]
        return sum(o * m for o, m in zip(odds, means, strict=True)) / sum(odds)

    def _terms(self, flips: float, agrees: float) -> list[float]:
        return [math.log(s) + _log_beta_ratio(m, w, flips, agrees) for s, m, w in self.components]

    def updated(self, flips: float, agrees: float) -> RatePrior:
        """The prior after these verdicts: each component's Beta updated, the shares reweighed."""
        terms = self._terms(flips, agrees)
        top = max(terms)
        odds = [math.exp(t - top) for t in terms]
        total = sum(odds)
        return RatePrior(
            tuple(
                (o / total, (m * w + flips) / (w + flips + agrees), w + flips + agrees)
                for o, (_, m, w) in zip(odds, self.components, strict=True)
            )
        )


def log_likelihood(flips: float, agrees: float, rate: float | None, prior: RatePrior) -> float:
    """log P(these verdicts on one side): at the rate told, or with the rate integrated over prior."""
    if rate is None:
        return prior.log_marginal(flips, agrees)
    return flips * math.log(max(rate, 1e-4)) + agrees * math.log(max(1 - rate, 1e-4))


@functools.lru_cache(maxsize=1 << 16)  # counts are small integers that recur at every decision
def _log_beta_ratio(mean: float, weight: float, flips: float, agrees: float) -> float:
    """log B(a + flips, b + agrees) / B(a, b) for a Beta(a, b) with that mean and weight."""
    a, b = mean * weight, (1 - mean) * weight
    return (
        math.lgamma(a + flips)
        + math.lgamma(b + agrees)
        - math.lgamma(a + b + flips + agrees)
        - math.lgamma(a)
        - math.lgamma(b)
        + math.lgamma(a + b)
    )


# Mean 7%, worth 15 runs: a check may well flake up to about 10% (one in four under this prior flakes more).
# The default and the noise-aware search name a culprit only when it holds the confidence under it, so a
# stated 99% stays true at 10% flips, while a deterministic check pays about four confirmation runs per
# search. A lighter tail (mean 5%, worth 40) saves a run but states 99% for answers right only 97% of the
# time at 10% flips (bench/simulate_bisect.py; docs/performance.md has the numbers).
DEFAULT_PRIOR = RatePrior(((1.0, 0.07, 15.0),))
