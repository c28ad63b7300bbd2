"""How the description writes a figure: three significant digits, one decimal for percentages.

The formatting itself is declared in perfkit.lint.numbers, beside the reading of figures, because
the truthfulness rule allows exactly this rounding when it checks the rendered text against the
data and names the figure the data has; every module that writes a figure formats it through here.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfkit.lint.numbers import factor, pct, sig

__all__ = ["Row", "factor", "pct", "sig"]


@dataclass
class Row:
    label: str
    baseline: str
    pr: str
    change: str
