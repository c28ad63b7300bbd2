"""The noise-aware bisect end to end: real repositories, a real submodule, a check that lies.

The check is the project's real one, wrapped so that each step's verdict flips with a seeded rate
(the flip is a hash of the seed and the step number, so the test knows exactly which steps lied).
Every recorded verdict must be the truth or a known flip, the culprits at both levels must be
right, confirmed and reported with their confidence, and the evidence per point must add up to
the steps. Skip storms and a crashing runtime use the same repositories.
"""

from __future__ import annotations

import hashlib
import sys
import textwrap
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import run_git, snapshot
from perfkit.bisect import settings as settingsfile
from perfkit.bisect.search.noisy import CONFIRM_RUNS
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status, bisect_step
from perfkit.errors import InputError

FLAKY = textwrap.dedent(
    """
    import hashlib, os, subprocess, sys
    seed, rate, command = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    res = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    out = res.stdout
    step = os.environ["PERFKIT_STEP"]
    u = int(hashlib.sha256(f"{seed}:{step}".encode()).hexdigest()[:8], 16) / 2**32
    if u < rate and ("PASS" in out or "FAIL" in out):
        out = out.replace("PASS", "@@").replace("FAIL", "PASS").replace("@@", "FAIL")
    sys.stdout.write(out)
    if "FAIL" in out:
        sys.exit(1)
    sys.exit(0 if "PASS" in out else res.returncode)
    """
)


def flipped(seed: int, step: int, rate: float) -> bool:
    return int(hashlib.sha256(f"{seed}:{step}".encode()).hexdigest()[:8], 16) / 2**32 < rate


def flaky_run(p: Project | Path, seed: int, rate: float, command: str) -> str:
    env = p.env if isinstance(p, Project) else p
    (env / "flaky.py").write_text(FLAKY)
    quoted = command.replace("'", "'\\''")
    return f"{sys.executable} {env / 'flaky.py'} {seed} {rate} '{quoted}'"


def seed_with_flips(rate: float, must: list[int], avoid: tuple[int, ...] = (), not_before: int = 40) -> int:
    """A seed whose flips land on the given steps (so the test exercises them), not on `avoid`, and on few others."""
    for seed in range(10_000):
        flips = [s for s in range(1, not_before) if flipped(seed, s, rate)]
        if all(m in flips for m in must) and not set(avoid) & set(flips) and len(flips) <= len(must) + 1:
            return seed
    raise AssertionError("no seed")


def check_against_truth(p: Project, res, seed: int, rate: float) -> int:
    """Every verdict is the truth at its point, or the seeded flip of it. Returns how many lied."""
    lies = 0
    for s in res.steps:
        if not s.ran or s.verdict == "skip":
            continue
        truth = p.expected(s.superproject, s.submodule)
        if flipped(seed, s.n, rate):
            assert s.verdict != truth, s
            lies += 1
        else:
            assert s.verdict == truth, s
    return lies


def check_evidence(res) -> None:
    assert sum(e.runs for e in res.evidence) == len(res.steps)
    for e in res.evidence:
        assert e.runs == e.passes + e.fails + e.skips
        assert len(e.metrics) == e.passes + e.fails


@pytest.mark.slow
def test_two_levels_with_a_lying_check(tmp_path):
    """A pointer-only bump hides the runtime culprit; the check lies at the good end and in level 1."""
    kernel = [""] * 6 + ["BROKEN"] * 4
    plan = [("src", "")] * 3 + [("ptr", 2)] + [("src", "")] * 2 + [("ptr", 9, "bump")] + [("src", "")] * 3
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    rate = 0.10
    seed = seed_with_flips(rate, [1, 5], avoid=(2, 3), not_before=30)
    started = bisect_start(
        p.path,
        p.c["add"],
        run=flaky_run(p, seed, rate, p.run_cmd()),
        install=p.installs(),
        install_submodule=p.installs_sub(),
        metric_pattern=r"max_abs_err=(\S+)",
        noise=True,
    )
    assert started.settings.noise and started.settings.confidence is None
    res = bisect_run(p.path)
    assert res.outcome == "found", res.message
    assert res.culprit.commit == p.c["bump"] and res.submodule_culprit.commit == p.r[6]
    lies = check_against_truth(p, res, seed, rate)
    assert lies >= 2
    # the good end read FAIL once: no gate, the bisect went on with that run as evidence (the passes
    # inside the range, weighed with it, are what says the good end is good)
    assert res.steps[0].phase == "verify_good" and res.steps[0].verdict == "bad"
    assert [s.phase for s in res.steps[:3]] == ["verify_good", "verify_bad", "level1"]
    assert res.confidence["level1"] >= 0.99 and res.confidence["level2"] >= 0.99
    assert "Confidence:" in res.message
    # confirmed: the culprit and its parent both ran, at both levels
    l1 = {s.superproject for s in res.steps if s.phase in ("level1", "verify_bad")}
    parent = run_git(p.sup.path, "rev-parse", f"{p.c['bump']}^")
    assert p.c["bump"] in l1 and (parent in l1)
    l2 = {s.submodule for s in res.steps if s.phase == "level2"}
    assert p.r[6] in l2 and p.r[5] in l2
    check_evidence(res)
    assert len(res.evidence) == len({(s.superproject, s.submodule) for s in res.steps})
    assert snapshot(p.sup.path) == before
    bisect_reset(p.path)


@pytest.mark.slow
def test_find_fix_with_a_lying_check(tmp_path):
    """A rollback dropped a fix: the find-fix search reads old as bad, and the flake rates swap sides."""
    kernel = [""] * 4 + ["FIX"] * 10
    plan = (
        [("src", "NEEDS_FIX")]
        + [("ptr", 12)]
        + [("src", "NEEDS_FIX")] * 3
        + [("ptr", 1, "rollback")]
        + [("src", "NEEDS_FIX")] * 5
    )
    p = build(tmp_path, kernel, plan)
    rate = 0.10
    seed = seed_with_flips(rate, [4], avoid=(1, 2, 3), not_before=30)
    bisect_start(
        p.path,
        p.c["add"] + "~0",
        run=flaky_run(p, seed, rate, p.run_cmd()),
        install=p.installs(),
        install_submodule=p.installs_sub(),
        metric_pattern=r"max_abs_err=(\S+)",
        confidence=0.995,
        flaky_fail=rate,
        flaky_pass=rate,
    )
    for _ in range(6):
        bisect_step(p.path)
    live = bisect_status(p.path)
    assert 0 < live.confidence["level1"] < 1 and not live.done  # how sure level 1 is so far
    res = bisect_run(p.path)
    assert res.settings.noise  # a confidence asks for the noise-aware search
    assert res.submodule_culprit is not None, res.message
    assert res.culprit.commit == p.c["rollback"] and res.submodule_culprit.commit == p.r[4]
    assert res.submodule_culprit.role == "dropped_fix"
    check_against_truth(p, res, seed, rate)
    assert res.confidence["find_fix"] >= 0.995
    check_evidence(res)
    bisect_reset(p.path)


def test_deterministic_check_costs_the_confirmation_runs(tmp_path):
    """Noise off (the default): plain halving, then only the culprit and its parent run again until the
    answer holds the confidence it states; the evidence lists just those two, each agreeing with itself."""
    plan = [("src", "")] * 12 + [("src", "BUG", "culprit")] + [("src", "BUG")] * 10
    p = build(tmp_path, [""] * 4, plan)
    bisect_start(p.path, p.c["add"], run=p.run_cmd(), install=p.installs())
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["culprit"]
    assert sum(s.phase == "level1" for s in res.steps) <= 5 + CONFIRM_RUNS and res.runs <= 7 + CONFIRM_RUNS
    parent = run_git(p.sup.path, "rev-parse", f"{p.c['culprit']}^")
    assert sorted(e.superproject for e in res.evidence) == sorted([p.c["culprit"], parent])
    for e in res.evidence:
        assert e.runs >= 2 and (e.passes, e.fails) in ((e.runs, 0), (0, e.runs))
    assert res.confidence["level1"] >= 0.99 and f"level 1 {res.confidence['level1']:.1%}" in res.message
    assert res.noise_seen == [] and not any("flake rates used" in n for n in res.notes)
    bisect_reset(p.path)


def test_skip_storm_stops_early_with_the_reason(tmp_path):
    """The run command fails to import everywhere but the two ends: stop after three, say why."""
    plan = [("src", "")] * 40 + [("src", "BUG", "culprit")] + [("src", "BUG")] * 30
    p = build(tmp_path, [""] * 4, plan)
    ends = f"{p.c['add']} {p.c['head']}"
    run = (
        f'case " {ends} " in *" $PERFKIT_COMMIT "*) {p.run_cmd()};; '
        '*) echo "ModuleNotFoundError: No module named pypto_core" >&2; exit 1;; esac'
    )
    bisect_start(p.path, p.c["add"], run=run)
    res = bisect_run(p.path)
    assert res.outcome == "candidates" and res.culprit is None
    level1 = [s for s in res.steps if s.phase == "level1"]
    assert len(level1) == 3
    assert "all skipped with the same reason" in res.message and "exit 1" in res.message
    # the message quotes the line every run ended on, not only "exit 1 without a verdict line"
    assert "every run ending on 'ModuleNotFoundError: No module named pypto_core'" in res.message
    assert res.skip_reasons[0].count == 3 and len(res.candidates) == len(plan) + 1
    assert bisect_status(p.path).outcome == "candidates"
    bisect_reset(p.path)


def test_skip_budget_with_varied_reasons(tmp_path):
    """Skips with different reasons are no storm; the budget stops the search with the reasons grouped."""
    plan = [("src", "")] * 20 + [("src", "BUG", "culprit")] + [("src", "BUG")] * 10
    p = build(tmp_path, [""] * 4, plan)
    ends = f"{p.c['add']} {p.c['head']}"
    run = f'case " {ends} " in *" $PERFKIT_COMMIT "*) {p.run_cmd()};; *) exit $(( PERFKIT_STEP % 3 + 1 ));; esac'
    bisect_start(p.path, p.c["add"], run=run, max_skips=5)
    res = bisect_run(p.path)
    assert res.outcome == "candidates"
    # past the budget only commits outside known skip blocks are tried, never more than twice the budget
    assert 5 <= sum(s.phase == "level1" for s in res.steps) <= 10
    if "max_skips" in res.message:
        assert "Skip reasons:" in res.message
    assert sum(r.count for r in res.skip_reasons) == sum(s.verdict == "skip" for s in res.steps)
    bisect_reset(p.path)


def test_crashing_runtime_is_one_block(tmp_path):
    """Many compiler commits pin a runtime that crashes at run time: two of them are run, not all."""
    kernel = ["", "", "SEGV", ""]
    plan = [("src", "")] * 4 + [("ptr", 2, "crash_in")] + [("src", "")] * 24 + [("ptr", 3, "crash_out")]
    plan += [("src", "")] * 6 + [("src", "BUG", "culprit")] + [("src", "BUG")] * 4
    p = build(tmp_path, kernel, plan)
    run = f'grep -q SEGV "$PERFKIT_SUBMODULE/kernel.cpp" && kill -SEGV $$; {p.run_cmd()}'
    bisect_start(p.path, p.c["add"], run=run, install=p.installs(), install_submodule=p.installs_sub())
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["culprit"], res.message
    crashed = [s for s in res.steps if s.verdict == "skip"]
    assert len(crashed) <= 2
    assert all(s.submodule == p.r[2] for s in crashed)
    bisect_reset(p.path)


def test_noise_settings_from_the_file_and_bad_values(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "perfkit.toml").write_text(
        '[bisect]\nrun = "true"\nnoise = true\nconfidence = 0.995\nflaky_fail = 0.05\nmax_skips = 12\n'
    )
    s = settingsfile.merge(repo, {})
    assert (s.noise, s.confidence, s.flaky_fail, s.flaky_pass, s.max_skips) == (True, 0.995, 0.05, None, 12)
    assert s.sources["confidence"].startswith("perfkit.toml")
    for key, value, field in [
        ("confidence", 1.0, "confidence"),
        ("confidence", 0.3, "confidence"),
        ("flaky_pass", 0.5, "flaky_pass"),
        ("max_skips", 2.5, "max_skips"),
        ("max_skips", -1, "max_skips"),
    ]:
        with pytest.raises(InputError) as err:
            settingsfile.merge(repo, {key: value})
        assert err.value.field == field
    (repo / "perfkit.toml").write_text('[bisect]\nrun = "true"\nnoise = "yes"\n')
    with pytest.raises(InputError, match=r"perfkit.toml \[bisect\] noise: input should be a valid boolean"):
        settingsfile.merge(repo, {})


@pytest.mark.slow
@pytest.mark.fixture
def test_pypto_history_with_a_lying_check(pypto_history, tmp_path):
    """The real pointer history: a runtime bug behind pypto's bump #1112, a check that lies 5% of the
    time; both culprits named, confirmed, with the confidence of each level."""
    repo = pypto_history
    bump = "3846b209a617ad68a1acc1bc973418196eb37cd4"
    add = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"
    old, new = "66e7c901882958c2c936c8aa1ef167706def8f2f", "0304adf6eba55ae6e088dded2f3e77b5c72fea96"
    x = run_git(repo / "runtime", "rev-list", "--first-parent", "--reverse", f"{old}..{new}").split()[9]
    env = tmp_path / "env"
    env.mkdir()
    check = (
        f'if git -C "$PERFKIT_SUBMODULE" merge-base --is-ancestor {x} HEAD; '
        "then echo 'max_abs_err=0.2 FAIL'; else echo 'max_abs_err=0.0 PASS'; fi"
    )
    rate = 0.05
    seed = seed_with_flips(rate, [3])
    before = snapshot(repo)
    bisect_start(str(repo), add, run=flaky_run(env, seed, rate, check), metric_pattern=r"max_abs_err=(\S+)", noise=True)
    res = bisect_run(str(repo))
    assert res.culprit.commit == bump and res.submodule_culprit.commit == x, res.message
    assert res.confidence["level1"] >= 0.99 and res.confidence["level2"] >= 0.99
    assert any(flipped(seed, s.n, rate) for s in res.steps)
    check_evidence(res)
    assert res.runs <= 60
    assert snapshot(repo) == before
    bisect_reset(str(repo))
