"""Read the shapes serving benchmarks write: one row per run, or one row per request.

One row per run with several metric columns is what vLLM's and SGLang's serving benchmarks save
(a JSON object per run, or a JSONL line per run appended to one file); it is read either from
benchmark.csv (arm, run, then the metric columns) or, as the scripts write it, from
results/<arm>/*.json|*.jsonl. One row per request (arm, run, then ttft_ms, itl_ms, ...) is read
from benchmark.csv; percentiles are computed from it per run and pooled per arm.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from perfkit.benchmark import campaign
from perfkit.benchmark.load import ARM, LINE, RUN, _arm_codes, _integers, metric_columns
from perfkit.errors import InputError
from perfkit.guards import limits

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped]

RESULTS = "results"
MAX_RESULT_BYTES = 256 * 1024**2  # a vLLM result keeps per-request lists: tens of MB for 10^5 requests
WIDE_ROLES = ("arm", "run")


@dataclass
class WideTable:
    frame: pd.DataFrame  # sorted by arm, run (and file order within a run): ARM, RUN, LINE, "m:<column>"...
    arms: list[str]
    columns: dict[str, str]  # role -> column name (arm, run)
    metrics: list[str]  # numeric columns, file order
    ignored: list[str]
    file: str
    shape: Literal["runs", "requests"]
    notes: list[str] = field(default_factory=list)


def _map(found: list[str], columns: dict[str, str] | None, file: str) -> dict[str, str]:
    given = {str(k).strip(): str(v).strip() for k, v in (columns or {}).items()}
    mapping = {}
    for role in WIDE_ROLES:
        col = given.get(role, role)
        if col not in found:
            raise InputError(
                file if role not in given else "columns",
                f"no column for role '{role}' (found columns: {', '.join(found) or 'none'})",
                'rename the column, or pass columns={"' + role + '": "<your column>"}',
            )
        mapping[role] = col
    return mapping


def is_wide_header(found: list[str], columns: dict[str, str] | None) -> bool:
    """benchmark.csv with neither a step nor a step-time column (as mapped): a per-run or per-request file.

    A file with one of the two is a steps file missing the other, and the steps reader says which."""
    step = (columns or {}).get("step", "step")
    time = (columns or {}).get("step_time_s", "step_time_s")
    return step not in found and time not in found


def read_wide_csv(
    path: Path, file: str, columns: dict[str, str] | None, shape: Literal["runs", "requests"] | None
) -> WideTable:
    import pandas as pd

    from perfkit.benchmark.load import MAX_BYTES

    campaign.check_text_file(path, file, MAX_BYTES, "write one CSV row per run or per request")
    try:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""], skipinitialspace=True, low_memory=False)
    except pd.errors.EmptyDataError:
        raise InputError(file, "is empty", "write a header line and one row per run or per request") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OSError) as exc:
        raise InputError(file, f"cannot be read as CSV ({str(exc).strip().splitlines()[0]})", "fix the file") from None
    found = [str(c).strip() for c in frame.columns]
    frame.columns = found
    mapping = _map(found, columns, file)
    frame[LINE] = np.arange(len(frame), dtype=np.int64) + 2
    return _table(frame, found, mapping, file, shape)


def _table(
    frame: pd.DataFrame,
    found: list[str],
    mapping: dict[str, str],
    file: str,
    shape: Literal["runs", "requests"] | None,
) -> WideTable:
    import pandas as pd

    if frame.empty:
        raise InputError(file, "has no rows", "add one row per run or per request")
    frame[mapping["arm"]] = frame[mapping["arm"]].astype(str).where(frame[mapping["arm"]].notna(), None)
    codes, names = _arm_codes(frame, mapping["arm"], file)
    out: dict[str, np.ndarray] = {
        ARM: codes,
        RUN: _integers(frame, mapping["run"], "run", file, None),
        LINE: frame[LINE].to_numpy(),
    }
    metrics, ignored = metric_columns(frame, found, set(mapping.values()) | {LINE}, file, out)
    if not metrics:
        raise InputError(file, "has no numeric metric column besides arm and run", "add the measured values")
    order = np.lexsort((out[LINE], out[RUN], out[ARM]))
    table = pd.DataFrame({k: v[order] for k, v in out.items()})
    a, r = table[ARM].to_numpy(), table[RUN].to_numpy()
    repeated = bool(((a[1:] == a[:-1]) & (r[1:] == r[:-1])).any())
    if shape is None:
        shape = "requests" if repeated else "runs"
    elif shape == "runs" and repeated:
        i = int(np.flatnonzero((a[1:] == a[:-1]) & (r[1:] == r[:-1]))[0])
        raise InputError(
            file,
            f"is declared one row per run, but arm '{names[a[i]]}' run {r[i]} has several rows "
            f"(lines {table[LINE].iat[i]} and {table[LINE].iat[i + 1]})",
            "keep one row per arm and run, or declare shape: requests",
        )
    return WideTable(table, names, mapping, metrics, ignored, file, shape)


def _parse(text: str, where: str) -> Any:
    """One JSON value, its nesting measured before parsing and huge integers refused (limits' rules)."""
    depth = limits.json_depth(text)
    if depth > limits.MAX_JSON_DEPTH:
        raise InputError(where, f"nests {depth:,} levels deep, more than the {limits.MAX_JSON_DEPTH} perfkit reads")
    try:
        return json.loads(text, parse_int=limits._int)
    except json.JSONDecodeError:
        raise
    except (ValueError, RecursionError) as exc:
        raise InputError(where, f"is not valid JSON ({exc})", "fix the result") from None


def _objects(path: Path, rel: str) -> list[dict[str, Any]]:
    """The JSON objects of one results file: one object (vLLM), or one per line (SGLang's JSONL).

    NaN is read as a missing value (Python's json writes it for a metric with no data)."""
    text = limits.read_regular_text(path, rel, MAX_RESULT_BYTES, "keep one benchmark result per file or line")
    stripped = text.strip()
    if not stripped:
        return []
    try:
        whole = _parse(stripped, rel)
        docs = whole if isinstance(whole, list) else [whole]
    except json.JSONDecodeError:
        docs = []
        for n, line in enumerate(stripped.splitlines(), 1):
            if not line.strip():
                continue
            try:
                docs.append(_parse(line, f"{rel} line {n}"))
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"{rel} line {n}", f"is not JSON ({exc.msg})", "write one JSON object per line"
                ) from None
    bad = [i for i, d in enumerate(docs, 1) if not isinstance(d, dict)]
    if bad:
        raise InputError(rel, f"result {bad[0]} is not a JSON object", "write one JSON object per run")
    return docs


def read_results(root: Path, columns: dict[str, str] | None) -> WideTable:
    """results/<arm>/*.json|*.jsonl, or results/*.jsonl whose objects name their arm: one object per run."""
    import pandas as pd

    base = campaign.inside(root, RESULTS, RESULTS)
    files = sorted(
        (p for p in base.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()),
        key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.relative_to(base).as_posix())],
    )
    arm_key = (columns or {}).get("arm", "arm")
    run_key = (columns or {}).get("run", "run")
    rows: list[dict[str, Any]] = []
    ignored: set[str] = set()
    for p in files:
        rel = campaign.relative(root, campaign.inside(root, campaign.relative(root, p), RESULTS))
        parts = p.relative_to(base).parts
        for k, obj in enumerate(_objects(p, rel), 1):
            arm = obj.get(arm_key, parts[0] if len(parts) > 1 else None)
            if not isinstance(arm, str) or not arm.strip():
                raise InputError(
                    f"{rel} result {k}",
                    "names no arm",
                    f"put the file under {RESULTS}/<arm>/, or give each result an '{arm_key}' key",
                )
            row: dict[str, Any] = {"arm": arm.strip(), "_where": f"{rel}:{k}"}
            for key, value in obj.items():
                if key in (arm_key, run_key):
                    continue
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    row[key] = float(value)
                else:
                    ignored.add(key)
            run = obj.get(run_key)
            row["run"] = run if isinstance(run, int) and not isinstance(run, bool) else None
            rows.append(row)
    if not rows:
        raise InputError(RESULTS, "holds no .json or .jsonl result", "save one result per run under results/<arm>/")
    counters: dict[str, int] = {}
    for row in rows:  # runs numbered in file order per arm when the results do not number them
        counters[row["arm"]] = counters.get(row["arm"], 0) + 1
        if row["run"] is None:
            row["run"] = counters[row["arm"]]
    frame = pd.DataFrame(rows)
    found = [c for c in frame.columns if c != "_where"]
    frame[LINE] = np.arange(len(frame), dtype=np.int64) + 1
    table = _table(frame[[*found, LINE]], found, {"arm": "arm", "run": "run"}, RESULTS, "runs")
    table.ignored = sorted(set(table.ignored) | ignored)
    table.notes.append(f"read {len(rows)} results from {len(files)} files under {RESULTS}/, one result per run")
    return table
