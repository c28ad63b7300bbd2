"""The Mann-Whitney p-values against figures computed without perfkit's code.

The null distribution of U is the Gaussian binomial coefficient [m+n, m]_q (the number of
arrangements of m a's and n b's with U = k is the coefficient of q^k), built here with integer
polynomial arithmetic: an exact enumeration that shares nothing with stats.py's rank-sum DP. The
standard printed table of critical values gives the small-sample cut-offs.
"""

from __future__ import annotations

import math
import random

import pytest
from perfkit.benchmark.stats import EXACT_U_MAX_RUNS, mann_whitney_u


def u_distribution(m: int, n: int) -> list[int]:
    """counts[k] = arrangements with U = k: prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)."""
    poly = [1]
    for i in range(1, m + 1):
        grown = poly + [0] * (n + i)
        for k, c in enumerate(poly):
            grown[k + n + i] -= c
        for k in range(i, len(grown)):  # divide by (1 - q^i): a running sum with stride i
            grown[k] += grown[k - i]
        poly = grown
    return poly[: m * n + 1]


def exact_two_sided(m: int, n: int, u: float) -> float:
    counts = u_distribution(m, n)
    assert sum(counts) == math.comb(m + n, m)
    low = int(min(u, m * n - u))
    return min(1.0, 2 * sum(counts[: low + 1]) / math.comb(m + n, m))


def arrangement(m: int, n: int, u: int) -> tuple[list[float], list[float]]:
    """a below b except for u pairs: a's top values are moved up past u of b's values in all."""
    whole, rest = divmod(u, n)
    a = [float(i) for i in range(m)]
    b = [m + float(j) for j in range(n)]
    for i in range(whole):
        a[m - 1 - i] = m + n + i  # beats every b
    if rest:
        a[m - 1 - whole] = m + rest - 0.5  # beats the first `rest` values of b
    return a, b


@pytest.mark.parametrize(("m", "n", "u"), [(5, 5, 2), (7, 8, 10), (8, 8, 13), (10, 12, 30), (20, 25, 200)])
def test_exact_path_matches_an_independent_enumeration(m, n, u):
    a, b = arrangement(m, n, u)
    res = mann_whitney_u(a, b)
    assert res.exact and res.u_a == u
    assert res.p_value == pytest.approx(exact_two_sided(m, n, u), rel=1e-9)


def test_printed_critical_values_for_eight_against_eight():
    """Two-sided alpha 0.05, n1 = n2 = 8: the table's critical U is 13 (significant at U <= 13)."""
    at, above = mann_whitney_u(*arrangement(8, 8, 13)), mann_whitney_u(*arrangement(8, 8, 14))
    assert at.p_value is not None and above.p_value is not None
    assert at.p_value <= 0.05 < above.p_value


@pytest.mark.parametrize(("m", "n", "seed"), [(60, 45, 3), (55, 50, 4), (51, 51, 2)])
def test_normal_approximation_beyond_the_exact_limit_is_close_to_the_exact_p(m, n, seed):
    """Continuity-corrected normal approximation: within 0.002 of the exact p near the centre of the
    distribution; a correction with the wrong sign (+0.5) misses by more than 0.005 here."""
    rng = random.Random(seed)
    a = [rng.random() for _ in range(m)]
    b = [rng.random() + 0.05 for _ in range(n)]
    assert m + n > EXACT_U_MAX_RUNS
    res = mann_whitney_u(a, b)
    assert not res.exact
    exact = exact_two_sided(m, n, res.u_a)
    assert 0.2 < exact < 0.99  # where the approximation is good enough to tell the sign of the correction
    assert res.p_value == pytest.approx(exact, abs=0.002)
    sd = math.sqrt(m * n * (m + n + 1) / 12)
    wrong_sign = math.erfc((abs(res.u_a - m * n / 2) + 0.5) / sd / math.sqrt(2))
    assert abs(wrong_sign - exact) > 0.005  # the check above can tell the two apart


def test_speedup_interval_is_wide_when_only_one_arm_varies():
    """Only when both arms are constant is the ratio known exactly; one varying arm keeps the width."""
    from perfkit.benchmark.stats import ratio_ci

    steady, noisy = [2.0, 2.0, 2.0, 2.0], [1.0, 1.2, 0.8, 1.1, 0.9]
    ci = ratio_ci(steady, noisy)
    assert ci.low is not None and ci.high is not None
    assert ci.low < 2.0 < ci.high and ci.high - ci.low > 0.3
    # the steady arm adds no variance, so Welch's degrees of freedom are the noisy arm's n - 1 = 4 and the
    # interval is the ratio times exp(+-t * se of the log mean), t(0.975, 4) = 2.776 from the printed table
    mean = sum(noisy) / len(noisy)
    se = math.sqrt(sum((x - mean) ** 2 for x in noisy) / (len(noisy) - 1) / len(noisy)) / mean
    assert (ci.low, ci.high) == pytest.approx(
        (2.0 / mean * math.exp(-2.776 * se), 2.0 / mean * math.exp(2.776 * se)), rel=1e-4
    )
    fixed = ratio_ci(steady, [1.0, 1.0, 1.0])
    assert (fixed.low, fixed.high) == (2.0, 2.0)
