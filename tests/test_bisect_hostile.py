"""A bisect pointed at a hostile repository or given hostile settings runs nothing it should not,
reads nothing outside the repository, and ends every step by its deadline.

Each case goes through MCP (the real client against the real server) and the CLI where both can
carry it: a run folder that leads out of the checkout, a .gitmodules name that leads out of the
git folder, a fail pattern that backtracks for hours, NUL bytes in commands, and the lock taken
by two processes at the same instant or seen before its owner is written.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from helpers.bisect_project import Project, build, covers, steps_noted
from helpers.cli_audit import cli_field
from helpers.gitbuild import Repo
from helpers.load import slack
from helpers.procs import perfkit
from perfkit.bisect.command.runner import owned_by
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status, bisect_step
from perfkit.errors import InputError

PLAN = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2


def mcp_call(name: str, args: dict[str, object]) -> tuple[bool, str, dict[str, object] | None]:
    """(is_error, first text, structured result) of one call through the real MCP client and server."""
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    async def go() -> tuple[bool, str, dict[str, object] | None]:
        async with Client(build_server(), mode="legacy") as c:
            r = await c.call_tool(name, args)
            return r.is_error, r.content[0].text if r.content else "", r.structured_content

    return anyio.run(go)


def checkout_state(p: Project) -> tuple[str, str, str]:
    """HEAD, status and config of the user's checkout (snapshot() cannot list a hostile .gitmodules)."""
    config = (p.sup.path / ".git" / "config").read_text()
    return p.sup.git("rev-parse", "HEAD"), p.sup.git("status", "--porcelain", "--ignore-submodules=none"), config


def assert_refused(p: Project, field: str, mcp_args: dict[str, object], cli_args: list[str] | None) -> None:
    """Refused over MCP and on the CLI with the field named, and nothing written."""
    before = checkout_state(p)
    err, text, _ = mcp_call("bisect_start", {"repo": p.path, "good": p.c["add"], **mcp_args})
    assert err and re.search(rf"(^|: ){field}: ", text), text  # the field leads the message
    if cli_args is not None:
        proc = perfkit("bisect-start", p.path, p.c["add"], *cli_args)
        assert proc.returncode == 2, proc.stderr
        spelled = cli_field(field, "bisect_start")  # --flag or NAME: the command line's own words
        assert proc.stderr.startswith(f"perfkit: error: {spelled}: ") and len(proc.stderr.splitlines()) == 1
    assert not statefile.state_dir(p.sup.path).exists()
    assert checkout_state(p) == before


def leftovers(bisect_id: str) -> list[int]:
    import psutil

    return [pid for pid in psutil.pids() if owned_by(pid, f"PERFKIT_BISECT_ID={bisect_id}")]


# ---- run_cwd -------------------------------------------------------------------------------------


@pytest.mark.parametrize("cwd", ["../../../..", "..", "src/../../x", "./../user-checkout"])
def test_a_relative_run_cwd_that_leaves_the_checkout_is_refused(tmp_path, cwd):
    p = build(tmp_path, [""] * 2, PLAN)
    assert_refused(p, "run_cwd", {"run": p.run_cmd(), "run_cwd": cwd}, ["--run", p.run_cmd(), "--run-cwd", cwd])


def test_run_cwd_from_the_settings_file_is_held_to_the_same_rule(tmp_path):
    p = build(tmp_path, [""] * 2, PLAN)
    p.sup.write("perfkit.toml", f'[bisect]\nrun = "{p.run_cmd()}"\nrun_cwd = "../sibling"\n')
    assert_refused(p, "run_cwd", {}, [])


def test_an_absolute_run_cwd_is_reported_and_used(tmp_path):
    p = build(tmp_path, [""] * 2, PLAN)
    elsewhere = tmp_path / "library"
    elsewhere.mkdir()
    run = f"pwd >> {p.env}/cwd.log; {p.run_cmd()}"
    res = bisect_start(p.path, p.c["add"], run=run, run_cwd=str(elsewhere), install=p.installs())
    assert any("absolute path" in n and str(elsewhere) in n for n in res.notes), res.notes
    assert "absolute path" in res.human()
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"]
    assert set(p.lines("cwd.log")) == {str(elsewhere)}
    bisect_reset(p.path)


def test_a_relative_run_cwd_inside_the_checkout_runs_there(tmp_path):
    p = build(tmp_path, [""] * 2, PLAN)
    run = f"pwd >> {p.env}/cwd.log; {p.run_cmd()}"
    res = bisect_start(p.path, p.c["add"], run=run, run_cwd="./src/", install=p.installs())
    assert res.settings.run_cwd == "src"
    bisect_run(p.path)
    dirs = set(p.lines("cwd.log"))
    assert len(dirs) == 1 and dirs.pop().endswith("/worktree/pypto/src")
    bisect_reset(p.path)


def test_a_committed_link_cannot_carry_the_run_out_of_the_checkout(tmp_path):
    """run_cwd names a folder inside, but the repository commits that name as a link to outside."""
    repo = Repo(tmp_path / "linked")
    os.symlink("../../../..", repo.path / "out")
    good = repo.commit("c0", {"check.sh": "echo PASS\n"})
    repo.commit("c1", {"check.sh": "echo FAIL\n"})
    marker = tmp_path / "ran"
    res = bisect_start(str(repo.path), good, run=f"touch {marker}; bash check.sh", run_cwd="out")
    assert res.settings.run_cwd == "out"
    out = bisect_run(str(repo.path))
    assert out.outcome == "good_end_not_good" and "leads out of the checkout" in out.steps[0].reason
    assert not marker.exists() and not out.steps[0].ran
    bisect_reset(str(repo.path))


# ---- .gitmodules ---------------------------------------------------------------------------------


def _with_gitmodules(p: Project, name: str) -> None:
    """Rewrite .gitmodules at every later commit: the submodule keeps its path, its name leaves the repo."""
    text = f'[submodule "{name}"]\n\tpath = runtime\n\turl = {p.runtime.path}\n'
    stash = p.sup.git("stash", "list")
    assert "wip" in stash
    p.sup.git("stash", "push", "-q", "--include-untracked", "-m", "test-own")
    p.sup.commit("chore: rename the submodule", {".gitmodules": text})
    p.sup.git("stash", "pop", "-q")


@pytest.mark.parametrize("name", ["../../../outside", "../modules-escape", "a/../../b"])
def test_a_gitmodules_name_that_leaves_the_repository_is_refused(tmp_path, name):
    p = build(tmp_path, [""] * 2, PLAN)
    _with_gitmodules(p, name)
    # a git folder planted where the name points: it must never be cloned from
    common = Path(p.sup.git("rev-parse", "--path-format=absolute", "--git-common-dir"))
    planted = (common / "modules" / name).resolve()
    planted.mkdir(parents=True, exist_ok=True)
    assert_refused(p, "submodule", {"run": p.run_cmd()}, ["--run", p.run_cmd()])
    # '' still bisects the superproject alone
    res = bisect_start(p.path, p.c["add"], run=p.run_cmd(), submodule="")
    assert res.submodule is None
    bisect_reset(p.path)


# ---- a pattern that backtracks ------------------------------------------------------------------


def test_a_catastrophic_fail_pattern_cannot_keep_a_step_past_its_timeout(tmp_path):
    """`(a+)+$` is searched in perfkit's process by RE2 (linear), so even a long line of a's gives the
    verdict at once; the same pattern with `$` outside multi-line mode has no exact RE2 form, goes to
    Python's engine in a child process, and that child is stopped at the step's deadline."""
    p = build(tmp_path, [""] * 2, PLAN)
    run = "python3 -c \"print('a' * 100000 + 'b')\"; echo PASS"
    bisect_start(p.path, p.c["add"], run=run, fail_pattern="(a+)+$", timeout_s=3)
    t0 = time.monotonic()
    res = bisect_step(p.path)
    assert time.monotonic() - t0 < 3 + slack(8)
    assert res.step.verdict == "good" and "PASS" in res.step.reason, res.step.reason
    bisect_reset(p.path)
    for pattern in ("(?-m:(a+)+$)", "(a+)+(?=b)c"):  # no exact RE2 form: the child, stopped at the deadline
        bisect_start(p.path, p.c["add"], run=run, fail_pattern=pattern, timeout_s=3)
        bid = statefile.load(statefile.state_dir(p.sup.path)).id
        t0 = time.monotonic()
        res = bisect_step(p.path)
        took = time.monotonic() - t0
        assert took < 3 + slack(8), took  # the deadline, a grace for the search, the restore
        assert res.step.verdict == "skip" and "did not finish" in res.step.reason, res.step.reason
        assert "fail_pattern" in res.step.reason
        assert leftovers(bid) == []  # the search child is gone with the step
        bisect_reset(p.path)
    # the CLI answers the same within the same bound
    fallback = "(?-m:(a+)+$)"
    proc = perfkit("bisect-start", p.path, p.c["add"], "--run", run, "--fail-pattern", fallback, "--timeout-s", "3")
    assert proc.returncode == 0, proc.stderr
    t0 = time.monotonic()
    proc = perfkit("bisect-step", p.path, "--json")
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - t0 < 3 + slack(12)
    step = json.loads(proc.stdout)["step"]
    assert step["verdict"] == "skip" and "did not finish" in step["reason"]
    bisect_reset(p.path)


def test_a_pattern_that_is_fast_still_sees_every_byte(tmp_path):
    """The search in its own process changes nothing for ordinary patterns: the verdict after 20 MB."""
    p = build(tmp_path, [""] * 2, PLAN)
    run = f"head -c 20000000 /dev/zero | tr '\\0' 'x' | fold -w 100; echo; {p.run_cmd()}"
    bisect_start(p.path, p.c["add"], run=run, metric_pattern=r"max_abs_err=(\S+)")
    res = bisect_run(p.path)
    assert res.culprit is not None and res.culprit.commit == p.c["bug"]
    assert all(s.metric in (0.25, 0.001) for s in res.steps)
    bisect_reset(p.path)


# ---- NUL bytes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field,args",
    [
        ("run", {"run": "echo PASS\x00; rm -rf /tmp/x"}),
        ("install", {"run": "echo PASS", "install": ["pip install -e .", "make\x00"]}),
        ("install_submodule", {"run": "echo PASS", "install_submodule": ["\x00"]}),
        ("run_cwd", {"run": "echo PASS", "run_cwd": "src\x00"}),
        ("fail_pattern", {"run": "echo PASS", "fail_pattern": "FAIL\x00"}),
    ],
)
def test_a_nul_byte_in_a_command_is_refused_at_start(tmp_path, field, args):
    p = build(tmp_path, [""] * 2, PLAN)
    assert_refused(p, field, args, None)
    with pytest.raises(InputError) as exc:
        bisect_start(p.path, p.c["add"], **args)
    assert exc.value.field == field


def test_a_nul_byte_from_the_settings_file_is_refused_on_the_cli(tmp_path):
    p = build(tmp_path, [""] * 2, PLAN)
    p.sup.write("perfkit.toml", '[bisect]\nrun = "echo PASS\\u0000"\n')
    assert_refused(p, "run", {}, [])


# ---- the lock ------------------------------------------------------------------------------------

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_a_lock_created_but_not_yet_written_is_not_taken_as_stale(tmp_path):
    p = build(tmp_path, [""] * 2, PLAN)
    bisect_start(p.path, p.c["add"], run=p.run_cmd())
    sdir = statefile.state_dir(p.sup.path)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(sdir / "lock"), "30"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert (sdir / "lock").read_text() == ""  # its owner is not written yet
        with pytest.raises(InputError) as exc:
            bisect_step(p.path)
        assert exc.value.field == "repo" and "another perfkit call" in str(exc.value)
        proc = perfkit("bisect-run", p.path, "--quiet")
        assert proc.returncode == 2 and "another perfkit call" in proc.stderr
        err, text, _ = mcp_call("bisect_run", {"repo": p.path})
        assert err and "another perfkit call" in text
        assert bisect_status(p.path).steps == []  # nothing ran under someone else's lock
    finally:
        holder.kill()
        holder.wait()
    assert bisect_step(p.path).step is not None  # the holder is gone: the lock is free again
    bisect_reset(p.path)


RACE = """
import os, sys, time
from pathlib import Path
from perfkit.bisect.state.lock import locked
from perfkit.errors import InputError
sdir, inside = Path(sys.argv[1]), Path(sys.argv[2])
while time.time() < float(sys.argv[3]):
    time.sleep(0.001)
try:
    with locked(sdir):
        fd = os.open(inside, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # fails if another is inside too
        time.sleep(0.3)
        os.close(fd)
        os.unlink(inside)
    print("took")
except InputError:
    print("refused")
"""


def test_two_processes_never_both_take_a_stale_lock(tmp_path):
    sdir = tmp_path / "perfkit-bisect"
    sdir.mkdir()
    for round_ in range(3):
        (sdir / "lock").write_text(json.dumps({"pid": 999999999, "host": os.uname().nodename, "start": "1"}))
        at = time.time() + 1.0
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", RACE, str(sdir), str(tmp_path / "inside"), str(at)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(5)
        ]
        outs = [pr.communicate(timeout=60) for pr in procs]
        assert all(pr.returncode == 0 for pr in procs), [e for _, e in outs]
        answers = [o.strip() for o, _ in outs]
        assert answers.count("took") >= 1 and set(answers) <= {"took", "refused"}, (round_, answers)
        assert not (sdir / "lock").exists()


# ---- a command that writes into the user's checkout ---------------------------------------------


def test_a_run_that_writes_into_the_users_checkout_is_reported(tmp_path):
    """Not prevented (the command is the user's, and it may use absolute paths), but reported once, naming
    what changed and the steps it happened in: the step itself, or the steps since the last full look at
    the checkout when the cheap probe let them go (a file written leaves HEAD, refs and index alone)."""
    p = build(tmp_path, [""] * 2, PLAN)
    run = f'if [ "$PERFKIT_STEP" = 3 ]; then touch {p.path}/build-artifact.o; fi; {p.run_cmd()}'
    bisect_start(p.path, p.c["add"], run=run, install=p.installs())
    res = bisect_run(p.path)
    assert res.culprit is not None and res.culprit.commit == p.c["bug"]
    notes = [n for n in res.notes if "your checkout changed" in n]
    assert len(notes) == 1 and covers(notes[0], 3) and "build-artifact.o" in notes[0], res.notes
    noted = steps_noted(notes[0])
    assert noted is not None and noted[1] == len(res.steps)  # compared on leaving, up to the last step
    (p.sup.path / "build-artifact.o").unlink()
    bisect_reset(p.path)
