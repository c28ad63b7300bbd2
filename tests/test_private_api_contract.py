"""The private parts of the mcp SDK and of argparse that perfkit uses, held to what perfkit needs of them.

perfkit reaches them only through perfkit.mcp_server.sdk_private and perfkit.cli.argparse_private.
One contract test per supported version (the installed one runs, the others are skipped here and
run where that version is installed) fails when a release renames, moves or changes one of them;
the version tests fail when the installed version or the pin in pyproject.toml leaves the list.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import anyio
import pytest
from mcp.server import MCPServer
from mcp.server.lowlevel import Server
from mcp.server.mcpserver.exceptions import ToolError
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from perfkit.cli.argparse_private import (
    SUPPORTED_PYTHON,
    LazyParser,
    WideCommandList,
    actions,
    subcommands,
    takes_one_value_per_flag,
)
from perfkit.mcp_server.sdk_private import SUPPORTED_MCP, SchemaLookupHook, lowlevel_server, refused_arguments
from pydantic import ValidationError

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
MCP_HERE = ".".join(version("mcp").split(".")[:2])
PYTHON_HERE = f"{sys.version_info.major}.{sys.version_info.minor}"


def _next_minor(v: str) -> str:
    major, minor = v.split(".")
    return f"{major}.{int(minor) + 1}"


def _previous_minor(v: str) -> str:
    major, minor = v.split(".")
    return f"{major}.{int(minor) - 1}" if int(minor) else f"{int(major) - 1}.99"


def _pinned_exactly(spec: SpecifierSet, supported: tuple[str, ...]) -> None:
    """The specifier allows every supported version and nothing just below or just above them."""
    for v in supported:
        assert spec.contains(f"{v}.0") and spec.contains(f"{v}.9"), (str(spec), v)
    assert not spec.contains(f"{_next_minor(supported[-1])}.0"), f"{spec} allows a version never checked"
    assert not spec.contains(f"{_previous_minor(supported[0])}.0"), f"{spec} allows a version never checked"


# ---- mcp -----------------------------------------------------------------------------------------


def test_the_installed_mcp_is_a_supported_version():
    assert MCP_HERE in SUPPORTED_MCP, f"mcp {version('mcp')}: check sdk_private against it, then add it"


def test_pyproject_pins_mcp_to_the_supported_versions():
    (mcp,) = [Requirement(r) for r in PROJECT["dependencies"] if Requirement(r).name == "mcp"]
    _pinned_exactly(mcp.specifier, SUPPORTED_MCP)


async def _schema_after_late_registration() -> object:
    def late(n: int) -> int:
        return n

    class Late(SchemaLookupHook):
        looked: int = 0

        def before_schema_lookup(self) -> None:
            self.looked += 1
            if self.looked == 1:
                self.add_tool(late, name="late")

    server = Late("contract")
    assert await server.list_tools() == []  # nothing registered before the SDK's lookup
    lookup = lowlevel_server(server).get_tool_input_schema
    assert lookup is not None, "the SDK no longer looks tool input schemas up through MCPServer"
    schema = lookup("late")
    assert server.looked == 1
    return schema


async def _refusals() -> list[object]:
    """What refused_arguments sees in the ToolError of a call whose argument fails the schema, of a tool that
    raises ToolError itself, and of a tool that crashes."""

    def typed(n: int) -> int:
        return n

    def refusing(n: int) -> int:
        raise ToolError("n: no")

    def crashing(n: int) -> int:
        raise RuntimeError("bug")

    server = MCPServer("contract")
    for f in (typed, refusing, crashing):
        server.add_tool(f, name=f.__name__)
    seen: list[object] = []
    for name, args in (("typed", {"n": "not a number"}), ("refusing", {"n": 1}), ("crashing", {"n": 1})):
        try:
            await server.call_tool(name, args)
            seen.append("answered")
        except Exception as exc:
            seen.append(refused_arguments(exc))
    return seen


@pytest.mark.parametrize("supported", SUPPORTED_MCP)
def test_mcp_private_parts(supported):
    if supported != MCP_HERE:
        pytest.skip(f"mcp {supported} is not the installed version ({MCP_HERE})")
    server = MCPServer("contract", instructions="hello")
    low = lowlevel_server(server)
    # flow_control.run_stdio serves this object with its own streams, as MCPServer.run_stdio_async does
    assert isinstance(low, Server) and low.name == "contract" and low.instructions == "hello"
    assert list(inspect.signature(low.run).parameters)[:3] == ["read_stream", "write_stream", "initialization_options"]
    assert low.create_initialization_options().server_name == "contract"
    # the schema lookup reaches the hook, and a tool registered by the hook is found by that same lookup
    schema = anyio.run(_schema_after_late_registration)
    assert isinstance(schema, dict) and schema["properties"]["n"]["type"] == "integer", schema
    # arguments the SDK refused against the input schema are told apart from the tool's own errors
    typed, refusing, crashing = anyio.run(_refusals)
    assert isinstance(typed, ValidationError) and typed.errors()[0]["loc"] == ("n",), typed
    assert refusing is None and crashing is None


# ---- argparse ------------------------------------------------------------------------------------


def test_the_running_python_is_a_supported_version():
    assert PYTHON_HERE in SUPPORTED_PYTHON, f"Python {PYTHON_HERE}: check argparse_private against it, then add it"


def test_the_oldest_python_pyproject_allows_is_supported():
    """Python is not capped (a newer one must still install); CI on a new Python fails the test above."""
    spec = SpecifierSet(PROJECT["requires-python"])
    assert spec.contains(f"{SUPPORTED_PYTHON[0]}.0") and not spec.contains(f"{_previous_minor(SUPPORTED_PYTHON[0])}.0")


def _parser(formatter: type[argparse.HelpFormatter]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p", formatter_class=formatter)
    parser.add_argument("--each", action="append")
    parser.add_argument("--one")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("git-blame-removal", help="the long name's summary")
    sub.add_parser("b", help="the short name's summary")
    return parser


@pytest.mark.parametrize("supported", SUPPORTED_PYTHON)
def test_argparse_private_parts(supported):
    if supported != PYTHON_HERE:
        pytest.skip(f"Python {supported} is not the running version ({PYTHON_HERE})")
    parser = _parser(WideCommandList)
    assert [a.dest for a in actions(parser)] == ["help", "each", "one", "command"]
    assert set(subcommands(parser)) == {"git-blame-removal", "b"}
    assert subcommands(subcommands(parser)["b"]) == {}
    each, one = actions(parser)[1:3]
    assert takes_one_value_per_flag(each) and not takes_one_value_per_flag(one)

    def summary_line(p: argparse.ArgumentParser) -> str:
        return next(ln for ln in p.format_help().splitlines() if "git-blame-removal" in ln)

    # the widened column keeps the summary on the name's line; argparse's own puts it on the next one,
    # so this fails both when the widening stops working and when argparse no longer needs it
    assert "the long name's summary" in summary_line(parser)
    assert "the long name's summary" not in summary_line(_parser(argparse.HelpFormatter))


@pytest.mark.parametrize("supported", SUPPORTED_PYTHON)
def test_a_lazy_sub_parser_is_filled_by_whatever_reads_it(supported, capsys):
    """LazyParser relies on argparse reading a parser's arguments through `_actions`: parsing a sub-command,
    its help and the top parser's listing must each see a filled parser, and the listing must not fill one."""
    if supported != PYTHON_HERE:
        pytest.skip(f"Python {supported} is not the running version ({PYTHON_HERE})")
    filled: list[str] = []

    def fill(p: argparse.ArgumentParser) -> None:
        filled.append(p.prog)
        p.description = "made when read"
        p.add_argument("--size", type=int)
        p.set_defaults(made=True)

    def top() -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(prog="p")
        sub = parser.add_subparsers(dest="command", parser_class=LazyParser)
        for name in ("a", "b"):
            sub.add_parser(name, help=f"{name}'s summary").fill = fill
        return parser

    parser = top()
    assert "a's summary" in parser.format_help() and filled == []
    ns = parser.parse_args(["a", "--size", "3"])
    assert (ns.size, ns.made, filled) == (3, True, ["p a"])
    assert [a.dest for a in actions(subcommands(parser)["b"])] == ["help", "size"]
    with pytest.raises(SystemExit):
        top().parse_args(["b", "--help"])
    shown = capsys.readouterr().out
    assert "made when read" in shown and "--size" in shown
