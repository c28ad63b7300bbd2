"""Read benchmark.csv into a validated table, or say exactly which cells are wrong.

A wrong cell must never turn into a wrong number: every required cell is checked, and an error
names the column, the file's line numbers and what the cell holds. Only clean files take the fast
path (pandas' C parser infers the numeric columns); the slow checks run on columns that failed it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from perfkit.errors import InputError
from perfkit.guards import limits
from perfkit.guards.outside_text import quoted

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped]  # no pandas-stubs in the environment: frames are Any

REQUIRED = ("arm", "run", "step", "step_time_s")
OPTIONAL = ("peak_mem_gb",)
ARM, RUN, STEP, TIME, MEM, LINE = "_arm", "_run", "_step", "_time", "_mem", "_line"
SHOWN = 5  # how many bad lines an error quotes
MAX_BYTES = limits.MAX_BENCHMARK_CSV_BYTES  # see there: what pandas needs in memory per byte read
STEP_TIME_RANGE_S = (1e-9, 1e9)  # 1 ns to 30 years: outside it a value is a unit or export error
MAX_MAGNITUDE = 1e100  # any other number: sums of 10^8 such values and their squares stay finite
MIN_MAGNITUDE = 1e-100  # ... and ratios of their means too (0 itself is fine)


@dataclass
class Table:
    frame: pd.DataFrame  # sorted by arm, run, step: ARM (code), RUN, STEP, TIME, LINE, MEM, "m:<column>"...
    arms: list[str]  # arm names in order of first appearance; ARM holds indices into it
    columns: dict[str, str]  # role -> column name in the file
    metrics: list[str]  # extra numeric columns, file order
    ignored: list[str]  # non-numeric columns, not used
    file: str


def _lines(frame: pd.DataFrame, mask: np.ndarray, values: pd.Series | None = None) -> str:
    idx = np.flatnonzero(mask)
    shown = []
    for i in idx[:SHOWN]:
        line = int(frame[LINE].iat[i])
        if values is not None:
            cell = values.iat[i]
            shown.append(f"{line} ({'empty' if _is_empty(cell) else quoted(str(cell))})")
        else:
            shown.append(str(line))
    more = f" and {len(idx) - SHOWN} more" if len(idx) > SHOWN else ""
    return f"line{'s' if len(idx) > 1 else ''} {', '.join(shown)}{more}"


def _is_empty(cell: object) -> bool:
    return cell is None or (isinstance(cell, float) and np.isnan(cell))


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


def _numbers(frame: pd.DataFrame, col: str, file: str, *, required: bool, bounded: bool = True) -> np.ndarray:
    """The column as floats. Bad cells (text, nan, inf; empty when required) raise, naming lines."""
    import pandas as pd

    raw = frame[col]
    if pd.api.types.is_numeric_dtype(raw.dtype) and not pd.api.types.is_bool_dtype(raw.dtype):
        values = raw.to_numpy(dtype=float)
        empty = np.isnan(values)
        bad = np.isinf(values)
    else:
        values = _to_float(raw).to_numpy(dtype=float)
        empty = raw.isna().to_numpy()
        bad = ~empty & ~np.isfinite(values)
    if required:
        bad = bad | empty
    if bad.any():
        raise InputError(
            f"{file} column '{col}'",
            f"{int(bad.sum())} cell{'s are' if bad.sum() > 1 else ' is'} not a finite number, at "
            f"{_lines(frame, bad, raw)}",
            "fix those cells or remove their rows",
        )
    result: np.ndarray = values
    if not bounded:  # the caller applies a narrower range of its own
        return result
    with np.errstate(invalid="ignore"):
        size = np.abs(values)
        extreme = (size > MAX_MAGNITUDE) | ((size < MIN_MAGNITUDE) & (size > 0))
    if extreme.any():
        raise InputError(
            f"{file} column '{col}'",
            f"a value is beyond the magnitudes perfkit computes with ({MIN_MAGNITUDE:g} to {MAX_MAGNITUDE:g}) at "
            f"{_lines(frame, extreme, raw)}",
            "check the unit of that column, or fix those cells",
        )
    return result


def _to_float(raw: pd.Series) -> pd.Series:
    """Cells as floats, NaN where they are not numbers. pandas raises OverflowError on an integer
    too long for a float ('999...9' with 400 digits); cell by cell, Python makes it inf, which the
    callers refuse as not finite."""
    import pandas as pd

    try:
        return pd.to_numeric(raw, errors="coerce")
    except OverflowError:

        def one(cell: object) -> float:
            try:
                return float(str(cell).strip())
            except ValueError:
                return float("nan")

        return pd.Series([one(c) for c in raw], index=raw.index, dtype=float)


def _is_numeric_column(raw: pd.Series) -> bool:
    """More than half of the non-empty cells parse as numbers: a metric with a few bad cells."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(raw.dtype):
        return False
    if pd.api.types.is_numeric_dtype(raw.dtype):
        return True
    present = raw.dropna()
    if present.empty:
        return False
    parsed = _to_float(present)
    return bool(parsed.notna().sum() * 2 > len(present))


def _integers(frame: pd.DataFrame, col: str, role: str, file: str, minimum: int | None) -> np.ndarray:
    values = _numbers(frame, col, file, required=True)
    bad = (values != np.round(values)) | (np.abs(values) > 2**53)
    if minimum is not None:
        bad |= values < minimum
    if bad.any():
        want = "a whole number" + (f" >= {minimum}" if minimum is not None else "")
        raise InputError(
            f"{file} column '{col}'",
            f"the {role} must be {want}; it is not at {_lines(frame, bad, frame[col])}",
            "fix those cells or remove their rows",
        )
    return values.astype(np.int64)


def read_benchmark_csv(path: Path, file: str, columns: dict[str, str] | None) -> Table:
    import pandas as pd

    from perfkit.benchmark.campaign import check_text_file

    check_text_file(path, file, MAX_BYTES, "write one CSV row per measured step, or split the campaign")
    try:
        header = pd.read_csv(path, nrows=0, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InputError(file, "is empty", "write a header line and one row per measured step") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as exc:
        raise InputError(file, f"cannot be read as CSV ({_first_line(exc)})", "fix the file") from None
    found = [str(c).strip() for c in header.columns]
    _refuse_repeated_names(path, file)
    mapping = map_columns(found, columns, file)
    original = list(header.columns)
    arm_original = original[found.index(mapping["arm"])]
    try:
        with warnings.catch_warnings():
            # index_col=False stops pandas from turning a too-long first row into an index; it then
            # only warns that it dropped the extra field, and a dropped cell is a wrong number.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                path,
                keep_default_na=False,
                na_values=[""],
                skipinitialspace=True,
                skip_blank_lines=False,
                dtype={arm_original: str},
                low_memory=False,
                index_col=False,
            )
    except pd.errors.ParserWarning:
        raise InputError(file, f"cannot be read as CSV ({_long_rows(path, len(found))})", "fix the file") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, OSError) as exc:
        raise InputError(file, f"cannot be read as CSV ({_first_line(exc)})", "fix the file") from None
    frame.columns = found
    frame[LINE] = np.arange(len(frame), dtype=np.int64) + 2  # line 1 is the header
    frame = frame[frame[found].notna().any(axis=1)] if len(frame) else frame  # blank lines
    if frame.empty:
        raise InputError(file, "has a header but no rows", "add one row per measured step")

    codes, names = _arm_codes(frame, mapping["arm"], file)
    out = {
        ARM: codes,
        RUN: _integers(frame, mapping["run"], "run", file, None),
        STEP: _integers(frame, mapping["step"], "step", file, 1),
        TIME: _numbers(frame, mapping["step_time_s"], file, required=True, bounded=False),
        LINE: frame[LINE].to_numpy(),
    }
    nonpositive = out[TIME] <= 0
    if nonpositive.any():
        raise InputError(
            f"{file} column '{mapping['step_time_s']}'",
            f"a step time must be above 0; it is not at {_lines(frame, nonpositive, frame[mapping['step_time_s']])}",
            "fix those cells or remove their rows",
        )
    low, high = STEP_TIME_RANGE_S
    implausible = (out[TIME] < low) | (out[TIME] > high)
    if implausible.any():
        raise InputError(
            f"{file} column '{mapping['step_time_s']}'",
            f"a step time must be between {low:g} and {high:g} seconds; it is not at "
            f"{_lines(frame, implausible, frame[mapping['step_time_s']])}",
            "check that the column is in seconds, or fix those cells",
        )
    if "peak_mem_gb" in mapping:
        mem = _numbers(frame, mapping["peak_mem_gb"], file, required=False)
        negative = mem < 0
        if negative.any():
            raise InputError(
                f"{file} column '{mapping['peak_mem_gb']}'",
                f"peak memory is negative at {_lines(frame, negative, frame[mapping['peak_mem_gb']])}",
                "fix those cells",
            )
        out[MEM] = mem
    metrics, ignored = metric_columns(frame, found, set(mapping.values()), file, out)
    order = np.lexsort((out[STEP], out[RUN], out[ARM]))
    table = pd.DataFrame({k: v[order] for k, v in out.items()})
    a, r, st = table[ARM].to_numpy(), table[RUN].to_numpy(), table[STEP].to_numpy()
    same = (a[1:] == a[:-1]) & (r[1:] == r[:-1]) & (st[1:] == st[:-1])
    if same.any():
        dup = np.zeros(len(table), dtype=bool)
        dup[1:] |= same
        dup[:-1] |= same
        by_line = np.argsort(table[LINE].to_numpy()[dup], kind="stable")
        first = int(np.flatnonzero(dup)[by_line[0]])
        key = f"arm '{names[a[first]]}', run {r[first]}, step {st[first]}"
        lines = np.sort(table[LINE].to_numpy()[dup])
        shown = ", ".join(str(x) for x in lines[:SHOWN]) + (
            f" and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
        )
        raise InputError(
            file,
            f"{int(dup.sum())} rows share an (arm, run, step), first {key}, at lines {shown}",
            "keep one row per arm, run and step",
        )
    return Table(table, names, mapping, metrics, ignored, file)


def metric_columns(
    frame: pd.DataFrame, found: list[str], skip: set[str], file: str, out: dict[str, np.ndarray]
) -> tuple[list[str], list[str]]:
    """Every other column as a metric if it holds numbers, else ignored; shared by the step and wide readers.

    Numeric columns go into `out` as "m:<column>"; a numeric column with no value at all is ignored.
    Returns (metrics, ignored), both in file order.
    """
    metrics: list[str] = []
    ignored: list[str] = []
    for col in found:
        if col in skip:
            continue
        if _is_numeric_column(frame[col]):
            values = _numbers(frame, col, file, required=False)
            if np.isnan(values).all():
                ignored.append(col)
                continue
            out[f"m:{col}"] = values
            metrics.append(col)
        else:
            ignored.append(col)
    return metrics, ignored


def _arm_codes(frame: pd.DataFrame, col: str, file: str) -> tuple[np.ndarray, list[str]]:
    """Integer arm codes in order of first appearance; names are stripped, empty names refused."""
    import pandas as pd

    codes, uniques = pd.factorize(frame[col], use_na_sentinel=True)
    stripped = [str(u).strip() for u in uniques]
    names = list(dict.fromkeys(n for n in stripped if n))
    remap = np.array([names.index(n) if n else -1 for n in stripped] + [-1], dtype=np.int64)
    codes = remap[codes]  # the NA sentinel -1 indexes the trailing -1
    empty = codes < 0
    if empty.any():
        raise InputError(
            f"{file} column '{col}'", f"the arm is empty at {_lines(frame, empty)}", "name the arm on every row"
        )
    return codes, names


def _refuse_repeated_names(path: Path, file: str) -> None:
    """A name the header gives twice is an error under that name (pandas would call the second 'x.1')."""
    import csv
    import io

    with open(path, "rb") as f:
        head = f.read(1024**2).decode("utf-8", "replace")
    try:  # newline="": a header ending in a lone carriage return is a line end, as pandas reads it
        first = next(csv.reader(io.StringIO(head, newline=""), skipinitialspace=True), [])
    except csv.Error:  # a header the csv module cannot split: the reader that follows says what is wrong
        return
    seen: dict[str, int] = {}
    for number, name in enumerate((n.strip().lstrip("\ufeff") for n in first), start=1):
        if name and name in seen:
            raise InputError(
                file,
                f"names column '{name}' twice in its header (columns {seen[name]} and {number})",
                "give every column its own name",
            )
        seen[name] = number


def _long_rows(path: Path, width: int) -> str:
    """Name the rows that have more fields than the header (only called on a broken file)."""
    import csv

    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        bad = [reader.line_num for row in reader if len(row) > width]
    shown = ", ".join(str(n) for n in bad[:SHOWN]) + (f" and {len(bad) - SHOWN} more" if len(bad) > SHOWN else "")
    return f"more fields than the header's {width} at line{'s' if len(bad) > 1 else ''} {shown}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
