"""Builds made ahead: while the devices run a round, spare slots install the points the next round will test.

The install commands write the commit they installed into the slot's own environment, and the
run command refuses to give a verdict when the environment it runs in holds another commit's
build: a point handed to a slot whose build does not match it would show up as a skip. The
prediction itself is checked against every answer a round can give.
"""

from __future__ import annotations

import random
import signal
import subprocess
import time

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from helpers.load import slack
from helpers.procs import alive, all_dead, launch_run, perfkit
from perfkit.bisect.engine.rounds import answers, ksection, likely_next
from perfkit.bisect.search.bisection import Mark
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_step
from perfkit.errors import InputError

DEVICES = ["0", "1"]


def _after(n: int, marks: dict[int, Mark], picks: list[int], culprit: int) -> dict[int, Mark]:
    out = dict(marks)
    out.update({i: ("new" if i >= culprit else "old") for i in picks})
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_next_round_is_among_the_points_built_ahead_whatever_the_answer(seed):
    rng = random.Random(seed)
    n, d = rng.randint(2, 3000), rng.choice([1, 2, 3, 4, 8])
    marks: dict[int, Mark] = {}
    culprit = rng.randrange(n)
    for _ in range(rng.randint(0, 3)):  # a search some rounds in, with a skip now and then
        picks = ksection(n, marks, d)
        marks = _after(n, marks, picks, culprit)
        if picks and rng.random() < 0.3:
            marks[picks[0]] = "skip"
    picks = ksection(n, marks, d)
    ahead = likely_next(n, marks, picks, d, d * (d + 1))
    assert len(ahead) == len(set(ahead)) <= d * (d + 1)
    assert not set(ahead) & set(marks) and not set(ahead) & set(picks)
    for k in range(n):  # whatever the round answers, its next round was built ahead
        assert set(ksection(n, _after(n, marks, picks, k), d)) <= set(ahead), (n, d, k)
    # with less room, the largest answers come first, each whole
    small = likely_next(n, marks, picks, d, d)
    biggest = max(answers(n, marks, picks), key=lambda a: (a[1] - a[0], -a[0]))
    whole = ksection(n, {**marks, biggest[0]: "old", biggest[1]: "new"}, d)
    assert small == ahead[: len(small)] and set(whole[: len(small)]) <= set(small) | set(ahead)


def _verified(p: Project) -> tuple[list[str], list[str], str]:
    """Installs that leave what they built in the slot's environment, and a run command that gives no
    verdict when its environment holds another point's build. The superproject's build is its files
    with the submodule's path left out (docs/bisect.md, "Installs": a pointer-only bump and its parent
    share one build), the submodule's build its commit."""
    log = p.env / "installs.log"
    files = 'git -C "$PERFKIT_CHECKOUT" ls-tree -r HEAD | awk \'$4 != "runtime"\' | cksum'
    install = [
        f'sleep 0.3; {files} > "$VIRTUAL_ENV/super.files"; '
        f'echo "super $PERFKIT_COMMIT ${{PERFKIT_DEVICE:-ahead}}" >> {log}'
    ]
    install_sub = [
        f'sleep 0.3; echo "$PERFKIT_SUBMODULE_COMMIT" > "$VIRTUAL_ENV/sub.commit"; '
        f'echo "sub $PERFKIT_SUBMODULE_COMMIT ${{PERFKIT_DEVICE:-ahead}}" >> {log}'
    ]
    run = (
        f'if [ "$(cat "$VIRTUAL_ENV/super.files")" != "$({files})" ] || '
        '[ "$(cat "$VIRTUAL_ENV/sub.commit")" != "$PERFKIT_SUBMODULE_COMMIT" ]; then '
        f'echo "stale build $PERFKIT_COMMIT" >> {p.env}/stale; exit 3; fi; sleep 0.2; {p.run_cmd()}'
    )
    return install, install_sub, run


PLAN = [("src", "")] * 6 + [("ptr", 2)] + [("src", "")] * 30 + [("ptr", 14, "bump")] + [("src", "")] * 8


def test_build_ahead_two_devices_two_levels(tmp_path):
    p = build(tmp_path, [""] * 9 + ["BROKEN"] * 8, PLAN)
    before = snapshot(p.sup.path)
    install, install_sub, run = _verified(p)
    bisect_start(
        p.path, p.c["add"], run=run, install=install, install_submodule=install_sub, devices=DEVICES, build_ahead=6
    )
    res = bisect_run(p.path)
    assert res.outcome == "found" and res.culprit.commit == p.c["bump"], res.message
    assert res.submodule_culprit.commit == p.r[9]
    assert not (p.env / "stale").exists()  # no point ever ran on another point's build
    assert all(s.verdict == p.expected(s.superproject, s.submodule) for s in res.steps)
    ahead = [line for line in p.lines("installs.log") if line.endswith(" ahead")]
    assert ahead and res.builds_ahead >= 4
    # from the second round on every point had been built ahead (round 1 holds the ends only, and
    # level 1's opening was built beside them), level 2's first round included
    later = [s for s in res.steps if (s.round or 0) >= 2 and s.phase in ("level1", "level2")]
    assert later and all(s.prepared and s.installed == [] for s in later), [
        (s.round, s.phase, s.prepared, s.installed) for s in later
    ]
    assert any(s.phase == "level2" for s in later)
    used = sum(s.prepared for s in res.steps)
    assert f"builds ahead: {res.builds_ahead} points prepared, {used} of them tested on their build" in res.human()
    # the installs made ahead are counted as installs, those never used as wasted, not as saved
    assert res.installs_ahead >= res.installs_ahead_used > 0
    assert f"{res.installs_ahead - res.installs_ahead_used} made ahead and not used" in res.human()
    assert snapshot(p.sup.path) == before
    sdir = statefile.state_dir(p.sup.path)
    assert not (sdir / "workers").exists()
    bisect_reset(p.path)


def test_one_round_per_call_builds_nothing_ahead(tmp_path):
    p = build(tmp_path, [""] * 3, [("src", "")] * 12 + [("src", "BUG", "bug")] + [("src", "BUG")] * 5)
    install, install_sub, run = _verified(p)
    bisect_start(
        p.path, p.c["add"], run=run, install=install, install_submodule=install_sub, devices=DEVICES, build_ahead=6,
        verify_ends=False,
    )  # fmt: skip
    one = bisect_step(p.path)
    assert one.status.builds_ahead == 0  # nothing would be left to use it once the call returns
    assert not [line for line in p.lines("installs.log") if line.endswith(" ahead")]
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bug"] and res.builds_ahead > 0
    assert not (p.env / "stale").exists()
    bisect_reset(p.path)


@pytest.mark.parametrize(
    "extra,problem",
    [
        ({"devices": []}, "needs devices"),
        ({"worker_env": "none"}, "venv"),
        ({"install": ["pip install -e . --device {device}"]}, "{device}"),
        ({"build_ahead": -1}, "greater than or equal to 0"),
        ({"build_ahead": 257}, "less than or equal to 256"),
        ({"build_ahead": 2.5}, "valid integer"),
    ],
)
def test_build_ahead_that_cannot_work_is_refused(tmp_path, extra, problem):
    p = build(tmp_path, [""] * 2, [("src", ""), ("src", "BUG")])
    kw = {"run": p.run_cmd(), "devices": DEVICES, "build_ahead": 4, **extra}
    with pytest.raises(InputError) as err:
        bisect_start(p.path, p.c["add"], **kw)
    assert err.value.field == "build_ahead" and problem in str(err.value)
    assert not statefile.state_file(statefile.state_dir(p.sup.path)).exists()


def _launch_parked_ahead(p: Project) -> tuple[subprocess.Popen[str], list[int]]:
    """bisect-run with builds ahead, parked while a build made ahead is installing."""
    e = p.env
    park = f'if [ -z "$PERFKIT_DEVICE" ] && [ ! -e {e}/released ]; then sleep 30 & echo $! >> {e}/sleepers; wait; fi'
    install, install_sub, run = _verified(p)
    bisect_start(
        p.path, p.c["add"], run=run, install=[f"{park}; {install[0]}"], install_submodule=install_sub,
        devices=DEVICES, build_ahead=4, verify_ends=False,
    )  # fmt: skip
    proc = launch_run(p.path)
    deadline = time.monotonic() + slack(90)
    while len(p.lines("sleepers")) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no build ahead started"
        time.sleep(0.05)
    time.sleep(0.2)
    return proc, [int(x) for x in p.lines("sleepers")]


SEARCH = [("src", "")] * 20 + [("src", "BUG", "bug")] + [("src", "BUG")] * 12


@pytest.mark.slow
def test_kill_9_while_building_ahead_then_resume(tmp_path):
    p = build(tmp_path, [""] * 3, SEARCH)
    before = snapshot(p.sup.path)
    proc, sleepers = _launch_parked_ahead(p)
    proc.kill()
    proc.wait()
    assert all(alive(x) for x in sleepers)  # the dead process's builds made ahead still run ...
    (p.env / "released").touch()
    out = perfkit("bisect-run", p.path, "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert all_dead(sleepers)  # ... until the resume stops them, found by their markers
    from perfkit.bisect.models import BisectStatus

    res = BisectStatus.model_validate_json(out.stdout)
    assert res.culprit.commit == p.c["bug"]
    assert not (p.env / "stale").exists()  # a build cut off by the kill was never trusted
    assert snapshot(p.sup.path) == before
    assert not list((p.sup.path / ".git").glob("worktrees/*"))
    perfkit("bisect-reset", p.path)


@pytest.mark.slow
def test_sigint_while_building_ahead_stops_every_build(tmp_path):
    p = build(tmp_path, [""] * 3, SEARCH)
    before = snapshot(p.sup.path)
    proc, sleepers = _launch_parked_ahead(p)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert all_dead(sleepers)
    assert snapshot(p.sup.path) == before
    assert not (statefile.state_dir(p.sup.path) / "workers").exists()
    (p.env / "released").touch()
    out = perfkit("bisect-run", p.path, "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert not (p.env / "stale").exists()
    perfkit("bisect-reset", p.path)
