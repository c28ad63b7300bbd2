"""The bisect tools over MCP and the CLI: same models, progress while running, one-line errors."""

from __future__ import annotations

import json

import anyio
from helpers.bisect_project import build
from helpers.gitbuild import snapshot
from helpers.procs import perfkit
from perfkit.bisect.tool import bisect_reset, bisect_status


def test_mcp_progress_and_same_model_as_cli(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    p = build(tmp_path, [""] * 6 + ["BROKEN"] * 4, [("src", "")] * 3 + [("ptr", 9, "bump")] + [("src", "")] * 2)
    before = snapshot(p.sup.path)
    slow = f'{p.run_cmd()}; if [ "$PERFKIT_STEP" = 1 ]; then sleep 2.2; fi'
    events: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done, total, message):
        events.append((done, total, message))

    async def main():
        async with Client(build_server(), mode="legacy") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert tools["bisect_status"].annotations.read_only_hint is True
            for name in ("bisect_start", "bisect_step", "bisect_run", "bisect_reset"):
                a = tools[name].annotations
                assert a.read_only_hint is False and a.destructive_hint is False
                assert "shell" in tools[name].description or name in ("bisect_reset",)
            bad = await c.call_tool("bisect_start", {"repo": p.path, "good": "-x", "run": "true"})
            assert bad.is_error and "good: '-x' is not a single revision" in bad.content[0].text
            r = await c.call_tool(
                "bisect_start",
                {
                    "repo": p.path,
                    "good": p.c["add"],
                    "run": slow,
                    "install": p.installs(),
                    "install_submodule": p.installs_sub(),
                },
            )
            assert not r.is_error, r.content[0].text
            assert r.structured_content["level1_commits"] == 7
            # docs/bisect.md, "The start estimate": the two ends, level 1 (ceil(log2 7) = 3 runs) and level 2 inside
            # the range's one move of 9 runtime commits (ceil(log2 9) = 4), each search with up to 4 confirmation runs
            assert r.structured_content["expected_steps"] == 2 + (3 + 4) + (4 + 4)
            said = r.structured_content["message"]
            assert "up to 8 runs for the largest move in the range (9 first-parent commits)" in said
            assert "Estimate: 6 to 17 runs" in said  # the low end: the ends, floor(log2 7) = 2 and 2 confirmation runs
            r = await c.call_tool("bisect_step", {"repo": p.path}, progress_callback=on_progress)
            assert not r.is_error, r.content[0].text
            step = r.structured_content
            assert step["line"].startswith("Step 1 of about 17: ") and step["step"]["verdict"] == "good"
            r = await c.call_tool("bisect_run", {"repo": p.path})
            return r.structured_content

    result = anyio.run(main)
    # heartbeats while the run command sleeps, then the step's own line
    beats = [m for _, _, m in events if m and "running" in m]
    assert len(beats) >= 2 and beats[0].startswith("Step 1 of about 17: ")
    assert events[-1][2].startswith("Step 1 of about 17: ") and events[-1][0] == 1
    assert result["done"] and result["culprit"]["commit"] == p.c["bump"]
    assert result["submodule_culprit"]["commit"] == p.r[6]
    cli = perfkit("bisect-status", p.path, "--json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == result == bisect_status(p.path).model_dump(mode="json")
    human = perfkit("bisect-status", p.path)
    assert p.c["bump"][:12] in human.stdout and "reproduce by hand" in human.stdout
    # what the skill asks to report: the steps so far, both culprits, environment and worktree
    assert p.r[6][:12] in human.stdout and "environment user; worktree none" in human.stdout
    assert human.stdout.count(" good ") + human.stdout.count(" bad ") >= len(result["steps"]) - 1
    assert snapshot(p.sup.path) == before
    bisect_reset(p.path)


def test_cli_run_and_errors(tmp_path):
    p = build(tmp_path, [""] * 3, [("src", "")] * 4 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2)
    before = snapshot(p.sup.path)
    args = ["bisect-start", p.path, p.c["add"], "--run", p.run_cmd(), "--json"]
    for i in p.installs():
        args += ["--install", i]
    started = perfkit(*args)
    assert started.returncode == 0, started.stderr
    # docs/bisect.md, "The start estimate": the ends, halving 8 commits (3 runs), 2 to 4 confirmation runs
    assert json.loads(started.stdout)["expected_steps"] == 2 + 3 + 4
    assert "Estimate: 7 to 9 runs" in json.loads(started.stdout)["message"]
    again = perfkit(*args)
    # with --json the error is one JSON object on stderr, stdout stays empty (perfkit.cli.commands._Errors)
    said = json.loads(again.stderr)
    assert again.returncode == 2 and again.stdout == "" and said["error"] == "bad_input" and said["exit_code"] == 2
    assert said["field"] == "REPO" and said["message"].startswith("REPO: a bisect of this repository")
    run = perfkit("bisect-run", p.path, "--quiet")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Found: " + p.c["bug"][:12]) and run.stderr == ""
    bar = perfkit("bisect-step", p.path)  # already done: says so, draws no failure
    assert bar.returncode == 0 and bar.stdout.startswith("The bisect is done.")
    reset = perfkit("bisect-reset", p.path, "--json")
    assert reset.returncode == 0 and set(json.loads(reset.stdout)["removed"]) >= {"state", "logs", "lock"}
    for cmd, field in [
        (["bisect-start", str(tmp_path / "nowhere"), "HEAD~1", "--run", "true"], "REPO"),
        (["bisect-start", p.path, "HEAD", "--run", "true", "--timeout-s", "abc"], "--timeout-s"),
        (["bisect-run", p.path], "REPO"),  # the command line's own names for the fields
    ]:
        proc = perfkit(*cmd)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"perfkit: error: {field}: ") and len(proc.stderr.splitlines()) == 1
    assert snapshot(p.sup.path) == before
