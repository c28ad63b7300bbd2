"""A client that cancels bisect_run (`notifications/cancelled`) stops it the way Ctrl-C stops the CLI.

The step in progress has its command stopped at once (no 30 s sleep waited out), the steps done
are saved, the environment points back at the user's checkout, the worktree is gone, no command
carrying the bisect's marker is left, and the next call (a resume or a reset) is accepted: it
waits for the cancelled call to finish stopping rather than being refused for the lock. Through
the real MCP client against the server in process, and through `perfkit serve` over stdio with
the notification written by hand, as any client sends it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest
from helpers.bisect_project import build
from helpers.gitbuild import snapshot
from helpers.load import slack
from perfkit.bisect.state import store as statefile
from test_faults import KERNEL, PLAN, Bench, RawServer, wait_gone


@pytest.fixture
def bench(tmp_path: Path) -> Bench:
    p = build(tmp_path, KERNEL, PLAN)
    return Bench(p, snapshot(p.sup.path), p.env / "events")


def _cancel_mid_run(b: Bench, then: str, call_name: str = "bisect_run") -> tuple[float, dict]:
    """bisect_run cancelled while step 4's run is parked, then `then` through the same client session:
    (seconds from the cancel until the parked command was gone, the structured answer of `then`)."""
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    async def go() -> tuple[float, dict]:
        async with Client(build_server(), mode="legacy") as c:
            call = anyio.CancelScope()

            async def run() -> None:
                with call:
                    await c.call_tool(call_name, {"repo": b.p.path})

            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                with anyio.fail_after(slack(60)):
                    while not b.seen("run 4 start"):
                        await anyio.sleep(0.01)
                t0 = time.monotonic()
                call.cancel()  # the client gives up on this call: it sends notifications/cancelled
            gone = await anyio.to_thread.run_sync(wait_gone, b.bisect_id, 20.0)
            assert gone == [], gone
            stopped = time.monotonic() - t0
            r = await c.call_tool(then, {"repo": b.p.path})
            assert not r.is_error, r.content[0].text
            assert r.structured_content is not None
            return stopped, r.structured_content

    return anyio.run(go)


def test_a_cancelled_bisect_run_stops_cleanly_and_resumes(bench):
    b = bench
    b.start(hold="run 4")
    stopped, _ = _cancel_mid_run(b, "bisect_status")
    assert stopped < slack(10)  # the parked run did not sleep its 30 s out
    assert not b.seen("run 4 end")
    deadline = time.monotonic() + slack(30)  # the stopping call restores the environment, then lets go of the lock
    while statefile.load(statefile.state_dir(b.p.sup.path)).environment != "user":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    st = statefile.load(statefile.state_dir(b.p.sup.path))
    assert [s.n for s in st.steps] == [1, 2, 3] and st.worktree is None  # the interrupted point is not a skip
    b.assert_checkout_untouched(worktree_may_exist=False)
    b.assert_environment_restored()
    b.release()
    from test_faults import _mcp

    b.assert_right_answer(_mcp("bisect_run", {"repo": b.p.path}))
    b.assert_finished_cleanly()


def test_a_reset_right_after_a_cancel_is_accepted(bench):
    b = bench
    b.start(hold="run 4")
    _, res = _cancel_mid_run(b, "bisect_reset")
    assert "state" in res["removed"] and "FAILED" not in res["message"], res  # the stopping call restored
    assert not statefile.state_dir(b.p.sup.path).exists()
    b.assert_finished_cleanly()


def test_cancelled_over_stdio_then_reset_in_the_same_session(bench, tmp_path):
    """`perfkit serve` as a subprocess: tools/call bisect_run, then notifications/cancelled for it, then
    bisect_reset: the reset is answered (not refused for the lock), the cancelled call is never answered,
    and the server keeps serving."""
    b = bench
    b.start(hold="run 4")
    server = RawServer(tmp_path)
    try:
        server.call("bisect_run", {"repo": b.p.path}, id_=2)
        deadline = time.monotonic() + slack(60)
        while not b.seen("run 4 start"):
            assert server.proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        t0 = time.monotonic()
        server.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        assert wait_gone(b.bisect_id, 20.0) == []
        assert time.monotonic() - t0 < slack(10)
        server.call("bisect_reset", {"repo": b.p.path}, id_=3)
        answers = []
        while not any(a.get("id") == 3 for a in answers):
            line = server.proc.stdout.readline()
            assert line, (tmp_path / "serve.err").read_text()
            answers.append(json.loads(line))
        reset = next(a for a in answers if a.get("id") == 3)
        assert not reset["result"].get("isError"), reset
        assert "state" in reset["result"]["structuredContent"]["removed"], reset
        assert not any(a.get("id") == 2 for a in answers)
        assert server.proc.poll() is None
        server.call("bisect_status", {"repo": b.p.path}, id_=4)
        status = json.loads(server.proc.stdout.readline())
        assert status["id"] == 4 and status["result"]["structuredContent"]["phase"] == "none", status
    finally:
        server.proc.stdin.close()
        assert server.proc.wait(timeout=30) == 0
        server.stderr.close()
    assert not b.seen("run 4 end")
    b.assert_finished_cleanly()


def test_a_cancelled_round_on_several_devices_stops_every_device(bench):
    """With two devices the round's commands run on worker threads: the cancel still stops them all
    within a second or so, and the resume names the right culprit."""
    b = bench
    b.start(hold="run 4", devices=["0", "1"])
    stopped, _ = _cancel_mid_run(b, "bisect_status")
    assert stopped < slack(10) and not b.seen("run 4 end")
    b.release()
    from test_faults import _mcp

    b.assert_right_answer(_mcp("bisect_run", {"repo": b.p.path}))
    assert wait_gone(b.bisect_id) == []  # each device's installs go to its own environment: no restore to check
    b.assert_checkout_untouched(worktree_may_exist=False)


def test_a_cancelled_bisect_step_stops_cleanly_too(bench):
    from perfkit.bisect.tool import bisect_step

    b = bench
    b.start(hold="run 4")
    for _ in range(3):
        bisect_step(b.p.path)
    stopped, status = _cancel_mid_run(b, "bisect_reset", call_name="bisect_step")
    assert stopped < slack(10) and not b.seen("run 4 end")
    assert "state" in status["removed"], status
    b.assert_finished_cleanly()
