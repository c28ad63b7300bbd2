"""What a bisect says and how it ends: counts in the user's words, an exit code a script can test, the
result kept until reset, and the PR a commit was merged as."""

from __future__ import annotations

import json

import pytest
from helpers.bisect_project import build
from helpers.procs import perfkit
from perfkit.bisect.models import EXIT_NO_SINGLE_CULPRIT
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status
from perfkit.repo import gitrepo


def test_counts_of_one_and_of_none_read_right(tmp_path):
    p = build(tmp_path, [""] * 2, [("src", "BUG", "bug")])
    one = bisect_start(p.path, p.c["bug"], run=p.run_cmd(), bad=p.c["head"], verify_ends=False)
    assert one.level1_commits == 1
    assert "1 first-parent commit from" in one.message and "commits" not in one.message.split(" from")[0]
    assert "about 0 runs" not in one.message and "Estimate: no run." in one.message
    bisect_reset(p.path)
    two = bisect_start(p.path, p.c["add"], run=p.run_cmd(), bad=p.c["head"])
    # docs/bisect.md, "The start estimate": the two ends, one halving run (log2 2), and 1 to 4
    # confirmation runs over 5 commits or fewer: 2 + 1 + 1 = 4 to 2 + 1 + 4 = 7
    assert f"{two.level1_commits} first-parent commits" in two.message and two.level1_commits == 2
    assert "Estimate: 4 to 7 runs, the two end checks included" in two.message
    assert two.expected_steps == 7
    bisect_reset(p.path)


def test_the_start_estimate_counts_level_2_from_the_largest_move(tmp_path):
    # two moves in range: 2 runtime commits, then 12; level 2 would search the larger one at most
    kernel = [""] * 15
    plan = [("src", ""), ("ptr", 2), ("src", ""), ("ptr", 14), ("src", "")]
    p = build(tmp_path, kernel, plan)
    res = bisect_start(p.path, p.c["add"], run=p.run_cmd())
    # docs/bisect.md, "The start estimate": a search over n costs floor to ceil of log2 n, plus 2 to 4
    # confirmation runs (over more than 5 commits); level 2 adds 0 to the upper end of its search
    assert res.level1_commits == 6
    level1_low, level1_high = 2 + 2, 3 + 4  # floor and ceil of log2(6), plus 2 to 4 confirmation runs
    level2_high = 4 + 4  # ceil(log2(12)), plus up to 4 confirmation runs
    assert res.expected_steps == 2 + level1_high + level2_high
    assert "up to 8 runs for the largest move in the range (12 first-parent commits)" in res.message
    # the ends and level 1; level 2 only if the culprit moves the pointer
    low, high = 2 + level1_low, 2 + level1_high + level2_high
    said = f"Estimate: {low} to {high} runs, the two end checks included (if the check turns out to flake"
    assert said in res.message
    assert bisect_status(p.path).expected_steps == res.expected_steps
    bisect_reset(p.path)
    # without a submodule level, nothing is added
    res = bisect_start(p.path, p.c["add"], run=p.run_cmd(), submodule="")
    assert res.expected_steps == 2 + level1_high and "second level" not in res.message
    assert f"Estimate: {low} to {2 + level1_high} runs, the two end checks included" in res.message
    bisect_reset(p.path)


@pytest.mark.parametrize(
    "plan,outcome,code",
    [
        ([("src", "")] * 2 + [("src", "BUG", "bug")] + [("src", "BUG")], "found", 0),
        ([("src", "BUG")] * 3, "good_end_not_good", EXIT_NO_SINGLE_CULPRIT),
        ([("src", "")] + [("src", "CRASH")] * 2 + [("src", "BUG", "bug"), ("src", "BUG")], "candidates", 3),
    ],
)
def test_bisect_run_exits_non_zero_without_a_single_culprit(tmp_path, plan, outcome, code):
    p = build(tmp_path, [""] * 2, plan)
    good = p.order[2] if outcome == "good_end_not_good" else p.c["add"]  # a good end that fails
    bisect_start(p.path, good, run=p.run_cmd(), submodule="")
    run = perfkit("bisect-run", p.path, "--quiet", "--json")
    assert run.returncode == code, run.stderr
    assert json.loads(run.stdout)["outcome"] == outcome  # the answer is printed all the same
    status = perfkit("bisect-status", p.path)
    assert status.returncode == code and status.stdout.strip()
    step = perfkit("bisect-step", p.path)  # a step of a finished bisect is not itself a failure
    assert step.returncode == 0, step.stderr
    bisect_reset(p.path)


def test_a_finished_bisect_keeps_its_state_and_logs_until_reset(tmp_path):
    """As `git bisect` does: the answer stays readable; the worktree is gone and the environment is back."""
    p = build(tmp_path, [""] * 2, [("src", "")] * 2 + [("src", "BUG", "bug")])
    bisect_start(p.path, p.c["add"], run=p.run_cmd(), install=p.installs())
    res = bisect_run(p.path)
    sdir = statefile.state_dir(p.sup.path)
    assert res.done and res.worktree is None and res.environment == "user"
    assert (sdir / "state.json").is_file() and sorted(x.name for x in (sdir / "logs").iterdir())
    assert not (sdir / "worktree").exists() and not (sdir / "lock").exists()
    again = bisect_status(p.path)
    assert again.culprit == res.culprit and again.steps == res.steps
    out = bisect_reset(p.path)
    assert set(out.removed) >= {"state", "logs"} and not sdir.exists()


@pytest.mark.parametrize(
    "subject,pr",
    [
        ("fix(kernels): guard the tail (#12)", 12),
        ('Revert "feat: fused softmax (#101)" (#140)', 140),
        ("squash: a (#3), b (#4) (#7)", 7),
        ("Merge pull request #55 from someone/branch", 55),
        ("no number here", None),
        ("issue #9 mentioned, merged as (#10)", 10),
    ],
)
def test_the_pr_of_a_commit_is_the_last_number_of_its_subject(subject, pr):
    assert gitrepo.pr_number(subject) == pr
