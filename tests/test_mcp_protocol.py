"""The MCP server through real clients: the in-memory JSON-RPC transport and a stdio subprocess."""

from __future__ import annotations

import os
import sys

import anyio
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.session import ClientSession
from perfkit.registry import all_tools
from perfkit.server import build_server


def _call(coro_fn):
    return anyio.run(coro_fn)


def test_tools_list_has_schemas_and_annotations():
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return (await client.list_tools()).tools

    tools = _call(go)
    names = [t.name for t in tools]
    assert names == [s.name for s in all_tools()]
    for t in tools:
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
        assert t.input_schema["type"] == "object"
        assert "ctx" not in t.input_schema.get("properties", {})
        assert "progress" not in t.input_schema.get("properties", {})
        assert t.annotations is not None and t.annotations.read_only_hint is not None, t.name
        assert t.description and len(t.description) > 40
        for pname, prop in t.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{t.name}.{pname} has no description"


def test_evaluate_culprit_over_mcp(superproject):
    sup, _, s = superproject

    async def go():
        async with Client(build_server(), mode="legacy") as client:
            ok = await client.call_tool("evaluate_culprit", {"repo": str(sup.path), "commit": s["bump"]})
            bad = await client.call_tool("evaluate_culprit", {"repo": str(sup.path), "commit": "nope123"})
            missing = await client.call_tool("evaluate_culprit", {"repo": str(sup.path)})
            return ok, bad, missing

    ok, bad, missing = _call(go)
    assert not ok.is_error
    assert ok.structured_content["kind"] == "submodule_bump"
    assert ok.structured_content["submodule"]["new"] == s["r4"]
    assert bad.is_error and "commit: 'nope123' is not a commit" in bad.content[0].text
    assert "Traceback" not in bad.content[0].text
    assert missing.is_error and "commit" in missing.content[0].text


def test_stdio_subprocess(superproject):
    sup, _, s = superproject
    params = StdioServerParameters(command=sys.executable, args=["-m", "perfkit.cli", "serve"], env=dict(os.environ))

    async def go():
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    res = await session.call_tool("evaluate_culprit", {"repo": str(sup.path), "commit": s["rollback"]})
                    err = await session.call_tool(
                        "evaluate_culprit", {"repo": "/definitely/not/here", "commit": "HEAD"}
                    )
                    return tools, res, err

    tools, res, err = _call(go)
    assert "evaluate_culprit" in [t.name for t in tools.tools]
    assert res.structured_content["kind"] == "submodule_rollback"
    assert err.is_error and "repo: '/definitely/not/here' does not exist" in err.content[0].text
