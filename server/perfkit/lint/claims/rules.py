"""The claim rules: wrong figures, unnamed measurements, "unchanged" on a change, an unstated cost, charts.

The document is read into claims once (cached on the document) and every rule takes its share:
- `wrong-figure`: a figure that is another metric's, arm's or statistic's than its words say, or
  "from A to B" swapped; the fix names the figure the data has for what the words say;
- `two-measurements`: a figure only one commit's screening has, in words that do not say so;
- `unchanged`: "unchanged", "flat", "no change" on a change read_benchmark found significant,
  and "significant" or "not significant" against the test's verdict;
- `unstated-cost`: a metric that got significantly worse, in its own direction, that no sentence
  of the Summary states with its size;
- a Mermaid chart's line whose values are not its legend's arm's per-run values, as `wrong-figure`.
Unbacked round multipliers and number words ("2x", "twice", "seven times") are reported by
`unbacked-number`, with the figure the data has for what the words say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from perfkit.lint import numbers as nums
from perfkit.lint.claims import check, extract, pieces, vocab
from perfkit.lint.claims.data import Catalog, Metric
from perfkit.lint.figures import UNIT
from perfkit.lint.markdown import Doc, norm_heading
from perfkit.lint.models import Finding


@dataclass
class Analysis:
    findings: list[Finding] = field(default_factory=list)
    hints: dict[tuple[int, int], str] = field(default_factory=dict)  # (line, column) -> unbacked fix
    bound: set[tuple[int, int]] = field(default_factory=set)  # (line, column) of figures a datum backs


def _finding(rule: str, doc: Doc, piece: pieces.Piece, start: int, end: int, fix: str) -> Finding:
    line, col = piece.at(start)
    _, col_end = piece.at(max(start, end - 1))
    excerpt = doc.lines[line][col : col_end + 1].strip() or doc.lines[line].strip()[:80]
    return Finding(rule=rule, line=line + 1, column=col + 1, excerpt=excerpt[:120], fix=fix)


def analyse(doc: Doc, ctx: Any) -> Analysis:
    """Every claim of the document checked once; cached on the document for the rules that share it."""
    if "_claims" in doc.__dict__:
        cached: Analysis = doc.__dict__["_claims"]
        return cached
    out = Analysis()
    figures = ctx.figures
    found = catalog_of(figures)
    if found is not None:
        cat, voc = found
        for piece in pieces.split(doc):
            if piece.kind == "chart":
                out.findings += _chart(doc, cat, voc, piece)
                continue
            claims = extract.read(piece, voc)
            _claims(doc, cat, figures, claims, out)
            if piece.kind == "sentence":
                out.findings += _unchanged(doc, cat, voc, piece)
        if ctx.kind == "pr":
            out.findings += _unstated_cost(doc, cat, voc)
    doc.__dict__["_claims"] = out
    return out


def catalog_of(figures: Any) -> tuple[Catalog, extract.Vocabulary] | None:
    """The claims' catalog and vocabulary of a FigureSet, built on first use and kept on it."""
    if figures is None or getattr(figures, "bench", None) is None:
        return None
    if getattr(figures, "claims", None) is None:
        from perfkit.lint.claims.data import build

        cat = build(figures.bench, figures.arm_words, figures.unit)
        figures.claims = (cat, extract.Vocabulary(cat, figures.unit))
    found: tuple[Catalog, extract.Vocabulary] = figures.claims
    return found


def _backed(figures: Any, claim: extract.Claim) -> bool:
    f = nums.Figure(0, 0, 0, claim.text, claim.text, claim.value, claim.decimals, claim.unit, False)
    return bool(figures.backs(f))


def _claims(doc: Doc, cat: Catalog, figures: Any, claims: list[extract.Claim], out: Analysis) -> None:
    done: set[int] = set()
    for c in claims:
        if id(c) in done:
            continue
        backed = _backed(figures, c)
        if not backed and check.bound(cat, c):
            backed = True
            out.bound.add(c.piece.at(c.start))
        verdict = None
        if c.role == "from" and c.partner is not None:
            verdict = check.swapped(cat, c, c.partner, backed)
            if verdict is not None:
                done.add(id(c.partner))
        verdict = verdict or check.check(cat, c, backed)
        word = c.text if c.spoken else ""
        if verdict is None:
            if not backed and c.form in ("factor", "pct"):
                fix = f"no figure in the campaign's files matches {c.text}: {_changes(cat, c)}"
                if word:  # a number word: only the claims read it
                    out.findings.append(_finding("unbacked-number", doc, c.piece, c.start, c.end, fix))
                else:
                    line, col = c.piece.at(c.start)
                    out.hints[(line, col)] = fix
            continue
        if verdict.rule == "unbacked-number" and not word:
            line, col = c.piece.at(c.start)
            out.hints[(line, col)] = verdict.fix
            continue
        out.findings.append(_finding(verdict.rule, doc, c.piece, c.start, c.end, verdict.fix))


def _changes(cat: Catalog, c: extract.Claim) -> str:
    """The headline changes (or the named metric's) in the claim's form, for an unbacked factor or percentage."""
    ids = cat.headline
    if c.families:
        ids = check.metric_ids(cat, c.families, c.stat)[0] or ids
    ds = [d for d in cat.of(ids) if d.form == c.form and not d.measurement and d.arm == "pr"]
    ds = [d for d in ds if d.form != "factor" or d.value >= 1]
    return ("the data has " + "; ".join(cat.label(d) for d in ds[:3])) if ds else "take it from read_benchmark"


# --- "unchanged", "flat", "(not) significant" ---------------------------------------------------


def _named_metrics(cat: Catalog, voc: extract.Vocabulary, text: str) -> list[Metric]:
    mentions = voc.mentions(text)
    stats = list(vocab.STAT_RE.finditer(text))
    extract.adjacent_stats(text, mentions, stats)
    out: list[Metric] = []
    strong = [m for m in mentions if m.strong] or mentions  # "each step" only where nothing stronger is named
    for m in strong:
        ids, _ = check.metric_ids(cat, m.families, m.stat)
        out += [cat.metrics[i] for i in ids if cat.metrics[i] not in out]
    return out


def _change_words(m: Metric) -> str:
    size = f"{m.change_pct:+.1f}%" if m.change_pct is not None else "changed"
    span = f" ({m.show(m.baseline)} to {m.show(m.pr)})" if m.baseline is not None and m.pr is not None else ""
    return f"{m.name} changed {size}{span}"


def _test_words(m: Metric) -> str:
    if m.verdict in ("better", "worse", "not_significant") and m.p_value is not None:
        return f"{m.test} gives p = {nums.sig(m.p_value)}"
    if m.verdict == "too_few_runs":
        return f"{m.test} cannot reach significance with so few runs"
    return "no test was made on it"


def _unchanged(doc: Doc, cat: Catalog, voc: extract.Vocabulary, piece: pieces.Piece) -> list[Finding]:
    out: list[Finding] = []
    text = piece.text
    for lo, hi in extract.clauses(text):
        clause = text[lo:hi]
        u = vocab.UNCHANGED_RE.search(clause)
        s = vocab.SIGNIFICANT_RE.search(clause)
        if not u and not s:
            continue
        every = _named_metrics(cat, voc, clause)
        alone = voc.arm_re.search(clause) if voc.arm_re is not None else None
        if alone is not None:  # "the fused losses alone": that arm's own test
            arm = cat.arm_names[alone.group(0).lower()]
            every = [cat.tests.get((m.id, arm), m) for m in every]
        named = [m for m in every if m.change_pct is not None and not m.id.startswith("absent:")]
        absent = [m for m in every if m.id.startswith("absent:")]
        if u and absent and not named:
            fix = f"'{u.group(0)}' about {absent[0].name}, which the campaign did not measure: cut it, or measure it"
            out.append(_finding("unchanged", doc, piece, lo + u.start(), lo + u.end(), fix))
            continue
        if not named:
            continue
        if u:
            moved = [
                m
                for m in named
                if m.verdict in ("better", "worse") or (m.verdict is None and abs(m.change_pct or 0) >= 1.0)
            ]
            if moved and len(moved) == len(named):
                m = moved[0]
                sig = "significant: " if m.verdict in ("better", "worse") else ""
                fix = f"'{u.group(0)}' but {_change_words(m)}, {sig}{_test_words(m)}: state the change and its size"
                out.append(_finding("unchanged", doc, piece, lo + u.start(), lo + u.end(), fix))
                continue
        if s:
            negated = bool(s.group("neg"))
            wrong = [
                m
                for m in named
                if (negated and m.verdict in ("better", "worse"))
                or (not negated and m.verdict not in ("better", "worse"))
            ]
            if wrong and len(wrong) == len(named):
                m = wrong[0]
                verdict = "is significant" if negated else "is not shown significant"
                fix = f"'{s.group(0)}' but {m.name} {verdict}: {_test_words(m)} ({_change_words(m)})"
                out.append(_finding("unchanged", doc, piece, lo + s.start(), lo + s.end(), fix))
    return out


# --- the cost ------------------------------------------------------------------------------------


def regressions(cat: Catalog) -> list[Metric]:
    """Metrics of this PR that got significantly worse in their own direction."""
    return [m for m in cat.metrics.values() if m.verdict == "worse" and m.change_pct is not None]


def _summary_lines(doc: Doc) -> tuple[int | None, range]:
    start = next((i for i, h in enumerate(doc.heading) if h and i > 0 and norm_heading(h[1]) == "summary"), None)
    if start is None:
        return None, range(0)
    end = next((j for j in range(start + 1, len(doc.lines)) if doc.heading[j]), len(doc.lines))
    return start, range(start + 1, end)


def _unstated_cost(doc: Doc, cat: Catalog, voc: extract.Vocabulary) -> list[Finding]:
    worse = regressions(cat)
    if not worse:
        return []
    start, lines = _summary_lines(doc)
    if start is None:
        return []
    text = "\n".join(doc.prose[i] for i in lines if not doc.table[i])
    stated: set[str] = set()
    for sent in re.split(r"(?<=[.!?])\s+", text):
        named = {m.id for m in _named_metrics(cat, voc, sent)}
        if not named:
            continue
        for f in nums.figures_in(0, sent):  # a size: a figure of that metric, its change, factor or values
            kind, factor = UNIT.get(f.unit, ("any", 1.0))
            tol = nums.tolerance(f.value, f.decimals, f.unit)
            near = cat.near(kind, f.value * factor, tol * factor, raw=kind == "any")
            stated |= {d.metric for d in near if d.metric in named and not d.measurement}
    out = []
    for m in worse:
        if m.id in stated:
            continue
        fix = (
            f"{m.name} got worse: {m.show(m.baseline)} to {m.show(m.pr)} ({m.change_pct:+.1f}%), "
            f"{_test_words(m)}: state this cost in the Summary, with its size and test"
        )
        out.append(
            Finding(rule="unstated-cost", line=start + 1, column=1, excerpt=doc.lines[start].strip()[:120], fix=fix)
        )
    return out


# --- charts --------------------------------------------------------------------------------------


def _chart(doc: Doc, cat: Catalog, voc: extract.Vocabulary, piece: pieces.Piece) -> list[Finding]:
    """A chart line's values against the per-run values of the arm its legend names, run by run."""
    if not piece.values or not piece.arm:
        return []
    mentions = voc.mentions(piece.text)
    stats = list(vocab.STAT_RE.finditer(piece.text))
    extract.adjacent_stats(piece.text, mentions, stats)
    ids = [i for m in mentions[:1] for i in check.metric_ids(cat, m.families, m.stat)[0]] or list(cat.headline[:1])
    line = piece.where[0][1]
    legend = doc.lines[line]
    if (
        "median" in piece.row.lower()
        and cat.metrics.get("step time@p50")
        and any(i.startswith("step time") for i in ids)
    ):
        ids = ["step time@p50"]
    elif any(i.startswith("step time") for i in ids):
        ids = ["step time@mean"]
    runs: dict[str, dict[str, list[float]]] = {}
    for d in cat.of(ids):
        if d.form == "run" and not d.measurement:
            runs.setdefault(d.metric, {}).setdefault(d.arm, []).append(d.value)
    for metric, arms in runs.items():
        mine = arms.get(piece.arm, [])
        if _same(piece.values, mine):
            return []
        for other, values in arms.items():
            if other != piece.arm and _same(piece.values, values):
                v = piece.values[0]
                name = cat.metrics[metric].name
                fix = (
                    f"the legend says {cat.arm_words(piece.arm)}, but these are {cat.arm_words(other)}'s per-run "
                    f"{name}; {cat.arm_words(piece.arm)}'s are {', '.join(nums.sig(x) for x in mine)}"
                )
                return [
                    Finding(rule="wrong-figure", line=line + 1, column=v[1] + 1, excerpt=legend.strip()[:120], fix=fix)
                ]
    out = []
    for metric, arms in runs.items():
        mine = arms.get(piece.arm, [])
        for k, (value, col, _end, text) in enumerate(piece.values):
            if k < len(mine) and not _close(value, text, mine[k]):
                name = cat.metrics[metric].name
                fix = f"run {k + 1} of {cat.arm_words(piece.arm)} has {name} {nums.sig(mine[k])}, not {text}"
                out.append(Finding(rule="wrong-figure", line=line + 1, column=col + 1, excerpt=text, fix=fix))
        return out
    return out


def _close(value: float, text: str, actual: float) -> bool:
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(value - actual) <= nums.tolerance(value, decimals, "") + 1e-9


def _same(values: list[tuple[float, int, int, str]], actual: list[float]) -> bool:
    return len(values) == len(actual) and all(_close(v, t, a) for (v, _, _, t), a in zip(values, actual, strict=True))


RULE_IDS = ("wrong-figure", "two-measurements", "unchanged", "unstated-cost")


def rule(rule_id: str) -> Any:
    def run(doc: Doc, ctx: Any) -> list[Finding]:
        if getattr(ctx, "figures", None) is None:
            return []
        return [f for f in analyse(doc, ctx).findings if f.rule == rule_id]

    run.__name__ = f"rule_{rule_id.replace('-', '_')}"
    return run


RULES = {rule_id: rule(rule_id) for rule_id in RULE_IDS}
