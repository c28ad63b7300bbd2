"""MCP adapter: one MCPServer tool per ToolSpec, generated the same way for every tool.

The wrapper only moves arguments in, runs the blocking core function in a worker thread,
forwards progress as MCP notifications and turns InputError into ToolError. Logging goes to
stderr: stdout carries the protocol.
"""

from __future__ import annotations

import functools
import inspect
import logging
import sys
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from perfkit import __version__
from perfkit.errors import InputError, ToolFailure
from perfkit.registry import all_tools
from perfkit.toolspec import ToolSpec

log = logging.getLogger("perfkit")

INSTRUCTIONS = (
    "perfkit turns a finished performance campaign into a pull-request description and issue "
    "(read_benchmark, classify_changes, git_blame_removal, render_pr, lint_wording) and finds the "
    "commit that broke a precision check across a repository and its submodule (bisect_* tools, "
    "evaluate_culprit). Every number comes from the user's files; bisects never touch the user's checkout."
)


def _wrap(spec: ToolSpec):
    params = spec.parameters()

    async def tool(ctx: Context, **kwargs: Any):
        progress = None
        if spec.wants_progress:

            def progress(done: float, total: float | None = None, message: str | None = None) -> None:
                try:
                    anyio.from_thread.run(ctx.report_progress, done, total, message)
                except Exception:  # a client that went away must not stop the work
                    log.debug("progress notification dropped", exc_info=True)

        try:
            return await anyio.to_thread.run_sync(functools.partial(spec.call, kwargs, progress))
        except InputError as exc:
            raise ToolError(str(exc)) from None
        except ToolFailure as exc:
            raise ToolError(f"{spec.name} failed: {exc}") from None

    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    kw_params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params]
    tool.__signature__ = inspect.Signature([*kw_params, ctx_param], return_annotation=spec.return_type())
    tool.__annotations__ = {p.name: p.annotation for p in params} | {"ctx": Context, "return": spec.return_type()}
    tool.__name__ = spec.name
    tool.__doc__ = spec.description
    return tool


def build_server(specs: list[ToolSpec] | None = None) -> MCPServer:
    server = MCPServer("perfkit", version=__version__, instructions=INSTRUCTIONS)
    for spec in specs if specs is not None else all_tools():
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
    return server


def serve() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="perfkit %(levelname)s %(message)s")
    from perfkit.bisect.shutdown import stop_cleanly_on_exit  # SIGTERM, SIGINT, stdin closed: a clean stop

    stop_cleanly_on_exit()
    build_server().run("stdio")
