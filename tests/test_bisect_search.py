"""The next-point strategy on its own: a property test against brute force, skips included."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from perfkit.bisect.search.bisection import Bisection, Decision, expected_tests

UNBOUNDED = Bisection(max_skips=10**9)  # the property below is about steering, not the skip budget


def drive(n: int, first_new: int, skipped: set[int], cheap=None, strategy=UNBOUNDED) -> tuple[Decision, int]:
    """Run the search against a monotone predicate (index >= first_new is new) with untestable indices."""
    marks: dict[int, str] = {}
    tests = 0
    while True:
        d = strategy.decide(n, marks, cheap)
        if not d.test:
            return d, tests
        i = d.test[0]
        assert 0 <= i < n - 1 and i not in marks, (i, marks)  # never retests, never tests the known end
        tests += 1
        marks[i] = "skip" if i in skipped else ("new" if i >= first_new else "old")


@settings(max_examples=400, deadline=None)
@given(
    st.integers(1, 300).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.integers(0, n - 1),
            st.sets(st.integers(0, max(0, n - 2)), max_size=n // 2),
            st.none() | st.sets(st.integers(0, n - 1)),
        )
    )
)
def test_never_names_a_wrong_single_commit(case):
    """With or without cheap points to prefer, the answer is right and the worst case is log2."""
    n, first_new, skipped, cheap_set = case
    d, tests = drive(n, first_new, skipped, None if cheap_set is None else cheap_set.__contains__)
    if d.found is not None:
        assert d.found == first_new
    else:
        assert first_new in d.candidates
        # the set is exactly the untestable run before the first new mark, plus that mark
        assert all(i in skipped for i in d.candidates[:-1])
    if not skipped:
        assert d.found == first_new and tests <= math.ceil(math.log2(n)) if n > 1 else tests == 0


def test_skips_are_stepped_around_not_reported_when_avoidable():
    # culprit at 10, its neighbours 8 and 12 broken: still found exactly
    d, _ = drive(32, 10, {8, 12})
    assert d.found == 10
    # every point before the culprit back to a good one is broken: only a set can be named
    d, _ = drive(32, 10, {7, 8, 9})
    assert d.found is None and d.candidates == [7, 8, 9, 10]


def test_cheap_points_are_preferred_only_within_the_worst_case_budget():
    # 12 positions, 4 tests to go: any i leaving at most 8 on each side is free; 3..7 qualify
    assert Bisection().decide(12, {}, lambda i: i == 3).test == [3]
    assert Bisection().decide(12, {}, lambda i: i == 2).test == [5]  # too far: the middle wins
    assert Bisection().decide(16, {}, lambda i: i == 6).test == [7]  # a power of two leaves no room


def test_expected_tests():
    assert [expected_tests(k) for k in (0, 1, 2, 3, 4, 5, 852, 1024, 1025)] == [0, 0, 1, 2, 2, 3, 10, 10, 11]
