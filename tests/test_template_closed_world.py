"""Every line of a PR template is accounted for: structure kept, filled, an open question, or instruction.

A property test builds templates from random parts (headings with and without prompts, instruction and
example lines of many forms, checklists bulleted and numbered, process notes, details blocks, bold
labels, fields) and holds the closed-world account on each: every non-blank line lies in exactly one
reported part, each part's fate is one of the five, no instruction or example line reaches the output,
and every structure line does, in the template's order. Then answers by id, by label and by a unique
part of a label: each lands where the result says, is refused with candidates, or removes its part.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.errors import InputError
from perfkit.publish.merge_template import merge
from perfkit.publish.repo_template import RepoTemplate
from perfkit.publish.template_parts import parse, roles

INSTRUCTIONS = [
    "[PLEASE REMOVE] How did you test this PR?",
    "[REMOVE ME] Say what changed.",
    "Thanks for your contribution! The following instructions help reviewers read your PR.",
    "A clear and concise description of what the problem is. Ex. I am always frustrated when [...]",
    "<BLANK>",
    "Please describe your change here.",
    "<!-- Describe the change -->",
    "> Summarize your work here.",
    "PLEASE FILL IN THE DESCRIPTION BELOW",
    "Please make sure the CI passes before asking for review.",
    "_Explain why the change is needed._",
]
EXAMPLES = ["- Change A", "- Change B", "- *item1*", "- *...*", "- Item 1", "- ...", "1. Foo"]
PROCESS = [
    "Anyone may review once the tests pass.",
    "By submitting this PR, I agree that my contribution is licensed under the project license.",
    "@reviewbot summary",
]
HEADINGS = ["## Test plan", "## Notes", "### Risks", "## Summary", "## Benchmark", "## Who can review?", "## Extras"]
LABELS = ["**Describe the change**", "**Special notes**:"]
BOXES = ["I ran the tests", "I updated the docs", "I read the guide"]


@st.composite
def templates(draw) -> tuple[str, list[str], list[str]]:
    """(template, its instruction lines, its structure lines) from random parts."""
    lines: list[str] = []
    instructions: list[str] = []
    structure: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["heading", "label", "checklist", "numbered", "process", "details", "field"]))
        if kind in ("heading", "label"):
            head = draw(st.sampled_from(HEADINGS if kind == "heading" else LABELS))
            lines += ["", head]
            if kind == "heading" and head != "## Summary":
                structure.append(head)
            for _ in range(draw(st.integers(0, 2))):
                said = draw(st.sampled_from(INSTRUCTIONS + EXAMPLES))
                lines += ["", said]
                if not said.startswith(("<!--",)):
                    instructions.append(said)
        elif kind in ("checklist", "numbered"):
            picked = draw(st.lists(st.sampled_from(BOXES), min_size=1, max_size=3, unique=True))
            lines.append("")
            for k, b in enumerate(picked, 1):
                lines.append(f"{k}. [ ] {b}" if kind == "numbered" else f"- [ ] {b}")
                structure.append(b)
        elif kind == "process":
            lines += ["", "## Who can review?", "", draw(st.sampled_from(PROCESS))]
            structure.append("## Who can review?")
        elif kind == "details":
            lines += ["", "<details>", "<summary>Bot commands</summary>", "", "/ci run", "", "</details>"]
            structure += ["<details>", "/ci run", "</details>"]
        else:
            lines += ["", draw(st.sampled_from(["Device: <BLANK>", "* Toolkit:", "Model used:"]))]
    return "\n".join(lines).strip("\n") + "\n", instructions, structure


def _merge(text: str, answers: dict | None = None):
    parts = parse.parse(text)
    roles.assign(parts)
    tpl = RepoTemplate(path="t.md", candidates=[], why="", sections=[], text=text, parts=parts)
    return merge(tpl, answers or {}, [], "<{what}>", None, None, {"hardware": ("8 x H100", "draft.gpu")})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(templates())
def test_every_template_line_is_accounted_for_and_no_instruction_is_posted(case):
    text, instructions, structure = case
    m = _merge(text)
    lines = text.split("\n")
    covered: dict[int, str] = {}
    for p in m.parts:
        assert p.fate in ("structure", "filled", "question", "instruction", "removed"), p
        assert p.end_line is not None and p.end_line >= p.line
        for n in range(p.line, p.end_line + 1):
            if lines[n - 1].strip():
                assert n not in covered, f"line {n} is in {covered[n]} and {p.id}"
                covered[n] = p.id
    blank = {n for n, ln in enumerate(lines, 1) if not ln.strip()}
    assert set(covered) | blank == set(range(1, len(lines) + 1))
    out = "\n".join(m.lines)
    for said in instructions:
        assert said not in out.split("\n"), said
    pos = 0
    for s in structure:  # structure stays, in the template's order
        at = out.find(s, pos)
        assert at >= 0, (s, out)
        pos = at
    for p in m.parts:  # an open question is always one placeholder in the output
        if p.fate == "question":
            assert p.value and p.value in out


NUMBERED = "## Checklist\n\n1. [ ] I read the guide.\n2. [ ] I added tests.\n3. [ ] I updated docs.\n"


def test_a_numbered_checklist_keeps_every_item():
    m = _merge(NUMBERED)
    out = "\n".join(m.lines)
    assert all(f"{k}. [ ]" in out for k in (1, 2, 3)) and len(m.boxes) == 3


QUESTION_AND_LIST = "## Testing Done\n\nTesting Done: this is a required section.\n\n- [ ] Unit tests\n- [ ] E2E\n"


def test_a_section_with_a_question_and_a_checklist_keeps_both():
    m = _merge(QUESTION_AND_LIST)
    out = "\n".join(m.lines)
    assert "<answer 'Testing Done'>" in out and "- [ ] Unit tests" in out
    assert "required section" not in out


KEYS = """\
## Special notes for your reviewer

<!-- Anything to watch -->

## Test plan

[PLEASE REMOVE] How did you test it?

## Examples

- *item1*

Device: <BLANK>
"""


def _uses(m):
    return {u.key: u for u in m.uses}


@pytest.mark.parametrize(
    "key,how", [("p1", "id"), ("Special notes for your reviewer", "label"), ("special notes", "label part")]
)
def test_an_answer_by_id_label_or_label_part_lands_where_the_result_says(key, how):
    m = _merge(KEYS, {key: "Watch the padding."})
    (u,) = m.uses
    assert (u.landed, u.how, u.effect) == ("p1", how, "answered")
    out = "\n".join(m.lines)
    assert "## Special notes for your reviewer\n\nWatch the padding." in out
    assert next(p for p in m.parts if p.id == "p1").fate in ("filled", "structure")


@pytest.mark.parametrize("key", ["p99", "Screenshots", "zzz"])
def test_an_answer_that_lands_nowhere_comes_back_with_why_and_candidates(key):
    m = _merge(KEYS, {key: "text"})
    (u,) = m.uses
    assert u.landed is None and u.effect == "refused" and u.why and u.candidates
    assert "text" not in "\n".join(m.lines).split("\n")


def test_a_label_part_two_headings_share_is_an_error_naming_both():
    with pytest.raises(InputError) as err:
        _merge("## Test plan\n\nx?\n\n## Test results of the plan\n\ny?\n", {"plan": "x"})
    assert "p1" in str(err.value) and "p3" in str(err.value)


@pytest.mark.parametrize("key", ["p3", "Test plan", "test pl"])
def test_an_empty_answer_removes_the_placeholder_and_says_so(key):
    m = _merge(KEYS, {key: ""})
    (u,) = m.uses
    assert u.effect == "removed" and u.landed == "p3"
    out = "\n".join(m.lines)
    assert "## Test plan" in out and "<answer 'Test plan'>" not in out and "PLEASE REMOVE" not in out


def test_any_part_is_answered_or_removed_by_its_own_id():
    m0 = _merge(KEYS)
    field = next(p for p in m0.parts if p.kind == "field")
    example = next(p for p in m0.parts if p.kind == "example")
    m = _merge(KEYS, {field.id: "", example.id: "- the one example that applies"})
    out = "\n".join(m.lines)
    assert "Device:" not in out and "- the one example that applies" in out
    assert {p.id: p.filled for p in m.parts}[field.id] == "removed"


def test_two_answers_on_one_place_are_both_kept_with_a_warning():
    m = _merge(KEYS, {"p3": "First.", "Test plan": "Second."})
    effects = {u.key: u.effect for u in m.uses}
    assert effects == {"p3": "answered", "Test plan": "joined"}
    out = "\n".join(m.lines)
    assert "First." in out and "Second." in out


def test_an_answer_by_meaning_reaches_the_question_that_asks_for_it():
    text = (
        "## How was this patch tested?\n\n<!-- commands -->\n\n## Does this PR introduce any user-facing change?\n\nx\n"
    )
    m = _merge(text, {"Tests": "Ran the suite.", "User impact": "None."})
    by = _uses(m)
    assert (by["Tests"].landed, by["Tests"].how) == ("p1", "meaning")
    assert by["User impact"].how == "meaning"
    out = "\n".join(m.lines)
    assert "tested?\n\nRan the suite." in out and "change?\n\nNone." in out
