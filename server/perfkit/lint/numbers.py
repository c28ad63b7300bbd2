"""Figures in prose: which tokens are numbers a reader would take as a measurement.

The same module writes figures (`sig`, `pct`, `factor`): three significant digits, one decimal for a
percentage, two for a factor. render_pr writes every figure this way, and the rules accept exactly
this rounding and quote the data's figure in it.

Tokens glued to letters (B200, sm_90, bf16, v2), dates, versions, ranges, list markers and issue
references are not figures. Counts of accelerators ('8 B200', '8 GPUs', 'world size 8') describe
the setup, not a result, and are reported separately so rules can exempt them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass


def sig(v: float | None, digits: int = 3) -> str:
    """A figure as a description writes it: three significant digits, thousands separated."""
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


NUMBER_RE = re.compile(
    r"(?<![\w.\-/:#$@~])"
    r"(?P<sign>[-+])?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?P<unit>\s?(?:%|percent\b|per cent\b|x(?![A-Za-z0-9])|×|ms\b|µs\b|us\b|s\b|sec\b|seconds?\b|"
    r"GB\b|GiB\b|MB\b|MiB\b|TB\b|min\b|minutes?\b|h\b|hours?\b))?"
    r"(?![\w]|\.\d|,\d{3}|-\d|:\d)"
)
_HW_AFTER_RE = re.compile(
    r"^\s*(?:x\s*)?(?:\d{1,4}\s?(?:GB|GiB)\s+)?(?:[A-Z]{1,4}\d{1,4}[A-Za-z]{0,3}\b|GPUs?\b|NPUs?\b|TPUs?\b|ranks?\b|nodes?\b|"
    r"devices?\b|cards?\b|accelerators?\b|processes\b|workers\b|machines?\b|hosts?\b)"
)
_HW_BEFORE_RE = re.compile(r"(?:world[ _]size|ranks?|nodes?|GPUs?|tp|dp|pp)\s*(?:of|=|:)?\s*$", re.I)
_LEVEL_AFTER_RE = re.compile(r"^\s*+(?:confidence|CI\b|interval|credible|bootstrap)", re.I)
_VERSION_BEFORE_RE = re.compile(
    r"(?:\bv|\bversion|\bCUDA|\bcuDNN|\bPyTorch|\btorch|\bPython|\bdriver|\bNCCL|\bROCm|\bCANN|"
    r"\bgcc|\bclang|\btransformers|\bjax|\btriton|\bUbuntu|\bkernel|\bLinux|\bsm_?|"
    r"\bcompute capability)\s*$",
    re.I,
)
_LIST_MARKER_RE = re.compile(r"\s*(?:\d+[.)])\s")
HARDWARE_RE = re.compile(
    r"\b(?:[A-Z]{1,4}\d{2,4}[A-Za-z]{0,3}|[A-Z]\d{1,2}[A-Z]?|TPU ?v\d+\w*|Ascend ?\d+\w*|"
    r"Gaudi ?\d?|MI\d{3}[A-Z]?|RTX ?\d{4}\w*)\b"
)


@dataclass(frozen=True)
class Figure:
    line: int  # 0-based
    start: int
    end: int
    text: str  # as written, with sign and unit
    numeral: str  # digits only, no sign or unit: '1,234.5'
    value: float
    decimals: int
    unit: str  # '', '%', 'x', 'ms', 's', 'GB', ...
    setup_count: bool  # not a result: an accelerator or world-size count, a GPU's capacity, a version


def unit_of(raw: str) -> str:
    u = raw.strip()
    return {
        "×": "x",
        "percent": "%",
        "per cent": "%",
        "sec": "s",
        "second": "s",
        "seconds": "s",
        "us": "µs",
        "minute": "min",
        "minutes": "min",
        "hour": "h",
        "hours": "h",
    }.get(u, u)


_WINDOW = 40  # characters either side a figure's context is read from: enough for 'world size of', bounded
_HW_AFTER_GB_RE = re.compile(r"^\s*+(?:" + HARDWARE_RE.pattern[2:-2] + r")\b")  # "80GB A100"
_HW_BEFORE_GB_RE = re.compile(r"\b" + HARDWARE_RE.pattern[2:] + r"\s*$")


def _is_setup(unit: str, before: str, after: str) -> bool:
    """An accelerator or world-size count, a GPU's capacity, a version or a confidence level: not a result."""
    return (
        (unit in ("", "x") and (bool(_HW_AFTER_RE.match(after)) or bool(_HW_BEFORE_RE.search(before))))
        or (unit == "%" and bool(_LEVEL_AFTER_RE.match(after)))
        or bool(_VERSION_BEFORE_RE.search(before))
        or (unit in ("GB", "GiB", "") and bool(_HW_BEFORE_GB_RE.search(before)))
        or (unit in ("GB", "GiB") and bool(_HW_AFTER_GB_RE.match(after)))
    )


def figures_in(line_no: int, text: str) -> list[Figure]:
    """Every figure in one masked line of prose, in time linear in the line's length."""
    out = []
    lead = len(text) - len(text.lstrip())
    for m in NUMBER_RE.finditer(text):
        if m.start() <= lead and _LIST_MARKER_RE.match(text, m.start()):
            continue
        numeral = m.group("num")
        value = float(numeral.replace(",", ""))
        decimals = len(numeral.split(".")[1]) if "." in numeral and "e" not in numeral.lower() else 0
        unit = unit_of(m.group("unit") or "")
        before = text[max(0, m.start() - _WINDOW) : m.start()]
        after = text[m.end() : m.end() + _WINDOW]
        setup = _is_setup(unit, before, after)
        out.append(Figure(line_no, m.start(), m.end(), m.group(0).strip(), numeral, value, decimals, unit, setup))
    return out


def tolerance(value: float, decimals: int, unit: str) -> float:
    """How far the data may be from a written figure and still be it: half its last place.

    A factor written without decimals ("2x", "twice") is read as "2.0x": a round multiplier claims
    a factor near 2, not anything from 1.5 to 2.5.
    """
    places = 1 if unit == "x" and decimals == 0 else decimals
    return 0.5 * 10.0 ** (-places) + 1e-9 * max(1.0, abs(value))


def is_small_count(f: Figure) -> bool:
    """Integers up to ten with no unit: counts of things in a sentence ('3 runs', 'two of 9'), not results."""
    return f.unit == "" and f.decimals == 0 and "," not in f.numeral and f.value <= 10
