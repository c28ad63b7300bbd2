"""Statistics for benchmark comparisons, written out so every figure can be checked by hand.

No scipy: the Student t and binomial distributions both reduce to the regularized incomplete beta
function, computed here with the Lentz continued fraction. The conventions follow Go's benchstat
where it has one (median interval from order statistics, Mann-Whitney U with a minimum-p check);
the shape rules (bimodality, automatic slow-step threshold) are perfkit's own and are documented
in docs/campaign-format.md.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
ALPHA = 0.05
EXACT_U_MAX_RUNS = 100  # above this many runs in total, the U test uses the normal approximation


# ---------------------------------------------------------------- distributions


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(ln_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(ln_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student t cumulative distribution."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_pdf(t: float, df: float) -> float:
    ln_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(ln_c - (df + 1) / 2 * math.log1p(t * t / df))


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """Inverse of t_cdf by Newton's method from 0: the cdf is concave on t >= 0, so the iterates
    rise monotonically to the root and never overshoot."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    t = 0.0
    for _ in range(500):
        step = (p - t_cdf(t, df)) / t_pdf(t, df)
        t += step
        if step <= 1e-14 * max(t, 1.0):
            break
    return t


def binom_half_cdf(k: int, n: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return betainc(n - k, k + 1, 0.5)


# ---------------------------------------------------------------- intervals


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None
    note: str | None  # why there is no interval, when there is none
    coverage: float | None = None  # the exact coverage of an order-statistic interval


def median_order_index(n: int, confidence: float = CONFIDENCE) -> tuple[int, float] | None:
    """The 1-based order statistic L for the interval [x(L), x(n+1-L)] around the median.

    L is the largest index whose interval still covers the population median with probability
    >= confidence (coverage 1 - 2 P(B <= L-1), B ~ Binomial(n, 1/2)). None when even the
    full range [min, max] falls short, which happens below 6 samples at 95%.
    """

    def covers(k: int) -> bool:
        return 1.0 - 2.0 * binom_half_cdf(k - 1, n) >= confidence

    if n < 1 or not covers(1):
        return None
    top = (n + 1) // 2
    z = math.sqrt(2.0) * _erfinv(confidence)  # start from the normal approximation, then walk
    k = min(top, max(1, int(n / 2.0 - z * math.sqrt(n) / 2.0)))
    while k > 1 and not covers(k):
        k -= 1
    while k < top and covers(k + 1):
        k += 1
    return k, 1.0 - 2.0 * binom_half_cdf(k - 1, n)


def _erfinv(y: float) -> float:
    """Inverse error function by Newton's method (only a starting point is needed here)."""
    x = 0.0
    for _ in range(100):
        step = (math.erf(x) - y) / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
        x -= step
        if abs(step) < 1e-12:
            break
    return x


def min_samples_for_median_ci(confidence: float = CONFIDENCE) -> int:
    n = 1
    while median_order_index(n, confidence) is None:
        n += 1
    return n


def median_ci(sorted_values: np.ndarray, confidence: float = CONFIDENCE) -> Interval:
    n = len(sorted_values)
    found = median_order_index(n, confidence)
    if found is None:
        need = min_samples_for_median_ci(confidence)
        return Interval(None, None, f"too few samples: need >= {need} for a {confidence:.0%} interval of the median")
    k, coverage = found
    return Interval(float(sorted_values[k - 1]), float(sorted_values[n - k]), None, coverage)


def mean_ci(mean: float, stdev: float | None, n: int, confidence: float = CONFIDENCE) -> Interval:
    """Student t interval: mean +- t(1 - (1-c)/2, n-1) * s / sqrt(n)."""
    if n < 2 or stdev is None:
        return Interval(None, None, f"too few samples: need >= 2 for a {confidence:.0%} interval of the mean")
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * stdev / math.sqrt(n)
    return Interval(mean - half, mean + half, None)


def ratio_ci(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Approximate interval of mean(a) / mean(b) from independent samples a and b.

    Delta method on the log ratio: se(ln mean) = s / (sqrt(n) mean); the two variances add, the
    degrees of freedom follow Welch-Satterthwaite, and the t interval is exponentiated back.
    """
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return Interval(None, None, "too few runs: need >= 2 per arm for an interval of the speedup")
    ma, mb = float(np.mean(a)), float(np.mean(b))
    va = float(np.var(a, ddof=1)) / (na * ma * ma)
    vb = float(np.var(b, ddof=1)) / (nb * mb * mb)
    centre = math.log(ma / mb)
    if va + vb == 0.0:
        return Interval(ma / mb, ma / mb, None)
    df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, df) * math.sqrt(va + vb)
    return Interval(math.exp(centre - half), math.exp(centre + half), None)


def percentile(sorted_values: np.ndarray, q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, Hyndman-Fan type 7)."""
    n = len(sorted_values)
    pos = (n - 1) * q / 100.0
    i = int(math.floor(pos))
    j = min(i + 1, n - 1)
    return float(sorted_values[i] + (sorted_values[j] - sorted_values[i]) * (pos - i))


# ---------------------------------------------------------------- Mann-Whitney U


@dataclass(frozen=True)
class UTest:
    n_a: int
    n_b: int
    u_a: float  # pairs where a > b, ties counting one half
    p_value: float | None
    min_p_value: float
    exact: bool
    a_lower: bool  # whether a's values rank below b's on average


def u_min_p(n_a: int, n_b: int) -> float:
    """Smallest two-sided p-value the exact test can give without ties: 2 / C(n_a + n_b, n_a)."""
    if n_a == 0 or n_b == 0:
        return 1.0
    ways = math.comb(n_a + n_b, n_a)
    if ways.bit_length() < 1000:  # exact while 2 / ways is a normal float
        return min(1.0, 2.0 / ways)
    return 0.0  # below 2**-999: the smallest p-value is nothing any test could tell from zero


def _midranks(values: np.ndarray) -> np.ndarray:
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values))
    sv = values[order]
    i = 0
    while i < len(sv):
        j = i
        while j + 1 < len(sv) and sv[j + 1] == sv[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def _exact_rank_sum_counts(doubled: Sequence[int], k: int) -> np.ndarray:
    """counts[s] = number of k-subsets of the items whose doubled ranks sum to s."""
    total = int(sum(doubled))
    dp = np.zeros((k + 1, total + 1))
    dp[0, 0] = 1.0
    for r in doubled:
        for j in range(k, 0, -1):  # items used at most once: walk j downwards
            dp[j, r:] += dp[j - 1, : total + 1 - r]
    counts: np.ndarray = dp[k]
    return counts


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> UTest:
    """Two-sided Mann-Whitney U test of a against b.

    Exact permutation distribution (ties handled with midranks) up to EXACT_U_MAX_RUNS values in
    total, normal approximation with tie and continuity corrections beyond.
    """
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n_a, n_b = len(xa), len(xb)
    min_p = u_min_p(n_a, n_b)
    if n_a == 0 or n_b == 0:
        return UTest(n_a, n_b, 0.0, None, 1.0, True, False)
    ranks = _midranks(np.concatenate([xa, xb]))
    rank_sum_a = float(ranks[:n_a].sum())
    u_a = rank_sum_a - n_a * (n_a + 1) / 2.0
    mean_u = n_a * n_b / 2.0
    a_lower = u_a < mean_u
    n = n_a + n_b
    if n <= EXACT_U_MAX_RUNS:
        doubled = [int(round(2 * r)) for r in ranks]
        counts = _exact_rank_sum_counts(doubled, n_a)
        obs = int(round(2 * rank_sum_a))
        total = counts.sum()
        low = counts[: obs + 1].sum() / total
        high = counts[obs:].sum() / total
        p = min(1.0, 2.0 * min(low, high))
        return UTest(n_a, n_b, u_a, p, min_p, True, a_lower)
    _, tie_counts = np.unique(ranks, return_counts=True)
    tie_term = float(((tie_counts**3) - tie_counts).sum()) / (n * (n - 1))
    var_u = n_a * n_b / 12.0 * ((n + 1) - tie_term)
    if var_u <= 0:
        return UTest(n_a, n_b, u_a, 1.0, min_p, False, a_lower)
    z = (abs(u_a - mean_u) - 0.5) / math.sqrt(var_u)
    p = min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0)))
    return UTest(n_a, n_b, u_a, p, min_p, False, a_lower)


# ---------------------------------------------------------------- step-time shape

MIN_CLUSTER_STEPS = 3
MIN_CLUSTER_FRACTION = 0.01
MIN_CLUSTER_RATIO = 1.05  # slow cluster centre at least 5% above the fast one
MIN_CLUSTER_IQRS = 4.0  # ... and at least 4 interquartile ranges of the fast cluster above it
VALLEY_WINDOW = 6.0  # window half-width = distance between the cluster centres / 6
VALLEY_DEPTH = 0.5  # the gap holds fewer than half the steps found around the thinner cluster's centre
FENCE_IQR = 3.0
SLOW_FLOOR = 1.2


@dataclass(frozen=True)
class Split:
    detected: bool
    split_s: float | None  # midpoint of the gap between the clusters
    fast_center_s: float | None
    slow_center_s: float | None
    slow_count: int
    reason: str


def _window(sorted_values: np.ndarray, center: float, half: float) -> int:
    lo = np.searchsorted(sorted_values, center - half, side="left")
    hi = np.searchsorted(sorted_values, center + half, side="right")
    return int(hi - lo)


def find_slow_cluster(sorted_values: np.ndarray) -> Split:
    """Decide whether the step times form two clusters, a typical one and a slow one.

    1. Split the sorted times in two where the between-group variance is largest (Otsu's
       method), allowing only splits that leave each group >= 3 steps and >= 1% of the steps.
    2. Call it bimodal when the upper group's median is >= 5% and >= 4 interquartile ranges of
       the lower group above the lower group's median, and the gap between them is a valley: a
       window centred on the gap (half-width one sixth of the distance between the two medians)
       holds fewer than half as many steps as the same window around the sparser median.

    Simulated on unimodal shapes (normal, log-normal, gamma, uniform, Student t), the rule flags
    almost none from 200 steps up, under 4% at 40 steps and up to 11% at 18 steps. It finds
    clusters clear of the typical steps (5% of steps 20% slower with 1% noise, or 50% slower
    with 5% noise); clusters that overlap the typical steps are not reported.
    """
    x = sorted_values
    n = len(x)
    min_size = max(MIN_CLUSTER_STEPS, math.ceil(MIN_CLUSTER_FRACTION * n))
    if n < 2 * min_size:
        return Split(False, None, None, None, 0, f"too few steps to look for two clusters ({n})")
    csum = np.cumsum(x, dtype=float)
    i = np.arange(min_size, n - min_size + 1)  # i = size of the lower group
    lower_mean = csum[i - 1] / i
    upper_mean = (csum[-1] - csum[i - 1]) / (n - i)
    score = i * (n - i) * (upper_mean - lower_mean) ** 2
    distinct = x[i] > x[i - 1]
    if not distinct.any():
        return Split(False, None, None, None, 0, "no split between distinct step times")
    score = np.where(distinct, score, -1.0)
    cut = int(i[int(np.argmax(score))])
    fast, slow = x[:cut], x[cut:]
    c_fast, c_slow = float(np.median(fast)), float(np.median(slow))
    split = float((fast[-1] + slow[0]) / 2.0)
    ratio = c_slow / c_fast if c_fast > 0 else math.inf
    if ratio < MIN_CLUSTER_RATIO:
        return Split(
            False,
            None,
            c_fast,
            c_slow,
            0,
            f"the upper group is only {100 * (ratio - 1):.1f}% above the lower one (need >= 5%)",
        )
    q1, q3 = percentile(fast, 25), percentile(fast, 75)
    if c_slow - c_fast < MIN_CLUSTER_IQRS * (q3 - q1):
        return Split(
            False,
            None,
            c_fast,
            c_slow,
            0,
            f"the upper group's median is {(c_slow - c_fast) / (q3 - q1):.1f} interquartile ranges of "
            f"the typical steps above theirs (need >= 4)",
        )
    half = (c_slow - c_fast) / VALLEY_WINDOW
    at_gap = _window(x, split, half)
    thinner = min(_window(x, c_fast, half), _window(x, c_slow, half))
    if at_gap >= VALLEY_DEPTH * thinner:
        return Split(
            False,
            None,
            c_fast,
            c_slow,
            0,
            f"no valley between {c_fast:.4g} s and {c_slow:.4g} s ({at_gap} steps in the gap window "
            f"against {thinner} around the sparser centre)",
        )
    return Split(
        True,
        split,
        c_fast,
        c_slow,
        int(n - cut),
        f"{n - cut} of {n} steps ({100 * (n - cut) / n:.1f}%) form a cluster around {c_slow:.4g} s, "
        f"{100 * (ratio - 1):.0f}% above the typical {c_fast:.4g} s, with a valley at {split:.4g} s",
    )


def automatic_slow_threshold(sorted_values: np.ndarray, shape: Split) -> tuple[float, str]:
    """The slow-step threshold when the user gives none, from the baseline's steady state.

    A bimodal baseline: the valley between its clusters, so its slow cluster is exactly the slow
    steps. Otherwise Tukey's far-out fence Q3 + 3 IQR, but never below 1.2 x the median, so a
    very tight distribution does not call a 2% wobble slow.
    """
    if shape.detected and shape.split_s is not None:
        return shape.split_s, "valley between the baseline's two step-time clusters"
    q1, q3 = percentile(sorted_values, 25), percentile(sorted_values, 75)
    med = percentile(sorted_values, 50)
    fence = q3 + FENCE_IQR * (q3 - q1)
    if fence >= SLOW_FLOOR * med:
        return fence, "baseline Q3 + 3 x IQR (Tukey far-out fence)"
    return SLOW_FLOOR * med, "1.2 x the baseline median (the Q3 + 3 x IQR fence was lower)"


# ---------------------------------------------------------------- percentiles


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(B <= k) for B ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return betainc(n - k, k + 1, 1.0 - p)


def quantile_order_indices(n: int, q: float, confidence: float = CONFIDENCE) -> tuple[int, int, float] | None:
    """1-based order statistics (l, u) with [x(l), x(u)] covering the population q-quantile.

    The count B of samples below the quantile is Binomial(n, q), so the interval covers it with
    probability P(l <= B < u) = F(u - 1) - F(l - 1). Start from the normal approximation, then
    widen one side at a time (the side whose step adds more coverage) until the coverage is
    reached; None when even [x(1), x(n)] falls short, which is how a p99 from too few samples
    says it rests on too few tail values. The median's interval is the case q = 0.5.
    """
    if n < 1 or not 0.0 < q < 1.0:
        return None
    if 1.0 - binom_cdf(0, n, q) - (1.0 - binom_cdf(n - 1, n, q)) < confidence:
        return None
    z = math.sqrt(2.0) * _erfinv(confidence)
    sd = math.sqrt(n * q * (1.0 - q))
    lo = max(1, min(n, int(math.floor(n * q - z * sd))))
    hi = max(lo + 1, min(n, int(math.ceil(n * q + z * sd)) + 1))

    def cover(a: int, b: int) -> float:
        return binom_cdf(b - 1, n, q) - binom_cdf(a - 1, n, q)

    while cover(lo, hi) < confidence:
        gain_lo = cover(lo - 1, hi) if lo > 1 else -1.0
        gain_hi = cover(lo, hi + 1) if hi < n else -1.0
        if gain_lo < 0 and gain_hi < 0:
            return None
        if gain_lo >= gain_hi:
            lo -= 1
        else:
            hi += 1
    while lo < hi - 1 and cover(lo + 1, hi) >= confidence and lo + 1 <= n * q:  # tighten from the outside
        lo += 1
    while hi > lo + 1 and cover(lo, hi - 1) >= confidence and hi - 1 >= n * q:
        hi -= 1
    return lo, hi, cover(lo, hi)


def quantile_ci(sorted_values: np.ndarray, q: float, confidence: float = CONFIDENCE) -> Interval:
    n = len(sorted_values)
    found = quantile_order_indices(n, q, confidence)
    if found is None:
        need = 1
        while quantile_order_indices(need, q, confidence) is None:
            need = need * 2 if need < 64 else need + max(1, need // 8)
        return Interval(
            None,
            None,
            f"too few samples: fewer than about {need} leave no {confidence:.0%} interval of the p{q * 100:g}",
        )
    lo, hi, coverage = found
    return Interval(float(sorted_values[lo - 1]), float(sorted_values[hi - 1]), None, coverage)
