"""render_pr on PR templates shaped like those of public ML and systems repositories (tests/shapes/pr_templates).

Every shape here is written for these tests from the shapes real templates take; none is a copy.
Each shape is a folder laid out as a repository (its template, and for some, the workflow and the
script that check the PR body). The invariants of issue 22 are checked on every shape, the ones of
tests/test_render_pr_templates.py included: every part of the template kept in order, no template
prompt text left, no placeholder under a process note, every box reported (inside <details> too),
and both drafts lint clean with repo and campaign_dir.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest
from helpers.gitbuild import Repo
from helpers.procs import perfkit
from perfkit.errors import InputError
from perfkit.lint.lint import lint_wording
from perfkit.publish.render import render_pr
from test_render_pr import DRAFT, make_campaign
from test_render_pr_templates import SHAPES as OLDER_SHAPES

HERE = Path(__file__).resolve().parent / "shapes" / "pr_templates"
SHAPES: dict[str, dict[str, str]] = {
    d.name: {str(p.relative_to(d)): p.read_text() for p in sorted(d.rglob("*")) if p.is_file()}
    for d in sorted(HERE.iterdir())
    if d.is_dir()
}
ALL = {**SHAPES, **{f"older-{k}": v for k, v in OLDER_SHAPES.items()}}
_BOX = re.compile(r"^\s*(?:[-*+]\s+)?\[[ xX]\]\s+\S")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_PROCESS_TITLE = re.compile(
    r"(?i)^\W*(?:#+\s*)?(?:\*\*)?(?:who can review|code review|pr review|merge|ci\b|.*\bci\b|.*\bbot\b)"
)
_PLACEHOLDER = re.compile(r"<(?:answer|tick|pick)[^>]*>")


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    return make_campaign(tmp_path_factory.mktemp("c") / "campaign")


def _render(tmp_path: Path, campaign: Path, files: dict[str, str], draft=DRAFT, **kw):
    repo = tmp_path / "repo"
    if not repo.exists():
        Repo(repo).commit("templates", files)
    res = render_pr(str(campaign), str(repo), draft=draft, out_dir=str(tmp_path / "out"), **kw)
    return res, Path(res.pr_path).read_text(), repo


def _template(res, files: dict[str, str]) -> str:
    text = files[res.pr_template.path]
    lines = text.split("\n")
    return "\n".join(lines[: res.pr_template.cut_line - 1] if res.pr_template.cut_line else lines)


def _boxes_in(text: str) -> int:
    """Boxes a reader sees: outside HTML comments and code fences, inside <details> too."""
    n, comment, fence = 0, False, None
    for ln in text.split("\n"):
        m = _FENCE.match(ln)
        if fence:
            fence = None if m and m.group(1)[0] == fence[0] else fence
            continue
        if m and not comment:
            fence = m.group(1)
            continue
        if not comment and _BOX.match(ln) and "<!--" not in ln.split("]", 1)[0]:
            n += 1
        pos = 0
        while True:
            if comment:
                end = ln.find("-->", pos)
                if end < 0:
                    break
                comment, pos = False, end + 3
            else:
                start = ln.find("<!--", pos)
                if start < 0:
                    break
                comment, pos = True, start + 4
    return n


def _ours(text: str) -> str:
    """The description from the end of our Correctness Verification table to the Details block."""
    body = text.split("## Correctness Verification", 1)[1]
    return body[: body.find("<details><summary>Details:")]


def _anchor(part) -> str | None:
    """A line of the part that must appear in the description when the part is kept."""
    if part.filled in ("dropped", "replaced"):
        return None
    if part.kind == "heading":
        first = part.template.split("\n")[0]
        return re.split(r"\*\*:|:\*\*|\?\*\*", first)[0] if "**" in first else first
    if part.kind in ("checklist", "options") and part.filled == "boxes":
        return part.options[0][:40] if part.options else None
    if part.kind in ("text", "process", "details", "code") or (part.kind == "prompt" and part.filled == "kept"):
        line = next((ln for ln in part.template.split("\n") if ln.strip()), "")
        return line[:60] if not line.endswith("...") else line[:40]
    return None


def _clean(res, repo, campaign, draft=DRAFT):
    assert res.lint_pr == [] and res.lint_issue == [], (res.lint_pr, res.lint_issue)
    for path in (res.pr_path, res.issue_path):
        found = lint_wording(path=path, repo=str(repo), campaign_dir=str(campaign), draft=draft).findings
        assert found == [], (path, found)


@pytest.mark.parametrize("shape", sorted(ALL))
def test_every_shape_keeps_parts_in_order_leaves_no_prompt_and_lints_clean(tmp_path, campaign, shape):
    files = ALL[shape]
    res, text, repo = _render(tmp_path, campaign, files)
    assert res.pr_template.path is not None
    template = _template(res, files)
    ours = _ours(text)
    parts = res.template_parts
    assert parts and all(re.fullmatch(r"p\d+", p.id) for p in parts)
    assert [int(p.id[1:]) for p in parts] == list(range(1, len(parts) + 1))
    # every kept part, in the template's order
    pos = 0
    for p in parts:
        anchor = _anchor(p)
        if anchor:
            at = ours.find(anchor, pos)
            assert at >= 0, (p.id, p.kind, anchor, ours[pos:])
            pos = at
    # no template prompt text left: a dropped or replaced part's words are not in the description
    kept_lines = {ln.strip() for p in parts if p.filled not in ("dropped", "replaced") for ln in p.template.split("\n")}
    for p in parts:
        if p.filled in ("dropped", "replaced"):
            for ln in p.template.split("\n"):
                if len(ln.strip()) > 6 and ln.strip() not in kept_lines and not ln.endswith("..."):
                    assert ln.strip() not in ours, (p.id, ln)
    # nothing answered under a process note: judged by the test's own reading of the headings, and after
    # every part kept as a process note
    heads = [p for p in parts if p.kind == "heading" and p.filled != "dropped"]
    for n, h in enumerate(heads):
        if not _PROCESS_TITLE.search(h.template) or re.search(r"(?i)notes? for|special notes", h.template):
            continue
        start = ours.find(_anchor(h) or h.template)
        nxt = heads[n + 1] if n + 1 < len(heads) else None
        end = ours.find(_anchor(nxt) or "", start + 1) if nxt else len(ours)
        section = ours[start : end if end > 0 else len(ours)]
        assert not _PLACEHOLDER.search(section), (h.template, section)
    for p in parts:
        if p.kind == "process" and p.filled == "kept":
            line = p.template.split("\n")[-1]
            after = ours[ours.find(line) + len(line) :].lstrip("\n").split("\n\n", 1)[0]
            assert not after.startswith(("<answer", "<tick the option", "<pick")), (p.template, after)
    # every box a reader sees, reported
    assert len(res.checkboxes) == _boxes_in(template), (res.checkboxes, template)
    assert all(b.id for b in res.checkboxes)
    _clean(res, repo, campaign)


# ---- one rule per test --------------------------------------------------------------------------------


def _by(res, **kw):
    return [p for p in res.template_parts if all(getattr(p, k) == v for k, v in kw.items())]


def test_bold_labels_are_headings_with_their_inline_prompt_replaced(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["collection_changelog"])
    label = _by(res, kind="heading", template="**Collection**: [Say which collection of models the change touches]")
    assert label and label[0].role == "question" and label[0].filled == "placeholder"
    assert "**Collection**:\n\n<answer 'Collection'>" in text and "[Say which collection" not in text
    assert "Give the main changes of this PR" not in text  # an instruction bullet under a covered heading


def test_a_covered_label_and_its_prompt_go_without_orphans(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["kind_labels"])
    assert "What this PR does" not in _ours(text)
    assert [p.role for p in _by(res, kind="heading") if "What this PR does" in p.template] == ["covered"]


def test_quoted_prompt_of_a_covered_heading_is_not_orphaned(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["quoted_prompts"])
    assert "Summarize your work here" not in text and "Give the commands you ran" not in text
    assert "## Test plan\n\n<answer 'Test plan'>" in text


def test_please_fill_in_lines_and_shouted_instructions_are_prompts(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["fill_in_preamble"])
    ours = _ours(text)
    assert "FILL IN" not in ours and "READ THE CONTRIBUTOR GUIDE" not in ours
    assert "FIXES #<issue>" in ours and "<answer" not in ours  # the description itself is our Summary


def test_process_headings_and_notes_are_kept_with_nothing_under_them(tmp_path, campaign):
    draft = dict(DRAFT, template_answers={"Merge": "Please merge soon.", "Summary": "x"})
    res, text, _ = _render(tmp_path, campaign, SHAPES["quoted_prompts"], draft)
    assert "Please merge soon." not in text
    assert sorted(w.split("'")[1] for w in res.warnings if "was not placed" in w) == ["Merge", "Summary"]
    assert {p.template for p in _by(res, kind="heading", role="process")} == {"## Code review", "## Merge"}
    assert "## Merge\n\nMaintainers squash-merge once CI is green." in text
    assert "<answer 'Merge'>" not in text and "<answer 'Code review'>" not in text


def test_bot_lines_bot_help_and_reviewer_tags_are_kept_verbatim(tmp_path, campaign):
    files = SHAPES["bot_help_details"]
    res, text, _ = _render(tmp_path, campaign, files)
    tpl = files[".github/pull_request_template.md"]
    assert tpl[tpl.index("## CI Bot Help") :].rstrip() in text
    assert "@reviewbot summary" in text and not [p for p in res.placeholders if "CI Bot" in p.text]
    res2, text2, _ = _render(tmp_path / "b", campaign, SHAPES["agent_policy_box"])
    assert "- kernels: @owner-one @owner-two" in text2 and "<answer 'Who can review?'>" not in text2


def test_reviewers_boxes_get_no_placeholder(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["details_checklist"])
    review = text[text.index("## PR review") : text.index("## Did you have fun?")]
    assert "- [ ] The PR is ready (not a draft)\n" in review and "<tick" not in review
    assert len([b for b in res.checkboxes if "The PR is ready" in b.text]) == 1  # still reported
    res2, text2, _ = _render(tmp_path / "s", campaign, SHAPES["motivation_modifications"])
    assert "- [ ] For reviewers: if you only merged main into this PR, remove yourself as co-author.\n" in text2


def test_checklists_inside_details_are_seen_and_answered_in_place(tmp_path, campaign):
    draft = dict(DRAFT, checkboxes=[{"text": "Did you add tests for the change?", "tick": True}])
    res, text, _ = _render(tmp_path, campaign, SHAPES["details_checklist"], draft)
    assert "- [x] Did you add tests for the change?" in text
    inside = text[text.index("<summary><b>Before submitting") : text.index("## PR review")]
    assert "- [x] Did you add tests" in inside and inside.rstrip().endswith("</details>")
    assert len([b for b in res.checkboxes if b.id and b.id.startswith("p6.")]) == 4


def test_an_answer_stays_under_its_heading_not_after_a_closing_details(tmp_path, campaign):
    tpl = (
        "## Notes\n\n<!-- Anything else for the maintainers? -->\n\n<details>\n<summary>Guide</summary>\n\n"
        "Keep it short.\n\n</details>\n\n## Checklist\n\n- [ ] Tests pass\n"
    )
    draft = dict(DRAFT, template_answers={"Notes": "The padding is off by default."})
    res, text, _ = _render(tmp_path, campaign, {".github/PULL_REQUEST_TEMPLATE.md": tpl}, draft)
    assert text.index("The padding is off by default.") < text.index("<summary>Guide</summary>")
    assert text.index("## Notes") < text.index("The padding is off by default.")
    assert "Anything else for the maintainers" not in text


def test_link_lines_get_the_issue_number_or_a_clear_placeholder(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["linked_issue_line"])
    assert "Linked issue: #<issue>" in text and "1234" not in _ours(text)
    draft = dict(DRAFT, issue_number=4711)
    res2, text2, _ = _render(tmp_path / "n", campaign, SHAPES["details_checklist"], draft)
    assert "Fixes #4711" in text2 and "issue_number" not in text2
    res3, text3, _ = _render(tmp_path / "k", campaign, SHAPES["kind_labels"], draft)
    assert "Fixes #4711" in text3 and "<answer 'Which issue(s) this PR fixes'>" not in text3
    res4, text4, _ = _render(tmp_path / "m", campaign, SHAPES["release_notes_areas"], draft)
    assert "<!-- Resolve --> #4711" in text4 and "#xxx" not in text4
    inline = "**Which issue this PR fixes** *(optional, as `fixes #<issue number>`, closes it on merge)*: fixes #\n"
    res6, text6, repo6 = _render(tmp_path / "i", campaign, {".github/PULL_REQUEST_TEMPLATE.md": inline}, draft)
    assert "**Which issue this PR fixes**: fixes #4711" in text6 and "closes it on merge" not in text6
    _clean(res6, repo6, campaign, draft)
    res5, text5, _ = _render(tmp_path / "r", campaign, SHAPES["types_and_breaking"], draft)
    assert "## Related issues\n\nRelated to #4711" in text5 and "#1234" not in _ours(text5)


def test_option_lists_are_answered_when_the_draft_backs_one(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["collection_changelog"])
    assert "- [x] Performance\n" in text and "- [ ] Bugfix\n" in text
    res2, text2, _ = _render(tmp_path / "k", campaign, SHAPES["kind_labels"])
    assert "\n/kind performance\n" in text2 and "/kind bug" not in _ours(text2)
    res3, text3, _ = _render(tmp_path / "l", campaign, SHAPES["linked_issue_line"])
    assert "- [x] Performance optimization" in text3
    (opt,) = _by(res3, kind="options")
    assert opt.filled == "boxes" and "performance PR" in opt.why


def test_plain_bullets_after_delete_the_options_keep_the_backed_one(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["delete_options"])
    block = text[text.index("## Type of change") : text.index("## How has this been tested?")]
    assert "- Performance improvement (faster or leaner, same results)" in block
    assert "Bug fix" not in block and "Please delete" not in block and "<" not in block
    (opt,) = _by(res, kind="options")
    assert opt.filled == "option" and len(opt.options) == 4
    draft = dict(DRAFT, template_answers={opt.id: ["Performance improvement", "Breaking change"]})
    res2, text2, _ = _render(tmp_path, campaign, SHAPES["delete_options"], draft)
    assert "- Breaking change (existing users must change something)" in text2 and "Bug fix" not in text2
    # empty fields under a label are what it asks: one answer replaces them
    assert "**Test configuration**:\n\n<answer 'Test configuration'>" in text and "* Toolkit:" not in text
    label = next(p for p in res.template_parts if p.template.startswith("**Test configuration**"))
    assert label.role == "question" and "* Hardware:" in (label.prompt or "")


def test_an_unbacked_option_list_gets_one_placeholder_not_one_per_box(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["types_and_breaking"])
    block = text[text.index("## Types of change") : text.index("## Checklist")]
    assert block.count("<tick the option that applies>") == 1 and "<tick if true" not in block


def test_covered_headings_the_repo_checks_are_kept_with_a_pointer(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["category_types_enforced"])
    assert "### PR Category\nPerformance Optimization" in text and "### PR Types\nPerformance" in text
    assert "### Description\n\nSee Summary above." in text
    assert res.pr_template.enforced_headings == ["Description (ci/check_pr_body.py)"]
    import importlib.util

    spec = importlib.util.spec_from_file_location("check", HERE / "category_types_enforced" / "ci" / "check_pr_body.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.check(text)  # the repo's own check passes on the description
    assert not mod.check(text.replace("### Description", "### Notes"))


def test_a_check_for_our_own_heading_is_met_by_ours(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["summary_enforced"])
    assert text.count("## Summary") == 1 and "## Motivation\n\nSee Summary above." in text
    body = text.split("\n", 1)[1]
    for h in ("## Summary", "## Motivation", "## Test plan"):
        assert h in body  # what the repo's workflow greps for


def test_without_a_check_covered_headings_go(tmp_path, campaign):
    files = {k: v for k, v in SHAPES["category_types_enforced"].items() if k.endswith(".md")}
    res, text, _ = _render(tmp_path, campaign, files)
    assert "### Description" not in text and res.pr_template.enforced_headings == []


def test_a_release_note_block_receives_the_answer_inside_it(tmp_path, campaign):
    draft = dict(DRAFT, template_answers={"change anything for users": "NONE"})
    res, text, _ = _render(tmp_path, campaign, SHAPES["kind_labels"], draft)
    assert "```release-note\nNONE\n```" in text
    # the block's own id, as the result lists it with its placeholder, answers too
    r0, _, _ = _render(tmp_path / "b", campaign, SHAPES["kind_labels"])
    (block,) = [p.id for p in r0.template_parts if p.kind == "code" and p.filled == "placeholder"]
    r1, text1, _ = _render(
        tmp_path / "b", campaign, SHAPES["kind_labels"], dict(DRAFT, template_answers={block: "NONE"})
    )
    assert "```release-note\nNONE\n```" in text1 and not r1.warnings


def test_nested_select_one_keeps_its_lead_and_the_policy_box_stays_unticked(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["nested_select_one"])
    assert "- Select one of the following.\n  - [ ] I added tests." in text
    assert "Do the following before you send" not in text
    draft = dict(DRAFT, checkboxes=[{"text": "not written by an agent alone", "tick": True}])
    res2, text2, _ = _render(tmp_path / "b", campaign, SHAPES["agent_policy_box"], draft)
    assert "- [ ] I confirm this PR was not written by an agent alone." in text2
    assert any("not written with AI" in c.why for c in res2.policy_conflicts)


def test_ai_use_label_with_a_comment_is_answered_truthfully(tmp_path, campaign):
    res, text, _ = _render(tmp_path, campaign, SHAPES["overview_requirements"])
    assert "- AI usage disclosure: YES (" in text and "answer YES / NO" not in text
    assert any("answered YES" in c.why for c in res.policy_conflicts)


# ---- answering by id ---------------------------------------------------------------------------------


def _ids(res) -> dict[str, str]:
    out = {}
    for p in res.template_parts:
        if p.kind == "heading" and "Special notes" in p.template:
            out["notes"] = p.id
        if p.kind == "options":
            out["kind"] = p.id
    return out


def test_answers_and_boxes_by_id_unique_part_and_ambiguity(tmp_path, campaign):
    res, _, _ = _render(tmp_path, campaign, SHAPES["kind_labels"])
    ids = _ids(res)
    draft = dict(DRAFT, template_answers={ids["notes"]: "- Off by default.", ids["kind"]: "/kind feature"})
    res2, text2, _ = _render(tmp_path, campaign, SHAPES["kind_labels"], draft)
    assert "**Special notes for your reviewer**:\n\n- Off by default." in text2
    assert "\n/kind feature\n" in text2 and "/kind performance" not in _ours(text2)
    assert next(p for p in res2.template_parts if p.id == ids["notes"]).filled == "answer"
    # a unique part of a label
    res3, text3, _ = _render(
        tmp_path, campaign, SHAPES["kind_labels"], dict(DRAFT, template_answers={"special notes": "x y"})
    )
    assert "reviewer**:\n\nx y" in text3 and not res3.warnings
    # boxes by id, several boxes of one list by a list answer
    files = SHAPES["types_and_breaking"]
    r4, _, _ = _render(tmp_path / "t", campaign, files)
    testing = next(p for p in r4.template_parts if p.kind == "checklist" and "Added or updated tests" in p.template)
    draft = dict(
        DRAFT,
        template_answers={testing.id: ["Added or updated tests", "Tested by hand"]},
        checkboxes=[{"text": f"{testing.id}.1", "tick": True}, {"text": "Ran the pre-commit", "tick": True}],
    )
    r5, text5, _ = _render(tmp_path / "t", campaign, files, draft)
    assert "- [x] Added or updated tests\n- [x] Tested by hand\n" in text5
    assert "- [x] Ran the pre-commit hooks" in text5
    # ambiguous part of a text: an error naming both
    with pytest.raises(InputError) as err:
        _render(tmp_path / "t", campaign, files, dict(DRAFT, checkboxes=[{"text": "test", "tick": True}]))
    assert err.value.field == "draft.checkboxes[0].text" and "Added or updated tests" in str(err.value)
    with pytest.raises(InputError) as err2:
        _render(tmp_path, campaign, SHAPES["kind_labels"], dict(DRAFT, template_answers={"this pr": "x"}))
    assert err2.value.field == "draft.template_answers['this pr']" and "p" in str(err2.value)


def test_parts_answered_by_id_through_mcp_and_the_cli(tmp_path, campaign):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    res, _, repo = _render(tmp_path, campaign, SHAPES["kind_labels"])
    ids = _ids(res)
    draft = dict(DRAFT, template_answers={ids["notes"]: "- Off by default.", ids["kind"]: "/kind feature"})
    (tmp_path / "d.json").write_text(json.dumps(draft))
    out = tmp_path / "cli"
    proc = perfkit(
        "render-pr",
        str(campaign),
        str(repo),
        "--draft",
        str(tmp_path / "d.json"),
        "--out-dir",
        str(out),
        "--json",
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    cli_parts = {p["id"]: p for p in cli["template_parts"]}
    assert cli_parts[ids["notes"]]["filled"] == "answer" and cli_parts[ids["kind"]]["filled"] == "option"

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            return await c.call_tool(
                "render_pr",
                {"campaign_dir": str(campaign), "repo": str(repo), "draft": draft, "out_dir": str(tmp_path / "mcp")},
            )

    ok = anyio.run(go)
    assert not ok.is_error
    parts = {p["id"]: p for p in ok.structured_content["template_parts"]}
    assert parts[ids["notes"]]["value"] == "- Off by default." and parts[ids["kind"]]["value"] == "/kind feature"
    assert (out / "proposed-pr-description.md").read_text() == (
        tmp_path / "mcp" / "proposed-pr-description.md"
    ).read_text()
