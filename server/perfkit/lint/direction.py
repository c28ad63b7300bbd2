"""The direction rule: a word of change must agree with the data's sign and the metric's direction.

Every number can be backed and the sentence still be false: "output throughput fell 16.8%" when it
rose, "1.17x slower" for an improvement. Three checks, each reporting the figure it compared:
- inside the sentence: a factor below 1 called faster (or better), a 'from A to B' whose
  direction word disagrees with A and B;
- against the campaign (when lint has it): a rise/fall word on a metric whose change has the
  other sign, a better/worse word (faster, improved, regressed, slower) on a metric that moved the
  other way in its own direction, and a signed percentage that matches a metric's change in size
  but not in sign.
The metric a clause speaks of is found by its name (or column); a name shared by metrics that moved
in different directions is ambiguous and is not checked, rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from perfkit.lint import numbers as nums
from perfkit.lint.claims.vocab import CHANGE_WORD_RE as _WORD
from perfkit.lint.markdown import Doc
from perfkit.lint.models import Finding

_DIRECTION_PHRASE = re.compile(r"\b(?:higher|lower) is better\b|\bbetter\)", re.I)
_CLAUSE = re.compile(r"[;,]\s+|(?<!\s)\s+(?:and|but|while|whereas)\s+|(?<=[.!?])\s+")
_FROM_TO = re.compile(
    r"\bfrom\s+(?P<a>\d[\d,]*(?:\.\d+)?)(?:\s*(?P<ua>[A-Za-zµ/%]+))?\s+to\s+(?P<b>\d[\d,]*(?:\.\d+)?)", re.I
)
_EXPANSIONS = {"ttft": "time to first token", "itl": "inter-token latency", "tpot": "time per output token"}


@dataclass
class Fact:
    """One measured change the text may speak of."""

    names: list[str]  # lower-case names and columns it is written as
    change_pct: float
    direction: str | None  # 'lower', 'higher', or None when unknown
    label: str  # for the finding: 'output throughput +16.8% (2,387 to 2,789, higher is better)'


def facts_from(dump: dict[str, Any]) -> list[Fact]:
    """The PR's changes in a read_benchmark dump: each metric, step time, peak memory, extra columns."""
    out: list[Fact] = []
    heads = {s.get("key") for s in dump.get("metric_model") or [] if s.get("headline")}
    metrics = sorted(dump.get("metrics") or [], key=lambda m: m.get("key") not in heads)
    for m in metrics:
        name = str(m.get("name") or "").lower()
        names = {name, str(m.get("key") or "").lower().split("@")[0]}
        for short, long in _EXPANSIONS.items():
            if short in name.split():
                names.add(name.replace(short, long))
        b = m["baseline"]["estimate"]["value"]
        c = m["candidate"]["estimate"]["value"]
        out.append(
            Fact(
                sorted(n for n in names if n),
                float(m["change_pct"]),
                m.get("direction"),
                f"{m.get('name')} {m['change_pct']:+.1f}% ({b:.4g} to {c:.4g}, {m.get('direction')} is better)",
            )
        )
    cmp = dump.get("comparison")
    if cmp:
        steps: list[tuple[str, list[str]]] = [
            ("change_mean_pct", ["step time", "step", "mean step time"]),
            ("change_median_pct", ["median step time", "median"]),
            ("peak_mem_change_pct", ["peak memory"]),
            ("first_step_change_pct", ["first step", "one-time cost", "first-step time"]),
        ]
        for key, words in steps:
            if isinstance(cmp.get(key), (int, float)):
                out.append(Fact(words, float(cmp[key]), "lower", f"{words[0]} {cmp[key]:+.1f}% (lower is better)"))
        for mc in cmp.get("metrics") or []:
            if isinstance(mc.get("change_pct"), (int, float)):
                n = str(mc["name"]).lower()
                out.append(
                    Fact([n, n.replace("_", " ")], float(mc["change_pct"]), None, f"{n} {mc['change_pct']:+.1f}%")
                )
    return out


def _near(written: float, decimals: int, actual: float) -> bool:
    return bool(abs(abs(written) - abs(actual)) <= 0.5 * 10 ** (-decimals) + 1e-9)


def _named_at(low: str, name: str) -> bool:
    """Whether name occurs in low as a whole word (no letter, digit, '_' or '-' on either side)."""
    start = low.find(name)
    while start >= 0:
        end = start + len(name)
        before = low[start - 1] if start else " "
        after = low[end] if end < len(low) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
            return True
        start = low.find(name, start + 1)
    return False


def _facts_in(clause: str, facts: list[Fact]) -> list[Fact]:
    """The facts a clause names; the longest name wins where names overlap ('TTFT p99' over 'TTFT')."""
    low = clause.lower()
    best, found = 0, []
    for f in facts:
        for n in f.names:
            if n and _named_at(low, n):
                if len(n) > best:
                    best, found = len(n), [f]
                elif len(n) == best:
                    found.append(f)
    return found


def _by_value(clause_figs: list[nums.Figure], facts: list[Fact]) -> list[Fact]:
    hits = []
    for fig in clause_figs:
        if fig.unit == "%":
            hits += [f for f in facts if _near(fig.value, fig.decimals, f.change_pct)]
    return hits


def _finding(doc: Doc, line: int, start: int, end: int, fix: str) -> Finding:
    excerpt = doc.lines[line][start:end].strip() or doc.lines[line].strip()[:80]
    return Finding(rule="direction", line=line + 1, column=start + 1, excerpt=excerpt[:120], fix=fix)


def _internal(doc: Doc, i: int, text: str, off: int) -> list[Finding]:
    out = []
    factors = [m for m in nums.NUMBER_RE.finditer(text) if nums.unit_of(m.group("unit") or "") == "x"]
    for w in _WORD.finditer(text):
        if not w.group("good"):
            continue
        for m in factors:
            if m.end() <= w.start() and not text[m.end() : w.start()].strip() and float(m.group("num")) < 1:
                out.append(
                    _finding(
                        doc,
                        i,
                        off + m.start(),
                        off + w.end(),
                        f"a factor of {m.group('num')} is below 1: it is a slowdown, not '{w.group(0)}'; "
                        "write the factor the other way up and the word that matches it",
                    )
                )
    ft = _FROM_TO.search(text)
    if ft:
        a, b = (float(ft.group(k).replace(",", "")) for k in ("a", "b"))
        for w in _WORD.finditer(text):
            if (w.group("up") and b < a) or (w.group("down") and b > a):
                out.append(
                    _finding(
                        doc,
                        i,
                        off + w.start(),
                        off + w.end(),
                        f"'{w.group(0)}' but the sentence goes from {ft.group('a')} to {ft.group('b')}: "
                        "use the word the figures give",
                    )
                )
    return out


def _against(doc: Doc, i: int, text: str, off: int, named: list[Fact], figs: list[nums.Figure]) -> list[Finding]:
    """Direction words and signed percentages of one clause against the facts it speaks of."""
    if not named:
        return []
    out = []
    signs = {f.change_pct > 0 for f in named if f.change_pct}
    verdicts = {(f.change_pct < 0) == (f.direction == "lower") for f in named if f.direction and f.change_pct}
    fact = named[0]
    for w in _WORD.finditer(text):
        wrong = None
        if len(signs) == 1:
            rose = signs == {True}
            if w.group("up") and not rose:
                wrong = "it fell"
            elif w.group("down") and rose:
                wrong = "it rose"
        if wrong is None and len(verdicts) == 1 and all(f.direction for f in named):
            improved = verdicts == {True}
            if w.group("good") and not improved:
                wrong = "it got worse in its own direction"
            elif w.group("bad") and improved:
                wrong = "it improved in its own direction"
        if wrong:
            out.append(
                _finding(
                    doc,
                    i,
                    off + w.start(),
                    off + w.end(),
                    f"'{w.group(0)}' contradicts the data: {fact.label}, so {wrong}",
                )
            )
    for fig in figs:
        if fig.unit != "%" or fig.text[:1] not in "+-":
            continue
        for f in named:
            same_size = f.change_pct and _near(fig.value, fig.decimals, f.change_pct)
            if same_size and (fig.text[0] == "-") != (f.change_pct < 0):
                out.append(_finding(doc, i, fig.start, fig.end, f"the sign contradicts the data: {f.label}"))
                break
    return out


def rule_direction(doc: Doc, ctx: Any) -> list[Finding]:
    facts: list[Fact] = list(getattr(ctx.figures, "directions", None) or [])
    out: list[Finding] = []
    for i, line in enumerate(doc.prose):
        if not line.strip():
            continue
        masked = _DIRECTION_PHRASE.sub(lambda m: " " * len(m.group(0)), line)
        pieces = [(0, len(masked))] if doc.table[i] else _pieces(masked)
        carried: list[Fact] = []
        for ps, pe in pieces:
            text = masked[ps:pe]
            out += _internal(doc, i, text, ps)
            if not facts:
                continue
            clause_figs = doc.figures_between(i, ps, pe)  # a bisection: a long line stays linear
            named = _facts_in(text, facts) or _by_value(clause_figs, facts) or carried
            out += _against(doc, i, text, ps, named, clause_figs)
            carried = named
    uniq = {(f.line, f.column, f.fix): f for f in out}
    return sorted(uniq.values(), key=lambda f: (f.line, f.column))


def _pieces(line: str) -> list[tuple[int, int]]:
    """Clauses of a prose line: split at commas, semicolons, 'and', 'but', sentence ends."""
    out, pos = [], 0
    for m in _CLAUSE.finditer(line):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(line)))
    return [(a, b) for a, b in out if line[a:b].strip()]
