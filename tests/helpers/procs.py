"""The perfkit CLI as a separate process, and whether the processes a test started are still alive.

Tests that kill perfkit, or stop it with a signal, need it in a process of its own; those that then
check what it left behind read /proc, since a zombie still answers kill -0."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path


def perfkit(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "perfkit.cli", *args], capture_output=True, text=True, timeout=timeout)


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
