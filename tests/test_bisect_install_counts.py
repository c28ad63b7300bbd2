"""The numbers a user reads: every install command that ran is counted, and said where it went.

The install commands log themselves (their step, folder and commit) to a file the test reads, so
the counts perfkit reports are checked against what actually ran: at test time (PERFKIT_STEP set),
made ahead (no step, in a worker slot), or restoring the user's checkout (no step, in the checkout).
"""

from __future__ import annotations

import pytest
from helpers.bisect_project import Project, build
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status

pytestmark = pytest.mark.slow


def logged_installs(p: Project) -> tuple[list[str], list[str]]:
    log = f"{p.env}/install-log"
    mark = f'echo "x ${{PERFKIT_STEP:--}} $PWD" >> {log}'
    return [mark, f"{mark}; {p.installs()[0]}"], [mark, f"{mark}; {p.installs_sub()[0]}"]


def split(p: Project) -> tuple[int, int, int]:
    """(at test time, ahead, restoring) install commands, from the commands' own log (a line each)."""
    rows = [line.split(" ", 2) for line in p.lines("install-log")]
    test = sum(1 for _, step, _ in rows if step != "-")
    users = (p.path, f"{p.path}/runtime")  # the user's checkout and its submodule
    restore = sum(1 for _, step, where in rows if step == "-" and where in users)
    ahead = sum(1 for _, step, where in rows if step == "-" and where not in users)
    return test, ahead, restore


def history(tmp_path):  # type: ignore[no-untyped-def]
    kernel = [""] * 9 + ["BROKEN"] * 8
    plan: list[tuple] = []
    for ptr in (1, 2, 3, 4, 5, 6, 7):
        plan += [("ptr", ptr)] + [("src", "")] * 3
    plan += [("ptr", 15, "bump")] + [("src", "")] * 4
    return build(tmp_path, kernel, plan)


@pytest.mark.parametrize("devices,ahead", [([], 0), (["0", "1"], 0), (["0", "1"], 6)])
def test_every_install_command_is_counted_where_it_went(tmp_path, devices, ahead):
    p = history(tmp_path)
    install, install_sub = logged_installs(p)
    bisect_start(
        p.path, p.c["add"], run=p.run_cmd(), install=install, install_submodule=install_sub,
        devices=devices, build_ahead=ahead,
    )  # fmt: skip
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bump"], res.message
    test, made_ahead, restore = split(p)
    assert res.installs == test
    # a build ahead that the bisect's end stops can be killed after its command started and before
    # the command wrote its line: perfkit counts it (it started), the log cannot; one per device at most
    assert made_ahead <= res.installs_ahead <= made_ahead + len(devices)
    made_ahead = res.installs_ahead
    assert res.installs_restore == restore
    assert restore == (4 if not devices else 0)  # worker environments leave the user's untouched
    if ahead:
        assert made_ahead > 0 and 0 < res.installs_ahead_used <= made_ahead
        prepared = [s for s in res.steps if s.prepared]
        assert prepared and all(not s.installed for s in prepared)
    else:
        assert made_ahead == 0 and res.installs_ahead_used == 0
    line = res.install_line()
    total = test + made_ahead + restore
    assert f"install commands run {total}:" in line, line
    assert f"{res.installs + res.installs_ahead_used} for the points tested" in line
    if ahead:
        assert f"{made_ahead - res.installs_ahead_used} made ahead and not used" in line
    human = res.human()
    if devices:  # each step says its device and round
        assert all(f"[device {s.device}, round {s.round}" in human for s in res.steps if s.ran)
    bisect_reset(p.path)


def test_build_ahead_below_the_device_count_is_said_at_start(tmp_path):
    p = history(tmp_path)
    install, install_sub = logged_installs(p)
    started = bisect_start(
        p.path, p.c["add"], run=p.run_cmd(), install=install, install_submodule=install_sub,
        devices=["0", "1", "2"], build_ahead=2,
    )  # fmt: skip
    assert any("build_ahead 2 is below the 3 devices" in n for n in started.notes), started.notes
    bisect_reset(p.path)
    started = bisect_start(p.path, p.c["add"], run=p.run_cmd(), devices=["0", "1"], build_ahead=2)
    assert any("nothing to build ahead" in n for n in started.notes), started.notes
    assert bisect_status(p.path).devices_now == {}
    bisect_reset(p.path)
