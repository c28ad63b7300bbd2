"""Flow control for `perfkit serve`: no more requests read than answers the client takes.

A client may pipeline calls and never read the answers. Each answer then waits in memory, and a
server that keeps reading grows without limit (a few MB per answer). Between the stdio transport
and the MCP session this module holds a fixed number of slots: reading a request takes one, the
answer to it (a result or an error) or the client's cancellation gives it back. With every slot
taken the server stops reading, so the pipe fills and the client's own writes block: memory stays
at MAX_IN_FLIGHT answers, whatever the client does. Notifications pass without a slot.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from perfkit.mcp_server.request_lines import MAX_REQUEST_LINE_BYTES, TOO_LARGE_METHOD, BoundedLines, claim_stdin
from perfkit.mcp_server.sdk_private import lowlevel_server

MAX_IN_FLIGHT = 16


class Slots:
    """Request ids read and not yet answered, at most `limit` of them."""

    def __init__(self, limit: int = MAX_IN_FLIGHT) -> None:
        self.limit = limit
        self.open: set[Any] = set()
        self.changed = anyio.Event()

    async def take(self, request_id: Any) -> None:
        while len(self.open) >= self.limit:
            await self.changed.wait()
        self.open.add(request_id)

    def give_back(self, request_id: Any) -> None:
        if request_id in self.open:
            self.open.discard(request_id)
            self.changed.set()
            self.changed = anyio.Event()


class GatedRead:
    """The transport's read stream, waiting for a free slot before it hands on a request.

    A stand-in for a request line dropped for its size (perfkit.mcp_server.request_lines) is answered here with
    an error, on the write stream, and never reaches the session."""

    def __init__(self, inner: Any, slots: Slots, answer: Any = None) -> None:
        self.inner, self.slots, self.answer = inner, slots, answer

    @property
    def last_context(self) -> Any:
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> Any:
        item = await self.inner.receive()
        while self.answer is not None and _too_large(item):
            await self.answer.send(SessionMessage(_too_large_error(item.message)))
            item = await self.inner.receive()
        if isinstance(item, SessionMessage):
            message = item.message
            if isinstance(message, JSONRPCRequest):
                await self.slots.take(message.id)
            elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
                self.slots.give_back((message.params or {}).get("requestId"))
        return item

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


def _too_large(item: Any) -> bool:
    return (
        isinstance(item, SessionMessage)
        and isinstance(item.message, JSONRPCRequest)
        and item.message.method == TOO_LARGE_METHOD
    )


def _too_large_error(request: JSONRPCRequest) -> JSONRPCError:
    size = (request.params or {}).get("bytes", 0)
    return JSONRPCError(
        jsonrpc="2.0",
        id=request.id,
        error=ErrorData(
            code=INVALID_REQUEST,
            message=(
                f"request dropped unread: its line is {size:,} bytes, more than the {MAX_REQUEST_LINE_BYTES:,} "
                "perfkit reads in one request; pass large text as a file path"
            ),
        ),
    )


class ReleasingWrite:
    """The transport's write stream, giving a request's slot back once its answer is taken for writing."""

    def __init__(self, inner: Any, slots: Slots) -> None:
        self.inner, self.slots = inner, slots

    async def send(self, item: SessionMessage, /) -> None:
        await self.inner.send(item)  # returns once the writer has taken it: the pipe had room
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            self.slots.give_back(message.id)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


async def run_stdio(server: Any, limit: int = MAX_IN_FLIGHT) -> None:
    """MCPServer.run_stdio_async with the slots between the transport and the session, and request
    lines read with a size cap (perfkit.mcp_server.request_lines)."""
    lowlevel = lowlevel_server(server)
    slots = Slots(limit)
    stdin = anyio.wrap_file(BoundedLines(claim_stdin()))  # type: ignore[arg-type]  # a readline is all it needs
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):
        await lowlevel.run(
            GatedRead(read_stream, slots, answer=write_stream),
            ReleasingWrite(write_stream, slots),
            lowlevel.create_initialization_options(),
        )
