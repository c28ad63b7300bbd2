"""A bisect that stays right when the check is not: a posterior over the culprit, and a stated confidence.

Precision checks on accelerators flip now and then (atomics, reduction order, autotuning, a busy
device). Plain halving trusts every verdict, so one flipped verdict names a wrong culprit with
full confidence. Here every verdict is evidence: the strategy keeps the probability of each
position being the first new one, tests where a verdict is worth the most information per unit
of cost (a point needing a reinstall costs more than one already installed, a retest included),
and names a culprit only once it holds `confidence`. Since it never names a position before its
parent and itself both hold verdicts, the culprit is confirmed by construction.

The posterior is piecewise constant between tested points, so a decision costs O(tested points),
not O(n): a 100,000-commit range is as fast as a 100-commit one.

`Adaptive` is the default: plain halving with its answer confirmed (the culprit and its parent
run twice), turning to this search as soon as a verdict contradicts another.
"""

from __future__ import annotations

import bisect as bisect_mod
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from perfkit.bisect.search import skip_policy
from perfkit.bisect.search.bisection import Bisection, Decision, Mark, Marks, Stop, open_interval, settled, verdicts
from perfkit.bisect.search.rate_prior import DEFAULT_PRIOR, RatePrior

_FLOOR = 1e-4
CHEAP_REACH = 1024  # how far from the best split a cheap point is looked for
AWAY = 64  # how far from the best split an untested point is looked for when skips are near
END_DOUBT = 0.005  # prior chance that an end that was run is not what it was given as


def _h(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def info_gain(f: float, to_old: float, to_new: float) -> float:
    """Bits a verdict at a point is expected to give, when P(culprit at or before it) = f."""
    q = f * (1 - to_old) + (1 - f) * to_new
    return _h(q) - f * _h(to_old) - (1 - f) * _h(to_new)


def best_split(to_old: float, to_new: float) -> float:
    """The f that maximises info_gain: 1/2 for symmetric noise. info_gain is concave in f and its
    derivative vanishes where log2((1 - q) / q) = (h(to_old) - h(to_new)) / (1 - to_old - to_new),
    q being the chance of a "new" verdict, so the maximum has a closed form."""
    if to_old == to_new:
        return 0.5
    spread = 1 - to_old - to_new
    if spread <= 0:
        return 0.5  # a check that is wrong more often than right carries no information to split by
    q = 1 / (1 + 2 ** ((_h(to_old) - _h(to_new)) / spread))
    return min(1.0, max(0.0, (q - to_new) / spread))


@dataclass
class _Counts:
    new: int = 0
    old: int = 0


@dataclass
class Posterior:
    """P(first new index = k) for k in 0..n-1, kept per segment between tested points."""

    n: int
    tested: list[int]  # sorted tested indices in 0..n-2 with at least one verdict
    per_k: list[float]  # per-position probability in segment j = (bounds[j], bounds[j+1]]
    bounds: list[int]  # -1, tested..., n-1
    cdf: list[float]  # P(k <= bounds[j]) for every bound
    to_old: float = 0.0  # the flake rates the search works with: told, or their posterior means
    to_new: float = 0.0
    log_evidence: float = 0.0  # log P(verdicts | the ends hold), the culprit uniform over the n positions

    def segment(self, i: int) -> int:
        """j such that i lies in (bounds[j], bounds[j+1]]."""
        return max(0, bisect_mod.bisect_left(self.bounds, i) - 1)

    def f(self, i: int) -> float:
        """P(k <= i)."""
        if i < 0:
            return 0.0
        if i >= self.n - 1:
            return 1.0
        j = self.segment(i)
        return min(1.0, self.cdf[j] + (i - self.bounds[j]) * self.per_k[j])

    def entropy_bits(self) -> float:
        total = 0.0
        for j, p in enumerate(self.per_k):
            if p > 0:
                total -= (self.bounds[j + 1] - self.bounds[j]) * p * math.log2(p)
        return total


def _log_told(flips: float, agrees: float, rate: float) -> float:
    return flips * math.log(max(rate, _FLOOR)) + agrees * math.log(max(1 - rate, _FLOOR))


def posterior(
    n: int, counts: dict[int, _Counts], to_old: float | None, to_new: float | None, prior: RatePrior = DEFAULT_PRIOR
) -> Posterior:
    """Exact over the culprit; a rate left as None is integrated over `prior` instead of being fixed at
    an estimate, which would make the stated confidence optimistic.

    Segment j puts every tested point before it truly old and every one from it on truly new, so its
    likelihood depends only on four sums (flips and agreements on each side): O(tested points)."""
    tested = sorted(i for i in counts if 0 <= i < n - 1)
    low = [c for i, c in counts.items() if i < 0]  # the good end: truly old whatever the culprit
    high = [c for i, c in counts.items() if i >= n - 1]  # the bad end: truly new
    # old side: flips are "new" verdicts (rate to_new); new side: flips are "old" verdicts (rate to_old)
    old_flips, old_agree = [sum(c.new for c in low)], [sum(c.old for c in low)]
    for t in tested:
        old_flips.append(old_flips[-1] + counts[t].new)
        old_agree.append(old_agree[-1] + counts[t].old)
    new_flips, new_agree = [0] * (len(tested) + 1), [0] * (len(tested) + 1)
    new_flips[-1], new_agree[-1] = sum(c.old for c in high), sum(c.new for c in high)
    for j in range(len(tested) - 1, -1, -1):
        new_flips[j] = new_flips[j + 1] + counts[tested[j]].old
        new_agree[j] = new_agree[j + 1] + counts[tested[j]].new
    bounds = [-1, *tested, n - 1]
    ll = []
    for j in range(len(tested) + 1):
        side_old = (
            prior.log_marginal(old_flips[j], old_agree[j])
            if to_new is None
            else _log_told(old_flips[j], old_agree[j], to_new)
        )
        side_new = (
            prior.log_marginal(new_flips[j], new_agree[j])
            if to_old is None
            else _log_told(new_flips[j], new_agree[j], to_old)
        )
        ll.append(side_old + side_new)
    top = max(ll)
    weights = [math.exp(v - top) for v in ll]
    z = sum(w * (bounds[j + 1] - bounds[j]) for j, w in enumerate(weights))
    per_k = [w / z for w in weights]
    cdf, acc = [], 0.0
    rate_old = rate_new = 0.0  # posterior means of the rates
    for j, p in enumerate(per_k):
        cdf.append(acc)
        mass = p * (bounds[j + 1] - bounds[j])
        acc += mass
        if to_new is None:
            rate_new += mass * prior.mean(old_flips[j], old_agree[j])
        if to_old is None:
            rate_old += mass * prior.mean(new_flips[j], new_agree[j])
    cdf.append(1.0)
    a = to_old if to_old is not None else min(max(rate_old, 0.001), 0.4)
    b = to_new if to_new is not None else min(max(rate_new, 0.001), 0.4)
    return Posterior(n, tested, per_k, bounds, cdf, a, b, top + math.log(z) - math.log(n))


@dataclass(frozen=True)
class NoisySearch:
    """Probabilistic bisection over the first new index, with repeats, skips and costs.

    to_new: P(a truly old point reads new); to_old: P(a truly new point reads old). None: integrated
    over `prior` as the verdicts update it (a point whose repeats disagree is the clearest evidence),
    so the confidence reached also counts the chance that the check flakes more than it has shown.
    install_cost: what a point that is not cheap costs, in runs of an installed point.
    """

    confidence: float = 0.99
    to_old: float | None = None
    to_new: float | None = None
    max_skips: int | None = None
    install_cost: float = 2.0
    prior: RatePrior = DEFAULT_PRIOR  # what an unknown flake rate is believed to be before any run

    def decide(
        self,
        n: int,
        marks: Marks,
        cheap: Callable[[int], bool] | None = None,
        group: Callable[[int], object] | None = None,
        devices: int = 1,
        among: Sequence[int] | None = None,
    ) -> Decision:
        """devices: the points of one round (spread), the one-point pick first.
        among: test only these indices (retests included), when one of them can still tell something."""
        if n <= 0:
            raise ValueError("empty candidate list")
        counts, skipped, n_skips = _tally(n, marks)
        if group is not None and n_skips >= 2:
            flat = {i: settled(m) for i, m in marks.items()}
            skipped |= skip_policy.blocked(-1, n - 1, flat, group)
        post = self.posterior(n, counts)
        ends = self.end_doubt(n, counts, post)
        a, b = post.to_old, post.to_new
        base = Decision(
            noisy=True,
            flaky=(round(b, 4), round(a, 4)),
            disagreeing=sorted(i for i, c in counts.items() if c.new and c.old),
            end_doubt=(round(ends[0], 4), round(ends[1], 4)),
        )
        if n == 1 and ends == (0.0, 0.0):
            return replace(base, found=0, confidence=1.0)
        for side, doubt in zip(("start", "end"), ends, strict=True):
            if doubt >= self.confidence:
                return replace(base, end_fails=side, confidence=doubt)  # type: ignore[arg-type]
        held = 1.0 - ends[0] - ends[1]
        classes = _classes(post, skipped)
        top_mass, top = max(classes, key=lambda c: (c[0], -c[1][0]))
        top_mass *= held
        if top_mass >= self.confidence:
            if len(top) == 1:
                return replace(base, found=top[0], confidence=top_mass)
            return replace(base, candidates=top, confidence=top_mass)
        limit = self.max_skips if self.max_skips is not None else skip_policy.default_budget(n)
        over = n_skips >= limit
        if n_skips >= 2 * limit:
            return self._give_up(_classes(post, skipped, full=True), "skip_budget", base, held)
        pick = _far(n, counts, skipped) if not over else None
        if pick is None:
            pick = self._next(n, post, counts, skipped, ends, cheap, n_skips, over, among)
        if pick is None:
            why: Stop = "skip_budget" if over else "no_information"
            return self._give_up(_classes(post, skipped, full=True), why, base, held)
        capacity = max(0.05, 1 - (_h(a) + _h(b)) / 2)
        left = math.ceil((post.entropy_bits() + math.log2(1 / (1 - self.confidence))) / capacity)
        test = [pick] if devices <= 1 else spread(n, post, counts, skipped, ends, pick, devices, among, over)
        return replace(base, test=test, remaining=max(1, left), confidence=top_mass)

    def end_doubt(self, n: int, counts: dict[int, _Counts], post: Posterior) -> tuple[float, float]:
        """P(the start end is not old), P(the last end is not new): each end that was run is evidence,
        not a gate, so a flaky end run costs a re-run, and an end that keeps disagreeing ends the search.

        An end never run (level 2, or the ends not verified) is taken as given."""
        runs_lo = any(i < 0 for i in counts)
        runs_hi = any(i >= n - 1 for i in counts)
        if not runs_lo and not runs_hi:
            return 0.0, 0.0
        olds = sum(c.old for c in counts.values())
        news = sum(c.new for c in counts.values())
        terms = [math.log(1 - (END_DOUBT if runs_lo else 0) - (END_DOUBT if runs_hi else 0)) + post.log_evidence]
        if runs_lo:  # every point new: the old verdicts are the flips
            terms.append(math.log(END_DOUBT) + self._side(olds, news, self.to_old))
        if runs_hi:  # every point old: the new verdicts are the flips
            terms.append(math.log(END_DOUBT) + self._side(news, olds, self.to_new))
        top = max(terms)
        weights = [math.exp(t - top) for t in terms]
        z = sum(weights)
        lo = weights[1] / z if runs_lo else 0.0
        hi = weights[-1] / z if runs_hi else 0.0
        return lo, hi

    def _side(self, flips: int, agrees: int, rate: float | None) -> float:
        return self.prior.log_marginal(flips, agrees) if rate is None else _log_told(flips, agrees, rate)

    def posterior(self, n: int, counts: dict[int, _Counts]) -> Posterior:
        return posterior(n, counts, self.to_old, self.to_new, self.prior)

    def _give_up(
        self, classes: list[tuple[float, list[int]]], why: Stop, base: Decision, held: float = 1.0
    ) -> Decision:
        """The smallest set of positions that holds `confidence`, when no more runs are allowed."""
        ranked = sorted(((m * held, members) for m, members in classes), key=lambda c: -c[0])
        chosen: list[int] = []
        mass = 0.0
        for m, members in ranked:
            if mass >= self.confidence:
                break
            chosen += members
            mass += m
        return replace(base, candidates=sorted(chosen), confidence=min(1.0, mass), stopped=why)

    def _next(
        self,
        n: int,
        post: Posterior,
        counts: dict[int, _Counts],
        skipped: set[int],
        ends: tuple[float, float],
        cheap: Callable[[int], bool] | None,
        n_skips: int,
        over: bool = False,
        among: Sequence[int] | None = None,
    ) -> int | None:
        """The index whose verdict is worth most per unit of cost. A retest of a tested point or an end
        counts like any other; an untested index counts less the likelier it is to skip. Over the skip
        budget only untested indices outside known skip blocks are still tried."""
        a, b = post.to_old, post.to_new
        target = best_split(a, b)
        base_old, base_new = _h(a), _h(b)
        doubt_lo, doubt_hi = ends
        held = 1.0 - doubt_lo - doubt_hi

        def gain(f: float) -> float:
            return _h(f * (1 - a) + (1 - f) * b) - f * base_old - (1 - f) * base_new

        def cost(i: int) -> float:
            if cheap is None:
                return 1.0
            return 1.0 if 0 <= i < n and cheap(i) else self.install_cost

        def whole(f: float) -> float:  # P(k <= i) with the end hypotheses
            return doubt_lo + held * f

        scored: dict[int, tuple[float, float]] = {}  # index -> (gain per cost, P(k <= index))
        for t, f in _retests(n, post, counts, ends):  # where evidence is weakest they carry the most
            scored[t] = (gain(f) / cost(t), f)
        inner = min(1 - 1e-9, max(1e-9, (target - doubt_lo) / held)) if held > 0 else target
        crossing = _crossing(post, inner)
        candidates = _open_near(crossing, n, counts, skipped)
        for j in range(len(post.bounds) - 1):  # the best untested point of every segment with mass
            lo, hi = post.bounds[j], post.bounds[j + 1]
            if post.per_k[j] * (hi - lo) > 1e-3 and hi - lo > 1:
                want = lo + round((inner - post.cdf[j]) / post.per_k[j])
                candidates += _open_near(min(max(want, lo + 1), hi - 1), n, counts, skipped, reach=1)
        known = sorted(skipped)
        chance: Callable[[int], float] = lambda i: 0.0  # noqa: E731
        if known:
            judged = sorted(counts)
            chance = lambda i: skip_policy.skip_chance(i, known, judged)  # noqa: E731
            window = range(max(0, crossing - AWAY), min(n - 1, crossing + AWAY + 1))
            candidates += [i for i in window if _is_open(i, counts, skipped)]
        if over:  # retests still count: they are not where skips come from
            judged_ = sorted(counts)
            candidates = [i for i in candidates if not skip_policy.sandwiched(i, known, judged_)]
        for i in candidates:
            f = whole(post.f(i))
            scored[i] = (gain(f) * (1 - chance(i)) / cost(i), f)
        if cheap is not None and not known:
            best = max((g for g, _ in scored.values()), default=0.0)
            for i in _cheap_near(crossing, n, counts, skipped, cheap, post, gain, best):
                scored[i] = (gain(whole(post.f(i))), whole(post.f(i)))
        if among is not None:
            kept = {i: v for i, v in scored.items() if i in among and v[0] > 1e-9}
            scored = kept or scored
        if not scored:
            return None
        pick = max(scored, key=lambda i: (scored[i][0], -abs(scored[i][1] - target), -i))
        return pick if scored[pick][0] > 1e-9 else None


def spread(
    n: int,
    post: Posterior,
    counts: dict[int, _Counts],
    skipped: set[int],
    ends: tuple[float, float],
    first: int,
    d: int,
    among: Sequence[int] | None = None,
    over: bool = False,
) -> list[int]:
    """The d points of one round: `first` (the one-point pick), then for each other quantile j / (d + 1)
    of the posterior the index whose P(culprit at or before it) is nearest it. Where the mass is spread
    over untested indices that is their (d + 1)-section; where it sits on few positions it is the tested
    points next to them, run again: the weakest evidence. An index may come more than once, each run on
    another device being one more verdict, so no device is left without a point while one can tell
    something. Past the skip budget (over) an untested index between two known skips is not offered."""
    doubt_lo, doubt_hi = ends
    held = 1.0 - doubt_lo - doubt_hi

    def whole(i: int) -> float:  # P(k <= i) with the end hypotheses
        if i < 0:
            return doubt_lo
        if i >= n - 1:
            return 1.0 - doubt_hi
        return doubt_lo + held * post.f(i)

    targets = [j / (d + 1) for j in range(1, d + 1)]
    options = {t for t, _ in _retests(n, post, counts, ends)}
    for t in targets:
        inner = min(1 - 1e-9, max(1e-9, (t - doubt_lo) / held)) if held > 0 else t
        near = _open_near(_crossing(post, inner), n, counts, skipped)
        if over:
            known, judged = sorted(skipped), sorted(counts)
            near = [i for i in near if not skip_policy.sandwiched(i, known, judged)]
        options.update(near)
    if among is not None:
        options &= set(among)
    if not options:
        return [first]
    f = {i: whole(i) for i in options}
    f.setdefault(first, whole(first))
    targets.remove(min(targets, key=lambda t: abs(t - f[first])))
    return [first, *(min(options, key=lambda i: (abs(f[i] - t), i)) for t in targets)]


def _far(n: int, counts: dict[int, _Counts], skipped: set[int]) -> int | None:
    """A search that has only skipped so far tests far from its skips: one broken stretch, or all of it?"""
    if len(skipped) < 2 or any(0 <= i < n - 1 for i in counts):
        return None
    open_ = [i for i in range(n - 1) if _is_open(i, counts, skipped)]
    return skip_policy.far_probe(open_, sorted(skipped), (n - 1) / 2) if open_ else None


def _retests(n: int, post: Posterior, counts: dict[int, _Counts], ends: tuple[float, float]) -> list[tuple[int, float]]:
    """Tested points and ends that were run, each with P(k <= it), where a retest can still tell something."""
    held = 1.0 - ends[0] - ends[1]
    out = [(t, ends[0] + held * post.cdf[j]) for j, t in enumerate(post.tested, start=1)]
    if any(i < 0 for i in counts):
        out.append((-1, ends[0]))
    if any(i >= n - 1 for i in counts):
        out.append((n - 1, 1 - ends[1]))
    return [(i, f) for i, f in out if 1e-6 < f < 1 - 1e-6]


def _tally(n: int, marks: Marks) -> tuple[dict[int, _Counts], set[int], int]:
    counts: dict[int, _Counts] = {}
    skipped: set[int] = set()
    n_skips = 0
    for i, m in marks.items():
        new = old = skip = 0
        for v in (m,) if isinstance(m, str) else m:
            if v == "new":
                new += 1
            elif v == "old":
                old += 1
            else:
                skip += 1
        n_skips += skip
        if new or old:
            counts[i] = _Counts(new, old)
        elif 0 <= i < n - 1:
            skipped.add(i)
    return counts, skipped, n_skips


def _is_open(i: int, counts: dict[int, _Counts], skipped: set[int]) -> bool:
    return i not in counts and i not in skipped


def _crossing(post: Posterior, target: float) -> int:
    """The index where P(k <= i) first reaches target."""
    j = max(0, bisect_mod.bisect_right(post.cdf, target) - 1)
    j = min(j, len(post.per_k) - 1)
    lo, hi = post.bounds[j], post.bounds[j + 1]
    p = post.per_k[j]
    step = math.ceil((target - post.cdf[j]) / p) if p > 0 else 1
    return min(max(lo + max(step, 1), 0), max(hi - 1, 0), post.n - 2) if post.n > 1 else 0


def _open_near(i: int, n: int, counts: dict[int, _Counts], skipped: set[int], reach: int = 2) -> list[int]:
    """The nearest open indices at or below i and above it (a few each way)."""
    out: list[int] = []
    for direction in (-1, 1):
        j, found = i if direction < 0 else i + 1, 0
        while 0 <= j < n - 1 and found < reach:
            if _is_open(j, counts, skipped):
                out.append(j)
                found += 1
            elif j in counts:
                break  # a tested point ends the segment: beyond it the retest options cover
            j += direction
    return out


def _cheap_near(
    start: int,
    n: int,
    counts: dict[int, _Counts],
    skipped: set[int],
    cheap: Callable[[int], bool],
    post: Posterior,
    gain: Callable[[float], float],
    best: float,
) -> list[int]:
    """Cheap open indices out from start while their gain could still beat `best` (gain is unimodal)."""
    out: list[int] = []
    for direction in (-1, 1):
        j = start if direction < 0 else start + 1
        while 0 <= j < n - 1 and abs(j - start) <= CHEAP_REACH:
            if gain(post.f(j)) < best:
                break
            if _is_open(j, counts, skipped) and cheap(j):
                out.append(j)
                break
            j += direction
    return out


def _classes(post: Posterior, skipped: set[int], full: bool = False) -> list[tuple[float, list[int]]]:
    """Positions that no test can tell apart (separated only by skipped indices), with their mass.

    A segment without skips holds positions of equal mass, so unless `full` it is represented by
    one of them: this stays O(tested + skips) however long the range."""
    out: list[tuple[float, list[int]]] = []
    sk = sorted(skipped)
    for j, p in enumerate(post.per_k):
        lo, hi = post.bounds[j], post.bounds[j + 1]
        size = hi - lo
        inside = sk[bisect_mod.bisect_right(sk, lo) : bisect_mod.bisect_left(sk, hi)]
        if not inside:
            if full:
                out += [(p, [k]) for k in range(lo + 1, hi + 1)] if p * size > 1e-9 else []
            else:
                out.append((p, [hi] if size == 1 else [lo + 1]))
            continue
        members: list[int] = []
        for k in range(lo + 1, hi + 1):
            members.append(k)
            if k not in skipped:  # k tested or testable: the next position is told apart from it
                out.append((p * len(members), members))
                members = []
    return out


@dataclass(frozen=True)
class Adaptive:
    """Plain halving while every verdict agrees; a culprit named only once it holds `confidence`.

    Halving never tests a point twice, so on its own a flipped verdict sends it to a wrong culprit
    that looks as certain as a right one, and one agreeing re-run of the culprit and its parent
    still lets a flip through whenever that re-run flips too (about 1.5% of answers at 5% flips
    over 128 commits). So once halving has an answer, the noise-aware search weighs every run so
    far under a flake-rate prior that allows checks flaking up to about 10% (rate_prior.py) and
    re-runs where the evidence is weakest, nearly always the culprit and its parent, until the
    answer holds `confidence`. A deterministic check pays about four runs for it (the parent's and
    the culprit's runs agreeing three times each, where the untested stretch next to one of them is
    long one more); a flip behind the answer shows as a point giving both verdicts. A contradiction
    at any time hands the whole search to the noise-aware one.

    While confirming, `test` is the pick where the evidence is weakest, then the culprit and its
    parent. Asked for a round of d devices: while halving, the (d + 1)-section of the open interval,
    and when that round tests every index left in it (the round that ends the halving), the devices
    it leaves free run the confirmation's points at once; while confirming, the culprit and its
    parent on every device (confirming_round).
    """

    fallback: NoisySearch = field(default_factory=NoisySearch)
    max_skips: int | None = None

    def decide(
        self,
        n: int,
        marks: Marks,
        cheap: Callable[[int], bool] | None = None,
        group: Callable[[int], object] | None = None,
        devices: int = 1,
    ) -> Decision:
        clash = contradiction(n, marks)
        if clash is not None:
            return replace(self.fallback.decide(n, marks, cheap, group, devices=devices), note=clash)
        d = Bisection(self.max_skips).decide(n, marks, cheap, group, devices=devices)
        if d.test:
            if devices > 1:
                d = replace(d, test=self._ride_along(n, marks, d.test, devices))
            return replace(d, remaining=d.remaining + CONFIRM_RUNS)
        if d.found is None:
            return d
        pair = [d.found, d.found - 1]
        if devices > 1:
            sure = self.fallback.decide(n, marks, cheap, group, among=pair)
            if not sure.test:
                return replace(sure, noisy=False)
            runnable = [i for i in pair if 0 <= i < n - 1 or i in marks]  # an end is run only if it was
            test = confirming_round(self.fallback, n, marks, [], runnable, [d.found], devices)
            return replace(sure, test=test or sure.test, noisy=False, confirming=True)
        # the member whose build is installed (the one halving ran last) is confirmed first: no install
        first = [i for i in pair if cheap is not None and cheap(i) and len(_judged(marks.get(i))) == 1]
        sure = self.fallback.decide(n, marks, cheap, group, among=first or pair)
        if not sure.test:
            return replace(sure, noisy=False)
        return replace(sure, test=[*sure.test, *(i for i in pair if i not in sure.test)], noisy=False, confirming=True)

    def _ride_along(self, n: int, marks: Marks, picks: list[int], d: int) -> list[int]:
        """A halving round that tests every index left between the last old and the first new mark ends the
        halving: whatever its verdicts, the culprit and its parent are among those indices and the
        interval's two ends, and the confirmation would run them again in a round of its own. The devices
        the round leaves free run them now (confirming_round, every answer of the round as likely)."""
        flat = {i: settled(m) for i, m in marks.items()}
        lo, hi = open_interval(n, flat)
        if len(picks) >= d or sorted(picks) != list(range(lo + 1, hi)):
            return picks  # no device free, or the halving goes on after this round (or skips are in the way)
        options = [*picks, *(i for i in (hi, lo) if flat.get(i, "skip") != "skip")]
        return confirming_round(self.fallback, n, marks, picks, options, list(range(lo + 1, hi + 1)), d)


def confirming_round(
    judge: NoisySearch, n: int, marks: Marks, picks: list[int], options: list[int], answers: list[int], d: int
) -> list[int]:
    """`picks`, then runs of `options` up to d points in all, each the option that most raises the chance
    that the answer holds the confidence once the round is read: every answer in `answers` as likely,
    every verdict believed (for answer c, every index before c old, c and after new). Ties go to the
    higher mean confidence, then to the option run fewest times. Stops early when every answer would
    already hold: a run more would only repeat what the round says."""
    out = list(picks)
    runs = {i: len(_judged(marks.get(i))) for i in options}

    def score(extra: list[int]) -> tuple[int, float]:
        done, sure = 0, 0.0
        for c in answers:
            believed = {i: verdicts(m) for i, m in marks.items()}
            for i in extra:
                believed[i] = [*believed.get(i, []), "old" if i < c else "new"]
            dec = judge.decide(n, believed)
            done += dec.found == c
            sure += dec.confidence or 0.0
        return done, sure

    while len(out) < d and options and score(out)[0] < len(answers):
        out.append(max(options, key=lambda i: (*score([*out, i]), -(runs[i] + out.count(i)), -options.index(i))))
    return out


def _judged(mark: Mark | Sequence[Mark] | None) -> list[Mark]:
    return [] if mark is None else [v for v in verdicts(mark) if v != "skip"]


CONFIRM_RUNS = 4  # what the default's confirmation costs a deterministic check, per search, most of the time


def contradiction(n: int, marks: Marks) -> str | None:
    """How the verdicts contradict a single boundary, or None when they agree."""
    olds: list[int] = []
    news: list[int] = []
    for i, m in marks.items():
        vs = set(verdicts(m)) - {"skip"}
        if vs == {"old", "new"}:
            return f"index {i} gave both verdicts on repeats"
        if i >= n - 1 and "old" in vs or i < 0 and "new" in vs:
            return f"index {i} contradicts the end it is"
        (olds if "old" in vs else news if "new" in vs else []).append(i)
    if olds and news and max(olds) > min(news):
        return f"index {min(news)} reads new but the later index {max(olds)} reads old"
    return None
