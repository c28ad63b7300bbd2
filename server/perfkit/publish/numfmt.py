"""How the description writes a figure: three significant digits, one decimal for percentages.

The truthfulness rule allows exactly this rounding when it checks the rendered text against the
data, so every module that writes a figure formats it here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def sig(v: float | None, digits: int = 3) -> str:
    if v is None or not math.isfinite(v):
        return "n/a"
    a = abs(v)
    if a >= 10 ** (digits - 1):
        return f"{v:,.0f}"
    if a == 0:
        return "0"
    d = max(0, digits - 1 - math.floor(math.log10(a)))
    return f"{v:.{d}f}"


def pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:+.1f}%"


def factor(v: float) -> str:
    return f"{v:.2f}"


@dataclass
class Row:
    label: str
    baseline: str
    pr: str
    change: str
