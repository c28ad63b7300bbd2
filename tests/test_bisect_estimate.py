"""The start estimate: runs and rounds as a range, with the confirmation, noise and devices counted."""

from __future__ import annotations

import math

import pytest
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.search import estimate


def test_noise_off_counts_the_ends_the_halving_and_the_confirmation():
    e = estimate.start(BisectSettings(run="x"), 128, 0, noise=False)
    assert e.runs == estimate.Span(2 + 7 + 2, 2 + 7 + estimate.CONFIRM_RUNS) and e.rounds is None
    assert e.flaky is not None and e.flaky.high > e.runs.high  # the flaky fallback costs more, and is said
    e = estimate.start(BisectSettings(run="x", verify_ends=False), 100, 0, noise=False)
    assert e.runs == estimate.Span(6 + 2, 7 + estimate.CONFIRM_RUNS)


def test_level_2_counts_only_at_the_upper_end():
    e = estimate.start(BisectSettings(run="x"), 64, 26, noise=False)
    confirm = estimate.CONFIRM_RUNS
    assert e.runs.low == 2 + 6 + 2 and e.runs.high == 2 + 6 + confirm + 5 + confirm


@pytest.mark.parametrize("n", [100, 1000, 100_000])
def test_noise_on_brackets_what_the_simulator_measured(n):
    """docs/performance.md: a deterministic check with noise on costs 1.22 to 1.50 log2 N runs, 5% flips
    1.57 to 1.81 log2 N, 10% flips about 2.1 to 2.2 log2 N at 1,000 and 10,000: each inside its range."""
    s = BisectSettings(run="x", noise=True, verify_ends=False)
    span = estimate.start(s, n, 0, noise=True).runs
    bits = math.log2(n)
    assert span.low <= 1.5 * bits + 1
    assert span.high >= 1.6 * bits - 1
    told = estimate.start(BisectSettings(run="x", noise=True, flaky_fail=0.01, verify_ends=False), n, 0, True)
    assert told.runs.high < span.high  # a low stated rate narrows it


@pytest.mark.parametrize("d", [2, 3, 4, 8])
def test_devices_give_rounds_of_d_plus_1_section(d):
    n = 853
    e = estimate.start(BisectSettings(run="x", devices=[str(i) for i in range(d)]), n, 0, noise=False)
    assert e.rounds is not None
    assert e.rounds.high == 1 + math.ceil(math.log(n, d + 1)) + estimate.CONFIRM_ROUNDS  # ends, k-section, confirmation
    assert e.rounds.low <= e.rounds.high <= e.runs.high
    words = estimate.words(e, d, True)
    assert f"on {d} devices, the two end checks included" in words


def test_words_read_right():
    assert estimate.Span(0, 0).words("run") == "no run"
    assert estimate.Span(1, 1).words("run") == "about 1 run"
    assert estimate.Span(3, 5).words("round") == "3 to 5 rounds"
