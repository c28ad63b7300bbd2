"""What `perfkit bisect-status` and `bisect-run` print: a stated confidence comes with its grounds."""

from __future__ import annotations

from perfkit.bisect.models import BisectSettings, BisectStatus, PointEvidence


def _status(**kw) -> BisectStatus:  # type: ignore[no-untyped-def]
    base = dict(
        repo="r", active=True, done=True, phase="done", outcome="found", message="Found: abc fix it.",
        settings=BisectSettings(run="true"),
    )  # fmt: skip
    return BisectStatus(**{**base, **kw})


def test_confidence_and_the_runs_behind_it_are_printed():
    ev = [
        PointEvidence(phase="level1", point="1111111 parent", superproject="1" * 40, runs=3, passes=2, fails=1,
                      skips=0, metrics=[0.0, 0.25, 0.0]),
        PointEvidence(phase="level1", point="2222222 culprit", superproject="2" * 40, runs=2, passes=0, fails=2,
                      skips=0),
        PointEvidence(phase="level1", point="3333333 once", superproject="3" * 40, runs=1, passes=1, fails=0,
                      skips=0),
    ]  # fmt: skip
    text = _status(confidence={"level1": 0.9931}, evidence=ev, noise_seen=["1111111 parent"]).human()
    assert "confidence level1 99.3%" in text
    assert "1111111 parent (level1): 3 runs, 2 pass, 1 fail, 0 skip; metrics 0 0.25 0" in text
    assert "2222222 culprit (level1): 2 runs, 0 pass, 2 fail" in text
    assert "3333333 once" not in text  # a point run once says nothing a step line does not
    assert "runs disagreed at: 1111111 parent" in text


def test_many_repeated_points_are_capped_and_a_quiet_bisect_prints_none_of_it():
    ev = [
        PointEvidence(phase="level2", point=f"{i:07d} p", superproject="a" * 40, runs=2, passes=1, fails=1, skips=0)
        for i in range(20)
    ]
    text = _status(confidence={"level2": 0.995}, evidence=ev).human()
    assert text.count(" runs, ") == 12 and "... and 8 more (in `evidence`)" in text
    quiet = _status().human()
    assert "confidence" not in quiet and "more than once" not in quiet and "disagreed" not in quiet
