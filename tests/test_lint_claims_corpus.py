"""lint_wording on a corpus of wrong sentences about both example campaigns, and on their right twins.

The corpus (tests/helpers/claim_corpus.py) is generated: each kind of error is a set of templates,
filled with metrics, arms and figures a seeded generator picks and recomputed from the campaigns'
own files. Every planted sentence is checked twice: alone, and planted into the tool's own draft of
that campaign (which lints clean). A sentence counts as reported when a finding lands on its line
and the finding names the figure the data has for what the words say. The right sentences of the
same shapes must give no finding at all, and the tool's own drafts none.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.lint.lint import campaign_figures, lint_text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers import claim_corpus as cc  # noqa: E402

CLAIM_RULES = {"wrong-figure", "unbacked-number", "direction", "unchanged", "two-measurements", "title-form"}
CAMPAIGNS = {
    "serving": (cc.serving_facts, ROOT / "examples" / "serving" / "draft.json", ROOT / "examples" / "serving"),
    "steps": (cc.steps_facts, ROOT / "examples" / "publish" / "draft.json", ROOT / "templates"),
}


@pytest.fixture(scope="module")
def data():
    out = {}
    for name, (facts, draft, drafts) in CAMPAIGNS.items():
        f = facts()
        figures = campaign_figures(str(f.campaign), str(draft))
        pr = (drafts / "pr-description.example.md").read_text()
        issue = (drafts / "issue.example.md").read_text()
        out[name] = (f, figures, pr, issue)
    return out


def _standalone(p: cc.Planted) -> tuple[str, int, str]:
    """(text, 1-based line of the planted sentence, kind)."""
    if p.where == "title":
        return p.text + "\n\n## Summary\n\nSome words.\n", 1, "pr"
    if p.where == "row":
        head = "# Observed on H100\n\nMeasured on 8 H100.\n\n| | baseline | this PR | change |\n|---|---|---|---|\n"
        return head + p.text + "\n", 7, "issue"
    return "# Observed on H100\n\n" + p.text + "\n", 3, "issue"


def _in_draft(p: cc.Planted, pr: str, issue: str) -> tuple[str, int, str]:
    """The sentence in the tool's own draft: the title replaced, a row added, a paragraph after the Summary's."""
    if p.where == "title":
        return p.text + pr[pr.index("\n") :], 1, "pr"
    if p.where == "row":
        at = pr.index("|---|---|---|---|\n") + len("|---|---|---|---|\n")
        return pr[:at] + p.text + "\n" + pr[at:], pr[:at].count("\n") + 1, "pr"
    if p.where == "issue":
        at = issue.index("\n\n", issue.index("\n\n") + 2) + 2
        return issue[:at] + p.text + "\n\n" + issue[at:], issue[:at].count("\n") + 1, "issue"
    at = pr.index("\n\n1. ") + 2
    return pr[:at] + p.text + "\n\n" + pr[at:], pr[:at].count("\n") + 1, "pr"


def _reported(text: str, line: int, kind: str, figures, expect: list[str]) -> tuple[bool, list]:
    found, _, _ = lint_text(text, kind, figures)
    on = [f for f in found if f.line == line and f.rule in CLAIM_RULES]
    return any(any(e in f.fix for e in expect) for f in on), on


def _run(data, name: str, seeds: range) -> tuple[collections.Counter, collections.Counter, list]:
    f, figures, pr, issue = data[name]
    total, hit, missed = collections.Counter(), collections.Counter(), []
    for p in cc.corpus(f, seeds):
        for where, (text, line, kind) in (("alone", _standalone(p)), ("in draft", _in_draft(p, pr, issue))):
            ok, on = _reported(text, line, kind, figures, p.expect)
            total[p.kind] += 1
            hit[p.kind] += ok
            if not ok:
                missed.append((where, p.kind, p.text, [(x.rule, x.fix) for x in on]))
    return total, hit, missed


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_the_corpus_is_reported_with_the_datas_figure(data, name):
    total, hit, missed = _run(data, name, range(6))
    sentences = sum(total.values()) // 2
    assert sentences >= 60 and len(total) >= 12, (sentences, sorted(total))
    rate = sum(hit.values()) / sum(total.values())
    assert rate >= 0.95, missed
    for kind in total:  # no kind left to chance: each is mostly reported
        assert hit[kind] >= 0.8 * total[kind], (kind, [m for m in missed if m[1] == kind])


def test_the_corpus_holds_the_kinds_the_issue_named(data):
    kinds = {p.kind for name in CAMPAIGNS for p in cc.corpus(data[name][0], range(6))}
    assert {
        "title before and after swapped",
        "the baseline's value given as this PR's",
        "an unbacked round multiplier",
        "a multiplier in words",
        "a percentile called the mean",
        "'unchanged' on a significant change",
        "one metric's change quoted for another",
    } <= kinds


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=1000, max_value=10**6), name=st.sampled_from(sorted(CAMPAIGNS)))
def test_any_seed_of_the_generator_is_reported(data, seed, name):
    """Metrics, arms and phrasings drawn afresh: every planted sentence alone is reported, naming the figure."""
    f, figures, _, _ = data[name]
    for p in cc.corpus(f, range(seed, seed + 1)):
        text, line, kind = _standalone(p)
        ok, on = _reported(text, line, kind, figures, p.expect)
        assert ok, (p.kind, p.text, [(x.rule, x.fix) for x in on])


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_right_sentences_of_the_same_shapes_give_no_finding(data, name):
    f, figures, _, _ = data[name]
    wrong = []
    for sentence in cc.controls(f):
        found, _, _ = lint_text("# Observed on H100\n\n" + sentence + "\n", "issue", figures)
        wrong += [(sentence, x.rule, x.fix) for x in found if x.rule in CLAIM_RULES | {"unstated-cost"}]
    assert len(cc.controls(f)) >= 50 and wrong == []


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_the_tools_own_drafts_have_no_finding(data, name):
    f, figures, pr, issue = data[name]
    assert lint_text(pr, "pr", figures)[0] == []
    found = lint_text(issue, "issue", figures, issue_title_prefixes=["[Performance]:"])[0]
    assert found == []
