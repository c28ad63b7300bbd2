"""read_benchmark's figures turned into the cells of the description's tables.

Figures are formatted by perfkit.publish.numfmt (re-exported here): three significant digits
(times, memory), one decimal (percentages) or two (speedup factors), which is also the rounding the
truthfulness rule allows when it checks the rendered text against the data. Text from the campaign
(metric names, arm names, titles, commit shas) is left to the renderer's last step, which makes
any plain text inline-safe (perfkit.markdown.safe), or written as code here; what mixes it with
perfkit's own markup or placeholders is built as Markdown from inline-safe parts.
"""

from __future__ import annotations

from perfkit.benchmark.models import BenchmarkSummary, Candidate, Comparison
from perfkit.draft.model import Draft
from perfkit.errors import InputError
from perfkit.markdown.safe import Markdown, code, inline
from perfkit.markdown.spans import code_texts
from perfkit.publish.change_marks import marked
from perfkit.publish.numfmt import Row, factor, pct, sig

__all__ = ["Row", "factor", "pct", "sig"]


def _runs(values: list[float]) -> str:
    return ", ".join(sig(v) for v in values)


def result_rows(b: BenchmarkSummary, d: Draft, placeholder: str) -> list[Row]:
    """The Speedup Result table: headline, what disappeared, memory, one-time cost, 'of which' rows."""
    unit = d.unit
    base, pr, cmp = b.arm(b.baseline), b.arm(b.candidate), b.step_comparison()
    rows = [
        Row(
            f"mean {unit} time (per run)",
            f"{sig(base.mean.value)} s ({_runs([r.mean_s for r in base.per_run])})",
            f"{sig(pr.mean.value)} s ({_runs([r.mean_s for r in pr.per_run])})",
            marked(pct(cmp.change_mean_pct), cmp.significance.verdict, cmp.significance.p_value),
        )
    ]
    if cmp.show_mean_and_median:
        rows.append(
            Row(
                f"median {unit} time (per run)",
                f"{sig(base.median.value)} s ({_runs([r.median_s for r in base.per_run])})",
                f"{sig(pr.median.value)} s ({_runs([r.median_s for r in pr.per_run])})",
                pct(cmp.change_median_pct),
            )
        )
    if cmp.slow_steps_baseline or cmp.slow_steps_candidate:
        rows.append(
            Row(
                f"{unit}s slower than {sig(base.slow_steps.threshold_s)} s",
                f"{cmp.slow_steps_baseline:,} of {base.steady_steps:,}",
                f"{cmp.slow_steps_candidate:,} of {pr.steady_steps:,}",
                f"{cmp.slow_steps_candidate - cmp.slow_steps_baseline:+,}",
            )
        )
    specs = {s.column: s for s in b.metric_model}
    for m in cmp.metrics:
        spec = specs.get(m.name)
        label = (
            f"{spec.name}{f', {spec.unit}' if spec.unit else ''} (mean per {unit}, {spec.direction} is better)"
            if spec
            else f"{m.name.replace('_', ' ')} per {unit} (mean)"
        )
        rows.append(Row(label, sig(m.baseline), sig(m.candidate), pct(m.change_pct)))
    if cmp.peak_mem_baseline_gb is not None and cmp.peak_mem_candidate_gb is not None:
        rows.append(
            Row(
                "peak memory",
                f"{sig(cmp.peak_mem_baseline_gb)} GB",
                f"{sig(cmp.peak_mem_candidate_gb)} GB",
                pct(cmp.peak_mem_change_pct),
            )
        )
    if b.warmup_steps and cmp.first_step_baseline_s is not None and cmp.first_step_candidate_s is not None:
        rows.append(
            Row(
                f"first {unit}, one-time cost",
                f"{sig(cmp.first_step_baseline_s)} s",
                f"{sig(cmp.first_step_candidate_s)} s",
                pct(cmp.first_step_change_pct),
            )
        )
    names = {c.arm: Markdown(c.name) for c in d.changes if c.arm and c.name}
    for o in b.of_which:
        what = f"name of the change measured as '{inline(o.candidate)}'"
        name = names.get(o.candidate) or placeholder.format(what=what)
        rows.append(
            Row(
                Markdown(f"of which: {name}, measured alone"),
                f"{sig(b.arm(o.baseline).mean.value)} s",
                f"{sig(b.arm(o.candidate).mean.value)} s",
                marked(pct(o.change_mean_pct), o.significance.verdict, o.significance.p_value),
            )
        )
    return rows


def _effect(c: Candidate, b: BenchmarkSummary | None = None) -> Markdown:
    if b is not None:
        from perfkit.publish.metric_text import effect

        text: str = effect(b, c)
    else:
        text = pct(c.effect_pct)
    if c.other_baseline and c.baseline:
        text += f" (measured on a different base, {code(c.baseline)})"
    return Markdown(text)


def _setting_words(settings: list[str]) -> set[str]:
    """The code a setting names ('`NCCL_P2P_LEVEL=NVL`'), and its variable alone ('NCCL_P2P_LEVEL')."""
    words: set[str] = set()
    for text in settings:
        for inner in code_texts(text):
            written = inner.strip()
            words.add(written)
            name = written.split("=", 1)[0].strip()
            if "=" in written and len(name) >= 4:
                words.add(name)
    return words


def is_setting(c: Candidate, settings: list[str] | None = None) -> bool:
    """An install or setting (recorded with kind or type 'setting', or naming the code of a setting the draft
    applies to both versions): never the PR's own contribution, so neither a per-commit row nor 'tried and
    not kept'."""
    if any(str(c.other_fields.get(k, "")).strip().lower() in ("setting", "install") for k in ("kind", "type")):
        return True
    return any(w in c.title for w in _setting_words(settings or []))


def ships(b: BenchmarkSummary, chosen: list[str], settings: list[str] | None = None) -> list[Candidate]:
    """The commits this PR ships: the draft's choice (sha prefixes) if it makes one, else those recorded as
    shipped; settings left out."""
    if chosen:
        prefixes = [p.strip().lower() for p in chosen if p.strip()]
        picked = [c for c in b.candidates if any(c.sha.startswith(p) for p in prefixes)]
    else:
        picked = [c for c in b.candidates if c.shipped]
    return [c for c in picked if not is_setting(c, settings)]


def commit_rows(
    b: BenchmarkSummary, chosen: list[str] | None = None, settings: list[str] | None = None
) -> list[dict[str, str]]:
    """The per-commit table: shipped commits with their own measured effect, when there are several."""
    from perfkit.publish.metric_text import names_metric

    shipped = [c for c in ships(b, chosen or [], settings) if c.effect_pct is not None]
    if len(shipped) < 2:
        return []
    named = b if names_metric(b, b.candidates) else None
    return [{"short": Markdown(code(c.sha[:12])), "title": c.title, "effect": _effect(c, named)} for c in shipped]


def not_shipped(
    b: BenchmarkSummary, chosen: list[str] | None = None, settings: list[str] | None = None
) -> list[dict[str, str]]:
    """Candidates tried and not in this PR, for the Details block."""
    from perfkit.publish.metric_text import names_metric

    kept = {c.sha for c in ships(b, chosen or [], settings)}
    named = b if names_metric(b, b.candidates) else None
    return [
        {"title": c.title, "effect": _effect(c, named) if c.effect_pct is not None else "not measured"}
        for c in b.candidates
        if c.sha not in kept and not is_setting(c, settings)
    ]


def significance(cmp: Comparison) -> str:
    s = cmp.significance
    if s.verdict == "too_few_runs":
        return (
            f"With {s.runs_baseline} and {s.runs_candidate} runs no test over per-run means can reach "
            f"significance, so none was made."
        )
    test = (
        f"A Mann-Whitney U test over the per-run means ({s.runs_baseline} and {s.runs_candidate} runs) gives "
        f"p = {sig(s.p_value)}"
    )
    if s.verdict == "not_significant":
        return test + ": the difference is not significant."
    return test + (", in favour of this PR." if s.verdict == "faster" else ", against this PR.")


def cause(b: BenchmarkSummary, d: Draft) -> dict[str, object] | None:
    """The before and after of the one change the issue is about."""
    i = d.issue
    if i.cause_arm:
        names = [a for a in b.arm_names or [a.name for a in b.arms] if a != b.baseline]
        if i.cause_arm not in names:
            raise InputError(
                "draft.issue.cause_arm",
                f"'{i.cause_arm}' is not an arm of benchmark.csv",
                f"use one of: {', '.join(names)}",
            )
        if b.shape != "steps":
            from perfkit.publish.metric_text import span

            found = [m for m in b.metrics if m.candidate.arm == i.cause_arm and m in b.headline()]
            found += [m for m in b.metrics_of_which if m.candidate.arm == i.cause_arm]
            return (
                {"sentence": Markdown(f"takes {span(found[0])}"), "other_base": False, "screened": False}
                if found
                else None
            )
        return {
            "before": sig(b.arm(b.baseline).mean.value),
            "after": sig(b.arm(i.cause_arm).mean.value),
            "other_base": False,
            "screened": False,  # an arm of the benchmark: the same runs as the PR's figures
        }
    if i.cause_commit:
        hits = [c for c in b.candidates if c.sha.startswith(i.cause_commit.strip().lower())]
        if len(hits) != 1:
            raise InputError(
                "draft.issue.cause_commit",
                f"'{i.cause_commit}' matches {len(hits)} candidates",
                "use a sha prefix from records/candidates.jsonl that names one commit",
            )
        chosen = hits[0]
    else:
        from perfkit.publish.metric_text import candidate_metric

        timed = [
            c
            for c in b.candidates
            if c.shipped
            and not is_setting(c, d.details.shared_settings)
            and c.effect_pct is not None
            and c.before is not None
            and c.after is not None
        ]
        if not timed:
            return None

        def gain(c: Candidate) -> float:  # the largest improvement in the candidate's own direction
            effect = c.effect_pct or 0.0
            return effect if candidate_metric(b, c)[1] == "higher" else -effect

        chosen = max(timed, key=gain)
    if chosen.before is None or chosen.after is None:
        return None
    if "time" not in chosen.metric or b.shape != "steps":
        from perfkit.publish.metric_text import cause_sentence

        sentence = cause_sentence(b, chosen)
        return {"sentence": sentence, "other_base": chosen.other_baseline, "screened": True} if sentence else None
    return {
        "before": sig(chosen.before),
        "after": sig(chosen.after),
        "other_base": chosen.other_baseline,
        "screened": True,  # the commit's own record: another measurement than the PR's runs
    }
