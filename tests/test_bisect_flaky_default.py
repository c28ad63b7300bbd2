"""A flaky check with the settings untouched, end to end: real repositories, a check that lies on cue.

The check is the project's real one, wrapped to swap PASS and FAIL at the step numbers a test
names, so each test knows exactly which verdict lied. With the default settings a lie behind the
answer or at an end is caught by the confirmation runs and the search turns noise-aware, saying
so; under noise an end that truly fails ends the bisect with the evidence, not a gate's words.
"""

from __future__ import annotations

import sys
import textwrap

from helpers.bisect_project import Project, build
from helpers.gitbuild import run_git, snapshot
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

LIE = textwrap.dedent(
    """
    import os, subprocess, sys
    steps, command = {int(s) for s in sys.argv[1].split(",") if s}, sys.argv[2]
    res = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    out = res.stdout
    if int(os.environ["PERFKIT_STEP"]) in steps:
        out = out.replace("PASS", "@@").replace("FAIL", "PASS").replace("@@", "FAIL")
    sys.stdout.write(out)
    sys.exit(1 if "FAIL" in out else 0 if "PASS" in out else res.returncode)
    """
)

PLAN = [("src", "")] * 30 + [("src", "BUG", "culprit")] + [("src", "BUG")] * 20


def lying(p: Project, steps: list[int]) -> str:
    (p.env / "lie.py").write_text(LIE)
    quoted = p.run_cmd().replace("'", "'\\''")
    return f"{sys.executable} {p.env / 'lie.py'} {','.join(map(str, steps))} '{quoted}'"


def test_default_a_lying_good_end_is_run_again_and_the_bisect_goes_on(tmp_path):
    p = build(tmp_path, [""] * 3, PLAN)
    before = snapshot(p.sup.path)
    bisect_start(p.path, p.c["add"], run=lying(p, [1]))
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["culprit"], res.message
    assert [(s.phase, s.verdict) for s in res.steps[:3]] == [
        ("verify_good", "bad"),
        ("verify_good", "good"),
        ("verify_bad", "bad"),
    ]
    assert any("switched to the noise-aware strategy" in n for n in res.notes), res.notes
    assert res.noise_seen and res.confidence["level1"] >= 0.99
    assert snapshot(p.sup.path) == before
    bisect_reset(p.path)


def test_default_a_lie_inside_the_search_is_caught_by_the_confirmation(tmp_path):
    p = build(tmp_path, [""] * 3, PLAN)
    bisect_start(p.path, p.c["add"], run=lying(p, [3]))  # the first level-1 point lies
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["culprit"], res.message
    first = res.steps[2]
    assert first.phase == "level1"
    again = [s for s in res.steps if s.superproject == first.superproject]
    assert len(again) >= 2 and {s.verdict for s in again} == {"good", "bad"}  # the lie was run again
    assert any("switched to the noise-aware strategy" in n for n in res.notes)
    bisect_reset(p.path)


def test_default_a_truthful_check_names_the_culprit_after_the_confirmation_runs(tmp_path):
    p = build(tmp_path, [""] * 3, PLAN)
    started = bisect_start(p.path, p.c["add"], run=p.run_cmd())
    # 52 commits: 5 or 6 halving runs, the two ends, the culprit and its parent again until the confidence
    assert "Estimate: 9 to 12 runs, the two end checks included" in started.message
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["culprit"] and not res.notes
    parent = run_git(p.sup.path, "rev-parse", f"{p.c['culprit']}^")
    halving = len({s.superproject for s in res.steps if s.phase == "level1"})
    tail = [s.superproject for s in res.steps[2 + halving :]]
    assert set(tail) == {p.c["culprit"], parent} and 2 <= len(tail) <= 6  # the confirmation: only those two
    assert res.confidence["level1"] >= 0.99
    assert len(res.steps) <= started.expected_steps + 2
    bisect_reset(p.path)


def test_noise_a_good_end_that_truly_fails_ends_on_the_evidence(tmp_path):
    p = build(tmp_path, [""] * 3, PLAN)
    bisect_start(p.path, p.c["culprit"], run=p.run_cmd(), flaky_fail=0.05, flaky_pass=0.05)
    res = bisect_run(p.path)
    assert res.settings.noise  # a flake rate asks for the noise-aware search
    assert res.outcome == "good_end_not_good" and res.culprit is None, res.message
    good_runs = [s for s in res.steps if s.superproject == p.c["culprit"]]
    assert len(good_runs) >= 2 and all(s.verdict == "bad" for s in good_runs)
    assert f"gave 0 pass, {len(good_runs)} fail in {len(good_runs)} runs" in res.message
    assert "with probability" in res.message and "the run command" not in res.message
    bisect_reset(p.path)


def test_default_with_two_devices_a_lying_good_end_is_run_again_in_the_next_round(tmp_path):
    p = build(tmp_path, [""] * 3, PLAN)
    bisect_start(p.path, p.c["add"], run=lying(p, [1]), devices=["0", "1"])
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["culprit"], res.message
    ends = [(s.phase, s.verdict, s.round) for s in res.steps if s.phase.startswith("verify")]
    assert ends == [("verify_good", "bad", 1), ("verify_bad", "bad", 1), ("verify_good", "good", 2)]
    assert any("switched to the noise-aware strategy" in n for n in res.notes)
    bisect_reset(p.path)
