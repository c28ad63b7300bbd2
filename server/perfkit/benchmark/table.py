"""The loaded campaign the later stages read: one table of measurements, its runs grouped once.

Every reader (steps CSV, per-run or per-request CSV, serving results JSON) returns Measurements;
summarising and comparing never open a file again. Rows are sorted by arm and run (then step, or
file order), so each run is one contiguous slice of rows: run_groups finds those slices once,
through pandas' groupby, and every stage takes its runs from there.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from perfkit.benchmark.metric_spec import Shape
from perfkit.benchmark.models import ArmSetup, SetupValue
from perfkit.errors import InputError

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped]  # no pandas-stubs in the environment: frames are Any

# Column names of the loaded frame (the file's own names are kept in Measurements.columns).
ARM, RUN, STEP, TIME, MEM, LINE = "_arm", "_run", "_step", "_time", "_mem", "_line"


def metric(column: str) -> str:
    """The loaded frame's name for a metric column of the file."""
    return f"m:{column}"


@dataclass(frozen=True)
class RunSlice:
    """One run of one arm: its rows in the loaded frame."""

    arm: int  # index into Measurements.arms
    run: int
    rows: slice


@dataclass(frozen=True)
class RunGroups:
    """Every run of the loaded frame, in frame order (by arm, then run)."""

    slices: tuple[RunSlice, ...]

    def of_arm(self, arm: int) -> list[RunSlice]:
        return [s for s in self.slices if s.arm == arm]

    def arm_rows(self, arm: int) -> slice:
        mine = self.of_arm(arm)
        return slice(mine[0].rows.start, mine[-1].rows.stop) if mine else slice(0, 0)


def run_groups(frame: pd.DataFrame) -> RunGroups:
    """The runs of a frame sorted by arm and run: one groupby, sizes turned into row slices."""
    if frame.empty:
        return RunGroups(())
    sizes = frame.groupby([ARM, RUN], sort=False).size()
    stops = np.cumsum(sizes.to_numpy())
    starts = stops - sizes.to_numpy()
    arms = sizes.index.get_level_values(0).to_numpy()
    runs = sizes.index.get_level_values(1).to_numpy()
    return RunGroups(
        tuple(
            RunSlice(int(a), int(r), slice(int(s), int(e)))
            for a, r, s, e in zip(arms, runs, starts, stops, strict=True)
        )
    )


@dataclass
class RequestLists:
    """Per-request values saved inside results files (vLLM's --save-detailed, SGLang's --output-details).

    values[quantity][(arm, run)] holds one run's values in ms, failed requests left out; quantities
    are 'ttft', 'itl' (every gap between two tokens), 'tpot' and 'e2el'. keys[quantity] names the
    lists they come from, as written ('ttfts', 'itls', ...)."""

    values: dict[str, dict[tuple[int, int], np.ndarray]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)


@dataclass
class Measurements:
    """A campaign's measurements as one validated table, whatever file and shape they came from."""

    frame: pd.DataFrame  # sorted by arm, run (, step): ARM (code), RUN, LINE, [STEP, TIME, MEM], metric(col)...
    arms: list[str]  # arm names in order of first appearance; ARM holds indices into it
    columns: dict[str, str]  # role -> column (or key) name in the file
    metrics: list[str]  # numeric metric columns, file order
    ignored: list[str]  # columns or keys not used as metrics: text, setup, per-request lists, empty
    file: str  # benchmark.csv, or results
    shape: Shape
    setup: list[ArmSetup] = field(default_factory=list)
    requests: RequestLists = field(default_factory=RequestLists)
    files: list[str] = field(default_factory=list)  # every file read for the table
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    # each run's values of a column, sorted once for the statistics that share them: (arm, column) -> runs
    sorted_runs: dict[tuple[int, str], list[tuple[int, np.ndarray]]] = field(default_factory=dict)

    @functools.cached_property
    def runs(self) -> RunGroups:
        return run_groups(self.frame)


def as_written(value: object, text: str | None = None) -> bool | int | float | str | None:
    """A setup value as the file wrote it: a non-finite number (an unlimited request rate) as its text."""
    if isinstance(value, float) and not np.isfinite(value):
        if text is not None:
            return text
        return "NaN" if np.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def collect_setup(
    arms: list[str], runs: dict[int, set[int]], entries: Iterable[tuple[int, int, str, object, str]]
) -> list[ArmSetup]:
    """Setup values per arm from (arm, run, key, value, where) entries; runs[arm] = every run of the arm.

    A key whose value differs between runs gets one entry per value, each with its runs and files."""
    seen: dict[int, dict[tuple[str, str], tuple[object, set[int], list[str]]]] = {}
    for arm, run, key, value, where in entries:
        shown = as_written(value)
        slot = seen.setdefault(arm, {}).setdefault((key, repr(shown)), (shown, set(), []))
        slot[1].add(run)
        if where not in slot[2]:
            slot[2].append(where)
    out = []
    for arm in sorted(seen):
        values = [
            SetupValue(key=key, value=shown, runs=len(got), every_run=got >= runs.get(arm, set()), files=files)
            for (key, _), (shown, got, files) in seen[arm].items()
        ]
        out.append(ArmSetup(arm=arms[arm], runs=len(runs.get(arm, ())), values=values))
    return out


def _pick_candidate(names: list[str], baseline: str, candidate: str | None, file: str) -> str:
    others = [n for n in names if n != baseline]
    if candidate is not None:
        if candidate not in names:
            raise InputError(
                "candidate", f"no arm '{candidate}' in {file} (arms: {', '.join(names)})", "pass one of those arms"
            )
        if candidate == baseline:
            raise InputError("candidate", f"'{candidate}' is also the baseline", "pass the PR's arm")
        return candidate
    if not others:
        raise InputError("candidate", f"{file} has only the baseline arm '{baseline}'", "add the rows of the PR's arm")
    if "pr" in others:
        return "pr"
    if len(others) == 1:
        return others[0]
    raise InputError(
        "candidate",
        f"{file} has several arms besides the baseline ({', '.join(others)}) and none is named 'pr'",
        "pass candidate=<the PR's arm>",
    )


def arm_order(names: list[str], baseline: str, candidate: str | None, file: str) -> tuple[str, list[str]]:
    """The candidate and the arms in report order (baseline, candidate, the rest as in the file), for every shape."""
    if baseline not in names:
        raise InputError(
            "baseline", f"no arm '{baseline}' in {file} (arms: {', '.join(names)})", "pass baseline=<the baseline arm>"
        )
    cand = _pick_candidate(names, baseline, candidate, file)
    return cand, [baseline, cand] + [n for n in names if n not in (baseline, cand)]
