"""Plain-text rendering of a BenchmarkSummary for the terminal (the CLI without --json)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: at run time the models import this module, never the reverse
    from perfkit.benchmark.models import ArmSummary, BenchmarkSummary, Comparison, Estimate


def _n(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}g}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1f}%"


def _est(e: Estimate) -> str:
    if e.ci_low is None or e.ci_high is None:
        return f"{_n(e.value)} (no CI: {e.ci_note})"
    return f"{_n(e.value)} [{_n(e.ci_low)}, {_n(e.ci_high)}]"


def _runs(values: list[float]) -> str:
    return "runs " + ", ".join(_n(v) for v in values)


def _table(arms: list[ArmSummary], cmp: Comparison) -> list[str]:
    b, c = arms[0], arms[1]
    rows = [
        ("step time mean, s", _est(b.mean), _est(c.mean), f"{_pct(cmp.change_mean_pct)} ({cmp.speedup_mean:.3f}x)"),
        ("  per run", _runs([r.mean_s for r in b.per_run]), _runs([r.mean_s for r in c.per_run]), ""),
        ("  mean of runs, s", _est(b.run_mean), _est(c.run_mean), ""),
        (
            "step time median, s",
            _est(b.median),
            _est(c.median),
            f"{_pct(cmp.change_median_pct)} ({cmp.speedup_median:.3f}x)",
        ),
        ("  per run", _runs([r.median_s for r in b.per_run]), _runs([r.median_s for r in c.per_run]), ""),
        ("p10 / p90, s", f"{_n(b.p10_s)} / {_n(b.p90_s)}", f"{_n(c.p10_s)} / {_n(c.p90_s)}", ""),
        ("cv", _n(b.cv, 3), _n(c.cv, 3), ""),
        (
            f"slow steps (> {_n(b.slow_steps.threshold_s)} s)",
            f"{b.slow_steps.count} ({b.slow_steps.fraction:.1%})",
            f"{c.slow_steps.count} ({c.slow_steps.fraction:.1%})",
            "",
        ),
        ("first step, s", _n(b.first_step.mean_s), _n(c.first_step.mean_s), _pct(cmp.first_step_change_pct)),
    ]
    if cmp.peak_mem_baseline_gb is not None or cmp.peak_mem_candidate_gb is not None:
        rows.append(
            (
                "peak memory, GB (max over runs)",
                _n(cmp.peak_mem_baseline_gb),
                _n(cmp.peak_mem_candidate_gb),
                _pct(cmp.peak_mem_change_pct),
            )
        )
    for m in cmp.metrics:
        rows.append((f"{m.name} (mean)", _n(m.baseline), _n(m.candidate), _pct(m.change_pct)))
    head = (
        "",
        f"{b.name} ({b.runs} runs, {b.steady_steps} steps)",
        f"{c.name} ({c.runs} runs, {c.steady_steps} steps)",
        "change",
    )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in [head, *rows]]


def _metric_lines(s: BenchmarkSummary) -> list[str]:
    """The metric path: each metric in its unit and direction, then where its direction came from."""
    lines = [f"{s.campaign_dir}: {s.benchmark_file}, one row per {s.shape[:-1]}"]
    rows = [("metric (better)", f"{s.baseline}", f"{s.candidate}", "change", "verdict")]
    for m in s.metrics:
        unit = f", {m.unit}" if m.unit else ""
        head = "*" if any(x.key == m.key and x.headline for x in s.metric_model) else " "
        rows.append(
            (
                f"{head}{m.name}{unit} ({m.direction})",
                _n(m.baseline.estimate.value),
                _n(m.candidate.estimate.value),
                f"{_pct(m.change_pct)} ({m.speedup:.3f}x {m.outcome})",
                m.verdict,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.append("  (* headline)")
    pooled = [m.name for m in s.metrics if m.basis == "pooled_requests"]
    if pooled:
        lines.append(f"pooled over every request of the arm: {', '.join(pooled)}; others: mean of the per-run values")
    for m in s.metrics:
        if m.basis_note:
            lines.append(f"{m.name}: {m.basis_note}")
        if m.candidate.tail_note:
            lines.append(f"tail {m.name}: {m.candidate.tail_note}")
    for a in s.setup:
        shared = [f"{v.key} {v.value if v.value is not None else 'null'}" for v in a.values if v.every_run]
        if shared:
            lines.append(f"setup of {a.arm} (every run): {', '.join(shared)}")
    lines.append("metric model:")
    lines += [
        f"  {x.key}: {x.direction} is better, {x.unit or 'no unit'}, per {x.level} ({x.reason})" for x in s.metric_model
    ]
    lines += [f"  not a metric: {u.column} ({u.reason})" for u in s.uninferred]
    lines += [f"note: {n}" for n in s.notes]
    lines += [f"warning: {w}" for w in s.warnings]
    return lines


def human(s: BenchmarkSummary) -> str:
    if s.comparison is None:
        return "\n".join(_metric_lines(s))
    cmp = s.comparison
    warm = {0: "no warm-up left out", 1: "step 1 left out as warm-up"}.get(
        s.warmup_steps, f"steps 1-{s.warmup_steps} left out as warm-up"
    )
    lines = [f"{s.campaign_dir}: {s.benchmark_file}, {warm}"]
    lines += _table(s.arms, cmp)
    if cmp.speedup_mean_ci_low is not None:
        lines.append(
            f"speedup of the mean: {cmp.speedup_mean:.3f}x, 95% interval from the run means "
            f"{cmp.speedup_mean_ci_low:.3f}x to {cmp.speedup_mean_ci_high:.3f}x"
        )
    lines.append(f"significance: {cmp.significance.note}")
    for a in s.arms:
        if a.bimodality.detected:
            lines.append(f"bimodal {a.name}: {a.bimodality.reason}")
    lines.append(f"show mean and median: {'yes' if cmp.show_mean_and_median else 'no'} ({cmp.show_reason})")
    lines.append(
        f"slow-step threshold: {_n(s.arms[0].slow_steps.threshold_s)} s, {s.arms[0].slow_steps.threshold_rule}"
    )
    if s.of_which:
        lines.append("of which (each against the baseline):")
        for o in s.of_which:
            lines.append(
                f"  {o.candidate}: mean {_pct(o.change_mean_pct)} ({o.speedup_mean:.3f}x), median "
                f"{_pct(o.change_median_pct)} ({o.speedup_median:.3f}x); {o.significance.note}"
            )
    if s.candidates:
        ref = (
            f"reference baseline {s.reference_baseline} ({s.reference_baseline_rule})"
            if s.reference_baseline
            else "no baseline recorded"
        )
        lines.append(f"candidates, {ref}:")
        for c in s.candidates:
            mark = "shipped" if c.shipped else "not shipped"
            effect = f", {c.metric} {_pct(c.effect_pct)} against {c.baseline}" if c.effect_pct is not None else ""
            other = " [measured against a different baseline]" if c.other_baseline else ""
            lines.append(f"  {mark:11} {c.sha[:12]} {c.title}{effect}{other}")
    lines += [f"warning: {w}" for w in s.warnings]
    return "\n".join(lines)
