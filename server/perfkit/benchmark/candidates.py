"""Read records/candidates.jsonl: every change the campaign tried, shipped or not, and its measured effect.

The record that matters most for honesty is `baseline`: a speedup measured against an older
baseline is not the same number as one measured against the PR's base, and the PR has to say so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from perfkit.benchmark import number_rule, paths
from perfkit.benchmark.models import Candidate
from perfkit.errors import InputError
from perfkit.guards import limits

KNOWN = {
    "sha",
    "title",
    "shipped",
    "baseline",
    "metric",
    "before",
    "after",
    "effect_pct",
    "arm",
    "report",
    "note",
    "reason",
}
EFFECT_TOLERANCE_PCT = 0.05  # recorded effect_pct may differ from (after-before)/before by rounding only
MAX_BYTES = 64 * 1024**2  # one short JSON object per tried change


def _number(record: dict[str, Any], key: str, where: str) -> float | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(
            f"{where} field '{key}'",
            f"must be a finite number, found {json.dumps(value)}",
            "write a number or leave the field out",
        )
    return float(value)


def _text(record: dict[str, Any], key: str, where: str, required: bool = False) -> str | None:
    value = record.get(key)
    if value is None:
        if required:
            raise InputError(where, f"has no '{key}'", "every candidate needs sha, title and shipped")
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise InputError(
            f"{where} field '{key}'",
            f"must be a non-empty string, found {json.dumps(value)}",
            "write it as a JSON string",
        )
    return value.strip()


def same_baseline(a: str, b: str) -> bool:
    """Equal labels, or two commit shas of which one abbreviates the other."""
    a, b = a.strip().lower(), b.strip().lower()
    if a == b:
        return True
    hexa = all(c in "0123456789abcdef" for c in a + b)
    return hexa and min(len(a), len(b)) >= 7 and (a.startswith(b) or b.startswith(a))


def _record(line: str, where: str) -> dict[str, Any]:
    """One line as a JSON object, within the size and depth limits every user text gets."""
    record = limits.load_json(line, where, "write one JSON object per line")
    if not isinstance(record, dict):
        raise InputError(where, f"is a JSON {type(record).__name__}, not an object", "write one JSON object per line")
    if "shipped" not in record:
        _text(record, "sha", where, required=True)
        _text(record, "title", where, required=True)
        raise InputError(where, "has no 'shipped'", "every candidate needs sha, title and shipped")
    if not isinstance(record["shipped"], bool):
        raise InputError(
            f"{where} field 'shipped'",
            f"must be true or false, found {json.dumps(record['shipped'])}",
            "write a JSON boolean",
        )
    return record


def _effect(record: dict[str, Any], where: str, warnings: list[str]) -> tuple[float | None, float | None, float | None]:
    """(before, after, effect_pct); effect_pct computed from before/after when not recorded.

    before and after follow the number rule of every reader: not negative when the metric's name
    says a quantity that cannot be (a time, a rate, a count, memory)."""
    before, after = _number(record, "before", where), _number(record, "after", where)
    named = record.get("metric")
    metric = named if isinstance(named, str) else "step_time_s"
    what = number_rule.cannot_be_negative(metric)
    for key, value in (("before", before), ("after", after)):
        if what is not None and value is not None and value < 0:
            raise InputError(
                f"{where} field '{key}'",
                f"is {value:g}, but '{metric}' is {what} and cannot be negative",
                "record the measured value",
            )
    effect = _number(record, "effect_pct", where)
    if before is not None and after is not None:
        if before == 0:
            raise InputError(
                f"{where} field 'before'",
                "is 0, so no relative effect can be computed",
                "record the metric's value on the baseline",
            )
        computed = (after - before) / before * 100.0
        if not math.isfinite(computed):
            raise InputError(
                f"{where} field 'before'", "and 'after' give an effect too large to compute", "check both values"
            )
        if effect is None:
            effect = computed
        elif abs(effect - computed) > EFFECT_TOLERANCE_PCT:
            warnings.append(
                f"{where}: effect_pct {effect:g} disagrees with before/after, which give "
                f"{computed:.2f}; the recorded effect_pct is reported"
            )
    return before, after, effect


def _files(
    root: Path, record: dict[str, Any], sha: str, where: str, warnings: list[str]
) -> tuple[str | None, str | None]:
    """(report, trace folder) of a candidate: the recorded report, else commits/<sha>/report.md and trace/."""
    commit = paths.commit_dir(root, sha, f"{where} field 'sha'")
    report_rel = _text(record, "report", where)
    report = None
    if report_rel is not None:
        found = paths.existing(root, report_rel, f"{where} field 'report'")
        if found is None:
            warnings.append(f"{where}: report '{report_rel}' does not exist")
        elif not found.is_file():
            raise InputError(
                f"{where} field 'report'", f"'{report_rel}' is not a regular file", "point it at the report's file"
            )
        else:
            report = paths.relative(root, found)
    elif commit is not None:
        found = paths.existing(root, f"{paths.relative(root, commit)}/report.md", f"{where} field 'sha'")
        if found is not None and not found.is_file():
            warnings.append(f"{where}: {paths.relative(root, found)} is not a regular file and is not used")
            found = None
        report = paths.relative(root, found) if found else None
    trace = None
    if commit is not None:
        found = paths.existing(root, f"{paths.relative(root, commit)}/trace", f"{where} field 'sha'")
        trace = paths.relative(root, found) + "/" if found and found.is_dir() else None
    return report, trace


def read_candidates(root: Path, path: Path, file: str) -> tuple[list[Candidate], list[str]]:
    text = limits.read_regular_text(path, file, MAX_BYTES, "write one JSON object per tried change, as UTF-8")
    out: list[Candidate] = []
    warnings: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file} line {number}"
        record = _record(line, where)
        sha = _text(record, "sha", where, required=True)
        title = _text(record, "title", where, required=True)
        assert sha is not None and title is not None  # required=True raised otherwise
        before, after, effect = _effect(record, where, warnings)
        baseline = _text(record, "baseline", where)
        if (effect is not None or before is not None or after is not None) and baseline is None:
            raise InputError(
                where,
                "records a measured effect but not the baseline it was measured against",
                'add "baseline": the commit or label of that baseline',
            )
        report, trace = _files(root, record, sha, where, warnings)
        out.append(
            Candidate(
                line=number,
                sha=sha,
                title=title,
                shipped=record["shipped"],
                baseline=baseline,
                metric=_text(record, "metric", where) or "step_time_s",
                before=before,
                after=after,
                effect_pct=effect,
                arm=_text(record, "arm", where),
                other_baseline=False,
                report=report,
                trace=trace,
                note=_text(record, "note", where) or _text(record, "reason", where),
                other_fields={k: v for k, v in record.items() if k not in KNOWN},
            )
        )
    return out, warnings


def mark_baselines(cands: list[Candidate], reference: str | None) -> tuple[str | None, str | None]:
    """Pick the reference baseline (given, or the last shipped candidate's) and mark the others."""
    rule = "given by the caller" if reference else None
    if reference is None:
        shipped = [c for c in cands if c.shipped and c.baseline]
        measured = [c for c in cands if c.baseline]
        if shipped:
            reference, rule = shipped[-1].baseline, "the baseline of the last shipped candidate in the file"
        elif measured:
            reference, rule = measured[-1].baseline, "the baseline of the last measured candidate in the file"
    if reference is not None:
        for c in cands:
            c.other_baseline = c.baseline is not None and not same_baseline(c.baseline, reference)
    return reference, rule
