"""Stop a bisect cleanly when the MCP server is told to stop, as the CLI does on Ctrl-C.

Clients end a stdio server with SIGTERM, SIGINT or by closing its stdin, often mid `bisect_run`.
The bisect runs in a worker thread, which signals cannot interrupt, so the server's hook
(`stop_cleanly_on_exit`, called by `perfkit serve`) sets a flag instead: the running command's
process group is stopped at once, and the call leaves the way any interrupted call does (state
saved, environment restored, worktree removed). The process exits when that is done.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from perfkit.errors import ToolFailure
from perfkit.tools import cancel

STOP = threading.Event()
_calls = 0
_idle = threading.Condition()
_WAIT_S = 3600.0  # the environment restore re-runs install commands: allow it a long time
_GRACE_S = 4.0  # stdin closed with only analysis calls in flight: exit within 5 s whatever they do


class Stopped(ToolFailure):
    """The server was told to stop while a bisect call worked."""


def check() -> None:
    """Raise when the server is stopping or this call's client cancelled it."""
    cancel.check()
    if STOP.is_set():
        raise Stopped(
            "the server was told to stop: the step in progress was stopped, the state saved, your environment "
            "restored and the worktree removed; bisect_run resumes"
        )


@contextmanager
def active() -> Iterator[None]:
    """Mark a bisect call in progress, so a stop waits for it to leave cleanly."""
    global _calls
    with _idle:
        _calls += 1
    try:
        yield
    finally:
        with _idle:
            _calls -= 1
            _idle.notify_all()


def _stop_then_exit(code: int, why: str) -> None:
    with _idle:
        busy = _calls > 0
    if not busy:
        if code:
            os._exit(code)
        # stdin closed and no bisect running: the server ends on its own, unless an analysis call
        # is stuck in a worker thread; then it exits anyway once the grace has passed
        timer = threading.Timer(_GRACE_S, os._exit, (0,))
        timer.daemon = True
        timer.start()
        return
    print(f"perfkit: {why}; stopping the bisect cleanly before exiting", file=sys.stderr, flush=True)
    STOP.set()
    with _idle:
        _idle.wait_for(lambda: _calls == 0, timeout=_WAIT_S)
    os._exit(code)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    threading.Thread(target=_stop_then_exit, args=(128 + signum, f"stopped by {name}"), daemon=True).start()


def _watch_stdin(fd: int) -> None:
    """Wait for the client to close our stdin (the pipe's writer gone), without reading from it."""
    poller = select.poll()
    poller.register(fd, select.POLLHUP | select.POLLERR)
    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        if any(ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, ev in events):
            _stop_then_exit(0, "stdin closed")
            return


def stop_cleanly_on_exit() -> None:
    """Install the server's stop hooks: SIGTERM and SIGINT, and stdin closing."""
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, _on_signal)
    if hasattr(select, "poll"):
        try:
            fd = os.dup(sys.stdin.fileno())  # the transport may move stdin; a duplicate sees the same pipe
        except (OSError, ValueError):
            return
        threading.Thread(target=_watch_stdin, args=(fd,), daemon=True, name="perfkit-stdin-watch").start()
