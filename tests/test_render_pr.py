"""render_pr: structure of the description and the issue against repo templates of many shapes.

Campaigns and target repos are built in each test; figures are checked against a computation
from the rows the test wrote, not against render_pr's own output.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from helpers.gitbuild import Repo
from perfkit.errors import InputError
from perfkit.lint.rules import PR_TITLE_RE
from perfkit.publish.render import ISSUE_FILE, PR_FILE, render_pr

SHIPPED_A = "a" * 8 + "1" * 32
SHIPPED_B = "b" * 8 + "2" * 32
DROPPED = "c" * 8 + "3" * 32


def step_time(arm: str, run: int, step: int) -> float:
    """The rows the campaign holds: a compile-heavy step 1, a steady state, and slow steps for the baseline."""
    if step == 1:
        return {"baseline": 30.0, "pr": 20.0, "alone": 29.0}[arm] + run
    base = {"baseline": 1.0, "pr": 0.8, "alone": 0.95}[arm] + 0.01 * ((step * 7 + run * 3) % 5)
    if arm == "baseline" and step % 6 == 0:
        return 2.0 + 0.01 * (run % 3)
    return round(base, 4)


def make_campaign(
    path: Path, arms=("baseline", "pr", "alone"), runs: int = 4, steps: int = 25, candidates: bool = True
) -> Path:
    path.mkdir(parents=True)
    rows = ["arm,run,step,step_time_s,peak_mem_gb"]
    for run in range(1, runs + 1):
        for arm in arms:
            for step in range(1, steps + 1):
                mem = {"baseline": 40.0, "pr": 38.5, "alone": 40.0}[arm] + 0.1 * run
                rows.append(f"{arm},{run},{step},{step_time(arm, run, step)},{mem:.2f}")
    (path / "benchmark.csv").write_text("\n".join(rows) + "\n")
    if candidates:
        (path / "records").mkdir()
        recs = [
            {
                "sha": SHIPPED_A,
                "title": "Cache the attention mask",
                "shipped": True,
                "baseline": "old0base1234",
                "metric": "step_time_s",
                "before": 1.25,
                "after": 1.2,
            },
            {
                "sha": SHIPPED_B,
                "title": "Pad batches to fixed lengths",
                "shipped": True,
                "baseline": "newbase56789",
                "metric": "step_time_s",
                "before": 1.2,
                "after": 0.9,
            },
            {
                "sha": DROPPED,
                "title": "Channels-last front end",
                "shipped": False,
                "baseline": "newbase56789",
                "metric": "step_time_s",
                "before": 1.2,
                "after": 1.21,
            },
        ]
        (path / "records" / "candidates.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
        for sha in (SHIPPED_A, SHIPPED_B):
            (path / "commits" / sha / "trace").mkdir(parents=True)
            (path / "commits" / sha / "report.md").write_text(f"# report {sha[:8]}\n")
    (path / "latest-report.md").write_text(
        "# Campaign report\n\nVerification: largest difference 0.0021, tolerance 0.01, 3 steps above it.\n"
    )
    return path


def steady_mean(arm: str, runs: int = 4, steps: int = 25) -> float:
    return statistics.mean(step_time(arm, r, s) for r in range(1, runs + 1) for s in range(2, steps + 1))


def make_repo(path: Path, files: dict[str, str]) -> Path:
    repo = Repo(path)
    repo.commit("target repo", files or {"README.md": "target\n"})
    return path


DRAFT = {
    "job": "speech fine-tuning",
    "gpu": "H100",
    "gpu_count": 8,
    "largest_cause": "recompiles",
    "summary": "Some steps take 2 s instead of about 1 s.",
    "changes": [
        {
            "name": "Buckets",
            "problem": "New lengths recompile.",
            "does": "Batches are padded.",
            "limit": "An empty list turns it off.",
        },
        {
            "name": "Mask cache",
            "arm": "alone",
            "problem": "The mask is rebuilt.",
            "does": "It is cached.",
            "limit": "It holds one mask per length.",
        },
    ],
    "correctness": {
        "ran": "I trained both versions on the same batches.",
        "compared": "I compared the loss.",
        "checks": [
            {
                "recorded": "loss at each step",
                "when": "step",
                "compared": "largest difference 0.0021",
                "tolerance": "0.01",
                "exceeded": 3,
            },
            {"recorded": "validation loss", "when": "end", "compared": "identical", "tolerance": "0.01"},
        ],
    },
    "benchmark": {"slow_threshold_s": 1.5},
    "issue": {
        "title": "Speech fine-tuning on H100 recompiles for each new length",
        "observed": "I profiled the job.",
        "logs_said": "The log was silent.",
    },
}

MAPPED_TEMPLATE = """\
<!-- Describe your change. -->

## What does this PR do?

Explain the change.

## Test Result

Paste numbers.

## Test plan

<!-- how did you test -->

## Checklist

- [ ] Tests added
- [ ] Docs updated
"""


def _render(tmp_path: Path, files: dict[str, str], draft=DRAFT, **kw):
    campaign = tmp_path / "campaign"
    if not campaign.exists():
        make_campaign(campaign)
    repo = tmp_path / "repo"
    if not repo.exists():
        make_repo(repo, files)
    res = render_pr(str(campaign), str(repo), draft=draft, **kw)
    return res, Path(res.pr_path).read_text(), Path(res.issue_path).read_text()


def _headings(text: str) -> list[str]:
    out, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"^#{1,6} ", line):
            out.append(line)
    return out


def test_sections_order_tables_and_title(tmp_path):
    res, pr, issue = _render(tmp_path, {".github/PULL_REQUEST_TEMPLATE.md": MAPPED_TEMPLATE})
    heads = _headings(pr)
    assert heads[1:] == [
        "## Summary",
        "### Speedup Result",
        "## Correctness Verification",
        "## What does this PR do?",  # covered: kept in the template's order, pointing to Summary
        "## Test Result",
        "## Test plan",
        "## Checklist",
    ]
    assert (
        pr.index("## Checklist")
        < pr.index("<details><summary>Details: hardware, model, full command, traces</summary>")
        < pr.rindex("</details>")
    )
    assert pr.rstrip().endswith("</details>")
    m = PR_TITLE_RE.match(pr.split("\n")[0])
    # "at world size 8" repeats "8 H100" and would take the title past 100 characters: it goes, nothing lost
    assert m and m.group("hw") == "8 H100" and m.group("ws") is None and m.group("cause") == "recompiles"
    assert len(res.pr_title) <= 100 and not any("the title leaves out" in w for w in res.warnings)
    assert float(m.group("t0")) == pytest.approx(steady_mean("baseline"), abs=0.0051)
    assert float(m.group("t1")) == pytest.approx(steady_mean("pr"), abs=0.0051)
    block = pr.split("### Speedup Result\n\n", 1)[1].split("\n## ", 1)[0].strip().split("\n")
    # the per-commit effects below come from each commit's screening, the table's from the confirmation runs
    assert block[0] == (
        "Measured on 8 H100, in the confirmation runs described in Details; each per-commit effect comes from "
        "screening that commit alone."
    )
    assert block[2] == "| | baseline | this PR | change |"
    assert all(line.startswith("|") for line in block[2:] if line), "nothing but tables after the first line"
    # slow steps: the baseline has one per 6 steady steps; the threshold was given in the draft
    slow = sum(1 for r in range(1, 5) for s in range(2, 26) if step_time("baseline", r, s) > 1.5)
    assert f"| steps slower than 1.50 s | {slow} of 96 | 0 of 96 | -{slow} |" in pr
    assert "| of which: Mask cache, measured alone |" in pr
    # per-commit table, the one measured on another base is marked
    assert "| `aaaaaaaa1111` | Cache the attention mask | -4.0% (measured on a different base, `old0base1234`) |" in pr
    assert "| `bbbbbbbb2222` | Pad batches to fixed lengths | -25.0% |" in pr
    # correctness: failure first, end-of-run rows before per-step rows, exceedance inside its cell
    cv = pr.split("## Correctness Verification\n", 1)[1].split("\n## ", 1)[0]
    assert "1 of the 2 checks is outside the tolerances" in cv
    rows = [line for line in cv.split("\n") if line.startswith("| ") and "---" not in line]
    assert rows[0] == "| recorded | baseline vs this PR | tolerance |"
    assert rows[1].startswith("| validation loss |") and rows[2].startswith("| loss at each step |")
    assert "3 steps above 0.01" in rows[2]
    assert "**" not in cv
    # the covered headings stay with a pointer to our part, and say why
    covered = {p.template: (p.filled, p.why) for p in res.template_parts if p.role == "covered"}
    assert (
        covered["## What does this PR do?"][0] == "pointer"
        and "covered by Summary" in covered["## What does this PR do?"][1]
    )
    assert covered["## Test Result"][0] == "pointer"
    assert res.pr_template.skipped_headings == []
    assert res.pr_template.kept_headings == ["What does this PR do?", "Test Result", "Test plan", "Checklist"]
    assert res.pr_title == pr.split("\n")[0][2:]
    assert Path(res.pr_path).parent == tmp_path / "campaign"


def test_template_folder_picks_performance_and_honours_choice(tmp_path):
    files = {
        ".github/PULL_REQUEST_TEMPLATE/bug_fix.md": "## Bug\n\nWhich bug?\n",
        ".github/PULL_REQUEST_TEMPLATE/performance.md": "## Benchmark\n\nNumbers.\n\n## Risks\n\nAny?\n",
        ".github/PULL_REQUEST_TEMPLATE/docs.md": "## Pages\n\nWhich pages?\n",
    }
    res, pr, _ = _render(tmp_path, files)
    assert res.pr_template.path == ".github/PULL_REQUEST_TEMPLATE/performance.md"
    assert len(res.pr_template.candidates) == 3
    assert "## Risks" in pr and "## Bug" not in pr
    assert "## Benchmark\n\nSee Speedup Result and Correctness Verification above." in pr
    res2, pr2, _ = _render(tmp_path, files, pr_template="docs.md")
    assert res2.pr_template.path.endswith("docs.md") and "## Pages" in pr2 and "## Risks" not in pr2
    with pytest.raises(InputError) as err:
        _render(tmp_path, files, pr_template="nope.md")
    assert err.value.field == "pr_template" and "performance.md" in str(err.value)


def test_lowercase_docs_and_root_locations(tmp_path):
    for i, where in enumerate(
        ["pull_request_template.md", "docs/pull_request_template.md", ".github/pull_request_template.md"]
    ):
        sub = tmp_path / str(i)
        sub.mkdir()
        res, pr, _ = _render(sub, {where: "## Reviewer notes\n\nAnything?\n"})
        assert res.pr_template.path == where
        assert "## Reviewer notes" in pr


def test_template_without_headings_has_its_prompt_replaced(tmp_path):
    text = "Please describe the change and link an issue.\nThanks!\n"
    res, pr, _ = _render(tmp_path, {".github/PULL_REQUEST_TEMPLATE.md": text})
    body = pr.split("\n## Correctness Verification\n", 1)[1]
    assert "Please describe the change" not in body  # it asks for the description: our Summary
    assert "<answer" not in body
    draft = dict(DRAFT, template_answers={"preamble": "Linked: the companion issue."})
    res2, pr2, _ = _render(tmp_path, {}, draft=draft)
    assert "Linked: the companion issue." in pr2 and "<answer" not in pr2 and "Please describe" not in pr2
    assert res2.pr_template.kept_headings == []
    sub = tmp_path / "tests"
    sub.mkdir()
    res3, pr3, _ = _render(sub, {".github/PULL_REQUEST_TEMPLATE.md": "Please list the tests you ran.\n"})
    assert "<answer 'the template'>" in pr3 and "Please list the tests" not in pr3


def test_confirm_box_policy_and_unbacked_boxes(tmp_path):
    text = (
        "## Checklist\n\n- [ ] I ran the tests\n- [x] I updated the docs\n"
        "- [ ] I confirm this is not an agent/AI PR\n- [ ] Signed the CLA\n"
    )
    draft = dict(
        DRAFT,
        checkboxes=[
            {"text": "I ran the tests", "tick": True},
            {"text": "not an agent/AI PR", "tick": True},
            {"text": "Signed the CLA", "reason": "not ticked: the user signs it"},
        ],
    )
    res, pr, _ = _render(tmp_path, {".github/PULL_REQUEST_TEMPLATE.md": text}, draft=draft)
    assert "- [x] I ran the tests\n" in pr
    assert "- [ ] I updated the docs <tick if true, else say why not>" in pr  # template pre-ticked, draft silent
    assert "- [ ] I confirm this is not an agent/AI PR" in pr and "- [x] I confirm" not in pr
    assert "- [ ] Signed the CLA (not ticked: the user signs it)" in pr
    boxes = {b.text: b for b in res.checkboxes}
    assert boxes["I ran the tests"].ticked and not boxes["I updated the docs"].ticked
    assert (
        "pre-ticked" in (boxes["I updated the docs"].note or "") or "had it ticked" in boxes["I updated the docs"].note
    )
    assert "asked to tick" in boxes["I confirm this is not an agent/AI PR"].note
    assert [c.text for c in res.policy_conflicts] == ["I confirm this is not an agent/AI PR"]
    assert res.policy_conflicts[0].line == 5


def test_jinja_comments_and_details_are_data(tmp_path):
    text = (
        "## Environment {{ env }}\n\n{% if user %}Hello {{ user.name }}{% endif %} {# note #}\n"
        "<!--\n## Hidden heading\n- [ ] hidden box\n-->\n\n<details>\n<summary>Logs</summary>\n\n"
        "{{ logs }}\n\n</details>\n\n```\n## not a heading {{ x }}\n```\n\n## Checklist\n\n- [ ] done\n"
    )
    res, pr, _ = _render(tmp_path, {".github/PULL_REQUEST_TEMPLATE.md": text})
    carried = pr.split("\n## Correctness Verification\n", 1)[1]
    for line in text.split("\n"):
        # the sentence under the heading is the template's words to the author: not posted, not evaluated
        in_comment = line in ("<!--", "## Hidden heading", "- [ ] hidden box", "-->")  # an instruction comment: dropped
        if line and line != "- [ ] done" and not line.startswith("{% if user") and not in_comment:
            assert line in carried.split("\n"), line
    assert "Hello" not in carried and "{% if" not in carried
    assert res.pr_template.kept_headings == ["Environment {{ env }}", "Checklist"]
    assert [b.text for b in res.checkboxes] == ["done"]


def test_level_one_headings_and_contributing_notes(tmp_path):
    files = {
        ".github/PULL_REQUEST_TEMPLATE.md": "# Description\n\nWhat?\n\n# Risks\n\nAny?\n",
        "CONTRIBUTING.md": "# Contributing\n\nPR titles must start with [component].\n\n"
        "We do not accept AI-generated pull requests.\n\nSign off with DCO.\n",
    }
    res, pr, _ = _render(tmp_path, files)
    assert "\n# Description\n\nSee Summary above." in pr and "\n# Risks\n" in pr
    kinds = {n.kind for n in res.repo_notes}
    assert {"title-rule", "ai-policy", "sign-off"} <= kinds
    assert any(c.source == "CONTRIBUTING.md" and "AI-generated" in c.text for c in res.policy_conflicts)


def test_no_template_adds_nothing(tmp_path):
    res, pr, _ = _render(tmp_path, {})
    assert res.pr_template.path is None
    assert _headings(pr)[1:] == ["## Summary", "### Speedup Result", "## Correctness Verification"]


def test_no_draft_fills_figures_and_marks_every_prose_slot(tmp_path):
    res, pr, issue = _render(tmp_path, {}, draft=None)
    texts = {p.text for p in res.placeholders}
    ask = "<confirm that no check compared the outputs of both versions, or add each check you ran>"
    for ph in ("<job>", "<GPU>", "<n>", "<share link>", ask, "<PR>", "<full command, this PR>"):
        assert ph in texts, ph
    # no check in the draft: nothing about tolerances or recording code, and no empty table of placeholders
    correctness = pr.split("## Correctness Verification", 1)[1].split("<details>", 1)[0]
    assert "tolerance" not in correctness and "recorded the values" not in correctness and "|" not in correctness
    assert "Numerical equivalence between the two versions is not verified" in correctness
    assert (
        "| mean step time (per run) |" in pr and "<" not in pr.split("| mean step time (per run) |")[1].split("\n")[0]
    )
    assert all(p.file in ("pr", "issue") and p.line >= 1 for p in res.placeholders)
    lines = pr.split("\n")
    for p in res.placeholders:
        if p.file == "pr":
            assert p.text in lines[p.line - 1]


def test_issue_form_preference_and_layout(tmp_path):
    form = (
        'name: {name}\ndescription: d\ntitle: "[{tag}]: "\nlabels: ["{tag}"]\nbody:\n'
        "  - type: textarea\n    attributes:\n      label: Describe it\n    validations:\n      required: true\n"
        "  - type: textarea\n    attributes:\n      label: Expected behavior\n"
        "  - type: input\n    attributes:\n      label: Version\n    validations:\n      required: true\n"
        "  - type: textarea\n    attributes:\n      label: Additional context\n"
    )
    files = {
        ".github/ISSUE_TEMPLATE/bug.yml": form.format(name="Bug report", tag="Bug"),
        ".github/ISSUE_TEMPLATE/question.yml": form.format(name="Question", tag="Question"),
        ".github/ISSUE_TEMPLATE/config.yml": "blank_issues_enabled: false\n",
    }
    res, _, issue = _render(tmp_path / "a", files)
    assert res.issue_form.path == ".github/ISSUE_TEMPLATE/question.yml"
    assert res.issue_form.labels == ["Question"]
    assert issue.startswith("# [Question]: Speech fine-tuning on H100")
    heads = _headings(issue)
    assert heads[1:] == ["### Describe it", "### Expected behavior", "### Version", "### Additional context"]
    body = issue.split("### Describe it\n\n", 1)[1]
    assert body.startswith("I profiled the job.")
    assert "The log was silent." in issue.split("### Expected behavior")[1].split("###")[0]
    assert "<answer 'Version'>" in issue
    assert "I opened #<PR>" in issue.split("### Additional context")[1]
    files[".github/ISSUE_TEMPLATE/perf.yml"] = form.format(name="Performance report", tag="Perf")
    res2, _, _ = _render(tmp_path / "b", files)
    assert res2.issue_form.path.endswith("perf.yml")
    files[".github/ISSUE_TEMPLATE/perf.yml"] = form.format(name="Performance regression", tag="Perf")
    res4, _, _ = _render(tmp_path / "d", files)  # nothing regressed: the question form stays the choice
    assert res4.issue_form.path.endswith("question.yml")
    res3, _, _ = _render(tmp_path / "c", {".github/ISSUE_TEMPLATE/bug.yml": form.format(name="Bug", tag="Bug")})
    assert res3.issue_form.path.endswith("bug.yml")


def test_markdown_issue_template_and_no_form(tmp_path):
    md = (
        "---\nname: Performance\nabout: Slow things\ntitle: ''\nlabels: perf\n---\n\n## Problem\n\n"
        "<!-- what -->\n\n## Context\n"
    )
    res, _, issue = _render(tmp_path / "a", {".github/ISSUE_TEMPLATE/perf.md": md})
    assert res.issue_form.name == "Performance" and res.issue_form.labels == ["perf"]
    assert "## Problem\n\n<!-- what -->\n\nI profiled the job." in issue
    res2, _, issue2 = _render(tmp_path / "b", {})
    assert res2.issue_form.path is None
    paras = issue2.strip().split("\n\n")
    assert paras[0].startswith("# Speech fine-tuning on H100") and len(paras) == 4
    assert paras[1].startswith(
        "I profiled the job. On 8 H100, the change that removes it takes the mean step time from 1.20 s to 0.900 s"
    )
    assert paras[3].startswith("I opened #<PR> ")


def test_nothing_written_on_error(tmp_path):
    campaign = make_campaign(tmp_path / "campaign")
    repo = make_repo(tmp_path / "repo", {})
    out = tmp_path / "out"
    bad = [
        ({"sumary": "x"}, "draft.sumary"),
        (dict(DRAFT, changes=[{"arm": "nope"}]), "draft.changes.arm"),
        (dict(DRAFT, issue={"cause_arm": "nope"}), "draft.issue.cause_arm"),
        ("{not json", "draft"),
        (str(tmp_path / "missing.json"), "draft"),
    ]
    for draft, field in bad:
        with pytest.raises(InputError) as err:
            render_pr(str(campaign), str(repo), draft=draft, out_dir=str(out))
        assert err.value.field == field, (draft, err.value)
        assert not out.exists()
    with pytest.raises(InputError) as err:
        render_pr(str(tmp_path / "nowhere"), str(repo), out_dir=str(out))
    assert err.value.field == "campaign_dir"
    with pytest.raises(InputError) as err:
        render_pr(str(campaign), str(tmp_path / "nowhere"), out_dir=str(out))
    assert err.value.field == "repo"
    assert not out.exists() and not (campaign / PR_FILE).exists()


def test_draft_file_json_yaml_and_object_agree(tmp_path):
    campaign = make_campaign(tmp_path / "campaign")
    repo = make_repo(tmp_path / "repo", {})
    (tmp_path / "d.json").write_text(json.dumps(DRAFT))
    yaml = (
        "job: speech fine-tuning\ngpu: H100\ngpu_count: 8\nlargest_cause: recompiles\n"
        "summary: Some steps take 2 s instead of about 1 s.\nchanges:\n"
        "  - name: Buckets\n    problem: New lengths recompile.\n    does: Batches are padded.\n"
        "    limit: An empty list turns it off.\n"
        "  - name: Mask cache\n    arm: alone\n    problem: The mask is rebuilt.\n    does: It is cached.\n"
        "    limit: It holds one mask per length.\n"
        "correctness:\n  ran: I trained both versions on the same batches.\n  compared: I compared the loss.\n"
        "  checks:\n    - recorded: loss at each step\n      when: step\n      compared: largest difference 0.0021\n"
        '      tolerance: "0.01"\n      exceeded: 3\n'
        '    - {recorded: validation loss, when: end, compared: identical, tolerance: "0.01"}\n'
        "benchmark:\n  slow_threshold_s: 1.5\n"
        "issue:\n  title: Speech fine-tuning on H100 recompiles for each new length\n"
        "  observed: I profiled the job.\n  logs_said: The log was silent.\n"
    )
    (tmp_path / "d.yaml").write_text(yaml)
    texts = []
    for draft in (DRAFT, str(tmp_path / "d.json"), str(tmp_path / "d.yaml"), json.dumps(DRAFT)):
        res = render_pr(str(campaign), str(repo), draft=draft, out_dir=str(tmp_path / "out"))
        texts.append((Path(res.pr_path).read_text(), Path(res.issue_path).read_text()))
    assert all(t == texts[0] for t in texts)


def test_mcp_and_cli_agree(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    campaign = make_campaign(tmp_path / "campaign")
    repo = make_repo(tmp_path / "repo", {".github/PULL_REQUEST_TEMPLATE.md": MAPPED_TEMPLATE})
    (tmp_path / "d.json").write_text(json.dumps(DRAFT))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfkit.cli",
            "render-pr",
            str(campaign),
            str(repo),
            "--draft",
            str(tmp_path / "d.json"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    cli_files = [(campaign / n).read_text() for n in (PR_FILE, ISSUE_FILE)]
    (campaign / PR_FILE).unlink()
    (campaign / ISSUE_FILE).unlink()

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            ok = await c.call_tool("render_pr", {"campaign_dir": str(campaign), "repo": str(repo), "draft": DRAFT})
            bad = await c.call_tool(
                "render_pr", {"campaign_dir": str(campaign), "repo": str(repo), "draft": {"gpu_count": 0}}
            )
            return ok, bad

    ok, bad = anyio.run(go)
    assert not ok.is_error
    assert ok.structured_content == cli
    assert [(campaign / n).read_text() for n in (PR_FILE, ISSUE_FILE)] == cli_files
    assert bad.is_error and "draft.gpu_count" in bad.content[0].text
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "render-pr", str(campaign), str(repo), "--draft", '{"jobb": 1}'],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("perfkit: error: --draft.jobb: ")


def test_unreadable_yaml_is_refused_with_its_line(tmp_path):
    campaign = make_campaign(tmp_path / "campaign")
    repo = make_repo(
        tmp_path / "repo",
        {
            ".github/ISSUE_TEMPLATE/perf.yml": "name: Perf\nbody:\n  - type: textarea\n    attributes: {label: X\n",
            ".github/ISSUE_TEMPLATE/question.md": "---\nname: Question\n---\n\n## Question\n",
        },
    )
    (tmp_path / "d.yaml").write_text("job: x\ngpu: H100: 8\n")
    with pytest.raises(InputError) as err:
        render_pr(str(campaign), str(repo), draft=str(tmp_path / "d.yaml"), out_dir=str(tmp_path / "out"))
    assert err.value.field == "draft" and "line 2" in str(err.value)
    res = render_pr(str(campaign), str(repo), draft=DRAFT, out_dir=str(tmp_path / "out"))
    assert res.issue_form.path == ".github/ISSUE_TEMPLATE/question.md"
    assert any("perf.yml skipped: line 5" in w for w in res.warnings)


def test_templates_are_found_in_a_source_checkout():
    from perfkit.publish.templates_dir import NAMES, templates_dir

    root = Path(__file__).resolve().parents[1]
    assert templates_dir() == root / "templates"
    assert all((templates_dir() / n).is_file() for n in NAMES)
