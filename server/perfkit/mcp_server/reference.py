"""The README's tool reference, generated from the schemas the MCP server actually serves.

Run `python -m perfkit.mcp_server.reference --write README.md` after changing a tool; a test fails while
the README differs from what this prints, so the reference cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.types import Tool

START, END = "<!-- tool-reference:start -->", "<!-- tool-reference:end -->"


def _type(prop: dict[str, Any]) -> str:
    if "anyOf" in prop:
        return " or ".join(_type(p) for p in prop["anyOf"])
    if prop.get("type") == "array":
        return f"list of {_type(prop.get('items', {}))}"
    if "enum" in prop:
        return " / ".join(f"`{v}`" for v in prop["enum"])
    return str(prop.get("type", "object"))


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


async def _tools() -> list[Tool]:
    from mcp import Client

    from perfkit.mcp_server.server import build_server

    async with Client(build_server(), mode="legacy") as client:
        return (await client.list_tools()).tools


def markdown() -> str:
    import anyio
    from mcp.types import ToolAnnotations

    tools = anyio.run(_tools)
    out = [START, ""]
    for t in tools:
        a = t.annotations or ToolAnnotations()
        hints = (
            ", ".join(
                h
                for h, on in [
                    ("read-only", a.read_only_hint),
                    ("destructive", a.destructive_hint),
                    ("idempotent", a.idempotent_hint),
                ]
                if on
            )
            or "writes"
        )
        cli = t.name.replace("_", "-")
        out += [f"### `{t.name}`", "", f"CLI: `perfkit {cli}`. Hints: {hints}.", "", (t.description or "").strip(), ""]
        props = t.input_schema.get("properties", {})
        required = set(t.input_schema.get("required", []))
        if props:
            out += ["| parameter | type | required | description |", "|---|---|---|---|"]
            for name, prop in props.items():
                default = "" if name in required else f" Default: `{prop.get('default')}`."
                out.append(
                    f"| `{name}` | {_type(prop)} | {'yes' if name in required else 'no'} "
                    f"| {_cell(prop.get('description', ''))}{default} |"
                )
            out.append("")
        fields = list((t.output_schema or {}).get("properties", {}))
        out += [f"Returns: {', '.join(f'`{f}`' for f in fields)}.", ""]
    out.append(END)
    return "\n".join(out)


def replace_section(text: str, section: str) -> str:
    if START not in text or END not in text:
        raise SystemExit(f"the file has no {START} ... {END} section")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + section + tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--write", metavar="FILE", help="replace the reference section of FILE in place")
    ns = ap.parse_args(argv)
    section = markdown()
    if ns.write:
        path = Path(ns.write)
        path.write_text(replace_section(path.read_text(), section))
    else:
        sys.stdout.write(section + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
