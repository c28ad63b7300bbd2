"""benchmark.csv with one row per training step: arm, run, step, step_time_s (+ peak memory, metrics).

A wrong cell must never turn into a wrong number: every required cell is checked, and an error
names the column, the file's line numbers and what the cell holds (cells.py, number_rule.py).
"""

from __future__ import annotations

import io
import warnings

import numpy as np

from perfkit.benchmark import cells
from perfkit.benchmark.table import ARM, LINE, MEM, RUN, STEP, TIME, Measurements
from perfkit.errors import InputError

REQUIRED = ("arm", "run", "step", "step_time_s")
OPTIONAL = ("peak_mem_gb",)
STEP_TIME_RANGE_S = (1e-9, 1e9)  # 1 ns to 30 years: outside it a value is a unit or export error


def map_columns(found: list[str], columns: dict[str, str] | None, file: str) -> dict[str, str]:
    given = {str(k).strip(): str(v).strip() for k, v in (columns or {}).items()}
    unknown = sorted(set(given) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise InputError(
            "columns",
            f"unknown role {', '.join(repr(u) for u in unknown)}",
            f"map these roles to your column names: {', '.join(REQUIRED + OPTIONAL)}",
        )
    mapping: dict[str, str] = {}
    missing: list[str] = []
    for role in REQUIRED + OPTIONAL:
        col = given.get(role, role)
        if col in found:
            mapping[role] = col
        elif role in given:
            raise InputError(
                "columns",
                f"maps role '{role}' to '{col}', which is not a column of {file} (found: {', '.join(found)})",
                "name one of the columns found",
            )
        elif role in REQUIRED:
            missing.append(role)
    if missing:
        raise InputError(
            file,
            f"no column for role {', '.join(repr(m) for m in missing)} (found columns: {', '.join(found) or 'none'})",
            'rename the column, or pass columns={"<role>": "<your column>"}',
        )
    used = list(mapping.values())
    twice = sorted({c for c in used if used.count(c) > 1})
    if twice:
        raise InputError(
            "columns",
            f"column {', '.join(repr(t) for t in twice)} is given more than one role",
            "give each role its own column",
        )
    return mapping


def read_steps(
    data: bytes, found: list[str], file: str, columns: dict[str, str] | None, setup: frozenset[str]
) -> Measurements:
    """benchmark.csv's bytes (header names already read) as a validated table of steps."""
    import pandas as pd  # type: ignore[import-untyped]

    mapping = map_columns(found, columns, file)
    try:
        original = list(pd.read_csv(io.BytesIO(data), nrows=0, skipinitialspace=True).columns)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(file, f"cannot be read as CSV ({cells.first_line(exc)})", "fix the file") from None
    arm_original = original[found.index(mapping["arm"])]
    try:
        with warnings.catch_warnings():
            # index_col=False stops pandas from turning a too-long first row into an index; it then
            # only warns that it dropped the extra field, and a dropped cell is a wrong number.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                io.BytesIO(data),
                keep_default_na=False,
                na_values=[""],
                skipinitialspace=True,
                skip_blank_lines=False,
                dtype={arm_original: str},
                low_memory=False,
                index_col=False,
            )
    except pd.errors.ParserWarning:
        raise InputError(file, f"cannot be read as CSV ({cells.long_rows(data, len(found))})", "fix the file") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(file, f"cannot be read as CSV ({cells.first_line(exc)})", "fix the file") from None
    frame.columns = found
    frame[LINE] = np.arange(len(frame), dtype=np.int64) + 2  # line 1 is the header
    frame = frame[frame[found].notna().any(axis=1)] if len(frame) else frame  # blank lines
    if frame.empty:
        raise InputError(file, "has a header but no rows", "add one row per measured step")

    codes, names = cells.arm_codes(frame, mapping["arm"], file)
    time_col = mapping["step_time_s"]
    out = {
        ARM: codes,
        RUN: cells.integers(frame, mapping["run"], "run", file, None),
        STEP: cells.integers(frame, mapping["step"], "step", file, 1),
        TIME: cells.numbers(frame, time_col, file, required=True, magnitudes=False, signs=False),
        LINE: frame[LINE].to_numpy(),
    }
    nonpositive = out[TIME] <= 0
    if nonpositive.any():
        raise InputError(
            f"{file} column '{time_col}'",
            f"a step time must be above 0; it is not at {cells.where(frame, nonpositive, file, time_col)}",
            "fix those cells or remove their rows",
        )
    low, high = STEP_TIME_RANGE_S
    implausible = (out[TIME] < low) | (out[TIME] > high)
    if implausible.any():
        raise InputError(
            f"{file} column '{time_col}'",
            f"a step time must be between {low:g} and {high:g} seconds; it is not at "
            f"{cells.where(frame, implausible, file, time_col)}",
            "check that the column is in seconds, or fix those cells",
        )
    if "peak_mem_gb" in mapping:
        out[MEM] = cells.numbers(frame, mapping["peak_mem_gb"], file, required=False)
    metrics, ignored, setup_cols = cells.metric_columns(frame, found, set(mapping.values()), file, out, setup)
    order = np.lexsort((out[STEP], out[RUN], out[ARM]))
    table = pd.DataFrame({k: v[order] for k, v in out.items()})
    cells.runs_repeated(
        table, names, file, (ARM, RUN, STEP), "an (arm, run, step)", "keep one row per arm, run and step"
    )
    return Measurements(
        frame=table,
        arms=names,
        columns=mapping,
        metrics=metrics,
        ignored=ignored,
        file=file,
        shape="steps",
        setup=cells.setup_of(frame, codes, out[RUN], setup_cols, names, file),
        files=[file],
    )
