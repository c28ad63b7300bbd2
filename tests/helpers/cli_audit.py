"""Words that belong to the MCP surface or speak to an agent, found in text a CLI user reads."""

from __future__ import annotations

import inspect
import re

from perfkit.tools.spec import ToolSpec

AGENT_WORDS = re.compile(r"(?i)\bthe agent\b|\bask the user\b|\bthe user\b|\bagent's\b|\btell the user\b")


def mcp_words(text: str, spec: ToolSpec | None, specs: list[ToolSpec]) -> list[str]:
    """Each MCP-only word in text: a tool's MCP name, or one of the command's arguments as MCP names it."""
    found = [m.group(0) for m in AGENT_WORDS.finditer(text)]
    for s in specs:
        found += re.findall(rf"(?<![\w\-./])({re.escape(s.name)})(?![\w\-])", text)
        for p in s.parameters():  # any command's option, as MCP spells it
            if "_" in p.name and p.default is not inspect.Parameter.empty:
                found += re.findall(rf"(?<![\w\-./`])({re.escape(p.name)})(?![\w\-])", text)
    if spec is not None:
        for p in spec.parameters():
            if "_" in p.name:  # an option's MCP name; the command line spells it --with-dashes
                found += re.findall(rf"(?<![\w\-./`])({re.escape(p.name)})(?![\w\-])", text)
            # an argument given the way a JSON call gives it: columns={...}, path=...
            found += re.findall(rf"(?<![\w\-./$])({re.escape(p.name)}) ?=(?=[\[{{\"'\w<])", text)
            found += re.findall(rf"`({re.escape(p.name)})`", text)
    return found


def cli_field(field: str, tool: str) -> str:
    """A field as the CLI's errors spell it: --flag for an option, NAME for a positional, others as they are."""
    from perfkit.cli.terms import flag
    from perfkit.registry import all_tools

    spec = next(s for s in all_tools() if s.name == tool)
    head, sep, rest = field.partition(".")
    params = {p.name: p for p in spec.parameters()}
    return flag(params[head]) + sep + rest if head in params else field
