"""Which reader reads a campaign's measurements, and each file read once (part of stage 2).

benchmark.csv is read whole once, as a regular file within its size limit, and handed to the
steps reader or the per-run and per-request reader by its header or the declared shape; without
benchmark.csv, the results files are read as the serving benchmarks saved them.
"""

from __future__ import annotations

import io
from typing import Literal

from perfkit.benchmark import cells, steps_csv, wide_csv
from perfkit.benchmark.campaign import BENCHMARK, CampaignFiles
from perfkit.benchmark.results import read_results
from perfkit.benchmark.table import Measurements
from perfkit.errors import InputError
from perfkit.guards import limits

MAX_CSV_BYTES = limits.MAX_BENCHMARK_CSV_BYTES  # see there: what pandas needs in memory per byte read


def read_measurements(
    files: CampaignFiles, columns: dict[str, str] | None, shape: str | None, setup: frozenset[str]
) -> Measurements:
    if files.benchmark is None:
        if shape == "steps":
            raise InputError(
                "campaign_dir",
                f"'{files.root}' has no {BENCHMARK}, and the steps shape is read from it",
                "write benchmark.csv, or declare the runs shape for results/<arm>/*.json",
            )
        return read_results(files.results, columns, setup, list(files.notes))
    import pandas as pd  # type: ignore[import-untyped]

    data = limits.read_regular_bytes(
        files.benchmark, BENCHMARK, MAX_CSV_BYTES, "write one CSV row per step, run or request, or split the campaign"
    )
    if b"\0" in data:
        raise InputError(BENCHMARK, "holds NUL bytes: it is a binary file, not text", "write benchmark.csv as text")
    try:
        header = pd.read_csv(io.BytesIO(data), nrows=0, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise InputError(BENCHMARK, "is empty", "write a header line and one row per step, run or request") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(BENCHMARK, f"cannot be read as CSV ({cells.first_line(exc)})", "fix the file") from None
    found = [str(c).strip() for c in header.columns]
    cells.header_names(data, BENCHMARK)
    if shape in ("runs", "requests") or wide_csv.is_wide_header(found, columns):
        wide: Literal["runs", "requests"] | None = "runs" if shape == "runs" else "requests" if shape else None
        return wide_csv.read_wide(data, found, BENCHMARK, columns, wide, setup)
    return steps_csv.read_steps(data, found, BENCHMARK, columns, setup)
