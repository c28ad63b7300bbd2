"""lint_wording: each rule finds its planted violation, at the planted place, and nothing else fires.

The base text is the filled example description, which must lint clean; each case plants one
violation into it and expects exactly that rule at exactly that line and column.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from perfkit.errors import InputError
from perfkit.lint.lint import lint_text, lint_wording
from perfkit.lint.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "templates" / "pr-description.example.md").read_text()
ISSUE = (ROOT / "templates" / "issue.example.md").read_text()
ANCHOR = "## Correctness Verification\n\n"

# rule -> (planted sentence, the text the finding must point at)
PLANTS: dict[str, list[tuple[str, str]]] = {
    "dash": [
        ("The loader stalls \u2014 at each new length.", "\u2014"),
        ("Lengths 200\u2013400 recompile.", "\u2013"),
        ("The loader stalls - at each new length.", "-"),
    ],
    "sales-word": [
        ("The buckets give a dramatic gain.", "dramatic"),
        ("It is significantly quicker on 8 H100.", "significantly"),
    ],
    "filler": [
        ("In order to compare, I ran both.", "In order to"),
        ("I basically ran both.", "basically"),
        ("Let me delve into the profile.", "delve"),
    ],
    "review-word": [
        ("The loader is wrong about lengths.", "wrong"),
        ("The loader ignores padding.", "ignores"),
        ("The repo should pad batches.", "should"),
        ("Users must set the flag.", "must"),
    ],
    "campaign-word": [
        ("The baseline arm ran first.", "arm"),
        ("I dropped two candidates.", "candidates"),
        ("See exp-07 for the run.", "exp-07"),
        ("The parity check passed.", "parity"),
        ("The hooks recorded the loss.", "hooks"),
        ("The gate held.", "gate"),
        ("Each checkpoint matched.", "checkpoint"),
    ],
    "test-name": [
        ("`test_bucket_masks` covers it.", "test_bucket_masks"),
        ("tests/test_x.py::test_pad covers it.", "tests/test_x.py::test_pad"),
    ],
    "bold": [("The **loader** is the cause.", "**loader**"), ("It is <b>the</b> cause.", "<b>the</b>")],
    "speedup-hardware": [("The loader is now 1.30x faster.", "1.30x")],
    "scope": [
        ("It speeds up training on GPUs.", "on GPUs"),
        ("The switch is model-local.", "model-local"),
        ("It helps sm_90 and sm_100 alike.", "sm_90 and sm_100"),
    ],
    "duplicate-number": [("The mean falls by 17.1% as above.", "17.1%")],
    "forbidden-section": [
        ("## Observations", "## Observations"),
        ("Generated with an assistant.", "Generated with"),
        ("This is an experimental PR.", "experimental PR"),
        ("Update: rebased.", "Update:"),
    ],
    "unrequested-section": [("## Notes for reviewers", "## Notes for reviewers")],
    "unbacked-number": [("The loader waits 3.7 s per batch.", "3.7 s")],
    "direction": [("On 8 B200 the loader runs 0.92x faster.", "0.92x faster")],
    # the claim rules, against the example campaign's own data
    "wrong-figure": [("On 8 H100 this PR's step time p90 is 0.929 s.", "0.929 s")],
    "two-measurements": [("On 8 H100 the buckets take the mean step time from 0.962 s to 0.842 s.", "0.962 s")],
    "unchanged": [("On 8 H100 the mean step time is unchanged.", "unchanged")],
    "mention": [("Thanks to @alice for the trace.", "@alice"), ("Found by @acme/perf-team first.", "@acme/perf-team")],
    "raw-html": [("See <img src=x onerror=alert(1)> here.", "<img src=x onerror=alert(1)>")],
    "link-scheme": [("See [the log](javascript:alert(1)) here.", "[the log](javascript:alert(1))")],
    "hidden-char": [("The loader \u202eis fixed.", "\u202e"), ("The\u200bloader is fixed.", "\u200b")],
}


def _plant(sentence: str) -> tuple[str, int]:
    i = BASE.index(ANCHOR) + len(ANCHOR)
    line = BASE[:i].count("\n") + 1
    return BASE[:i] + sentence + "\n\n" + BASE[i:], line


class _FakeFigures:
    """Backs every figure of the clean example, so only a planted number is unbacked."""

    def __init__(self, text: str):
        from perfkit.lint.markdown import parse
        from perfkit.lint.numbers import figures_in

        doc = parse(text)
        self.known = {f.numeral for i, line in enumerate(doc.prose) for f in figures_in(i, line)}

    def backs(self, f) -> bool:
        return f.numeral in self.known


CLAIM_RULES = {"wrong-figure", "two-measurements", "unchanged"}


def _lint(text: str, rule: str):
    kwargs = {}
    if rule in CLAIM_RULES:
        from perfkit.lint.lint import campaign_figures

        kwargs["figures"] = campaign_figures(
            str(ROOT / "examples" / "campaign"), str(ROOT / "examples" / "publish" / "draft.json")
        )
    if rule == "unrequested-section":
        kwargs["allowed_headings"] = {"what does this pr do", "test result", "tests", "user impact", "checklist"}
        kwargs["repo_lines"] = set()
    if rule == "unbacked-number":
        kwargs["figures"] = _FakeFigures(BASE)
    return lint_text(text, "pr", **kwargs)[0]


def test_every_rule_has_a_plant():
    # title-form, structure, no-checks and unstated-cost read the whole description: tested on their own
    assert set(PLANTS) | {"title-form", "structure", "no-checks", "unstated-cost"} == set(RULES)


def test_clean_base():
    assert _lint(BASE, "unrequested-section") == []
    assert _lint(BASE, "unbacked-number") == []


@pytest.mark.parametrize("rule,sentence,excerpt", [(r, s, e) for r, cases in PLANTS.items() for s, e in cases])
def test_planted_violation_is_found(rule, sentence, excerpt):
    text, line = _plant(sentence)
    found = _lint(text, rule)
    assert found, f"{rule} missed {sentence!r}"
    assert {f.rule for f in found} == {rule}, [(f.rule, f.excerpt) for f in found]
    f = found[0]
    assert (f.line, f.excerpt) == (line, excerpt)
    assert text.split("\n")[f.line - 1][f.column - 1 :].startswith(excerpt)
    assert f.fix and "\n" not in f.fix


def test_repo_text_is_not_linted():
    text, _ = _plant("- [ ] You must sign the CLA \u2014 every time.")
    assert {f.rule for f in lint_text(text, "pr")[0]} == {"review-word", "dash"}
    assert lint_text(text, "pr", repo_lines={"- [ ] You must sign the CLA \u2014 every time."})[0] == []


def test_code_and_comments_are_not_prose():
    text, _ = _plant("`--gate 1.21x`\n\n<!-- the arm should be wrong -->\n\n```\nexp-07 --parity\n```")
    assert lint_text(text, "pr")[0] == []


@pytest.mark.parametrize(
    "title,problem",
    [
        ("# Faster speech training", "form"),
        (
            "# [perf] Speech training on 8 GPUs: 1.0 s to 0.8 s per step at world size 8, mostly from buckets",
            "hardware",
        ),
        ("# [perf] Speech training on 8 H100: 0.8 s to 1.0 s per step at world size 8, mostly from buckets", "smaller"),
    ],
)
def test_pr_title_form(title, problem):
    text = title + BASE[BASE.index("\n") :]
    found = [f for f in lint_text(text, "pr")[0] if f.rule == "title-form"]
    assert len(found) == 1 and found[0].line == 1
    assert {"form": "[perf]", "hardware": "accelerator", "smaller": "smaller"}[problem] in found[0].fix


def test_structure_rules():
    first = BASE.split("### Speedup Result\n\n", 1)[1].split("\n", 1)[0]
    assert first.startswith("Measured on 8 H100")
    moved = BASE.replace(f"### Speedup Result\n\n{first}\n", "### Speedup Result\n\nOn 8 H100.\n")
    assert any("Measured on" in f.fix for f in lint_text(moved, "pr")[0] if f.rule == "structure")
    after = BASE.replace(
        "\n\n## Correctness Verification", "\n\nA note after the tables.\n\n## Correctness Verification"
    )
    assert any("nothing after the tables" in f.fix for f in lint_text(after, "pr")[0])
    swapped = BASE.replace("## Summary", "## Correctness Verification X").replace(
        "## Correctness Verification\n", "## Summary\n", 1
    )
    assert any(f.rule == "structure" for f in lint_text(swapped, "pr")[0])
    no_details = BASE[: BASE.index("<details>")]
    assert any("Details:" in f.fix for f in lint_text(no_details, "pr")[0])
    trailing = BASE + "\nThanks!\n"
    assert any("nothing after the Details" in f.fix for f in lint_text(trailing, "pr")[0])


def test_issue_title_rules():
    ok = lint_text(ISSUE, "issue", issue_title_prefixes=["[Performance]:"])[0]
    assert ok == []
    own = lint_text(ISSUE, "issue")[0]
    assert [f.excerpt for f in own if f.rule == "title-form"] == ["[Performance]:"]
    fast = ISSUE.replace("recompiles the encoder", "is 1.2x faster with buckets", 1)
    found = [f for f in lint_text(fast, "issue", issue_title_prefixes=["[Performance]:"])[0] if f.rule == "title-form"]
    assert {f.excerpt for f in found} == {"1.2x", "faster"}
    nogpu = ISSUE.replace(" on H100", "", 1)
    assert any("GPU" in f.fix for f in lint_text(nogpu, "issue", issue_title_prefixes=["[Performance]:"])[0])


def test_lint_wording_inputs(tmp_path):
    with pytest.raises(InputError) as err:
        lint_wording()
    assert err.value.field == "path"
    with pytest.raises(InputError):
        lint_wording(path=str(tmp_path / "missing.md"))
    p = tmp_path / "proposed-issue.md"
    p.write_text("# Something is slow on H100\n\nIt is really slow.\n")
    res = lint_wording(path=str(p))
    assert res.kind == "issue" and [f.rule for f in res.findings] == ["filler"]
    assert any(s.startswith("unbacked-number") for s in res.rules_skipped)
    assert lint_wording(text=BASE).kind == "pr"


def test_a_short_label_line_of_the_template_filled_in_keeps_the_templates_markup_unflagged():
    """Issue templates often ask with a short bold label ("**GPU**:", "**OS**:"); the filled line is the
    label, then our answer. The label is the repo's text; the answer is still checked."""
    labels = {"**GPU**:", "**OS**:", "__CANN__:"}
    for line in ("**GPU**: Ascend 910B, 8 devices", "**OS**: Ubuntu 22.04", "__CANN__: 8.0.RC3"):
        findings = lint_text(f"## Environment\n\n{line}\n", "issue", repo_lines=labels)[0]
        assert [f.rule for f in findings if f.rule == "bold"] == [], (line, findings)
    # the answer after the label is ours: bold there is flagged
    findings = lint_text("## Environment\n\n**GPU**: **Ascend 910B**\n", "issue", repo_lines=labels)[0]
    assert [(f.rule, f.column) for f in findings if f.rule == "bold"] == [("bold", 10)]
    # a short template line that is not a label does not hide the start of our own lines
    findings = lint_text("## Notes\n\n**Note** this is ours\n", "issue", repo_lines={"**Note**"})[0]
    assert [f.rule for f in findings if f.rule == "bold"] == ["bold"]
