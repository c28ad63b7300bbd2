"""The mcp SDK's private parts perfkit relies on, in this one module.

MCPServer has no public way to serve stdio through our own streams (flow control needs the lowlevel
server behind it), to hear that the SDK looks a tool's input schema up (the cached tool list
registers the real tools on that first look), or to say arguments it refused in perfkit's words (the
SDK checks them against the input schema before the tool runs, and marks that refusal only by the
ToolError's cause). All three are reached only here, and tests/test_private_api_contract.py fails
when an SDK version changes them. pyproject.toml pins mcp to the versions in SUPPORTED_MCP; widen
both together after the contract test passes on the new one.
"""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.lowlevel import Server
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

SUPPORTED_MCP = ("2.3",)  # major.minor versions of the mcp package the contract test was run against


def lowlevel_server(server: MCPServer) -> Server[Any]:
    """The lowlevel server MCPServer.run_stdio_async itself serves."""
    lowlevel: Server[Any] = server._lowlevel_server
    return lowlevel


class SchemaLookupHook(MCPServer):
    """An MCPServer told, through before_schema_lookup, when the SDK looks up a tool's input schema.

    The SDK asks for the schema before it runs any middleware (to check a streamable HTTP client's
    Mcp-Param headers); a server that registers its tools late must register them by then.
    """

    def before_schema_lookup(self) -> None:
        """Override: make every tool findable."""

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        self.before_schema_lookup()
        return super()._tool_input_schema(name)


def refused_arguments(exc: Exception) -> ValidationError | None:
    """The pydantic error behind a ToolError MCPServer.call_tool raised because the arguments did not
    match the tool's input schema (the SDK's own server tells that case apart the same way), else None."""
    if isinstance(exc, ToolError) and not isinstance(exc, UnexpectedToolError):
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return cause
    return None
