"""Every tool, argument and result field the skills name exists in the schemas the server serves.

An agent follows the skill word for word: a call written with a wrong argument name (`campaign`
for `campaign_dir`) is a failed tool call in front of the user. The schemas are read from the
running server through the real MCP client; the CLI forms in references/cli.md are checked against
the CLI's own parser.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[1]
SKILLS = sorted((ROOT / "skills").rglob("*.md"))
# Settings the skills describe that are being built (noise-aware search, several devices). The test
# accepts them until they are served; once served they are checked like every other name.
PENDING = {"confidence", "flaky_fail", "flaky_pass", "max_skips", "devices"}
CALL = re.compile(r"\b([a-z]+(?:_[a-z]+)+)\(([^()`]*)\)")
TICKED = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)((?:\.[a-z_]+)*)`")


def _names(schema: Any, into: set[str]) -> set[str]:
    """Every property name and enumerated value anywhere in a JSON schema ($defs included)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                into.update(value)
            if key == "enum" and isinstance(value, list):
                into.update(v for v in value if isinstance(v, str))
            if key == "const" and isinstance(value, str):
                into.add(value)
            _names(value, into)
    elif isinstance(schema, list):
        for value in schema:
            _names(value, into)
    return into


@pytest.fixture(scope="module")
def served() -> dict[str, dict[str, Any]]:
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    async def listing() -> dict[str, dict[str, Any]]:
        async with Client(build_server(), mode="legacy") as c:
            tools = (await c.list_tools()).tools
            return {t.name: {"input": t.input_schema, "output": t.output_schema or {}} for t in tools}

    return anyio.run(listing)


def known_names(served: dict[str, dict[str, Any]]) -> set[str]:
    from perfkit.draft.model import Draft

    names = set(served)
    for schemas in served.values():
        _names(schemas["input"], names)
        _names(schemas["output"], names)
    return _names(Draft.model_json_schema(), names)  # the draft's own fields, documented for render_pr


def calls(text: str) -> list[tuple[str, list[str]]]:
    return [(m.group(1), re.findall(r"(\w+)\s*=", m.group(2))) for m in CALL.finditer(text)]


@pytest.mark.parametrize("path", SKILLS, ids=lambda p: str(p.relative_to(ROOT / "skills")))
def test_every_call_names_a_served_tool_and_its_arguments(served, path):
    text = path.read_text()
    for tool, args in calls(text):
        assert tool in served, f"{path.name}: {tool}(...) is not a served tool"
        properties = served[tool]["input"].get("properties", {})
        for arg in args:
            assert arg in properties or arg in PENDING, f"{path.name}: {tool}() has no argument {arg!r}"


@pytest.mark.parametrize("path", SKILLS, ids=lambda p: str(p.relative_to(ROOT / "skills")))
def test_every_named_field_exists(served, path):
    known = known_names(served) | PENDING
    unknown = sorted({m.group(1) for m in TICKED.finditer(path.read_text())} - known)
    assert not unknown, f"{path.name} names what no schema has: {unknown}"


def test_skills_speak_mcp_not_a_mix():
    for path in SKILLS:
        text = path.read_text()
        if path.name == "cli.md":
            continue
        # the old mixed form: a tool name followed by positional words or --options
        assert not re.search(r"`[a-z]+_[a-z_]+ [<\-]", text), f"{path.name} writes a call in CLI syntax"
        assert not re.search(r"`perfkit [a-z]", text), f"{path.name}: CLI forms belong in references/cli.md"


def test_the_calls_the_issue_names(served):
    bisect = (ROOT / "skills" / "bisect-precision" / "SKILL.md").read_text()
    publish = (ROOT / "skills" / "publish-pr" / "SKILL.md").read_text()
    assert ("render_pr", ["campaign_dir", "repo", "draft"]) in calls(publish)
    assert ("bisect_status", ["repo"]) in calls(bisect)
    assert re.search(r"crash", bisect) and "free" in bisect  # status after a crash; ask for free devices
    for setting in ("confidence", "flaky_fail", "flaky_pass", "max_skips"):
        assert setting in (ROOT / "skills" / "bisect-precision" / "references" / "noise.md").read_text()
    assert "repo_notes" in publish and "issue_form" in publish
    for skill in ("bisect-precision", "publish-pr"):
        assert (ROOT / "skills" / skill / "references" / "cli.md").is_file()
        assert len((ROOT / "skills" / skill / "SKILL.md").read_text().splitlines()) <= 60, "keep skills short"


def test_cli_forms_exist():
    from perfkit.cli.argparse_private import actions, subcommands
    from perfkit.cli.commands import build_parser
    from perfkit.registry import all_tools

    parser = build_parser(all_tools())
    commands = subcommands(parser)
    seen = 0
    for path in SKILLS:
        for line in re.findall(r"`perfkit ([a-z-]+)([^`]*)`", path.read_text()):
            command, rest = line
            assert command in commands, f"{path.name}: perfkit {command}"
            options = {s for a in actions(commands[command]) for s in a.option_strings}
            for option in re.findall(r"(--[a-z-]+)", rest):
                assert option in options, f"{path.name}: perfkit {command} has no {option}"
            seen += 1
    assert seen >= 10
