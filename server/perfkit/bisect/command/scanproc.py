"""Feed a command's output to the verdict search running in a child process, and stop it at a deadline.

The runner forwards every byte it reads to the child without blocking: bytes wait in a buffer
until the child's pipe takes them, and while the buffer is full the runner stops reading the
command (the command then waits on its own pipe, as with a slow terminal). At the end the child
gets until the step's deadline to finish; past it, it is killed and the scan says so.
"""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import sys
import time
from pathlib import Path

from perfkit.bisect.command import scan as scanmod
from perfkit.bisect.command.scan import Scan

SLOW = (
    "searching the output for the verdict patterns did not finish within the step's timeout "
    "(a pattern that backtracks, like (a+)+$?): simplify fail_pattern, pass_pattern or metric_pattern"
)
BUFFER_MAX = 8 * 1024 * 1024
GRACE_S = 2.0  # a run stopped at its timeout still gets this long for its output to be searched


def widen_pipe(fd: int) -> None:
    """Give a pipe 1 MiB instead of 64 KiB (Linux): fewer wake-ups per gigabyte. Best effort."""
    setsz = getattr(fcntl, "F_SETPIPE_SZ", None)
    if setsz is not None:
        try:
            fcntl.fcntl(fd, setsz, 1 << 20)
        except OSError:
            pass


class ScanProcess:
    def __init__(self, scan: Scan, deadline: float, env: dict[str, str]):
        self.scan = scan
        self.deadline = deadline
        self._pending = bytearray()
        budget = max(deadline - time.monotonic(), 0.0) + GRACE_S + 1.0
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(Path(scanmod.__file__)), f"{budget:.3f}", *scan.spec()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,  # carries the bisect's marker: a search orphaned by a killed perfkit is found and stopped
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both were asked for as pipes
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.fd = self.stdin.fileno()
        os.set_blocking(self.fd, False)
        widen_pipe(self.fd)
        self.broken = False

    @property
    def pending(self) -> int:
        return len(self._pending)

    def push(self, data: bytes) -> None:
        if self.broken:
            return
        if not self._pending:  # the usual case: the child keeps up, so no copy into the buffer
            try:
                data = data[os.write(self.fd, data) :]
            except BlockingIOError:
                pass
            except OSError:
                self.broken = True
                return
        if data:
            self._pending += data
            self.flush()

    def flush(self) -> None:
        """Write what the child's pipe takes now, without waiting."""
        while self._pending and not self.broken:
            try:
                n = os.write(self.fd, self._pending[: 1 << 20])
            except BlockingIOError:
                return
            except OSError:  # the child died (killed at its deadline, or crashed): the result says so
                self.broken = True
                self._pending.clear()
                return
            del self._pending[:n]

    def held_back(self, elapsed_s: float) -> None:
        """At the command's timeout, nothing to do: a child still behind then is named by finish(), which
        waits for it only to the deadline (LinearSearch.held_back is the in-process case)."""

    def finish(self) -> None:
        """Hand over the rest, wait for the answer until the deadline (plus a grace), record it on the scan."""
        end = max(self.deadline, time.monotonic() + GRACE_S)
        while self._pending and not self.broken and time.monotonic() < end:
            select.select([], [self.fd], [], min(0.2, max(end - time.monotonic(), 0.0)))
            self.flush()
        if self._pending:
            self.kill()
            self.scan.unfinished = SLOW
            return
        try:
            self.stdin.close()
        except OSError:
            self.broken = True
        self.proc.stdin = None  # closed: communicate() must not flush it
        try:
            out, _ = self.proc.communicate(timeout=max(end - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            self.kill()
            self.scan.unfinished = SLOW
            return
        try:
            self.scan.take(out.decode("utf-8", "replace"))
        except (ValueError, SyntaxError):
            self.scan.unfinished = (
                f"the search of the output for the verdict patterns stopped (exit {self.proc.returncode}) "
                "before the step's deadline"
            )

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.communicate(timeout=5)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass
