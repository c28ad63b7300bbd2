"""`perfkit serve` as a real stdio subprocess, spoken to line by line as a client would."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


class Wire:
    """A raw client on `perfkit serve`'s stdin and stdout."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        preexec: Callable[[], object] | None = None,
    ) -> None:
        self.err = tempfile.TemporaryFile()  # a file, not a pipe: a server that logs much never blocks on it
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "perfkit.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            env=env if env is not None else {**os.environ, "PERFKIT_DEBUG": ""},
            cwd=cwd,
            preexec_fn=preexec,
        )
        self.pending: list[dict] = []
        self.buffer = b""  # stdout read but not yet split into lines
        self.send(INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert self.answer(0)["id"] == 0

    def send(self, message: object) -> None:
        self.raw(json.dumps(message).encode())

    def raw(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self, request_id: object, within: float = 600) -> dict:
        """The answer to request_id (other messages are kept or passed over); fails if the server stops."""
        for i, message in enumerate(self.pending):
            if message.get("id") == request_id:
                return self.pending.pop(i)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            line = self._line(deadline)
            if line is None:
                break
            message = json.loads(line)
            if "id" not in message:
                continue  # progress and log notifications
            if message["id"] == request_id:
                return message
            self.pending.append(message)
        raise AssertionError(f"no answer to {request_id!r} within {within} s")

    def _line(self, deadline: float) -> bytes | None:
        """The next line of stdout, read from the descriptor itself: a buffered reader can hold a line
        select() no longer sees. None at the deadline; fails if the server stops."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            assert chunk, f"the server stopped (exit {self.proc.poll()}): {self.stderr()[-2000:]}"
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def ping(self, request_id: int) -> None:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        assert self.answer(request_id, within=300) == {"jsonrpc": "2.0", "id": request_id, "result": {}}

    def stderr(self) -> str:
        """All the server wrote on stderr so far."""
        self.err.seek(0)
        return self.err.read().decode("utf-8", "replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def call(self, request_id: int, tool: str, arguments: dict) -> dict:
        """Call a tool and wait for its answer."""
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
        return self.answer(request_id)
