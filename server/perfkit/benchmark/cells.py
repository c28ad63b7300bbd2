"""benchmark.csv's cells as numbers, or the lines that hold something else.

Shared by the step reader and the per-run or per-request reader. A column is parsed once; every
value then passes the one number rule (number_rule), so an error names the column, the lines and
what they hold. Only clean files take the fast path (pandas' C parser infers numeric columns); the
slower cell-by-cell parse runs on columns that failed it.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

import numpy as np

from perfkit.benchmark import number_rule
from perfkit.benchmark.metric_spec import SETUP
from perfkit.benchmark.models import ArmSetup
from perfkit.benchmark.table import ARM, LINE, RUN, collect_setup, metric
from perfkit.errors import InputError

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped]  # no pandas-stubs in the environment: frames are Any

SHOWN = number_rule.SHOWN


def places(frame: pd.DataFrame, file: str, col: str | None = None) -> number_rule.Places:
    """The lines of a frame's rows (and the cells of col, to quote them) for an error."""
    return number_rule.Places(file, frame[LINE].to_numpy(), None if col is None else frame[col].to_numpy())


def where(frame: pd.DataFrame, mask: np.ndarray, file: str, col: str | None = None) -> str:
    return places(frame, file, col).describe(mask, col or "")[1]


def numbers(
    frame: pd.DataFrame, col: str, file: str, *, required: bool, magnitudes: bool = True, signs: bool = True
) -> np.ndarray:
    """The column as floats, empty cells as NaN; the number rule applied (see number_rule.check)."""
    import pandas as pd

    raw = frame[col]
    if pd.api.types.is_numeric_dtype(raw.dtype) and not pd.api.types.is_bool_dtype(raw.dtype):
        values: np.ndarray = raw.to_numpy(dtype=float)
        empty = np.isnan(values)
    else:
        values = to_float(raw).to_numpy(dtype=float)
        empty = raw.isna().to_numpy()
    number_rule.check(
        values, empty, col, places(frame, file, col), required=required, magnitudes=magnitudes, signs=signs
    )
    return values


def to_float(raw: pd.Series) -> pd.Series:
    """Cells as floats, NaN where they are not numbers. pandas raises OverflowError on an integer
    too long for a float ('999...9' with 400 digits); cell by cell, Python makes it inf, which the
    number rule refuses as not finite."""
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


def is_numeric_column(raw: pd.Series) -> bool:
    """More than half of the non-empty cells parse as numbers: a metric with a few bad cells."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(raw.dtype):
        return False
    if pd.api.types.is_numeric_dtype(raw.dtype):
        return True
    present = raw.dropna()
    if present.empty:
        return False
    parsed = to_float(present)
    return bool(parsed.notna().sum() * 2 > len(present))


def integers(frame: pd.DataFrame, col: str, role: str, file: str, minimum: int | None) -> np.ndarray:
    values = numbers(frame, col, file, required=True, signs=False)
    bad = (values != np.round(values)) | (np.abs(values) > 2**53)
    if minimum is not None:
        bad |= values < minimum
    if bad.any():
        want = "a whole number" + (f" >= {minimum}" if minimum is not None else "")
        raise InputError(
            f"{file} column '{col}'",
            f"the {role} must be {want}; it is not at {where(frame, bad, file, col)}",
            "fix those cells or remove their rows",
        )
    return values.astype(np.int64)


def arm_codes(frame: pd.DataFrame, col: str, file: str) -> tuple[np.ndarray, list[str]]:
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
            f"{file} column '{col}'", f"the arm is empty at {where(frame, empty, file)}", "name the arm on every row"
        )
    return codes, names


def metric_columns(
    frame: pd.DataFrame,
    found: list[str],
    skip: set[str],
    file: str,
    out: dict[str, np.ndarray],
    setup: frozenset[str] = SETUP,
) -> tuple[list[str], list[str], list[str]]:
    """Every other column as a metric if it holds numbers, else ignored; shared by the step and wide readers.

    Numeric columns go into `out` under metric(<column>); a numeric column with no value at all is
    ignored. Setup columns (metric_spec.SETUP and metrics.yaml's setup) and text columns are setup:
    read whatever they hold, never metrics. Returns (metrics, ignored, setup), each in file order.
    """
    metrics: list[str] = []
    ignored: list[str] = []
    setup_cols: list[str] = []
    for col in found:
        if col in skip:
            continue
        if col in setup:
            setup_cols.append(col)
            ignored.append(col)
        elif is_numeric_column(frame[col]):
            values = numbers(frame, col, file, required=False)
            if np.isnan(values).all():
                ignored.append(col)
                continue
            out[metric(col)] = values
            metrics.append(col)
        else:
            setup_cols.append(col)
            ignored.append(col)
    return metrics, ignored, setup_cols


def setup_of(
    frame: pd.DataFrame, arms: np.ndarray, runs: np.ndarray, cols: list[str], names: list[str], file: str
) -> list[ArmSetup]:
    """The setup columns' values per arm (one entry per distinct value, with the runs that hold it);
    frame is the file's rows, arms and runs their codes. An empty cell is no value; a column whose
    value changes within a run is not setup and is left out."""
    import pandas as pd

    if not cols:
        return []
    keyed = pd.DataFrame({ARM: arms, RUN: runs}).join(frame[cols].reset_index(drop=True))
    every = {int(a): set(map(int, g)) for a, g in keyed.groupby(ARM)[RUN].unique().items()}
    n_runs = sum(len(r) for r in every.values())
    entries: list[tuple[int, int, str, object, str]] = []
    for col in cols:
        part = keyed[[ARM, RUN, col]].dropna().drop_duplicates()
        if len(part) > n_runs:  # it varies within a run (a request id, a host per step): data, not setup
            continue
        for arm, run, value in part.itertuples(index=False, name=None):
            entries.append((int(arm), int(run), col, _cell_value(value), file))
    return collect_setup(names, every, entries)


def _cell_value(value: object) -> object:
    """A setup cell as a number when it is one (as written otherwise: 'inf' stays text)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return int(f) if f.is_integer() and abs(f) < 2**53 else f
    text = str(value).strip()
    try:
        f = float(text)
    except ValueError:
        return text
    if not np.isfinite(f):
        return text
    return int(f) if f.is_integer() and "." not in text and "e" not in text.lower() else f


def header_names(data: bytes, file: str) -> list[str]:
    """The header's names, stripped; a name given twice is an error under that name (pandas
    would call the second one 'x.1')."""
    head = data[: 1024**2].decode("utf-8", "replace")
    try:  # newline="": a header ending in a lone carriage return is a line end, as pandas reads it
        first = next(csv.reader(io.StringIO(head, newline=""), skipinitialspace=True), [])
    except csv.Error:  # a header the csv module cannot split: the reader that follows says what is wrong
        return []
    seen: dict[str, int] = {}
    names = []
    for number, name in enumerate((n.strip().lstrip("\ufeff") for n in first), start=1):
        if name and name in seen:
            raise InputError(
                file,
                f"names column '{name}' twice in its header (columns {seen[name]} and {number})",
                "give every column its own name",
            )
        seen[name] = number
        names.append(name)
    return names


def long_rows(data: bytes, width: int) -> str:
    """Name the rows that have more fields than the header (only called on a broken file)."""
    reader = csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline=""))
    bad = [reader.line_num for row in reader if len(row) > width]
    shown = ", ".join(str(n) for n in bad[:SHOWN]) + (f" and {len(bad) - SHOWN} more" if len(bad) > SHOWN else "")
    return f"more fields than the header's {width} at line{'s' if len(bad) > 1 else ''} {shown}"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def runs_repeated(frame: pd.DataFrame, names: list[str], file: str, keys: tuple[str, ...], what: str, fix: str) -> None:
    """Refuse rows of a frame sorted by keys that share all of them (an (arm, run) twice, or (arm, run, step))."""
    cols = [frame[k].to_numpy() for k in keys]
    same = np.ones(max(len(frame) - 1, 0), dtype=bool)
    for c in cols:
        same &= c[1:] == c[:-1]
    if not same.any():
        return
    dup = np.zeros(len(frame), dtype=bool)
    dup[1:] |= same
    dup[:-1] |= same
    lines = frame[LINE].to_numpy()
    first = int(np.flatnonzero(dup)[np.argsort(lines[dup], kind="stable")[0]])
    labels = {ARM: "arm", RUN: "run"}
    key = ", ".join(
        f"arm '{names[cols[0][first]]}'" if k == ARM else f"{labels.get(k, 'step')} {c[first]}"
        for k, c in zip(keys, cols, strict=True)
    )
    shown_lines = np.sort(lines[dup])
    shown = ", ".join(str(x) for x in shown_lines[:SHOWN]) + (
        f" and {len(shown_lines) - SHOWN} more" if len(shown_lines) > SHOWN else ""
    )
    raise InputError(file, f"{int(dup.sum())} rows share {what}, first {key}, at lines {shown}", fix)
