"""The rules a repository writes down for contributors: AI policy, sign-off, PR titles.

Shapes in tests/shapes/longtail (perfkit's own text in the shapes of ML and systems projects'
CONTRIBUTING guides, AI-policy files and PR templates) are committed into real git repositories;
the reader (perfkit.publish.repo_notes) and render_pr, over MCP and the CLI, must report every
restricting AI sentence before the permissive ones, never an organisation's name as AI policy,
sign-off rules as their own kind, and title rules from the template, its checklist and
CONTRIBUTING, never from advice about issue titles.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from perfkit.publish import repo_notes, title_rule
from perfkit.repo import contribution_files
from test_issue_forms import (  # noqa: F401
    DRAFT,
    _campaign_with_its_verify_record,
    campaign,
    make_repo,
    render,
    render_over_mcp,
)

LONGTAIL = Path(__file__).resolve().parent / "shapes" / "longtail"
TEMPLATE = ".github/PULL_REQUEST_TEMPLATE.md"


def shape(name: str) -> str:
    return (LONGTAIL / name).read_text()


def read(tmp_path: Path, files: dict[str, str]):
    """(notes, conflicts, title rule) as render_pr reads them, from a real repository."""
    repo = make_repo(tmp_path / "repo", files)
    got = contribution_files.read_repo_files(repo.path)
    notes, conflicts = repo_notes.read(got, TEMPLATE if TEMPLATE in files else None, files.get(TEMPLATE, ""))
    rule = title_rule.from_notes([(n.source, n.line, n.text) for n in notes if n.kind == "title-rule"], TEMPLATE)
    return notes, conflicts, rule


def line_of(text: str, words: str) -> int:
    return next(n for n, ln in enumerate(text.split("\n"), 1) if words in ln)


# --- AI policy ------------------------------------------------------------------------------------


def test_every_restricting_ai_sentence_is_reported_before_the_permissive_one(tmp_path):
    text = shape("contrib_ai_laws.md")
    notes, conflicts, _ = read(tmp_path, {"CONTRIBUTING.md": text})
    ai = [n for n in notes if n.kind == "ai-policy"]
    assert [n.text.split(" ")[0:3] for n in ai] == [
        ["Pull", "requests", "opened"],
        ["You", "must", "disclose"],
        ["An", "LLM", "may"],
        ["Do", "not", "submit"],
        ["AI", "tools", "are"],  # permissive, last though it comes first in the file
    ]
    # a sentence wrapped over two lines is read whole, and reported at the line it starts on
    assert ai[0].text.endswith("will be closed without review.")
    assert ai[0].line == line_of(text, "Pull requests opened by autonomous agents")
    assert not any("Example-AI" in n.text or "example_ai" in n.text for n in notes)
    banned = {c.text.split(" ")[0] for c in conflicts}
    assert banned == {"Pull", "An", "Do"}  # the bans; a disclosure requirement is reported, not a conflict


def test_more_restricting_sentences_than_any_cap_are_all_kept(tmp_path):
    bans = [f"Rule {k}: AI agents must not open pull requests for area {k}." for k in range(7)]
    allows = [f"Tip {k}: AI tools are welcome for drafting notes about area {k}." for k in range(5)]
    text = "# Contributing\n\n" + "\n\n".join(allows[:2] + bans + allows[2:]) + "\n"
    notes, conflicts, _ = read(tmp_path, {"CONTRIBUTING.md": text})
    ai = [n.text for n in notes if n.kind == "ai-policy"]
    assert ai[:7] == bans and len(ai) == 10 and all(t.startswith("Tip") for t in ai[7:])
    assert [c.text for c in conflicts] == bans


def test_an_ai_policy_file_in_a_quoted_alert_is_read(tmp_path):
    notes, conflicts, _ = read(tmp_path, {"AI_POLICY.md": shape("ai_policy_file.md"), "CONTRIBUTING.md": "# Hi\n"})
    ai = [n for n in notes if n.kind == "ai-policy"]
    assert ai[0].source == "AI_POLICY.md" and ai[0].line == 2
    assert ai[0].text == "This project does not accept pull requests written wholly or mostly by AI tools."
    assert ai[-1].text == "Using an LLM to look up an API is fine."
    assert [c.line for c in conflicts] == [2]


def test_organisation_names_links_and_code_are_not_ai_policy(tmp_path):
    notes, conflicts, _ = read(tmp_path, {"CONTRIBUTING.md": shape("contrib_org_name.md")})
    assert [n.kind for n in notes if n.kind == "ai-policy"] == [] and conflicts == []


@pytest.mark.parametrize(
    "text, about_ai",
    [
        ("Please read the Something-AI handbook before you open a PR.", False),
        ("Join us at https://ai.example.org/AI/join and review PRs.", False),
        ("Set `USE_AI=1` to allow the fast path.", False),
        ("See [Org-AI](https://github.com/Org-AI) for the review rules.", False),
        ("OpenAI models are supported; we accept PRs adding more.", False),
        ("AI-generated code must be disclosed.", True),
        ("Pull requests made by coding agents are closed.", True),
        ("You must not use ChatGPT to answer reviews.", True),
        ("Our reinforcement-learning agents live under rl/agents.", False),
    ],
)
def test_ai_is_a_word_of_its_own(text, about_ai):
    assert repo_notes.mentions_ai(text) is about_ai


@pytest.mark.parametrize(
    "text, policy",
    [
        ("You can use AI models from the hub in every recipe.", False),  # the project's subject, not a rule
        ("Generative AI examples live in the examples folder; please keep them small.", False),
        ("AI tools are welcome for drafting tests.", True),
        ("Please disclose AI assistance in the PR description.", True),
        ("Using an LLM to look up an API is fine.", True),
    ],
)
def test_ai_policy_is_about_ai_in_contributions(tmp_path, text, policy):
    notes, _, _ = read(tmp_path, {"CONTRIBUTING.md": f"# Contributing\n\n{text}\n"})
    assert any(n.kind == "ai-policy" for n in notes) is policy


# --- sign-off ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [
        (
            "contrib_dco.md",
            [
                "We require every contributor to sign off on their commits.",
                "Commits that are not signed off will not be accepted.",
                "To sign off, pass `--signoff` (or `-s`) to git commit:",
            ],
        ),
        ("contrib_sign_commits.md", ["Please sign your commits (git commit -s) so the bot can match them to you."]),
        (
            "contrib_cla.md",
            ["Before we can merge your first pull request, you need to sign our Contributor License Agreement (CLA)."],
        ),
    ],
)
def test_sign_off_rules_are_their_own_kind(tmp_path, name, expected):
    notes, _, _ = read(tmp_path, {"CONTRIBUTING.md": shape(name)})
    assert [n.text for n in notes if n.kind == "sign-off"] == expected
    assert not any("certificate itself" in n.text or "(d)" in n.text for n in notes)  # the legal text is a code block


def test_a_sign_off_box_in_the_template_is_a_sign_off_rule(tmp_path):
    notes, _, _ = read(tmp_path, {TEMPLATE: shape("pr_title_checklist.md")})
    assert [(n.kind, n.text) for n in notes if n.kind == "sign-off"] == [
        ("sign-off", "I signed my commits with `git commit -s`.")
    ]


# --- title rules -----------------------------------------------------------------------------------


def test_a_checklist_item_states_the_title_rule(tmp_path):
    notes, _, rule = read(
        tmp_path, {TEMPLATE: shape("pr_title_checklist.md"), "CONTRIBUTING.md": shape("contrib_cla.md")}
    )
    assert rule is not None and rule.source == TEMPLATE and rule.prefix == "[<component>]:"  # the template first
    assert rule.line == line_of(shape("pr_title_checklist.md"), "The title follows")
    assert title_rule.apply(rule, "x on 8 H100") == "[<component>]: x on 8 H100"


@pytest.mark.parametrize(
    "files, prefix",
    [
        ({"CONTRIBUTING.md": shape("contrib_dco.md")}, "perf:"),  # named convention; its [Bug] is for issues
        ({"CONTRIBUTING.md": shape("contrib_cla.md")}, "[<module>]"),
        ({TEMPLATE: shape("pr_conventional_comment.md")}, "perf:"),
        ({"CONTRIBUTING.md": shape("contrib_issue_title_only.md")}, None),  # advice about issue titles only
    ],
)
def test_title_rules_come_from_pull_request_rules_never_from_issue_advice(tmp_path, files, prefix):
    notes, _, rule = read(tmp_path, files)
    assert (rule.prefix if rule else None) == prefix
    assert not any("[Bug]" in n.text for n in notes if n.kind == "title-rule")


def test_render_pr_titles_follow_the_rule_and_report_the_notes(tmp_path):
    files = {TEMPLATE: shape("pr_title_checklist.md"), "CONTRIBUTING.md": shape("contrib_issue_title_only.md")}
    res, _ = render(tmp_path / "a", files)
    assert res.pr_title.startswith("[<component>]: " + DRAFT["job"])
    assert res.pr_template.title_rule == f"[component]: description ({TEMPLATE}:7)"
    res2, _ = render(tmp_path / "b", {"CONTRIBUTING.md": shape("contrib_issue_title_only.md")})
    assert res2.pr_title.startswith("[perf] ") and res2.pr_template.title_rule is None


# --- end to end ----------------------------------------------------------------------------------


def test_policies_over_mcp(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {"CONTRIBUTING.md": shape("contrib_ai_laws.md"), TEMPLATE: shape("pr_title_checklist.md")},
    )
    res = render_over_mcp(repo, tmp_path / "o")
    assert not res.is_error, res.content
    out = res.structured_content
    kinds = [n["kind"] for n in out["repo_notes"]]
    assert kinds[:6] == ["ai-policy"] * 6 and "sign-off" in kinds and "title-rule" in kinds
    ai = [n["text"] for n in out["repo_notes"] if n["kind"] == "ai-policy"]
    assert ai[0].startswith("Pull requests opened by autonomous agents")
    assert ai[-1] == "If AI tools helped, the description says which and how."  # the template's box, permissive
    assert any(c["text"].startswith("Pull requests opened by autonomous agents") for c in out["policy_conflicts"])
    assert out["pr_title"].startswith("[<component>]: ")


def test_policies_on_the_cli(tmp_path):
    repo = make_repo(tmp_path / "repo", {"CONTRIBUTING.md": shape("contrib_dco.md")})
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(DRAFT))
    cmd = [sys.executable, "-m", "perfkit.cli", "render-pr", str(campaign()), str(repo.path), "--draft", str(path)]
    proc = subprocess.run(
        [*cmd, "--out-dir", str(tmp_path / "o"), "--json"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [n["kind"] for n in out["repo_notes"]] == ["sign-off", "sign-off", "sign-off", "title-rule"]
    assert out["pr_title"].startswith("perf: " + DRAFT["job"])
    human = subprocess.run([*cmd, "--out-dir", str(tmp_path / "o2")], capture_output=True, text=True, timeout=120)
    assert human.returncode == 0 and "repo note (sign-off): CONTRIBUTING.md:" in human.stdout


# --- the draft's AI disclosure in the PR template ---------------------------------------------------


def test_the_ai_disclosure_answers_the_template_s_ai_section_and_its_box(tmp_path):
    said = "An AI coding agent drafted the code and this text; I reviewed every line and ran every measurement."
    files = {TEMPLATE: shape("pr_ai_section.md")}
    res, _ = render(tmp_path / "a", files, draft=dict(DRAFT, ai_disclosure=said))
    pr = Path(res.pr_path).read_text()
    section = pr.split("## AI usage disclosure\n", 1)[1].split("\n## ", 1)[0]
    assert said in section
    ticks = {b.text: b.ticked for b in res.checkboxes}
    assert ticks["I described any AI assistance in the disclosure section."] is True
    assert ticks["This PR contains no AI-generated code."] is False  # a policy box: never ticked for the user
    assert any("no AI-generated code" in c.text for c in res.policy_conflicts)
    # without a disclosure nothing is said for the user, and the box stays unticked
    res2, _ = render(tmp_path / "b", files)
    assert said not in Path(res2.pr_path).read_text()
    assert {b.text: b.ticked for b in res2.checkboxes}[
        "I described any AI assistance in the disclosure section."
    ] is False


def test_an_ai_disclosure_the_template_has_no_place_for_is_reported(tmp_path):
    said = "No AI tools were used."
    res, _ = render(tmp_path, {TEMPLATE: shape("pr_title_checklist.md")}, draft=dict(DRAFT, ai_disclosure=said))
    assert any(w.startswith("draft.ai_disclosure is not placed") and "stays unticked" in w for w in res.warnings)
    ticks = {b.text: b.ticked for b in res.checkboxes}
    assert ticks["If AI tools helped, the description says which and how."] is False
