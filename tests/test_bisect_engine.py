"""The two-level bisect end to end on real repositories with a real submodule.

The bump, rollback and mixed cases run through `perfkit bisect-run`; the others call the tools'
functions directly.

Every test plants a precision bug, runs the bisect through the tool functions, and checks: the
answer, that each recorded verdict is what the check gives at that point (computed from git
objects, not from perfkit), the run and install counts against logs the commands themselves
wrote, that the user's checkout, index, stash and submodule are byte for byte as before, and that
the environment points back at the user's checkout.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build, log2ceil
from helpers.gitbuild import snapshot
from helpers.load import slack
from perfkit.bisect.search.estimate import CONFIRM_RUNS
from perfkit.bisect.state import lock as lockfile
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status, bisect_step
from perfkit.errors import InputError, ToolFailure

CLEAN = ""
KERNEL = ["", "", "", "", "", "", "", "", "", "", "", ""]


def start(p: Project, good: str, **kw):
    kw.setdefault("install", p.installs())
    kw.setdefault("install_submodule", p.installs_sub())
    kw.setdefault("metric_pattern", r"max_abs_err=(\S+)")
    return bisect_start(p.path, good, run=p.run_cmd(), **kw)


def check_steps(p: Project, res) -> None:
    """Each step's verdict is the truth at its point; runs and installs match what the commands logged."""
    for s in res.steps:
        if s.ran:
            assert s.verdict == p.expected(s.superproject, s.submodule), s
        assert Path(s.log).is_file()
    assert res.runs == len(p.lines("runs.log")) == sum(s.ran for s in res.steps)
    assert res.installs == len(p.lines("super.log")) + len(p.lines("sub.log")) - restores(p)
    for s in res.steps:
        if s.metric is not None:
            assert s.metric == (0.25 if s.verdict == "bad" else 0.001)


def restores(p: Project) -> int:
    """Installs that ran in the user's own checkout (the environment restore), from the install logs."""
    return int(p.lines("super.log")[-1:] != [] and (p.env / "super.path").read_text().strip() == p.path) + int(
        (p.env / "sub.path").exists() and (p.env / "sub.path").read_text().strip() == f"{p.path}/runtime"
    )


def assert_restored(p: Project, before: dict) -> None:
    assert snapshot(p.sup.path) == before
    assert (p.env / "super.path").read_text().strip() == p.path
    assert (p.env / "sub.path").read_text().strip() == f"{p.path}/runtime"
    assert not (statefile.state_dir(p.sup.path) / "worktree").exists()


def cli_run(p: Project):
    """`perfkit bisect-run --json`, read back into the same model the core returns."""
    import sys

    from perfkit.bisect.models import BisectStatus

    out = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "bisect-run", p.path, "--quiet", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return BisectStatus.model_validate_json(out.stdout)


def level_runs(res, phase: str) -> int:
    return sum(1 for s in res.steps if s.phase == phase and s.ran)


def test_source_regression(tmp_path):
    plan = [("src", "")] * 12 + [("src", "BUG", "culprit")] + [("src", "BUG")] * 10
    p = build(tmp_path, KERNEL, plan)
    before = snapshot(p.sup.path)
    started = start(p, p.c["add"])
    n = len(plan) + 1
    # the two ends, halving, and the default's confirmation (the culprit and its parent once more)
    assert started.level1_commits == n and started.expected_steps == log2ceil(n) + 2 + CONFIRM_RUNS
    res = bisect_run(p.path)
    assert res.done and res.outcome == "found"
    assert res.culprit.commit == p.c["culprit"] and res.culprit.kind == "source"
    assert res.culprit.subject == "compiler change 12" and res.submodule_culprit is None
    assert level_runs(res, "level1") <= log2ceil(n) + CONFIRM_RUNS
    check_steps(p, res)
    # installs: the superproject only when its files changed, the submodule never moved after the first
    assert len(p.lines("sub.log")) == 2  # one in the worktree, one restoring the user's checkout
    assert res.installs_saved == len(res.steps) * 2 - res.installs
    assert_restored(p, before)
    # the reproduce script fails at the culprit, in its own throwaway worktree
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=60)
    assert "FAIL" in out.stdout and p.c["culprit"][:12] not in out.stderr
    bisect_reset(p.path)


def test_pointer_bump_two_levels(tmp_path):
    kernel = [""] * 9 + ["BROKEN"] * 8
    plan = [("src", "")] * 5 + [("ptr", 2)] + [("src", "")] * 3 + [("ptr", 15, "bump")] + [("src", "")] * 6
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["add"])
    res = cli_run(p)
    assert res.outcome == "found" and res.culprit.commit == p.c["bump"]
    assert res.culprit.kind == "submodule_bump"
    sc = res.submodule_culprit
    assert sc.commit == p.r[9] and sc.role == "regression" and sc.path == "runtime"
    assert sc.superproject == p.c["bump"] and sc.subject == "runtime: change 9"
    assert res.level2_commits == 13  # r3..r15
    # the level-2 ends (r2 with the parent, r15 with the bump) are known from level 1: no runs there
    l2 = [s for s in res.steps if s.phase == "level2"]
    assert {s.submodule for s in l2}.isdisjoint({p.r[2], p.r[15]})
    assert all(s.superproject == p.c["bump"] for s in l2)
    assert len(l2) <= log2ceil(13) + CONFIRM_RUNS
    assert l2[0].short.startswith("runtime@")
    check_steps(p, res)
    assert_restored(p, before)
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=60)
    assert "FAIL" in out.stdout
    bisect_reset(p.path)


def test_rollback_find_fix(tmp_path):
    kernel = ["", "", "", "", "", "", "FIX", "FIX", "FIX", "FIX"]
    plan = (
        [("ptr", 8), ("src", "")] + [("src", "NEEDS_FIX")] * 4 + [("ptr", 2, "rollback")] + [("src", "NEEDS_FIX")] * 3
    )
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["add"])
    res = cli_run(p)
    assert res.culprit.commit == p.c["rollback"] and res.culprit.kind == "submodule_rollback"
    sc = res.submodule_culprit
    assert sc.role == "dropped_fix" and sc.commit == p.r[6], res.message
    assert "dropp" in res.message
    ff = [s for s in res.steps if s.phase == "find_fix"]
    assert ff and all(s.superproject == p.c["rollback"] for s in ff) and len(ff) <= log2ceil(6) + CONFIRM_RUNS
    check_steps(p, res)
    assert_restored(p, before)
    bisect_reset(p.path)


@pytest.mark.parametrize("variant", ["submodule_part", "source_part", "only_together"])
def test_mixed_commit_split(tmp_path, variant):
    kernel = {
        "submodule_part": [""] * 7 + ["BROKEN"] * 6,
        "source_part": [""] * 13,
        "only_together": [""] * 7 + ["TOGETHER"] * 6,
    }[variant]
    marker = {"submodule_part": "", "source_part": "BUG", "only_together": "TOGETHER"}[variant]
    after = "BUG" if variant == "source_part" else marker
    plan = [("src", "")] * 4 + [("ptr", 2)] + [("mixed", 12, marker, "mixed")] + [("src", after)] * 4
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["add"])
    res = cli_run(p)
    assert res.culprit.commit == p.c["mixed"] and res.culprit.kind == "mixed"
    pointer = [s for s in res.steps if s.phase == "split_pointer"]
    source = [s for s in res.steps if s.phase == "split_source"]
    parent = p.order[p.order.index(p.c["mixed"]) - 1]
    # each split point is evidence like any other: confirmed by a second run before it decides anything
    assert len(pointer) == 2 and {(s.superproject, s.submodule) for s in pointer} == {(parent, p.r[12])}
    assert res.confidence["split_pointer"] >= 0.99
    if variant == "submodule_part":
        assert {s.verdict for s in pointer} == {"bad"} and not source
        assert res.outcome == "found" and res.submodule_culprit.commit == p.r[7]
        assert res.submodule_culprit.superproject == parent  # level 2 keeps the parent's source
    else:
        assert {s.verdict for s in pointer} == {"good"} and len(source) == 2
        assert {(s.superproject, s.submodule) for s in source} == {(p.c["mixed"], p.r[2])}
        assert {s.verdict for s in source} == {"bad" if variant == "source_part" else "good"}
        assert res.outcome == variant and res.submodule_culprit is None and res.confidence["split_source"] >= 0.99
    check_steps(p, res)
    assert_restored(p, before)
    bisect_reset(p.path)


def test_skips_around_the_culprit_give_a_candidate_set(tmp_path):
    plan = (
        [("src", "")] * 8
        + [("src", "CRASH", "c1"), ("src", "NOVERDICT", "c2"), ("src", "BUG", "bug")]
        + [("src", "BUG")] * 5
    )
    p = build(tmp_path, KERNEL, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["add"])
    res = bisect_run(p.path)
    assert res.outcome == "candidates" and res.culprit is None and res.candidates_in == "superproject"
    assert [c.commit for c in res.candidates] == [p.c["c1"], p.c["c2"], p.c["bug"]]
    reasons = {s.superproject: s.reason for s in res.steps if s.verdict == "skip"}
    assert "SIGSEGV" in reasons[p.c["c1"]] and "exit 3" in reasons[p.c["c2"]]  # both were run: both are candidates
    assert res.reproduce is None
    check_steps(p, res)
    assert_restored(p, before)
    bisect_reset(p.path)


def test_bad_end_that_passes_stops_early(tmp_path):
    p = build(tmp_path, KERNEL, [("src", "")] * 6)
    before = snapshot(p.sup.path)
    start(p, p.c["add"])
    res = bisect_run(p.path)
    # the bad end passed three times in a row (a flaky end would have disagreed; twice happens to a check
    # that flakes 10% of the time once in a hundred bisects)
    assert res.outcome == "bad_end_not_bad" and res.culprit is None and res.runs == 4
    assert [s.phase for s in res.steps] == ["verify_good", "verify_bad", "verify_bad", "verify_bad"]
    assert "does not fail" in res.message and res.reproduce is None
    assert_restored(p, before)
    bisect_reset(p.path)
    # and with verify_ends off, nothing is tested at the ends
    start(p, p.c["add"], verify_ends=False)
    res = bisect_run(p.path)
    assert not any(s.phase.startswith("verify") for s in res.steps)
    assert res.culprit.commit == p.c["head"] and any("not verified" in n for n in res.notes)
    bisect_reset(p.path)


def test_timeout_and_leftover_children_are_killed(tmp_path):
    plan = [("src", "")] * 3 + [("src", "DAEMON", "daemon"), ("src", "HANG", "hang"), ("src", "BUG", "bug")]
    p = build(tmp_path, KERNEL, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["daemon"], timeout_s=1.5)
    t0 = time.monotonic()
    res = bisect_run(p.path)
    assert time.monotonic() - t0 < slack(20)
    hang = [s for s in res.steps if s.superproject == p.c["hang"]]
    assert hang and hang[0].verdict == "skip" and "timed out" in hang[0].reason
    assert res.outcome == "candidates" and [c.commit for c in res.candidates] == [p.c["hang"], p.c["bug"]]
    for name in ("hang.pid", "daemon.pid"):
        pid = int((p.env / name).read_text())
        for _ in range(50):
            if not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]:
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"{name}: process {pid} outlived its step")
    assert_restored(p, before)
    bisect_reset(p.path)


def test_output_flood_is_capped_and_settings_file(tmp_path):
    plan = [("src", "")] * 3 + [("src", "FLOOD BUG", "bug")] + [("src", "BUG")] * 2
    p = build(tmp_path, KERNEL, plan)
    p.sup.write(
        "perfkit.toml",
        f"[bisect]\nrun = {p.run_cmd()!r}\nlog_cap_mb = 0.25\n"
        f"install = {p.installs()!r}\ninstall_submodule = {p.installs_sub()!r}\nfail_pattern = 'NEVER'\n",
    )
    before = snapshot(p.sup.path)
    started = bisect_start(p.path, p.c["add"], fail_pattern=r"\bFAIL\b")
    assert started.settings.sources["run"].startswith("perfkit.toml") and started.settings.log_cap_mb == 0.25
    assert started.settings.sources["fail_pattern"] == "argument" and started.settings.fail_pattern == r"\bFAIL\b"
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bug"]
    flood = [s for s in res.steps if s.superproject == p.c["bug"]][0]
    assert flood.verdict == "bad"  # the FAIL line after 3 MB of output is still seen
    size = Path(flood.log).stat().st_size
    assert 0.25 * 2**20 < size < 0.25 * 2**20 + 70_000 and "log cap reached" in Path(flood.log).read_text()
    assert_restored(p, before)
    bisect_reset(p.path)


def test_step_by_step_and_install_failure(tmp_path):
    plan = [("src", "")] * 5 + [("src", "BUG", "bug")] + [("src", "BUG")] * 3
    p = build(tmp_path, KERNEL, plan)
    before = snapshot(p.sup.path)
    broken = p.order[p.order.index(p.c["bug"]) + 2]
    # good is older than the submodule: its point has no submodule checkout at all
    start(p, p.c["init"], install=[f'test "$PERFKIT_COMMIT" != {broken}', *p.installs()])
    lines = []
    while True:
        r = bisect_step(p.path)
        if r.step is None:
            break
        lines.append(r.line)
        assert re.fullmatch(r"Step \d+ of about \d+: [0-9a-f]{12} .+ -> (good|bad|skip) \(.+\)", r.line), r.line
        assert r.status.steps[-1] == r.step
        assert r.status.done or "paused" in bisect_status(p.path).message  # between steps: paused, not dead
        if r.status.done:
            break
    res = bisect_status(p.path)
    assert res.done and res.culprit.commit == p.c["bug"]
    assert res.steps[0].superproject == p.c["init"] and res.steps[0].submodule is None
    skipped = [s for s in res.steps if s.verdict == "skip"]
    assert all("superproject install failed" in s.reason and not s.ran for s in skipped)
    assert int(lines[-1].split()[1]) == len(res.steps)
    assert bisect_step(p.path).line.startswith("The bisect is done.")
    assert_restored(p, before)
    bisect_reset(p.path)


def test_bad_input_and_lock(tmp_path):
    p = build(tmp_path, KERNEL, [("src", "")] * 3 + [("src", "BUG")])
    before = snapshot(p.sup.path)
    cases = [
        (dict(repo=str(tmp_path / "nope"), good="HEAD~1"), "repo"),
        (dict(good="--output=/tmp/x"), "good"),
        (dict(good="deadbeef12"), "good"),
        (dict(good=p.c["head"], bad=p.c["add"]), "good"),
        (dict(good=p.c["head"]), "good"),
        (dict(submodule="lib"), "submodule"),
        (dict(fail_pattern="(unclosed"), "fail_pattern"),
        (dict(run=""), "run"),
        (dict(run_cwd=str(tmp_path / "missing")), "run_cwd"),
        (dict(timeout_s=0), "timeout_s"),
    ]
    for kw, field in cases:
        args = dict(repo=p.path, good=p.c["add"], run=p.run_cmd()) | kw
        with pytest.raises(InputError) as exc:
            bisect_start(**args)
        assert str(exc.value).startswith(f"{field}: "), (kw, str(exc.value))
    with pytest.raises(InputError, match="^repo: no bisect is recorded"):
        bisect_step(p.path)
    assert not statefile.state_file(statefile.state_dir(p.sup.path)).exists()
    start(p, p.c["add"])
    with pytest.raises(InputError, match="^repo: a bisect of this repository is already in progress"):
        start(p, p.c["add"])
    sdir = statefile.state_dir(p.sup.path)
    with lockfile.locked(sdir):  # another call is working on it
        with pytest.raises(InputError, match="another perfkit call"):
            bisect_step(p.path)
        assert bisect_status(p.path).running_pid == os.getpid()
    # a lock left by a dead process is stale and taken over
    (sdir / "lock").write_text(json.dumps({"pid": 999999999, "host": os.uname().nodename, "start": "1"}))
    assert "interrupted" in bisect_status(p.path).message
    assert bisect_step(p.path).step.n == 1
    assert bisect_reset(p.path).removed
    assert bisect_reset(p.path).message.startswith("Nothing to reset")
    assert snapshot(p.sup.path) == before


def test_repo_moved_mid_bisect_and_unwritable_state(tmp_path):
    import shutil

    plan = [("src", "")] * 6 + [("src", "BUG", "bug")] + [("src", "BUG")] * 3
    p = build(tmp_path, KERNEL, plan)
    start(p, p.c["add"], install=[], install_submodule=[])
    bisect_step(p.path)
    bisect_step(p.path)
    moved = tmp_path / "moved" / "pypto"
    moved.parent.mkdir()
    shutil.move(p.path, moved)
    res = bisect_run(str(moved))
    assert res.culprit.commit == p.c["bug"] and any("moved" in n for n in res.notes)
    listing = subprocess.run(
        ["git", "-C", str(moved), "worktree", "list", "--porcelain"], capture_output=True, text=True
    ).stdout
    assert (
        listing.count("worktree ") == 1
        and not (moved / ".git" / "worktrees").exists()
        or not any((moved / ".git" / "worktrees").iterdir())
    )
    bisect_reset(str(moved))
    # a state folder that cannot be created: a clear failure, nothing half-written
    sdir = statefile.state_dir(moved)
    sdir.write_text("in the way\n")
    with pytest.raises(ToolFailure, match="cannot create the bisect folder"):
        bisect_start(str(moved), p.c["add"], run="true")
    assert sdir.read_text() == "in the way\n"
    sdir.unlink()


def test_submodule_commit_missing_locally_is_a_skip(tmp_path):
    p = build(
        tmp_path, KERNEL, [("ptr", "0123456789abcdef0123456789abcdef01234567", "fake"), ("mixed", 0, "BUG", "bug")]
    )
    before = snapshot(p.sup.path)
    start(p, p.c["add"])
    res = bisect_run(p.path)
    fake = [s for s in res.steps if s.superproject == p.c["fake"]]
    assert fake and fake[0].verdict == "skip" and not fake[0].ran
    assert "not in your local clone of 'runtime'" in fake[0].reason and "fetch" in fake[0].reason
    assert res.outcome == "candidates" and [c.commit for c in res.candidates] == [p.c["fake"], p.c["bug"]]
    assert_restored(p, before)
    bisect_reset(p.path)
