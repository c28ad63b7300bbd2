"""What the PR costs, in the Summary: one sentence per metric that got significantly worse.

A maintainer asks three things: what was wrong, what the PR changes, and what it costs or risks.
The cost must not hide in a signed cell of the result table. For every metric whose change
read_benchmark found significant (Mann-Whitney U over the per-run values) and worse in the metric's
own direction, the Summary says so, with its size and its test; lint_wording's `unstated-cost` rule
reports a draft that leaves one out. A metric without a test (peak memory, an extra column) is not
called a cost here: its change is in the table, unmarked.

The test itself (its p-value and run counts) is written once, in Details' measurement setup, beside
the headline metrics' tests; the sentence points there, since a figure is said once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfkit.publish.numfmt import pct, sig

if TYPE_CHECKING:
    from perfkit.benchmark.metric_models import MetricComparison
    from perfkit.benchmark.models import BenchmarkSummary


def _value(m: MetricComparison, v: float) -> str:
    return f"{sig(v)} {m.unit}" if m.unit else sig(v)


def _metric_sentence(m: MetricComparison, hardware: str) -> str:
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    verb = "raises" if c > b else "lowers"
    return (
        f"What it costs: on {hardware} this PR {verb} {m.name} from {_value(m, b)} to {_value(m, c)} "
        f"({pct(m.change_pct)}, worse, since {m.direction} is better); {_TEST}."
    )


_TEST = "the Mann-Whitney U test in Details finds the difference statistically significant"


def cost_sentences(b: BenchmarkSummary, hardware: str, unit: str = "step") -> str:
    """The Summary's cost sentences, or '' when nothing got significantly worse."""
    if b.shape == "steps":
        cmp = b.step_comparison()
        if cmp.significance.verdict != "slower":
            return ""
        base, pr = b.arm(b.baseline), b.arm(b.candidate)
        return (
            f"What it costs: on {hardware} the mean {unit} time rises from {sig(base.mean.value)} s to "
            f"{sig(pr.mean.value)} s ({pct(cmp.change_mean_pct)}, worse, since lower is better); {_TEST}."
        )
    return " ".join(_metric_sentence(m, hardware) for m in b.metrics if m.verdict == "worse")
