"""The description's words and cells for metrics other than step time, each in its unit and direction.

Every word of change here is chosen from the data's sign ("raises", "lowers") and every verdict
from the metric's direction ("better", "worse"), so a throughput gain can never read as a
slowdown. The step-time campaign keeps its own wording (cells.py); this module serves the runs
and requests shapes, candidates measured in another metric, and the optional chart.

A metric's name and unit come from the campaign's files: each goes into a sentence through
perfkit.markdown.safe.inline (one line, nothing that acts), and what is built from them is Markdown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perfkit.benchmark.metric_spec import infer
from perfkit.markdown.safe import Markdown, inline
from perfkit.markdown.safe import chart as chart_label
from perfkit.publish.change_marks import marked
from perfkit.publish.numfmt import Row, pct, sig

if TYPE_CHECKING:
    from perfkit.benchmark.metric_models import MetricComparison
    from perfkit.benchmark.models import BenchmarkSummary, Candidate
    from perfkit.draft.model import Draft


def with_unit(value: float | None, unit: str) -> Markdown:
    return Markdown(f"{sig(value)} {inline(unit)}".rstrip() if unit else sig(value))


def is_rate(unit: str) -> bool:
    return "/" in unit


def span(m: MetricComparison) -> Markdown:
    """'2,387 to 2,789 output tokens/s' for a rate; 'TTFT p99 1,583 ms to 707 ms' otherwise."""
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    if is_rate(m.unit):
        return Markdown(f"{sig(b)} to {sig(c)} {inline(m.unit)}")
    return Markdown(f"{inline(m.name)} {with_unit(b, m.unit)} to {with_unit(c, m.unit)}")


def factor(m: MetricComparison) -> str:
    """How many times higher or lower, always above 1, with the word the sign gives."""
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    if b == c or not b or not c:
        return ""
    return f"{max(b, c) / min(b, c):.2f}x"


def clause(m: MetricComparison, bold: bool) -> Markdown:
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    if b == c:
        return Markdown(f"leaves {inline(m.name)} unchanged")
    f = factor(m)
    f = f"**{f}**" if bold else f
    return Markdown(f"{'raises' if c > b else 'lowers'} {inline(m.name)} {f}")


def headline_sentence(b: BenchmarkSummary, hardware: str) -> Markdown:
    heads = b.headline()
    parts = [clause(m, i == 0) for i, m in enumerate(heads)]
    if not parts:
        return Markdown("")
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    worse = [inline(m.name) for m in heads if m.outcome == "worse"]
    tail = f" ({', '.join(worse)} got worse)" if worse else ""
    return Markdown(f"On {hardware} this PR {joined}{tail}.")


def _label(m: MetricComparison, shape: str) -> Markdown:
    unit = f", {inline(m.unit)}" if m.unit else ""
    label = f"{inline(m.name)}{unit} ({m.direction} is better)"
    if m.baseline.tail_samples is not None and m.candidate.tail_samples is not None and shape == "requests":
        label += (
            f"; above it: {m.baseline.tail_samples:,} of {m.baseline.samples:,} requests and "
            f"{m.candidate.tail_samples:,} of {m.candidate.samples:,}"
        )
    return Markdown(label)


def _cell(m: MetricComparison, side: str) -> Markdown:
    arm = m.baseline if side == "baseline" else m.candidate
    runs = ", ".join(sig(v) for v in arm.per_run)
    value = sig(arm.estimate.value) if is_rate(m.unit) else with_unit(arm.estimate.value, m.unit)
    return Markdown(f"{value} ({runs})")


def result_rows(b: BenchmarkSummary, d: Draft, placeholder: str) -> list[Row]:
    """Headline metrics first, then the others; 'of which' rows for arms measuring one change alone."""
    heads = [m for m in b.metrics if m in b.headline()]
    rest = [m for m in b.metrics if m not in heads]
    rows = [
        Row(_label(m, b.shape), _cell(m, "baseline"), _cell(m, "pr"), marked(pct(m.change_pct), m.verdict, m.p_value))
        for m in heads + rest
    ]
    names = {c.arm: Markdown(c.name) for c in d.changes if c.arm and c.name}
    for o in b.metrics_of_which:
        arm = o.candidate.arm
        name = names.get(arm) or placeholder.format(what=f"name of the change measured as '{inline(arm)}'")
        rows.append(
            Row(
                Markdown(f"of which: {name}, measured alone: {inline(o.name)}"),
                with_unit(o.baseline.estimate.value, o.unit),
                with_unit(o.candidate.estimate.value, o.unit),
                marked(pct(o.change_pct), o.verdict, o.p_value),
            )
        )
    return rows


def candidate_metric(b: BenchmarkSummary, c: Candidate) -> tuple[str, str | None]:
    """(the name a reader knows the candidate's metric by, its better direction or None)."""
    for s in b.metric_model:
        if c.metric in (s.key, s.column, s.name):
            return s.name, s.direction
    guess = infer(c.metric)
    if isinstance(guess, tuple):
        return guess[0].name or c.metric, guess[0].direction
    return c.metric.replace("_", " "), None


def effect(b: BenchmarkSummary, c: Candidate) -> Markdown:
    """'+16.3% output throughput (higher is better)': the metric and its direction always named."""
    name, direction = candidate_metric(b, c)
    text = f"{pct(c.effect_pct)} {inline(name)}"
    if direction is not None:
        text += f" ({direction} is better)"
    return Markdown(text)


def names_metric(b: BenchmarkSummary, candidates: list[Candidate]) -> bool:
    """Whether effects must name their metric: any shape but steps, or a candidate measured in another metric."""
    return b.shape != "steps" or any("time" not in c.metric for c in candidates)


def cause_sentence(b: BenchmarkSummary, c: Candidate) -> Markdown | None:
    """'takes output throughput from 2,387 to 2,775 output tokens/s' in the candidate's own metric."""
    if c.before is None or c.after is None:
        return None
    name, _ = candidate_metric(b, c)
    unit = next((s.unit for s in b.metric_model if c.metric in (s.key, s.column, s.name)), "")
    if not unit:
        guess = infer(c.metric)
        unit = guess[0].unit or "" if isinstance(guess, tuple) else ""
    if is_rate(unit):
        return Markdown(f"takes {inline(name)} from {sig(c.before)} to {sig(c.after)} {inline(unit)}")
    return Markdown(f"takes {inline(name)} from {with_unit(c.before, unit)} to {with_unit(c.after, unit)}")


def significance(b: BenchmarkSummary) -> Markdown:
    """The test of each headline metric, and of each metric that got significantly worse (the Summary's cost)."""
    out = []
    heads = b.headline()
    for m in heads + [m for m in b.metrics if m.verdict == "worse" and m not in heads]:
        n_b, n_c = len(m.baseline.per_run), len(m.candidate.per_run)
        if m.verdict == "too_few_runs":
            out.append(f"With {n_b} and {n_c} runs no test over per-run {inline(m.name)} can reach significance.")
            continue
        side = {
            "better": "in favour of this PR",
            "worse": "against this PR",
            "not_significant": "the difference is not significant",
        }[m.verdict]
        sep = ":" if m.verdict == "not_significant" else ","
        out.append(
            f"A Mann-Whitney U test over the per-run {inline(m.name)} ({n_b} and {n_c} runs) gives "
            f"p = {sig(m.p_value)}{sep} {side}."
        )
    return Markdown(" ".join(out))


def per_run_words(b: BenchmarkSummary) -> str:
    if b.shape == "runs":
        return "one benchmark result per run"
    heads = b.headline() or b.metrics
    if not heads:
        return ""
    counts = sorted({n for m in heads[:1] for n in m.baseline.run_samples + m.candidate.run_samples})
    what = "request" if b.shape == "requests" else "step"
    if len(counts) == 1:
        return f"{counts[0]:,} {what}{'' if counts[0] == 1 else 's'} per run"
    return f"{counts[0]:,} to {counts[-1]:,} {what}s per run"


def chart(b: BenchmarkSummary) -> dict[str, Any] | None:
    """A Mermaid xychart of the headline metric per run, both versions; step time: per-run means and medians.

    The title shows twice: in the sentence before the chart (Markdown, `title`) and inside the chart's
    code block (`label`, one line without double quotes, as a Mermaid string takes it)."""
    if b.shape == "steps" and b.comparison is not None:
        base, pr = b.arm(b.baseline), b.arm(b.candidate)
        lines = [
            ("baseline, mean", [r.mean_s for r in base.per_run]),
            ("baseline, median", [r.median_s for r in base.per_run]),
            ("this PR, mean", [r.mean_s for r in pr.per_run]),
            ("this PR, median", [r.median_s for r in pr.per_run]),
        ]
        title, axis = "Step time per run", "s"
    else:
        heads = b.headline()
        if not heads:
            return None
        m = heads[0]
        lines = [("baseline", m.baseline.per_run), ("this PR", m.candidate.per_run)]
        title, axis = f"{m.name[:1].upper()}{m.name[1:]} per run", m.unit or m.name
    runs = max(len(v) for _, v in lines)
    return {
        "title": inline(title),
        "label": chart_label(title),
        "axis": chart_label(axis),
        "runs": ", ".join(f'"{i}"' for i in range(1, runs + 1)),
        "legend": "; ".join(f"line {i}: {name}" for i, (name, _) in enumerate(lines, 1)),
        "lines": [", ".join(sig(v).replace(",", "") for v in values) for _, values in lines],
    }
