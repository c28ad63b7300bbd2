"""The search strategies against a check that lies, and the skip rules, on their own (seeded, fast).

A seeded flaky oracle plants a culprit and flips verdicts at a known rate; accuracy is asserted
over many planted culprits. A deterministic oracle must cost exactly what the halving search
cost before noise handling existed (its code is kept below as the reference).
"""

from __future__ import annotations

import math
import random

import pytest
from perfkit.bisect.search import skip_policy
from perfkit.bisect.search.bisection import Bisection, expected_tests
from perfkit.bisect.search.noisy import CONFIRM_RUNS, Adaptive, NoisySearch, best_split, contradiction, info_gain


def reference_pick(n, marks, cheap):
    """The halving step before this change, verbatim in behaviour: the oracle for 'exactly today's runs'."""
    hi = min([i for i, m in marks.items() if m == "new" and 0 <= i < n] + [n - 1])
    lo = max([i for i, m in marks.items() if m == "old" and -1 <= i < hi] + [-1])
    if hi - lo == 1:
        return ("found", hi)
    open_ = [i for i in range(lo + 1, hi) if i not in marks]
    mid, budget = (lo + hi) / 2, expected_tests(hi - lo)
    half = 2 ** (budget - 1)
    pool = [i for i in open_ if i - lo <= half and hi - i <= half] or open_
    if cheap is not None:
        pool = [i for i in pool if cheap(i)] or pool
    return ("test", min(pool, key=lambda i: (abs(i - mid), i)))


def flaky_search(strategy, n, k, to_new, to_old, rng, cheap_every=None):
    """Drive a strategy against a planted culprit k; verdicts flip with the given rates. (answer, runs, installs)"""
    marks: dict[int, list[str]] = {}
    runs = installs = 0
    installed = None
    while True:
        cheap = None
        if cheap_every and installed is not None:

            def cheap(i, inst=installed):
                return i // cheap_every == inst

        d = strategy.decide(n, marks, cheap)
        if not d.test:
            return d, runs, installs
        i = d.test[0]
        assert -1 < i < n - 1
        runs += 1
        if cheap_every and i // cheap_every != installed:
            installs += 1
            installed = i // cheap_every
        flip = rng.random() < (to_old if i >= k else to_new)
        truth = "new" if i >= k else "old"
        marks.setdefault(i, []).append(({"new": "old", "old": "new"}[truth]) if flip else truth)
        assert runs < 20 * max(8, n.bit_length()), "runaway search"


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 100, 257, 1000])
def test_deterministic_check_costs_todays_runs_plus_the_confirmation(n):
    """The default strategy makes the very same picks as the halving search before noise handling,
    with and without cheap points, for every culprit; where halving would answer, it runs only the
    culprit and its parent again until the answer holds the confidence it states: about CONFIRM_RUNS
    runs, never more than two beyond."""
    rng = random.Random(n)
    cheaps = [None, set(range(0, n, 3)), {rng.randrange(n) for _ in range(5)}]
    confirms = []
    for k in range(n) if n <= 257 else rng.sample(range(n), 60):
        for cheap_set in cheaps:
            cheap = None if cheap_set is None else cheap_set.__contains__
            marks: dict[int, list[str]] = {}
            runs = confirm = 0
            while True:
                d = Adaptive().decide(n, marks, cheap)
                want = reference_pick(n, {i: m[-1] for i, m in marks.items()}, cheap)
                if not d.test:
                    assert want == ("found", d.found) and d.found == k and not d.noisy
                    assert d.confidence is not None and d.confidence >= 0.99  # stated, also here
                    break
                if want[0] == "found":  # halving is done: only the culprit and its parent run again
                    assert d.test[0] in (k, k - 1) and d.confirming, (n, k, marks)
                    confirm += 1
                else:
                    assert want == ("test", d.test[0]), (n, k, marks)
                marks.setdefault(d.test[0], []).append("new" if d.test[0] >= k else "old")
                runs += 1
            assert confirm <= CONFIRM_RUNS + 2 and runs <= expected_tests(n) + confirm
            confirms.append(confirm)
    assert sum(confirms) / len(confirms) <= CONFIRM_RUNS + 0.5


@pytest.mark.parametrize(
    ("to_new", "to_old", "at_least"),
    [(0.05, 0.05, 0.975), (0.10, 0.10, 0.97), (0.05, 0.0, 0.98), (0.0, 0.05, 0.98)],
)
def test_flaky_check_names_the_planted_culprit(to_new, to_old, at_least):
    """Told the flake rates, the noise-aware search is right about as often as its confidence says,
    in well under twice log2 N runs; plain halving is measurably wrong on the same seeds."""
    n, trials = 300, 300
    right = plain_right = 0
    runs_total = 0
    for seed in range(trials):
        k = random.Random(seed).randrange(n)
        d, runs, _ = flaky_search(NoisySearch(to_new=to_new, to_old=to_old), n, k, to_new, to_old, random.Random(seed))
        right += d.found == k
        runs_total += runs
        assert d.confidence is not None and d.confidence >= 0.99
        p, _, _ = flaky_search(Bisection(), n, k, to_new, to_old, random.Random(seed))
        plain_right += p.found == k
    assert right / trials >= at_least
    assert plain_right / trials < right / trials - 0.1
    mean = runs_total / trials
    assert mean <= (2.3 if max(to_new, to_old) >= 0.1 else 1.8) * math.log2(n)


def test_rates_estimated_when_not_given_and_noise_reported():
    """Left to estimate the rates, it stays accurate, and points whose repeats disagree are listed."""
    n, trials, right, disagreeing = 200, 200, 0, 0
    for seed in range(trials):
        k = random.Random(seed + 99).randrange(n)
        d, _, _ = flaky_search(NoisySearch(), n, k, 0.05, 0.05, random.Random(seed))
        right += d.found == k
        disagreeing += bool(d.disagreeing)
        lo, hi = d.flaky or (0, 0)
        assert 0.001 <= lo <= 0.4 and 0.001 <= hi <= 0.4
    assert right / trials >= 0.97
    assert disagreeing > 0


def test_a_deterministic_check_under_noise_costs_a_few_runs_more_not_double():
    n = 512
    for k in (0, 1, 255, 510, 511):
        d, runs, _ = flaky_search(NoisySearch(), n, k, 0, 0, random.Random(k))
        assert d.found == k
        assert runs <= expected_tests(n) + 8


def test_contradiction_switches_to_the_noise_aware_search():
    """A bad point before a good one: halving would trust the last verdict; the default switches."""
    marks = {50: "new", 70: "old"}
    assert contradiction(100, marks) is not None
    d = Adaptive().decide(100, marks)
    assert d.noisy and "reads new" in d.note and d.test
    assert contradiction(100, {3: ["old", "new"]}) == "index 3 gave both verdicts on repeats"
    assert contradiction(100, {3: "old", 9: ["new", "skip"]}) is None
    # fed the verdicts of a lying check from then on, it still names the planted culprit
    rng = random.Random(5)
    k, marks2 = 60, {50: ["new"], 70: ["old"]}
    while True:
        d = Adaptive().decide(100, marks2)
        if not d.test:
            break
        i = d.test[0]
        marks2.setdefault(i, []).append("new" if (i >= k) != (rng.random() < 0.05) else "old")
    assert d.found == k and d.confidence is not None and d.confidence >= 0.99


def test_culprit_and_parent_are_both_run_before_naming():
    for seed in range(40):
        n = 150
        k = random.Random(seed).randrange(n)
        marks: dict[int, list[str]] = {}
        rng = random.Random(seed)
        while True:
            d = NoisySearch(to_new=0.05, to_old=0.05).decide(n, marks)
            if not d.test:
                break
            i = d.test[0]
            marks.setdefault(i, []).append("new" if (i >= k) != (rng.random() < 0.05) else "old")
        f = d.found
        assert f is not None
        assert f == n - 1 or marks.get(f), "the culprit itself was run"
        assert f == 0 or marks.get(f - 1), "its parent was run"


def test_information_split():
    assert best_split(0.05, 0.05) == 0.5
    assert info_gain(0.5, 0, 0) == pytest.approx(1.0)
    assert info_gain(0.5, 0.05, 0.05) == pytest.approx(1 - (-0.05 * math.log2(0.05) - 0.95 * math.log2(0.95)))
    # one-sided noise: a passing verdict is the one to doubt, so the best split leans
    assert abs(best_split(0.0, 0.10) - 0.5) > 0.01


def test_cheap_points_save_installs_under_noise():
    n, trials = 512, 60
    with_cheap = without = 0
    for seed in range(trials):
        k = random.Random(seed).randrange(n)
        _, _, a = flaky_search(NoisySearch(to_new=0.05, to_old=0.05), n, k, 0.05, 0.05, random.Random(seed), 32)
        strategy = NoisySearch(to_new=0.05, to_old=0.05, install_cost=1.0)
        _, _, b = flaky_search(strategy, n, k, 0.05, 0.05, random.Random(seed), 32)
        with_cheap += a
        without += b
    assert with_cheap < without


# ---- skips ---------------------------------------------------------------------------------------------


def drive_skips(strategy, n, k, crash, group=None, limit=10_000):
    marks: dict[int, list[str]] = {}
    order = []
    while True:
        d = strategy.decide(n, marks, None, group)
        if not d.test:
            return d, order
        i = d.test[0]
        order.append(i)
        marks.setdefault(i, []).append("skip" if i in crash else "new" if i >= k else "old")
        assert len(order) < limit


def test_skip_budget_stops_a_storm_with_the_candidate_set():
    n = 100
    crash = set(range(n - 1))
    budget = skip_policy.default_budget(n)
    assert budget == 14
    for strategy in (Bisection(), NoisySearch(), Adaptive()):
        d, order = drive_skips(strategy, n, 40, crash)
        # the budget is spent, then only commits outside known skip blocks are tried, never past twice the budget
        assert budget <= len(order) <= 2 * budget
        assert d.stopped == "skip_budget" and d.found is None and 40 in d.candidates
        if len(order) < 2 * budget:
            known = sorted(order)
            untried = [i for i in range(n - 1) if i not in order and not skip_policy.sandwiched(i, known, [])]
            assert untried == [], untried
    d, order = drive_skips(Bisection(max_skips=3), n, 40, crash)
    assert 3 <= len(order) <= 6 and d.candidates == list(range(0, n))


def test_a_skipped_middle_sends_the_next_test_away_not_next_door():
    n, k = 1000, 700
    crash = set(range(480, 520))
    d, order = drive_skips(Bisection(), n, k, crash)
    assert d.found == k
    first, second = order[0], order[1]
    assert first in crash and abs(second - first) > 1 and second not in crash
    assert sum(i in crash for i in order) <= 3
    # reproducible: the same marks give the same jump (a resumed bisect makes the same choice)
    assert drive_skips(Bisection(), n, k, crash)[1] == order


def test_a_crashing_runtime_is_one_skipped_block():
    """28 commits pin one runtime that crashes: after two of them skip, the rest are never run."""
    n, block = 300, set(range(140, 168))

    def pointer(i):
        return "crashing" if i in block else i // 10

    for strategy in (Bisection(), NoisySearch()):
        for k in (100, 150, 168, 250):
            d, order = drive_skips(strategy, n, k, block, group=pointer)
            assert sum(i in block for i in order) <= 2
            if 140 < k <= 168:
                assert d.found is None and k in d.candidates and set(d.candidates) <= block | {168}
            else:
                assert d.found == k


def test_noisy_search_names_the_untestable_set_with_its_confidence():
    n, k = 60, 31
    crash = {28, 29, 30}
    rng = random.Random(1)
    marks: dict[int, list[str]] = {}
    while True:
        d = NoisySearch(to_new=0.05, to_old=0.05).decide(n, marks)
        if not d.test:
            break
        i = d.test[0]
        v = "skip" if i in crash else "new" if (i >= k) != (rng.random() < 0.05) else "old"
        marks.setdefault(i, []).append(v)
    assert d.candidates == [28, 29, 30, 31] and d.confidence is not None and d.confidence >= 0.99


def test_storm_and_grouped_reasons():
    assert skip_policy.storm([("skip", "exit 1"), ("skip", "exit 1")]) is None  # not yet: two are not a pattern
    assert skip_policy.storm([("skip", "exit 1")] * 3) == "exit 1"
    assert skip_policy.storm([("skip", "exit 1"), ("skip", "exit 1"), ("skip", "killed")]) is None
    assert skip_policy.storm([("skip", "exit 1"), ("good", "pass"), ("skip", "exit 1"), ("skip", "exit 1")]) is None
    groups = skip_policy.group_reasons([("a", "x1"), ("b", "x2"), ("a", "x3")])
    assert [(g.reason, g.count, g.points) for g in groups] == [("a", 2, ["x1", "x3"]), ("b", 1, ["x2"])]
    assert skip_policy.default_budget(1) == 4 and skip_policy.default_budget(852) == 20


def test_the_installed_member_of_the_pair_is_confirmed_first():
    """At level 2 every submodule commit needs its own install: the confirmation starts with the member
    halving ran last (installed, no install) and then takes each member's runs together, so it costs
    one or two installs, not one per run."""
    n = 26
    installs = []
    for k in range(n):
        marks: dict[int, list[str]] = {}
        installed, count, first = None, 0, None
        while True:
            cheap = None if installed is None else (lambda i, x=installed: i == x)
            d = Adaptive().decide(n, marks, cheap)
            if not d.test:
                break
            i = d.test[0]
            if d.confirming and first is None:
                first = (i, installed)
            count += d.confirming and i != installed
            installed = i
            marks.setdefault(i, []).append("new" if i >= k else "old")
        assert d.found == k
        if first is not None and first[1] in (k, k - 1):
            assert first[0] == first[1], (k, first)  # the installed member first
        installs.append(count)
    assert max(installs) <= 3 and sum(installs) / len(installs) <= 2
