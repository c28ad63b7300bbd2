"""MCP adapter: one MCPServer tool per ToolSpec, generated the same way for every tool.

The wrapper only moves arguments in, runs the blocking core function in a worker thread,
forwards progress as MCP notifications and turns InputError into ToolError. Logging goes to
stderr: stdout carries the protocol. `perfkit serve` answers tools/list from the cached list
(perfkit.mcp_server.tool_list_cache) and imports the tools on the first call, so a client's start does not wait
for every tool module and schema.
"""

from __future__ import annotations

import functools
import inspect
import logging
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from mcp.types import Tool as MCPTool

from perfkit import __version__
from perfkit.errors import InputError, ToolFailure
from perfkit.mcp_server import tool_list_cache
from perfkit.mcp_server.sdk_private import SchemaLookupHook, refused_arguments
from perfkit.registry import all_tools

if TYPE_CHECKING:
    from mcp.types import InputRequiredResult

    from perfkit.tools.spec import ToolSpec

log = logging.getLogger("perfkit")

INSTRUCTIONS = (
    "perfkit turns a finished performance campaign into a pull-request description and issue "
    "(read_benchmark, classify_changes, git_blame_removal, render_pr, lint_wording) and finds the "
    "commit that broke a precision check across a repository and its submodule (bisect_* tools, "
    "evaluate_culprit). Every number comes from the user's files; bisects never touch the user's checkout."
)

Handler = Callable[..., Coroutine[Any, Any, Any]]


def _wrap(spec: ToolSpec) -> Handler:
    from perfkit.tools.spec import call_deadline  # registering imports the tools anyway; listing must not

    params = spec.parameters()

    async def tool(ctx: Context, **kwargs: Any) -> Any:
        progress = None
        if spec.wants_progress:

            def progress(done: float, total: float | None = None, message: str | None = None) -> None:
                try:
                    anyio.from_thread.run(ctx.report_progress, done, total, message)
                except Exception:  # a client that went away must not stop the work
                    log.debug("progress notification dropped", exc_info=True)

        from perfkit.tools import cancel  # on the first call: listing tools imports nothing more

        token = cancel.Token()
        finished = threading.Event()

        def work() -> Any:
            try:
                return cancel.running(token, functools.partial(spec.call, kwargs, progress))
            finally:
                finished.set()

        deadline = call_deadline(spec.deadline_s)
        try:
            # at the deadline the call is answered and its thread abandoned (it holds no slot, no
            # lock and no worker token any more), so one stuck call never holds the server
            with anyio.fail_after(deadline) as timer:
                try:
                    return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
                except anyio.get_cancelled_exc_class():
                    token.set()  # work that checks it (a bisect) stops through its own stop path
                    if not timer.cancel_called:
                        # notifications/cancelled: wait for that stop (no answer goes out for a cancelled
                        # call), so the next call finds the state saved and the lock free
                        with anyio.CancelScope(shield=True):
                            await anyio.to_thread.run_sync(finished.wait)
                    raise
        except TimeoutError:
            raise ToolError(
                f"{spec.name} did not answer within its deadline of {deadline:g} s and was abandoned; "
                "something it reads is blocking or far too large (a FIFO, a device, a huge file): "
                "check the inputs"
            ) from None
        except InputError as exc:
            raise ToolError(str(exc)) from None
        except ToolFailure as exc:
            raise ToolError(f"{spec.name} failed: {exc}") from None

    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    kw_params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]
    signature = inspect.Signature([*kw_params, ctx_param], return_annotation=spec.return_type())
    setattr(tool, "__signature__", signature)  # noqa: B010  # inspect reads it; mypy knows no such attribute
    tool.__annotations__ = {p.name: p.annotation for p in params} | {"ctx": Context, "return": spec.return_type()}
    tool.__name__ = spec.name
    tool.__doc__ = spec.description
    return tool


def _register(server: _Server, specs: list[ToolSpec]) -> None:
    for spec in specs:
        server.specs[spec.name] = spec
        server.add_tool(
            _wrap(spec),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=ToolAnnotations(
                title=spec.title,
                read_only_hint=spec.read_only,
                destructive_hint=spec.destructive,
                idempotent_hint=spec.idempotent,
                open_world_hint=spec.open_world,
            ),
            structured_output=True,
        )


class _Server(SchemaLookupHook):
    """MCPServer whose refusal of a call's arguments reads like every other bad input of perfkit.

    The SDK checks the arguments against the input schema before the tool runs, and words a refusal
    as pydantic does ("1 validation error for ..."); here it goes through tools.spec.argument_error,
    the conversion the CLI uses too: `field: problem; what to do`."""

    specs: dict[str, ToolSpec]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.specs = {}

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context | None = None,
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            refused = refused_arguments(exc)
            if refused is None:
                raise
            from perfkit.tools.spec import argument_error  # on the first call: listing tools imports nothing more

            spec = self.specs.get(name)
            arguments_model = spec.arguments_model() if spec is not None else None
            raise ToolError(str(argument_error(refused, f"see the input schema of {name}", arguments_model))) from None


class _ListedFromCache(_Server):
    """Lists the tools from a stored answer; imports and registers the real ones on first use."""

    cached: list[MCPTool] | None = None
    registered = False

    def ensure_tools(self) -> None:
        if not self.registered:
            self.registered = True
            _register(self, all_tools())

    async def list_tools(self) -> list[MCPTool]:
        if not self.registered and self.cached is not None:
            return list(self.cached)
        return await super().list_tools()

    def before_schema_lookup(self) -> None:
        self.ensure_tools()

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context | None = None,
    ) -> CallToolResult | InputRequiredResult:
        self.ensure_tools()
        return await super().call_tool(name, arguments, context)


def build_server(specs: list[ToolSpec] | None = None) -> MCPServer:
    """Every tool registered now: what tests and the README reference read."""
    server = _Server("perfkit", version=__version__, instructions=INSTRUCTIONS)
    _register(server, specs if specs is not None else all_tools())
    return server


def build_cached_server() -> MCPServer:
    """The server `perfkit serve` runs: tools/list from the cache when it matches the code, else built and stored."""
    server = _ListedFromCache("perfkit", version=__version__, instructions=INSTRUCTIONS)
    key = tool_list_cache.fingerprint()
    stored = tool_list_cache.load(key)
    if stored is not None:
        try:
            server.cached = [MCPTool.model_validate(t) for t in stored]
            return server
        except ValueError:
            log.info("tool list cache unreadable; rebuilding it")
    server.ensure_tools()
    tools = anyio.run(server.list_tools)
    tool_list_cache.store(key, [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
    return server


def serve() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="perfkit %(levelname)s %(message)s")
    from perfkit.bisect.command.shutdown import stop_cleanly_on_exit  # SIGTERM, SIGINT, stdin closed: a clean stop

    stop_cleanly_on_exit()
    from perfkit.mcp_server.flow_control import run_stdio

    anyio.run(run_stdio, build_cached_server())
