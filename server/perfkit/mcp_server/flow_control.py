"""Flow control for `perfkit serve`: no more requests read than answers the client takes.

A client may pipeline calls and never read the answers. Each answer then waits in memory, and a
server that keeps reading grows without limit (a few MB per answer). Between the stdio transport
and the MCP session this module holds a fixed number of slots: reading a request takes one, the
answer to it (a result or an error) or the client's cancellation gives it back. With every slot
taken the server stops reading, so the pipe fills and the client's own writes block: memory stays
at MAX_IN_FLIGHT answers, whatever the client does. Notifications pass without a slot.

Every field this layer reads from the wire is checked before it is used, by the rules the MCP SDK
itself applies, so the two never disagree about which request a message names: a request id is a
string or an integer (never a bool), and "7" and 7 are one id; a cancel whose `requestId` is anything
else (an object, a list, a float, null, missing) names no request and is ignored here as in the SDK,
so the call it meant goes on and is answered. Nothing a message holds can stop the read loop: a
message the transport could not parse is said on stderr and dropped, and any fault in this
bookkeeping is logged and the message passed on. A request the transport could not take (params
that are not an object, a jsonrpc version that is not "2.0") is answered with an error when its id
can be read, as JSON-RPC asks, instead of leaving its client waiting.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any, Self

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, ErrorData, JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from perfkit.mcp_server.request_lines import MAX_REQUEST_LINE_BYTES, TOO_LARGE_METHOD, BoundedLines, claim_stdin
from perfkit.mcp_server.sdk_private import lowlevel_server

log = logging.getLogger("perfkit")

MAX_IN_FLIGHT = 16
_SAID_CHARS = 300  # of a message the transport could not parse, quoted on stderr


def request_key(value: object) -> int | str | None:
    """The id a message names, as the SDK correlates it ("7" and 7 are one); None for anything that is
    not a request id (an object, a list, a float, a bool, null)."""
    checked = as_request_id(value)
    return coerce_request_id(checked) if checked is not None else None


class Slots:
    """Request ids read and not yet answered, at most `limit` of them."""

    def __init__(self, limit: int = MAX_IN_FLIGHT) -> None:
        self.limit = limit
        self.open: set[int | str] = set()
        self.changed = anyio.Event()

    async def take(self, request_id: object) -> None:
        key = request_key(request_id)
        if key is None:  # the SDK answers or drops it; it holds no slot
            return
        while len(self.open) >= self.limit:
            await self.changed.wait()
        self.open.add(key)

    def give_back(self, request_id: object) -> None:
        key = request_key(request_id)
        if key is not None and key in self.open:
            self.open.discard(key)
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
        if isinstance(item, Exception):  # a line that is not a JSON-RPC message: the SDK drops it silently
            text = " ".join(str(item).split())
            log.warning("a message that is not valid JSON-RPC was ignored: %s", text[:_SAID_CHARS])
            refusal = _invalid_request(item)
            if refusal is not None and self.answer is not None:
                try:
                    await self.answer.send(SessionMessage(refusal))
                except Exception:
                    log.exception("could not answer an invalid request")
            return item
        try:
            await self._count(item)
        except Exception:  # the bookkeeping must never end the read loop: the message goes on
            log.exception("flow control could not count a message; passed on")
        return item

    async def _count(self, item: Any) -> None:
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, JSONRPCRequest):
            await self.slots.take(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            params = message.params
            self.slots.give_back(params.get("requestId") if isinstance(params, dict) else None)

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


def _invalid_request(exc: Exception) -> JSONRPCError | None:
    """The error answer to a request the transport refused, when the refusal shows a request (a method)
    with an id that can be answered; None for anything else (a notification, a line that is not JSON)."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None
    try:
        found = errors()
    except Exception:
        return None
    if not isinstance(found, list):
        return None
    request = next(
        (
            e["input"]
            for e in found
            if isinstance(e, dict) and isinstance(e.get("input"), dict) and "method" in e["input"]
        ),
        None,
    )
    if request is None or request_key(request.get("id")) is None:
        return None
    why = next(
        (
            f"{'.'.join(str(part) for part in e['loc'][1:]) or 'the message'}: {e.get('msg', 'invalid')}"
            for e in found
            if isinstance(e, dict) and isinstance(e.get("loc"), tuple) and e["loc"][:1] == ("JSONRPCRequest",)
        ),
        "not a JSON-RPC request",
    )
    return JSONRPCError(
        jsonrpc="2.0",
        id=request["id"],
        error=ErrorData(code=INVALID_REQUEST, message=f"invalid request ({why[:_SAID_CHARS]}); nothing was run"),
    )


def _too_large(item: Any) -> bool:
    return (
        isinstance(item, SessionMessage)
        and isinstance(item.message, JSONRPCRequest)
        and item.message.method == TOO_LARGE_METHOD
    )


def _too_large_error(request: JSONRPCRequest) -> JSONRPCError:
    params = request.params
    size = params.get("bytes") if isinstance(params, dict) else None
    length = f"{size:,} bytes" if isinstance(size, int) and not isinstance(size, bool) else "too long"
    return JSONRPCError(
        jsonrpc="2.0",
        id=request.id,
        error=ErrorData(
            code=INVALID_REQUEST,
            message=(
                f"request dropped unread: its line is {length}, more than the {MAX_REQUEST_LINE_BYTES:,} bytes "
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
            try:
                self.slots.give_back(message.id)
            except Exception:  # never lose the server over its own bookkeeping
                log.exception("flow control could not release a slot")

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
