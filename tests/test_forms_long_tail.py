"""The companion issue on the long tail of issue forms: which form is chosen, which facts land where,
and how an agent answers fields by id, by a part of a label, or with a list of boxes.

The forms are perfkit's own shapes in tests/shapes/longtail (see its README), committed under the
file names such repositories use into a real git repository per test, rendered with the example
campaign and draft, and linted with the repo and the campaign. Expectations come from the draft's
own words, not from perfkit's output.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from perfkit.errors import InputError
from perfkit.publish.forms import parse, rank
from perfkit.publish.render import render_pr
from test_issue_forms import (  # noqa: F401  (the autouse fixture copies the example campaign)
    DRAFT,
    FOLDER,
    HARDWARE,
    LOGS_SAID,
    OBSERVED,
    PR_NOTE,
    _campaign_with_its_verify_record,
    campaign,
    fields,
    make_repo,
    render,
    under,
)

LONGTAIL = Path(__file__).resolve().parent / "shapes" / "longtail"
OLD_SHAPES = Path(__file__).resolve().parent / "shapes" / "forms"
COMMAND = DRAFT["details"]["command_baseline"]
# each shape under the file name a repository of its kind gives it
NAMES = {
    "ep_perf.yml": "05-performance.yml",
    "ep_general.yml": "08-general.yml",
    "perf_discussion_env.yml": "700-performance-discussion.yml",
    "refactor.yml": "2_refactor.yaml",
    "tracker.md": "tracking_issue.md",
    "ci_incident.md": "ci-incident.md",
    "flaky_test.yml": "flaky-test.yml",
    "regression.yml": "perf-regression.yml",
    "bug_takes_perf.yml": "1-bug-report.yml",
    "question_plain.yml": "400-usage.yml",
    "build_install.yml": "3_build-installation-issue.yml",
    "others_bilingual.yml": "6_others.yml",
    "rfc.yml": "750-RFC.yml",
    "codegen_perf.yml": "codegen.yml",
    "model_bug_first_bad.yml": "011-bug-results.yml",
    "ai_field.yml": "report.yml",
    "team_tasks.yml": "work-item.yml",
    "bug_ml_tasks.yml": "bug-report.yml",
    "env_examples.md": "slow_training.md",
}


def shapes(*names: str) -> dict[str, str]:
    out = {}
    for n in names:
        src = LONGTAIL / n if (LONGTAIL / n).exists() else OLD_SHAPES / n
        out[FOLDER + NAMES.get(n, n)] = src.read_text()
    return out


def path_of(name: str) -> str:
    return FOLDER + NAMES.get(name, name)


def score_of(name: str) -> rank.Score:
    text = (LONGTAIL / name).read_text()
    path = NAMES[name]
    form = parse.markdown_template(path, text) if path.endswith(".md") else parse.yaml_form(path, text)
    return rank.score(form)


def with_issue(**kw) -> dict:
    return dict(DRAFT, issue=dict(DRAFT["issue"], **kw))


# --- which form -----------------------------------------------------------------------------------


def test_kinds_are_ranked_performance_question_feature_general_bug_then_the_narrow_ones():
    names = [
        "model_bug_first_bad.yml",
        "others_bilingual.yml",
        "rfc.yml",
        "question_plain.yml",
        "ep_perf.yml",
        "refactor.yml",
        "build_install.yml",
        "ci_incident.md",
        "flaky_test.yml",
        "tracker.md",
        "regression.yml",
    ]
    scores = {n: score_of(n) for n in names}
    kinds = [scores[n].kind for n in names]
    assert kinds == [
        "bug",
        "general",
        "feature",
        "question",
        "performance",
        "refactor",
        "build",
        "ci-failure",
        "flaky-test",
        "tracker",
        "regression",
    ]
    order = sorted(names, key=lambda n: -scores[n].score)
    assert order[:5] == [
        "ep_perf.yml",
        "question_plain.yml",
        "rfc.yml",
        "others_bilingual.yml",
        "model_bug_first_bad.yml",
    ]
    narrow = [n for n in names if scores[n].kind in rank.NARROW_KINDS]
    assert all(scores[n].score < scores["model_bug_first_bad.yml"].score for n in narrow)
    assert all("only when no other kind" in scores[n].reason for n in narrow)
    assert scores["regression.yml"].score == 0 and "nothing regressed" in scores["regression.yml"].reason


def test_ci_and_flaky_forms_are_people_s_forms_not_automation():
    for name in ("ci_incident.md", "flaky_test.yml"):
        s = score_of(name)
        assert s.automation is None and s.never is None, (name, s.reason)
    # the same words with a bot that files it are automation
    text = "---\nname: CI incident\nabout: Opened by the watchdog bot when a runner dies\n---\n\n## What\n"
    assert rank.automation(parse.markdown_template("x.md", text)) == "its description says 'opened by the watchdog bot'"


def test_a_description_that_takes_performance_reports_makes_a_performance_form(tmp_path):
    s = score_of("bug_takes_perf.yml")
    assert s.kind == "performance" and "its description takes 'performance not as expected' reports" in s.reason
    res, issue = render(tmp_path / "a", shapes("bug_takes_perf.yml", "question_plain.yml"))
    assert res.issue_form.path == path_of("bug_takes_perf.yml") and issue.startswith("# [Bug] ")
    assert under(issue, "### Describe the bug").startswith(OBSERVED)
    assert under(issue, "### Reproduction") == f"```bash\n{COMMAND}\n```"
    # said the other way round, it is a bug form again, and the question form wins
    negated = (
        (LONGTAIL / "bug_takes_perf.yml")
        .read_text()
        .replace(
            "Errors, crashes, wrong outputs, or performance not as expected",
            "Errors and crashes; for performance problems use the discussion board",
        )
    )
    files = shapes("question_plain.yml") | {path_of("bug_takes_perf.yml"): negated}
    res2, _ = render(tmp_path / "b", files)
    assert res2.issue_form.path == path_of("question_plain.yml")
    kinds = {s.path: s.kind for s in res2.issue_form.scores}
    assert kinds[path_of("bug_takes_perf.yml")] == "bug"
    # a slow-code form named for what it takes, with no performance word in its name
    assert score_of("codegen_perf.yml").kind == "performance"


def test_narrow_forms_only_when_nothing_else_exists(tmp_path):
    narrow = ("tracker.md", "ci_incident.md", "flaky_test.yml", "refactor.yml", "build_install.yml")
    res, issue = render(tmp_path / "a", shapes(*narrow, "others_bilingual.yml"))
    assert res.issue_form.path == path_of("others_bilingual.yml")  # a general form beats every narrow one
    assert under(issue, "### 问题描述 Please describe your issue").startswith(OBSERVED)
    res2, issue2 = render(tmp_path / "b", shapes(*narrow))
    use = res2.issue_form
    assert use.path == path_of("refactor.yml") and "no performance, question, feature, general or bug form" in use.why
    assert under(issue2, "### Outline & Motivation").startswith(OBSERVED)
    assert "| Task | Owner | Status |" not in issue2  # the tracker's empty sub-task table is not what was filed
    res3, _ = render(tmp_path / "c", shapes("tracker.md", "regression.yml"))
    assert res3.issue_form.path == path_of("tracker.md")  # last resort, still a person's form


def test_a_regression_form_is_never_chosen_for_an_observation_where_nothing_regressed(tmp_path):
    res, issue = render(tmp_path / "a", shapes("regression.yml", "question_plain.yml"))
    assert res.issue_form.path == path_of("question_plain.yml") and "[Regression]" not in issue
    res2, issue2 = render(tmp_path / "b", shapes("regression.yml"))
    assert res2.issue_form.path is None and "a regression form" in res2.issue_form.why
    assert "name one with issue_form" in res2.issue_form.why
    assert "Previous performance" not in issue2 and issue2.split("\n\n")[1].startswith(OBSERVED)
    # named on purpose, it is used, and still nothing of ours goes under the earlier version's field
    res3, issue3 = render(tmp_path / "c", shapes("regression.yml"), issue_form="perf-regression")
    assert res3.issue_form.path == path_of("regression.yml")
    assert OBSERVED not in under(issue3, "### Previous performance")
    assert under(issue3, "### Current performance").startswith(OBSERVED)


def test_regression_fields_of_a_performance_form_stay_empty(tmp_path):
    res, issue = render(tmp_path, shapes("perf_discussion_env.yml", "model_bug_first_bad.yml"))
    assert res.issue_form.path == path_of("perf_discussion_env.yml")
    assert under(issue, "### Ideas to make it faster").startswith(OBSERVED)
    assert under(issue, "### Slower than an earlier release") == "_No response_"
    assert fields(res)["Slower than an earlier release"] == ["empty"]
    roles = {f.label: f.role for f in res.issue_form.fields}
    assert roles["Slower than an earlier release"] == "regression" and roles["Before you file"] == "checklist"


def test_a_task_table_makes_a_tracker_whatever_its_name_and_a_which_task_field_does_not(tmp_path):
    s = score_of("team_tasks.yml")
    assert s.kind == "tracker" and "its field 'Sub-tasks'" in s.reason
    ml = score_of("bug_ml_tasks.yml")
    assert ml.kind == "bug"  # "Tasks: text classification" asks which ML task, not for a task list
    res, issue = render(tmp_path, shapes("team_tasks.yml", "bug_ml_tasks.yml"))
    assert res.issue_form.path == path_of("bug_ml_tasks.yml") and "| Task | Owner |" not in issue
    assert under(issue, "### Reproduction").startswith(OBSERVED)


# --- facts into the fields that ask -------------------------------------------------------------


def test_the_execution_provider_library_version_comes_from_the_draft_through_the_field_s_example(tmp_path):
    res, issue = render(tmp_path / "a", shapes("ep_perf.yml", "ep_general.yml"))
    assert res.issue_form.path == path_of("ep_perf.yml") and issue.startswith("# [Performance] ")
    assert under(issue, "### Execution Provider") == "CUDA"  # the draft names CUDA; a multiple-choice dropdown
    assert under(issue, "### Execution Provider Library Version") == "CUDA 12.4"
    assert "CUDA 12.4" in HARDWARE
    assert under(issue, "### OS Version") == "<answer 'OS Version'>"  # the draft does not say
    assert (
        under(issue, "### Tinyflow Runtime Version or Commit ID") == "<answer 'Tinyflow Runtime Version or Commit ID'>"
    )
    assert under(issue, "### To reproduce") == f"```bash\n{COMMAND}\n```"
    # both libraries the example names are in the draft: which one the provider uses is not guessed
    two = dict(DRAFT, details=dict(DRAFT["details"], hardware="8 MI300X, ROCm 6.0.2 and CUDA 12.4 images."))
    _, issue2 = render(tmp_path / "b", shapes("ep_perf.yml"), draft=two)
    assert under(issue2, "### Execution Provider Library Version") == "_No response_"


def test_versions_written_in_the_setup_fill_their_fields_and_nothing_is_carried_between_fields(tmp_path):
    hw = "One node with 8 H100 80GB SXM, CUDA 12.4."
    draft = dict(
        DRAFT,
        details=dict(DRAFT["details"], hardware=hw, setup=DRAFT["details"]["setup"] + " Installed torch==2.5.1."),
    )
    res, issue = render(tmp_path, shapes("perf_discussion_env.yml"), draft=draft)
    setup = under(issue, "### Your setup (only if it matters)").split("\n")
    assert setup == [
        "**Setup:**",
        "- OS: <OS>",
        "- Python version: <Python version>",
        "- CUDA version: CUDA 12.4",
        "- GPU model(s): H100",
        "- Driver version: <Driver version>",  # the CUDA version does not answer the driver
        "- PyTorch version: torch 2.5.1",  # from the setup's pin
        "- Engine version: <Engine version>",
    ]


def test_field_lines_name_their_software_by_their_example_or_alone(tmp_path):
    hw = HARDWARE.rstrip(".") + ", driver 550.54.15."
    draft = dict(DRAFT, details=dict(DRAFT["details"], hardware=hw))
    res, issue = render(tmp_path, shapes("env_examples.md"), draft=draft)
    setup = issue.split("**Setup**\n\n", 1)[1].split("\n\n", 1)[0].strip().split("\n")
    assert setup == [
        "- Framework version: PyTorch 2.5.1",  # the example names PyTorch; the draft gives its version
        "- Library version: NCCL 2.21.5",
        "- Driver: driver 550.54.15",
        "- CUDA: CUDA 12.4",
        "- Python: <Python>",  # the draft does not say
    ]


@pytest.mark.parametrize(
    "label, hint, expected",
    [
        ("PyTorch version", "", "PyTorch 2.5.1"),
        ("torch version", "", "PyTorch 2.5.1"),
        ("CUDA version", "", "CUDA 12.4"),
        ("NVIDIA driver version", "", None),  # the draft names no driver; CUDA's number is not the driver's
        ("Framework version", "", None),  # names no software and shows no example
        ("Framework version", "e.g. PyTorch 2.3 or JAX 0.4", "PyTorch 2.5.1"),
        ("Execution Provider Library Version", "ex. CUDA 11.6 or ROCm 5.1.1", "CUDA 12.4"),
        ("Library version", "ex. cuDNN 9.1", None),  # the draft does not write cuDNN
        ("NCCL version or commit", "", "NCCL 2.21.5"),
        ("World size", "", None),  # not the GPU count: parallelism may differ
        ("Number of GPUs", "", "8"),
        ("GPU model", "", "H100"),
        ("Triton version", "", "triton 3.1.0"),  # as the setup pins it, "triton-3.1.0"
        ("Python version", "", None),
    ],
)
def test_a_one_line_field_gets_only_what_the_draft_writes(label, hint, expected):
    from perfkit.publish.forms.facts import Facts

    facts = Facts(gpu=DRAFT["gpu"], gpu_count=DRAFT["gpu_count"], hardware=HARDWARE, details="Built triton-3.1.0.")
    assert facts.value_for(label, hint) == expected


def test_the_issue_reproduces_with_the_baseline_s_command(tmp_path):
    res, issue = render(tmp_path, shapes("model_bug_first_bad.yml"))
    repro = under(issue, "### Problem description & steps to reproduce")
    assert repro.startswith(OBSERVED) and f"```bash\n{COMMAND}\n```" in repro
    assert DRAFT["details"]["command_pr"] not in issue
    assert under(issue, "### First Bad Commit") == "_No response_"
    assert under(issue, "### Backends") == "CUDA"
    no_base = dict(DRAFT, details={k: v for k, v in DRAFT["details"].items() if k != "command_baseline"})
    _, issue2 = render(tmp_path / "b", shapes("model_bug_first_bad.yml"), draft=no_base)
    assert "```bash" not in under(issue2, "### Problem description & steps to reproduce")  # never the PR's


# --- answers by id, by part of a label, lists ------------------------------------------------------


def test_form_answers_by_id_by_unique_part_and_lists_of_boxes(tmp_path):
    draft = with_issue(
        form_answers={
            "checks": ["searched existing", "I ran the latest release."],
            "platform": "Linux",  # an id
            "quantized": "No",  # a unique part of "Is this a quantized model?"
            "ized model": "Yes",  # not whole words of any label: a warning, never a guess
        }
    )
    files = shapes("ai_field.yml") | {path_of("ep_perf.yml"): (LONGTAIL / "ep_perf.yml").read_text()}
    res, issue = render(tmp_path / "a", files, draft=draft, issue_form="report.yml")
    assert under(issue, "### Checks") == (
        "- [X] I searched existing issues.\n- [ ] I can share a profile.\n- [X] I ran the latest release."
    )
    ids = {f.label: f.id for f in res.issue_form.fields}
    assert ids == {"What did you observe?": "summary", "AI assistance": "ai-use", "Checks": "checks"}
    assert [f.options for f in res.issue_form.fields if f.kind == "checkboxes"] == [
        ["I searched existing issues.", "I can share a profile.", "I ran the latest release."]
    ]
    assert any("form_answers['platform']" in w for w in res.warnings)  # not a field of this form: said, not dropped
    assert any("form_answers['ized model']" in w for w in res.warnings)
    res2, issue2 = render(tmp_path / "b", files, draft=draft, issue_form="05-performance.yml")
    assert under(issue2, "### Platform") == "Linux" and under(issue2, "### Is this a quantized model?") == "No"


@pytest.mark.parametrize(
    "answers, field, words",
    [
        (
            {"version": "1.2"},
            "draft.issue.form_answers['version']",
            ["'OS Version' (id os-version)", "provider-version"],
        ),
        ({"checks": ["a profile", "nothing like this"]}, "draft.issue.form_answers['checks']", ["matches no box"]),
        ({"checks": ["I"]}, "draft.issue.form_answers['checks']", ["is part of 3 boxes"]),
        ({"summary": ["one", "two"]}, "draft.issue.form_answers['summary']", ["takes one answer"]),
        ({"summary": "x", "What did you observe?": "y"}, "draft.issue.form_answers['What did you observe?']", ["both"]),
    ],
)
def test_unclear_form_answers_are_refused_with_the_candidates(tmp_path, answers, field, words):
    files = shapes("ai_field.yml", "ep_perf.yml")
    form = "05-performance.yml" if "version" in answers else "report.yml"
    repo = make_repo(tmp_path / "repo", files)
    with pytest.raises(InputError) as err:
        render_pr(
            str(campaign()),
            str(repo.path),
            draft=with_issue(form_answers=answers),
            out_dir=str(tmp_path / "o"),
            issue_form=form,
        )
    assert err.value.field == field
    assert all(w in str(err.value) for w in words), str(err.value)


def test_answering_the_proposal_field_by_id_moves_the_observation(tmp_path):
    draft = with_issue(form_answers={"proposal": ""})
    res, issue = render(tmp_path, {FOLDER + "perf_three.yml": (OLD_SHAPES / "perf_three.yml").read_text()}, draft=draft)
    assert under(issue, "### Proposal to improve performance") == "_No response_"
    assert under(issue, "### Report of performance regression") == "_No response_"  # never the regression field
    misc = under(issue, "### Misc discussion on performance")
    assert misc.startswith(OBSERVED) and LOGS_SAID in misc and PR_NOTE in misc
    assert fields(res)["Proposal to improve performance"] == ["form_answers", "empty"]


def test_the_ai_disclosure_answers_the_field_that_asks_about_ai(tmp_path):
    said = "Drafted with an AI coding agent; I reviewed every line and ran every measurement myself."
    res, issue = render(tmp_path / "a", shapes("ai_field.yml"), draft=dict(DRAFT, ai_disclosure=said))
    assert under(issue, "### AI assistance") == said and fields(res)["AI assistance"] == ["ai_disclosure"]
    assert under(issue, "### What did you observe?").startswith(OBSERVED)
    _, issue2 = render(tmp_path / "b", shapes("ai_field.yml"))
    assert under(issue2, "### AI assistance") == "<answer 'AI assistance'>"  # required; perfkit never says it for you
    assert OBSERVED not in under(issue2, "### AI assistance")


def test_a_markdown_template_s_repeated_headings_get_their_own_ids(tmp_path):
    text = "---\nname: Slow run\nabout: Training is slow\n---\n\n## Details\n\n## Notes\n\n## Details\n"
    draft = with_issue(form_answers={"details-2": "Second details answer."})
    res, issue = render(tmp_path, {FOLDER + "slow.md": text}, draft=draft)
    assert [f.id for f in res.issue_form.fields] == ["details", "notes", "details-2"]
    assert issue.rstrip().endswith("## Details\n\nSecond details answer.")
    assert under(issue, "## Details").startswith(OBSERVED)  # the first one keeps the observation


# --- end to end ----------------------------------------------------------------------------------


def test_fields_are_answered_by_id_over_mcp(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    repo = make_repo(tmp_path / "repo", shapes("ep_perf.yml", "regression.yml", "flaky_test.yml"))
    draft = with_issue(form_answers={"os-version": "Ubuntu 22.04", "rt-version": "1.19.2", "quantized": "No"})

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            ok = await c.call_tool(
                "render_pr",
                {
                    "campaign_dir": str(campaign()),
                    "repo": str(repo.path),
                    "draft": draft,
                    "out_dir": str(tmp_path / "o"),
                },
            )
            bad = await c.call_tool(
                "render_pr",
                {
                    "campaign_dir": str(campaign()),
                    "repo": str(repo.path),
                    "draft": with_issue(form_answers={"version": "1"}),
                    "out_dir": str(tmp_path / "o2"),
                },
            )
            return ok, bad

    ok, bad = anyio.run(go)
    assert not ok.is_error, ok.content
    use = ok.structured_content["issue_form"]
    assert use["path"] == path_of("ep_perf.yml")
    by_id = {f["id"]: f for f in use["fields"]}
    assert by_id["os-version"]["filled_with"] == ["form_answers"] and by_id["provider"]["options"][1] == "CUDA"
    kinds = {s["path"]: (s["kind"], s["score"]) for s in use["scores"]}
    assert kinds[path_of("regression.yml")] == ("regression", 0) and kinds[path_of("flaky_test.yml")][0] == "flaky-test"
    issue = (tmp_path / "o" / "proposed-issue.md").read_text()
    assert under(issue, "### OS Version") == "Ubuntu 22.04"
    assert bad.is_error and "draft.issue.form_answers['version']" in bad.content[0].text
    assert "'OS Version' (id os-version)" in bad.content[0].text


def test_fields_are_answered_by_id_on_the_cli(tmp_path):
    repo = make_repo(tmp_path / "repo", shapes("ai_field.yml"))
    draft = dict(with_issue(form_answers={"checks": ["share a profile"]}), ai_disclosure="No AI tools were used.")
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft))
    cmd = [sys.executable, "-m", "perfkit.cli", "render-pr", str(campaign()), str(repo.path), "--draft", str(path)]
    proc = subprocess.run(
        [*cmd, "--out-dir", str(tmp_path / "o"), "--json"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    filled = {f["id"]: f["filled_with"] for f in out["issue_form"]["fields"]}
    assert filled == {
        "summary": ["observed", "logs_said", "pr_note"],
        "ai-use": ["ai_disclosure"],
        "checks": ["form_answers"],
    }
    issue = (tmp_path / "o" / "proposed-issue.md").read_text()
    assert "- [X] I can share a profile." in issue and under(issue, "### AI assistance") == "No AI tools were used."
    human = subprocess.run([*cmd, "--out-dir", str(tmp_path / "o3")], capture_output=True, text=True, timeout=120)
    assert human.returncode == 0 and "to answer" not in human.stdout  # every field answered
    path.write_text(json.dumps(DRAFT))
    human = subprocess.run([*cmd, "--out-dir", str(tmp_path / "o4")], capture_output=True, text=True, timeout=120)
    assert "  to answer: issue.form_answers['ai-use'] (AI assistance)" in human.stdout.split("\n")
    path.write_text(json.dumps(with_issue(form_answers={"checks": ["I"]})))
    bad = subprocess.run([*cmd, "--out-dir", str(tmp_path / "o2")], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "draft.issue.form_answers['checks']" in bad.stderr and "3 boxes" in bad.stderr
