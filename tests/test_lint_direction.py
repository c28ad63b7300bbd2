"""The direction rule on a planted set of wrong-direction sentences, and on correct ones.

Each planted sentence has backed numbers and a word of change (or a sign) that the data
contradicts; each control says the same thing the right way round and must pass.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from perfkit.lint.lint import lint_wording

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def serving(tmp_path_factory) -> Path:
    campaign = tmp_path_factory.mktemp("serving") / "campaign"
    shutil.copytree(ROOT / "examples" / "serving" / "campaign", campaign)
    return campaign


@pytest.fixture(scope="module")
def steps(tmp_path_factory) -> Path:
    campaign = tmp_path_factory.mktemp("steps") / "campaign"
    shutil.copytree(ROOT / "examples" / "campaign", campaign)
    return campaign


def _direction(text: str, campaign: Path | None) -> list:
    res = lint_wording(text=text, campaign_dir=str(campaign) if campaign else None, kind="issue")
    return [f for f in res.findings if f.rule == "direction"]


# Serving example: output throughput +16.8% (higher is better), TTFT p99 -55.3%, TTFT p50 -27.8%,
# ITL p99 +3.3% (lower is better, so worse), request throughput +16.9%.
PLANTED_SERVING = [
    ("Output throughput fell 16.8% on 8 H100.", "fell"),
    ("On 8 H100 output throughput is 1.17x slower.", "slower"),
    ("TTFT p99 rose 55.3% on 8 H100.", "rose"),
    ("On 8 H100 TTFT p99 regressed by 55.3%.", "regressed"),
    ("On 8 H100 output throughput changed by -16.8%.", "-16.8%"),
    ("On 8 H100 TTFT p99 changed by +55.3%.", "+55.3%"),
    ("On 8 H100 ITL p99 improved 3.3%.", "improved"),
    ("On 8 H100 this PR costs a 16.8% loss in output throughput.", "loss"),
    ("On 8 H100 the time to first token at p99 fell 55.3%, and request throughput decreased 16.9%.", "decreased"),
    ("On 8 H100 TTFT p99 fell from 707 ms to 1,583 ms.", "fell"),
    ("On 8 H100 request throughput dropped, and output throughput fell 16.8%.", "dropped"),
    ("On 8 H100 the PR is a 16.8% slowdown in output throughput.", "slowdown"),
    ("| output throughput (higher is better) | 2,387 | 2,789 | -16.8% |", "-16.8%"),
    ("On 8 H100 ITL p99 is 1.03x faster.", "faster"),
    ("On 8 H100 TTFT p50 went up 27.8%.", "went up"),
]
CONTROLS_SERVING = [
    "Output throughput rose 16.8% on 8 H100.",
    "On 8 H100 output throughput is 1.17x higher and TTFT p99 2.24x lower.",
    "On 8 H100 TTFT p99 fell from 1,583 ms to 707 ms.",
    "On 8 H100 ITL p99 got worse by 3.3%, and TTFT p99 improved 55.3%.",
    "On 8 H100 output throughput changed by +16.8% and TTFT p99 by -55.3%.",
    "| TTFT p99, ms (lower is better) | 1,583 ms | 707 ms | -55.3% |",
    "On 8 H100 the time to first token at p99 fell 55.3%.",
    "The latency rose on 8 H100.",  # 'latency' names several metrics that moved both ways: not checked
]


@pytest.mark.parametrize("text,word", PLANTED_SERVING)
def test_planted_serving_sentences_are_reported(serving, text, word):
    found = _direction(text, serving)
    assert found, text
    assert any(word in f.excerpt for f in found), [(f.excerpt, f.fix) for f in found]
    assert all(("contradicts" in f.fix or "sentence goes from" in f.fix) for f in found)
    data_backed = [f for f in found if "contradicts" in f.fix]
    for f in data_backed:  # the finding quotes the figure it checked
        assert "%" in f.fix and "is better" in f.fix


@pytest.mark.parametrize("text", CONTROLS_SERVING)
def test_correct_serving_sentences_pass(serving, text):
    assert _direction(text, serving) == []


# Step example: mean step time -17.1% (lower is better), peak memory -4.3%.
PLANTED_STEPS = [
    ("Step time rose 17.1% on 8 H100.", "rose"),
    ("On 8 H100 this PR is a 17.1% slowdown.", "slowdown"),
    ("On 8 H100 the step time regressed by 17.1%.", "regressed"),
    ("On 8 H100 peak memory increased 4.3%.", "increased"),
    ("On 8 H100 this PR runs a step 0.83x faster.", "0.83x faster"),
]


@pytest.mark.parametrize("text,word", PLANTED_STEPS)
def test_planted_step_sentences_are_reported(steps, text, word):
    found = _direction(text, steps)
    assert any(word in f.excerpt for f in found), [(f.excerpt, f.fix) for f in found]


def test_without_a_campaign_only_the_sentence_itself_is_checked():
    assert [f.excerpt for f in _direction("On 8 H100 it runs 0.86x faster.", None)] == ["0.86x faster"]
    assert _direction("On 8 H100 latency fell from 707 ms to 1,583 ms.", None)[0].excerpt == "fell"
    assert _direction("On 8 H100 output throughput fell 16.8%.", None) == []  # nothing to check it against


def test_planted_set_is_wide_enough():
    shapes = {w.split()[-1].strip("+-%0123456789.") or "sign" for _, w in PLANTED_SERVING + PLANTED_STEPS}
    assert len(PLANTED_SERVING) + len(PLANTED_STEPS) >= 10 and len(shapes) >= 10
