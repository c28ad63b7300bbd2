"""The shipped examples fit together: the example draft renders on the example campaign alone.

A user who tries `perfkit render-pr examples/campaign REPO --draft examples/publish/draft.json` gets
drafts with no lint finding, because every figure the draft quotes (the correctness re-run included)
lives in examples/campaign. Run exactly so, in a copy of the examples, through the CLI.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "publish"))

from helpers import procs  # noqa: E402
from target_repo import build  # noqa: E402


def perfkit(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return procs.perfkit(*args, cwd=cwd)


def test_example_draft_renders_clean_on_the_example_campaign(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    repo = build(tmp_path / "target-repo")
    proc = perfkit(
        tmp_path, "render-pr", "examples/campaign", str(repo), "--draft", "examples/publish/draft.json", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["lint_pr"] == [] and result["lint_issue"] == [], result["lint_pr"] + result["lint_issue"]
    assert result["lint_skipped"] == []
    pr = Path(result["pr_path"])
    assert pr.parent == (tmp_path / "examples" / "campaign").resolve()
    for path in (result["pr_path"], result["issue_path"]):  # the lint a user runs next agrees
        args = ["--path", path, "--campaign-dir", "examples/campaign", "--repo", str(repo), "--json"]
        lint = perfkit(tmp_path, "lint-wording", *args)
        assert lint.returncode == 0, lint.stderr
        assert json.loads(lint.stdout)["findings"] == []
    # the figures the issue named as unbacked before the record moved in are read from the campaign
    text = pr.read_text()
    assert "382" in text and "0.00031" in text


def test_without_the_verify_record_the_quoted_figures_are_unbacked(tmp_path):
    """The clean result above comes from the record, not from a lint that checks nothing."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.rmtree(tmp_path / "examples" / "campaign" / "verify")
    repo = build(tmp_path / "target-repo")
    proc = perfkit(
        tmp_path, "render-pr", "examples/campaign", str(repo), "--draft", "examples/publish/draft.json", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    unbacked = {f["excerpt"] for f in json.loads(proc.stdout)["lint_pr"] if f["rule"] == "unbacked-number"}
    assert {"382", "0.00031"} <= unbacked
