"""read_benchmark through the real MCP client and the CLI: the same model as the core, the same errors."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pandas as pd
from helpers.procs import perfkit
from mcp import Client
from perfkit.benchmark.read import read_benchmark
from perfkit.mcp_server.server import build_server

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "campaign"


def mcp_call(name: str, args: dict):
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools[name], await client.call_tool(name, args)

    return anyio.run(go)


def test_mcp_cli_and_core_return_the_same_model(tmp_path):
    args = {"campaign_dir": str(EXAMPLE), "warmup_steps": 2, "columns": {"step_time_s": "step_time_s"}}
    core = read_benchmark(**args).model_dump(mode="json")
    tool, res = mcp_call("read_benchmark", args)
    assert not res.is_error, res.content[0].text
    assert res.structured_content == core
    proc = perfkit(
        "read-benchmark", str(EXAMPLE), "--warmup-steps", "2", "--columns", '{"step_time_s": "step_time_s"}', "--json"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == core
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    props = tool.output_schema["properties"]
    for name in ("arms", "comparison", "of_which", "candidates", "reference_baseline"):
        assert props[name].get("description"), name


def test_cli_candidate_and_threshold_options():
    core = read_benchmark(str(EXAMPLE), candidate="fused-loss", slow_threshold_s=1.3).model_dump(mode="json")
    proc = perfkit("read-benchmark", str(EXAMPLE), "--candidate", "fused-loss", "--slow-threshold-s", "1.3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == core and core["candidate"] == "fused-loss"


def test_cli_human_output_shows_the_table():
    proc = perfkit("read-benchmark", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    res = read_benchmark(str(EXAMPLE))
    out = proc.stdout
    assert "step time mean, s" in out and "step time median, s" in out and "first step, s" in out
    assert f"{res.comparison.change_mean_pct:+.1f}%" in out
    assert "bimodal baseline" in out and "[measured against a different baseline]" in out


def test_bad_input_is_one_line_on_both_surfaces(tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "benchmark.csv").write_text("arm,run,step,step_time_s\nbaseline,1,1,1.0\nbaseline,1,2,x\n")
    proc = perfkit("read-benchmark", str(tmp_path / "c"))
    assert proc.returncode == 2
    assert proc.stderr.startswith("perfkit: error: benchmark.csv column 'step_time_s': ")
    assert "line 3" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    _, res = mcp_call("read_benchmark", {"campaign_dir": str(tmp_path / "c")})
    assert (
        res.is_error and "benchmark.csv column 'step_time_s'" in res.content[0].text and "line 3" in res.content[0].text
    )
    _, res = mcp_call("read_benchmark", {"campaign_dir": str(EXAMPLE), "warmup_steps": -1})
    assert res.is_error and "warmup_steps" in res.content[0].text
    proc = perfkit("read-benchmark", str(EXAMPLE), "--slow-threshold-s", "0")
    assert proc.returncode == 2 and proc.stderr.startswith("perfkit: error: --slow-threshold-s: ")


# ---- one declaration of the options, a pipeline of four stages, runs grouped once


def test_options_are_declared_once_and_shown_typed_and_bounded():
    import inspect

    from perfkit.benchmark.options import BenchmarkOptions
    from perfkit.draft.model import Draft
    from perfkit.lint.options import bench_options

    params = inspect.signature(read_benchmark).parameters
    fields = BenchmarkOptions.model_fields
    assert list(params)[1:] == list(fields)
    assert all(params[n].default == f.default for n, f in fields.items())
    assert Draft.model_fields["benchmark"].annotation is BenchmarkOptions
    assert type(bench_options(None)) is BenchmarkOptions
    assert bench_options(Draft.model_validate({"benchmark": {"warmup_steps": 3}})).warmup_steps == 3
    tool, _ = mcp_call("read_benchmark", {"campaign_dir": str(EXAMPLE)})
    schema = tool.input_schema
    defs = schema.get("$defs", {})

    def bounded(node: dict, where: str) -> None:
        if "$ref" in node:
            bounded(defs[node["$ref"].rsplit("/", 1)[1]], where)
            return
        if "anyOf" in node:
            for part in node["anyOf"]:
                bounded(part, where)
            return
        kind = node.get("type")
        assert kind or "enum" in node or "const" in node, f"{where}: no type"
        if kind == "string" and "enum" not in node:
            assert "maxLength" in node, f"{where}: a string without maxLength"
        if kind == "array":
            assert "maxItems" in node, f"{where}: a list without maxItems"
            bounded(node["items"], f"{where}[]")
        if kind == "integer":
            assert "maximum" in node and "minimum" in node, f"{where}: an integer without bounds"
        if kind == "object":
            props = node.get("properties")
            assert props or ("propertyNames" in node and "maxProperties" in node), f"{where}: an unconstrained object"
            for name, sub in (props or {}).items():
                bounded(sub, f"{where}.{name}")
            if "additionalProperties" in node and isinstance(node["additionalProperties"], dict):
                bounded(node["additionalProperties"], f"{where}.*")

    for name, prop in schema["properties"].items():
        assert prop.get("description"), name
        bounded(prop, name)
    decl, text = defs["MetricDecl"]["anyOf"]  # a declaration's object, or its JSON text
    assert text["type"] == "string" and decl["additionalProperties"] is False
    metric = decl["properties"]
    assert metric["stat"]["anyOf"][0]["enum"][:3] == ["mean", "median", "p50"]
    assert schema["properties"]["columns"]["anyOf"][0]["propertyNames"]["enum"][0] == "arm"


def test_the_read_path_is_four_stages_that_never_call_back():
    from test_import_graph import import_graph

    graph = import_graph()

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    b = "perfkit.benchmark."
    readers = {b + m for m in ("campaign", "paths", "load", "measurements", "results", "cells", "steps_csv")}
    readers |= {b + m for m in ("wide_csv", "candidates", "metrics_yaml")}
    stages = [b + "campaign", b + "load", b + "summarize", b + "compare"]
    for i, stage in enumerate(stages):
        later = set(stages[i + 1 :])
        assert not reach(stage) & later, f"{stage} reaches a later stage: {sorted(reach(stage) & later)}"
    for stage in (b + "summarize", b + "compare"):  # no file is read after loading
        assert not reach(stage) & readers, f"{stage} reaches {sorted(reach(stage) & readers)}"
    assert {b + "campaign", b + "load", b + "summarize", b + "compare"} <= graph[b + "pipeline"]


def test_runs_are_grouped_once_through_pandas():
    import re

    package = ROOT / "server" / "perfkit" / "benchmark"
    by_hand = re.compile(r"np\.split\(|\[1:\] != \w+\[:-1\]|flatnonzero\([^)]*!=")
    found = [p.name for p in package.glob("*.py") if by_hand.search(p.read_text())]
    assert found == [], f"runs split by hand in {found}: use table.run_groups"
    grouping = [p.name for p in package.glob("*.py") if "groupby([ARM, RUN]" in p.read_text()]
    assert grouping == ["table.py"]
    from perfkit.benchmark.table import ARM, RUN, run_groups

    frame = pd.DataFrame({ARM: [0, 0, 0, 1, 1], RUN: [1, 1, 2, 1, 3], "v": range(5)})
    groups = run_groups(frame)
    assert [(s.arm, s.run, s.rows.start, s.rows.stop) for s in groups.slices] == [
        (0, 1, 0, 2),
        (0, 2, 2, 3),
        (1, 1, 3, 4),
        (1, 3, 4, 5),
    ]
    assert groups.arm_rows(1) == slice(3, 5) and groups.of_arm(2) == []
