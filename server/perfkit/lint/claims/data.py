"""What the campaign's data says: the metrics a text may name and the datums a figure may bind to.

A datum is one figure of read_benchmark's result with its coordinates: the metric (a family and
the statistic it is: "TTFT" and "p99"; "step time" and "median"), the arm (the baseline, this PR,
or an arm measuring one change alone), the form (a level, one run's value, an interval bound, a
change in percent, a factor, a difference, a p-value, a count) and the measurement (the runs
read_benchmark compared, or one commit's screening recorded in records/candidates.jsonl). A
claim binds to the datums whose value it equals within its rounding, and is checked against the
datums its words point at (perfkit.lint.claims.check).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from perfkit.lint.claims.vocab import FAMILY_ALIASES, KNOWN_FAMILIES
from perfkit.lint.numbers import sig

if TYPE_CHECKING:
    from perfkit.benchmark.models import BenchmarkSummary, Candidate, Comparison

_TIME = {"ms": 1e-3, "s": 1.0, "µs": 1e-6, "us": 1e-6, "min": 60.0, "h": 3600.0}
_MEM = {"GB": 1.0, "GiB": 1.0, "MB": 1e-3, "MiB": 1 / 1024, "TB": 1e3}
_STAT_WORD = re.compile(r"(?<![\w-])(?:mean|average|median|p\d{1,2}(?:\.\d)?)(?![\w-])", re.I)
_STAT_PREFIX = re.compile(r"^(mean|median|p\d+(?:\.\d+)?)_(.+?)(?:_(?:ms|s|us|sec))?$")
_SHORT = {
    "ttft": "ttft",
    "tpot": "tpot",
    "itl": "itl",
    "e2el": "end-to-end latency",
    "e2e_latency": "end-to-end latency",
}


def unit_kind(unit: str) -> tuple[str, float]:
    """('time', 1e-3) for ms: the kind of a unit and its factor to the kind's base (seconds, GB)."""
    u = unit.strip()
    if u in _TIME:
        return "time", _TIME[u]
    if u in _MEM:
        return "mem", _MEM[u]
    if u == "%":
        return "pct", 1.0
    return "any", 1.0


@dataclass
class Metric:
    """One quantity the text may name, with its verdict when read_benchmark tested it."""

    id: str
    name: str  # as a description writes it: 'TTFT p99', 'mean step time'
    family: str  # lower case, the statistic left out: 'ttft', 'step time'
    stat: str | None  # 'mean', 'p50', 'p99', ... or None for a value each run reports once
    unit: str
    direction: str | None = None  # 'lower' or 'higher' is better
    change_pct: float | None = None
    verdict: str | None = None  # 'better', 'worse', 'not_significant', 'too_few_runs'; None: no test
    p_value: float | None = None
    test: str = ""  # the test in words, for a finding
    baseline: float | None = None
    pr: float | None = None
    also: tuple[str, ...] = ()  # other families it belongs to: a slow step's time is a step time too

    def show(self, value: float | None) -> str:
        """A value as the description writes it, with the metric's unit."""
        if value is None:
            return "n/a"
        if "/" in self.unit or not self.unit:
            return f"{sig(value)} {self.unit}".rstrip()
        return f"{sig(value)} {self.unit}"


@dataclass(frozen=True)
class Datum:
    metric: str  # Metric.id
    arm: str  # 'baseline', 'pr', or another arm's name; for a comparison, the arm compared with the baseline
    form: str  # 'level', 'run', 'ci', 'pct', 'factor', 'diff', 'p', 'count', 'threshold'
    value: float
    measurement: str = ""  # '' for the runs read_benchmark compared; 'screening <sha12>' for a candidate's record
    run: int | None = None
    way: str = ""  # a factor: 'up' (this PR's value over the baseline's) or 'down' (the other way up)
    basis: str = ""  # a level of a percentile: 'pooled' over every request, or 'runs' (the mean of per-run values)


@dataclass
class Catalog:
    """Every metric and datum of one read_benchmark result, indexed by value."""

    metrics: dict[str, Metric] = field(default_factory=dict)
    datums: list[Datum] = field(default_factory=list)
    arm_names: dict[str, str] = field(default_factory=dict)  # lower-case words -> arm ('fused losses' -> 'fused-loss')
    change_names: dict[str, str] = field(default_factory=dict)  # arm -> the draft's name of its change
    tests: dict[tuple[str, str], Metric] = field(default_factory=dict)  # (metric, arm measured alone) -> its test
    pooled: set[str] = field(default_factory=set)  # metrics whose estimate is pooled over every request
    shape: str = "steps"
    headline: list[str] = field(default_factory=list)  # metric ids the title leads with
    _raw: list[tuple[float, int]] = field(default_factory=list)
    _base: dict[str, list[tuple[float, int]]] = field(default_factory=dict)

    # --- building ------------------------------------------------------------------------------

    def metric(self, m: Metric) -> Metric:
        return self.metrics.setdefault(m.id, m)

    def add(self, metric: str, arm: str, form: str, value: float | None, **kw: Any) -> None:
        if value is None or not isinstance(value, (int, float)) or not math.isfinite(value):
            return
        self.datums.append(Datum(metric, arm, form, float(value), **kw))

    def seal(self) -> Catalog:
        """Build the value indexes; call once after the last add."""
        self._raw = sorted((abs(d.value), i) for i, d in enumerate(self.datums))
        base: dict[str, list[tuple[float, int]]] = {}
        for i, d in enumerate(self.datums):
            kind, factor = self.kind_of(d)
            base.setdefault(kind, []).append((abs(d.value) * factor, i))
        self._base = {k: sorted(v) for k, v in base.items()}
        return self

    def kind_of(self, d: Datum) -> tuple[str, float]:
        if d.form == "pct":
            return "pct", 1.0
        if d.form in ("factor", "fci"):
            return "ratio", 1.0
        if d.form in ("p", "count"):
            return "any", 1.0
        return unit_kind(self.metrics[d.metric].unit)

    # --- looking up ----------------------------------------------------------------------------

    def near(self, kind: str, value: float, tol: float, raw: bool) -> list[Datum]:
        """Datums within tol of value: in the metric's own unit when raw, else in the kind's base unit."""
        vals = self._raw if raw else self._base.get(kind, [])
        i = bisect.bisect_left(vals, (abs(value) - tol, -1))
        out = []
        while i < len(vals) and vals[i][0] <= abs(value) + tol:
            out.append(self.datums[vals[i][1]])
            i += 1
        return out

    def of(self, ids: list[str]) -> list[Datum]:
        """The datums of these metrics."""
        if "_by_metric" not in self.__dict__:
            by: dict[str, list[Datum]] = {}
            for d in self.datums:
                by.setdefault(d.metric, []).append(d)
            self.__dict__["_by_metric"] = by
        return [d for i in ids for d in self.__dict__["_by_metric"].get(i, [])]

    def family_metrics(self, family: str) -> list[str]:
        return [m.id for m in self.metrics.values() if m.family == family or family in m.also]

    def value(self, d: Datum) -> str:
        """The datum's figure as a description writes it: '1,583 ms', '+16.8%', '2.24x lower'."""
        m = self.metrics[d.metric]
        if d.form == "pct":
            return f"{d.value:+.1f}%"
        if d.form in ("factor", "fci"):
            return f"{d.value:.2f}x {'higher' if d.way == 'up' else 'lower'}"
        if d.form == "p":
            return sig(d.value)
        if d.form == "count":
            return f"{d.value:,.0f}"
        if d.form == "diff":
            return ("+" if d.value > 0 else "") + m.show(d.value)
        return m.show(d.value)

    def label(self, d: Datum) -> str:
        """The datum in words, its figure in brackets: "the baseline's TTFT p99 (1,583 ms)"."""
        m = self.metrics[d.metric]
        arm = self.arm_words(d.arm)
        where = f" in the screening of `{d.measurement.split()[-1]}`" if d.measurement else ""
        if d.form == "level" and d.metric in self.pooled:
            where += " pooled over every request" if d.basis == "pooled" else " as the mean of the per-run values"
        what = {
            "level": f"{arm}'s {m.name}{where}",
            "count": f"{arm}'s {m.name}{where}",
            "ci": f"a 95% interval bound of {arm}'s {m.name}",
            "threshold": f"the slow-{m.name.split()[-1].rstrip('s')} threshold",
            "run": f"{arm}'s {m.name} in run {d.run}",
            "pct": f"the change of {m.name}{self._vs(d.arm)}{where}",
            "factor": f"{m.name}{self._vs(d.arm)}{where} as a factor",
            "fci": f"a 95% interval bound of {m.name}{self._vs(d.arm)} as a factor",
            "diff": f"the difference in {m.name}{self._vs(d.arm)}{where}",
            "p": f"the p-value of {m.name}{self._vs(d.arm)}",
        }.get(d.form, m.name)
        return f"{what} ({self.value(d)})"

    def arm_words(self, arm: str) -> str:
        if arm == "baseline":
            return "the baseline"
        if arm == "pr":
            return "this PR"
        name = self.change_names.get(arm)
        return f"'{name}' measured alone" if name else f"the arm '{arm}'"

    def _vs(self, arm: str) -> str:
        return "" if arm in ("pr", "") else f" ({self.arm_words(arm)})"


def _family(name: str) -> tuple[str, str | None]:
    """'TTFT p99' -> ('ttft', 'p99'); 'mean ITL' -> ('itl', 'mean'); 'output throughput' -> (.., None)."""
    low = name.strip().lower()
    stat = None
    m = _STAT_WORD.search(low)
    if m:
        word = m.group(0)
        stat = {"average": "mean", "median": "p50"}.get(word, word)
        low = (low[: m.start()] + low[m.end() :]).strip()
    low = re.sub(r"\s+", " ", low).strip(" ,")
    return low, stat


def _spec_family(column: str, name: str) -> tuple[str, str | None]:
    """The family and statistic of a metric, from its name and, where the name says less, its column."""
    family, stat = _family(name)
    m = _STAT_PREFIX.match(column.lower())
    if m:
        col_stat = {"median": "p50"}.get(m.group(1), m.group(1))
        stat = stat or col_stat
        core = m.group(2)
        if core in _SHORT and not family:
            family = _SHORT[core]
    return family or name.lower(), stat


# --- the data of each shape ------------------------------------------------------------------------


def build(b: BenchmarkSummary, arm_names: dict[str, str] | None = None, unit: str = "step") -> Catalog:
    """The catalog of one read_benchmark result; arm_names maps the draft's names of changes to their arms."""
    cat = Catalog(shape=b.shape)
    for words, arm in (arm_names or {}).items():
        cat.arm_names[words.lower()] = arm
        cat.change_names.setdefault(arm, words)
    for arm in b.arm_names or [a.name for a in b.arms]:
        if arm not in (b.baseline, b.candidate):
            cat.arm_names[arm.lower()] = arm
            cat.arm_names[arm.lower().replace("-", " ").replace("_", " ")] = arm
    if b.comparison is not None:
        _steps(cat, b, unit)
    step_column = b.columns.get("step_time_s", "step_time_s") if b.comparison is not None else None
    for m in b.metrics:
        if m.key != step_column:  # the steps shape's step time is read above, by statistic
            _metric(cat, b, m, "pr")
    for m in b.metrics_of_which:
        if m.key != step_column:
            _metric(cat, b, m, m.candidate.arm)
    cat.headline = ["step time@mean"] if b.comparison is not None else [m.key for m in b.headline()]
    for c in b.candidates:
        _candidate(cat, b, c)
    for fam in KNOWN_FAMILIES:  # named in a text even when the campaign did not measure it
        if not cat.family_metrics(fam) and fam not in ("first step", "slow steps", "peak memory"):
            cat.metric(
                Metric(id=f"absent:{fam}", name=fam.upper() if len(fam) <= 4 else fam, family=fam, stat=None, unit="")
            )
    return cat.seal()


def _arm(b: BenchmarkSummary, name: str) -> str:
    return "baseline" if name == b.baseline else "pr" if name == b.candidate else name


def _metric(cat: Catalog, b: BenchmarkSummary, m: Any, arm: str) -> None:
    spec = next((s for s in b.metric_model if s.key == m.key), None)
    family, stat = _spec_family(spec.column if spec else m.key, m.name)
    if spec is not None and spec.stat and not stat:
        stat = {"median": "p50"}.get(spec.stat, spec.stat)
    test = f"Mann-Whitney U over the per-run {m.name} ({len(m.baseline.per_run)} and {len(m.candidate.per_run)} runs)"
    if arm != "pr":
        cat.tests[(m.key, arm)] = Metric(
            id=m.key,
            name=m.name,
            family="",
            stat=None,
            unit=m.unit,
            direction=m.direction,
            change_pct=m.change_pct,
            verdict=m.verdict,
            p_value=m.p_value,
            test=test,
            baseline=m.baseline.estimate.value,
            pr=m.candidate.estimate.value,
        )
    metric = cat.metric(
        Metric(
            id=m.key,
            name=m.name,
            family=family,
            stat=stat,
            unit=m.unit,
            direction=m.direction,
            change_pct=m.change_pct if arm == "pr" else None,
            verdict=m.verdict if arm == "pr" else None,
            p_value=m.p_value if arm == "pr" else None,
            test=test,
            baseline=m.baseline.estimate.value,
            pr=m.candidate.estimate.value if arm == "pr" else None,
        )
    )
    pooled = _basis(b, m) == "pooled"
    if pooled:
        cat.pooled.add(metric.id)
    for side, am in (("baseline", m.baseline), (arm, m.candidate)):
        est = am.estimate
        cat.add(metric.id, side, "level", est.value, basis="pooled" if pooled else "runs")
        if pooled and am.per_run:  # the other figure a text may quote: the mean of the per-run values
            cat.add(metric.id, side, "level", sum(am.per_run) / len(am.per_run), basis="runs")
        cat.add(metric.id, side, "ci", est.ci_low)
        cat.add(metric.id, side, "ci", est.ci_high)
        for k, v in zip(am.run_ids or range(1, len(am.per_run) + 1), am.per_run, strict=False):
            cat.add(metric.id, side, "run", v, run=k)
    bv, cv = m.baseline.estimate.value, m.candidate.estimate.value
    cat.add(metric.id, arm, "pct", m.change_pct)
    cat.add(metric.id, arm, "diff", cv - bv)
    cat.add(metric.id, arm, "p", m.p_value)
    if bv and cv:
        cat.add(metric.id, arm, "factor", cv / bv, way="up")
        cat.add(metric.id, arm, "factor", bv / cv, way="down")
    way = "up" if m.direction == "higher" else "down"  # speedup: how many times better, in its own direction
    cat.add(metric.id, arm, "fci", m.speedup_ci_low, way=way)
    cat.add(metric.id, arm, "fci", m.speedup_ci_high, way=way)


def _basis(b: BenchmarkSummary, m: Any) -> str:
    """'pooled' when the estimate is the statistic over every request pooled, else 'runs'."""
    basis = getattr(m, "basis", None)  # read_benchmark says so where it can pool per-request values
    if basis is not None:
        return "pooled" if basis == "pooled_requests" else "runs"
    return "pooled" if b.shape == "requests" else "runs"


def _steps(cat: Catalog, b: BenchmarkSummary, unit: str) -> None:
    """The steps shape: step time by statistic, slow steps, peak memory, the first step, extra columns."""
    cmp = b.step_comparison()
    word = unit.strip().lower() or "step"
    fam = f"{word} time"
    specs = {
        "mean": (f"mean {fam}", "lower"),
        "p50": (f"median {fam}", "lower"),
        "p10": (f"{fam} p10", "lower"),
        "p90": (f"{fam} p90", "lower"),
    }
    for stat, (name, direction) in specs.items():
        cat.metric(Metric(id=f"step time@{stat}", name=name, family=fam, stat=stat, unit="s", direction=direction))
    mean, median = cat.metrics["step time@mean"], cat.metrics["step time@p50"]
    _step_comparison(cat, b, cmp, "pr")
    sig_ = cmp.significance
    mean.change_pct, mean.p_value = cmp.change_mean_pct, sig_.p_value
    mean.verdict = {"faster": "better", "slower": "worse"}.get(sig_.verdict, sig_.verdict)
    mean.test = f"Mann-Whitney U over the per-run means ({sig_.runs_baseline} and {sig_.runs_candidate} runs)"
    median.change_pct = cmp.change_median_pct
    for o in b.of_which:
        _step_comparison(cat, b, o, _arm(b, o.candidate))
        v = o.significance
        cat.tests[("step time@mean", _arm(b, o.candidate))] = Metric(
            id="step time@mean",
            name=f"mean {word} time",
            family="",
            stat="mean",
            unit="s",
            direction="lower",
            change_pct=o.change_mean_pct,
            verdict={"faster": "better", "slower": "worse"}.get(v.verdict, v.verdict),
            p_value=v.p_value,
            test=f"Mann-Whitney U over the per-run means ({v.runs_baseline} and {v.runs_candidate} runs)",
            baseline=b.arm(o.baseline).mean.value,
            pr=b.arm(o.candidate).mean.value,
        )
    slow = cat.metric(Metric(id="slow steps", name=f"slow {word}s", family="slow steps", stat=None, unit=""))
    mem = cat.metric(
        Metric(id="peak memory", name="peak memory", family="peak memory", stat=None, unit="GB", direction="lower")
    )
    first = cat.metric(
        Metric(id="first step", name=f"first {word}", family="first step", stat=None, unit="s", direction="lower")
    )
    cat.metric(Metric(id="slow share", name=f"share of slow {word}s", family="slow steps", stat=None, unit="%"))
    cat.metric(
        Metric(
            id="slow step time", name=f"time of a slow {word}", family="slow steps", stat=None, unit="s", also=(fam,)
        )
    )
    cat.metric(Metric(id="typical step time", name=f"typical {word} time", family=fam, stat=None, unit="s"))
    for a in b.arms:
        arm = _arm(b, a.name)
        cat.add("step time@mean", arm, "level", a.mean.value)
        cat.add("step time@mean", arm, "ci", a.mean.ci_low)
        cat.add("step time@mean", arm, "ci", a.mean.ci_high)
        cat.add("step time@mean", arm, "level", a.run_mean.value)
        cat.add("step time@mean", arm, "ci", a.run_mean.ci_low)
        cat.add("step time@mean", arm, "ci", a.run_mean.ci_high)
        cat.add("step time@p50", arm, "level", a.median.value)
        cat.add("step time@p50", arm, "ci", a.median.ci_low)
        cat.add("step time@p50", arm, "ci", a.median.ci_high)
        cat.add("step time@p10", arm, "level", a.p10_s)
        cat.add("step time@p90", arm, "level", a.p90_s)
        for r in a.per_run:
            cat.add("step time@mean", arm, "run", r.mean_s, run=r.run)
            cat.add("step time@p50", arm, "run", r.median_s, run=r.run)
            cat.add("first step", arm, "run", r.first_step_s, run=r.run)
            cat.add("peak memory", arm, "run", r.peak_mem_gb, run=r.run)
            cat.add("slow steps", arm, "run", r.slow_steps, run=r.run)
        if a.bimodality.detected:  # "16 steps take about 1.65 s instead of the typical 0.91 s"
            cat.add("typical step time", arm, "level", a.bimodality.fast_center_s)
            cat.add("slow step time", arm, "level", a.bimodality.slow_center_s)
        cat.add("slow step time", arm, "level", a.slow_steps.mean_slow_s)
        cat.add("first step", arm, "level", a.first_step.mean_s)
        cat.add("slow steps", arm, "count", a.slow_steps.count)
        cat.add("slow step time", arm, "threshold", a.slow_steps.threshold_s)
        cat.add("slow share", arm, "level", a.slow_steps.fraction * 100)
        cat.add("slow share", arm, "level", a.slow_steps.time_share * 100)
        if a.peak_mem is not None:
            cat.add("peak memory", arm, "level", a.peak_mem.max_gb)
    slow.baseline, slow.pr = float(cmp.slow_steps_baseline), float(cmp.slow_steps_candidate)
    cat.add("slow steps", "pr", "diff", cmp.slow_steps_candidate - cmp.slow_steps_baseline)
    if cmp.peak_mem_baseline_gb is not None and cmp.peak_mem_candidate_gb is not None:
        mem.baseline, mem.pr, mem.change_pct = (
            cmp.peak_mem_baseline_gb,
            cmp.peak_mem_candidate_gb,
            cmp.peak_mem_change_pct,
        )
        cat.add("peak memory", "pr", "pct", cmp.peak_mem_change_pct)
        cat.add("peak memory", "pr", "diff", cmp.peak_mem_candidate_gb - cmp.peak_mem_baseline_gb)
        if cmp.peak_mem_baseline_gb and cmp.peak_mem_candidate_gb:
            cat.add("peak memory", "pr", "factor", cmp.peak_mem_candidate_gb / cmp.peak_mem_baseline_gb, way="up")
            cat.add("peak memory", "pr", "factor", cmp.peak_mem_baseline_gb / cmp.peak_mem_candidate_gb, way="down")
    if cmp.first_step_baseline_s is not None and cmp.first_step_candidate_s is not None:
        first.baseline, first.pr, first.change_pct = (
            cmp.first_step_baseline_s,
            cmp.first_step_candidate_s,
            cmp.first_step_change_pct,
        )
        cat.add("first step", "pr", "pct", cmp.first_step_change_pct)
        cat.add("first step", "pr", "diff", cmp.first_step_candidate_s - cmp.first_step_baseline_s)
        if cmp.first_step_candidate_s:
            cat.add("first step", "pr", "factor", cmp.first_step_baseline_s / cmp.first_step_candidate_s, way="down")
            cat.add("first step", "pr", "factor", cmp.first_step_candidate_s / cmp.first_step_baseline_s, way="up")
    specs_by_col = {s.column: s for s in b.metric_model}
    for mc in cmp.metrics:
        spec = specs_by_col.get(mc.name)
        name = spec.name if spec else mc.name.replace("_", " ")
        extra = cat.metric(
            Metric(
                id=f"column:{mc.name}",
                name=name,
                family=_family(name)[0],
                stat=None,
                unit=spec.unit if spec else "",
                direction=spec.direction if spec else None,
                change_pct=mc.change_pct,
                baseline=mc.baseline,
                pr=mc.candidate,
            )
        )
        cat.add(extra.id, "baseline", "level", mc.baseline)
        cat.add(extra.id, "pr", "level", mc.candidate)
        cat.add(extra.id, "pr", "pct", mc.change_pct)
        if mc.baseline is not None and mc.candidate is not None:
            cat.add(extra.id, "pr", "diff", mc.candidate - mc.baseline)
            if mc.baseline and mc.candidate:
                cat.add(extra.id, "pr", "factor", mc.candidate / mc.baseline, way="up")
                cat.add(extra.id, "pr", "factor", mc.baseline / mc.candidate, way="down")


def _step_comparison(cat: Catalog, b: BenchmarkSummary, c: Comparison, arm: str) -> None:
    cat.add("step time@mean", arm, "pct", c.change_mean_pct)
    cat.add("step time@p50", arm, "pct", c.change_median_pct)
    for stat, speed in (("mean", c.speedup_mean), ("p50", c.speedup_median)):
        if speed:
            cat.add(f"step time@{stat}", arm, "factor", speed, way="down")
            cat.add(f"step time@{stat}", arm, "factor", 1 / speed, way="up")
    cat.add("step time@mean", arm, "fci", c.speedup_mean_ci_low, way="down")
    cat.add("step time@mean", arm, "fci", c.speedup_mean_ci_high, way="down")
    cat.add("step time@mean", arm, "p", c.significance.p_value)
    base, other = b.arm(c.baseline), b.arm(c.candidate)
    cat.add("step time@mean", arm, "diff", other.mean.value - base.mean.value)
    cat.add("step time@p50", arm, "diff", other.median.value - base.median.value)


def _candidate(cat: Catalog, b: BenchmarkSummary, c: Candidate) -> None:
    """A commit's screening: its before and after on the base it was measured against, its effect."""
    if any(str(c.other_fields.get(k, "")).strip().lower() in ("setting", "install") for k in ("kind", "type")):
        return  # a setting applied to both versions: its "after" is the baseline the PR is measured on
    metric = _candidate_metric(cat, b, c)
    if metric is None:
        return
    where = f"screening {c.sha[:12]}"
    cat.add(metric, "baseline", "level", c.before, measurement=where)
    cat.add(metric, "pr", "level", c.after, measurement=where)
    cat.add(metric, "pr", "pct", c.effect_pct, measurement=where)
    if c.before is not None and c.after is not None:
        cat.add(metric, "pr", "diff", c.after - c.before, measurement=where)
        if c.before and c.after:
            cat.add(metric, "pr", "factor", c.after / c.before, measurement=where, way="up")
            cat.add(metric, "pr", "factor", c.before / c.after, measurement=where, way="down")


def _candidate_metric(cat: Catalog, b: BenchmarkSummary, c: Candidate) -> str | None:
    if b.comparison is not None and (
        c.metric == b.columns.get("step_time_s", "step_time_s") or c.metric == "step_time_s"
    ):
        return "step time@mean"
    for s in b.metric_model:
        if c.metric in (s.key, s.column, s.name) and s.key in cat.metrics:
            return s.key
    from perfkit.benchmark.metric_spec import infer

    guess = infer(c.metric)
    if not isinstance(guess, tuple):
        return None
    decl = guess[0]
    family, stat = _spec_family(c.metric, decl.name or c.metric)
    key = f"candidate:{c.metric}"
    cat.metric(
        Metric(
            id=key, name=decl.name or c.metric, family=family, stat=stat, unit=decl.unit or "", direction=decl.direction
        )
    )
    return key


def family_aliases(cat: Catalog) -> dict[str, str]:
    """Lower-case words -> the family they name, for every family of the catalog."""
    out: dict[str, str] = {}
    for m in cat.metrics.values():
        out.setdefault(m.family, m.family)
        for alias in FAMILY_ALIASES.get(m.family, ()):
            out.setdefault(alias.lower(), m.family)
    return out
