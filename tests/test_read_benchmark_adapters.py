"""read_benchmark through the real MCP client and the CLI: the same model as the core, the same errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
from mcp import Client
from perfkit.benchmark.read import read_benchmark
from perfkit.mcp_server.server import build_server

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "campaign"


def perfkit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perfkit.cli", *args], capture_output=True, text=True, timeout=120)


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
