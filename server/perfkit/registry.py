"""Every tool perfkit exposes, in the order they are listed to clients.

Importing this module must stay cheap (no tool module): it runs on every server start and every
CLI call. Each tool module holds its tools' records in SPECS; `perfkit COMMAND` imports only the
module of its own command (the command list on disk says which).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server lists tools from its cache without importing this
    from perfkit.tools.spec import ToolSpec

TOOL_MODULES = (
    "perfkit.benchmark.tool",
    "perfkit.changes.tool",
    "perfkit.publish.tool",
    "perfkit.lint.tool",
    "perfkit.culprit.tool",
    "perfkit.triage.tool",
    "perfkit.bisect.tool",
)


def tools_in(module: str) -> list[ToolSpec]:
    """The tools one module declares; module must be one of TOOL_MODULES."""
    if module not in TOOL_MODULES:
        raise ValueError(f"{module} is not a perfkit tool module")
    return list(importlib.import_module(module).SPECS)


def all_tools() -> list[ToolSpec]:
    specs: list[ToolSpec] = [s for _, found in tool_modules() for s in found]
    names = [s.name for s in specs]
    if len(names) != len(set(names)):
        raise RuntimeError(f"duplicate tool names: {names}")
    return specs


def tool_modules() -> list[tuple[str, list[ToolSpec]]]:
    """(module, its tools) for every tool module, in listing order."""
    return [(m, tools_in(m)) for m in TOOL_MODULES]
