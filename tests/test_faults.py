"""Faults injected into a running bisect: perfkit loses none of the user's work and leaves nothing behind.

tests/test_bisect_interrupts.py stops `perfkit bisect-run` at one fixed point; here the stops come at
points a seed picks (an install, the submodule install, a run, perfkit's own work between steps,
the final restore), with SIGKILL, SIGTERM or SIGINT, one or more times in a row, on a history with
both levels, and the same for `perfkit serve` killed under an MCP client. Then: run commands that
leave daemons, flood gigabytes, delete their working directory or ignore SIGTERM; a full disk and a
read-only state folder; two bisects of one repository at once; the repository moved or deleted
while the bisect runs.

After every fault the user's checkout (HEAD, index, working tree, untracked files, stash, submodule
HEAD and working tree, .git/config) compares equal to before (tests/helpers/gitbuild.py snapshot()),
the state file still parses, bisect_status explains, and the bisect either resumes to the right
culprit at both levels (every verdict checked against the check's own truth) or resets without a
trace, with the environment pointing back at the user's checkout and no command left running.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from helpers.load import slack
from helpers.procs import perfkit
from perfkit.bisect.command.runner import owned_by
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status

# level 1 finds the pointer bump, level 2 the first BROKEN runtime commit inside it
KERNEL = ["", "", "", "BROKEN", "BROKEN", "BROKEN", "BROKEN"]
PLAN = [("src", "")] * 5 + [("ptr", 6, "bump")] + [("src", "")] * 4
PAUSE = 0.05  # every command lasts a little, so a stop can land inside it


def without_worktrees(snap: dict) -> dict:
    return {k: v for k, v in snap.items() if k != "worktrees"}


def leftovers(bisect_id: str) -> list[int]:
    """Processes still carrying this bisect's marker (commands nobody stopped)."""
    marker = f"PERFKIT_BISECT_ID={bisect_id}"
    return [pid for pid in psutil.pids() if owned_by(pid, marker)]


def wait_gone(bisect_id: str, seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := leftovers(bisect_id)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@dataclass
class Bench:
    """A project whose install and run commands note when they start and end."""

    p: Project
    before: dict
    events: Path
    bisect_id: str = ""
    log: list[str] = field(default_factory=list)
    mark: int = 0

    def wrap(self, tag: str, cmd: str, pause: float = PAUSE, hold: str | None = None) -> str:
        """cmd, noted in the events file; hold='<tag> <step>' parks that one command until released."""
        ev = self.events
        park = ""
        if hold and hold.split()[0] == tag:  # '<tag> 4' parks step 4's command, '<tag> 9+' the first from step 9 on
            step = hold.split()[1]
            first = step.endswith("+")  # only the first command from that step on parks
            test = f"-ge {step[:-1]}" if first else f"-eq {step}"
            once = f"touch {ev}.released; " if first else ""
            park = (
                f'if [ "${{PERFKIT_STEP:-0}}" {test} ] 2>/dev/null && [ ! -e {ev}.released ]; then '
                f'{once}echo "{tag} {step} parked" >> {ev}; sleep 30; fi; '
            )
        return (
            f'echo "{tag} ${{PERFKIT_STEP:--}} start" >> {ev}; {park}sleep {pause}; {cmd}; rc=$?; '
            f'echo "{tag} ${{PERFKIT_STEP:--}} end" >> {ev}; exit $rc'
        )

    def release(self) -> None:
        Path(f"{self.events}.released").touch()

    def start(self, pause: float = PAUSE, hold: str | None = None, **kw) -> None:
        p = self.p
        res = bisect_start(
            p.path,
            p.c["add"],
            run=self.wrap("run", p.run_cmd(), pause, hold),
            install=[self.wrap("install", p.installs()[0], pause, hold)],
            install_submodule=[self.wrap("subinstall", p.installs_sub()[0], pause, hold)],
            metric_pattern=r"max_abs_err=(\S+)",
            **kw,
        )
        self.bisect_id = statefile.load(Path(res.state_dir)).id

    def lines(self) -> list[str]:
        return self.events.read_text().splitlines() if self.events.exists() else []

    def seen(self, line: str, since: int = 0) -> bool:
        return line in self.lines()[since:]

    def launch(self) -> subprocess.Popen:
        self.mark = len(self.lines())  # wait_for looks only at what this process's commands write
        return subprocess.Popen(
            [sys.executable, "-m", "perfkit.cli", "bisect-run", self.p.path, "--quiet", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

    def wait_for(self, line: str, proc: subprocess.Popen, seconds: float = 60) -> bool:
        """True when line appeared while proc still runs; False when proc ended first."""
        deadline = time.monotonic() + seconds
        while not self.seen(line, self.mark):
            if proc.poll() is not None:
                return False
            assert time.monotonic() < deadline, f"never saw {line!r}"
            time.sleep(0.01)
        return True

    def assert_checkout_untouched(self, worktree_may_exist: bool = True) -> None:
        now = snapshot(self.p.sup.path)
        if worktree_may_exist:
            assert without_worktrees(now) == without_worktrees(self.before)
        else:
            assert now == self.before

    def assert_environment_restored(self) -> None:
        env = self.p.env
        assert (env / "super.path").read_text().strip() == self.p.path
        assert (env / "sub.path").read_text().strip() == f"{self.p.path}/runtime"

    def assert_right_answer(self, res: dict) -> None:
        p = self.p
        assert res["done"] and res["culprit"]["commit"] == p.c["bump"], res["message"]
        assert res["submodule_culprit"]["commit"] == p.r[3], res["message"]
        assert [s["n"] for s in res["steps"]] == list(range(1, len(res["steps"]) + 1))
        for s in res["steps"]:
            if s["ran"]:
                assert s["verdict"] == p.expected(s["superproject"], s["submodule"]), s

    def assert_finished_cleanly(self) -> None:
        assert wait_gone(self.bisect_id) == []
        self.assert_checkout_untouched(worktree_may_exist=False)
        self.assert_environment_restored()


@pytest.fixture
def bench(tmp_path) -> Bench:
    p = build(tmp_path, KERNEL, PLAN)
    return Bench(p, snapshot(p.sup.path), p.env / "events")


# ---- 1. stops at random points ----------------------------------------------------------------------

TARGETS = ["install", "subinstall", "run", "between", "restore"]


def _target(rng: random.Random, first: str | None) -> tuple[str, str]:
    """(what, event line to wait for): the seed's first stop cycles through every kind of point."""
    what = first or rng.choice(TARGETS)
    if what == "restore":
        return what, "install - start"
    if what == "subinstall":
        return what, f"subinstall {rng.choice([1, 1, 8, 11])} start"
    if what == "between":
        return what, f"run {rng.randint(1, 7)} end"
    return what, f"{what} {rng.randint(1, 6)} start"


@pytest.mark.slow
@pytest.mark.parametrize(
    "seed",
    # seeds 0 to 4 make each kind of stop point the first stop once; more seeds are extended
    [
        pytest.param(s, marks=[pytest.mark.extended] if s >= 5 else [])
        for s in range(int(os.environ.get("PERFKIT_FAULT_SEEDS", "10")))
    ],
)
def test_stopped_at_random_points_then_resumed_or_reset(bench, seed):
    rng = random.Random(seed)
    b = bench
    b.start()
    stops = rng.randint(1, 3)
    for i in range(stops):
        what, line = _target(rng, TARGETS[seed % len(TARGETS)] if i == 0 else None)
        sig = rng.choice([signal.SIGKILL] * 4 + [signal.SIGTERM, signal.SIGINT])
        proc = b.launch()
        reached = b.wait_for(line, proc)
        if reached:
            time.sleep(rng.uniform(0, PAUSE * 1.5 if what != "between" else 0.1))
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        b.log.append(f"stop {i}: {what} at {line!r} by {signal.Signals(sig).name}: exit {proc.returncode}")
        assert "Traceback" not in err, err
        if not reached or proc.returncode == 0:  # it finished first: nothing to interrupt
            continue
        # the user's checkout is untouched with the bisect stopped anywhere
        b.assert_checkout_untouched()
        st = statefile.load(statefile.state_dir(b.p.sup.path))  # the state file is whole
        status = bisect_status(b.p.path)
        if sig == signal.SIGKILL:
            assert proc.returncode == -signal.SIGKILL
            if status.done:
                assert status.culprit is not None
                if not st.finalized:
                    assert "stopped before cleaning up" in status.message, status.message
            else:
                assert "interrupted" in status.message, (b.log, status.message)
        else:  # a clean stop: saved, environment back, worktree gone
            assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, err)
            assert status.worktree is None and status.environment == "user", b.log
            assert status.done or status.message.startswith("Bisect paused"), status.message
            assert wait_gone(b.bisect_id) == []
            b.assert_checkout_untouched(worktree_may_exist=False)
            b.assert_environment_restored()
    if rng.random() < 0.6:
        out = perfkit("bisect-run", b.p.path, "--quiet", "--json")
        assert out.returncode == 0, (b.log, out.stderr)
        b.assert_right_answer(json.loads(out.stdout))
    else:
        out = perfkit("bisect-reset", b.p.path, "--json")
        assert out.returncode == 0, (b.log, out.stderr)
        assert not statefile.state_dir(b.p.sup.path).exists()
        assert not bisect_status(b.p.path).active
    b.assert_finished_cleanly()


# ---- 2. the MCP server killed under its client ------------------------------------------------------


class RawServer:
    """`perfkit serve` spoken to over stdio, so the test holds the server's pid to kill it."""

    def __init__(self, cwd: Path):
        self.stderr = open(cwd / "serve.err", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "perfkit.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            bufsize=1,
        )
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "fault-test", "version": "0"},
                },
            }
        )
        reply = json.loads(self.proc.stdout.readline())
        assert reply.get("id") == 1 and "result" in reply, reply
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def call(self, name: str, arguments: dict, id_: int = 2) -> None:
        self.send(
            {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        )

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.stderr.close()


def _mcp(name: str, args: dict) -> dict:
    import anyio
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            r = await c.call_tool(name, args)
            assert not r.is_error, r.content[0].text
            return r.structured_content

    return anyio.run(go)


@pytest.mark.parametrize(
    "where,then",
    [
        ("run 4 start", "resume"),
        ("install 3 start", "reset"),
        # the first submodule install from step 9 on: one inside level 2 of this plan, whatever its step number
        ("subinstall 9+ parked", "resume"),
    ],
)
def test_mcp_server_killed_mid_run(bench, tmp_path, where, then):
    b = bench
    b.start(hold=where.rsplit(" ", 1)[0])  # that command waits there for the kill
    server = RawServer(tmp_path)
    server.call("bisect_run", {"repo": b.p.path})
    deadline = time.monotonic() + slack(180)
    while not b.seen(where):  # nothing ran before this server
        assert server.proc.poll() is None and time.monotonic() < deadline, where
        time.sleep(0.01)
    server.kill()
    b.release()
    b.assert_checkout_untouched()
    assert leftovers(b.bisect_id)  # the dead server's command is still running ...
    status = _mcp("bisect_status", {"repo": b.p.path})
    assert "interrupted" in status["message"] and not status["done"]
    if then == "resume":
        b.assert_right_answer(_mcp("bisect_run", {"repo": b.p.path}))
    else:
        res = _mcp("bisect_reset", {"repo": b.p.path})
        assert res["restored"] is True and "worktree" in res["removed"]
        assert not statefile.state_dir(b.p.sup.path).exists()
    b.assert_finished_cleanly()  # ... until the resume or the reset stops it


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "stdin closed"])
def test_mcp_server_stopped_mid_run_stops_cleanly(bench, tmp_path, how):
    """A client ends `perfkit serve` mid bisect_run: the parked run is stopped at once, the steps before it
    are saved, the environment points back at the user's checkout, the worktree is gone, and a later
    bisect_run resumes to the right answer."""
    b = bench
    b.start(hold="run 4")  # step 4's run waits 30 s unless it is stopped
    server = RawServer(tmp_path)
    server.call("bisect_run", {"repo": b.p.path})
    deadline = time.monotonic() + slack(180)
    while not b.seen("run 4 start"):
        assert server.proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    t0 = time.monotonic()
    if how == "stdin closed":
        server.proc.stdin.close()
        expected_rc = 0
    else:
        sig = signal.Signals[how]
        server.proc.send_signal(sig)
        expected_rc = 128 + sig
    rc = server.proc.wait(timeout=60)
    server.stderr.close()
    assert rc == expected_rc, (rc, (tmp_path / "serve.err").read_text())
    assert time.monotonic() - t0 < slack(20)  # the parked run did not sleep its 30 s out
    assert not b.seen("run 4 end")
    assert wait_gone(b.bisect_id) == []
    b.assert_checkout_untouched(worktree_may_exist=False)
    b.assert_environment_restored()
    status = bisect_status(b.p.path)
    assert status.worktree is None and status.environment == "user" and not status.done, status
    assert status.message.startswith("Bisect paused"), status.message
    assert [s.n for s in status.steps] == [1, 2, 3]
    b.release()
    b.assert_right_answer(_mcp("bisect_run", {"repo": b.p.path}))
    b.assert_finished_cleanly()


def test_mcp_client_ending_its_session_mid_run_stops_the_bisect_cleanly(bench, tmp_path):
    """The MCP SDK's own stdio client ends the session while bisect_run works, as Claude Code does at the
    end of a session: it closes the server's stdin, then sends SIGTERM and SIGKILL seconds later. The
    server has stopped the bisect cleanly before that."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    b = bench
    b.start(hold="run 4")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "perfkit.cli", "serve"], env=dict(os.environ), cwd=str(tmp_path)
    )

    async def session() -> float:
        with open(tmp_path / "serve.err", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as c:
                await c.initialize()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(c.call_tool, "bisect_run", {"repo": b.p.path})
                    with anyio.fail_after(slack(60)):
                        while not b.seen("run 4 start"):
                            await anyio.sleep(0.01)
                    tg.cancel_scope.cancel()  # the client gives up on the call and ends the session
                t0 = time.monotonic()
        return time.monotonic() - t0

    took = anyio.run(session)
    assert took < slack(10), took
    assert not b.seen("run 4 end")  # the parked run was stopped, not waited for
    assert wait_gone(b.bisect_id) == []
    b.assert_checkout_untouched(worktree_may_exist=False)
    b.assert_environment_restored()
    status = bisect_status(b.p.path)
    assert status.worktree is None and status.environment == "user" and not status.done, status
    assert status.message.startswith("Bisect paused"), (status.message, (tmp_path / "serve.err").read_text())
    b.release()
    b.assert_right_answer(_mcp("bisect_run", {"repo": b.p.path}))
    b.assert_finished_cleanly()


# ---- 3. run commands that misbehave -------------------------------------------------------------------

FLOOD = 2 * 1024**3


def test_daemons_floods_and_deleted_working_directories(bench):
    """Step 1 leaves a daemon in its own session and a background child, step 2 prints 2 GiB, steps 3
    and 4 delete their checkout's files (the worktree's .git too) and the submodule."""
    b = bench
    e = b.p.env
    before = (
        f'case "$PERFKIT_STEP" in '
        f"1) setsid sleep 120 </dev/null >/dev/null 2>&1 & echo $! > {e}/setsid.pid; "
        f"   (sleep 120 & echo $! > {e}/child.pid; wait) & ;; "
        f'2) yes "noise max_abs_err=9 line" | head -c {FLOOD} ;; esac'
    )
    after = (
        'case "$PERFKIT_STEP" in 3) rm -rf "$PERFKIT_CHECKOUT"/* "$PERFKIT_CHECKOUT"/.git* ;; '
        '4) rm -rf "$PERFKIT_SUBMODULE" ;; esac'
    )
    run = f"{before}; {b.p.run_cmd()}; rc=$?; {after}; exit $rc"
    t0 = time.monotonic()
    bisect_start(
        b.p.path,
        b.p.c["add"],
        run=run,
        install=b.p.installs(),
        install_submodule=b.p.installs_sub(),
        metric_pattern=r"max_abs_err=(\S+)",
        timeout_s=120,
    )
    res = bisect_run(b.p.path).model_dump(mode="json")
    took = time.monotonic() - t0
    b.assert_right_answer(res)
    steps = res["steps"]
    # the daemon and the child are gone once their step ended
    for name in ("setsid.pid", "child.pid"):
        pid = int((e / name).read_text())
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2], name
    # 2 GiB went through the verdict scan (the metric after the flood is the check's own) and the log
    # kept its cap: the head, a note, and the tail
    flood = steps[1]
    assert flood["metric"] == (0.25 if flood["verdict"] == "bad" else 0.001)
    log = Path(flood["log"])
    cap = 16 * 1024 * 1024
    assert log.stat().st_size < cap + 100_000 and "log cap reached" in log.read_text(errors="replace")
    assert took < slack(90), took
    # steps 3 and 4 wrecked their checkout; the next steps rebuilt it and still answered right
    assert len(steps) > 4
    b.assert_finished_cleanly()
    bisect_reset(b.p.path)


def test_a_run_that_ignores_sigterm_is_killed_at_its_timeout(bench):
    b = bench
    e = b.p.env
    run = f"trap '' TERM; echo $$ > {e}/stubborn.pid; while :; do sleep 0.2; done"
    bisect_start(
        b.p.path, b.p.c["add"], run=run, timeout_s=1, install=b.p.installs(), install_submodule=b.p.installs_sub()
    )
    t0 = time.monotonic()
    from perfkit.bisect.tool import bisect_step

    step = bisect_step(b.p.path).step
    assert step.verdict == "skip" and "timed out" in step.reason
    assert time.monotonic() - t0 < slack(15)
    pid = int((e / "stubborn.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert "timed out" in Path(step.log).read_text()
    bisect_reset(b.p.path)
    b.assert_finished_cleanly()


# ---- 4. disk full, read-only state folder -----------------------------------------------------------


def _mount(*args: str) -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def test_disk_full_mid_step(bench):
    """The state folder on a tiny filesystem that a step's output fills: a clear failure, the state
    file whole, the checkout untouched; with room again, the bisect resumes to the right answer."""
    b = bench
    sdir = statefile.state_dir(b.p.sup.path)
    sdir.mkdir()
    if not _mount("-t", "tmpfs", "-o", "size=700k", "tmpfs", str(sdir)):
        sdir.rmdir()
        pytest.skip(
            "fills a 700 KB tmpfs, and mounting one needs root and `mount`: run the suite as root (for example in "
            "a container) to include it; test_read_only_state_folder covers the rest"
        )
    try:
        fill = 'if [ "$PERFKIT_STEP" = 3 ]; then head -c 3000000 /dev/zero | tr "\\0" x; echo; fi'
        p = b.p
        bisect_start(
            p.path,
            p.c["add"],
            run=f"{fill}; {b.wrap('run', p.run_cmd())}",
            install=[b.wrap("install", p.installs()[0])],
            install_submodule=[b.wrap("subinstall", p.installs_sub()[0])],
        )
        b.bisect_id = statefile.load(sdir).id
        out = perfkit("bisect-run", p.path, "--quiet", "--json")
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "No space left on device" in out.stderr, out.stderr
        st = statefile.load(sdir)  # whole, with every step that finished
        assert st is not None and len(st.steps) >= 2 and st.worktree is None
        b.assert_checkout_untouched(worktree_may_exist=False)
        b.assert_environment_restored()
        status = bisect_status(p.path)
        assert not status.done and status.message.startswith("Bisect paused"), status.message
        assert _mount("-o", "remount,size=64m", str(sdir))  # room again
        out = perfkit("bisect-run", p.path, "--quiet", "--json")
        assert out.returncode == 0, out.stderr
        b.assert_right_answer(json.loads(out.stdout))
        assert any("incomplete" in n for n in json.loads(out.stdout)["notes"])
        b.assert_finished_cleanly()
        bisect_reset(p.path)
    finally:
        subprocess.run(["umount", "-l", str(sdir)], capture_output=True)


def _read_only(path: Path) -> bool:
    """Make path read-only for this process: a read-only bind mount as root, permissions otherwise."""
    if os.geteuid() == 0:
        return _mount("--bind", str(path), str(path)) and _mount("-o", "remount,bind,ro", str(path))
    for p in [path, *path.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode & ~0o222)
    return True


def _writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["umount", str(path)], capture_output=True)
        return
    for p in [path, *path.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o200)


def test_read_only_state_folder(bench):
    b = bench
    b.start()
    p = b.p
    from perfkit.bisect.tool import bisect_step

    bisect_step(p.path)
    bisect_step(p.path)
    sdir = statefile.state_dir(p.sup.path)
    saved = (sdir / "state.json").read_bytes()
    if not _read_only(sdir):
        pytest.skip(
            "as root, a read-only folder needs a bind mount, which failed here: give the container "
            "CAP_SYS_ADMIN (or run the suite as a normal user) to include it"
        )
    try:
        for cmd in ("bisect-step", "bisect-run", "bisect-reset"):
            out = perfkit(cmd, p.path, "--quiet") if cmd != "bisect-reset" else perfkit(cmd, p.path)
            assert out.returncode == 1 and "Traceback" not in out.stderr, (cmd, out.stderr)
            line = out.stderr.strip()
            assert "\n" not in line and ("Read-only file system" in line or "Permission denied" in line), line
        assert (sdir / "state.json").read_bytes() == saved
        status = bisect_status(p.path)  # reads only: still works
        assert len(status.steps) == 2 and not status.done
        b.assert_checkout_untouched()
    finally:
        _writable(sdir)
    out = perfkit("bisect-run", p.path, "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    b.assert_right_answer(json.loads(out.stdout))
    b.assert_finished_cleanly()
    bisect_reset(p.path)


# ---- 5. two bisects of one repository -------------------------------------------------------------------


def test_two_bisects_of_one_repository_at_once(bench):
    b = bench
    p = b.p
    starts = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "perfkit.cli",
                "bisect-start",
                p.path,
                p.c["add"],
                "--run",
                b.wrap("run", p.run_cmd(), 0.3),
                "--install",
                b.wrap("install", p.installs()[0]),
                "--install-submodule",
                b.wrap("subinstall", p.installs_sub()[0]),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(s.wait(60), s.stderr.read()) for s in starts]
    assert sorted(rc for rc, _ in results) == [0, 2], results
    refused = next(err for rc, err in results if rc == 2)
    assert refused.startswith("perfkit: error: REPO: ") and (
        "already in progress" in refused or "another perfkit call" in refused
    ), refused
    b.bisect_id = statefile.load(statefile.state_dir(p.sup.path)).id
    first = b.launch()
    assert b.wait_for("run 1 start", first)
    second = perfkit("bisect-run", p.path, "--quiet")
    assert second.returncode == 2 and "another perfkit call" in second.stderr, second.stderr
    assert f"pid {first.pid}" in second.stderr
    busy = _mcp_error("bisect_step", {"repo": p.path})
    assert busy.startswith("repo: another perfkit call")
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    b.assert_right_answer(json.loads(out))
    b.assert_finished_cleanly()
    bisect_reset(p.path)


def _mcp_error(name: str, args: dict) -> str:
    import anyio
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            r = await c.call_tool(name, args)
            assert r.is_error
            return r.content[0].text.removeprefix(f"Error executing tool {name}: ")

    return anyio.run(go)


# ---- 6. the repository moved or deleted while the bisect runs --------------------------------------------


def remove_while_written(path: Path, seconds: float = 30) -> None:
    """rmtree races with the bisect, which may still write a log line there before it notices (the cause
    of an occasional 'Directory not empty'): remove again until the folder is gone. Whatever the bisect
    recreates after that is caught by the test's own check that nothing exists at the old place."""
    deadline = time.monotonic() + seconds
    while path.exists():
        shutil.rmtree(path, ignore_errors=True)
        assert time.monotonic() < deadline, f"{path} keeps coming back"
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["moved", "deleted"])
def test_repository_moved_or_deleted_mid_run(bench, tmp_path, how):
    b = bench
    b.start(pause=0.2)
    proc = b.launch()
    assert b.wait_for("run 3 start", proc)
    old = Path(b.p.path)
    new = tmp_path / "elsewhere" / old.name
    if how == "moved":
        new.parent.mkdir()
        os.rename(old, new)
    else:
        remove_while_written(old)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "moved or deleted" in err, err
    assert not old.exists()  # nothing recreated at the old place
    assert wait_gone(b.bisect_id) == []
    if how == "deleted":
        return
    status = bisect_status(str(new))
    assert not status.done and "interrupted" in status.message, status.message
    res = bisect_run(str(new)).model_dump(mode="json")
    b.p.sup.path = new
    assert res["done"] and res["culprit"]["commit"] == b.p.c["bump"] and any("moved" in n for n in res["notes"])
    assert res["submodule_culprit"]["commit"] == b.p.r[3]
    after = snapshot(new)
    assert without_worktrees(after) == without_worktrees(b.before)
    assert after["worktrees"].count("worktree ") == 1  # the user's own, at its new place
    assert (b.p.env / "super.path").read_text().strip() == str(new)
    bisect_reset(str(new))
