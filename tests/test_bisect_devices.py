"""Several devices end to end: rounds of points tested at once, each on its own device, worktree and environment.

The devices are fake: the run command records the device it was given (PERFKIT_DEVICE and the
`{device}` it was written with), its checkout, its environment and when it started and ended, so
the test can tell from the commands' own records that no two points running at the same time
shared a device, a worktree or an environment. Verdicts are checked against the truth computed
from git objects (helpers/bisect_project.py), rounds against ceil(log_(d+1) N) + 1 per level.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from helpers.load import slack
from helpers.procs import alive, all_dead, launch_run, perfkit
from perfkit.bisect.command.envs import WorkerEnv
from perfkit.bisect.engine.rounds import ksection
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status, bisect_step
from perfkit.errors import InputError

DEVICES = ["0", "1", "2"]


def recorded_run(p: Project, pause: float = 0.3) -> str:
    """The check, wrapped so that it records device, checkout, environment and its start and end."""
    rec = p.env / "devices.log"
    return (
        f'echo "start $(date +%s.%N) $PERFKIT_DEVICE {{device}} $PERFKIT_CHECKOUT ${{VIRTUAL_ENV:--}}" >> {rec}; '
        f"sleep {pause}; {p.run_cmd()}; rc=$?; "
        f'echo "end $(date +%s.%N) $PERFKIT_DEVICE {{device}} $PERFKIT_CHECKOUT ${{VIRTUAL_ENV:--}}" >> {rec}; exit $rc'
    )


def start(p: Project, good: str, devices: list[str] = DEVICES, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("install", p.installs())
    kw.setdefault("install_submodule", p.installs_sub())
    kw.setdefault("run", recorded_run(p))
    return bisect_start(p.path, good, devices=devices, **kw)


def intervals(p: Project) -> list[tuple[float, float, str, str, str]]:
    """(start, end, device, checkout, environment) of every run, from the run command's own records."""
    opened: dict[tuple[str, str], list[float]] = {}
    out = []
    for line in p.lines("devices.log"):
        kind, t, dev, written, checkout, env = line.split(" ")
        assert dev == written  # PERFKIT_DEVICE and {device} agree
        if kind == "start":
            opened.setdefault((dev, checkout), []).append(float(t))
        else:
            out.append((opened[(dev, checkout)].pop(), float(t), dev, checkout, env))
    return out


def assert_no_sharing(p: Project) -> int:
    """No two runs that overlapped in time shared a device, a worktree or an environment; how many overlapped."""
    runs = intervals(p)
    overlaps = 0
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            if a[0] < b[1] and b[0] < a[1]:
                overlaps += 1
                assert a[2] != b[2] and a[3] != b[3] and a[4] != b[4], (a, b)
    return overlaps


def rounds_in(res, phase: str) -> int:  # type: ignore[no-untyped-def]
    return len({s.round for s in res.steps if s.phase == phase and not s.remembered})


CONFIRM_ROUNDS = 2  # docs/bisect.md: a deterministic check runs the culprit and its parent twice more, together


def bound(n: int, d: int) -> int:
    """(d + 1)-section, a round for rounding, and the default's confirmation rounds (culprit and parent again)."""
    return search_bound(n, d) + CONFIRM_ROUNDS


def search_bound(n: int, d: int) -> int:
    """(d + 1)-section and a round for rounding (the first round shares its devices with the end checks)."""
    return math.ceil(math.log(n, d + 1) - 1e-9) + 1 if n > 1 else 0


def confirmation_rounds(res, phase: str) -> int:  # type: ignore[no-untyped-def]
    """Rounds of a phase that ran only points the phase had tested in earlier rounds: the confirmation."""
    seen: set[tuple[str, str | None]] = set()
    count = 0
    for r in sorted({s.round for s in res.steps if s.phase == phase and s.ran}):
        points = {(s.superproject, s.submodule) for s in res.steps if s.phase == phase and s.ran and s.round == r}
        count += points <= seen
        seen |= points
    return count


def runs_of(res, phase: str, sup: str, sub: str | None = None) -> int:  # type: ignore[no-untyped-def]
    return sum(s.ran and s.phase == phase and s.superproject == sup and sub in (None, s.submodule) for s in res.steps)


def check(p: Project, res, before: dict) -> None:  # type: ignore[no-untyped-def]
    for s in res.steps:
        if s.ran:
            assert s.verdict == p.expected(s.superproject, s.submodule), s
            assert s.device in DEVICES
    assert res.runs == len(p.lines("runs.log")) == sum(s.ran for s in res.steps)
    # one round never gives two points the same device
    by_round: dict[int, list[str]] = {}
    for s in res.steps:
        if s.round is not None:
            by_round.setdefault(s.round, []).append(s.device or "")
    assert all(len(ds) == len(set(ds)) <= len(DEVICES) for ds in by_round.values())
    assert snapshot(p.sup.path) == before
    # worker environments kept every install to themselves: no install ever ran in the user's checkout
    assert res.environment == "user"
    assert (p.env / "super.path").read_text().strip() != p.path
    sdir = statefile.state_dir(p.sup.path)
    assert not (sdir / "workers").exists() and not (sdir / "worktree").exists()
    # the worker environments were never the user's, and each worker kept its own
    envs = {e for *_, e in intervals(p)}
    assert len(envs) >= 2 and all(e.startswith(str(sdir / "workers")) for e in envs)


def test_ksection_splits_into_d_plus_1_parts():
    for n in (2, 3, 10, 45, 100, 853):
        for d in (1, 2, 3, 4, 8):
            picks = ksection(n, {}, d)
            assert len(picks) == min(d, n - 1) and picks == sorted(set(picks))
            edges = [-1, *picks, n - 1]
            assert max(b - a for a, b in zip(edges, edges[1:], strict=False)) <= math.ceil(n / (d + 1)) + 1
    # marks narrow the interval; skipped indices are never chosen again
    assert ksection(20, {3: "old", 12: "new", 7: "skip"}, 2) == [6, 9]
    assert ksection(10, {2: "old", 4: "new", 3: "skip"}, 3) == []


def test_pointer_bump_two_levels_three_devices(tmp_path):
    kernel = [""] * 9 + ["BROKEN"] * 8
    plan = [("src", "")] * 5 + [("ptr", 2)] + [("src", "")] * 40 + [("ptr", 15, "bump")] + [("src", "")] * 6
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    started = start(p, p.c["add"])
    assert started.settings.devices == DEVICES
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["bump"]
    assert res.submodule_culprit.commit == p.r[9] and res.submodule_culprit.superproject == p.c["bump"]
    d = len(DEVICES)
    # the search in (d + 1)-section rounds; the confirmation (the culprit and its parent run again until the
    # answer holds 0.99, docs/bisect.md) rides along on the devices the last search round leaves free: a level
    # takes at most ceil(log_(d+1) N) + 2 rounds, its confirmation included (the old rule: + 3)
    for phase, n, bad, good in (
        ("level1", len(plan) + 1, (p.c["bump"], None), (p.order[p.order.index(p.c["bump"]) - 1], None)),
        ("level2", 13, (p.c["bump"], p.r[9]), (p.c["bump"], p.r[8])),
    ):
        assert rounds_in(res, phase) <= search_bound(n, d) + 1, phase
        assert runs_of(res, phase, *bad) >= 2 and runs_of(res, phase, *good) >= 2, phase
        assert res.confidence[phase] >= 0.99, phase
    # the ends are tested in the same round, on two devices, with level-1 points beside them
    first = [s for s in res.steps if s.round == 1]
    assert {s.phase for s in first} == {"verify_good", "verify_bad", "level1"} and len(first) == d
    check(p, res, before)
    assert assert_no_sharing(p) >= 3  # points really ran at the same time
    bisect_reset(p.path)


def test_source_regression_and_skips_three_devices(tmp_path):
    plan = [("src", "")] * 9 + [("src", "CRASH")] + [("src", "")] * 11 + [("src", "BUG", "bug")] + [("src", "BUG")] * 20
    p = build(tmp_path, [""] * 3, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["add"], verify_ends=False)
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["bug"], res.message
    assert rounds_in(res, "level1") <= bound(len(plan) + 1, 3) + 1  # one extra round for the skip
    check(p, res, before)
    bisect_reset(p.path)


def test_bisect_step_runs_one_round_and_status_shows_devices(tmp_path):
    plan = [("src", "")] * 10 + [("src", "BUG", "bug")] + [("src", "BUG")] * 4
    p = build(tmp_path, [""] * 3, plan)
    before = snapshot(p.sup.path)
    start(p, p.c["add"], devices=["a:0", "b.1"], run=f"test {{device}} = $PERFKIT_DEVICE && {p.run_cmd()}")
    one = bisect_step(p.path)
    assert [s.round for s in one.status.steps] == [1, 1]
    assert len(one.line.splitlines()) == 2 and all(x.startswith("Step ") for x in one.line.splitlines())
    assert {s.device for s in one.status.steps} == {"a:0", "b.1"}
    assert one.status.worktree and "workers" in one.status.worktree
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bug"] and res.done
    assert snapshot(p.sup.path) == before
    assert bisect_status(p.path).worktree is None
    bisect_reset(p.path)


@pytest.mark.parametrize(
    "devices,problem",
    [
        (["0", "0"], "twice"),
        (["0; rm -rf ~"], "plain device name"),
        ([""], "plain device name"),
        ([], "needs devices"),  # with backend="ray"
    ],
)
def test_bad_devices_are_refused_before_anything_is_written(tmp_path, devices, problem):
    p = build(tmp_path, [""] * 2, [("src", ""), ("src", "BUG")])
    with pytest.raises(InputError) as err:
        start(p, p.c["add"], devices=devices, **({"backend": "ray"} if not devices else {}))
    assert err.value.field == ("backend" if not devices else "devices") and problem in str(err.value)
    assert not statefile.state_file(statefile.state_dir(p.sup.path)).exists()


def test_wider_range_after_a_finished_bisect_reuses_verdicts(tmp_path):
    plan = [("src", "")] * 30 + [("src", "BUG", "bug")] + [("src", "BUG")] * 10
    p = build(tmp_path, [""] * 3, plan)
    mid = p.order[p.order.index(p.c["bug"]) - 12]
    start(p, mid, devices=[], run=p.run_cmd())
    first = bisect_run(p.path)
    assert first.culprit.commit == p.c["bug"]
    ran_first = {(s.superproject, s.submodule) for s in first.steps if s.ran}
    runs_before = len(p.lines("runs.log"))
    # the same commands over a wider range: every point the first bisect ran is remembered, none rerun
    start(p, p.c["add"], devices=[], run=p.run_cmd())
    second = bisect_run(p.path)
    assert second.culprit.commit == p.c["bug"]
    again = [s for s in second.steps if s.ran and (s.superproject, s.submodule) in ran_first]
    # only the confirmation runs again: the named culprit and its parent, twice each, since a remembered
    # verdict counts as one run and a deterministic check is confirmed by three of each (docs/bisect.md)
    confirm = {p.c["bug"], p.order[p.order.index(p.c["bug"]) - 1]}
    assert sorted(s.superproject for s in again) == sorted([*confirm, *confirm])
    for commit in confirm:
        verdicts = [s for s in second.steps if s.superproject == commit and s.phase == "level1"]
        assert len(verdicts) == 3 and sum(s.remembered for s in verdicts) == 1, commit
    remembered = [s for s in second.steps if s.remembered]
    assert remembered and all("remembered from step" in s.reason and not s.ran for s in remembered)
    assert len(p.lines("runs.log")) - runs_before == second.runs
    # with devices, the rounds reuse the memory too: no point known from the first two runs again
    known = ran_first | {(s.superproject, s.submodule) for s in second.steps if s.ran}
    start(p, p.c["add"], devices=["0", "1"], run=p.run_cmd())
    fourth = bisect_run(p.path)
    assert fourth.culprit.commit == p.c["bug"]
    assert {s.superproject for s in fourth.steps if s.ran and (s.superproject, s.submodule) in known} <= confirm
    assert any(s.remembered for s in fourth.steps)
    # other commands: nothing is reused
    start(p, p.c["add"], devices=[], run=p.run_cmd() + " # v2")
    third = bisect_run(p.path)
    assert not any(s.remembered for s in third.steps) and third.culprit.commit == p.c["bug"]
    # reset removes the memory with every other trace
    bisect_reset(p.path)
    assert not statefile.state_dir(p.sup.path).exists()


# ---- faults with three devices -----------------------------------------------------------------


def _launch_blocked(p: Project) -> subprocess.Popen[str]:
    """bisect-run with three devices, parked in round 2 until the test releases it."""
    e = p.env
    blocker = (
        f'if [ "$PERFKIT_STEP" -ge 4 ] && [ ! -e {e}/released ]; then sleep 30 & echo $! >> {e}/sleepers; wait; fi'
    )
    start(p, p.c["add"], run=f"{blocker}; {recorded_run(p, 0.0)}")
    proc = launch_run(p.path)
    deadline = time.monotonic() + slack(90)
    while len(p.lines("sleepers")) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "round 2 never started"
        time.sleep(0.05)
    time.sleep(0.2)
    return proc


def _without_worktrees(snap: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in snap.items() if k != "worktrees"}


PLAN = [("src", "")] * 14 + [("src", "BUG", "bug")] + [("src", "BUG")] * 12


@pytest.mark.slow
@pytest.mark.parametrize("then", ["resume", "reset"])
def test_kill_9_mid_round_then_resume_or_reset(tmp_path, then):
    p = build(tmp_path, [""] * 3, PLAN)
    before = snapshot(p.sup.path)
    proc = _launch_blocked(p)
    proc.kill()
    proc.wait()
    sleepers = [int(x) for x in p.lines("sleepers")]
    (p.env / "released").touch()
    assert _without_worktrees(snapshot(p.sup.path)) == _without_worktrees(before)
    st = bisect_status(p.path)
    assert "interrupted" in st.message and len(st.steps) == 3 and not st.done  # round 1 kept, round 2 lost
    assert all(alive(x) for x in sleepers)  # three commands of the dead process still run ...
    if then == "resume":
        out = perfkit("bisect-run", p.path, "--quiet", "--json")
        assert out.returncode == 0, out.stderr
        from perfkit.bisect.models import BisectStatus

        res = BisectStatus.model_validate_json(out.stdout)
        assert res.culprit.commit == p.c["bug"]
        assert all(s.verdict == p.expected(s.superproject, s.submodule) for s in res.steps if s.ran)
        assert len({s.n for s in res.steps}) == len(res.steps)
    else:
        out = perfkit("bisect-reset", p.path, "--json")
        assert out.returncode == 0, out.stderr
        assert "device worktrees" in out.stdout
        assert not statefile.state_dir(p.sup.path).exists()
    assert all_dead(sleepers)  # ... until the resume or reset stops them, found by their markers
    assert snapshot(p.sup.path) == before
    # the user's environment was never the workers': neither the resume nor the reset installs in the checkout
    assert (p.env / "super.path").read_text().strip() != p.path
    assert not list((p.sup.path / ".git").glob("worktrees/*"))  # git's records of the device worktrees too
    perfkit("bisect-reset", p.path)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT])  # SIGTERM takes the same path (session._signals_as_interrupt)
def test_sigint_sigterm_mid_round_stop_every_device(tmp_path, sig):
    p = build(tmp_path, [""] * 3, PLAN)
    before = snapshot(p.sup.path)
    proc = _launch_blocked(p)
    sleepers = [int(x) for x in p.lines("sleepers")]
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert all_dead(sleepers)
    assert snapshot(p.sup.path) == before
    st = bisect_status(p.path)
    # the interrupted points are dropped, not recorded as skips
    assert len(st.steps) == 3 and all(s.verdict != "skip" for s in st.steps) and st.worktree is None
    assert not (statefile.state_dir(p.sup.path) / "workers").exists()
    (p.env / "released").touch()
    out = perfkit("bisect-run", p.path, "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert snapshot(p.sup.path) == before
    perfkit("bisect-reset", p.path)


def _probe_wheel(tmp: Path) -> Path:
    """A pure-Python wheel written by hand, so installing it needs no build tools."""
    import zipfile

    wheel = tmp / "perfkit_probe_pkg-0-py3-none-any.whl"
    files = {
        "perfkit_probe_pkg/__init__.py": "WHERE = 'worker'\n",
        "perfkit_probe_pkg-0.dist-info/METADATA": "Metadata-Version: 2.1\nName: perfkit-probe-pkg\nVersion: 0\n",
        "perfkit_probe_pkg-0.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = "".join(f"{name},,\n" for name in files) + "perfkit_probe_pkg-0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in {**files, "perfkit_probe_pkg-0.dist-info/RECORD": record}.items():
            z.writestr(name, text)
    return wheel


@pytest.mark.slow
def test_worker_environments_are_virtual_environments_of_the_users_interpreter(tmp_path, monkeypatch):
    """A real `pip install` in each worker's environment: it lands there, and never in the user's."""
    plan = [("src", "")] * 4 + [("src", "BUG", "bug")] + [("src", "BUG")] * 3
    p = build(tmp_path, [""] * 2, plan)
    wheel = _probe_wheel(tmp_path)
    # the user's environment: a throwaway virtual environment first on the PATH
    user_env = tmp_path / "user-env"
    WorkerEnv(user_env, BisectSettings(run="-", python=sys.executable)).ensure()
    monkeypatch.setenv("PATH", f"{user_env / 'bin'}{os.pathsep}{os.environ['PATH']}")
    user_py = str(user_env / "bin" / "python")
    install = [
        f'python -c "import perfkit_probe_pkg" 2>/dev/null || pip install -q --no-deps --no-index {wheel} || exit 1',
        f'python -c "import perfkit_probe_pkg, sys; print(sys.prefix)" >> {p.env}/prefixes',
        *p.installs(),
    ]
    start(p, p.c["add"], devices=["0", "1"], install=install, python=user_py, run=recorded_run(p, 0.0))
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bug"], res.message
    prefixes = set(p.lines("prefixes"))
    sdir = statefile.state_dir(p.sup.path)
    assert len([x for x in prefixes if x.startswith(str(sdir / "workers"))]) == 2  # one per worker
    # nothing ran the install in the user's environment, not even at the end: it never held a worker's build
    assert prefixes - {x for x in prefixes if x.startswith(str(sdir))} == set()
    assert res.environment == "user"
    bisect_reset(p.path)


def test_user_environment_untouched(tmp_path):
    """The install commands never run in the user's checkout or environment: the worker environments hold
    every build, so the end has nothing to restore (and the status never says it points elsewhere)."""
    plan = [("src", "")] * 8 + [("src", "BUG", "bug")] + [("src", "BUG")] * 4
    p = build(tmp_path, [""] * 3, plan)
    install = [f'echo "$PWD ${{VIRTUAL_ENV:--}}" >> {p.env}/install-places', *p.installs()]
    start(p, p.c["add"], install=install)
    bisect_step(p.path)
    places = p.lines("install-places")
    assert places and all(p.path + " " not in x for x in places)
    assert all("/workers/" in x.split()[1] for x in places)
    assert bisect_status(p.path).environment == "user"
    res = bisect_run(p.path)
    assert res.done and all(not x.startswith(p.path + " ") for x in p.lines("install-places"))
    assert res.environment == "user" and "environment worktree" not in res.human()
    assert os.path.exists(p.path)
    bisect_reset(p.path)


@pytest.mark.fixture
@pytest.mark.slow
@pytest.mark.parametrize(
    "name,ahead",
    [
        ("bump", 0),
        pytest.param("mixed_submodule", 0, marks=pytest.mark.extended),
        pytest.param("bump", 12, marks=pytest.mark.extended),
    ],
)
def test_pypto_history_three_devices(pypto_history, tmp_path, name, ahead):
    """The real pypto and simpler histories with three fake devices: both culprits, rounds per level
    within ceil(log_4 N) + 1, each device given to one point per round, the user's checkout as before."""
    from test_bisect_pypto import PRELUDE, case, count

    repo = pypto_history
    good, bad, predicate, truth, want = case(name, repo)
    env = tmp_path / "env"
    env.mkdir()
    run = (
        f'echo "$PERFKIT_DEVICE {{device}}" >> {env}/devices; '
        + PRELUDE
        + f"if {predicate}; then echo 'max_abs_err=0.2 FAIL'; else echo 'max_abs_err=0.0 PASS'; fi"
    )
    before = snapshot(repo)
    bisect_start(
        str(repo), good, bad=bad, run=run, install=[f'echo "$PWD" > {env}/super.path'],
        install_submodule=[f'echo "$PWD" > {env}/sub.path'], devices=DEVICES, build_ahead=ahead,
    )  # fmt: skip
    try:
        res = bisect_run(str(repo))
        assert res.done and res.culprit.commit == want["commit"], res.message
        assert res.submodule_culprit.commit == want["sub"] and res.submodule_culprit.role == want["role"]
        for s in res.steps:
            assert s.verdict == ("bad" if truth(s.superproject, s.submodule) else "good"), s
        assert rounds_in(res, "level1") <= bound(count(repo, good, bad), 3)
        assert rounds_in(res, "level2") <= bound(count(repo / "runtime", *want["sub_range"]), 3)
        seen = [line.split() for line in (env / "devices").read_text().splitlines()]
        assert all(a == b for a, b in seen) and {a for a, _ in seen} == set(DEVICES)
        by_round: dict[int, list[str]] = {}
        for s in res.steps:
            by_round.setdefault(s.round or 0, []).append(s.device or "")
        assert all(len(ds) == len(set(ds)) for ds in by_round.values())
        assert (env / "super.path").read_text().strip() != str(repo)  # no install in the user's checkout
        assert snapshot(repo) == before
        if ahead:  # the real pointer history foresees rounds too: most points found their builds ready
            searched = [s for s in res.steps if s.phase in ("level1", "level2") and (s.round or 0) >= 3]
            assert res.builds_ahead and sum(s.prepared for s in searched) >= len(searched) // 2, [
                (s.round, s.phase, s.prepared) for s in res.steps
            ]
    finally:
        bisect_reset(str(repo))
    assert snapshot(repo) == before


def test_noise_with_three_devices(tmp_path):
    """Noise on and three devices: the noise model's pick leads each round, the other devices take the
    quantiles of its posterior (retests included), so every round gives every device a point; a seeded
    lying check (flips known by step) still gives the right culprit."""
    from test_noisy_bisect_engine import flaky_run, flipped, seed_with_flips

    plan = [("src", "")] * 18 + [("src", "BUG", "bug")] + [("src", "BUG")] * 8
    p = build(tmp_path, [""] * 3, plan)
    before = snapshot(p.sup.path)
    seed = seed_with_flips(0.1, must=[5], avoid=(1, 2))
    start(p, p.c["add"], run=flaky_run(p, seed, 0.1, p.run_cmd()), noise=True)
    res = bisect_run(p.path)
    assert res.done and res.culprit.commit == p.c["bug"], res.message
    for s in res.steps:
        if s.ran and s.verdict != "skip":
            truth = p.expected(s.superproject, s.submodule)
            assert (s.verdict == truth) != flipped(seed, s.n, 0.1), s
    per_round: dict[int, int] = {}
    for s in res.steps:
        per_round[s.round or 0] = per_round.get(s.round or 0, 0) + 1
    assert set(per_round.values()) == {len(DEVICES)}, per_round  # no device left idle, the ends' round included
    assert snapshot(p.sup.path) == before
    bisect_reset(p.path)
