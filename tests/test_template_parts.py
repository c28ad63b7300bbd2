"""The PR-template parser: one test per kind of part and per rule that decides a heading's role.

Templates here are a few lines each, written for the test; tests/test_render_pr_shapes.py renders
whole templates in the shapes public repositories use.
"""

from __future__ import annotations

import gc
import time

import pytest
from perfkit.errors import InputError
from perfkit.publish.template_parts import enforced, keys, links, options, parse, roles
from perfkit.publish.template_parts.kinds import Part


def _parts(text: str) -> list[Part]:
    parts = parse.parse(text)
    roles.assign(parts)
    return parts


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(p.kind, p.lines[0].strip()) for p in _parts(text)]


def _role(text: str, title: str) -> str | None:
    return next(p.role for p in _parts(text) if p.kind == "heading" and p.title == title)


def test_headings_setext_headings_and_bold_labels():
    parts = _parts("# One\n\nTwo\n---\n\n**Three**: text of mine\n\n**Four?**\n\n**Five** *(optional)*: fixes #\n")
    heads = [(p.title, p.style, p.inline_kind) for p in parts if p.kind == "heading"]
    assert heads == [
        ("One", "atx", None),
        ("Two", "setext", None),
        ("Three", "label", "text"),
        ("Four?", "label", None),
        ("Five", "label", "link"),
    ]
    # bold prose is not a label: a long sentence, a URL, an instruction in capitals
    assert [k for k, _ in _kinds("**Read the guide at https://example.org before you open a pull request**\n")] == [
        "prompt"
    ]
    assert [k for k, _ in _kinds("Some **bold** words in a sentence.\n")] == ["text"]


def test_a_table_skeleton_to_fill_is_a_prompt_and_a_filled_table_is_text():
    skeleton = _parts("## Environment\n\n| item | value |\n|---|---|\n| GPU | |\n| CUDA | |\n")
    assert [p.kind for p in skeleton] == ["heading", "prompt"] and skeleton[0].role == "question"
    filled = _parts("## Support\n\n| backend | status |\n|---|---|\n| CUDA | yes |\n")
    assert [p.kind for p in filled] == ["heading", "text"]


@pytest.mark.parametrize(
    "line",
    [
        "<!-- Describe your change. -->",
        "[Note which component this PR touches]",
        "> Summarize your work here.",
        "PLEASE FILL IN THE PR DESCRIPTION HERE",
        "- Add one line per high-level change.",
        "* You can add a usage example below",
        "Why is this change needed?",
        "Please link the issue here.",
        "<Describe the change in one paragraph>",
        "_Explain why the change is needed._",
        "Replace this text with your notes.",
        "* GPU model:",
    ],
)
def test_prompt_text_in_every_form(line):
    # a one-line field ('* GPU model:') is its own kind: filled from the draft's facts by meaning
    assert _kinds(f"## Notes\n\n{line}\n")[1][0] == ("field" if line.endswith(":") else "prompt")


@pytest.mark.parametrize(
    "line",
    [
        "Anyone may review once CI passes.",
        "@reviewbot summary",
        "- kernels: @owner-one @owner-two",
        "/ci run",
        "Maintainers squash-merge after two approvals.",
        "> The pipeline starts on its own for members.",
        "> [!NOTE]\n> PRs are squash-merged by the maintainers.",
    ],
)
def test_process_notes_reviewer_tags_and_bot_commands(line):
    assert _kinds(f"## Notes for the team\n\nThe words of the template.\n\n{line}\n")[2][0] == "process"


@pytest.mark.parametrize(
    "title",
    ["Who can review?", "Code review", "Merge", "GitHub Actions CI", "Bot commands", "For reviewers", "How to merge"],
)
def test_process_headings_ask_nothing(title):
    assert _role(f"## {title}\n\n<!-- tag someone -->\n", title) == "process"


def test_notes_for_reviewers_is_a_question_not_a_process_note():
    assert _role("## Notes for reviewers\n\n<!-- risks -->\n", "Notes for reviewers") == "question"
    assert _role("**Special notes for your reviewer**:\n", "Special notes for your reviewer") == "question"


@pytest.mark.parametrize(
    "title,pointer",
    [
        ("Summary", roles.SUMMARY_POINTER),
        ("Purpose", roles.SUMMARY_POINTER),
        ("What does this PR do?", roles.SUMMARY_POINTER),
        ("What this PR does / why we need it", roles.SUMMARY_POINTER),
        ("What does this PR do / why do we need it", roles.SUMMARY_POINTER),
        ("Motivation and Context", roles.SUMMARY_POINTER),
        ("Test Result", roles.RESULT_POINTER),
        ("Benchmarking and Profiling", roles.RESULT_POINTER),
        ("Accuracy Tests", roles.RESULT_POINTER),
        ("1. Summary", roles.SUMMARY_POINTER),
        ("📝 Description", roles.SUMMARY_POINTER),
        ("Summary <!-- required -->", roles.SUMMARY_POINTER),
        ("Benchmark & Profiling", roles.RESULT_POINTER),
        ("Motivation & Context", roles.SUMMARY_POINTER),
        ("What and why?", roles.SUMMARY_POINTER),
        ("Description / Results", f"{roles.SUMMARY_POINTER}, {roles.RESULT_POINTER}"),
    ],
)
def test_covered_headings(title, pointer):
    clean = title.split(" <!--")[0]
    assert roles.covered_by(clean) == pointer
    assert _role(f"## {title}\n\n<!-- x -->\n", clean) == "covered"


@pytest.mark.parametrize("title", ["Tests and benchmarks", "Risks & motivation", "Test plan", "What could break?"])
def test_a_heading_only_partly_ours_is_not_covered(title):
    assert roles.covered_by(title) is None


def test_questions_groups_and_parents():
    text = (
        "## Risks\n\n<!-- what could break -->\n\n## Checklist\n\n- [ ] Tests\n\n## Release notes\n\n"
        "#### User facing?\n\n- [ ] Yes\n- [ ] No\n\n## Related issues\n\nFixes #\n\n## Fun\n\nWe hope you liked it.\n"
    )
    got = {p.title: p.role for p in _parts(text) if p.kind == "heading"}
    assert got == {
        "Risks": "question",
        "Checklist": "group",
        "Release notes": "group",
        "User facing?": "group",
        "Related issues": "question",
        "Fun": "question",  # closed world: words that are not structure are the heading's prompt
    }


def test_a_question_with_the_template_s_own_words_under_it_still_asks():
    text = "## Test plan\n\nCI runs the GPU tests nightly.\n\n<!-- List the commands you ran. -->\n\n## Keep\n\n"
    text += "<!-- Do not delete this section. -->\n\nI agree to the terms.\n"
    got = {p.title: p.role for p in _parts(text) if p.kind == "heading"}
    assert got == {"Test plan": "question", "Keep": "group"}


def test_checklists_anywhere_including_details_and_wrapped_items():
    text = "## A\n\n<details>\n<summary>Before</summary>\n\n- [ ] one\n- [x] two\n  wrapped\n\n[ ] bare\n</details>\n"
    parts = _parts(text)
    (lst,) = [p for p in parts if p.kind == "checklist"]
    assert [b.text for b in lst.boxes] == ["one", "two wrapped", "bare"] and lst.in_details
    assert [p.kind for p in parts].count("details") == 3
    # a box inside a comment or a code fence is the template's text, not a box
    hidden = _parts("## A\n\n<!--\n- [ ] not a box\n-->\n\n```\n- [ ] nor this\n```\n")
    assert not [p for p in hidden if p.boxes]


@pytest.mark.parametrize(
    "line",
    [
        "Fixes #",
        "Fixes # (issue)",
        "FIX #xxxx (*link the issues this resolves*)",
        "Fixes #\\<issue_number>",
        "Fixes #<issue_number>",
        "- Related issue: #",
        "* Related to # (issue)",
        "<!-- Resolve --> #xxx",
        "Linked issue: <!-- e.g. Fixes #1234 -->",
        "Closes #1234",
        "Resolves: #___",
        "This PR fixes #",
        "Fixes <!-- the issue number -->",
        "Part of #___",
    ],
)
def test_link_lines_and_their_fill(line):
    assert links.is_link(line)
    filled = links.fill(line, "<issue>")
    assert filled.endswith("#<issue>") and "1234" not in filled and "xxx" not in filled
    assert _kinds(f"## Links\n\n{line}\n")[1][0] == "link"


def test_a_cut_line_keeps_the_rest_out_of_the_parts(tmp_path):
    from helpers.gitbuild import Repo
    from perfkit.publish.repo_template import select
    from perfkit.repo.contribution_files import read_repo_files

    text = "## Tests\n\n<!-- what ran -->\n\n---\nAnything below this line will be removed by the bot.\n\n- [ ] x\n"
    r = Repo(tmp_path / "r")
    r.commit("t", {".github/PULL_REQUEST_TEMPLATE.md": text})
    tpl = select(read_repo_files(r.path), None)
    assert tpl.cut_at == 5 and not any(p.boxes for p in tpl.parts)
    assert tpl.tail[0].startswith("Anything below")


def test_option_lists_in_comments_boxes_and_slash_lines():
    one_of = _parts("### PR Types\n<!-- One of [ New features | Bug fixes | Performance ] -->\n")
    assert one_of[1].kind == "options" and one_of[1].options == ["New features", "Bug fixes", "Performance"]
    slash = _parts("#### Kind\n<!--\nUncomment one:\n/kind bug\n/kind feature\n-->\n")
    assert slash[1].kind == "options" and slash[1].options == ["/kind bug", "/kind feature"]
    boxes = _parts("## Type of change\n\n- [ ] Bug fix\n- [ ] Performance\n")
    assert boxes[1].kind == "options"
    said = _parts("## Tests\n\n- Select one of the following.\n  - [ ] I added tests.\n  - [ ] None needed.\n")
    assert [p.kind for p in said] == ["heading", "text", "options"]
    yes_no = _parts("**Breaking?**\n- [ ] Yes\n- [ ] No\n")
    assert yes_no[1].kind == "options"
    plain = _parts("## Checklist\n\n- [ ] I ran the tests\n- [ ] I updated the docs\n")
    assert plain[1].kind == "checklist"


def test_the_option_a_performance_pr_backs():
    assert options.backed(["Bug fix", "Performance", "Docs"])[0] == [1]
    assert options.backed(["Improvements", "Performance", "Performance Optimization"])[0] == [1]
    assert options.backed(["Bug fix", "Feature", "Enhancement"])[0] == []
    assert options.backed(["Performance regression fix", "Feature"])[0] == []


def test_an_empty_fence_is_where_the_answer_goes_and_an_instruction_fence_is_a_prompt():
    parts = _parts("**Release note**:\n```release-note\n```\n\n# Usage\n```python\n# A snippet that uses it\n```\n")
    assert [p.kind for p in parts] == ["heading", "code", "heading", "prompt"]
    assert parts[0].role == "question"


def test_keys_by_id_text_unique_part_and_ambiguity():
    parts = _parts("## Notes for reviewers\n\n<!-- x -->\n\n## Risks and notes\n\n<!-- y -->\n\n- [ ] Tests pass\n")
    res = keys.resolve(parts, {"p1": "a", "risks": "b", "nope": "c"}, ["p5.1", "tests"])
    assert res.answers == {"p1": "a", "p3": "b"} and res.unused_answers == ["nope"]
    assert res.boxes == {("p5", 0): 1}  # both name the same box: the later decision wins
    with pytest.raises(InputError) as err:
        keys.resolve(parts, {"notes": "x"}, [])
    assert err.value.field == "draft.template_answers['notes']"
    assert "p1 'Notes for reviewers'" in str(err.value) and "p3 'Risks and notes'" in str(err.value)


def test_enforced_headings_are_read_as_literal_or_regex():
    checks = {
        "ci/check.py": r'PATTERN = r"### PR Category(.*[^\s].*)### PR Types(.*)"',
        ".github/workflows/b.yml": "grep -qE '^#+\\s*Test\\s+plan' <<< \"$BODY\"",
    }
    got = enforced.enforced(["PR Category", "PR Types", "Test plan", "Description"], checks)
    assert got == {"PR Category": "ci/check.py", "PR Types": "ci/check.py", "Test plan": ".github/workflows/b.yml"}
    assert enforced.enforced(["Description"], {"w.yml": "description: runs the tests"}) == {}


def _timed(*texts: str) -> list[float]:
    """The best of five parses of each text, taken in turns, so that a busy moment of a shared machine
    lands on one try of each rather than on all the tries of one. The garbage collector is held off while
    timing: a full collection walks the whole heap of the test process (thousands of tests' objects in a
    long-lived worker), which grows the big input's time with what other tests left, not with the input
    (9.8x for 4x the input in one CI run, 3.8x in a fresh process)."""
    best = [float("inf")] * len(texts)
    gc.collect()
    gc.disable()
    try:
        for _ in range(5):
            for i, text in enumerate(texts):
                t = time.perf_counter()
                _parts(text)
                best[i] = min(best[i], time.perf_counter() - t)
    finally:
        gc.enable()
    return best


HOSTILE = {
    "deep-details": lambda n: "## A\n" + "<details>\n" * n + "- [ ] box\n" + "</details>\n" * n,
    "deep-quotes": lambda n: "## A\n" + "".join(">" * 50 + " text\n" for _ in range(n)),
    "deep-lists": lambda n: "## A\n" + "".join("  " * (k % 40) + "- item\n" for k in range(n)),
    "huge-comment-options": lambda n: "## T\n<!-- One of [ " + " | ".join(f"o{k}" for k in range(n)) + " ] -->\n",
    "huge-box-options": lambda n: "## Type\n" + "".join(f"- [ ] option {k}\n" for k in range(n)),
    "unterminated-comment": lambda n: "## A\n<!-- open\n" + "## B\n- [ ] x\n" * n,
    "unterminated-details": lambda n: "## A\n<details>\n" + "## B\n- [ ] x\ntext\n" * n,
    "many-headings": lambda n: "".join(f"## H{k}\n<!-- ask -->\n" for k in range(n)),
}


@pytest.mark.parametrize("family", sorted(HOSTILE))
def test_hostile_templates_parse_in_linear_time(family):
    """Four times the input takes about four times as long (a quadratic step would take sixteen)."""
    small, big = HOSTILE[family](2_000), HOSTILE[family](8_000)
    t_small, t_big = _timed(small, big)
    assert t_big < 1.0 or t_big / max(t_small, 1e-4) < 9, (t_small, t_big)
    parts = _parts(big)
    assert sum(len(p.lines) for p in parts) == len([ln for ln in big.split("\n") if ln.strip()])
