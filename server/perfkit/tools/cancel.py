"""A tool call its client cancelled stops the way Ctrl-C stops the command line.

An MCP client cancels a call with `notifications/cancelled`. The call's work runs in a worker
thread that cancellation cannot interrupt, so the server gives each call a token and sets it on
cancellation; long work (the bisect's steps, the commands it runs) checks the token several times
a second and leaves through its normal stop path: state saved, processes stopped, environment
restored. The token travels as a context variable, so the core needs no MCP import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

from perfkit.errors import ToolFailure

Token = threading.Event
T = TypeVar("T")

_CURRENT: ContextVar[Token | None] = ContextVar("perfkit_cancel", default=None)


class Cancelled(ToolFailure):
    """The client cancelled this call."""


def current() -> Token | None:
    return _CURRENT.get()


def requested() -> bool:
    token = _CURRENT.get()
    return token is not None and token.is_set()


def check() -> None:
    if requested():
        raise Cancelled(
            "the call was cancelled by the client: the step in progress was stopped, the state saved, your "
            "environment restored and the worktree removed; bisect_run resumes, bisect_reset ends the bisect"
        )


def running(token: Token, fn: Callable[[], T]) -> T:
    """Run fn with token as the current call's cancellation token (in the thread that does the work)."""
    reset = _CURRENT.set(token)
    try:
        return fn()
    finally:
        _CURRENT.reset(reset)
