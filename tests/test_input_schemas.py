"""Every tool parameter's input schema says what it takes: no "any object", no value of no type.

An agent writes arguments from tools/list alone. A parameter whose schema is an object with no
properties (or a value with no type) tells it nothing, so it guesses field names and learns them
one refusal at a time. The tools are listed through the real MCP client, and every schema is
walked all the way down: union members, array items, a mapping's values and nested models
resolved through $defs.
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio
import pytest
from mcp import Client
from perfkit.mcp_server.server import build_server
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

_COMBINATORS = ("anyOf", "oneOf", "allOf")
_OBJECT_BOUNDS = ("properties", "propertyNames", "patternProperties")


def loose_spots(
    schema: dict[str, Any], defs: dict[str, Any], where: str, seen: frozenset[str] = frozenset()
) -> list[str]:
    """Where inside schema a value may be anything: an object with no named fields, no key rule and
    no value rule, an array with no item rule, or a schema with no type at all."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:  # a recursive model: its fields are checked where it was first met
            return []
        return loose_spots(defs[name], defs, f"{where}<{name}>", seen | {name})
    members = [m for key in _COMBINATORS for m in schema.get(key, [])]
    if members:
        return [spot for i, m in enumerate(members) for spot in loose_spots(m, defs, f"{where}|{i}", seen)]
    kind = schema.get("type")
    if kind is None:
        return [] if "const" in schema or "enum" in schema else [f"{where}: no type (any value)"]
    kinds = kind if isinstance(kind, list) else [kind]
    out: list[str] = []
    if "object" in kinds:
        extra = schema.get("additionalProperties", True)
        if extra is True and not any(schema.get(k) for k in _OBJECT_BOUNDS):
            out.append(f"{where}: any object (no properties, no key or value rule)")
        for name, sub in (schema.get("properties") or {}).items():
            out += loose_spots(sub, defs, f"{where}.{name}", seen)
        for pattern, sub in (schema.get("patternProperties") or {}).items():
            out += loose_spots(sub, defs, f"{where}[{pattern}]", seen)
        if isinstance(extra, dict):
            out += loose_spots(extra, defs, f"{where}[*]", seen)
    if "array" in kinds:
        items = schema.get("items")
        prefix = schema.get("prefixItems") or []
        if not isinstance(items, dict) and not prefix:
            out.append(f"{where}: an array of anything (no item rule)")
        for i, sub in enumerate(prefix):
            out += loose_spots(sub, defs, f"{where}[{i}]", seen)
        if isinstance(items, dict):
            out += loose_spots(items, defs, f"{where}[]", seen)
    return out


def _spots_of(tp: Any) -> list[str]:
    schema = TypeAdapter(tp).json_schema()
    return loose_spots(schema, schema.get("$defs", {}), "x")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    tags: list[str] = []


class _Loose(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    notes: dict[str, Any] = Field(default_factory=dict)  # any object, two levels down


class _Outer(BaseModel):
    inner: list[_Loose]


class _Tree(BaseModel):
    children: list[_Tree] = []


@pytest.mark.parametrize(
    ("tp", "found"),
    [
        (dict[str, Any] | str | None, ["x|0: any object"]),  # render_pr's draft before it was typed
        (list[dict[str, Any]], ["x[]: any object"]),
        (_Outer | None, ["x|0<_Outer>.inner[]<_Loose>.notes: any object"]),
        (dict[str, Any], ["x: any object"]),
        (Any, ["x: no type"]),
        (list[Any], ["x[]: no type"]),
        (list, ["x[]: no type"]),
        (_Strict | str | None, []),
        (dict[str, int], []),
        (dict[Annotated[str, Field(pattern="^a")], str], []),
        (_Tree, []),  # recursive: walked once, and it terminates
    ],
)
def test_the_walk_finds_any_object_at_any_depth(tp, found):
    spots = _spots_of(tp)
    assert len(spots) == len(found), spots
    for spot, start in zip(spots, found, strict=True):
        assert spot.startswith(start), spots


def _listed() -> list[Any]:
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return (await client.list_tools()).tools

    return anyio.run(go)


def test_no_tool_parameter_takes_any_object():
    tools = _listed()
    assert {"render_pr", "lint_wording", "read_benchmark"} <= {t.name for t in tools}
    loose = []
    for t in tools:
        defs = t.input_schema.get("$defs", {})
        for name, prop in t.input_schema.get("properties", {}).items():
            loose += loose_spots(prop, defs, f"{t.name}.{name}")
    assert not loose, "parameters whose schema allows anything:\n" + "\n".join(loose)


def test_the_draft_schema_is_the_draft_model():
    from perfkit.draft.model import Draft

    draft_fields = set(Draft.model_fields)
    for t in _listed():
        if t.name not in ("render_pr", "lint_wording"):
            continue
        prop = t.input_schema["properties"]["draft"]
        kinds = {m.get("type") or m.get("$ref", "").rsplit("/", 1)[-1] for m in prop["anyOf"]}
        assert kinds == {"Draft", "string", "null"}, (t.name, prop)
        model = t.input_schema["$defs"]["Draft"]
        assert set(model["properties"]) == draft_fields and model["additionalProperties"] is False, t.name
        bench = t.input_schema["$defs"][model["properties"]["benchmark"]["$ref"].rsplit("/", 1)[-1]]
        assert bench["additionalProperties"] is False and "metrics" in bench["properties"], t.name


def test_metric_declarations_are_listed_with_their_fields():
    from perfkit.benchmark.metric_spec import MetricDecl

    rb = next(t for t in _listed() if t.name == "read_benchmark")
    array = next(m for m in rb.input_schema["properties"]["metrics"]["anyOf"] if m.get("type") == "array")
    decl = rb.input_schema["$defs"][array["items"]["$ref"].rsplit("/", 1)[-1]]
    obj, text = decl["anyOf"]  # an object, or its JSON text (as `--metrics '{...}'` gives it)
    assert set(obj["properties"]) == set(MetricDecl.model_fields) and obj["additionalProperties"] is False
    assert obj["type"] == "object" and text["type"] == "string"
