"""Claims checked against the data: bound to the datum the words point at, or reported with the figure it has.

For each claim, the datums its value equals within its rounding are the ones it is bound to; the
datums its words point at (metric, statistic, arm, form, ignoring the value) are its targets.
A claim is right when one datum is both. Otherwise:
- it binds to another datum (another metric, arm or statistic): a wrong figure, and the finding
  names the datum it is and the figure the data has for what the words say;
- it binds to nothing: unbacked, and the finding names the figure the data has for the words;
- "from A to B" whose figures fit the other way round: from and to swapped;
- it binds only to a commit's screening while the words do not say so: two measurements of the
  same change, unnamed.
A claim whose words point at nothing the data knows (no metric named, only a count) is left to the
plain truthfulness rule, so a sentence is reported only where its words can be checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfkit.lint import numbers as nums
from perfkit.lint.claims.data import Catalog, Datum, unit_kind
from perfkit.lint.claims.extract import Claim
from perfkit.lint.figures import UNIT

_LEVEL_FORMS = ("level", "run", "ci", "threshold", "count")
_RANGE_WORDS = re.compile(r"\b(?:interval|CI|range|ranges|between|spread)\b", re.I)


@dataclass
class Verdict:
    """What a claim turned out to be: the rule it breaks (or '' when unbacked), and the fix."""

    rule: str  # 'wrong-figure', 'two-measurements', 'unbacked-number'
    claim: Claim
    fix: str


def metric_ids(cat: Catalog, families: tuple[str, ...], stat: str | None) -> tuple[list[str], bool]:
    """The metrics the words name, and whether they named a statistic the data does not have."""
    ids = [i for fam in families for i in cat.family_metrics(fam)]
    if any(not i.startswith("absent:") for i in ids):
        ids = [i for i in ids if not i.startswith("absent:")]  # "throughput": the ones measured
    if stat is None:
        return ids, False
    if stat == "tail":  # "tail latency": any high percentile
        exact = [i for i in ids if _percentile(cat.metrics[i].stat) >= 90]
    else:
        exact = [i for i in ids if cat.metrics[i].stat == stat]
    if exact:
        return exact, False
    if stat == "mean":
        plain = [i for i in ids if cat.metrics[i].stat is None]
        if plain:
            return plain, False
    return [], bool(ids)


def _percentile(stat: str | None) -> float:
    try:
        return float(stat[1:]) if stat and stat.startswith("p") else -1.0
    except ValueError:
        return -1.0


def _compatible(cat: Catalog, claim: Claim, ids: list[str]) -> list[str]:
    """The named metrics a figure of this unit can be a value of."""
    if claim.form in ("pct", "factor", "p", "diff"):
        return [i for i in ids if cat.metrics[i].unit != "%"] if claim.form != "pct" else ids
    if claim.unit == "":
        return [i for i in ids if cat.metrics[i].unit != "%"]  # a share is written with its '%'
    kind = UNIT.get(claim.unit, ("any", 1.0))[0]
    return [i for i in ids if unit_kind(cat.metrics[i].unit)[0] == kind]


def _form_fits(cat: Catalog, d: Datum, claim: Claim) -> bool:
    if claim.form == "pct":
        return d.form == "pct" or (d.form == "level" and cat.metrics[d.metric].unit == "%")
    if claim.form == "factor":
        near_words = claim.piece.text[max(0, claim.start - 60) : claim.start]  # "between 1.15x and 1.26x"
        return d.form == "factor" or (d.form == "fci" and bool(_RANGE_WORDS.search(near_words)))
    if claim.form == "p":
        return d.form == "p"
    if claim.form in ("diff", "count"):
        return d.form in ("diff", "level", "run", "count")
    if claim.per_run:
        return d.form == "run"
    return d.form in _LEVEL_FORMS


def fits(cat: Catalog, d: Datum, claim: Claim, ids: list[str] | None) -> bool:
    """Whether a datum is what the claim's words say (its value aside)."""
    if ids is not None and d.metric not in ids:
        return False
    commit = claim.piece.commit
    if commit and claim.form in ("pct", "factor", "diff"):  # a per-commit row: that commit's own screening
        sha = d.measurement.split()[-1] if d.measurement else ""
        if not sha or not (sha.startswith(commit) or commit.startswith(sha)):
            return False
    if not _form_fits(cat, d, claim):
        return False
    if claim.basis and d.basis and claim.basis != d.basis:
        return False  # "pooled over all requests" is not the mean of the per-run values, nor the other way
    if claim.arm is None:
        return True
    if claim.form in ("pct", "factor", "diff", "p"):
        return claim.arm == "baseline" or d.arm == claim.arm
    return d.arm == claim.arm


def bound(cat: Catalog, claim: Claim) -> list[Datum]:
    """The datums the figure equals within its rounding, of the kind its unit gives it."""
    tol = nums.tolerance(claim.value, claim.decimals, claim.unit)
    if claim.unit == "":
        found = cat.near("any", claim.value, tol, raw=True)
    else:
        kind, factor = UNIT.get(claim.unit, ("any", 1.0))
        found = cat.near(kind, claim.value * factor, tol * factor, raw=kind == "any")
    out = [d for d in found if _form_fits(cat, d, claim) or (claim.form == "level" and d.form in _LEVEL_FORMS)]
    if claim.unit == "":  # a share is written with its '%'
        out = [d for d in out if d.form not in _LEVEL_FORMS or cat.metrics[d.metric].unit != "%"]
    return out


def _best(cat: Catalog, datums: list[Datum], claim: Claim) -> list[Datum]:
    """The datums to name: this measurement before a screening, levels before runs and bounds."""
    rank = dict.fromkeys(("level", "pct", "factor", "p", "count"), 0) | {"diff": 1, "threshold": 2, "run": 2}
    rank |= {"ci": 3, "fci": 3}
    if claim.per_run:
        rank["run"] = 0
    ordered = sorted(datums, key=lambda d: (bool(d.measurement), rank.get(d.form, 4)))
    if not ordered:
        return []
    top = (bool(ordered[0].measurement), rank.get(ordered[0].form, 4))
    keep = [d for d in ordered if (bool(d.measurement), rank.get(d.form, 4)) == top]
    if claim.form == "factor" or any(d.form == "factor" for d in keep):
        keep = [d for d in keep if d.form != "factor" or d.value >= 1] or keep
    out: list[Datum] = []
    for d in keep:
        if not any(o.metric == d.metric and o.arm == d.arm and o.form == d.form for o in out):
            out.append(d)
    return out[:4]


def _words(claim: Claim, cat: Catalog, ids: list[str]) -> str:
    """What the words say, in words: "this PR's TTFT p99"."""
    names = sorted({cat.metrics[i].name for i in ids}) if ids else [claim.family_words or "this figure"]
    what = " or ".join(names) if len(names) <= 3 else claim.family_words or " or ".join(claim.families or ())
    alone = f" in the screening of `{claim.piece.commit[:12]}`" if claim.piece.commit else ""
    if claim.arm not in (None, "baseline", "pr"):
        alone += f" ({cat.arm_words(claim.arm)})"
    if claim.form == "pct":
        return f"the change of {what}{alone}"
    if claim.form == "factor":
        return f"{what}{alone} as a factor"
    if claim.arm and claim.form in ("level", "count"):
        return f"{cat.arm_words(claim.arm)}'s {what}"
    return what


def _list(cat: Catalog, ds: list[Datum]) -> str:
    return "; ".join(cat.label(d) for d in ds)


def check(cat: Catalog, claim: Claim, backed: bool) -> Verdict | None:
    """The claim's verdict, or None when it is right or its words point at nothing checkable."""
    near = bound(cat, claim)
    ids, missing = _named(cat, claim)
    fit = [d for d in near if fits(cat, d, claim, ids)]
    if fit and all(d.measurement for d in fit):
        metrics = {d.metric for d in fit}
        if any(not d.measurement and d.metric in metrics and not fits(cat, d, claim, None) for d in near):
            fit = []  # the confirmation's other arm has this figure: a wrong arm, not a screening
    if fit:
        return (
            _measurement(cat, claim, fit)
            or _other_measurement(cat, claim, fit)
            or _level_only_run(cat, claim, fit, ids)
        )
    if claim.form == "count" or ids is None:
        return None
    targets = _best(cat, [d for d in cat.of(ids) if fits(cat, d, claim, ids)], claim)
    if not targets:
        return _basis(cat, claim, near, ids) or _nothing_named(cat, claim, near, ids, missing)
    words = _words(claim, cat, ids)
    if near:
        return Verdict(
            "wrong-figure",
            claim,
            f"{claim.text} is {_list(cat, _best(cat, near, claim))}, not {words}: the data has {_list(cat, targets)}",
        )
    if not backed:
        return Verdict(
            "unbacked-number",
            claim,
            f"no figure in the campaign's files matches {claim.text}; for {words} the data has {_list(cat, targets)}",
        )
    return _basis(cat, claim, near, ids) or Verdict(
        "wrong-figure", claim, f"{claim.text} is not {words}: the data has {_list(cat, targets)}"
    )


def _named(cat: Catalog, claim: Claim) -> tuple[list[str] | None, bool]:
    """The metrics the words name that a figure of this unit can be (None: no metric named), and whether they
    named a statistic the data does not have."""
    if not claim.families:
        return None, False
    ids, missing = metric_ids(cat, claim.families, claim.stat)
    ids = _compatible(cat, claim, ids)
    if not ids and not missing:
        return None, False  # the name is of something else in this clause
    return ids, missing


def _basis(cat: Catalog, claim: Claim, near: list[Datum], ids: list[str]) -> Verdict | None:
    """A percentile said pooled over all requests (or the mean of the runs') where the data has only the other."""
    if not claim.basis:
        return None
    said, claim.basis = claim.basis, ""
    other = [d for d in near if fits(cat, d, claim, ids)]
    claim.basis = said
    if not other or any(d.basis == said for d in cat.of(ids) if d.form == "level"):
        return None
    what = "pooled over every request" if said == "pooled" else "the mean of the per-run values"
    other_way = "the mean of the per-run values" if said == "pooled" else "pooled over every request"
    return Verdict(
        "wrong-figure",
        claim,
        f"{claim.text} is {_list(cat, _best(cat, other, claim))}, {other_way}; the data has no figure {what}"
        " for it: say which figure it is",
    )


def _nothing_named(cat: Catalog, claim: Claim, near: list[Datum], ids: list[str], missing: bool) -> Verdict | None:
    """Words naming what the data does not have (a mean TTFT, TPOT) for a figure that is something else."""
    if not near:
        return None
    if missing:
        same = [d for d in near if cat.metrics[d.metric].family in (claim.families or ())]
        fam = claim.family_words or "this metric"
        return Verdict(
            "wrong-figure",
            claim,
            f"{claim.text} is {_list(cat, _best(cat, same or near, claim))}, not a {claim.stat} of {fam}: the data "
            f"has no {claim.stat} {fam}; name the statistic the figure is",
        )
    absent = [i for i in ids if i.startswith("absent:")]
    if absent:
        return Verdict(
            "wrong-figure",
            claim,
            f"{claim.text} is {_list(cat, _best(cat, near, claim))}; the data has no "
            f"{cat.metrics[absent[0]].name}: name the metric the figure is",
        )
    return None


def _measurement(cat: Catalog, claim: Claim, fit: list[Datum]) -> Verdict | None:
    """A figure only a commit's screening has, in words that do not say it is that measurement."""
    if claim.measurement_named or claim.piece.kind not in ("sentence", "title"):
        return None
    if not all(d.measurement for d in fit):
        return None
    d = fit[0]
    others = [o for o in cat.of([d.metric]) if not o.measurement and o.arm == d.arm and o.form == d.form]
    confirm = f"; the runs read_benchmark compared give {_list(cat, others[:1])}" if others else ""
    return Verdict(
        "two-measurements",
        claim,
        f"{claim.text} is {cat.label(d)}{confirm}: say which measurement each figure is (the commit's screening, "
        "or the confirmation runs)",
    )


def _other_measurement(cat: Catalog, claim: Claim, fit: list[Datum]) -> Verdict | None:
    """Words naming one measurement ("in its screening run") for a figure only the other one has."""
    if not claim.measured_as or claim.arm not in (None, "baseline", "pr"):
        return None  # an arm measuring one change alone is part of the confirmation runs
    screening = claim.measured_as == "screening"
    if any(bool(d.measurement) == screening for d in fit):
        return None
    metrics = {d.metric for d in fit}
    forms = {d.form for d in fit}
    said = [
        d
        for d in cat.of(sorted(metrics))
        if bool(d.measurement) == screening and d.form in forms and (claim.arm is None or d.arm == claim.arm)
    ]
    if screening and claim.partner is not None:  # "from A to B": the screening A belongs to
        other = claim.partner
        partner = {d.measurement for d in bound(cat, other) if d.measurement and d.arm in (other.arm, None)}
        said = [d for d in said if d.measurement in partner] or said
    if not said:
        return None
    named = "the screening gives" if screening else "the confirmation runs give"
    return Verdict(
        "two-measurements",
        claim,
        f"{claim.text} is {_list(cat, _best(cat, fit, claim))}, not the measurement the sentence names: "
        f"{named} {_list(cat, _best(cat, said, claim))}",
    )


def _level_only_run(cat: Catalog, claim: Claim, fit: list[Datum], ids: list[str] | None) -> Verdict | None:
    """One run's value, or an interval's bound, given as the metric's value over all runs."""
    if claim.per_run or claim.form != "level" or ids is None or claim.piece.kind == "cell":
        return None
    if any(d.form in ("level", "threshold", "count") for d in fit):
        return None
    lo, hi = claim.clause
    if _RANGE_WORDS.search(claim.piece.text[lo:hi]):
        return None
    pool = [d for d in cat.of(ids) if fits(cat, d, claim, ids) and d.form == "level" and not d.measurement]
    targets = _best(cat, pool, claim)
    targets = [t for t in targets if t.arm == fit[0].arm] or targets
    if not targets:
        return None
    return Verdict(
        "wrong-figure",
        claim,
        f"{claim.text} is {cat.label(fit[0])}, not the value over all runs: the data has {_list(cat, targets)}; "
        "say 'in run N' or quote the value over all runs",
    )


def swapped(cat: Catalog, a: Claim, b: Claim, backed: bool) -> Verdict | None:
    """'from A to B' whose figures are the other arm's each: one finding at A."""
    lo, hi = a.clause
    if _RANGE_WORDS.search(a.piece.text[lo : a.start]):
        return None
    if check(cat, a, backed) is None and check(cat, b, backed) is None:
        return None
    arm_a, arm_b = a.arm, b.arm
    a.arm, b.arm = arm_b, arm_a
    try:
        flipped = check(cat, a, backed) is None and check(cat, b, backed) is None
        ids_a = metric_ids(cat, a.families, a.stat)[0] if a.families else None
        fit_a = _best(cat, [d for d in bound(cat, a) if fits(cat, d, a, ids_a)], a)
    finally:
        a.arm, b.arm = arm_a, arm_b
    if not flipped or not fit_a:
        return None
    fit_b = [d for d in bound(cat, b) if d.arm == "baseline" and d.metric == fit_a[0].metric and d.form == "level"]
    fit_b = _best(cat, fit_b, b)
    second = f" and {b.text} {cat.label(fit_b[0])}" if fit_b else ""
    return Verdict(
        "wrong-figure",
        a,
        f"from and to are swapped: {a.text} is {cat.label(fit_a[0])}{second}; write {b.text} to {a.text}",
    )
