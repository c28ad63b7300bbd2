"""The dash rule reads the right copy of each line: dash characters everywhere a reader sees them,
code spans included (a pasted em dash breaks a command); a spaced hyphen only in prose (in code it
is an option or `--`)."""

from __future__ import annotations

from pathlib import Path

from perfkit.lint.lint import lint_text

BASE = (Path(__file__).resolve().parents[1] / "templates" / "pr-description.example.md").read_text()
ANCHOR = "## Correctness Verification\n\n"


def dash_findings(sentence: str) -> list[tuple[int, str]]:
    """(column, excerpt) of the dash findings on the planted lines of the clean example description."""
    assert ANCHOR in BASE
    text = BASE.replace(ANCHOR, ANCHOR + sentence + "\n\n", 1)
    line = text[: text.index(sentence)].count("\n") + 1
    found = [f for f in lint_text(text, "pr")[0] if f.rule == "dash"]
    assert all(line <= f.line <= line + sentence.count("\n") for f in found), found  # the example is clean
    return [(f.column, f.excerpt) for f in found]


def test_an_em_dash_inside_a_code_span_is_flagged_where_it_stands():
    sentence = "Run `train.py \u2014config base.yaml` on each host."
    assert dash_findings(sentence) == [(sentence.index("\u2014") + 1, "\u2014")]


def test_an_en_dash_inside_a_fenced_block_is_flagged():
    found = dash_findings("```\npython bench.py \u2013\u2013steps 200\n```")
    assert [e for _, e in found] == ["\u2013", "\u2013"]


def test_a_spaced_hyphen_in_a_code_span_is_an_option_not_a_dash():
    assert dash_findings("Compare with `git diff base -- src` and `ls - x` first.") == []


def test_the_same_hyphen_in_prose_is_a_dash():
    sentence = "Compare the runs - the second is quicker."
    assert dash_findings(sentence) == [(sentence.index(" - ") + 2, "-")]


def test_dashes_inside_comments_and_links_are_not_prose():
    assert dash_findings("See <!-- a note \u2014 for reviewers --> the [log](https://example.com/a\u2014b).") == []
