"""`perfkit serve` as a real stdio subprocess, driven by a client that misbehaves.

- A client that pipelines thousands of calls and never reads: the server stops reading once its
  answers wait (the client's writes block), and its memory stays flat.
- Calls stuck on a FIFO inside git (a loose ref with no writer): each is answered with an error at
  its deadline, 45 of them do not starve the server, and a normal call is answered meanwhile.
- stdin closed while calls are stuck: the server exits within 5 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from helpers.gitbuild import Repo
from helpers.load import slack

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


class Server:
    def __init__(self, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "perfkit.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        self.send(INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert self.read()["id"] == 0

    def send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def read(self) -> dict:
        """The next answer to a request (progress and log notifications are passed over)."""
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its stdout"
            message = json.loads(line)
            if "id" in message:
                return message

    def call(self, request_id: int, tool: str, arguments: dict) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )

    def rss(self) -> int:
        return psutil.Process(self.proc.pid).memory_info().rss

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def test_a_client_that_pipelines_and_never_reads_holds_the_server_to_bounded_memory():
    """20,000 pipelined pings, no answer read: the server stops reading after a bounded number.

    Unbounded, every ping read would wait in memory with its answer (the server grew about 4 MB per
    unread tools/list answer before); with flow control the client's own writes block instead.
    """
    server = Server()
    try:
        baseline = server.rss()
        count = 20_000
        written = [0]

        def pipeline():
            try:
                for i in range(count):
                    server.send({"jsonrpc": "2.0", "id": 10 + i, "method": "ping"})
                    written[0] += 1
            except (BrokenPipeError, ValueError):
                pass

        writer = threading.Thread(target=pipeline, daemon=True)
        writer.start()
        time.sleep(6)
        grown = server.rss() - baseline
        assert writer.is_alive() and written[0] < count / 4, f"the server read {written[0]} requests unanswered"
        # measured: about 3,000 requests read and 0.1 MiB grown with flow control; without it, 47 MiB in 6 s
        assert grown < 16 * 2**20, f"grew {grown / 2**20:.0f} MiB"
        answered = {server.read()["id"] for _ in range(count)}
        writer.join(30)
        assert answered == set(range(10, 10 + count))
    finally:
        server.stop()


@pytest.fixture
def stuck_repo(tmp_path):
    """A repository with a loose ref that is a FIFO: git blocks opening it, before any perfkit check."""
    r = Repo(tmp_path / "repo")
    r.commit("base", {"a.py": "x = 1\n"})
    head = r.commit("change", {"a.py": "x = 2\n"})
    fifo = r.path / ".git" / "refs" / "heads" / "stuck"
    os.mkfifo(fifo)
    yield r, head
    for _ in range(200):  # unblock every git still waiting on it: a writer that opens and closes at once
        try:
            fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            break
        time.sleep(0.01)


def test_stuck_calls_are_answered_at_their_deadline_and_never_starve_the_server(stuck_repo):
    r, head = stuck_repo
    server = Server({"PERFKIT_CALL_DEADLINE_S": "3"})
    try:
        start = time.monotonic()
        for i in range(45):  # more than the worker threads anyio keeps
            server.call(100 + i, "classify_changes", {"repo": str(r.path), "base": "stuck"})
        server.call(7, "evaluate_culprit", {"repo": str(r.path), "commit": head})
        answers = {}
        while len(answers) < 46:
            message = server.read()
            answers[message["id"]] = (message, time.monotonic() - start)
        ok, seconds = answers[7]
        assert not ok["result"].get("isError"), ok
        for i in range(45):
            message, seconds = answers[100 + i]
            assert message["result"]["isError"], message
            text = message["result"]["content"][0]["text"]
            assert "deadline of 3 s" in text and len(text) < 1000, text
            assert seconds < slack(20), seconds
        server.call(8, "evaluate_culprit", {"repo": str(r.path), "commit": head})
        assert not server.read()["result"].get("isError")
    finally:
        server.stop()


def test_the_server_exits_within_5_s_of_stdin_closing_whatever_is_in_flight(stuck_repo):
    r, _ = stuck_repo
    server = Server()  # the default deadline: the calls stay stuck
    try:
        for i in range(5):
            server.call(200 + i, "classify_changes", {"repo": str(r.path), "base": "stuck"})
        time.sleep(1.5)
        assert server.proc.poll() is None
        assert server.proc.stdin is not None
        server.proc.stdin.close()
        start = time.monotonic()
        server.proc.wait(10)
        assert time.monotonic() - start < 5
    finally:
        server.stop()


def test_a_stuck_call_reports_the_deadline_it_was_given(tmp_path):
    """The deadline comes from the tool's spec, lowered (never raised) by PERFKIT_CALL_DEADLINE_S."""
    from perfkit.registry import all_tools
    from perfkit.tools.spec import DEADLINE_S, call_deadline

    specs = {s.name: s for s in all_tools()}
    assert specs["bisect_run"].deadline_s is None and specs["classify_changes"].deadline_s == DEADLINE_S
    os.environ["PERFKIT_CALL_DEADLINE_S"] = "9999"
    try:
        assert call_deadline(DEADLINE_S) == DEADLINE_S
        os.environ["PERFKIT_CALL_DEADLINE_S"] = "2"
        assert call_deadline(DEADLINE_S) == 2
        assert call_deadline(None) is None
    finally:
        del os.environ["PERFKIT_CALL_DEADLINE_S"]
    assert Path(tmp_path).is_dir()
