"""Rounds of several devices: which points a round tests, and that they find what one device finds.

The strategies are pure, so their rounds are checked on any range and any number of devices
(hypothesis). The last test drives the real planner and the real rounds (engine/rounds.py: settle,
choose, Rounds.step) over a real git history; only the pool is replaced by one that answers at
once from the planted culprit, since what is checked is which points each round holds and what the
bisect names, not the devices (tests/test_bisect_devices.py runs real ones).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from helpers.round_engine import StandInEngine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.bisect.command.tester import PointResult
from perfkit.bisect.command.verdict import Classified
from perfkit.bisect.engine.rounds import Rounds
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.search import estimate
from perfkit.bisect.search.bisection import Bisection, Mark, ksection
from perfkit.bisect.search.noisy import Adaptive, NoisySearch
from perfkit.bisect.state.store import PhaseData, State
from perfkit.cli.demo.fastimport import Commit, write_history


@st.composite
def intervals(draw: st.DrawFn) -> tuple[int, dict[int, Mark], int, int]:
    """A search of n positions narrowed to (lo, hi] by old marks up to lo and new marks from hi."""
    n = draw(st.integers(1, 5000))
    lo = draw(st.integers(-1, n - 2)) if n > 1 else -1
    hi = draw(st.integers(lo + 1, n - 1))
    marks: dict[int, Mark] = {}
    for i in draw(st.lists(st.integers(-1, lo), max_size=4)) + ([lo] if lo >= 0 else []):
        marks[i] = "old"
    for i in draw(st.lists(st.integers(hi, n - 1), max_size=4)) + ([hi] if hi < n - 1 else []):
        marks[i] = "new"
    return n, marks, lo, hi


@settings(max_examples=300, deadline=None)
@given(intervals(), st.integers(1, 16))
def test_a_round_cuts_the_open_interval_into_d_plus_1_parts(case, d):
    """Any range, any d: a round's points are distinct, inside the range, and cut it into d + 1 parts
    whose sizes differ by at most one commit (all of its commits when it holds d or fewer)."""
    n, marks, lo, hi = case
    picks = ksection(n, marks, d)
    assert len(set(picks)) == len(picks) and all(lo < i < hi for i in picks)
    if hi - lo - 1 <= d:
        assert picks == list(range(lo + 1, hi))
    else:
        edges = [lo, *picks, hi]
        sizes = [b - a for a, b in zip(edges, edges[1:], strict=False)]
        assert len(picks) == d and max(sizes) - min(sizes) <= 1, sizes
    # halving's round is that split; one device keeps its own pick
    one = Bisection().decide(n, marks)
    assert Bisection().decide(n, marks, devices=d).test == ((picks or one.test) if d > 1 else one.test)


@settings(max_examples=150, deadline=None)
@given(intervals(), st.integers(2, 8), st.booleans())
def test_the_round_that_ends_the_halving_gives_free_devices_the_confirmation(case, d, ends_ran):
    """Devices a halving round leaves free run again only what the confirmation may need: the round's
    own indices and the interval's ends that ran; never more points than devices."""
    n, marks, lo, hi = case
    if ends_ran:
        marks = {-1: "old", **marks, n - 1: "new"}
    picks = ksection(n, marks, d)
    test = Adaptive().decide(n, marks, devices=d).test
    if not picks:
        return
    assert test[: len(picks)] == picks and len(test) <= d
    ran = {i for i in (lo, hi) if i in marks}
    assert set(test[len(picks) :]) <= set(picks) | ran
    if test[len(picks) :]:
        assert picks == list(range(lo + 1, hi))  # only the round that tests every index left


def play(
    n: int, k: int, d: int, ends: bool, strategy: Any, marks: dict[int, list[Mark]] | None = None
) -> tuple[int | None, list[list[int]]]:
    """A search over n positions whose first new index is k, on a check that never lies: the answer and the
    rounds (one device runs the first index of each decision, as the engine does)."""
    marks = dict(marks or {})
    if ends:
        marks |= {-1: ["old"], n - 1: ["new"]}
    rounds: list[list[int]] = []
    for _ in range(10 * n + 50):
        dec = strategy.decide(n, marks, devices=d)
        if not dec.test:
            return dec.found, rounds
        test = dec.test if d > 1 else dec.test[:1]
        rounds.append(test)
        for i in test:
            assert -1 <= i <= n - 1 and (0 <= i < n - 1 or i in marks), (i, marks)  # an end only if it ran
            marks.setdefault(i, []).append("new" if i >= k else "old")
    raise AssertionError("the search did not end")


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.data(), st.integers(2, 8), st.booleans())
def test_rounds_name_the_culprit_one_device_names(n, data, d, ends):
    """On a deterministic check the default search with d devices names the culprit one device names, in at
    most ceil(log_(d+1) n) + 2 rounds, confirmation included, each round within the devices."""
    k = data.draw(st.integers(0, n - 1))
    one, runs = play(n, k, 1, ends, Adaptive())
    found, rounds = play(n, k, d, ends, Adaptive())
    assert found == one == k
    assert all(1 <= len(r) <= d for r in rounds)
    assert len(rounds) <= (math.ceil(math.log(n, d + 1) - 1e-9) if n > 1 else 0) + 2
    assert len(rounds) <= len(runs)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 200), st.data(), st.integers(2, 6), st.booleans())
def test_under_noise_every_device_gets_a_point_every_round(n, data, d, ends):
    """The noise-aware search fills every device in every round (an untested index, or a run again where
    the evidence is weakest) and names the culprit one device names."""
    k = data.draw(st.integers(0, n - 1))
    one, _ = play(n, k, 1, ends, NoisySearch())
    found, rounds = play(n, k, d, ends, NoisySearch())
    assert found == one == k
    assert all(len(r) == d for r in rounds), rounds


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 400), st.data(), st.integers(2, 8))
def test_the_start_estimate_brackets_the_rounds(n, data, d):
    """bisect_start's range of rounds holds what the rounds take: the ends with d - 2 level-1 points beside
    them, then the search and its confirmation."""
    k = data.draw(st.integers(0, n - 1))
    beside = Adaptive().decide(n, {}, devices=d - 2).test[: d - 2] if d > 2 else []
    first = {i: ["new" if i >= k else "old"] for i in beside}
    found, rounds = play(n, k, d, True, Adaptive(), first)
    e = estimate.start(BisectSettings(run="x", devices=[str(i) for i in range(d)]), n, 0, noise=False).rounds
    assert found == k and e is not None and e.low <= 1 + len(rounds) <= e.high, (e, 1 + len(rounds))


# ---- the real planner and rounds over a git history ------------------------------------------------


class AtOnce:
    """A pool (workers/pool.py) whose devices answer at once from the planted culprit."""

    def __init__(self, devices: list[str], bad: set[str]):
        self.devices, self.bad = devices, bad
        self.rounds: list[list[Any]] = []

    def assign(self, points: list[Any], keep: list[Any] | None = None) -> list[tuple[Any, str]]:
        assert len(points) <= len(self.devices)
        return list(zip(points, self.devices, strict=False))

    def prepare(self, points: list[Any], busy: list[Any]) -> int:
        return 0

    def run(self, jobs: list[tuple[Any, str]], on_done: Any, tick: Any) -> None:
        self.rounds.append([job.point for job, _ in jobs])
        for k, (job, device) in enumerate(jobs):
            v = "bad" if job.point.superproject in self.bad else "good"
            on_done(job, device, PointResult(Classified(v, v, None), ran=True, exit_code=0), 0.0)
            tick(k + 1, len(jobs))

    def device_of(self, worker: str) -> str:
        return worker

    def take_ahead(self) -> int:
        return 0


def bisect(repo: Path, shas: list[str], k: int, devices: int, noise: bool) -> tuple[State, list[list[Any]]]:
    items = shas[1:]
    names = [f"npu{i}" for i in range(devices)]
    settings_ = BisectSettings(run="true", install=["true"], devices=names, noise=noise)
    st_ = State(
        id="rounds", repo=str(repo), good=shas[0], bad=items[-1], created="", settings=settings_,
        level1=PhaseData(name="level1", items=items),
    )  # fmt: skip
    rounds = Rounds(StandInEngine(repo, st_))  # type: ignore[arg-type]
    pool = AtOnce(names, set(items[k:]))
    rounds._pool = pool  # type: ignore[assignment]
    for _ in range(200):
        if rounds.step() is None:
            return st_, pool.rounds
    raise AssertionError("the bisect did not end")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data(), st.integers(2, 5), st.booleans())
def test_the_planner_with_devices_names_what_one_device_names(tmp_path_factory, data, d, noise):
    """Through the planner and the rounds: the same culprit as one device, the two ends in the first round
    beside level-1 points (noise on or off), and under noise a point for every device in every round."""
    repo = tmp_path_factory.mktemp("history") / "repo"
    n = data.draw(st.integers(3, 24))
    shas = write_history(repo, [Commit(f"c{i}", {"f.py": f"{i}\n"}, author="t <t@example.com>") for i in range(n + 1)])
    k = data.draw(st.integers(0, n - 1))
    one, _ = bisect(repo, shas, k, 1, noise)
    st_, rounds = bisect(repo, shas, k, d, noise)
    assert one.culprit is not None and st_.culprit is not None
    assert st_.outcome == one.outcome == "found" and st_.culprit.commit == one.culprit.commit == shas[1 + k]
    first = [p.phase for p in rounds[0]]
    assert first[:2] == ["verify_good", "verify_bad"] and len(first) == d and set(first[2:]) <= {"level1"}
    assert all(len(r) <= d for r in rounds)
    if noise:
        assert all(len(r) == d for r in rounds), [[p.index for p in r] for r in rounds]
