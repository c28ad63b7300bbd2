"""The CLI adapter: same results as the core, exit codes 0/1/2, one-line errors."""

from __future__ import annotations

import json

from helpers.procs import perfkit
from perfkit.culprit.evaluate import evaluate_culprit


def test_json_equals_core(superproject):
    sup, _, s = superproject
    proc = perfkit("evaluate-culprit", str(sup.path), s["mixed"], "--submodule", "runtime", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == evaluate_culprit(str(sup.path), s["mixed"], "runtime").model_dump(mode="json")


def test_human_output(superproject):
    sup, _, s = superproject
    proc = perfkit("evaluate-culprit", str(sup.path), s["bump"])
    assert proc.returncode == 0
    assert "submodule_bump" in proc.stdout and s["bump"][:12] in proc.stdout


def test_bad_input_exit_2(superproject, tmp_path):
    sup, _, _ = superproject
    for args, field in [
        ((str(tmp_path / "x"), "HEAD"), "REPO"),  # the command line spells a positional NAME, an option --flag
        ((str(sup.path), "abc1234"), "COMMIT"),
        ((str(sup.path), "HEAD", "--submodule", "nope"), "--submodule"),
    ]:
        proc = perfkit("evaluate-culprit", *args)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"perfkit: error: {field}: ")
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_help_lists_every_tool():
    from perfkit.registry import all_tools

    proc = perfkit("--help")
    assert proc.returncode == 0
    for spec in all_tools():
        assert spec.cli_name in proc.stdout


def test_cli_names_commands_where_mcp_names_tools(tmp_path):
    """The same core message: over MCP it names bisect_run, on the CLI `perfkit bisect-run`."""
    import anyio
    from helpers.bisect_project import build
    from mcp import Client
    from perfkit.bisect.tool import bisect_reset
    from perfkit.mcp_server.server import build_server

    p = build(tmp_path, [""] * 3, [("src", "")] * 3 + [("src", "BUG", "bug")])
    args = ["bisect-start", p.path, p.c["add"], "--run", p.run_cmd()]
    cli = perfkit(*args)
    assert cli.returncode == 0, cli.stderr
    assert "perfkit bisect-run" in cli.stdout and "bisect_run" not in cli.stdout
    again = perfkit(*args)  # an error message from the core, reworded too
    assert again.returncode == 2 and "bisect_" not in again.stderr, again.stderr
    assert "perfkit bisect-" in again.stderr
    as_json = perfkit("bisect-status", p.path, "--json")  # --json stays exactly the tool's result
    assert "perfkit bisect-" not in as_json.stdout
    bisect_reset(p.path)

    async def over_mcp() -> str:
        async with Client(build_server(), mode="legacy") as c:
            r = await c.call_tool("bisect_start", {"repo": p.path, "good": p.c["add"], "run": p.run_cmd()})
            assert not r.is_error, r.content[0].text
            return str(r.structured_content["message"])

    message = anyio.run(over_mcp)
    assert "bisect_run" in message and "perfkit bisect-run" not in message
    bisect_reset(p.path)


def test_progress_bar_never_counts_backwards():
    import io
    import re

    from perfkit.cli.progressbar import ProgressBar

    out = io.StringIO()
    bar = ProgressBar(stream=out, width=20)
    for done, total in [(0, 10), (3, 10), (5, 10), (5, 30), (6, 30), (20, 40), (40, 40)]:
        bar(done, total, f"step {done}")
    lines = out.getvalue().splitlines()
    filled = [line.split("]")[0].count("#") for line in lines]
    assert filled == sorted(filled) and filled[-1] == 20
    assert lines[2].startswith("[##########..........] 5/10 ")  # exact while the total holds
    assert re.search(r"\] 5/about 30 ", lines[3]) and re.search(r"\] 6/about 30 ", lines[4])
    assert "/about 40" in lines[-1]


def test_progress_on_a_non_terminal_writes_one_line_per_step():
    """Heartbeats (same step, seconds ticking) redraw a terminal but add no line to a log file."""
    import io

    from perfkit.cli.progressbar import ProgressBar

    out = io.StringIO()
    bar = ProgressBar(stream=out, width=20)
    for step in range(3):
        for second in range(5):
            bar(step, 3, f"Step {step + 1} of about 3: installing superproject {second}s")
    bar(3, 3, "done")
    assert len(out.getvalue().splitlines()) == 4
