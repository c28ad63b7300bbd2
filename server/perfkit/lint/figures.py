"""The figures a campaign backs, for the truthfulness rule.

A number in a description is backed when, rounded the way it is written, it equals a figure of
read_benchmark (every statistic, per arm and per comparison), a difference, ratio or percentage
change between the same statistic of two arms (what a 'change' column shows), a number of
records/candidates.jsonl, or a number written in the campaign's reports (latest-report.md,
commits/<sha>/report.md, and any .md, .json, .jsonl, .csv or .txt under records/ or verify/,
where a re-verification run leaves its results). Raw per-step rows of benchmark.csv are not
figures: with thousands of them, any number would match something.
"""

from __future__ import annotations

import bisect
import json
import math
from pathlib import Path
from typing import Any

from perfkit.lint.numbers import NUMBER_RE, Figure

_SCALES = {"%": (1.0, 0.01), "ms": (1e-3,), "µs": (1e-6,), "min": (60.0,), "h": (3600.0,), "MB": (1e-3, 1 / 1024),
           "MiB": (1 / 1024, 1e-3), "TB": (1e3, 1024.0)}
_TEXT_SUFFIXES = {".md", ".json", ".jsonl", ".csv", ".txt"}
_MAX_FILE_BYTES = 2_000_000


def _leaves(obj: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out: list[tuple[tuple[str, ...], Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _leaves(v, path + (str(k),))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _leaves(v, path + (str(i),))
    else:
        out.append((path, obj))
    return out


def _numbers_in_text(text: str) -> list[float]:
    return [float(m.group("num").replace(",", "")) for m in NUMBER_RE.finditer(text)]


class FigureSet:
    """Sorted absolute values; `backs` checks a written figure against them within its rounding."""

    def __init__(self, values: list[float], sources: list[str] | None = None):
        self.values = sorted({abs(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)})
        self.sources = sources or []

    def __len__(self) -> int:
        return len(self.values)

    def _near(self, target: float, tol: float) -> bool:
        i = bisect.bisect_left(self.values, target - tol)
        return i < len(self.values) and self.values[i] <= target + tol

    def backs(self, f: Figure) -> bool:
        x = abs(f.value)
        half = 0.5 * 10 ** (-f.decimals) if f.decimals or "." in f.numeral else 0.5
        tol = half + 1e-9 * max(1.0, x)
        # a percentage may be kept as a fraction (6.8% <- 0.068), a time in another unit (120 ms <- 0.12 s)
        return any(self._near(x * scale, tol * scale) for scale in _SCALES.get(f.unit, (1.0,)))

    @classmethod
    def from_campaign(cls, campaign_dir: str | Path, bench: Any | None) -> "FigureSet":
        root = Path(campaign_dir)
        values: list[float] = []
        sources: list[str] = []
        if bench is not None:
            dump = bench.model_dump(mode="json")
            values += _model_values(dump)
            sources.append("read_benchmark")
        for p in _report_files(root):
            try:
                text = p.read_text("utf-8", "replace")
            except OSError:
                continue
            sources.append(str(p.relative_to(root)))
            if p.suffix == ".jsonl":
                for line in text.splitlines():
                    try:
                        values += _json_values(json.loads(line))
                    except json.JSONDecodeError:
                        values += _numbers_in_text(line)
            elif p.suffix == ".json":
                try:
                    values += _json_values(json.loads(text))
                except json.JSONDecodeError:
                    values += _numbers_in_text(text)
            else:
                values += _numbers_in_text(text)
        return cls(values, sources)


def _json_values(obj: Any) -> list[float]:
    out: list[float] = []
    for _, v in _leaves(obj):
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, (int, float)):
            out.append(float(v))
        elif isinstance(v, str):
            out += _numbers_in_text(v)
    return out


def _model_values(dump: dict[str, Any]) -> list[float]:
    """Every number of the summary, plus the changes between two arms of the same statistic."""
    out = _json_values(dump)
    arms = dump.get("arms") or []
    per_arm: list[dict[tuple[str, ...], float]] = []
    for arm in arms:
        per_arm.append({p: float(v) for p, v in _leaves(arm) if isinstance(v, (int, float)) and not isinstance(v, bool)})
    for i in range(len(per_arm)):
        for j in range(len(per_arm)):
            if i == j:
                continue
            for path, a in per_arm[i].items():
                b = per_arm[j].get(path)
                if b is None:
                    continue
                out.append(a - b)
                if b:
                    out += [a / b, (a - b) / b * 100]
    comps = [dump.get("comparison") or {}] + list(dump.get("of_which") or [])
    for c in comps:
        for k, v in list(c.items()):
            if k.endswith("_baseline") or k.endswith("_baseline_gb") or k.endswith("_baseline_s"):
                other = c.get(k.replace("baseline", "candidate"))
                if isinstance(v, (int, float)) and isinstance(other, (int, float)):
                    out.append(other - v)
        for m in c.get("metrics") or []:
            if isinstance(m.get("baseline"), (int, float)) and isinstance(m.get("candidate"), (int, float)):
                out.append(m["candidate"] - m["baseline"])
    for cand in dump.get("candidates") or []:
        b, a = cand.get("before"), cand.get("after")
        if isinstance(b, (int, float)) and isinstance(a, (int, float)):
            out.append(a - b)
            if b:
                out.append(b / a if a else 0.0)
    return out


def _report_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for p in (root / "latest-report.md",):
        if p.is_file():
            files.append(p)
    commits = root / "commits"
    if commits.is_dir():
        files += sorted(p for p in commits.glob("*/report.md") if p.is_file())
    for sub in ("records", "verify"):
        d = root / sub
        if d.is_dir():
            files += sorted(p for p in d.rglob("*") if p.is_file() and p.suffix in _TEXT_SUFFIXES)
    out = []
    for p in files:
        try:
            resolved = p.resolve()
            resolved.relative_to(root.resolve())  # a symlink out of the campaign is not the campaign's data
        except (OSError, ValueError):
            continue
        if p.stat().st_size <= _MAX_FILE_BYTES:
            out.append(p)
    return out

