"""render_pr against PR templates in the shapes real repositories use, each committed in a real git repo.

Every template here is written for these tests. Each test asserts where the template's parts land
in the description, and that the description and the issue lint clean with the repo and the
campaign given (the skill's loop "repeat until lint reports nothing" must end).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from perfkit.lint.lint import lint_wording
from perfkit.lint.rules import PR_TITLE_RE
from perfkit.publish.render import PR_FILE, render_pr
from test_render_pr import DRAFT, SHIPPED_A, SHIPPED_B, make_campaign


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    return make_campaign(tmp_path_factory.mktemp("c") / "campaign")


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    r = Repo(tmp_path / "repo")
    r.commit("templates", files)
    return r.path


def _render(tmp_path, campaign, files, draft=DRAFT, **kw):
    repo = _repo(tmp_path, files)
    out = tmp_path / "out"
    res = render_pr(str(campaign), str(repo), draft=draft, out_dir=str(out), **kw)
    return res, Path(res.pr_path).read_text(), repo


def _clean(res, repo, campaign, draft=DRAFT):
    """Both files lint clean through the tool, with repo and campaign given, and in render_pr's own run."""
    assert res.lint_pr == [] and res.lint_issue == [], (res.lint_pr, res.lint_issue)
    for path in (res.pr_path, res.issue_path):
        found = lint_wording(path=path, repo=str(repo), campaign_dir=str(campaign), draft=draft).findings
        assert found == [], (path, found)


def _bot_cut(text: str, marker: str) -> str:
    """What a `sed '/marker/,$d'` bot leaves of the description."""
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if marker in ln)
    return "\n".join(lines[:at])


CUT = """\
## Purpose

<!-- What does this change do, and why? -->

## Test Plan

<!-- How was it tested? -->

## Checklist

- [ ] I ran the unit tests

---
Anything written below this line will be removed by the CI bot.

<!-- reviewers: tag a maintainer if nobody answers in a week -->
"""


def test_bot_cut_line_keeps_the_whole_description_above_it(tmp_path, campaign):
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": CUT})
    kept = _bot_cut(text, "will be removed by the CI bot")
    for part in ("## Summary", "### Speedup Result", "## Correctness Verification", "## Test Plan", "</details>"):
        assert part in kept, part
    assert kept.index("</details>") > kept.index("## Test Plan")
    assert text.rstrip().endswith("<!-- reviewers: tag a maintainer if nobody answers in a week -->")
    assert res.pr_template.cut_line == 14
    _clean(res, repo, campaign)


CUT_IN_COMMENT = """\
## Description

<!--
Please keep the checklist. Everything below this line is stripped by our bot before merge.
-->

## Checklist

- [ ] Benchmarks attached
"""


def test_a_cut_line_inside_a_comment_moves_the_cut_to_the_comment_start(tmp_path, campaign):
    res, text, repo = _render(tmp_path, campaign, {".github/pull_request_template.md": CUT_IN_COMMENT})
    kept = _bot_cut(text, "stripped by our bot")
    assert kept.index("</details>") < kept.rindex("<!--")  # nothing of ours after the comment the cut opens
    assert res.pr_template.cut_line == 3
    tail = text[text.index("</details>") :]
    assert "- [ ] Benchmarks attached" in tail.split("\n")  # below the cut: the repo's text, verbatim, unanswered
    assert "Benchmarks attached" not in kept and not any(b.text == "Benchmarks attached" for b in res.checkboxes)
    _clean(res, repo, campaign)


RESULTS_WITH_BOXES = """\
## Motivation

Why is this needed?

## Test Result(s)

Paste the output of your test runs.

- [ ] Unit tests pass locally
- [ ] Results reproduced on a second machine

## Benchmark

Nightly benchmarks run on the shared cluster after merge.

## Profiling

<!-- attach a trace -->
"""


def test_covered_headings_go_but_their_checklists_and_statements_stay(tmp_path, campaign):
    draft = dict(DRAFT, checkboxes=[{"text": "Unit tests pass locally", "tick": True}])
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": RESULTS_WITH_BOXES}, draft)
    heads = [h for h in re.findall(r"^#+ .*$", text, re.M)]
    # covered headings stay, in the template's order, each pointing to our part
    assert [h for h in heads if h in ("## Motivation", "## Test Result(s)", "## Benchmark", "## Profiling")] == [
        "## Motivation",
        "## Test Result(s)",
        "## Benchmark",
        "## Profiling",
    ]
    assert "## Benchmark\n\nSee Speedup Result and Correctness Verification above." in text
    assert "- [x] Unit tests pass locally" in text
    assert "- [ ] Results reproduced on a second machine <tick if true, else say why not>" in text
    assert "Nightly benchmarks run on the shared cluster after merge." in text
    assert "Paste the output of your test runs." not in text and "Why is this needed?" not in text
    assert text.index("- [x] Unit tests pass locally") > text.index("## Correctness Verification")
    _clean(res, repo, campaign, draft)


BOT_HELP = """\
@reviewbot summary

## Description

<!-- Describe the change. -->

## Notes for reviewers

<details>
<summary>Bot commands</summary>

### kill

Stops the running pipeline.

### skip

Skips the CI for this commit.
</details>
"""


def test_bot_help_under_a_covered_heading_stays(tmp_path, campaign):
    template = BOT_HELP.replace("## Notes for reviewers", "## Description of changes")
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": template})
    assert "## Description of changes\n\nSee Summary above." in text
    assert BOT_HELP[BOT_HELP.index("<details>") :].rstrip() in text
    _clean(res, repo, campaign)


def test_details_bot_help_and_bot_line_are_carried_verbatim(tmp_path, campaign):
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": BOT_HELP})
    block = BOT_HELP[BOT_HELP.index("<details>") :].rstrip()
    assert block in text
    assert "@reviewbot summary" in text
    assert "answer 'kill'" not in text and "answer 'skip'" not in text
    assert "answer 'Notes for reviewers'" not in text  # its only content is the template's own help block
    assert "kill" not in res.pr_template.kept_headings and "skip" not in res.pr_template.kept_headings
    assert not any(p.text.startswith("<answer") for p in res.placeholders)
    _clean(res, repo, campaign)


FIXES = """\
## Description

Fixes # (issue)

## Related

- Related issue: #

## Type of change

- [ ] Bug fix
- [ ] Performance improvement
"""


def test_issue_link_lines_are_kept_and_filled(tmp_path, campaign):
    draft = dict(DRAFT, checkboxes=[{"text": "Performance improvement", "tick": True}])
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": FIXES}, draft)
    assert "Fixes #<issue>" in text and "- Related issue: #<issue>" in text
    assert "## Description\n\nSee Summary above.\n\nFixes #<issue>" in text  # covered, kept, its link stays
    assert [p.text for p in res.placeholders if p.file == "pr"].count("<issue>") == 2
    assert "- [x] Performance improvement" in text
    _clean(res, repo, campaign, draft)


BARE_AND_WRAPPED = """\
## Checklist

[ ] I ran the linter
[x] I signed the CLA
- [ ] I have updated the documentation
  where the change is visible to users.
- [ ] Tests cover the new code path
"""


def test_bare_boxes_and_two_line_items(tmp_path, campaign):
    draft = dict(
        DRAFT,
        checkboxes=[
            {"text": "I ran the linter", "tick": True},
            {"text": "I have updated the documentation where the change", "reason": "no user-facing option"},
        ],
    )
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": BARE_AND_WRAPPED}, draft)
    assert "[x] I ran the linter" in text.split("\n")
    assert "[ ] I signed the CLA <tick if true, else say why not>" in text  # pre-ticked, not backed
    assert (
        "- [ ] I have updated the documentation\n  where the change is visible to users. (no user-facing option)"
        in text
    )
    outcome = {b.text: b for b in res.checkboxes}
    assert outcome["I ran the linter"].ticked
    assert outcome["I signed the CLA"].note and not outcome["I signed the CLA"].ticked
    wrapped = "I have updated the documentation where the change is visible to users."
    assert outcome[wrapped].reason == "no user-facing option"
    _clean(res, repo, campaign, draft)


DISCLOSURE = """\
## Changes

<!-- list them -->

## Disclosure

AI usage: YES / NO

- [ ] This is not an agent-generated PR
"""


def test_ai_disclosure_is_answered_truthfully_and_reported(tmp_path, campaign):
    draft = dict(DRAFT, checkboxes=[{"text": "This is not an agent-generated PR", "tick": True}])
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": DISCLOSURE}, draft)
    assert re.search(r"^AI usage: YES \(", text, re.M) and "YES / NO" not in text
    assert "- [ ] This is not an agent-generated PR" in text
    whys = [c.why for c in res.policy_conflicts]
    assert any("answered YES" in w for w in whys) and any("not written with AI" in w for w in whys)
    _clean(res, repo, campaign, draft)


TITLE_RULE = """\
<!-- Title format: [ticket][type] summary, for example [PROJ-12][fix] guard the cache -->

## Motivation

<!-- why -->

## Tests

<!-- what ran -->
"""


def test_title_rule_in_a_comment_shapes_the_title(tmp_path, campaign):
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": TITLE_RULE})
    assert res.pr_title.startswith("[<ticket>][perf] speech fine-tuning on 8 H100: ")
    assert PR_TITLE_RE.match("# " + res.pr_title)
    assert res.pr_template.title_rule and "[ticket][type] summary" in res.pr_template.title_rule
    assert "<ticket>" in [p.text for p in res.placeholders if p.line == 1]
    _clean(res, repo, campaign)


def test_conventional_title_rule_in_contributing(tmp_path, campaign):
    files = {
        ".github/PULL_REQUEST_TEMPLATE.md": "## Tests\n\n<!-- what ran -->\n",
        "CONTRIBUTING.md": "# Contributing\n\nPR titles use the form `type(scope): summary`.\n",
    }
    res, text, repo = _render(tmp_path, campaign, files)
    assert res.pr_title.startswith("perf(<scope>): speech fine-tuning on 8 H100")
    assert [n.kind for n in res.repo_notes] == ["title-rule"]
    _clean(res, repo, campaign)


def test_a_draft_prefix_wins_over_the_rule_and_says_so(tmp_path, campaign):
    draft = dict(DRAFT, title_prefix="[Speech]")
    res, _, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": TITLE_RULE}, draft)
    assert res.pr_title.startswith("[Speech] speech fine-tuning")
    assert any("title rule" in w and "not applied" in w for w in res.warnings)


SUMMARY_TWICE = """\
## Summary

<!-- one paragraph -->

## Test Plan

<!-- commands -->
"""


def test_repo_summary_heading_does_not_loop_the_lint(tmp_path, campaign):
    draft = dict(DRAFT, template_answers={"Test Plan": "`pytest tests/test_buckets.py` passes on a GPU machine."})
    res, text, repo = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": SUMMARY_TWICE}, draft)
    assert text.count("## Summary") == 1
    structure = [f for f in res.lint_pr if f.rule == "structure"]
    assert structure == []
    _clean(res, repo, campaign, draft)


SETEXT = """\
Overview
========

Tell us about the change.

Risks
-----

<!-- anything reviewers should watch -->
"""


def test_setext_headings_and_answers(tmp_path, campaign):
    draft = dict(DRAFT, template_answers={"Risks": "- Padding adds work to short batches."})
    res, text, repo = _render(tmp_path, campaign, {"docs/pull_request_template.md": SETEXT}, draft)
    assert "Risks\n-----" in text and "- Padding adds work to short batches." in text
    assert "Overview\n--------\n\nSee Summary above." in text or "Overview\n========\n\nSee Summary above." in text
    _clean(res, repo, campaign, draft)


FOLDER = {
    ".github/PULL_REQUEST_TEMPLATE/bug_fix.md": "## Root cause\n\n<!-- what broke -->\n",
    ".github/PULL_REQUEST_TEMPLATE/performance.md": "## Hardware\n\n<!-- which GPU -->\n\n- [ ] Numbers attached\n",
    ".github/PULL_REQUEST_TEMPLATE/docs.md": "## Pages\n\n<!-- which pages -->\n",
}


def test_folder_of_templates_picks_the_performance_one(tmp_path, campaign):
    draft = dict(DRAFT, template_answers={"Hardware": "8 H100 in one node."})
    res, text, repo = _render(tmp_path, campaign, FOLDER, draft)
    assert res.pr_template.path == ".github/PULL_REQUEST_TEMPLATE/performance.md"
    assert sorted(res.pr_template.candidates) == sorted(FOLDER)
    assert "## Hardware" in text and "## Root cause" not in text and "## Pages" not in text
    _clean(res, repo, campaign, draft)
    chosen, text2, _ = _render(tmp_path / "b", campaign, FOLDER, draft, pr_template="docs.md")
    assert chosen.pr_template.path.endswith("docs.md") and "## Pages" in text2


def test_a_linked_template_and_contributing_leak_nothing(tmp_path, campaign):
    secret = tmp_path / "secret.md"
    secret.write_text("## Keys\n\nAPI_TOKEN=do-not-leak\n")
    r = Repo(tmp_path / "repo")
    (r.path / ".github").mkdir()
    os.symlink("/proc/self/environ", r.path / ".github" / "PULL_REQUEST_TEMPLATE.md")
    os.symlink(str(secret), r.path / "CONTRIBUTING.md")
    r.commit("links", {"docs/pull_request_template.md": "## Tests\n\n<!-- what ran -->\n"})
    os.environ["PERFKIT_TEST_SECRET"] = "leak-marker-4711"
    try:
        res = render_pr(str(campaign), str(r.path), draft=DRAFT, out_dir=str(tmp_path / "out"))
    finally:
        del os.environ["PERFKIT_TEST_SECRET"]
    text = Path(res.pr_path).read_text() + Path(res.issue_path).read_text()
    assert "leak-marker-4711" not in text and "do-not-leak" not in text and "PATH=" not in text
    assert res.pr_template.path == "docs/pull_request_template.md"
    assert "skipped: .github/PULL_REQUEST_TEMPLATE.md is a symlink (committed links are not followed)" in res.warnings
    assert "skipped: CONTRIBUTING.md is a symlink (committed links are not followed)" in res.warnings
    assert "skipped: .github/PULL_REQUEST_TEMPLATE.md is a symlink" in res.human()
    lint = lint_wording(path=res.pr_path, repo=str(r.path))
    assert "skipped: CONTRIBUTING.md is a symlink (committed links are not followed)" in lint.repo_skipped


def test_a_huge_template_is_skipped_and_reported(tmp_path, campaign):
    big = "## Notes\n\n" + ("<!-- filler -->\n" * 70_000)
    res, text, _ = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": big})
    assert res.pr_template.path is None and "filler" not in text
    assert any("PULL_REQUEST_TEMPLATE.md is 1.1 MiB" in w for w in res.warnings)


CONTRIBUTING_LONG = "\n".join(
    ["# Contributing", ""]
    + [f"Pull requests should include tests for module {k} where it makes sense." for k in range(30)]
    + [
        "Sign off every commit with `git commit -s`; the DCO check is required.",
        "PR titles must start with a tag in brackets, for example `[perf]`.",
        "Pull requests written with AI tools must disclose it in the description.",
        "We do not accept pull requests generated by AI agents without human review.",
        "Our reinforcement-learning agents live under `rl/agents`.",
        "The PR description must include a link to the issue.",
    ]
)


def test_repo_notes_are_few_relevant_and_printed(tmp_path, campaign):
    files = {
        ".github/PULL_REQUEST_TEMPLATE.md": "## Tests\n\n<!-- what ran -->\n",
        "CONTRIBUTING.md": CONTRIBUTING_LONG,
    }
    res, _, repo = _render(tmp_path, campaign, files)
    kinds = sorted(n.kind for n in res.repo_notes)
    # thirty soft test rules are capped at three; every other kind is reported once
    assert kinds == ["ai-policy", "ai-policy", "pr-rule", "sign-off", "tests", "tests", "tests", "title-rule"], kinds
    assert not any("module 3" in n.text or "rl/agents" in n.text for n in res.repo_notes)
    assert any("do not accept" in c.text for c in res.policy_conflicts)
    human = res.human()
    assert "repo note (sign-off): CONTRIBUTING.md:" in human and "repo note (title-rule)" in human


def test_ships_and_shared_settings(tmp_path, campaign):
    draft = dict(
        DRAFT,
        ships=[SHIPPED_B[:8]],
        details={
            "shared_settings": ["`CACHE_DIR=/tmp/c` for both", "`--bucket 4` for the speedup"],
            "command_baseline": "CACHE_DIR=/tmp/c python train.py",
            "command_pr": "CACHE_DIR=/tmp/c python train.py --bucket 4",
        },
    )
    res, text, repo = _render(tmp_path, campaign, {}, draft)
    details = text[text.index("<details>") :]
    assert "`CACHE_DIR=/tmp/c` for both" in details and "`--bucket 4` for the speedup" not in details
    assert any("--bucket 4" in w and "only one command" in w for w in res.warnings)
    assert "Cache the attention mask" in details.split("Tried and not kept")[1]  # recorded shipped, not shipped here
    assert "| `" + SHIPPED_A[:12] not in text  # one shipped commit: no per-commit table
    _clean(res, repo, campaign, draft)


def test_the_job_name_is_not_campaign_vocabulary(tmp_path, campaign):
    draft = dict(DRAFT, job="logging hook benchmark", summary="The logging hook benchmark spends 2 s per slow step.")
    res, _, repo = _render(tmp_path, campaign, {}, draft)
    assert not [f for f in res.lint_pr if f.rule == "campaign-word"], res.lint_pr
    found = lint_wording(text="# t on 8 H100\n\nThe hook was slow.\n", kind="issue", draft=draft).findings
    assert [f.excerpt for f in found if f.rule == "campaign-word"] == ["hook"]


def test_lint_wording_reads_only_the_drafts_benchmark_and_job(tmp_path, campaign):
    res, _, repo = _render(tmp_path, campaign, {})
    bad = dict(DRAFT, benchmark={"warmup_steps": -1})
    with pytest.raises(Exception) as e:
        lint_wording(path=res.pr_path, campaign_dir=str(campaign), draft=bad)
    assert getattr(e.value, "field", "") == "draft.benchmark.warmup_steps"
    assert PR_FILE in res.pr_path


SHAPES = {
    "bot-cut": {".github/PULL_REQUEST_TEMPLATE.md": CUT},
    "cut-in-comment": {".github/PULL_REQUEST_TEMPLATE.md": CUT_IN_COMMENT},
    "results-with-boxes": {".github/PULL_REQUEST_TEMPLATE.md": RESULTS_WITH_BOXES},
    "bot-help": {".github/PULL_REQUEST_TEMPLATE.md": BOT_HELP},
    "fixes": {".github/PULL_REQUEST_TEMPLATE.md": FIXES},
    "bare-and-wrapped": {".github/PULL_REQUEST_TEMPLATE.md": BARE_AND_WRAPPED},
    "disclosure": {".github/PULL_REQUEST_TEMPLATE.md": DISCLOSURE},
    "title-rule": {".github/PULL_REQUEST_TEMPLATE.md": TITLE_RULE},
    "summary-twice": {".github/PULL_REQUEST_TEMPLATE.md": SUMMARY_TWICE},
    "setext": {"docs/pull_request_template.md": SETEXT},
    "folder": FOLDER,
    "long-contributing": {
        "PULL_REQUEST_TEMPLATE.md": "## Tests\n\n<!-- what ran -->\n",
        "CONTRIBUTING.md": CONTRIBUTING_LONG,
    },
}
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def example_campaign(tmp_path_factory) -> Path:
    """The example campaign (with its re-verification record), as make_examples.py renders it."""
    import shutil

    root = tmp_path_factory.mktemp("ex") / "campaign"
    shutil.copytree(EXAMPLES / "campaign", root)
    return root


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_example_campaign_renders_lint_clean_in_every_shape(tmp_path, example_campaign, shape):
    draft = str(EXAMPLES / "publish" / "draft.json")
    repo = _repo(tmp_path, SHAPES[shape])
    res = render_pr(str(example_campaign), str(repo), draft=draft, out_dir=str(tmp_path / "out"))
    text = Path(res.pr_path).read_text()
    assert text.count("<details><summary>Details:") == 1 and "## Correctness Verification" in text
    assert res.pr_template.path is not None
    _clean(res, repo, example_campaign, draft)


def test_repo_commit_follows_the_template_of_the_branch_the_pr_targets(tmp_path, campaign):
    """The checkout is on the campaign's branch; the maintainers changed the template on main since.
    repo_commit reads the templates from git at that commit; the checkout itself is not touched."""
    from perfkit.errors import InputError

    r = Repo(tmp_path / "repo")
    r.commit("old template", {".github/PULL_REQUEST_TEMPLATE.md": "## Purpose\n\n## Test Plan\n"})
    r.git("branch", "-M", "main")
    r.git("checkout", "-q", "-b", "campaign")
    r.commit("campaign work", {"src/kernel.py": "x = 1\n"})
    r.git("checkout", "-q", "main")
    new_tpl = "## Release Notes\n\n<!-- one line for the changelog -->\n\n- [ ] I ran the unit tests\n"
    main_sha = r.commit("new template", {".github/PULL_REQUEST_TEMPLATE.md": new_tpl})
    r.git("checkout", "-q", "campaign")
    status_before = r.git("status", "--porcelain")
    out = tmp_path / "out"
    at_head = render_pr(str(campaign), str(r.path), draft=DRAFT, out_dir=str(out))
    head_text = Path(at_head.pr_path).read_text()
    assert "## Test Plan" in head_text and "## Release Notes" not in head_text
    at_main = render_pr(str(campaign), str(r.path), draft=DRAFT, out_dir=str(out), repo_commit="main")
    text = Path(at_main.pr_path).read_text()
    assert "## Release Notes" in text and "## Test Plan" not in text
    assert at_main.repo_commit == main_sha and at_head.repo_commit != main_sha
    assert f"at {main_sha[:12]}" in at_main.human()
    assert r.git("status", "--porcelain") == status_before and r.git("rev-parse", "--abbrev-ref", "HEAD") == "campaign"
    # lint_wording reads the same commit: the new template's heading is the repo's own there
    on_main = lint_wording(path=at_main.pr_path, repo=str(r.path), repo_commit="main").findings
    on_head = lint_wording(path=at_main.pr_path, repo=str(r.path)).findings
    assert not [f for f in on_main if f.rule == "unrequested-section"]
    assert any(f.rule == "unrequested-section" and "Release Notes" in f.excerpt for f in on_head), on_head
    for call, field in (
        (
            lambda: render_pr(str(campaign), str(r.path), draft=DRAFT, out_dir=str(out), repo_commit="no-such"),
            "repo_commit",
        ),
        (lambda: lint_wording(path=at_main.pr_path, repo_commit="main"), "repo_commit"),
    ):
        with pytest.raises(InputError) as err:
            call()
        assert err.value.field == field
