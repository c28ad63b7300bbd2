"""What a metric is (name, unit, direction, level) and how perfkit guesses it from a column name.

A number without a direction cannot be worded: "throughput fell 16.8%" and "latency fell 16.8%" are
opposite verdicts. So every metric a description quotes carries its direction, either declared (in
the campaign's metrics.yaml or the draft) or inferred from a name that leaves no doubt, and the
inference is returned with its reason so an agent can correct it. A name that could go either way
(std, duration, counts) is never guessed.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import ConfigDict, Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from perfkit.base_model import Model
from perfkit.guards.limits import MAX_JSON_LINE_CHARS
from perfkit.guards.outside_text import CampaignName, CampaignText

METRICS_FILE = "metrics.yaml"  # where a campaign declares its metrics, beside benchmark.csv
Direction = Literal["lower", "higher"]
Level = Literal["step", "request", "run"]
Shape = Literal["steps", "runs", "requests"]
STATS = ("mean", "median", "p50", "p90", "p95", "p99", "p99.9", "min", "max")
Stat = Literal["mean", "median", "p50", "p90", "p95", "p99", "p99.9", "min", "max"]

# How a serving benchmark was run, as vLLM's `vllm bench serve` and SGLang's bench_serving save it
# beside the measured values: never a metric, and read whatever its value (an unlimited request rate
# is `Infinity` or "inf", an unset concurrency null). metrics.yaml's `setup` names more.
SETUP = frozenset(
    {
        "date",
        "endpoint_type",
        "backend",
        "label",
        "tag",
        "model",
        "model_id",
        "model_name",
        "served_model_name",
        "tokenizer",
        "tokenizer_id",
        "num_prompts",
        "request_rate",
        "burstiness",
        "max_concurrency",
        "ramp_up_strategy",
        "ramp_up_start_rps",
        "ramp_up_end_rps",
        "dataset_name",
        "dataset_path",
        "input_len",
        "output_len",
        "sharegpt_output_len",
        "random_input_len",
        "random_output_len",
        "random_range_ratio",
        "random_prefix_len",
        "num_warmups",
        "seed",
        "tensor_parallel_size",
        "pipeline_parallel_size",
        "data_parallel_size",
    }
)


class MetricDecl(Model):
    """One metric as a user declares it (metrics.yaml beside benchmark.csv, or draft.benchmark.metrics)."""

    model_config = ConfigDict(extra="forbid")

    column: str = Field(
        min_length=1,
        max_length=1000,
        description="Column of benchmark.csv (or key of a results JSON) holding the values.",
    )
    name: str | None = Field(
        None, min_length=1, max_length=200, description="How the description names it: 'output throughput', 'TTFT'."
    )
    unit: str | None = Field(
        None, max_length=100, description="Unit as a reader writes it: 'tokens/s', 'ms', 's', 'req/s'."
    )
    direction: Direction | None = Field(None, description="'lower' or 'higher': which way is better.")
    level: Level | None = Field(None, description="What one value describes: a step, a request or a whole run.")
    stat: Stat | None = Field(
        None,
        description="For per-request values: which statistic of a run's requests to report "
        "(mean, median, p90, p95, p99, p99.9). Give several metrics with the same column for several stats.",
    )
    headline: bool = Field(False, description="Lead the title and the result table with it.")

    @model_validator(mode="before")
    @classmethod
    def _from_json_text(cls, data: object) -> object:
        """A declaration written as JSON text (`--metrics '{"column": ...}'` on the command line)."""
        if isinstance(data, str):  # limits.load_json refuses more than MAX_JSON_LINE_CHARS
            from perfkit.guards import limits

            return limits.load_json(data, "metrics", "give each declaration as a JSON object")
        return data

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """The object's schema, or its JSON text: the schema says what the validator above accepts."""
        text = {
            "type": "string",
            "maxLength": MAX_JSON_LINE_CHARS,
            "description": "The declaration as JSON text, the same fields.",
        }
        return {"anyOf": [handler(schema), text]}


class MetricSpec(Model):
    """A metric as read_benchmark used it, with where its direction came from."""

    column: CampaignName = Field(description="column (or JSON key) the values come from")
    key: CampaignName = Field(description="unique id: the column, with '@<stat>' for a statistic of per-request values")
    name: CampaignName = Field(description="how the description names it")
    unit: CampaignName = Field(description="unit as written after a value ('' for a count)")
    direction: Direction = Field(description="which way is better")
    level: Level = Field(description="what one value describes")
    stat: str | None = Field(description="for per-request values, the statistic reported per run; else null")
    headline: bool = Field(description="the title and the result table lead with it")
    declared: Literal["campaign", "draft", "inferred"] = Field(description="where the direction came from")
    reason: CampaignText = Field(
        description="why this direction and unit: the declaration, or the name pattern matched"
    )


class Uninferred(Model):
    """A numeric column perfkit did not turn into a metric, and why (declare it to use it)."""

    column: CampaignName
    reason: CampaignText


_STAT_PREFIX = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(.+)$")
_UNIT_SUFFIX = {"ms": "ms", "s": "s", "us": "µs", "sec": "s"}
_LATENCY_NAMES = {
    "ttft": "TTFT",
    "tpot": "TPOT",
    "itl": "ITL",
    "e2el": "end-to-end latency",
    "e2e_latency": "end-to-end latency",
    "latency": "latency",
}
_RATES = [
    # (pattern, name, unit): all higher is better
    (re.compile(r"^output_throughput$|^output_tok(?:en)?s?_(?:per_)?s$"), "output throughput", "output tokens/s"),
    (re.compile(r"^input_throughput$|^input_tok(?:en)?s?_(?:per_)?s$"), "input throughput", "input tokens/s"),
    (re.compile(r"^total_token_throughput$|^total_tok(?:en)?s?_(?:per_)?s$"), "total throughput", "tokens/s"),
    (re.compile(r"^request_throughput$|^req(?:uest)?s?_(?:per_)?s$"), "request throughput", "requests/s"),
    (re.compile(r"^(?:\w+_)?tok(?:en)?s?_(?:per_)?s(?:ec)?$"), "", "tokens/s"),
    (re.compile(r"^(?:\w+_)?samples?_(?:per_)?s(?:ec)?$"), "", "samples/s"),
    (re.compile(r"^(?:\w+_)?throughput$"), "", ""),
]
_NEVER = re.compile(
    r"^(?:std_|stdev_|var_)|(?:^|_)(?:count|num|total_(?:input|output)_tokens|completed|errors?)(?:_|$)"
)


def pretty(column: str) -> str:
    return re.sub(r"_+", " ", column).strip()


_RATE_SUFFIX = re.compile(r"_?(?:(?:tok(?:en)?s?|samples?)_(?:per_)?s(?:ec)?|throughput)$")


def _rate_name(column: str) -> str:
    """'train_tok_s' -> 'train throughput'; 'tokens_per_s' -> 'throughput'."""
    stem = pretty(_RATE_SUFFIX.sub("", column))
    return f"{stem} throughput" if stem else "throughput"


def _stat_label(stat: str) -> str:
    return {"median": "p50"}.get(stat, stat)


def infer(column: str) -> tuple[MetricDecl, str] | str:
    """The metric a column name makes unambiguous, with the reason; or why it is not guessed."""
    low = column.strip().lower()
    if _NEVER.search(low):
        return "a spread, a count or a total: its better direction is not given by its name"
    for rx, name, unit in _RATES:
        if rx.search(low):
            return (
                MetricDecl(column=column, name=name or _rate_name(low), unit=unit, direction="higher"),
                f"'{column}' names a rate (throughput, tokens or requests per second): higher is better",
            )
    m = _STAT_PREFIX.match(low)
    stat, core = (m.group(1), m.group(2)) if m else (None, low)
    unit = ""
    parts = core.rsplit("_", 1)
    if len(parts) == 2 and parts[1] in _UNIT_SUFFIX:
        core, unit = parts[0], _UNIT_SUFFIX[parts[1]]
    label = _LATENCY_NAMES.get(core)
    if label is not None or (unit and (core.endswith(("time", "latency")) or stat is not None)):
        name = label or pretty(core)
        if stat is not None:
            name = f"{name} {_stat_label(stat)}" if stat != "mean" else f"mean {name}"
        return (
            MetricDecl(column=column, name=name, unit=unit, direction="lower"),
            f"'{column}' names a latency or a time{f' in {unit}' if unit else ''}: lower is better",
        )
    if unit:
        return (
            MetricDecl(column=column, name=pretty(core), unit=unit, direction="lower"),
            f"'{column}' ends in a time unit ({unit}): lower is better",
        )
    return "its name says neither a rate nor a time"


def resolve(
    decl: MetricDecl, declared: Literal["campaign", "draft", "inferred"], reason: str, level: Level
) -> MetricSpec:
    """A declaration completed: missing fields from the name's inference, where it has one."""
    guess = infer(decl.column)
    g = guess[0] if isinstance(guess, tuple) else None
    direction = decl.direction or (g.direction if g else None)
    if direction is None:
        from perfkit.errors import InputError

        raise InputError(
            f"metrics '{decl.column}'",
            f"has no direction and its name does not give one ({guess if isinstance(guess, str) else ''})",
            "declare direction: lower or direction: higher",
        )
    lvl = decl.level or level
    stat = decl.stat
    if stat is not None and stat not in STATS:
        from perfkit.errors import InputError

        raise InputError(
            f"metrics '{decl.column}' stat", f"'{stat}' is not a statistic perfkit computes", ", ".join(STATS)
        )
    if lvl == "request" and stat is None:
        stat = "mean"
    name = decl.name or (g.name if g else pretty(decl.column))
    if stat is not None and not decl.name:
        name = f"{name} {_stat_label(stat)}" if stat != "mean" else f"mean {name}"
    unit = decl.unit if decl.unit is not None else (g.unit if g else "")
    key = decl.column if stat is None or lvl != "request" else f"{decl.column}@{stat}"
    if declared != "inferred" and decl.direction is None and g is not None:
        reason += f"; direction inferred: {guess[1] if isinstance(guess, tuple) else ''}"
    return MetricSpec(
        column=decl.column,
        key=key,
        name=name,
        unit=unit,
        direction=direction,
        level=lvl,
        stat=stat if lvl == "request" else None,
        headline=decl.headline,
        declared=declared,
        reason=reason,
    )


def better(direction: str, change: float) -> bool | None:
    """Whether a change of this sign is an improvement (None for no change)."""
    if change == 0:
        return None
    return (change < 0) if direction == "lower" else (change > 0)


# the saved statistics the per-request lists recompute: <stat>_<quantity>_ms
_REQUEST_STAT = re.compile(r"^(mean|median|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$")


def request_statistic(column: str) -> tuple[str, str] | None:
    """(quantity, stat) of a saved statistic the per-request lists can recompute: p99_ttft_ms -> ('ttft', 'p99')."""
    m = _REQUEST_STAT.match(column)
    if m is None:
        return None
    quantity = "e2el" if m.group(2) == "e2e_latency" else m.group(2)
    return quantity, "p50" if m.group(1) == "median" else m.group(1)
