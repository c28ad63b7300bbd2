"""The search side of a flaky check, decision by decision, with scripted verdicts (no randomness).

The default halves, then runs the culprit and its parent again until the answer holds its stated
confidence; a flip behind the answer shows as a point giving both verdicts and the search goes on
noise-aware from what it has. Under noise
the ends are evidence, not a gate: a flaky end costs a re-run, an end that keeps disagreeing ends
the search on the evidence. Skips are stepped around by their likelihood in every strategy, and
the skip budget never ends a search while a stretch outside known skip blocks is untried.
"""

from __future__ import annotations

import pytest
from perfkit.bisect.search import skip_policy
from perfkit.bisect.search.bisection import Bisection, Decision
from perfkit.bisect.search.noisy import CONFIRM_RUNS, Adaptive, NoisySearch


def drive(strategy, n: int, k: int, lies: dict[tuple[int, int], str] | None = None, skips=frozenset(), ends=True):
    """Run a search to its answer. lies[(index, nth run of it)] overrides the truth for that run."""
    lies = lies or {}
    marks: dict[int, list[str]] = {}
    if ends:
        marks[-1] = [lies.get((-1, 1), "old")]
        marks[n - 1] = [lies.get((n - 1, 1), "new")]
    order: list[int] = []
    while True:
        d: Decision = strategy.decide(n, marks)
        if not d.test:
            return d, order, marks
        i = d.test[0]
        order.append(i)
        run = len(marks.get(i, [])) + 1
        truth = "skip" if i in skips else "new" if i >= k else "old"
        marks.setdefault(i, []).append(lies.get((i, run), truth))
        assert len(order) < 400, "runaway search"


def test_a_flip_behind_the_default_answer_is_caught_and_the_search_turns_noise_aware():
    n, k = 128, 70
    # the first test (index 63) is truly old; make it read new: halving walks into 0..63 and would name 63
    d, order, marks = drive(Adaptive(), n, k, {(63, 1): "new"})
    assert order[0] == 63
    assert d.found == k and d.noisy and "index 63 gave both verdicts" in d.note
    assert marks[63] == ["new", "old"]  # the confirmation run told the truth, and the switch followed
    assert d.confidence is not None and d.confidence >= 0.99


def test_a_flip_that_its_one_re_run_repeats_is_not_enough_to_name_a_culprit():
    """Index 69 is truly good but reads FAIL twice: halving names 69 with its parent 68 passing, and one
    agreeing re-run of each (the rule before) would name 69. Under the flaky prior that evidence is not
    yet 99%: 69 runs again, its truth shows, and the search goes on to the right culprit."""
    n, k = 128, 70
    plain, plain_order, _ = drive(Bisection(), n, k, {(69, 1): "new"})
    assert plain.found == 69 and plain_order[-2:] == [69, 68]  # halving alone names the wrong commit
    d, order, marks = drive(Adaptive(), n, k, {(69, 1): "new", (69, 2): "new"})
    assert marks[69][:2] == ["new", "new"] and len(marks[69]) >= 3  # the twice-repeated flip was run again
    assert d.found == k and d.confidence is not None and d.confidence >= 0.99


@pytest.mark.parametrize("k", [0, 1, 64, 126, 127])
def test_a_deterministic_check_pays_exactly_the_confirmation(k):
    """Halving's runs, then only the culprit and its parent (an end too) until the stated confidence: each
    runs again, the confirmation costs about CONFIRM_RUNS and the answer says how sure it is."""
    n = 128
    d, order, marks = drive(Adaptive(), n, k)
    plain, plain_order, _ = drive(Bisection(), n, k)
    assert d.found == plain.found == k and not d.noisy
    assert d.confidence is not None and d.confidence >= 0.99
    assert order[: len(plain_order)] == plain_order
    again = order[len(plain_order) :]
    assert set(again) <= {k, k - 1} and (k in again or k == n - 1) and (k - 1 in again or k == 0)
    assert CONFIRM_RUNS - 2 <= len(again) <= CONFIRM_RUNS + 1


def test_a_flaky_good_end_under_the_default_is_run_again_then_weighed():
    """The good end's one run read FAIL and its re-run PASS: the search does not stop there; it names
    the culprit with the end as evidence."""
    n, k = 128, 40
    marks = {-1: ["new", "old"], n - 1: ["new"]}
    d = Adaptive().decide(n, marks)
    assert d.noisy and "index -1 gave both verdicts" in d.note and d.test
    d, _, _ = drive(Adaptive(), n, k, {(-1, 1): "new"})
    assert d.found == k and d.end_fails is None


@pytest.mark.parametrize("side", ["start", "end"])
def test_under_noise_an_end_that_keeps_disagreeing_ends_the_search_on_the_evidence(side):
    """The good end truly fails (or the bad end truly passes): the search re-runs it as evidence
    and stops with end_fails, never naming a culprit."""
    n = 64
    k = -1 if side == "start" else n  # the first new index sits before the range, or after it
    marks = {-1: ["new" if side == "start" else "old"], n - 1: ["old" if side == "end" else "new"]}
    order: list[int] = []
    while True:
        d = NoisySearch().decide(n, marks)
        if not d.test:
            break
        i = d.test[0]
        order.append(i)
        marks.setdefault(i, []).append("new" if i >= k else "old")
        assert len(order) < 60
    assert d.end_fails == side and d.found is None and d.confidence >= 0.99
    end = -1 if side == "start" else n - 1
    assert len(marks[end]) >= 2  # the end itself was run again, not only the points beside it


def test_under_noise_a_flaky_end_run_costs_a_rerun_not_the_bisect():
    for side, lie in (("start", {(-1, 1): "new"}), ("end", {(127, 1): "old"})):
        d, order, marks = drive(NoisySearch(), 128, 50, lie)
        assert d.found == 50 and d.end_fails is None, side
        assert d.end_doubt[0] < 0.01 and d.end_doubt[1] < 0.01


def test_a_flake_rate_stated_is_the_noise_aware_search():
    from perfkit.bisect.models import BisectSettings
    from perfkit.bisect.search.noise_plan import noise_on

    assert not noise_on(BisectSettings(run="x"))
    assert noise_on(BisectSettings(run="x", flaky_fail=0.05))
    assert noise_on(BisectSettings(run="x", flaky_pass=0.02))


@pytest.mark.parametrize("strategy", [Bisection(), Adaptive(), NoisySearch()])
def test_a_skipped_point_is_not_followed_by_its_neighbour(strategy):
    n, k = 128, 100
    block = set(range(60, 70))  # 63 and 64 are the middles
    d, order, _ = drive(strategy, n, k, skips=block)
    assert d.found == k
    for a, b in zip(order, order[1:], strict=False):
        if a in block:
            assert abs(b - a) > 1, order


@pytest.mark.parametrize("strategy", [Adaptive(), NoisySearch()])
@pytest.mark.parametrize("k", [25, 64, 90, 127])
def test_a_20_commit_skip_block_before_the_culprit_returns_the_block_and_the_culprit(strategy, k):
    n = 128
    block = set(range(k - 20, k))
    d, order, marks = drive(strategy, n, k, skips=block)
    assert d.found is None and d.candidates == sorted(block | {k}), (d, order)
    assert marks[k - 21][-1] == "old" and marks[k][-1] == "new"  # both edges were tested


def test_storm_needs_the_same_reason_over_a_quarter_of_the_range():
    three = [("skip", "exit 1")] * 3
    assert skip_policy.storm(three, [60, 64, 70], 128) is None  # one broken stretch
    assert skip_policy.storm(three, [30, 64, 70], 128) == "exit 1"
    assert skip_policy.storm(three) == "exit 1"  # positions unknown: the reason alone


def test_a_search_that_only_skipped_probes_far_away():
    n = 128
    marks = {-1: ["old"], n - 1: ["new"], 63: ["skip"], 55: ["skip"]}
    for strategy in (Bisection(), NoisySearch()):
        d = strategy.decide(n, marks)
        assert d.test and min(abs(d.test[0] - s) for s in (55, 63)) >= n // 4, d.test


def test_past_the_budget_only_stretches_outside_known_skip_blocks_are_tried():
    n = 200
    crash = set(range(n - 1)) - {150}  # one testable commit, far from the middle
    for strategy in (Bisection(max_skips=4), NoisySearch(max_skips=4)):
        marks: dict[int, list[str]] = {-1: ["old"], n - 1: ["new"]}
        order: list[int] = []
        while True:
            d = strategy.decide(n, marks)
            if not d.test:
                break
            i = d.test[0]
            order.append(i)
            marks.setdefault(i, []).append("skip" if i in crash else "new" if i >= 151 else "old")
        skips = sum(i in crash for i in order)
        assert 4 <= skips <= 8 and d.stopped == "skip_budget", order
        known = sorted(i for i in order if i in crash)
        judged = sorted(i for i in order if i not in crash)
        untried = [i for i in range(n - 1) if i not in order and not skip_policy.sandwiched(i, known, judged)]
        assert skips == 8 or untried == [], untried
