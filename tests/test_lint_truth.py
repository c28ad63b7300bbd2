"""The truthfulness rule: every number must match a figure of the campaign, within its rounding.

Expected figures are computed here from the rows the test wrote, independently of read_benchmark.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

import anyio
from perfkit.lint.lint import lint_wording
from test_render_pr import make_campaign, step_time

RUNS, STEPS = 4, 25


def _steady(arm: str) -> list[float]:
    return [step_time(arm, r, s) for r in range(1, RUNS + 1) for s in range(2, STEPS + 1)]


def _unbacked(text: str, campaign, **kw) -> list[str]:
    res = lint_wording(text=text, campaign_dir=str(campaign), kind="issue", **kw)
    return [f.excerpt for f in res.findings if f.rule == "unbacked-number"]


def test_figures_from_the_data_are_backed_within_rounding(tmp_path):
    c = make_campaign(tmp_path / "c")
    mean_b, mean_p = statistics.mean(_steady("baseline")), statistics.mean(_steady("pr"))
    med_b = statistics.median(_steady("baseline"))
    first_b = statistics.mean(step_time("baseline", r, 1) for r in range(1, RUNS + 1))
    change = (mean_p - mean_b) / mean_b * 100
    good = [
        f"{mean_b:.3f} s",
        f"{mean_b:.2f} s",
        f"{mean_p:.4f} s",
        f"{med_b:.3f} s",
        f"{mean_b * 1000:.0f} ms",
        f"{first_b:.1f} s",
        f"{change:+.1f}%",
        f"{mean_b / mean_p:.2f}x",
        "1.25 s",
        "-4.0%",
        "0.0021",
        f"{len(_steady('baseline')):,}",
    ]
    text = "# Observed on H100\n\n" + "\n\n".join(f"The figure is {g} here." for g in good) + "\n"
    assert _unbacked(text, c) == []
    bad = ["7.77 s", f"{mean_b + 0.02:.3f} s", "0.0022", "-33.3%", "4.56x", "1,234"]
    text = "# Observed on H100\n\n" + "\n\n".join(f"The figure is {b} here." for b in bad) + "\n"
    assert _unbacked(text, c) == bad


def test_slow_step_counts_and_their_difference(tmp_path):
    c = make_campaign(tmp_path / "c")
    slow = sum(1 for v in _steady("baseline") if v > 1.45)
    text = (
        f"# Observed on H100\n\n{slow} of {len(_steady('baseline'))} steps were slower than 1.45 s; "
        f"{slow - 0:+d} with the change.\n"
    )
    assert _unbacked(text, c) == ["1.45 s"]  # the automatic threshold is not 1.45
    assert _unbacked(text, c, draft={"benchmark": {"slow_threshold_s": 1.45}}) == []


def test_exemptions_are_not_figures(tmp_path):
    c = make_campaign(tmp_path / "c")
    text = (
        "# Observed on H100\n\nMeasured on 8 H100 80GB at world size 64 with CUDA 12.4 and PyTorch 2.5.1, "
        "3 runs, 2 changes, `--steps 999`, seed in <!-- 31337 --> and [a link](https://x.org/42).\n"
    )
    assert _unbacked(text, c) == []


def test_cli_and_mcp_agree(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    c = make_campaign(tmp_path / "c")
    p = tmp_path / "proposed-issue.md"
    p.write_text("# Slow steps on H100\n\nThe loader waits 7.77 s, which is really long.\n")
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "lint-wording", "--path", str(p), "--campaign-dir", str(c), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr  # findings: exit 1, the result printed all the same
    cli = json.loads(proc.stdout)

    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return await client.call_tool("lint_wording", {"path": str(p), "campaign_dir": str(c)})

    r = anyio.run(go)
    assert not r.is_error and r.structured_content == cli
    assert [(f["rule"], f["excerpt"]) for f in cli["findings"]] == [("unbacked-number", "7.77 s"), ("filler", "really")]
    assert cli["figures"] > 50
