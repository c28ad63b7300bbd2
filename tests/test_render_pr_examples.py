"""The filled examples next to the templates: rendered from examples/campaign, current, and lint-clean."""

from __future__ import annotations

import sys
from pathlib import Path

from perfkit.lint.lint import lint_wording

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "publish"))

import make_examples  # noqa: E402


def test_examples_are_current_clean_and_report_what_is_left(tmp_path):
    result, campaign, repo = make_examples.render(tmp_path)
    for produced, example in make_examples.OUTPUTS.items():
        fresh = (tmp_path / "out" / produced).read_text()
        assert (ROOT / "templates" / example).read_text() == fresh, (
            f"templates/{example} is stale: run python examples/publish/make_examples.py"
        )
    assert result.lint_pr == [] and result.lint_issue == []
    for example in make_examples.OUTPUTS.values():
        res = lint_wording(
            path=str(ROOT / "templates" / example),
            campaign_dir=str(campaign),
            repo=str(repo),
            draft=str(ROOT / "examples" / "publish" / "draft.json"),
        )
        assert res.findings == [], [(f.rule, f.line, f.excerpt) for f in res.findings]
        assert res.rules_skipped == [] and res.figures > 100
    assert {p.text for p in result.placeholders} == {"<fork verify branch>", "<share link>", "<PR>"}
    assert [c.text for c in result.policy_conflicts] == ["I confirm this PR was written without the help of AI tools."]
    covered = {p.template for p in result.template_parts if p.role == "covered"}
    assert covered == {"## What does this PR do?", "## Test Result"}
    assert all(p.filled == "pointer" for p in result.template_parts if p.role == "covered")
    assert result.issue_form.path == ".github/ISSUE_TEMPLATE/performance.yml"
    assert {n.kind for n in result.repo_notes} >= {"title-rule", "sign-off"}


def test_example_numbers_are_checked(tmp_path):
    """Without the re-verification record, the correctness figures the draft quotes are unbacked."""
    _, campaign, repo = make_examples.render(tmp_path)
    import shutil

    shutil.rmtree(campaign / "verify")
    res = lint_wording(
        path=str(ROOT / "templates" / "pr-description.example.md"),
        campaign_dir=str(campaign),
        draft=str(ROOT / "examples" / "publish" / "draft.json"),
    )
    unbacked = {f.excerpt for f in res.findings if f.rule == "unbacked-number"}
    assert {"382", "1,177", "0.0004", "0.00031", "412"} <= unbacked
