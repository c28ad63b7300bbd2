"""The claim rules that read a whole description, and what render_pr writes for them.

The cost: a metric that got significantly worse is stated in the Summary (render_pr writes it;
lint reports a draft that drops it). Correctness: no check, no tolerance sentence. Titles: within
about 100 characters, one or two headline figures. Charts: each line is its legend's arm. Two
measurements: the issue's screening figures and the PR's confirmation runs each say which they are.
Placeholders perfkit writes are not figures. lint-wording exits 1 on findings.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from helpers.procs import perfkit
from hypothesis import given, settings
from hypothesis import strategies as st
from perfkit.lint.lint import campaign_figures, lint_text
from perfkit.lint.title_length import TITLE_MAX_CHARS, length

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "publish"))
SERVING = ROOT / "examples" / "serving"
SERVING_PR = (SERVING / "pr-description.example.md").read_text()
STEPS_PR = (ROOT / "templates" / "pr-description.example.md").read_text()


@pytest.fixture(scope="module")
def serving_figures():
    return campaign_figures(str(SERVING / "campaign"), str(SERVING / "draft.json"))


@pytest.fixture(scope="module")
def steps_figures():
    return campaign_figures(str(ROOT / "examples" / "campaign"), str(ROOT / "examples" / "publish" / "draft.json"))


def _rules(text: str, kind: str, figures) -> list[tuple[str, str, str]]:
    return [(f.rule, f.excerpt, f.fix) for f in lint_text(text, kind, figures)[0]]


# --- the cost ------------------------------------------------------------------------------------


def test_render_states_the_significant_regression_in_the_summary(serving_figures):
    """ITL p99 got worse in every run (63.1 ms to 65.2 ms): the Summary says so, with size and test."""
    summary = SERVING_PR.split("## Summary\n\n", 1)[1].split("\n\n", 1)[0]
    cost = summary[summary.index("What it costs:") :]
    assert "ITL p99 from 63.1 ms to 65.2 ms (+3.3%" in cost and "Mann-Whitney U" in cost
    assert "ITL p99 (5 and 5 runs) gives p = 0.00794, against this PR" in SERVING_PR  # the test it points at
    assert _rules(SERVING_PR, "pr", serving_figures) == []


def test_a_draft_that_drops_the_cost_is_reported(serving_figures):
    summary = SERVING_PR.split("## Summary\n\n", 1)[1].split("\n\n", 1)[0]
    cost = summary[summary.index("What it costs:") :]
    dropped = SERVING_PR.replace(" " + cost, "")
    found = [f for f in _rules(dropped, "pr", serving_figures) if f[0] == "unstated-cost"]
    assert len(found) == 1 and found[0][1] == "## Summary"
    assert "ITL p99" in found[0][2] and "63.1 ms to 65.2 ms (+3.3%)" in found[0][2] and "p = 0.00794" in found[0][2]
    # a word without the size does not state it; the size in a sentence naming the metric does
    vague = SERVING_PR.replace(" " + cost, " Inter-token latency at the tail rises slightly.")
    assert [f[0] for f in _rules(vague, "pr", serving_figures)].count("unstated-cost") == 1
    sized = SERVING_PR.replace(" " + cost, " It costs ITL p99 3.3% on 8 H100.")
    assert "unstated-cost" not in [f[0] for f in _rules(sized, "pr", serving_figures)]


def test_no_cost_sentence_when_nothing_got_significantly_worse(steps_figures):
    assert "What it costs" not in STEPS_PR
    assert _rules(STEPS_PR, "pr", steps_figures) == []


def test_tables_mark_a_change_the_test_could_not_tell_from_noise():
    """The fused-loss arm alone: -3.0%, p = 0.2 over 4 and 4 runs. Significant rows keep the plain percentage."""
    assert "| of which: Fused losses, measured alone | 0.959 s | 0.931 s | -3.0% (not significant, p = 0.200) |" in (
        STEPS_PR
    )
    mean_row = next(line for line in STEPS_PR.split("\n") if line.startswith("| mean step time"))
    assert mean_row.endswith("| -17.1% |")


# --- correctness with no check ------------------------------------------------------------------

NO_CHECKS = """# [perf] job on 8 H100: 0.959 s to 0.795 s per step, mostly from recompiles

## Summary

Words.

### Speedup Result

Measured on 8 H100.

## Correctness Verification

I trained both versions on the same batches. {claim}

<details><summary>Details: hardware, model, full command, traces</summary>

</details>
"""


@pytest.mark.parametrize(
    "claim",
    [
        "The tolerances were chosen before either version ran.",
        "The code that recorded the values is on my branch, not in this PR.",
        "All 4 checks are within the tolerances chosen before the runs.",
    ],
)
def test_tolerances_claimed_without_a_check_are_reported(claim):
    found = [f for f in lint_text(NO_CHECKS.format(claim=claim), "pr")[0] if f.rule == "no-checks"]
    assert len(found) == 1 and "numerical equivalence was not verified" in found[0].fix


def test_with_a_check_listed_the_same_words_pass():
    table = "\n\n| recorded | baseline vs this PR | tolerance |\n|---|---|---|\n| loss | 0.0004 | 0.01 absolute |"
    text = NO_CHECKS.format(claim="The tolerances were chosen before either version ran." + table)
    assert [f for f in lint_text(text, "pr")[0] if f.rule == "no-checks"] == []


def test_render_with_an_empty_check_list_asks_instead_of_claiming(tmp_path):
    from perfkit.publish.render import render_pr
    from target_repo import build

    draft = json.loads((SERVING / "draft.json").read_text())
    draft["correctness"]["checks"] = []
    campaign = tmp_path / "campaign"
    shutil.copytree(SERVING / "campaign", campaign)
    res = render_pr(str(campaign), str(build(tmp_path / "repo")), draft=draft, out_dir=str(tmp_path / "o"))
    text = Path(res.pr_path).read_text()
    section = text.split("## Correctness Verification\n\n", 1)[1].split("\n## ", 1)[0].split("<!--", 1)[0]
    assert section.startswith(draft["correctness"]["ran"])
    assert "tolerance" not in section and "recorded the values" not in section and "|" not in section
    assert "Numerical equivalence between the two versions is not verified" in section
    asked = [p.text for p in res.placeholders if p.text.startswith("<confirm that no check")]
    assert len(asked) == 1 and asked[0] in section
    assert res.lint_pr == []


# --- titles --------------------------------------------------------------------------------------


def test_a_long_title_and_one_with_three_spans_are_reported():
    long = "# [perf] " + "a very long job name " * 5 + "on 8 H100: 0.959 s to 0.795 s per step, mostly from x"
    found = [f for f in lint_text(long + "\n", "pr")[0] if f.rule == "title-form"]
    assert any(f"within about {TITLE_MAX_CHARS}" in f.fix for f in found)
    three = "# [perf] j on 8 H100: 1 to 2 tokens/s and A 3 ms to 2 ms and B 5 ms to 4 ms, mostly from x\n"
    assert any("one or two headline figures" in f.fix for f in lint_text(three, "pr")[0] if f.rule == "title-form")


def test_the_examples_titles_fit():
    for text in (STEPS_PR, SERVING_PR):
        title = text.split("\n", 1)[0][2:]
        assert len(title) <= TITLE_MAX_CHARS and ", mostly from " in title, title


@settings(max_examples=60, deadline=None)
@given(
    job=st.text(alphabet="abcdefgh -", min_size=1, max_size=60).map(str.strip).filter(bool),
    cause=st.text(alphabet="abcdefgh ", min_size=1, max_size=80).map(str.strip).filter(bool),
    spans=st.integers(min_value=1, max_value=2),
    prefix=st.sampled_from(["[perf]", "[<ticket>][perf]", "perf(<scope>):", ""]),
)
def test_the_title_fits_whenever_the_job_does(job, cause, spans, prefix):
    """Whatever the draft's words, the title keeps within the limit unless the job alone is too long, and says so."""
    from perfkit.publish.title_fit import fit

    parts = ["2,387 to 2,789 output tokens/s", "TTFT p99 1,583 ms to 707 ms"][:spans]
    title, warnings = fit(lambda x: f"{prefix} {x}" if prefix else x, job, "8 H100", parts, "TP 8", cause, False)
    assert parts[0] in title and title.startswith(prefix)
    if length(title) > TITLE_MAX_CHARS:
        assert any("shorten draft.job" in w for w in warnings)
    else:
        full = f"{prefix} {job} on 8 H100: {' and '.join(parts)} at TP 8, mostly from {cause}".strip()
        assert (title == full.removeprefix(" ")) == (not warnings)


# --- charts, placeholders, two measurements ----------------------------------------------------


def test_a_chart_line_holding_the_other_arms_values_is_reported(serving_figures):
    base, pr = "line [2371, 2398, 2381, 2393, 2392]", "line [2781, 2796, 2786, 2792, 2791]"
    swapped = SERVING_PR.replace(base, "@").replace(pr, base).replace("@", pr)
    found = [f for f in lint_text(swapped, "pr", serving_figures)[0] if f.rule == "wrong-figure"]
    assert len(found) == 2 and "the baseline's are 2,371, 2,398, 2,381, 2,393, 2,392" in found[0].fix
    one = SERVING_PR.replace(base, "line [2371, 2398, 2318, 2393, 2392]")
    found = [f for f in lint_text(one, "pr", serving_figures)[0] if f.rule == "wrong-figure"]
    assert [(f.excerpt, "2,381" in f.fix) for f in found] == [("2318", True)]


def test_perfkits_placeholders_are_not_figures(steps_figures):
    text = STEPS_PR.replace("Measured on 8 H100", "Measured on <one of: 8, 16, 2x, 3.5 GB> H100", 1)
    text = text.replace("Hardware and environment:", "Hardware and environment: <share link 42> <twice as many>")
    assert [f for f in lint_text(text, "pr", steps_figures)[0] if f.rule in ("unbacked-number", "wrong-figure")] == []


def test_the_issue_and_the_pr_name_their_measurements():
    issue = (SERVING / "issue.example.md").read_text()
    assert "takes TTFT p99 from 1,583 ms to 731 ms on its own, in its screening run" in issue
    assert "the PR's figures come from the confirmation runs" in issue
    assert "Measured on 8 H100, in the confirmation runs" in SERVING_PR


# --- the CLI gates -------------------------------------------------------------------------------


def test_lint_wording_exits_1_on_findings_0_when_clean_2_on_bad_input(tmp_path):
    clean = tmp_path / "proposed-issue.md"
    clean.write_text("# The loader stalls on H100\n\nThe loader waits for each batch.\n")
    dirty = tmp_path / "other-issue.md"
    dirty.write_text("# The loader stalls on H100\n\nThe loader basically waits for each batch.\n")
    ok = perfkit("lint-wording", "--path", str(clean))
    assert ok.returncode == 0, ok.stderr
    bad = perfkit("lint-wording", "--path", str(dirty), "--json")
    assert bad.returncode == 1, bad.stderr
    assert [f["rule"] for f in json.loads(bad.stdout)["findings"]] == ["filler"]  # printed all the same
    wrong = perfkit("lint-wording", "--path", str(tmp_path / "missing.md"))
    assert wrong.returncode == 2 and "--path" in wrong.stderr


# --- pooled over requests, or the mean of the per-run values -------------------------------------


def test_a_percentile_said_pooled_or_per_run_mean_is_checked_as_such(tmp_path):
    """Per-request rows: the p99 pooled over all requests and the mean of the runs' p99s differ; the words say which."""
    import pandas as pd
    from perfkit.lint.numbers import sig
    from test_metric_campaigns import _requests_campaign

    campaign = _requests_campaign(tmp_path / "c")
    figures = campaign_figures(str(campaign))
    frame = pd.read_csv(campaign / "benchmark.csv")
    base = frame[frame.arm == "baseline"]
    pooled = sig(base["ttft_ms"].quantile(0.99))
    runs = sig(base.groupby("run")["ttft_ms"].quantile(0.99).mean())
    assert pooled != runs

    def found(sentence: str) -> list[tuple[str, str, str]]:
        return [f for f in _rules(f"# On L40S\n\n{sentence}\n", "issue", figures) if f[0] == "wrong-figure"]

    assert found(f"On 1 L40S the baseline's TTFT p99, pooled over all requests, is {pooled} ms.") == []
    assert found(f"On 1 L40S the baseline's TTFT p99, the mean of the per-run values, is {runs} ms.") == []
    wrong = found(f"On 1 L40S the baseline's TTFT p99, pooled over all requests, is {runs} ms.")
    assert len(wrong) == 1 and f"pooled over every request ({pooled} ms)" in wrong[0][2]
    wrong = found(f"On 1 L40S the baseline's TTFT p99, the mean of the per-run values, is {pooled} ms.")
    assert len(wrong) == 1 and f"as the mean of the per-run values ({runs} ms)" in wrong[0][2]
