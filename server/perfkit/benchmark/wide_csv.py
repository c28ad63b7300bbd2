"""benchmark.csv with one row per run or one row per request: arm, run, then the metric columns.

One row per run is what serving benchmarks report per run; one row per request (arm, run, ttft_ms,
itl_ms, ...) gives percentiles per run and pooled per arm. The shape is declared, or read from the
file: several rows for one (arm, run) are requests.
"""

from __future__ import annotations

import io
from typing import Literal

import numpy as np

from perfkit.benchmark import cells
from perfkit.benchmark.table import ARM, LINE, RUN, Measurements, metric
from perfkit.errors import InputError

WIDE_ROLES = ("arm", "run")


def is_wide_header(found: list[str], columns: dict[str, str] | None) -> bool:
    """A header with neither a step nor a step-time column (as mapped): a per-run or per-request file.

    A file with one of the two is a steps file missing the other, and the steps reader says which."""
    step = (columns or {}).get("step", "step")
    time = (columns or {}).get("step_time_s", "step_time_s")
    return step not in found and time not in found


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


def read_wide(
    data: bytes,
    found: list[str],
    file: str,
    columns: dict[str, str] | None,
    shape: Literal["runs", "requests"] | None,
    setup: frozenset[str],
) -> Measurements:
    """benchmark.csv's bytes (header names already read) as a validated table of runs or requests."""
    import pandas as pd  # type: ignore[import-untyped]

    mapping = _map(found, columns, file)
    try:
        frame = pd.read_csv(
            io.BytesIO(data), keep_default_na=False, na_values=[""], skipinitialspace=True, low_memory=False
        )
    except pd.errors.EmptyDataError:
        raise InputError(file, "is empty", "write a header line and one row per run or per request") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(file, f"cannot be read as CSV ({cells.first_line(exc)})", "fix the file") from None
    frame.columns = found
    frame[LINE] = np.arange(len(frame), dtype=np.int64) + 2
    if frame.empty:
        raise InputError(file, "has no rows", "add one row per run or per request")
    arm_col = mapping["arm"]
    frame[arm_col] = frame[arm_col].astype(str).where(frame[arm_col].notna(), None)
    codes, names = cells.arm_codes(frame, arm_col, file)
    out: dict[str, np.ndarray] = {
        ARM: codes,
        RUN: cells.integers(frame, mapping["run"], "run", file, None),
        LINE: frame[LINE].to_numpy(),
    }
    metrics, ignored, setup_cols = cells.metric_columns(frame, found, set(mapping.values()) | {LINE}, file, out, setup)
    if not metrics:
        raise InputError(file, "has no numeric metric column besides arm and run", "add the measured values")
    order = np.lexsort((out[LINE], out[RUN], out[ARM]))
    table = pd.DataFrame({k: v[order] for k, v in out.items()})
    a, r = table[ARM].to_numpy(), table[RUN].to_numpy()
    repeated = (a[1:] == a[:-1]) & (r[1:] == r[:-1])
    if shape is None:
        shape = "requests" if repeated.any() else "runs"
    elif shape == "runs" and repeated.any():
        i = int(np.flatnonzero(repeated)[0])
        raise InputError(
            file,
            f"is declared one row per run, but arm '{names[a[i]]}' run {r[i]} has several rows "
            f"(lines {table[LINE].iat[i]} and {table[LINE].iat[i + 1]})",
            "keep one row per arm and run, or declare shape: requests",
        )
    warnings = []
    if shape == "runs":  # a run without a value is left out of that metric: said, never silent
        for col in metrics:
            lacking = np.isnan(table[metric(col)].to_numpy())
            if lacking.any():
                lines = ", ".join(str(x) for x in table[LINE].to_numpy()[lacking][:5])
                warnings.append(
                    f"'{col}' is empty in {int(lacking.sum())} of {len(table)} runs ({file} line"
                    f"{'s' if lacking.sum() > 1 else ''} {lines}): those runs are left out of its figures"
                )
    return Measurements(
        frame=table,
        arms=names,
        columns=mapping,
        metrics=metrics,
        ignored=ignored,
        file=file,
        shape=shape,
        setup=cells.setup_of(frame, codes, out[RUN], setup_cols, names, file),
        files=[file],
        warnings=warnings,
    )
