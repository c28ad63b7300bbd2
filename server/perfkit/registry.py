"""Every tool perfkit exposes, in the order they are listed to clients.

Importing this module must stay cheap (pydantic only): it runs on every server start and every
CLI call. Tool modules import pandas, jinja2 and git inside their functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server lists tools from its cache without importing this
    from perfkit.tools.spec import ToolSpec


def all_tools() -> list[ToolSpec]:
    from perfkit.benchmark.tool import SPECS as benchmark
    from perfkit.bisect.tool import SPECS as bisect
    from perfkit.changes.tool import SPECS as changes
    from perfkit.culprit.tool import SPECS as culprit
    from perfkit.lint.tool import SPECS as lint
    from perfkit.publish.tool import SPECS as publish
    from perfkit.triage.tool import SPECS as triage

    specs: list[ToolSpec] = [*benchmark, *changes, *publish, *lint, *culprit, *triage, *bisect]
    names = [s.name for s in specs]
    if len(names) != len(set(names)):
        raise RuntimeError(f"duplicate tool names: {names}")
    return specs
