"""The request lines `perfkit serve` reads from stdin, each at most MAX_REQUEST_LINE_BYTES.

The MCP stdio transport reads a whole line before it parses it: a client that sends one 1 GB line
makes the server hold 1 GB, and more while it decodes. Here a line is read in pieces of at most the
cap; a longer one is skipped piece by piece to its end, never held, and said on stderr with its
size. When its request id can be read from its first bytes, it is replaced by a stand-in request
(TOO_LARGE_METHOD, same id) that the flow control answers with an error saying why, so the client
is not left waiting; then the server goes on with the next line. The largest request a tool takes (a 4 MiB string
argument, JSON-escaped) fits well under the cap.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import sys
from typing import BinaryIO

log = logging.getLogger("perfkit")

MAX_REQUEST_LINE_BYTES = 32 * 1024**2
# stands for a dropped line; the random part is this process's own, so a client cannot send it
TOO_LARGE_METHOD = f"perfkit/request_too_large/{secrets.token_hex(8)}"
_SKIP_PIECE = 1024**2
_ID_SCAN_BYTES = 4096


class BoundedLines:
    """A text source whose readline never holds more than limit bytes of one line."""

    def __init__(self, source: BinaryIO, limit: int = MAX_REQUEST_LINE_BYTES) -> None:
        self.source, self.limit = source, limit
        self.skipped = 0  # lines left out for their size, for the log and the tests

    def readline(self) -> str:
        while True:
            line = self.source.readline(self.limit + 1)
            if len(line) <= self.limit or line.endswith(b"\n"):
                return line.decode("utf-8", "replace")  # "" at the end of input
            request_id = _request_id(line[:_ID_SCAN_BYTES])
            size = len(line) + self._skip_rest()
            self.skipped += 1
            log.warning(
                "a request line of %s bytes was dropped unread: more than the %s bytes perfkit reads in one "
                "request; pass large text as a file path",
                f"{size:,}",
                f"{self.limit:,}",
            )
            if request_id is not None:
                stand_in = {"jsonrpc": "2.0", "id": request_id, "method": TOO_LARGE_METHOD, "params": {"bytes": size}}
                return json.dumps(stand_in) + "\n"

    def _skip_rest(self) -> int:
        skipped = 0
        while True:
            piece = self.source.readline(_SKIP_PIECE)
            skipped += len(piece)
            if not piece or piece.endswith(b"\n"):
                return skipped


def _request_id(head: bytes) -> int | str | None:
    """The top-level "id" of a JSON-RPC request from its first bytes, when it comes before "params"
    (as clients write it); None when it cannot be told for sure."""
    at = head.find(b'"id"')
    params = head.find(b'"params"')
    if at < 0 or (0 <= params < at):
        return None
    rest = head[at + 4 :].lstrip()
    if not rest.startswith(b":"):
        return None
    rest = rest[1:].lstrip()
    end = 0
    if rest.startswith(b'"'):
        end = rest.find(b'"', 1)
        token = rest[: end + 1] if end > 0 and b"\\" not in rest[:end] else b""
    else:
        while end < len(rest) and rest[end : end + 1] in b"-0123456789":
            end += 1
        token = rest[:end]
    try:
        value = json.loads(token) if token else None
    except ValueError:
        return None
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def claim_stdin() -> BinaryIO:
    """The wire on a private descriptor, and fd 0 pointed at the null device, as the MCP transport
    does for itself: a tool's child process reads nothing of the protocol. Where the descriptors
    cannot be moved, the wire is read in place, as the transport then does too."""
    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        return sys.stdin.buffer
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        log.debug("stdin left in place: the null device could not replace it", exc_info=True)
    return os.fdopen(private, "rb", closefd=False)
