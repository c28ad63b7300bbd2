"""Peak-memory cells of the rendered tables against the CSV itself, not against generated examples.

The baseline and the PR's peak memory differ on purpose (and the PR's arm is written first in the
file), so a table that swapped the two columns, or took the mean instead of the max over runs, fails.
"""

from __future__ import annotations

import csv
import random
import re
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from perfkit.benchmark.read import read_benchmark
from perfkit.publish.render import render_pr


def write_csv(path: Path) -> dict[str, float]:
    """Two arms, three runs each; returns the max peak_mem_gb per arm computed while writing."""
    rng = random.Random(11)
    peaks: dict[str, float] = {}
    path.mkdir(parents=True)
    with open(path / "benchmark.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["arm", "run", "step", "step_time_s", "peak_mem_gb"])
        for arm, mem, step_s in (("pr", 48.0, 0.81), ("baseline", 71.0, 1.0)):
            for run in range(1, 4):
                for step in range(1, 13):
                    gb = round(mem + run * 0.4 + step * 0.01, 3)
                    peaks[arm] = max(peaks.get(arm, 0.0), gb)
                    w.writerow([arm, run, step, round(step_s * (1 + rng.gauss(0, 0.01)), 5), gb])
    return peaks


def _row(markdown: str, label: str) -> list[str]:
    line = next(ln for ln in markdown.splitlines() if ln.startswith(f"| {label} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def _gb(cell: str) -> float:
    return float(re.match(r"[\d.]+", cell).group())


def test_pr_description_memory_row_reads_baseline_then_pr(tmp_path):
    peaks = write_csv(tmp_path / "campaign")
    repo = Repo(tmp_path / "target")
    repo.commit("init", {"README.md": "target\n"})
    res = render_pr(str(tmp_path / "campaign"), str(repo.path), draft=None)
    label, base, pr, change = _row(Path(res.pr_path).read_text(), "peak memory")
    assert _gb(base) == pytest.approx(peaks["baseline"], rel=5e-3)
    assert _gb(pr) == pytest.approx(peaks["pr"], rel=5e-3)
    expected = (peaks["pr"] - peaks["baseline"]) / peaks["baseline"] * 100
    assert float(change.rstrip("%")) == pytest.approx(expected, abs=0.06)


def test_terminal_table_memory_row_reads_baseline_then_pr(tmp_path):
    peaks = write_csv(tmp_path / "campaign")
    summary = read_benchmark(str(tmp_path / "campaign"))
    assert (summary.baseline, summary.candidate) == ("baseline", "pr")
    cmp = summary.comparison
    assert (cmp.peak_mem_baseline_gb, cmp.peak_mem_candidate_gb) == (peaks["baseline"], peaks["pr"])
    line = next(ln for ln in summary.human().splitlines() if "peak memory" in ln)
    numbers = [float(x) for x in re.findall(r"(?<![\w.])\d+\.\d+", line)]
    assert numbers[:2] == [pytest.approx(peaks["baseline"], rel=1e-3), pytest.approx(peaks["pr"], rel=1e-3)]
