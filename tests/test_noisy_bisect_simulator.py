"""The simulator behind the noisy-check table: it runs subsets, splits seeds over processes without
changing a number, and reports intervals that mean what they say. Run as a user runs it, in a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "simulate_bisect.py"


def simulate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", *args], capture_output=True, text=True, timeout=120, check=False
    )


def rows(out: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines() if line.startswith("| N=")]


def test_a_subset_gives_the_same_numbers_in_one_process_or_two():
    args = ("--cells", "5/5", "--sizes", "100", "--methods", "told,estimated", "--seeds", "30", "--target-seeds", "30")
    one, two = simulate(*args, "--jobs", "1"), simulate(*args, "--jobs", "2")
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    got = rows(one.stdout)
    assert got == rows(two.stdout)
    methods = {r[1] for r in got}
    assert methods == {
        "rbs anchor (told the rate)",
        "noisy, told the rates",
        "noisy, rates estimated (default)",
        "noisy, rates estimated, EM point estimate (before)",
    }
    assert all(r[0] == "N=100, flips 5%/5%" for r in got)
    for r in got:
        right = float(r[2].rstrip("%"))
        lo, hi = (float(x) for x in re.findall(r"[\d.]+", r[3]))
        assert lo <= right <= hi, r
        assert float(r[4]) > 6.6  # mean runs: a noisy search of 100 commits needs more than log2 100


def test_unknown_cells_are_named_with_the_choices():
    res = simulate("--cells", "5/5,7/7")
    assert res.returncode == 2
    assert "7/7" in res.stderr and "skips" in res.stderr


def test_wilson_interval_at_the_edges():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from simulate_bisect import wilson
    finally:
        sys.path.remove(str(ROOT / "bench"))
    lo, hi = wilson(1000, 1000)
    assert hi == 1.0 and abs(lo - 1000 / (1000 + 1.96**2)) < 1e-12  # all right: the lower end is n / (n + z^2)
    lo10k, hi10k = wilson(9950, 10_000)
    lo1k, hi1k = wilson(995, 1000)
    assert lo1k < lo10k < 0.995 < hi10k < hi1k  # ten times the seeds: a narrower interval around the same rate
    # Wilson's ends are exactly the rates the score test puts at z standard errors from the observed one:
    # (p - p0)^2 = z^2 p0 (1 - p0) / n at both ends, so any other (wider or narrower) formula fails here
    for right, total, (lo, hi) in ((995, 1000, (lo1k, hi1k)), (9950, 10_000, (lo10k, hi10k)), (7, 20, wilson(7, 20))):
        p = right / total
        for end in (lo, hi):
            assert (p - end) ** 2 == pytest.approx(1.96**2 * end * (1 - end) / total, rel=1e-9), (right, total, end)
