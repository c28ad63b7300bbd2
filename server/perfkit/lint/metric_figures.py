"""The figures of read_benchmark's metric path, tagged with the kind their unit gives them.

A TTFT written '707 ms' is a time: the truthfulness rule converts it to seconds, so the metric's
values (kept in their own unit, ms) are entered as times too. Ratios are entered both ways up
(a description writes '2.24x lower' for a halved latency), and a candidate's before and after
take the unit of the metric it names.
"""

from __future__ import annotations

from typing import Any

from perfkit.lint.claims.data import unit_kind


def _kind(unit: str) -> tuple[str, float]:
    kind, factor = unit_kind(unit)
    return (kind, factor) if kind in ("time", "mem") else ("any", 1.0)


def _arm(arm: dict[str, Any], kind: str, factor: float) -> list[tuple[str, float]]:
    est = arm.get("estimate") or {}
    values = [est.get("value"), est.get("ci_low"), est.get("ci_high"), *(arm.get("per_run") or [])]
    return [(kind, float(v) * factor) for v in values if isinstance(v, (int, float))]


def metric_values(dump: dict[str, Any]) -> list[tuple[str, float]]:
    """(kind, value in the unit the rule compares in) for every metric figure of a summary dump."""
    out: list[tuple[str, float]] = []
    units = {}
    for spec in dump.get("metric_model") or []:
        for name in (spec.get("key"), spec.get("column"), spec.get("name")):
            if name:
                units[name] = spec.get("unit") or ""
    for m in list(dump.get("metrics") or []) + list(dump.get("metrics_of_which") or []):
        kind, factor = _kind(m.get("unit") or "")
        out += _arm(m.get("baseline") or {}, kind, factor) + _arm(m.get("candidate") or {}, kind, factor)
        b = (m.get("baseline") or {}).get("estimate", {}).get("value")
        c = (m.get("candidate") or {}).get("estimate", {}).get("value")
        if isinstance(b, (int, float)) and isinstance(c, (int, float)) and b and c:
            out += [("ratio", b / c), ("ratio", c / b), (kind, (c - b) * factor)]
        out += [("pct", float(m["change_pct"]))] if isinstance(m.get("change_pct"), (int, float)) else []
    for cmp in [dump.get("comparison") or {}] + list(dump.get("of_which") or []):
        for key in ("speedup_mean", "speedup_median"):  # '1.20x slower' is the speedup the other way up
            v = cmp.get(key)
            if isinstance(v, (int, float)) and v:
                out.append(("ratio", 1 / v))
    for cand in dump.get("candidates") or []:
        unit = units.get(str(cand.get("metric") or ""), "")
        if not unit:
            from perfkit.benchmark.metric_spec import infer

            guess = infer(str(cand.get("metric") or ""))
            unit = (guess[0].unit or "") if isinstance(guess, tuple) else ""
        kind, factor = _kind(unit)
        if kind == "any":
            continue
        for key in ("before", "after"):
            v = cand.get(key)
            if isinstance(v, (int, float)):
                out.append((kind, float(v) * factor))
    return out
