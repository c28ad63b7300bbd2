"""The one number rule every campaign reader applies: benchmark.csv, JSONL and results JSON alike.

A wrong number must never become a figure, and no number may vanish without a word. So, for every
value of a metric (a column of benchmark.csv, a key of a result object, an entry of a per-request
list, a candidate's before and after):

- it is a finite number: NaN and infinities are refused, naming the file and the line. Setup
  fields (the request rate, written `Infinity` or `"inf"` when unlimited, the concurrency, the
  prompt count, ...) are not metrics and are read whatever their value (see metric_spec.SETUP);
- it lies within the magnitudes perfkit computes with (MIN_MAGNITUDE to MAX_MAGNITUDE, or 0), so
  sums of squares and ratios of means stay finite;
- it is not negative when its name says a quantity that cannot be: a rate, a latency or time, a
  count or a memory size (cannot_be_negative says which names);
- a JSON object names each key once (limits.load_json and load_json_values refuse a second one:
  Python's json would keep the last silently).

An empty cell, a JSON null or a missing key is a missing value, never a zero; the readers say where
a run lacks a value the other runs have. Every refusal is an InputError whose field names the file
and the column or key, and whose text names the lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfkit.errors import InputError
from perfkit.guards.outside_text import quoted

MAX_MAGNITUDE = 1e100  # any value: sums of 10^8 such values and their squares stay finite
MIN_MAGNITUDE = 1e-100  # ... and ratios of their means too (0 itself is fine)
SHOWN = 5  # how many bad lines an error quotes
FIX = "fix those values, or remove those rows or results"

_RATE = re.compile(r"throughput|tok(?:en)?s?_(?:per_)?s(?:ec)?$|req(?:uest)?s?_(?:per_)?s$|samples?_(?:per_)?s(?:ec)?$")
_TIME = re.compile(r"(?:^|_)(?:ttft|tpot|itl|e2el|e2e_latency|latency|duration|time)(?:_|$)|_(?:ms|s|us|sec)$")
_COUNT = re.compile(r"(?:^|_)(?:count|num|completed|failed|errors?|total_(?:input|output)_tokens)(?:_|$)|_tokens$")
_MEMORY = re.compile(r"(?:^|_)(?:mem|memory)(?:_|$)|_(?:gb|gib|mb|mib|bytes)$")


def cannot_be_negative(column: str) -> str | None:
    """What the name says the quantity is, when that quantity cannot be below 0; else None."""
    low = column.strip().lower()
    if low.startswith(("delta_", "diff_", "change_")) or low.endswith(("_pct", "_delta", "_diff", "_change")):
        return None  # a difference: either sign is a value
    for rx, what in ((_RATE, "a rate"), (_TIME, "a latency or time"), (_COUNT, "a count"), (_MEMORY, "memory")):
        if rx.search(low):
            return what
    return None


@dataclass
class Places:
    """Where each value of a column came from, for the error that names them.

    files: one file for a CSV column, or one per value (results spread over files);
    lines: the line of each value; shown: each value as written (None: shown as empty);
    word: what the file calls a column ("column" in CSV, "key" in JSON); at: what a line number counts.
    """

    files: str | Sequence[str]
    lines: np.ndarray
    shown: Sequence[object] | None = None
    word: str = "column"
    at: str = "line"  # what lines counts: a line of the file, or an entry of a list

    def file(self, i: int) -> str:
        return self.files if isinstance(self.files, str) else self.files[i]

    def describe(self, mask: np.ndarray, column: str) -> tuple[str, str]:
        """(field, 'lines 3 ('nan'), 7') for the values under mask, the first file's first."""
        idx = np.flatnonzero(mask)
        first = self.file(int(idx[0]))
        here = [int(i) for i in idx if self.file(int(i)) == first]
        shown = [self._one(i) for i in here[:SHOWN]]
        more = f" and {len(here) - SHOWN} more" if len(here) > SHOWN else ""
        text = f"{self.at}{'s' if len(here) > 1 else ''} {', '.join(shown)}{more}"
        elsewhere = [int(i) for i in idx if self.file(int(i)) != first]
        if elsewhere:
            j = elsewhere[0]
            text += f"; also {len(elsewhere)} in other files, first {self.file(j)} {self.at} {int(self.lines[j])}"
        return f"{first} {self.word} '{column}'", text

    def _one(self, i: int) -> str:
        line = str(int(self.lines[i]))
        if self.shown is None:
            return line
        cell = self.shown[i]
        empty = cell is None or (isinstance(cell, float) and np.isnan(cell) and self.word == "column")
        return f"{line} ({'empty' if empty else quoted(str(cell))})"


def check(
    values: np.ndarray,
    empty: np.ndarray,
    column: str,
    places: Places,
    *,
    required: bool = False,
    magnitudes: bool = True,
    signs: bool | str = True,
) -> None:
    """Apply the rule to one column of floats; empty marks missing values (allowed unless required).

    signs: True takes from the column's name whether it may be negative (cannot_be_negative); text
    says what the values are ("a time") when the name does not. magnitudes=False and signs=False
    leave those checks to a caller with a narrower rule of its own (a step time, a run index)."""
    bad = ~empty & ~np.isfinite(values)
    if required:
        bad = bad | empty
    if bad.any():
        field, where = places.describe(bad, column)
        n = int(bad.sum())
        raise InputError(field, f"{n} value{'s are' if n > 1 else ' is'} not a finite number, at {where}", FIX)
    present = ~empty
    if magnitudes:
        with np.errstate(invalid="ignore"):
            size = np.abs(values)
            extreme = present & ((size > MAX_MAGNITUDE) | ((size < MIN_MAGNITUDE) & (size > 0)))
        if extreme.any():
            field, where = places.describe(extreme, column)
            raise InputError(
                field,
                f"a value is beyond the magnitudes perfkit computes with ({MIN_MAGNITUDE:g} to {MAX_MAGNITUDE:g}) "
                f"at {where}",
                "check the unit of that column, or fix those values",
            )
    what = signs if isinstance(signs, str) else cannot_be_negative(column) if signs else None
    if what is not None:
        with np.errstate(invalid="ignore"):
            negative = present & (values < 0)
        if negative.any():
            field, where = places.describe(negative, column)
            raise InputError(field, f"'{column}' is {what} and cannot be negative; it is at {where}", FIX)


def non_finite_text(value: float) -> str:
    """How JSON writers spell a non-finite float: Python's json writes NaN, Infinity, -Infinity."""
    if np.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"
