"""The description's words and cells for metrics other than step time, each in its unit and direction.

Every word of change here is chosen from the data's sign ("raises", "lowers") and every verdict
from the metric's direction ("better", "worse"), so a throughput gain can never read as a
slowdown. The step-time campaign keeps its own wording (cells.py); this module serves the runs
and requests shapes, candidates measured in another metric, and the optional chart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perfkit.benchmark.metric_spec import infer
from perfkit.publish.numfmt import Row, pct, sig

if TYPE_CHECKING:
    from perfkit.benchmark.metric_models import MetricComparison
    from perfkit.benchmark.models import BenchmarkSummary, Candidate
    from perfkit.publish.draft_model import Draft


def with_unit(value: float | None, unit: str) -> str:
    return f"{sig(value)} {unit}".rstrip() if unit else sig(value)


def is_rate(unit: str) -> bool:
    return "/" in unit


def span(m: MetricComparison) -> str:
    """'2,387 to 2,789 output tokens/s' for a rate; 'TTFT p99 1,583 ms to 707 ms' otherwise."""
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    if is_rate(m.unit):
        return f"{sig(b)} to {sig(c)} {m.unit}"
    return f"{m.name} {with_unit(b, m.unit)} to {with_unit(c, m.unit)}"


def factor(m: MetricComparison) -> str:
    """How many times higher or lower, always above 1, with the word the sign gives."""
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    if b == c or not b or not c:
        return ""
    return f"{max(b, c) / min(b, c):.2f}x"


def clause(m: MetricComparison, bold: bool) -> str:
    b, c = m.baseline.estimate.value, m.candidate.estimate.value
    if b == c:
        return f"leaves {m.name} unchanged"
    f = factor(m)
    f = f"**{f}**" if bold else f
    return f"{'raises' if c > b else 'lowers'} {m.name} {f}"


def headline_sentence(b: BenchmarkSummary, hardware: str) -> str:
    heads = b.headline()
    parts = [clause(m, i == 0) for i, m in enumerate(heads)]
    if not parts:
        return ""
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    worse = [m.name for m in heads if m.outcome == "worse"]
    tail = f" ({', '.join(worse)} got worse)" if worse else ""
    return f"On {hardware} this PR {joined}{tail}."


def title_summary(b: BenchmarkSummary, d: Draft, job: str, hardware: str, cause: str) -> str:
    spans = " and ".join(span(m) for m in b.headline())
    at = f" at {d.parallelism.strip()}" if d.parallelism and d.parallelism.strip() else ""
    return f"{job} on {hardware}: {spans}{at}, mostly from {cause}"


def _label(m: MetricComparison, shape: str) -> str:
    unit = f", {m.unit}" if m.unit else ""
    label = f"{m.name}{unit} ({m.direction} is better)"
    if m.baseline.tail_samples is not None and m.candidate.tail_samples is not None and shape == "requests":
        label += (
            f"; above it: {m.baseline.tail_samples:,} of {m.baseline.samples:,} requests and "
            f"{m.candidate.tail_samples:,} of {m.candidate.samples:,}"
        )
    return label


def _cell(m: MetricComparison, side: str) -> str:
    arm = m.baseline if side == "baseline" else m.candidate
    runs = ", ".join(sig(v) for v in arm.per_run)
    value = sig(arm.estimate.value) if is_rate(m.unit) else with_unit(arm.estimate.value, m.unit)
    return f"{value} ({runs})"


def result_rows(b: BenchmarkSummary, d: Draft, placeholder: str) -> list[Row]:
    """Headline metrics first, then the others; 'of which' rows for arms measuring one change alone."""
    heads = [m for m in b.metrics if m in b.headline()]
    rest = [m for m in b.metrics if m not in heads]
    rows = [Row(_label(m, b.shape), _cell(m, "baseline"), _cell(m, "pr"), pct(m.change_pct)) for m in heads + rest]
    names = {c.arm: c.name for c in d.changes if c.arm}
    for o in b.metrics_of_which:
        arm = o.candidate.arm
        name = names.get(arm) or placeholder.format(what=f"name of the change measured as '{arm}'")
        rows.append(
            Row(
                f"of which: {name}, measured alone: {o.name}",
                with_unit(o.baseline.estimate.value, o.unit),
                with_unit(o.candidate.estimate.value, o.unit),
                pct(o.change_pct),
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


def effect(b: BenchmarkSummary, c: Candidate) -> str:
    """'+16.3% output throughput (higher is better)': the metric and its direction always named."""
    name, direction = candidate_metric(b, c)
    text = f"{pct(c.effect_pct)} {name}"
    if direction is not None:
        text += f" ({direction} is better)"
    return text


def names_metric(b: BenchmarkSummary, candidates: list[Candidate]) -> bool:
    """Whether effects must name their metric: any shape but steps, or a candidate measured in another metric."""
    return b.shape != "steps" or any("time" not in c.metric for c in candidates)


def cause_sentence(b: BenchmarkSummary, c: Candidate) -> str | None:
    """'takes output throughput from 2,387 to 2,775 output tokens/s' in the candidate's own metric."""
    if c.before is None or c.after is None:
        return None
    name, _ = candidate_metric(b, c)
    unit = next((s.unit for s in b.metric_model if c.metric in (s.key, s.column, s.name)), "")
    if not unit:
        guess = infer(c.metric)
        unit = guess[0].unit or "" if isinstance(guess, tuple) else ""
    if is_rate(unit):
        return f"takes {name} from {sig(c.before)} to {sig(c.after)} {unit}"
    return f"takes {name} from {with_unit(c.before, unit)} to {with_unit(c.after, unit)}"


def significance(b: BenchmarkSummary) -> str:
    out = []
    for m in b.headline():
        n_b, n_c = len(m.baseline.per_run), len(m.candidate.per_run)
        if m.verdict == "too_few_runs":
            out.append(f"With {n_b} and {n_c} runs no test over per-run {m.name} can reach significance.")
            continue
        side = {
            "better": "in favour of this PR",
            "worse": "against this PR",
            "not_significant": "the difference is not significant",
        }[m.verdict]
        sep = ":" if m.verdict == "not_significant" else ","
        out.append(
            f"A Mann-Whitney U test over the per-run {m.name} ({n_b} and {n_c} runs) gives p = {sig(m.p_value)}"
            f"{sep} {side}."
        )
    return " ".join(out)


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
    """A Mermaid xychart of the headline metric per run, both versions; step time: per-run means and medians."""
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
        "title": title,
        "axis": axis,
        "runs": ", ".join(f'"{i}"' for i in range(1, runs + 1)),
        "legend": "; ".join(f"line {i}: {name}" for i, (name, _) in enumerate(lines, 1)),
        "lines": [", ".join(sig(v).replace(",", "") for v in values) for _, values in lines],
    }
