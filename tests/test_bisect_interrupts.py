"""`perfkit bisect-run` killed or stopped in the middle: nothing of the user's is lost, and the bisect
resumes to the right answer or resets without a trace."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from helpers.load import slack
from helpers.procs import alive, all_dead, launch_run, perfkit
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_start, bisect_status

PLAN = [("src", "")] * 9 + [("src", "BUG", "bug")] + [("src", "BUG")] * 6


def blocker(p: Project) -> str:
    """Shell snippet that parks step 4 in a long sleep until the test releases it."""
    e = p.env
    return (
        f'if [ "$PERFKIT_STEP" = 4 ] && [ ! -e {e}/released ]; then echo $$ > {e}/blocked.pid; '
        f"sleep 30 & echo $! > {e}/sleeper.pid; wait; fi"
    )


def launch_and_block(p: Project, where: str) -> subprocess.Popen:
    installs = p.installs()
    run = p.run_cmd()
    if where == "run":
        run = f"{blocker(p)}; {run}"
    else:
        installs = [blocker(p), *installs]
    bisect_start(p.path, p.c["add"], run=run, install=installs, install_submodule=p.installs_sub())
    proc = launch_run(p.path)
    deadline = time.monotonic() + slack(60)
    while not (p.env / "sleeper.pid").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "step 4 never started"
        time.sleep(0.05)
    time.sleep(0.2)
    return proc


def wait_dead(pid: int) -> bool:
    return all_dead([pid])


def without_worktrees(snap: dict) -> dict:
    return {k: v for k, v in snap.items() if k != "worktrees"}


@pytest.mark.parametrize("where,then", [("run", "resume"), ("install", "reset")])
def test_kill_9_then_resume_or_reset(tmp_path, where, then):
    p = build(tmp_path, [""] * 3, PLAN)
    before = snapshot(p.sup.path)
    proc = launch_and_block(p, where)
    sleeper = int((p.env / "sleeper.pid").read_text())
    proc.kill()
    proc.wait()
    (p.env / "released").touch()
    # the user's checkout is untouched even with the bisect dead in the middle
    assert without_worktrees(snapshot(p.sup.path)) == without_worktrees(before)
    st = bisect_status(p.path)
    assert "interrupted" in st.message and len(st.steps) == 3 and not st.done
    assert alive(sleeper)  # the dead process's command group is still running ...
    if then == "resume":
        out = perfkit("bisect-run", p.path, "--quiet", "--json")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        assert res["done"] and res["culprit"]["commit"] == p.c["bug"]
        assert [s["n"] for s in res["steps"]] == list(range(1, len(res["steps"]) + 1))
        assert all(s["verdict"] == p.expected(s["superproject"], s["submodule"]) for s in res["steps"])
    else:
        out = perfkit("bisect-reset", p.path, "--json")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        assert res["restored"] is True and "worktree" in res["removed"]
        assert not statefile.state_dir(p.sup.path).exists()
        assert not bisect_status(p.path).active
    assert wait_dead(sleeper)  # ... until the resume or reset stops it
    assert snapshot(p.sup.path) == before
    assert (p.env / "super.path").read_text().strip() == p.path  # the environment points back at the user
    assert (p.env / "sub.path").read_text().strip() == f"{p.path}/runtime"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_sigterm_stop_cleanly(tmp_path, sig):
    p = build(tmp_path, [""] * 3, PLAN)
    before = snapshot(p.sup.path)
    proc = launch_and_block(p, "run")
    sleeper = int((p.env / "sleeper.pid").read_text())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err
    assert wait_dead(sleeper)
    # a clean stop: steps saved, worktree gone, environment back on the user's checkout
    assert snapshot(p.sup.path) == before
    assert (p.env / "super.path").read_text().strip() == p.path
    st = bisect_status(p.path)
    assert st.message.startswith("Bisect paused") and len(st.steps) == 3 and st.worktree is None
    (p.env / "released").touch()
    out = perfkit("bisect-run", p.path, "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["culprit"]["commit"] == p.c["bug"]
    assert snapshot(p.sup.path) == before
    perfkit("bisect-reset", p.path)


@pytest.mark.parametrize("then", ["resume", "reset"])
def test_a_child_that_escaped_its_group_behind_a_killed_perfkit_is_stopped_by_the_next_call(tmp_path, then):
    """The command's own group dies with its recorded id; a child in a session of its own does not.
    Only the sweep by marker (PERFKIT_BISECT_ID in its environment) finds it after kill -9."""
    p = build(tmp_path, [""] * 3, PLAN)
    e = p.env
    escape = (
        f'if [ "$PERFKIT_STEP" = 4 ] && [ ! -e {e}/released ]; then '
        f"setsid sleep 60 & echo $! > {e}/escaped.pid; sleep 30 & echo $! > {e}/sleeper.pid; wait; fi"
    )
    # every command also sweeps by marker when it ends: the check below looks before the first one starts
    # (a zombie waiting for a reaper answers kill -0, so the state letter in /proc decides)
    state = f'$(cut -d")" -f2 /proc/$(cat {e}/escaped.pid)/stat 2>/dev/null | cut -d" " -f2)'
    seen = f'if [ -e {e}/released ] && s={state} && [ -n "$s" ] && [ "$s" != Z ]; then echo alive >> {e}/seen; fi'
    bisect_start(p.path, p.c["add"], run=f"{seen}; {escape}; {p.run_cmd()}")  # no installs: reset runs nothing
    proc = launch_run(p.path)
    deadline = time.monotonic() + slack(60)
    while not (e / "sleeper.pid").exists() or not (e / "escaped.pid").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "step 4 never started"
        time.sleep(0.05)
    time.sleep(0.3)
    escaped = int((e / "escaped.pid").read_text())
    assert Path(f"/proc/{escaped}").exists()
    assert int(Path(f"/proc/{escaped}/stat").read_text().rsplit(")", 1)[1].split()[2]) == escaped  # own group
    proc.kill()
    proc.wait()
    (e / "released").touch()
    assert alive(escaped)  # perfkit is dead; the escaped child is not
    out = perfkit(*(["bisect-run", p.path, "--quiet"] if then == "resume" else ["bisect-reset", p.path]), "--json")
    assert out.returncode == 0, out.stderr
    assert wait_dead(escaped)
    assert not (e / "seen").exists()  # gone before the next call ran anything
    perfkit("bisect-reset", p.path)
