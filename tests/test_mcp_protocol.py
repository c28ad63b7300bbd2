"""The MCP server through real clients: the in-memory JSON-RPC transport and a stdio subprocess."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import anyio
from helpers.load import slack
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.session import ClientSession
from perfkit.mcp_server import tool_list_cache
from perfkit.mcp_server.server import build_cached_server, build_server
from perfkit.registry import all_tools


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


def test_stdio_subprocess(superproject, tmp_path):
    sup, _, s = superproject
    env = dict(os.environ) | {"PERFKIT_CACHE_DIR": str(tmp_path / "cache")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "perfkit.cli", "serve"], env=env)

    async def go():
        with anyio.fail_after(slack(60)):
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


def _listed(server):
    async def go():
        async with Client(server, mode="legacy") as client:
            return [t.model_dump(mode="json") for t in (await client.list_tools()).tools]

    return _call(go)


def test_the_cached_tool_list_is_the_built_one_and_tools_load_on_first_call(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path))
    built = _listed(build_server())
    first = build_cached_server()  # nothing stored yet: builds the tools and stores the list
    assert first.registered and _listed(first) == built
    stored = list(tmp_path.glob("tools-*.json"))
    assert [p.name for p in stored] == [f"tools-{tool_list_cache.fingerprint()}.json"]
    assert [t["name"] for t in json.loads(stored[0].read_text())] == [s.name for s in all_tools()]

    warm = build_cached_server()
    assert not warm.registered and _listed(warm) == built and not warm.registered  # listing imports no tool

    async def call():
        async with Client(warm, mode="legacy") as client:
            return await client.call_tool("evaluate_culprit", {"repo": str(tmp_path / "absent"), "commit": "HEAD"})

    res = _call(call)
    assert (
        warm.registered
        and res.is_error
        and "repo: '" in res.content[0].text
        and "does not exist" in res.content[0].text
    )


def test_a_broken_or_foreign_cache_file_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFKIT_CACHE_DIR", str(tmp_path))
    key = tool_list_cache.fingerprint()
    target = tmp_path / f"tools-{key}.json"
    built = _listed(build_server())
    for bad in ("{not json", json.dumps({"tools": []}), json.dumps([{"name": "x", "inputSchema": 3}])):
        target.write_text(bad)
        server = build_cached_server()
        assert server.registered and _listed(server) == built, bad
    assert tool_list_cache.load(key) is not None and [t["name"] for t in tool_list_cache.load(key)] == [
        s.name for s in all_tools()
    ]


def test_the_fingerprint_follows_every_source_file(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    first = tool_list_cache.fingerprint(pkg)
    assert tool_list_cache.fingerprint(pkg) == first
    (pkg / "sub" / "b.py").write_text("y = 22\n")
    second = tool_list_cache.fingerprint(pkg)
    (pkg / "c.py").write_text("")
    third = tool_list_cache.fingerprint(pkg)
    os.utime(pkg / "a.py", ns=(1, 1))
    assert len({first, second, third, tool_list_cache.fingerprint(pkg)}) == 4


def test_a_warm_start_lists_tools_without_importing_them(tmp_path):
    """What `perfkit serve` imports before answering tools/list, in a fresh interpreter."""
    env = dict(os.environ) | {"PERFKIT_CACHE_DIR": str(tmp_path)}
    probe = (
        "import sys, anyio\n"
        "from perfkit.mcp_server.server import build_cached_server\n"
        "tools = anyio.run(build_cached_server().list_tools)\n"
        "print(len(tools), sorted(m for m in sys.modules if m.startswith('perfkit.')))\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    cold, warm = (r.split(" ", 1) for r in runs)
    assert cold[0] == warm[0] == str(len(all_tools()))
    assert "perfkit.benchmark.models" in cold[1]  # the first start builds the schemas
    loaded = set(ast.literal_eval(warm[1]))
    assert loaded <= {
        "perfkit.errors",
        "perfkit.guards",
        "perfkit.guards.private_dirs",
        "perfkit.registry",
        "perfkit.mcp_server",
        "perfkit.mcp_server.server",
        "perfkit.mcp_server.sdk_private",
        "perfkit.mcp_server.tool_list_cache",
    }, loaded
    assert "perfkit.mcp_server.server" in loaded
