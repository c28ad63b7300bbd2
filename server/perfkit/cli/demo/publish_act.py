"""Act two of the demo: a finished campaign becomes a PR description and an issue.

Runs the publish-pr workflow's tools in the order the skill gives them (read_benchmark,
classify_changes, git_blame_removal, render_pr, lint_wording) on the example campaign and a
target repository with a delivery branch.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TextIO


def publish_act(root: Path, out: TextIO) -> bool:
    from perfkit.benchmark.read import read_benchmark
    from perfkit.changes.blame import git_blame_removal
    from perfkit.changes.classify import classify_changes
    from perfkit.cli.demo.assets import examples_dir
    from perfkit.cli.demo.delivery_repo import build
    from perfkit.lint.lint import lint_wording
    from perfkit.publish.render import render_pr

    out.write("\n== 2. publish-pr ==\n")
    root.mkdir(parents=True, exist_ok=True)
    examples = examples_dir()
    campaign = root / "campaign"
    shutil.copytree(examples / "campaign", campaign)
    repo, base, head = build(root / "target-repo")

    bench = read_benchmark(str(campaign))
    c = bench.step_comparison()
    out.write(
        f"read_benchmark: {bench.candidate} against {bench.baseline}: "
        f"{c.speedup_mean:.3f}x mean, {c.speedup_median:.3f}x median step time\n"
    )
    changes = classify_changes(str(repo), base, head)
    for commit in changes.commits:
        kinds = ", ".join(f"{k} {n}" for k, n in commit.kinds.items() if n)
        out.write(f"classify_changes: {commit.short} {commit.subject[:56]:56s} {kinds}\n")
    blame = git_blame_removal(str(repo), base, head)
    for ic in blame.commits:
        tests = ", ".join(f"{t.path} ({'still there' if t.exists_at_head else 'gone'})" for t in ic.tests)
        out.write(
            f"git_blame_removal: the removed lines came from {ic.short} {ic.subject}"
            f"{f' (PR #{ic.pr_number})' if ic.pr_number else ''}; its tests: {tests or 'none'}\n"
        )
    result = render_pr(str(campaign), str(repo), draft=str(examples / "publish" / "draft.json"))
    findings = 0
    for path in (result.pr_path, result.issue_path):
        findings += len(lint_wording(path=path, campaign_dir=str(campaign), repo=str(repo)).findings)
    out.write(
        f"render_pr wrote:\n  {result.pr_path}\n    {result.pr_title}\n"
        f"  {result.issue_path}\n    {result.issue_title}\n"
        f"  {_WHOSE.format(draft='examples/publish/draft.json')}\n"
    )
    left = sorted({p.text for p in result.placeholders})
    out.write(f"placeholders left for you: {', '.join(left) or 'none'}\n")
    for conflict in result.policy_conflicts:
        out.write(f"policy conflict: {conflict.text.strip()[:80]} ({conflict.why})\n")
    out.write(f"lint_wording findings: {findings}\n")
    kinds_seen = set(changes.totals) if isinstance(changes.totals, dict) else set()
    serving_ok = serving_act(root / "serving", repo, out)
    return (
        serving_ok
        and findings == 0
        and Path(result.pr_path).is_file()
        and Path(result.issue_path).is_file()
        and bool(blame.commits)
        and blame.commits[0].pr_number == 88
        and {"setting", "default", "source", "removal"} <= {k for k in kinds_seen if changes.totals[k]}
    )


_WHOSE = (
    "the prose (the job, the hardware, the why of each change, the answers to the template) is the example "
    "draft's, {draft}, as an agent would write it; every figure and table is read_benchmark's, from the campaign"
)


def serving_act(root: Path, repo: Path, out: TextIO) -> bool:
    """The serving example: one result JSON per run, throughput and latency percentiles in their own units."""
    from perfkit.benchmark.read import read_benchmark
    from perfkit.cli.demo.assets import examples_dir
    from perfkit.lint.lint import lint_wording
    from perfkit.publish.render import render_pr

    examples = examples_dir()
    campaign = root / "campaign"
    shutil.copytree(examples / "serving" / "campaign", campaign)
    bench = read_benchmark(str(campaign))
    for m in bench.headline():
        out.write(
            f"read_benchmark (serving): {m.name} {m.baseline.estimate.value:,.4g} to "
            f"{m.candidate.estimate.value:,.4g} {m.unit}, {m.change_pct:+.1f}%, {m.outcome} ({m.direction} is better)\n"
        )
    draft = str(examples / "serving" / "draft.json")
    result = render_pr(str(campaign), str(repo), draft=draft)
    findings = 0
    for path in (result.pr_path, result.issue_path):
        findings += len(lint_wording(path=path, campaign_dir=str(campaign), repo=str(repo), draft=draft).findings)
    out.write(
        f"render_pr wrote:\n  {result.pr_path}\n    {result.pr_title}\n"
        f"  {result.issue_path}\n    {result.issue_title}\n"
        f"  {_WHOSE.format(draft='examples/serving/draft.json')}\n"
        f"lint_wording findings (serving): {findings}\n"
    )
    return findings == 0 and Path(result.pr_path).is_file() and Path(result.issue_path).is_file()
