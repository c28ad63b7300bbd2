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


# Mean 5%, worth 40 runs of evidence: at 5% flips the default names the right culprit at least 99.5% of
# the time in at most 1.7 log2 N runs for N >= 1,000 (weight 20: 1.75 log2 N at N = 1,000; the point
# estimate: 99.1%). A heavier tail (lower weight, or a mixture with a high-rate part) keeps the stated
# confidence at 10% flips but costs every search more runs; docs/performance.md has the numbers.
DEFAULT_PRIOR = RatePrior(((1.0, 0.05, 40.0),))
