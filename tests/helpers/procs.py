"""The perfkit CLI as a separate process, and whether the processes a test started are still alive.

Tests that kill perfkit, or stop it with a signal, need it in a process of its own; those that then
check what it left behind read /proc, since a zombie still answers kill -0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_SERVER: subprocess.Popen[str] | None = None


def _server() -> subprocess.Popen[str]:
    """This test process's command server (helpers/cli_server.py), started on first use."""
    global _SERVER
    if _SERVER is None or _SERVER.poll() is not None:
        _SERVER = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("cli_server.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
    return _SERVER


def perfkit(
    *args: str, timeout: float = 300, cwd: str | Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`perfkit args...` in a process of its own, as the console script runs it, with this process's
    environment and working directory unless given; its output and exit status as subprocess.run gives them."""
    argv = [sys.executable, "-m", "perfkit.cli", *args]
    server = _server()
    assert server.stdin is not None and server.stdout is not None
    request = {
        "argv": list(args),
        "cwd": str(cwd) if cwd is not None else os.getcwd(),
        "env": dict(os.environ if env is None else env),
        "timeout": timeout,
    }
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    line = server.stdout.readline()
    if not line:
        raise RuntimeError(f"the test command server ended (exit {server.wait()}) while running {args}")
    said = json.loads(line)
    if said["rc"] is None:
        raise subprocess.TimeoutExpired(argv, timeout, said["stdout"], said["stderr"])
    return subprocess.CompletedProcess(argv, said["rc"], said["stdout"], said["stderr"])


def launch_run(repo: str) -> subprocess.Popen[str]:
    """`perfkit bisect-run repo --quiet --json` in the background, with SIGINT at its default (a test
    sends it as a user's Ctrl-C would)."""
    return subprocess.Popen(
        [sys.executable, "-m", "perfkit.cli", "bisect-run", repo, "--quiet", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def all_dead(pids: list[int], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while any(alive(x) for x in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
