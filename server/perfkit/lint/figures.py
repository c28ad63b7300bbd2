"""The figures a campaign backs, for the truthfulness rule.

A number in a description is backed when, rounded the way it is written, it equals a figure of
the same kind (time, percentage, speedup factor, memory) in: read_benchmark's summary (every
statistic per arm and per comparison), the difference a 'change' column shows between an arm and
the baseline, records/candidates.jsonl, or the campaign's reports (latest-report.md,
commits/<sha>/report.md, and any .md, .json, .jsonl, .csv or .txt under records/ or verify/,
where a re-verification run leaves its results). A number written without a unit may match a
figure of any kind; '1.45 s' never matches a 1.45x speedup. Raw per-step rows of benchmark.csv
are not figures: with thousands of them, any number would match something.
"""

from __future__ import annotations

import bisect
import json
import math
from pathlib import Path
from typing import Any

from perfkit.guards import campaign_walk
from perfkit.lint.numbers import NUMBER_RE, Figure, tolerance, unit_of

_TEXT_SUFFIXES = {".md", ".json", ".jsonl", ".csv", ".txt"}
_MAX_FILE_BYTES = 2_000_000
KINDS = ("time", "pct", "ratio", "mem", "any")
# text unit -> (kind, factor to the data's unit)
UNIT = {
    "s": ("time", 1.0),
    "ms": ("time", 1e-3),
    "µs": ("time", 1e-6),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
    "%": ("pct", 1.0),
    "x": ("ratio", 1.0),
    "GB": ("mem", 1.0),
    "GiB": ("mem", 1.0),
    "MB": ("mem", 1e-3),
    "MiB": ("mem", 1 / 1024),
    "TB": ("mem", 1e3),
}


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


def _text_values(text: str) -> list[tuple[str, float]]:
    """Numbers in free text, each tagged by the unit written after it."""
    out = []
    for m in NUMBER_RE.finditer(text):
        v = float(m.group("num").replace(",", ""))
        kind, factor = UNIT.get(unit_of(m.group("unit") or ""), ("any", 1.0))
        out.append((kind, v * factor))
    return out


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _kind(path: tuple[str, ...], metric: str = "") -> tuple[str, float]:
    """The kind of a summary field, and the factor that puts it in the unit a reader sees."""
    key = path[-1] if path else ""
    if key in ("fraction", "time_share"):
        return "pct", 100.0
    if key.endswith("_pct"):
        return "pct", 1.0
    if key.startswith("speedup") or key == "mean_over_median":
        return "ratio", 1.0
    if key.endswith("_gb"):
        return "mem", 1.0
    if "metrics" in path:
        return "any", 1.0
    if key.endswith("_s") or (
        key in ("value", "ci_low", "ci_high") and len(path) > 1 and path[-2] in ("mean", "median", "run_mean")
    ):
        return "time", 1.0
    if key in ("before", "after"):
        return ("time", 1.0) if "time" in metric else ("any", 1.0)
    return "any", 1.0


class FigureSet:
    """Sorted absolute values per kind; `backs` checks a written figure within its rounding."""

    def __init__(self, tagged: list[tuple[str, float]], sources: list[str] | None = None):
        buckets: dict[str, set[float]] = {k: set() for k in KINDS}
        for kind, v in tagged:
            if _is_num(v) and math.isfinite(v):
                buckets[kind].add(abs(v))
        self.values = {k: sorted(vs) for k, vs in buckets.items()}
        self.sources = sources or []
        self.directions: list[Any] = []
        self.bench: Any = None  # the read_benchmark result, for the claim rules (perfkit.lint.claims)
        self.arm_words: dict[str, str] = {}  # the draft's names of changes measured alone -> their arms
        self.unit = "step"  # what one row of a steps campaign is (the draft's unit)
        self.claims: Any = None  # the claim rules' catalog of this result, built on first use

    def __len__(self) -> int:
        return sum(len(v) for v in self.values.values())

    def _near(self, kind: str, target: float, tol: float) -> bool:
        vals = self.values[kind]
        i = bisect.bisect_left(vals, target - tol)
        return i < len(vals) and vals[i] <= target + tol

    def backs(self, f: Figure) -> bool:
        x = abs(f.value)
        tol = tolerance(x, f.decimals, f.unit)
        kind, factor = UNIT.get(f.unit, ("any", 1.0))
        kinds: tuple[str, ...] = KINDS if kind == "any" else (kind, "any")
        if f.unit == "x" and f.decimals == 0:
            kinds = ("ratio",)  # "2x" against any unitless 2 in a report would back every round multiplier
        return any(self._near(k, x * factor, tol * factor) for k in kinds)

    @classmethod
    def from_campaign(
        cls, campaign_dir: str | Path, bench: Any | None, arm_words: dict[str, str] | None = None, unit: str = "step"
    ) -> FigureSet:
        root = Path(campaign_dir)
        tagged: list[tuple[str, float]] = []
        sources: list[str] = []
        directions: list[Any] = []
        if bench is not None:
            from perfkit.lint.direction import facts_from
            from perfkit.lint.metric_figures import metric_values

            dump = bench.model_dump(mode="json")
            tagged += _model_values(dump) + metric_values(dump)
            directions = facts_from(dump)
            sources.append("read_benchmark")
        for p in _report_files(root):
            try:
                text = p.read_text("utf-8", "replace")
            except OSError:
                continue
            sources.append(str(p.relative_to(root)))
            if p.suffix in (".json", ".jsonl"):
                docs = text.splitlines() if p.suffix == ".jsonl" else [text]
                for doc in docs:
                    try:
                        tagged += _json_values(json.loads(doc))
                    except json.JSONDecodeError:
                        tagged += _text_values(doc)
            else:
                tagged += _text_values(text)
        found = cls(tagged, sources)
        found.directions = directions  # the direction rule's facts (perfkit.lint.direction)
        found.bench, found.arm_words, found.unit = bench, dict(arm_words or {}), unit or "step"
        return found


def _json_values(obj: Any, kinds: bool = False) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    for path, v in _leaves(obj):
        if _is_num(v):
            kind, factor = _kind(path) if kinds else ("any", 1.0)
            out.append((kind, float(v) * factor))
        elif isinstance(v, str):
            out += _text_values(v)
    return out


def _model_values(dump: dict[str, Any]) -> list[tuple[str, float]]:
    """Every number of the summary by kind, plus the differences a 'change' column shows."""
    out: list[tuple[str, float]] = []
    for path, v in _leaves(dump):
        if _is_num(v):
            metric = ""
            if path and path[0] == "candidates" and len(path) > 1:
                metric = str(dump["candidates"][int(path[1])].get("metric") or "")
            kind, factor = _kind(path, metric)
            out.append((kind, float(v) * factor))
        elif isinstance(v, str):
            out += _text_values(v)
    comps = [dump.get("comparison") or {}] + list(dump.get("of_which") or [])
    for c in comps:
        for k, v in list(c.items()):
            other = c.get(k.replace("baseline", "candidate")) if "baseline" in k else None
            if _is_num(v) and _is_num(other):
                kind = "time" if k.endswith("_s") else "mem" if k.endswith("_gb") else "any"
                out.append((kind, other - v))
        for m in c.get("metrics") or []:
            if _is_num(m.get("baseline")) and _is_num(m.get("candidate")):
                out.append(("any", m["candidate"] - m["baseline"]))
    for cand in dump.get("candidates") or []:
        b, a = cand.get("before"), cand.get("after")
        if _is_num(b) and _is_num(a):
            out.append(("time" if "time" in str(cand.get("metric") or "") else "any", a - b))
            if a:
                out.append(("ratio", b / a))
    return out


def _report_files(root: Path) -> list[Path]:
    files: list[Path] = []
    if (root / "latest-report.md").is_file():
        files.append(root / "latest-report.md")
    for commit in campaign_walk.folders(root, root / "commits"):
        report = commit / "report.md"
        if report.is_file() and campaign_walk.inside(root, report):
            files.append(report)
    for sub in ("records", "verify"):  # never through a link out of the campaign, never past 50,000 entries
        files += campaign_walk.files(root, root / sub, _TEXT_SUFFIXES)
    out = []
    base = root.resolve()
    for p in files:
        try:
            p.resolve().relative_to(base)  # a symlink out of the campaign is not the campaign's data
        except (OSError, ValueError):
            continue
        if p.stat().st_size <= _MAX_FILE_BYTES:
            out.append(p)
    return out
