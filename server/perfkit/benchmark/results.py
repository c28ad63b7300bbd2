"""Serving results read exactly as vLLM's and SGLang's serving benchmarks save them.

`vllm bench serve --save-result` writes one JSON object per run; `--append-result` writes several
into one file, one after another; `--save-detailed` adds per-request lists (ttfts, itls, input_lens,
output_lens, errors, ...), and `latencies` is kept even without it. With SAVE_TO_PYTORCH_BENCHMARK_FORMAT
set, vLLM also writes `<stem>.pytorch.json` beside each result: a list of records, not a result.
SGLang's bench_serving appends one JSON line per run to its --output-file, with the per-request
lists under --output-details. Both write setup beside the measured values (request_rate, `Infinity`
or "inf" when unlimited; max_concurrency, null when unset; num_prompts; dataset lengths; model,
tokenizer, backend, date): setup is read whatever its value and never becomes a metric.

Each result object is one run of the arm named by its folder (results/<arm>/) or by an arm key. A
value that is not a result (no measured number at its top level: the PyTorch companion, a manifest)
is left aside with a note naming it. Per-request lists give the pooled percentiles; a request whose
`errors` entry is not empty (or, without errors, whose output length is 0) failed, and is left out
of them as the benchmarks leave it out of their own figures.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfkit.benchmark import number_rule
from perfkit.benchmark.campaign import RESULTS, Located
from perfkit.benchmark.table import ARM, LINE, RUN, Measurements, RequestLists, collect_setup, metric
from perfkit.errors import InputError
from perfkit.guards import limits
from perfkit.guards.outside_text import quoted

MAX_RESULT_BYTES = 256 * 1024**2  # a detailed result keeps per-request lists: tens of MB for 10^5 requests
COMPANION = ".pytorch.json"
FIX = "save one benchmark result per file, or one per line, as the serving benchmark writes it"

# per-request lists as the benchmarks name them; each holds one entry per request
REQUEST_LISTS = (
    "ttfts",
    "itls",
    "latencies",
    "input_lens",
    "output_lens",
    "errors",
    "start_times",
    "queue_times",
    "generated_texts",
)
_NUMERIC_LISTS = {"ttfts": "seconds", "latencies": "seconds", "input_lens": "tokens", "output_lens": "tokens"}


@dataclass
class _Result:
    file: str
    line: int
    where: str  # the file, or 'file line N' in a file of several results
    arm: str
    run: int | None
    numbers: dict[str, float] = field(default_factory=dict)
    written: dict[str, str] = field(default_factory=dict)  # how a number was written, when not plainly
    nulls: set[str] = field(default_factory=set)
    texts: dict[str, str] = field(default_factory=dict)
    setup: dict[str, Any] = field(default_factory=dict)
    lists: dict[str, list[Any]] = field(default_factory=dict)


_NUMBER_TYPES = {int, float}


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _not_a_result(value: object, rel: str, setup: frozenset[str], skip: set[str]) -> str | None:
    """Why a JSON value is not a serving result, or None when it is one."""
    if isinstance(value, list):
        if rel.endswith(COMPANION) or (value and all(isinstance(v, dict) and "metric" in v for v in value)):
            return "the PyTorch benchmark-format records vLLM writes beside a result"
        return "a JSON list, not a result object"
    if not isinstance(value, dict):
        return f"a JSON {type(value).__name__}, not a result object"
    if rel.endswith(COMPANION) and "metric" in value and "benchmark" in value:
        return "the PyTorch benchmark-format records vLLM writes beside a result"
    if not any(_is_number(v) for k, v in value.items() if k not in setup and k not in skip):
        return "no measured number at its top level"
    return None


def read_results(
    located: list[Located], columns: dict[str, str] | None, setup: frozenset[str], notes: list[str]
) -> Measurements:
    """Every result under results/ as one row per run; notes gets what was left aside and why."""
    import pandas as pd  # type: ignore[import-untyped]

    arm_key = (columns or {}).get("arm", "arm")
    run_key = (columns or {}).get("run", "run")
    results: list[_Result] = []
    read_files: list[str] = []
    for f in located:
        text = limits.read_regular_text(f.path, f.rel, MAX_RESULT_BYTES, FIX)
        values = limits.load_json_values(text, f.rel, FIX)
        if not values:
            notes.append(f"{f.rel}: left aside, it is empty")
            continue
        why = [(line, _not_a_result(v, f.rel, setup, {arm_key, run_key})) for line, v in values]
        kept = [(line, v) for (line, v), (_, w) in zip(values, why, strict=True) if w is None]
        if not kept:
            notes.append(f"{f.rel}: left aside, not a serving result ({why[0][1]})")
            continue
        for line, w in why:
            if w is not None:
                notes.append(f"{f.rel} line {line}: left aside, not a serving result ({w})")
        read_files.append(f.rel)
        folder = Path(f.rel).parts[1:-1]
        for line, obj in kept:
            where = f.rel if len(values) == 1 else f"{f.rel} line {line}"
            results.append(_one(obj, f.rel, line, where, folder[0] if folder else None, arm_key, run_key, setup))
    if not results:
        aside = "; ".join(notes[-3:])
        raise InputError(
            RESULTS,
            "holds no serving result" + (f" ({aside})" if aside else " (no .json or .jsonl file)"),
            "save one result per run under results/<arm>/, as vLLM's --save-result or SGLang's --output-file does",
        )
    _number_runs(results)
    names = list(dict.fromkeys(r.arm for r in results))
    code = {n: i for i, n in enumerate(names)}
    order = sorted(range(len(results)), key=lambda i: (code[results[i].arm], results[i].run or 0, i))
    results = [results[i] for i in order]
    _refuse_repeated_runs(results)
    metrics = _metric_keys(results)
    frame = pd.DataFrame(
        {
            ARM: np.array([code[r.arm] for r in results], dtype=np.int64),
            RUN: np.array([r.run for r in results], dtype=np.int64),
            LINE: np.array([r.line for r in results], dtype=np.int64),
        }
    )
    warnings: list[str] = []
    files = [r.file for r in results]
    for key in metrics:
        column = np.array([r.numbers.get(key, np.nan) for r in results], dtype=float)
        empty = np.array([key not in r.numbers for r in results])
        shown = [r.written.get(key, repr(r.numbers[key])) if key in r.numbers else None for r in results]
        places = number_rule.Places(files, frame[LINE].to_numpy(), shown, word="key")
        number_rule.check(column, empty, key, places)
        frame[metric(key)] = column
        if empty.any():
            lacking = [r.where for r in results if key not in r.numbers]
            more = f" and {len(lacking) - 3} more" if len(lacking) > 3 else ""
            warnings.append(
                f"'{key}' is null or missing in {len(lacking)} of {len(results)} results ({', '.join(lacking[:3])}"
                f"{more}): those runs are left out of its figures"
            )
    requests = _request_lists(results, code, notes, warnings)
    runs: dict[int, set[int]] = {}
    for r in results:
        runs.setdefault(code[r.arm], set()).add(int(r.run or 0))
    entries = [
        (code[r.arm], int(r.run or 0), k, v, r.where)
        for r in results
        for k, v in [*r.setup.items(), *r.texts.items()]
        if not isinstance(v, (dict, list))
    ]
    used = set(metrics)
    ignored = [
        k for k in dict.fromkeys(k for r in results for k in [*r.setup, *r.texts, *r.lists, *r.nulls]) if k not in used
    ]
    notes.insert(0, f"read {len(results)} results from {len(read_files)} files under {RESULTS}/, one result per run")
    return Measurements(
        frame=frame,
        arms=names,
        columns={"arm": arm_key, "run": run_key},
        metrics=metrics,
        ignored=ignored,
        file=RESULTS,
        shape="runs",
        setup=collect_setup(names, runs, entries),
        requests=requests,
        files=read_files,
        notes=notes,
        warnings=warnings,
    )


def _one(
    obj: dict[str, Any],
    rel: str,
    line: int,
    where: str,
    folder_arm: str | None,
    arm_key: str,
    run_key: str,
    setup: frozenset[str],
) -> _Result:
    arm = obj.get(arm_key, folder_arm)
    if not isinstance(arm, str) or not arm.strip():
        raise InputError(
            where if arm_key not in obj else f"{where} key '{arm_key}'",
            "names no arm" if arm_key not in obj else f"holds {quoted(str(arm))}, not an arm name",
            f"put the file under {RESULTS}/<arm>/, or give each result an '{arm_key}' key",
        )
    run = obj.get(run_key)
    if run is not None and (not isinstance(run, int) or isinstance(run, bool) or not 0 <= run < 2**53):
        raise InputError(
            f"{where} key '{run_key}'", f"holds {quoted(str(run))}, not a run number", "write a whole number"
        )
    r = _Result(file=rel, line=line, where=where, arm=arm.strip(), run=run)
    for key, value in obj.items():
        if key in (arm_key, run_key):
            continue
        if key in setup:
            r.setup[key] = value
        elif _is_number(value):
            try:
                r.numbers[key] = float(value)
            except OverflowError:  # an integer of hundreds of digits: beyond any float
                r.numbers[key], r.written[key] = math.inf, f"an integer of {len(str(value)):,} digits"
            if not math.isfinite(r.numbers[key]) and key not in r.written:
                r.written[key] = number_rule.non_finite_text(r.numbers[key])
        elif value is None:
            r.nulls.add(key)
        elif isinstance(value, list):
            r.lists[key] = value
        elif isinstance(value, (str, bool)):
            r.texts[key] = value  # type: ignore[assignment]  # metadata (--metadata KEY=VALUE): setup
        else:
            r.setup[key] = value  # an object (SGLang's server_info): kept aside
    return r


def _number_runs(results: list[_Result]) -> None:
    """Runs numbered in file order per arm where the results do not number them."""
    counters: dict[str, int] = {}
    for r in results:
        counters[r.arm] = counters.get(r.arm, 0) + 1
        if r.run is None:
            r.run = counters[r.arm]


def _refuse_repeated_runs(results: list[_Result]) -> None:
    for a, b in zip(results, results[1:], strict=False):
        if a.arm == b.arm and a.run == b.run:
            raise InputError(
                b.where,
                f"is run {b.run} of arm {quoted(b.arm)}, and so is {a.where}",
                "keep one result per run, or number the runs with a 'run' key",
            )


def _metric_keys(results: list[_Result]) -> list[str]:
    """Keys that hold a number in some result; text where another result has a number is refused."""
    keys = list(dict.fromkeys(k for r in results for k in r.numbers))
    for key in keys:
        for r in results:
            if key in r.texts:
                other = next(o for o in results if key in o.numbers)
                raise InputError(
                    f"{r.where} key '{key}'",
                    f"holds {quoted(str(r.texts[key]))} where {other.where} holds a number",
                    "write the measured number, or null when it was not measured",
                )
    return keys


# ---- per-request lists


def _request_lists(results: list[_Result], code: dict[str, int], notes: list[str], warnings: list[str]) -> RequestLists:
    out = RequestLists()
    for r in results:
        lists = {k: v for k, v in r.lists.items() if k in REQUEST_LISTS}
        if not lists:
            continue
        sizes = {k: len(v) for k, v in lists.items()}
        if len(set(sizes.values())) > 1:
            shown = ", ".join(f"{k} {n:,}" for k, n in sizes.items())
            raise InputError(
                r.where, f"has per-request lists of different lengths ({shown})", "save the lists of one run together"
            )
        n = next(iter(sizes.values()))
        if n == 0:
            continue
        ok = _succeeded(r, lists, n)
        failed = n - int(ok.sum())
        if failed:
            notes.append(
                f"{r.where}: {failed:,} of {n:,} requests failed (an error is recorded): left out of the "
                "per-request figures, as the benchmark leaves them out of its own"
            )
        completed = r.numbers.get("completed")
        if completed is not None and int(ok.sum()) != completed:
            warnings.append(
                f"{r.where}: its per-request lists hold {int(ok.sum()):,} completed requests and it says "
                f"completed: {completed:g}; the lists are what the per-request figures use"
            )
        got: dict[str, np.ndarray] = {}
        for key in ("ttfts", "latencies", "output_lens"):
            if key in lists:
                got[key] = _numeric_list(lists[key], r, key)
        at = (code[r.arm], int(r.run or 0))
        if "ttfts" in got:
            out.values.setdefault("ttft", {})[at] = got["ttfts"][ok] * 1000.0
            out.keys["ttft"] = "ttfts"
        if "latencies" in got:
            out.values.setdefault("e2el", {})[at] = got["latencies"][ok] * 1000.0
            out.keys["e2el"] = "latencies"
        if "itls" in lists:
            out.values.setdefault("itl", {})[at] = _gaps(lists["itls"], ok, r) * 1000.0
            out.keys["itl"] = "itls"
        if {"ttfts", "latencies", "output_lens"} <= set(got):
            tokens = got["output_lens"]
            use = ok & (tokens > 1)
            tpot = (got["latencies"][use] - got["ttfts"][use]) / (tokens[use] - 1) * 1000.0
            out.values.setdefault("tpot", {})[at] = tpot
            out.keys["tpot"] = "latencies, ttfts and output_lens"
    return out


def _succeeded(r: _Result, lists: dict[str, list[Any]], n: int) -> np.ndarray:
    """Which requests completed: an empty `errors` entry; without errors, an output length above 0."""
    if "errors" in lists:
        return np.array([e is None or e == "" for e in lists["errors"]], dtype=bool)
    if "output_lens" in lists:
        return _numeric_list(lists["output_lens"], r, "output_lens") > 0
    return np.ones(n, dtype=bool)


def _numeric_list(values: list[Any], r: _Result, key: str, at: np.ndarray | None = None) -> np.ndarray:
    """A per-request list of numbers under the number rule: finite, within magnitudes, not negative
    (times and token counts). at: the request of each value, when values are flattened from lists."""
    where = np.arange(len(values)) if at is None else at
    bad = (
        None if set(map(type, values)) <= _NUMBER_TYPES else next(i for i, v in enumerate(values) if not _is_number(v))
    )
    if bad is not None:
        raise InputError(
            f"{r.where} key '{key}'",
            f"request {int(where[bad])} holds {quoted(repr(values[bad]))}, not a number",
            "save the per-request lists as the benchmark writes them",
        )
    try:
        arr = np.array(values, dtype=float)
    except OverflowError:  # an integer beyond any float
        arr = np.array([float(v) if abs(v) < 1e308 else math.inf for v in values], dtype=float)
    what = "a count" if key.endswith("_lens") else "a time"
    empty = np.zeros(len(arr), dtype=bool)
    try:
        number_rule.check(arr, empty, key, number_rule.Places(r.where, where, word="key", at="request"), signs=what)
    except InputError:  # again, quoting the values this time (only on the way to an error)
        shown = [repr(v) if math.isfinite(v) else number_rule.non_finite_text(v) for v in arr.tolist()]
        places = number_rule.Places(r.where, where, shown, word="key", at="request")
        number_rule.check(arr, empty, key, places, signs=what)
    return arr


def _gaps(itls: list[Any], ok: np.ndarray, r: _Result) -> np.ndarray:
    """Every gap between two tokens of the completed requests (the benchmarks pool them the same way)."""
    bad = next((i for i, one in enumerate(itls) if not isinstance(one, list)), None)
    if bad is not None:
        raise InputError(
            f"{r.where} key 'itls'",
            f"request {bad} holds {quoted(repr(itls[bad]))}, not a list of gaps",
            "save the per-request lists as the benchmark writes them",
        )
    kept = [i for i in np.flatnonzero(ok) if itls[i]]
    flat = list(itertools.chain.from_iterable(itls[i] for i in kept))
    owner = np.repeat(np.array(kept, dtype=np.int64), [len(itls[i]) for i in kept])
    return _numeric_list(flat, r, "itls", owner)
