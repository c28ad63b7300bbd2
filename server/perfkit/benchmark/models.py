"""Result model of read_benchmark: every figure a PR description may quote, with where it came from.

Field names are a contract: render_pr and agents read them. Times are seconds, memory is what the
peak-memory column holds (GB by convention), percentages are percent (-12.5 means 12.5% lower).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from perfkit.base_model import Model
from perfkit.benchmark.metric_models import MetricComparison
from perfkit.benchmark.metric_spec import MetricSpec, Uninferred
from perfkit.guards.list_caps import ListsCapped
from perfkit.guards.outside_text import CampaignName, CampaignText, CampaignTitle, capped_tree


class Source(Model):
    """Provenance of a figure: which file, which columns, which rows, and how it was computed."""

    file: str = Field(description="file the figure was read from, relative to the campaign folder")
    columns: list[CampaignName] = Field(
        default_factory=list, description="column names (as written in the file) it uses"
    )
    rows: CampaignText = Field(default="", description="which rows: for example \"arm == 'baseline', step > 1\"")
    how: CampaignText = Field(default="", description="how the figure is computed from those rows")


class Estimate(Model):
    """A central value with its 95% confidence interval, or the reason there is none."""

    value: float = Field(description="the point estimate")
    ci_low: float | None = Field(description="lower bound of the 95% confidence interval; null when there is none")
    ci_high: float | None = Field(description="upper bound of the 95% confidence interval; null when there is none")
    ci_note: str | None = Field(
        default=None, description="why there is no interval (for example 'too few samples: need >= 6')"
    )
    n: int = Field(description="number of values the estimate is computed from")
    method: str = Field(description="how value and interval are computed")


class RunSummary(Model):
    """One interleaved run of one arm."""

    run: int = Field(description="the run index from the run column")
    steps: int = Field(description="rows of this run, warm-up included")
    steady_steps: int = Field(description="rows after the warm-up")
    mean_s: float = Field(description="mean step time over the run's steady-state steps")
    median_s: float = Field(description="median step time over the run's steady-state steps")
    first_step_s: float | None = Field(description="time of the run's step 1 (null when the run has no step 1)")
    slow_steps: int = Field(description="steady-state steps above the slow-step threshold")
    peak_mem_gb: float | None = Field(
        default=None, description="largest peak-memory value of the run, all steps; null without data"
    )


class FirstStep(Model):
    """The one-time cost paid by step 1 (compilation, plan builds, allocator warm-up)."""

    mean_s: float | None = Field(description="mean of step 1 over the runs that have one")
    min_s: float | None = Field(description="fastest step 1 over runs")
    max_s: float | None = Field(description="slowest step 1 over runs")
    runs: int = Field(description="runs that have a step 1")
    excess_s: float | None = Field(description="mean step 1 minus the arm's steady-state median: the one-time cost")
    source: Source = Field(description="file, columns and rows these figures come from")


class SlowSteps(Model):
    """Steady-state steps above one shared threshold (the same threshold for every arm)."""

    threshold_s: float = Field(description="a step slower than this is slow")
    threshold_rule: str = Field(description="where the threshold comes from (given, or the automatic rule used)")
    count: int = Field(description="slow steady-state steps over all runs")
    fraction: float = Field(description="count / steady-state steps")
    time_share: float = Field(description="fraction of the steady-state time spent in slow steps")
    mean_slow_s: float | None = Field(description="mean time of the slow steps; null when there are none")
    source: Source = Field(description="file, columns and rows these figures come from")


class Bimodality(Model):
    """Whether the steady-state step times form a typical cluster and a separate cluster of slow steps."""

    detected: bool = Field(description="true when a separate cluster of slow steps was found")
    fast_center_s: float | None = Field(description="median of the typical (lower) group")
    slow_center_s: float | None = Field(description="median of the slow (upper) group")
    slow_count: int = Field(description="steps in the slow cluster (0 when not detected)")
    split_s: float | None = Field(description="midpoint of the gap between the clusters; null when not detected")
    reason: str = Field(description="the figures behind the decision, in one sentence")
    rule: str = Field(description="the detection rule, in short (see docs/campaign-format.md)")


class MetricSummary(Model):
    """An extra numeric column (kernel launches, tokens per second, ...) over the steady-state steps."""

    name: CampaignName = Field(description="column name in benchmark.csv")
    samples: int = Field(description="steady-state rows with a value (empty cells are skipped)")
    mean: float | None = Field(description="mean over steady-state rows; null when no row has a value")
    median: float | None = Field(description="median over steady-state rows")
    min: float | None = Field(description="smallest steady-state value")
    max: float | None = Field(description="largest steady-state value")
    per_run_mean: list[float | None] = Field(description="mean per run, in the order of the arm's run_ids")
    source: Source = Field(description="file, columns and rows these figures come from")


class PeakMemory(Model):
    """Peak memory: the largest value per run, over all steps (warm-up included)."""

    column: CampaignName = Field(description="the peak-memory column in benchmark.csv")
    max_gb: float = Field(description="largest value over all runs")
    min_run_max_gb: float = Field(description="smallest of the per-run maxima: how much the peak varies between runs")
    runs_with_data: int = Field(description="runs that have at least one value")
    source: Source = Field(description="file, columns and rows these figures come from")


class ArmSummary(Model):
    """One arm of benchmark.csv, measured on its steady-state steps (after the warm-up)."""

    name: CampaignName = Field(description="the arm's name in the arm column")
    runs: int = Field(description="number of interleaved runs")
    run_ids: list[int] = Field(description="the run indices, sorted")
    steps: int = Field(description="rows of the arm, warm-up included")
    steady_steps: int = Field(description="rows after the warm-up, pooled over runs")
    mean: Estimate = Field(
        description="mean step time over steady-state steps, t interval treating steps as "
        "independent (it ignores run-to-run variation: see run_mean)"
    )
    median: Estimate = Field(description="median step time over steady-state steps, order-statistic interval")
    run_mean: Estimate = Field(
        description="mean of the per-run means, t interval over runs: includes run-to-run variation, needs >= 2 runs"
    )
    stdev_s: float | None = Field(description="sample standard deviation of steady-state step times")
    cv: float | None = Field(description="coefficient of variation: stdev / mean")
    min_s: float = Field(description="fastest steady-state step")
    max_s: float = Field(description="slowest steady-state step")
    p10_s: float = Field(description="10th percentile (linear interpolation, numpy's default)")
    p90_s: float = Field(description="90th percentile (linear interpolation, numpy's default)")
    mean_over_median: float = Field(description="mean / median: how far slow steps pull the mean up")
    per_run: list[RunSummary] = Field(description="one entry per run, in run order")
    first_step: FirstStep = Field(description="step 1 of each run: the one-time cost")
    slow_steps: SlowSteps = Field(description="steady-state steps above the shared slow-step threshold")
    bimodality: Bimodality = Field(description="whether the steady-state steps hold a separate cluster of slow steps")
    peak_mem: PeakMemory | None = Field(description="null when benchmark.csv has no peak-memory column")
    metrics: list[MetricSummary] = Field(default_factory=list, description="extra numeric columns")
    source: Source = Field(description="where the step-time figures come from")


class Significance(Model):
    """Mann-Whitney U test across run-level values (one per-run mean step time per run)."""

    verdict: Literal["faster", "slower", "not_significant", "too_few_runs"] = Field(
        description="faster/slower: the candidate differs at alpha; not_significant: the test ran and found no "
        "difference; too_few_runs: even completely separated runs could not reach alpha, so no test was made"
    )
    method: str = Field(description="the test and what it was applied to")
    runs_baseline: int = Field(description="run-level values of the baseline")
    runs_candidate: int = Field(description="run-level values of the candidate")
    u: float | None = Field(
        description="U of the candidate: run pairs where the candidate's run is slower "
        "(ties count one half); null when no test was made"
    )
    p_value: float | None = Field(description="two-sided p-value; null when verdict is too_few_runs")
    min_p_value: float = Field(description="smallest p-value these run counts can produce")
    alpha: float = Field(description="significance level")
    exact: bool = Field(description="exact permutation distribution (true) or normal approximation (false)")
    note: str = Field(description="the verdict in one sentence, with the runs needed when there are too few")


class MetricChange(Model):
    """An extra numeric column compared between two arms (steady-state means)."""

    name: CampaignName = Field(description="column name in benchmark.csv")
    baseline: float | None = Field(description="steady-state mean, baseline arm")
    candidate: float | None = Field(description="steady-state mean, compared arm")
    change_pct: float | None = Field(description="(candidate - baseline) / baseline, in percent")


class Comparison(Model):
    """One arm against the baseline: speedups, percentage changes and a significance verdict."""

    baseline: CampaignName = Field(description="baseline arm name")
    candidate: CampaignName = Field(description="compared arm name")
    speedup_mean: float = Field(description="baseline mean / candidate mean (above 1 means faster)")
    speedup_median: float = Field(description="baseline median / candidate median")
    speedup_mean_ci_low: float | None = Field(
        description="lower bound of an approximate 95% interval of speedup_mean from the per-run means (Welch t on "
        "the log ratio, delta method); null with fewer than 2 runs in an arm"
    )
    speedup_mean_ci_high: float | None = Field(description="upper bound of that interval")
    speedup_ci_note: str | None = Field(default=None, description="why there is no speedup interval, if none")
    change_mean_pct: float = Field(description="(candidate mean - baseline mean) / baseline mean, in percent")
    change_median_pct: float = Field(description="(candidate median - baseline median) / baseline median, in percent")
    significance: Significance = Field(description="Mann-Whitney U verdict across runs, or too_few_runs")
    show_mean_and_median: bool = Field(
        description="true when a description must show both mean and median: either arm is bimodal, or the two "
        "speedups differ by more than 2%"
    )
    show_reason: str = Field(description="why show_mean_and_median is what it is")
    slow_steps_baseline: int = Field(description="slow steady-state steps of the baseline (shared threshold)")
    slow_steps_candidate: int = Field(description="slow steady-state steps of the compared arm (same threshold)")
    first_step_baseline_s: float | None = Field(description="mean step 1 over runs, baseline")
    first_step_candidate_s: float | None = Field(description="mean step 1 over runs, compared arm")
    first_step_change_pct: float | None = Field(description="change of the mean step 1, in percent")
    peak_mem_baseline_gb: float | None = Field(description="peak memory, max over runs, baseline")
    peak_mem_candidate_gb: float | None = Field(description="peak memory, max over runs, candidate")
    peak_mem_change_pct: float | None = Field(description="change of peak memory in percent")
    metrics: list[MetricChange] = Field(default_factory=list, description="extra columns present in both arms")
    source: Source = Field(description="where the compared figures come from")


class Candidate(Model):
    """One line of records/candidates.jsonl: a change that was tried, and what it measured."""

    line: int = Field(description="line number in candidates.jsonl")
    sha: str = Field(description="the candidate's commit (as recorded)")
    title: CampaignTitle = Field(description="one-line title of the change, as recorded")
    shipped: bool = Field(description="whether the change is part of the delivered branch")
    baseline: CampaignName | None = Field(description="the baseline this candidate's effect was measured against")
    metric: CampaignName = Field(description="what was measured (default step_time_s)")
    before: float | None = Field(description="metric on that baseline")
    after: float | None = Field(description="metric with the candidate")
    effect_pct: float | None = Field(description="(after - before) / before in percent, as recorded or computed")
    arm: CampaignName | None = Field(description="the benchmark.csv arm measuring this change, if any")
    other_baseline: bool = Field(
        description="true when the effect was measured against a different baseline than reference_baseline: "
        "a PR must mark such numbers"
    )
    report: str | None = Field(description="commits/<sha>/report.md relative to the campaign folder, if present")
    trace: str | None = Field(description="commits/<sha>/trace/ relative to the campaign folder, if present")
    note: CampaignText | None = Field(description="the record's note or reason, if any")
    other_fields: Annotated[dict[str, Any], BeforeValidator(capped_tree)] = Field(
        default_factory=dict, description="any other keys of the record, as written (each text cut at 200 characters)"
    )


class SetupValue(Model):
    """One setup field of one arm: how the benchmark was run, as its result files write it (never a metric)."""

    key: CampaignName = Field(description="the key or column as written: num_prompts, request_rate, max_concurrency")
    value: bool | int | float | CampaignName | None = Field(
        description="the value as written: a number, text, true/false or null; a non-finite number as the file "
        "spells it ('Infinity', or the text 'inf' vLLM writes for an unlimited request rate)"
    )
    runs: int = Field(description="runs of the arm that hold this value")
    every_run: bool = Field(
        description="true when every run of the arm holds this value: a figure a description may quote as the "
        "arm's setup"
    )
    files: list[str] = Field(description="where it is written: each file (with the line, in a file of several runs)")


class ArmSetup(Model):
    """The setup fields of one arm's runs."""

    arm: CampaignName = Field(description="the arm")
    runs: int = Field(description="runs of the arm")
    values: list[SetupValue] = Field(description="one entry per key and value; a key whose value varies has several")


class BenchmarkSummary(ListsCapped):
    """Everything read_benchmark found in a campaign folder."""

    campaign_dir: str = Field(description="the campaign folder, resolved")
    benchmark_file: str = Field(
        description="benchmark.csv, or 'results' for serving results saved under results/ (see result_files)"
    )
    result_files: list[str] = Field(
        default_factory=list, description="every results file read, relative to the campaign folder, in run order"
    )
    columns: dict[str, CampaignName] = Field(
        description="role -> column name used (arm, run, step, step_time_s, and peak_mem_gb when present)"
    )
    ignored_columns: list[CampaignName] = Field(
        default_factory=list,
        description="columns or keys not used as metrics: text, setup fields, per-request lists, always empty",
    )
    setup: list[ArmSetup] = Field(
        default_factory=list,
        description="per arm, the setup fields of its runs (request rate, concurrency, prompt count, dataset "
        "lengths, model, backend, date) with the files they come from; never metrics",
    )
    warmup_steps: int = Field(description="steps 1..warmup_steps of every run are excluded from steady-state figures")
    baseline: CampaignName = Field(description="baseline arm")
    candidate: CampaignName = Field(description="the PR's arm")
    shape: Literal["steps", "runs", "requests"] = Field(
        default="steps",
        description="steps: one row per training step (step-time figures below); runs: one row per run with "
        "metric columns; requests: one row per request, statistics computed per run",
    )
    arms: list[ArmSummary] = Field(
        default_factory=list,
        description="steps shape: baseline first, the PR's arm second, then the other arms in file order; "
        "empty for the runs and requests shapes (see metrics)",
    )
    comparison: Comparison | None = Field(
        default=None, description="steps shape: the PR's arm against the baseline in step time; null otherwise"
    )
    of_which: list[Comparison] = Field(
        default_factory=list, description="every other arm against the baseline ('of which' rows)"
    )
    metric_model: list[MetricSpec] = Field(
        default_factory=list,
        description="every metric with its unit, direction and level, declared or inferred (with the reason)",
    )
    uninferred: list[Uninferred] = Field(
        default_factory=list, description="numeric columns not used as metrics, and why: declare them to use them"
    )
    metrics: list[MetricComparison] = Field(
        default_factory=list, description="each metric of metric_model, the PR's arm against the baseline"
    )
    metrics_of_which: list[MetricComparison] = Field(
        default_factory=list, description="each headline metric, every other arm against the baseline"
    )
    arm_names: list[CampaignName] = Field(
        default_factory=list, description="every arm, baseline first, the PR's arm second"
    )
    candidates: list[Candidate] = Field(default_factory=list, description="records/candidates.jsonl, in file order")
    candidates_file: str | None = Field(description="records/candidates.jsonl when present")
    reference_baseline: CampaignName | None = Field(
        description="the baseline the PR's numbers are measured against, used to mark candidates measured elsewhere"
    )
    reference_baseline_rule: str | None = Field(description="how reference_baseline was chosen")
    latest_report: str | None = Field(description="latest-report.md when present (the drafts go next to it)")
    warnings: list[CampaignText] = Field(
        default_factory=list,
        description="things worth checking that did not stop the reading (missing steps, "
        "unequal run counts, a recorded effect that disagrees with before/after, a run without a value the "
        "other runs have)",
    )
    notes: list[CampaignText] = Field(
        default_factory=list,
        description="what was read and what was left aside, and why: files beside the results that are not "
        "results, failed requests left out of per-request figures",
    )

    def arm(self, name: str) -> ArmSummary:
        return next(a for a in self.arms if a.name == name)

    def headline(self) -> list[MetricComparison]:
        """The metrics the title and the result table lead with."""
        heads = {m.key for m in self.metric_model if m.headline}
        return [m for m in self.metrics if m.key in heads]

    def step_comparison(self) -> Comparison:
        """The step-time comparison; only the steps shape has one."""
        if self.comparison is None:
            from perfkit.errors import InputError

            raise InputError("campaign_dir", f"the campaign is in the {self.shape} shape: it has no step times")
        return self.comparison

    def human(self) -> str:
        from perfkit.benchmark.render import human

        return human(self)
