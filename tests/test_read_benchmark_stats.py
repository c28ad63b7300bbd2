"""The statistics behind read_benchmark, each checked against a computation that shares no code with it:
published tables, exact sums with math.comb, brute-force enumeration, numerical integration."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from perfkit.benchmark import stats


def t_cdf_by_integration(t: float, df: int, steps: int = 4000) -> float:
    """P(T <= t) for t > 0: 1/2 plus Simpson's rule over the Student t density on [0, t]."""
    const = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    f = lambda x: const * (1 + x * x / df) ** (-(df + 1) / 2)  # noqa: E731
    h = t / steps
    total = f(0) + f(t) + sum((4 if i % 2 else 2) * f(i * h) for i in range(1, steps))
    return 0.5 + total * h / 3


# Two-sided 95% critical values of Student's t, as printed in statistics textbooks.
T_TABLE = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    7: 2.365,
    10: 2.228,
    20: 2.086,
    30: 2.042,
    60: 2.000,
    120: 1.980,
}


@pytest.mark.parametrize("df,expected", sorted(T_TABLE.items()))
def test_t_quantile_matches_the_printed_table(df, expected):
    assert stats.t_quantile(0.975, df) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("df", [1, 3, 9, 29, 239])
def test_t_quantile_inverts_the_integrated_density(df):
    t = stats.t_quantile(0.975, df)
    assert t_cdf_by_integration(t, df) == pytest.approx(0.975, abs=1e-7)


def test_t_quantile_tends_to_the_normal():
    assert stats.t_quantile(0.975, 10**6) == pytest.approx(1.959964, abs=1e-5)


@pytest.mark.parametrize("n", [1, 2, 6, 17, 60, 201])
def test_binomial_cdf_equals_exact_sum(n):
    for k in range(-1, n + 1):
        exact = sum(math.comb(n, i) for i in range(0, k + 1)) / 2**n
        assert stats.binom_half_cdf(k, n) == pytest.approx(exact, rel=1e-10, abs=1e-300)


def brute_median_order(n: int, confidence: float = 0.95) -> int | None:
    """Largest L with P(B in [L, n-L]) >= confidence, B ~ Bin(n, 1/2), by summing math.comb terms."""
    best = None
    for k in range(1, (n + 1) // 2 + 1):
        cover = sum(math.comb(n, i) for i in range(k, n - k + 1)) / 2**n
        if cover >= confidence:
            best = k
    return best


@pytest.mark.parametrize("n", list(range(1, 40)) + [57, 100, 241, 500])
def test_median_order_statistic_matches_brute_force(n):
    found = stats.median_order_index(n)
    expected = brute_median_order(n)
    assert (found[0] if found else None) == expected


def test_median_ci_needs_six_samples_like_benchstat():
    assert stats.min_samples_for_median_ci() == 6
    ci = stats.median_ci(np.sort(np.array([3.0, 1.0, 2.0, 5.0, 4.0])))
    assert ci.low is None and ci.high is None and "need >= 6" in ci.note
    ci6 = stats.median_ci(np.arange(1.0, 7.0))
    assert (ci6.low, ci6.high) == (1.0, 6.0) and ci6.coverage == pytest.approx(1 - 2 / 64)


def test_median_ci_for_a_million_samples_is_quick_and_right():
    n = 1_000_000
    k, coverage = stats.median_order_index(n)
    # Normal approximation with continuity correction: k ~ n/2 - 1.96 sqrt(n)/2.
    assert abs(k - (n / 2 - 1.959964 * math.sqrt(n) / 2)) < 3
    assert 0.95 <= coverage < 0.9505


@pytest.mark.parametrize("q", [0, 10, 25, 50, 90, 100])
def test_percentile_is_numpys_default(q):
    x = np.sort(np.random.default_rng(3).normal(size=37))
    assert stats.percentile(x, q) == pytest.approx(float(np.percentile(x, q)))


def brute_u_p(a: list[float], b: list[float]) -> float:
    """Two-sided exact p of the rank-sum test by enumerating every relabelling of the pooled values."""
    pooled = a + b
    ranks = {}
    ordered = sorted(pooled)
    for v in set(pooled):
        first = ordered.index(v) + 1
        last = len(ordered) - ordered[::-1].index(v)
        ranks[v] = (first + last) / 2
    observed = sum(ranks[v] for v in a)
    sums = [sum(ranks[pooled[i]] for i in idx) for idx in itertools.combinations(range(len(pooled)), len(a))]
    low = sum(s <= observed + 1e-9 for s in sums) / len(sums)
    high = sum(s >= observed - 1e-9 for s in sums) / len(sums)
    return min(1.0, 2 * min(low, high))


def pairs_u(a: list[float], b: list[float]) -> float:
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)


@pytest.mark.parametrize(
    "a,b",
    [
        ([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]),
        ([1.0, 5.0, 3.0, 7.0, 9.0], [2.0, 4.0, 6.0, 8.0, 10.0]),
        ([1.0, 1.0, 2.0], [1.0, 2.0, 2.0, 3.0]),
        ([0.91, 0.95, 0.93], [0.80, 0.81]),
    ],
)
def test_u_test_matches_enumeration(a, b):
    res = stats.mann_whitney_u(a, b)
    assert res.exact
    assert res.u_a == pytest.approx(pairs_u(a, b))
    assert res.p_value == pytest.approx(brute_u_p(a, b))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=6), st.lists(st.integers(0, 6), min_size=1, max_size=6))
def test_u_test_with_ties_matches_enumeration(a, b):
    fa, fb = [float(x) for x in a], [float(x) for x in b]
    res = stats.mann_whitney_u(fa, fb)
    assert res.u_a == pytest.approx(pairs_u(fa, fb))
    assert res.p_value == pytest.approx(brute_u_p(fa, fb))


def test_u_min_p_matches_benchstat_table():
    # golang.org/x/perf benchmath uTestMinP for equal sample sizes.
    table = {
        1: 1,
        2: 0.3333333333333333,
        3: 0.1,
        4: 0.02857142857142857,
        5: 0.007936507936507936,
        6: 0.0021645021645021645,
    }
    for n, p in table.items():
        assert stats.u_min_p(n, n) == pytest.approx(p)
        fully_separated = stats.mann_whitney_u([float(i) for i in range(n)], [float(i + 100) for i in range(n)])
        assert fully_separated.p_value == pytest.approx(p)


def test_u_normal_approximation_is_close_to_exact_for_many_runs():
    rng = random.Random(5)
    a = [rng.gauss(1.0, 0.1) for _ in range(60)]
    b = [rng.gauss(1.05, 0.1) for _ in range(60)]
    approx = stats.mann_whitney_u(a, b)
    assert not approx.exact
    # Exact distribution over the same data with the exact threshold raised.
    saved, stats.EXACT_U_MAX_RUNS = stats.EXACT_U_MAX_RUNS, 200
    try:
        exact = stats.mann_whitney_u(a, b)
    finally:
        stats.EXACT_U_MAX_RUNS = saved
    assert exact.exact
    assert approx.p_value == pytest.approx(exact.p_value, rel=0.05)


def _bimodal(rng, n, frac, ratio, noise):
    m = int(n * frac)
    return np.sort(np.concatenate([rng.normal(1.0, noise, n - m), rng.normal(ratio, noise * ratio, m)]))


def test_slow_cluster_found_and_counted():
    rng = np.random.default_rng(11)
    x = _bimodal(rng, 1000, 0.06, 1.7, 0.01)
    shape = stats.find_slow_cluster(x)
    assert shape.detected and shape.slow_count == 60
    assert x[-61] < shape.split_s < x[-60]
    threshold, rule = stats.automatic_slow_threshold(x, shape)
    assert threshold == shape.split_s and "valley" in rule


@pytest.mark.parametrize(
    "name,make",
    [
        ("normal", lambda r: r.normal(1.0, 0.03, 400)),
        ("lognormal", lambda r: np.exp(r.normal(0, 0.3, 400))),
        ("shifted exponential", lambda r: 1 + r.exponential(0.1, 400)),
        ("uniform", lambda r: r.uniform(1.0, 1.5, 400)),
        ("normal with two outliers", lambda r: np.concatenate([r.normal(1.0, 0.02, 398), [1.6, 2.1]])),
    ],
)
def test_unimodal_shapes_are_not_bimodal(name, make):
    for seed in range(20):
        x = np.sort(make(np.random.default_rng(seed)))
        assert not stats.find_slow_cluster(x).detected, (name, seed)


def test_timer_quantisation_is_not_a_cluster():
    x = np.sort(np.array([1.000] * 600 + [1.001] * 400))
    assert not stats.find_slow_cluster(x).detected


def test_automatic_threshold_without_clusters_is_the_far_fence_or_the_floor():
    rng = np.random.default_rng(2)
    wide = np.sort(rng.normal(1.0, 0.1, 500))
    q1, q3 = np.percentile(wide, [25, 75])
    threshold, rule = stats.automatic_slow_threshold(wide, stats.find_slow_cluster(wide))
    assert threshold == pytest.approx(q3 + 3 * (q3 - q1)) and "Q3 + 3" in rule
    tight = np.sort(rng.normal(1.0, 0.002, 500))
    threshold, rule = stats.automatic_slow_threshold(tight, stats.find_slow_cluster(tight))
    assert threshold == pytest.approx(1.2 * np.median(tight)) and "1.2" in rule


def test_speedup_interval_covers_the_true_ratio_about_95_percent_of_the_time():
    rng = np.random.default_rng(8)
    trials, hits = 2000, 0
    for _ in range(trials):
        a = rng.normal(1.0, 0.03, 4)
        b = rng.normal(0.8, 0.02, 5)
        ci = stats.ratio_ci(list(a), list(b))
        hits += ci.low <= 1.25 <= ci.high
    assert 0.93 <= hits / trials <= 0.97
