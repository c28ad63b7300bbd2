"""The metric model of a campaign: declared metrics first, then the columns whose name says enough.

Declarations come from metrics.yaml beside benchmark.csv and from the caller (the draft's
benchmark block); the caller's win for the same metric. Columns nobody declared become metrics
only when their name leaves no doubt about the better direction (metric_spec.infer).
"""

from __future__ import annotations

from collections.abc import Iterable

from perfkit.benchmark.metric_spec import METRICS_FILE, Level, MetricDecl, MetricSpec, Uninferred, infer, resolve
from perfkit.errors import InputError

REQUEST_STATS = ("mean", "p50", "p99")  # what an inferred per-request column reports


def _decl_key(d: MetricDecl, level: Level) -> str:
    lvl = d.level or level
    return d.column if lvl != "request" else f"{d.column}@{d.stat or 'mean'}"


def build_model(
    numeric: list[str],
    level: Level,
    from_campaign: list[MetricDecl],
    from_caller: list[MetricDecl],
    headline: list[str],
    exclude: Iterable[str] = (),
    implicit: MetricSpec | None = None,
    setup: Iterable[str] = (),
) -> tuple[list[MetricSpec], list[Uninferred]]:
    """Declared metrics first (caller over campaign), then the inferable columns; the headline marked.

    implicit: a metric the shape itself defines (the steps shape's step time); it leads the list and
    is the default headline.
    """
    specs: dict[str, MetricSpec] = {implicit.key: implicit} if implicit else {}
    for source, decls in (("campaign", from_campaign), ("draft", from_caller)):
        for d in decls:
            if d.column in setup:
                raise InputError(
                    f"{'draft.benchmark.metrics' if source == 'draft' else METRICS_FILE} column '{d.column}'",
                    "is a setup field: it says how the benchmark was run (request rate, concurrency, prompt "
                    "count), not what it measured",
                    "declare a measured column; read_benchmark reports setup values under setup",
                )
            if d.column not in numeric:
                raise InputError(
                    f"{'draft.benchmark.metrics' if source == 'draft' else METRICS_FILE} column '{d.column}'",
                    f"is not a numeric column of the campaign (numeric columns: {', '.join(numeric) or 'none'})",
                    "declare one of those columns",
                )
            where = "metrics.yaml" if source == "campaign" else "the draft's benchmark.metrics"
            specs[_decl_key(d, level)] = resolve(d, source, f"declared in {where}", level)  # type: ignore[arg-type]
    declared_columns = {s.column for s in specs.values()}
    uninferred: list[Uninferred] = []
    for col in numeric:
        if col in declared_columns or col in exclude:
            continue
        guess = infer(col)
        if isinstance(guess, str):
            uninferred.append(Uninferred(column=col, reason=guess))
            continue
        decl, reason = guess
        stats = REQUEST_STATS if level == "request" else (None,)
        for st in stats:
            d = decl.model_copy(update={"stat": st, "name": None if st else decl.name})
            spec = resolve(d, "inferred", reason, level)
            specs.setdefault(spec.key, spec)
    ordered = list(specs.values())
    wanted = [h.strip() for h in headline if h.strip()]
    if wanted:
        for h in wanted:
            hits = [s for s in ordered if h in (s.key, s.column, s.name)]
            if not hits:
                raise InputError(
                    "headline",
                    f"'{h}' names no metric (metrics: {', '.join(s.key for s in ordered) or 'none'})",
                    "name a metric by its key, column or name",
                )
            exact = [s for s in hits if s.key == h]
            for s in exact or hits:
                s.headline = True
    elif not any(s.headline for s in ordered) and ordered:
        first = implicit or next((s for s in ordered if s.declared != "inferred"), None) or _default_head(ordered)
        first = specs.get(first.key, first)
        first.headline = True
    return ordered, uninferred


def _default_head(specs: list[MetricSpec]) -> MetricSpec:
    """Without a declared headline: a throughput first (what serving PRs lead with), else the first metric."""
    rates = [s for s in specs if s.direction == "higher"]
    return next((s for s in rates if "output" in s.column), rates[0] if rates else specs[0])
