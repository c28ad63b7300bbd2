"""render_pr's companion issue against issue forms and templates in the shapes real ML repositories use.

Every test commits forms from tests/shapes/forms into a real git repository, renders the example
campaign with the example draft, and checks which form was chosen, what landed under each field
(compared with the draft's own words, not with perfkit's output), and that the issue lints clean
with the repo and the campaign given.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import anyio
import pytest
from helpers.gitbuild import Repo
from perfkit.errors import InputError
from perfkit.lint.lint import lint_wording
from perfkit.publish.render import render_pr

ROOT = Path(__file__).resolve().parents[1]
DRAFT = json.loads((ROOT / "examples" / "publish" / "draft.json").read_text())
SHAPES = Path(__file__).resolve().parent / "shapes" / "forms"
FOLDER = ".github/ISSUE_TEMPLATE/"
OBSERVED = DRAFT["issue"]["observed"]
LOGS_SAID = DRAFT["issue"]["logs_said"]
HARDWARE = DRAFT["details"]["hardware"]
COMMAND = DRAFT["details"]["command_baseline"]  # the issue reproduces what upstream runs
PR_COMMAND = DRAFT["details"]["command_pr"]
PR_NOTE = "I opened #<PR> to keep a record of the experiment"


_COPY: dict[str, Path] = {}


@pytest.fixture(autouse=True, scope="module")
def _campaign_with_its_verify_record(tmp_path_factory):
    """The example campaign plus the re-verification record its correctness figures come from, as
    make_examples.py renders it, so the description lints clean too, not only the issue."""
    copy = tmp_path_factory.mktemp("example") / "campaign"
    shutil.copytree(ROOT / "examples" / "campaign", copy)
    _COPY["campaign"] = copy


def campaign() -> Path:
    return _COPY["campaign"]


def shape(name: str) -> str:
    return (SHAPES / name).read_text()


def forms(*names: str) -> dict[str, str]:
    return {FOLDER + n: shape(n) for n in names}


def make_repo(path: Path, files: dict[str, str]) -> Repo:
    repo = Repo(path)
    repo.commit("templates", {"README.md": "# tinyflow\n", **files})
    return repo


def render(tmp_path: Path, files: dict[str, str], draft=DRAFT, **kw):
    repo = make_repo(tmp_path / "repo", files)
    res = render_pr(str(campaign()), str(repo.path), draft=draft, out_dir=str(tmp_path / "out"), **kw)
    issue = Path(res.issue_path).read_text()
    assert PR_COMMAND not in issue  # the PR's options do not exist upstream yet
    for path in (res.issue_path, res.pr_path):  # both drafts, as lint_wording reads them with repo and campaign
        found = lint_wording(path=path, campaign_dir=str(campaign()), repo=str(repo.path), draft=draft)
        assert found.findings == [], (path, [(f.rule, f.excerpt) for f in found.findings])
    assert res.lint_issue == [] and res.lint_pr == []
    return res, issue


def under(issue: str, heading: str) -> str:
    """The text between a heading line and the next heading of any level, outside code blocks."""
    lines = issue.split("\n")
    start = lines.index(heading) + 1
    out, fence = [], False
    for ln in lines[start:]:
        if ln.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"^#{1,6} ", ln):
            break
        out.append(ln)
    return "\n".join(out).strip()


def fields(res) -> dict[str, list[str]]:
    return {f.label: f.filled_with for f in res.issue_form.fields}


def test_performance_form_wins_and_automation_templates_are_never_chosen(tmp_path):
    names = ("perf_three.yml", "emoji_bug.yml", "question.yml", "feature.yml", "ci_failure.md", "bench_report.md")
    res, issue = render(tmp_path, forms(*names, "config.yml"))
    use = res.issue_form
    assert use.path == FOLDER + "perf_three.yml" and use.labels == ["performance"]
    assert "a performance form" in use.why and "'performance' in its name" in use.why
    assert sorted(use.candidates) == sorted(FOLDER + n for n in names)  # config.yml is not a form
    by_path = {s.path.removeprefix(FOLDER): s for s in use.scores}
    assert by_path["ci_failure.md"].score == 0 and "meant for automation" in by_path["ci_failure.md"].reason
    assert by_path["bench_report.md"].score == 0 and "{{ env." in by_path["bench_report.md"].reason
    assert by_path["emoji_bug.yml"].kind == "bug" and by_path["question.yml"].kind == "question"
    assert [s.path for s in use.scores][0] == use.path
    assert all(a.score >= b.score for a, b in zip(use.scores, use.scores[1:], strict=False))
    assert "{{" not in issue and "GITHUB_WORKFLOW" not in issue
    assert issue.startswith("# [Perf]: " + DRAFT["issue"]["title"])
    proposal = under(issue, "### Proposal to improve performance")
    assert proposal.startswith(OBSERVED) and LOGS_SAID in proposal
    assert under(issue, "### Report of performance regression") == "_No response_"
    assert under(issue, "### Misc discussion on performance").startswith(PR_NOTE)
    assert COMMAND not in issue and HARDWARE not in issue  # no field asks for them; they are in the PR
    assert fields(res)["Report of performance regression"] == ["empty"]
    assert [f.role for f in use.fields] == ["problem", "regression", "context"]


def test_ci_template_with_speed_inside_a_word_and_help_us_is_neither_performance_nor_question(tmp_path):
    from perfkit.publish.forms import parse, rank

    res, issue = render(tmp_path, forms("ci_failure.md", "emoji_bug.yml"))
    assert res.issue_form.path == FOLDER + "emoji_bug.yml"
    assert "a bug form" in res.issue_form.why and "question" not in res.issue_form.why
    assert "{{" not in issue and "Nightly" not in issue
    # the same words without the expressions and the CI words: a bug form, not performance, not question
    text = "---\nname: Lightspeedy failure\nabout: Something broke. Please help us find the cause.\n---\n\n## What\n"
    s = rank.score(parse.markdown_template("x.md", text))
    assert s.automation is None and s.kind == "bug" and "speed" not in s.reason
    s2 = rank.score(parse.markdown_template("x.md", text.replace("Lightspeedy failure", "Speed of Lightspeedy")))
    assert s2.kind == "performance" and "'speed' in its name" in s2.reason


def test_only_automation_templates_leave_the_plain_issue(tmp_path):
    res, issue = render(tmp_path, forms("ci_failure.md", "bench_report.md"))
    assert res.issue_form.path is None and "meant for automation" in res.issue_form.why
    assert len(res.issue_form.scores) == 2 and all(s.score == 0 for s in res.issue_form.scores)
    paras = issue.strip().split("\n\n")
    assert paras[0] == "# " + DRAFT["issue"]["title"] and paras[1].startswith(OBSERVED)
    assert paras[2] == LOGS_SAID and paras[3].startswith(PR_NOTE)
    with pytest.raises(InputError) as err:
        render_pr(
            str(campaign()), str(tmp_path / "repo"), draft=DRAFT, out_dir=str(tmp_path / "o2"), issue_form="ci_failure"
        )
    assert err.value.field == "issue_form" and "automation" in err.value.problem


def test_bug_form_fields_get_what_they_ask(tmp_path):
    res, issue = render(tmp_path, forms("emoji_bug.yml", "question.yml"), issue_form="emoji_bug.yml")
    use = res.issue_form
    assert use.name == "\U0001f41b Bug report" and use.labels == ["bug", "triage"] and use.title_prefix == "[Bug]:"
    assert issue.startswith("# [Bug]: ")
    problem = under(issue, "### Problem description")
    assert problem.startswith(OBSERVED) and LOGS_SAID in problem and PR_NOTE in problem
    assert HARDWARE not in problem and COMMAND not in problem
    assert under(issue, "### Name and version") == "<answer 'Name and version'>"  # required, the draft cannot say
    assert under(issue, "### Steps to reproduce") == f"```bash\n{COMMAND}\n```"
    assert under(issue, "### Your environment") == HARDWARE
    logs = under(issue, "### Relevant log output")
    assert OBSERVED not in logs and LOGS_SAID not in logs and logs.startswith("No error or log output")
    assert fields(res) == {
        "Problem description": ["observed", "logs_said", "pr_note"],
        "Name and version": ["placeholder"],
        "Steps to reproduce": ["reproduce"],
        "Your environment": ["environment"],
        "Relevant log output": ["honest answer"],
    }
    assert "Thanks for taking the time" not in issue  # markdown elements are not posted


def test_question_form_comes_before_a_bug_form(tmp_path):
    res, issue = render(tmp_path, forms("emoji_bug.yml", "question.yml", "docs.yml", "config.yml"))
    assert res.issue_form.path == FOLDER + "question.yml" and res.issue_form.name == "\u2753 Question"
    assert issue.startswith("# [Question]: ")
    q = under(issue, "### Your question")
    assert q.startswith(OBSERVED) and q.endswith("Another fix may well suit the codebase better.")
    assert under(issue, "### What did you try already?") == "_No response_"
    kinds = {s.path.removeprefix(FOLDER): s.kind for s in res.issue_form.scores}
    assert kinds == {"emoji_bug.yml": "bug", "question.yml": "question", "docs.yml": "docs"}


def test_markdown_template_is_filled_in_place(tmp_path):
    res, issue = render(tmp_path, forms("perf_env.md", "emoji_bug.yml"))
    use = res.issue_form
    assert use.path == FOLDER + "perf_env.md" and use.name == "\U0001f40c Performance issue"
    assert use.labels == ["performance", "needs-triage"] and use.title_prefix is None
    assert "needs-triage" not in issue and "about:" not in issue  # the front matter is not posted
    assert "<!-- Thank you for the report." in issue and "<!-- What is slow, and how did you measure it? -->" in issue
    describe = under(issue, "## Describe the performance issue")
    assert describe.startswith("<!-- What is slow") and OBSERVED in describe
    env = under(issue, "## Environment").split("\n")
    cuda = re.search(r"CUDA \d+(?:\.\d+)+", HARDWARE).group(0)
    torch = re.search(r"PyTorch \d+(?:\.\d+)+", HARDWARE).group(0)
    assert env == [
        f"- GPU model: {DRAFT['gpu']}",
        f"- Number of GPUs: {DRAFT['gpu_count']}",
        f"- CUDA version: {cuda}",
        f"- PyTorch version: {torch}",
        "- OS: <OS>",  # the draft does not say
    ]
    assert under(issue, "## How to reproduce") == f"The command you ran:\n\n```\n{COMMAND}\n```"
    assert under(issue, "## What did you expect?") == LOGS_SAID
    assert under(issue, "## Logs") == "```\n```"  # no logs in the draft: left as the template has it
    assert under(issue, "## Checklist") == "- [ ] I ran the latest release.\n- [ ] I searched the existing issues."
    f = fields(res)
    assert f["Environment"] == ["draft", "placeholder"] and f["How to reproduce"] == ["reproduce"]


def test_dropdowns_and_checkboxes_take_only_what_the_draft_backs(tmp_path):
    res, issue = render(tmp_path / "a", forms("kinds_dropdowns.yml"))
    assert res.issue_form.path == FOLDER + "kinds_dropdowns.yml" and issue.startswith("# [Slow]: ")
    assert under(issue, "### Issue type") == "Performance"
    assert under(issue, "### Which accelerator did you use?") == DRAFT["gpu"]
    assert under(issue, "### Operating system") == "<one of: Linux, Windows, macOS>"
    assert under(issue, "### What is slow?").startswith(OBSERVED)
    assert under(issue, "### Checks") == (
        "- [ ] I am on the latest release.\n- [ ] I can share a profile.\n\n<tick what is true in 'Checks'>"
    )
    answered = dict(
        DRAFT, issue=dict(DRAFT["issue"], form_answers={"checks": "I am on the latest release.", "os": "Linux"})
    )
    res2, issue2 = render(tmp_path / "b", forms("kinds_dropdowns.yml"), draft=answered)
    assert under(issue2, "### Checks") == "- [X] I am on the latest release.\n- [ ] I can share a profile."
    assert under(issue2, "### Operating system") == "Linux"
    other_gpu = dict(DRAFT, gpu="B200", details=dict(DRAFT["details"], hardware="One node with 8 B200."))
    _, issue3 = render(tmp_path / "c", forms("kinds_dropdowns.yml"), draft=other_gpu)
    assert under(issue3, "### Which accelerator did you use?") == "<one of: A100, H100, MI300X, Other>"


def test_form_chosen_by_name_with_emoji_and_code_rendered_fields(tmp_path):
    res, issue = render(tmp_path, forms("system_info.yml", "perf_three.yml"), issue_form="Bug Report")
    assert res.issue_form.path == FOLDER + "system_info.yml" and "issue_form parameter" in res.issue_form.why
    assert under(issue, "### System Info") == f"```text\n{HARDWARE}\n```"
    assert under(issue, "### Who can help?") == "_No response_"  # asks whom to tag: not ours to say
    assert under(issue, "### Information") == "- [ ] The official example scripts\n- [ ] My own modified scripts"
    repro = under(issue, "### Reproduction")
    assert repro.startswith(OBSERVED) and f"```bash\n{COMMAND}\n```" in repro and PR_NOTE in repro
    assert under(issue, "### Expected behavior") == LOGS_SAID
    assert fields(res)["Who can help?"] == ["empty"]


def test_a_form_s_own_environment_list_is_filled(tmp_path):
    res, issue = render(tmp_path / "a", forms("env_value.yml"))
    nccl = re.search(r"NCCL \d+(?:\.\d+)+", HARDWARE).group(0)
    cuda = re.search(r"CUDA \d+(?:\.\d+)+", HARDWARE).group(0)
    assert under(issue, "### Environment").split("\n") == [
        f"- GPU type: {DRAFT['gpu']}",
        f"- CUDA version: {cuda}",
        f"- NCCL version: {nccl}",
        "- Driver version: <Driver version>",
    ]
    assert under(issue, "### PyTorch version") == re.search(r"PyTorch \d+(?:\.\d+)+", HARDWARE).group(0)
    assert under(issue, "### Number of GPUs") == str(DRAFT["gpu_count"])
    bare = dict(DRAFT, details={k: v for k, v in DRAFT["details"].items() if k != "hardware"})
    res2, issue2 = render(tmp_path / "b", forms("env_value.yml"), draft=bare)
    assert "- CUDA version: <CUDA version>" in under(issue2, "### Environment")
    assert under(issue2, "### PyTorch version") == "_No response_"


def test_unreadable_forms_are_named_with_the_parser_s_message(tmp_path):
    outside = tmp_path / "secret.env"
    outside.write_text("API_TOKEN=do-not-leak-4242\n")
    deep = "name: Deep\nbody:\n  - " + "[" * 200 + "]" * 200 + "\n"
    files = forms("broken.yml", "laughs.yml", "docs.yml", "config.yml")
    files[FOLDER + "deep.yml"] = deep
    files[FOLDER + "bad_front.md"] = "---\nname: [Perf\n---\n\n## What\n"
    repo = make_repo(tmp_path / "repo", files)
    os.symlink(outside, repo.path / FOLDER / "leak.yml")
    repo.commit("a form that is a link out of the repository")
    res = render_pr(str(campaign()), str(repo.path), draft=DRAFT, out_dir=str(tmp_path / "out"))
    issue = Path(res.issue_path).read_text()
    assert res.issue_form.path == FOLDER + "docs.yml"  # the only readable form
    bad = {u.path.removeprefix(FOLDER): u.error for u in res.issue_form.unreadable}
    broken_line = next(n for n, ln in enumerate(shape("broken.yml").split("\n"), 1) if "[What" in ln)
    assert set(bad) == {"broken.yml", "laughs.yml", "deep.yml", "bad_front.md", "leak.yml"}
    assert bad["broken.yml"].startswith(f"line {broken_line + 1}:") or bad["broken.yml"].startswith(
        f"line {broken_line}:"
    )
    assert "aliases expanded" in bad["laughs.yml"] and "deeper than 64" in bad["deep.yml"]
    assert bad["bad_front.md"].startswith("line 2:") and "symlink" in bad["leak.yml"]
    assert all(sum(p in w for w in res.warnings) == 1 for p in bad)  # each named once
    text = res.model_dump_json() + issue + res.human()
    assert "do-not-leak-4242" not in text and "not read: .github/ISSUE_TEMPLATE/broken.yml" in res.human()
    assert res.human().count(FOLDER + "docs.yml") == 1  # the chosen form once, the others with their scores
    found = lint_wording(path=res.issue_path, campaign_dir=str(campaign()), repo=str(repo.path), draft=DRAFT)
    assert found.findings == []


def test_single_template_without_front_matter_at_the_github_folder(tmp_path):
    res, issue = render(tmp_path, {".github/ISSUE_TEMPLATE.md": shape("plain_template.md")})
    assert res.issue_form.path == ".github/ISSUE_TEMPLATE.md" and res.issue_form.name == "ISSUE_TEMPLATE"
    pre = issue.split("### What happened")[0]
    assert f"**GPU model**: {DRAFT['gpu']}" in pre
    assert "**Driver version**: <Driver version>" in pre and "**Framework version**: <Framework version>" in pre
    assert under(issue, "### What happened").startswith(OBSERVED)
    assert under(issue, "### Command") == f"```\n{COMMAND}\n```"
    assert under(issue, "### Anything else").startswith(PR_NOTE)
    assert "Please fill in every line" not in issue  # the template's words to the author, before its first heading


def render_over_mcp(repo: Repo, out: Path):
    """render_pr through the real MCP client, the example campaign and draft into out; the raw tool result."""
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            return await c.call_tool(
                "render_pr",
                {"campaign_dir": str(campaign()), "repo": str(repo.path), "draft": DRAFT, "out_dir": str(out)},
            )

    return anyio.run(go)


def test_render_pr_over_mcp_reports_the_choice_and_the_unreadable(tmp_path):
    repo = make_repo(tmp_path / "repo", forms("perf_three.yml", "ci_failure.md", "broken.yml", "question.yml"))
    res = render_over_mcp(repo, tmp_path / "o")
    assert not res.is_error, res.content
    use = res.structured_content["issue_form"]
    assert use["path"] == FOLDER + "perf_three.yml"
    assert [(s["path"].removeprefix(FOLDER), s["kind"]) for s in use["scores"]] == [
        ("perf_three.yml", "performance"),
        ("question.yml", "question"),
        ("ci_failure.md", "bug"),
    ]
    assert use["scores"][-1]["score"] == 0 and "automation" in use["scores"][-1]["reason"]
    assert [u["path"] for u in use["unreadable"]] == [FOLDER + "broken.yml"]
    assert [f["filled_with"] for f in use["fields"]] == [["observed", "logs_said"], ["empty"], ["pr_note"]]
    issue = (tmp_path / "o" / "proposed-issue.md").read_text()
    assert under(issue, "### Proposal to improve performance").startswith(OBSERVED)


def test_template_with_bold_lines_for_headings_and_example_values(tmp_path):
    res, issue = render(tmp_path, forms("bold_headings.md", "docs.yml"))
    assert res.issue_form.path == FOLDER + "bold_headings.md"
    kinds = {s.path.removeprefix(FOLDER): s.kind for s in res.issue_form.scores}
    assert kinds == {"bold_headings.md": "bug", "docs.yml": "docs"}  # "Report a problem": a bug form, still before docs
    f = {x.label: (x.role, x.filled_with) for x in res.issue_form.fields}
    assert f["How to trigger it"] == ("reproduce", ["reproduce"])  # read from its prompt: "the steps, or the command"
    assert f["Your setup (fill in what you can)"][0] == "environment"

    def block(title: str) -> str:
        return issue.split(f"**{title}**", 1)[1].split("\n\n**", 1)[0]

    # what the template asks the author goes; the answer takes its place
    assert block("What went wrong").strip().startswith(OBSERVED) and "Describe what you saw" not in issue
    assert block("How to trigger it").strip() == f"```bash\n{COMMAND}\n```"
    assert "1. Install '...'" not in issue and "The steps, or the command line" not in issue
    assert block("What you expected instead").strip() == LOGS_SAID and "What should have happened" not in issue
    setup = issue.split("**Your setup (fill in what you can):**\n", 1)[1].split("\n\n", 1)[0].split("\n")
    assert setup == [
        " - OS: <OS>",  # the draft does not say: a placeholder for the human, never the template's example
        f" - GPU: {DRAFT['gpu_count']} {DRAFT['gpu']}",
        f" - CUDA version: {re.search(r'CUDA [0-9]+[.][0-9]+', HARDWARE).group(0)}",
        " - Framework version: <Framework version>",
    ]
    assert "e.g." not in issue and "Screenshots, links, related issues" not in issue
    assert {"<OS>", "<Framework version>"} <= {i.text for i in res.left_for_human}
    assert block("Anything else").rstrip().endswith("Another fix may well suit the codebase better.")
    assert HARDWARE not in issue  # the setup lines say it, one value each


@pytest.mark.parametrize(
    "name, about, automated",
    [
        ("Slow training", "Report slowness in your training workflow", False),
        ("Bug report", "Automated tests fail after an upgrade", False),
        ("Chatbot latency", "Replies take too long", False),
        ("Benchmark results", "Posted by the benchmark job after each release", True),
        ("Regression found", "Filed automatically when the perf dashboard drops", True),
        ("CI failure", "Something broke on main", False),  # a person reports a CI problem: "ci" is not a bot
        ("Flaky test", "A CI job fails now and then on GitHub Actions", False),
        ("Nightly regression", "Created by the nightly-perf workflow", True),
        ("Weekly digest", "Auto-generated every Monday", True),
    ],
)
def test_automation_is_told_by_what_files_the_issue(name, about, automated):
    from perfkit.publish.forms import parse, rank

    form = parse.markdown_template("t.md", f"---\nname: {name}\nabout: {about}\n---\n\n## What\n")
    assert (rank.automation(form) is not None) is automated


@pytest.mark.parametrize(
    "label, expected",
    [
        ("Your current environment", "environment"),
        ("Describe the bug", "problem"),
        ("Steps to reproduce", "reproduce"),
        ("Minimal reproducible example", "reproduce"),
        ("Expected behavior", "expected"),
        ("Describe the solution you'd like", "solution"),
        ("Relevant log output", "logs"),
        ("Error logs", "logs"),
        ("Proposal to improve performance", "problem"),
        ("Report of performance regression", "regression"),
        ("Misc discussion on performance", "context"),
        ("Name and version", "software"),
        ("Who can help?", "people"),
        ("Is there an existing issue for this?", "checklist"),
        ("Before submitting a new issue...", "checklist"),
        ("What happened?", "problem"),
        ("Pitch", "solution"),
    ],
)
def test_a_field_s_role_is_what_its_words_ask(label, expected):
    from perfkit.publish.forms.model import FormField
    from perfkit.publish.forms.roles import role

    assert role(FormField(label=label, kind="textarea")) == expected
    # an unhelpful label defers to the id, then to the description
    assert role(FormField(label="Details please", kind="textarea", id="logs")) == "problem"
    assert role(FormField(label="Extra", kind="textarea", id="repro-steps")) == "reproduce"
    assert role(FormField(label="Extra", kind="textarea", description="Paste the traceback")) == "logs"


def _template_words(text: str) -> list[str]:
    """The visible sentences of a template that ask the author for something, as a reader picks them out by
    hand for these shapes: every prose line outside front matter, headings, boxes, fields, code and comments."""
    body = text.split("---", 2)[2] if text.startswith("---") else text
    out, fence = [], False
    for ln in body.split("\n"):
        s = ln.strip()
        if s.startswith("```"):
            fence = not fence
            continue
        if fence or not s or s.startswith(("#", "<!--", "- [", "* ", "**")) or re.match(r"^- [^:]+:", s):
            continue
        out.append(s)
    return out


def test_markdown_template_prompts_give_way_to_answers(tmp_path):
    """A bold-label template whose every label has a prompt under it: the prompts are not posted, the draft's
    paragraphs take their place, and a label the draft does not answer gets one placeholder for the human."""
    res, issue = render(tmp_path, forms("feature_bold_prompts.md"))
    asks = _template_words(shape("feature_bold_prompts.md"))
    assert len(asks) == 6 and not [a for a in asks if a in issue]
    labels = [ln for ln in issue.split("\n") if ln.startswith("**")]
    assert labels == [
        "**Is this request about a problem you hit? If so, describe it.**",
        "**What would you like to happen?**",
        "**The solution you would like**",
        "**What else did you consider?**",
        "**Anything more**",
    ]

    def block(title: str) -> str:
        return issue.split(f"**{title}**", 1)[1].split("\n\n**", 1)[0].strip()

    assert block("Is this request about a problem you hit? If so, describe it.").startswith(OBSERVED)
    assert block("What would you like to happen?") == LOGS_SAID  # the behaviour wanted: the log line that was missing
    assert block("The solution you would like").startswith(PR_NOTE)  # the PR is the fix proposed
    assert block("Anything more") == "<answer 'Anything more'>"
    # what else the author considered is the author's to say: one placeholder where the prompt stood, listed
    assert block("What else did you consider?") == "<answer 'What else did you consider?'>"
    assert "<answer 'What else did you consider?'>" in {i.text for i in res.left_for_human}
    assert COMMAND not in issue  # a snippet of API use is not the command that shows the cost
    answers = {"What else did you consider?": "Padding every batch to the longest length in the dataset."}
    draft = {**DRAFT, "issue": {**DRAFT["issue"], "form_answers": answers}}
    _, again = render(tmp_path / "again", forms("feature_bold_prompts.md"), draft=draft)
    assert answers["What else did you consider?"] in again and "<answer 'What else did you consider?'>" not in again


def test_tracking_form_is_not_a_proposal_and_community_words_are_not_posted(tmp_path):
    res, issue = render(tmp_path, forms("community_tracking.md", "community_bug.md"))
    kinds = {s.path.removeprefix(FOLDER): s.kind for s in res.issue_form.scores}
    assert kinds == {"community_tracking.md": "tracker", "community_bug.md": "bug"}
    assert res.issue_form.path == FOLDER + "community_bug.md" and issue.startswith("# [Bug] ")
    for said in _template_words(shape("community_bug.md")):
        assert said not in issue, said  # the welcome, each prompt and the triage instruction
    assert under(issue, "### Actual behavior").startswith(OBSERVED)
    assert under(issue, "### Environment") == HARDWARE
    assert under(issue, "### Steps to reproduce") == f"```bash\n{COMMAND}\n```"
    # the label list the template starts stays, for the human to extend
    assert under(issue, "### Triage").startswith("* needs-triage")
    # named by the user, the tracker is followed all the same, its work-item box kept unticked
    res2, tracked = render(
        tmp_path / "t", forms("community_tracking.md", "community_bug.md"), issue_form="community_tracking.md"
    )
    assert res2.issue_form.path == FOLDER + "community_tracking.md"
    assert "Welcome to the tinyflow community" not in tracked and "- [ ] Part 1." in tracked


def test_fields_with_examples_and_prompts_in_code_blocks(tmp_path):
    res, issue = render(tmp_path, forms("speed_fields.md"))
    lines = issue.split("\n")

    def field(label: str) -> str:
        return next(ln for ln in lines if ln.startswith(f"- {label}"))

    model = json.loads((ROOT / "examples" / "publish" / "draft.json").read_text())["details"].get("model")
    assert model and field("Model name:") == f"- Model name: {model.rstrip('.')} <!-- e.g. tiny-7b-v2 -->"
    assert field("Model settings").endswith(": <Model settings>")  # a long label with its example, kept
    assert field("Device").endswith(f": {DRAFT['gpu_count']} {DRAFT['gpu']}")
    for label in ("Prefill speed (tok/s)", "Generation speed (tok/s)", "OS (if known)", "Peak memory (if measured)"):
        assert field(label) == f"- {label}: <{label}>"
        assert f"<{label}>" in {i.text for i in res.left_for_human}
    # a code block holding only words that ask (and their translation) is a prompt, not posted; how the
    # project was built is the reporter's to say (the draft knows its run, not a build): a placeholder each
    assert "Paste the build flags" not in issue and "Paste the full build log" not in issue
    assert "在这里粘贴构建参数" not in issue and COMMAND not in issue
    assert under(issue, "## Build flags") == "<answer 'Build flags'>"
    assert under(issue, "## Build output") == "<answer 'Build output'>"
