"""The draft an agent writes for render_pr.

The draft holds only what the campaign's files cannot say: names, prose, the correctness
checks, answers to the repo's own headings. Every field may be left out; the rendered file then
shows a visible `<placeholder>` in its place, so a partial draft still renders and the agent
sees exactly what is left. Numbers never come from the draft: they come from read_benchmark.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from perfkit.base_model import Model
from perfkit.benchmark.options import BenchmarkOptions


class _Strict(Model):
    model_config = ConfigDict(extra="forbid")


class Change(_Strict):
    name: str | None = Field(None, description="Short name of the change, shown in bold in the numbered list.")
    problem: str | None = Field(None, description="What goes wrong without it, in one sentence.")
    does: str | None = Field(None, description="What the change does, in one sentence.")
    limit: str | None = Field(None, description="Its limit, or how to turn it off, in one sentence.")
    arm: str | None = Field(
        None,
        description="The benchmark arm that measured this change alone; its row in the result table "
        "is labelled with the change's name instead of the arm's.",
    )


class Check(_Strict):
    recorded: str = Field(
        description="What was recorded, in words a maintainer knows: 'validation loss after "
        "the last step', 'final weights', 'loss at every step'."
    )
    when: Literal["end", "step"] = Field(
        "end", description="'end' for end-of-run values, 'step' for per-step values; end-of-run rows are listed first."
    )
    compared: str = Field(
        description="The 'baseline vs this PR' cell: the measured difference, for example "
        "'largest absolute difference 0.0004'. Numbers must appear in the campaign's files."
    )
    tolerance: str = Field(description="The tolerance fixed before the runs, for example '0.01 absolute'.")
    exceeded: int = Field(0, ge=0, description="How many values exceed the tolerance (0 when all are within).")
    exceeded_unit: str = Field("steps", description="What `exceeded` counts, for per-step rows: 'steps', 'tensors'.")


class Correctness(_Strict):
    ran: str | None = Field(
        None,
        description="What was run, first person: 'I trained both versions on the same 382 batches from the same seed.'",
    )
    compared: str | None = Field(None, description="Which values were compared and how many, as a sentence.")
    recording_code: str | None = Field(
        None,
        description="Where the code that recorded the values lives (a branch of your fork, not in the "
        "PR). Default: the placeholder <fork verify branch>.",
    )
    checks: list[Check] = Field(default_factory=list, description="One entry per row of the correctness table.")
    suspected_cause: str | None = Field(
        None,
        description="For failed checks: a suspected cause. Rendered as a guess; it never turns a failure into a pass.",
    )
    acceptance: str | None = Field(
        None,
        description="For failed checks: an explicit acceptance decision with its justification, if one "
        "was made. Without it, failed checks stay failed.",
    )


class Checkbox(_Strict):
    text: str = Field(
        description="The box's id from render_pr's template_parts/checkboxes (e.g. 'p7.2'), its text in the repo "
        "template, or a unique part of that text."
    )
    tick: bool = Field(False, description="Tick it only when the work backs the statement.")
    reason: str | None = Field(None, description="Why it stays unticked (shown after the box).")


class Details(_Strict):
    hardware: str | None = Field(None, description="Hardware and software environment.")
    model: str | None = Field(None, description="The model and the job.")
    data: str | None = Field(None, description="How the data was prepared.")
    setup: str | None = Field(
        None,
        description="Measurement setup: base commit, what both versions share, "
        "data size, seed. The run and warm-up counts are added from the data.",
    )
    shared_settings: list[str] = Field(
        default_factory=list,
        description="Installs and settings a user can apply alone, applied to both "
        "versions (not the PR's contribution).",
    )
    command_baseline: str | None = Field(None, description="Full command for the baseline.")
    command_pr: str | None = Field(None, description="Full command for this PR.")
    rejected: list[str] = Field(default_factory=list, description="Settings tried and rejected, one per entry.")
    trace_links: dict[str, str] = Field(
        default_factory=dict,
        description="Share link per commit (sha or prefix) whose commits/<sha>/trace/ "
        "folder exists. Missing ones render as <share link>.",
    )


class IssueDraft(_Strict):
    title: str | None = Field(
        None, description="What was observed, with the job and the GPU; no speed-up factor and no prefix of your own."
    )
    observed: str | None = Field(
        None, description="Paragraph 1: what I ran and what the profile showed as the largest cause, naming the file."
    )
    cause_commit: str | None = Field(
        None,
        description="Commit (sha or prefix, as in candidates.jsonl) of the change that removes the largest "
        "cause; its recorded before and after are quoted. Default: the shipped candidate with the largest "
        "measured effect.",
    )
    cause_arm: str | None = Field(
        None,
        description="Instead of cause_commit: the benchmark arm that measured that change alone; the "
        "baseline's and the arm's means are quoted.",
    )
    logs_said: str | None = Field(
        None,
        description="Paragraph 2: what the logs or docs said at the time, and "
        "the one line that would have made the profile unnecessary.",
    )
    pr: str | None = Field(None, description="The PR number once opened (digits). Default: the placeholder <PR>.")
    form_answers: dict[str, str | list[str]] = Field(
        default_factory=dict,
        description="Answers for the issue form's fields, keyed by the field's id, its label, or a part of the label "
        "only one field has (render_pr's issue_form.fields lists them). A checkbox field takes a list of the boxes "
        "to tick (an item 'reason: ...' says why a required box the draft cannot back stays unticked); a "
        "multiple-choice dropdown a list of options. An answer for a field the paragraphs would go to "
        "replaces them there, and they move to the next field that fits.",
    )


class Draft(_Strict):
    """Everything render_pr cannot read from the campaign. See docs/publish.md for an example."""

    job: str | None = Field(None, description="The job, as a maintainer names it: 'paraformer-large training'.")
    gpu: str | None = Field(None, description="Accelerator model: 'B200', 'H100 SXM'.")
    gpu_count: int | None = Field(None, ge=1, description="How many accelerators the measurement used.")
    world_size: int | None = Field(None, ge=1, description="World size for the title. Default: gpu_count.")
    unit: str = Field("step", description="What one measured row is: 'step', 'iteration', 'batch'.")
    parallelism: str | None = Field(
        None,
        description="How a serving job is split, as the title says it: 'TP 8', 'TP 4 x PP 2'. Runs and requests "
        "campaigns put it after the metrics ('at TP 8'); they never say 'world size'.",
    )
    chart: bool = Field(
        False,
        description="Add a Mermaid chart of the headline metric per run, both versions (step time: per-run means "
        "and medians), to the Details block. GitHub draws it without an upload.",
    )
    largest_cause: str | None = Field(
        None, description="The largest cause of the speedup, for the title ('mostly from ...')."
    )
    title_prefix: str = Field("[perf]", description="Title prefix; follow the repo's title rule if it has one.")
    summary: str | None = Field(
        None,
        description="Summary paragraph: what the job loses and why, with one or two "
        "numbers from the data, and what this PR adds. The headline result and the "
        "hardware are appended from the data.",
    )
    changes: list[Change] = Field(default_factory=list, description="One entry per change, in the PR's order.")
    ships: list[str] = Field(
        default_factory=list,
        description="The commits this PR ships (sha prefixes from records/candidates.jsonl). The per-commit table "
        "lists them; every other candidate goes to 'tried and not kept'. Default: those recorded as shipped.",
    )
    correctness: Correctness | None = Field(None, description="The correctness checks.")
    template_answers: dict[str, str | list[str]] = Field(
        default_factory=dict,
        description="Answers for the repo template's parts, keyed by part id from render_pr's template_parts "
        "(e.g. 'p3'), by heading or label text (case and punctuation ignored), or by a unique part of it; "
        "'preamble' answers a template without headings. For an option list or checklist, a list of the "
        "options to tick (their text or box ids).",
    )
    issue_number: int | None = Field(
        None, ge=1, description="The companion issue's number once filed; fills the template's issue-link lines."
    )
    checkboxes: list[Checkbox] = Field(default_factory=list, description="Decisions on the repo template's boxes.")
    ai_disclosure: str | None = Field(
        None,
        description="How AI tools took part in this work, in the user's own words: 'Drafted with an AI coding "
        "agent; I reviewed every change and ran every measurement.' It answers the parts of the PR template and "
        "the issue form that ask about AI use, unless template_answers or form_answers answer them. Left out, "
        "those parts keep a placeholder: perfkit never states AI use for the user.",
    )
    hand_over: dict[str, str] = Field(
        default_factory=dict,
        description="Items of render_pr's left_for_human the user will settle, keyed by part or box id (or the "
        "placeholder's text), each with a note for the user: they are listed as deliberate, not as open.",
    )
    details: Details = Field(default_factory=Details, description="The collapsed Details block.")
    issue: IssueDraft = Field(default_factory=IssueDraft, description="The companion issue.")
    benchmark: BenchmarkOptions = Field(
        default_factory=BenchmarkOptions, description="How read_benchmark reads the campaign."
    )
