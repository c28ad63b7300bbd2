"""Words into claims: each figure of a piece with the metric, arm, statistic and form its words give it.

A figure's metric is the one its clause names (the nearest name before it, else after it, else the
one the sentence named last); a table cell takes its row's label; a chart line its title. Its arm
is the column of a cell, the side of "from A to B", or the nearest words for a side ("the
baseline's", "this PR's", "before", "with this PR"). Its statistic is the one written next to the
metric's name ("TTFT p99", "median step time"), or one said of the figure ("on the median").
Round multipliers and number words ("2x", "twice", "seven times", "halves") are figures too.
Nothing here decides whether a claim is true: perfkit.lint.claims.check does.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from perfkit.lint import numbers as nums
from perfkit.lint.claims import vocab
from perfkit.lint.claims.data import Catalog, family_aliases
from perfkit.lint.claims.pieces import Piece

_P_BEFORE = re.compile(r"(?:\bp\s*(?:=|<|>|≤|≥)\s*|\bp-value (?:of )?)$", re.I)
_PER_RUN = re.compile(r"\b(?:in|of) run \d+|\bper[- ]run\b|\beach run\b|\bone run\b|\bin runs?\b", re.I)
_RANGE_BEFORE = re.compile(r"\b(?:ranges?|ranging|between|interval|CI|spread|varies|varied)\b", re.I)
_ARM_AFTER = re.compile(r"[^\d,;:()]{0,24}")
_SPEED = re.compile(r"\b(?:faster|slower|quicker|speed-?ups?|slowdowns?)\b", re.I)
_BY_BEFORE = re.compile(
    r"\b(?:by|saves?|saving|saved|shaves?|trims?|adds?|adding|added|costs?)\s+(?:about |roughly |nearly |almost )?$"
)
_OF_COUNT = re.compile(r"\d\s+of\s+$")
_OF_AFTER = re.compile(r"\s+of\s+\d")
_ATTACH_BACK = re.compile(r"^(?:on|at|by|in|for) the $", re.I)


@dataclass
class Mention:
    start: int
    end: int
    families: tuple[str, ...]
    strong: bool
    stat: str | None = None


@dataclass
class Claim:
    piece: Piece
    start: int
    end: int
    text: str
    value: float
    decimals: int
    unit: str  # '', '%', 'x', 's', 'ms', 'GB', ...
    sign: str
    form: str  # 'level', 'pct', 'factor', 'p', 'count', 'diff'
    families: tuple[str, ...] | None = None  # the metric families its words name; None: none named
    family_words: str = ""  # the words that named them, for a finding
    stat: str | None = None
    arm: str | None = None
    role: str = ""  # 'from' or 'to' in "from A to B"
    partner: Claim | None = None
    way: str = ""  # a multiplier verb's own direction: 'up' (doubles) or 'down' (halves)
    spoken: bool = False  # a multiplier written in words or as "N times": only the claims read it
    basis: str = ""  # 'pooled' or 'runs' when the words say which figure of a percentile it is
    word: str = ""  # the nearest word of change in the clause: 'up', 'down', 'good', 'bad'
    measurement_named: bool = False
    measured_as: str = ""  # 'screening' or 'confirmation' when the words name one measurement only
    per_run: bool = False
    clause: tuple[int, int] = (0, 0)


class Vocabulary:
    """The campaign's names as one pattern per kind, compiled once per catalog."""

    def __init__(self, cat: Catalog, unit: str = "step") -> None:
        self.cat = cat
        aliases = family_aliases(cat)
        table: dict[str, tuple[tuple[str, ...], bool]] = {w: ((f,), True) for w, f in aliases.items()}
        for word, fams in vocab.GENERIC.items():
            present = tuple(
                f for f in {m.family for m in cat.metrics.values()} if any(g in f for g in fams) or f in fams
            )
            if present and word not in table:
                table[word] = (present, True)
        step = f"{unit.strip().lower() or 'step'}"
        fam = f"{step} time"
        if cat.family_metrics(fam):
            for w in (f"{step} times", f"time per {step}", f"per-{step} time", f"{step}-time", f"time of a {step}"):
                table.setdefault(w, ((fam,), True))
            for w in (f"a {step}", f"each {step}", f"per {step}", f"{step}s", step, "steady state", "steady-state"):
                table.setdefault(w, ((fam,), False))
            for w in (f"{step}s slower than", f"slow {step}s", f"slow {step}"):
                table.setdefault(w, (("slow steps",), True))
            for w in (f"first {step}", f"the first {step}"):
                table.setdefault(w, (("first step",), True))
        self.table = table
        words = sorted(table, key=len, reverse=True)
        self.mention_re = (
            re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", re.I)
            if words
            else None
        )
        arms = sorted(cat.arm_names, key=len, reverse=True)
        self.arm_re = (
            re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in arms) + r")(?![\w-])", re.I) if arms else None
        )

    def mentions(self, text: str) -> list[Mention]:
        if self.mention_re is None:
            return []
        out = []
        for m in self.mention_re.finditer(text):
            fams, strong = self.table[m.group(0).lower()]
            out.append(Mention(m.start(), m.end(), fams, strong))
        return out


_GAP_BEFORE = re.compile(r"\s*(?:the\s+)?|\s*-\s*")
_GAP_AFTER = re.compile(r"\s*(?:at\s+(?:the\s+)?|\(|,\s*)?")


def adjacent_stats(text: str, mentions: list[Mention], stats: list[re.Match[str]]) -> set[int]:
    """Give each mention the statistic written next to it; return the indexes of the stats used so.

    A percentile wins over 'mean' ("the mean TTFT p99" is a p99, averaged over runs).
    """
    used: set[int] = set()
    starts = [s.start() for s in stats]
    for men in mentions:
        k = bisect.bisect_left(starts, men.start) - 1
        found: list[int] = []
        if k >= 0 and stats[k].end() <= men.start and _GAP_BEFORE.fullmatch(text[stats[k].end() : men.start]):
            found.append(k)
        k = bisect.bisect_left(starts, men.end)
        if k < len(stats) and _GAP_AFTER.fullmatch(text[men.end : stats[k].start()]):
            found.append(k)
        if not found:
            continue
        named = [vocab.stat_of(stats[k]) for k in found]
        men.stat = next((n for n in named if n != "mean"), named[0])
        used.update(found)
    return used


def clauses(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in vocab.CLAUSE_RE.finditer(text):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return out


def _form(f: nums.Figure, text: str, piece: Piece) -> str | None:
    before = text[max(0, f.start - 12) : f.start]
    if _P_BEFORE.search(before):
        return "p"
    if f.setup_count:
        return None
    if f.unit == "%":
        return "pct"
    if f.unit == "x":
        return "factor"
    if f.unit == "":
        if (
            vocab.COUNT_NOUN_RE.match(text[f.end : f.end + 40])
            or _OF_COUNT.search(before)
            or _OF_AFTER.match(text, f.end)
        ):
            return "count"
        if nums.is_small_count(f) and piece.kind != "cell":
            return None
        if f.text[:1] in "+-":
            return "diff"
    elif f.text[:1] in "+-":
        return "diff"
    if _BY_BEFORE.search(before) and f.unit not in ("%", "x"):
        return "diff"  # "drops by 876 ms": the difference, not a level
    return "level"


def _figures(text: str) -> list[tuple[nums.Figure, bool, str]]:
    """(figure, whether a multiplier in words, the direction a multiplier verb says), in text order."""
    words = []
    for m in vocab.MULTIPLIER_RE.finditer(text):  # the prose mask has blanked perfkit's own placeholders
        value, way = vocab.multiplier(m)
        if value:
            digits = re.search(r"\d+(?:\.(\d+))?", m.group(0))  # "2.2-fold" is written to one decimal
            places = len(digits.group(1) or "") if digits else 0
            figure = nums.Figure(0, m.start(), m.end(), m.group(0), m.group(0), value, places, "x", False)
            words.append((figure, True, way))
    taken = [(f.start, f.end) for f, _, _ in words]
    out = list(words)
    for f in nums.figures_in(0, text):
        if any(a <= f.start < b for a, b in taken):
            continue
        out.append((f, False, ""))
    return sorted(out, key=lambda t: t[0].start)


class _Spans:
    """Items sorted by position, for 'the nearest before, else after' in logarithmic time."""

    def __init__(self, items: list[tuple[int, int, object]]) -> None:
        self.items = sorted(items, key=lambda t: t[0])
        self.starts = [t[0] for t in self.items]

    def nearest(self, pos: int, lo: int, hi: int) -> object | None:
        """The item nearest before pos within [lo, hi), else the nearest after it."""
        k = bisect.bisect_right(self.starts, pos) - 1
        while k >= 0 and self.items[k][0] >= lo:
            if self.items[k][1] <= pos:
                return self.items[k][2]
            k -= 1
        k = bisect.bisect_left(self.starts, pos)
        if k < len(self.items) and self.items[k][1] <= hi:
            return self.items[k][2]
        return None

    def first_after(self, pos: int, hi: int) -> object | None:
        k = bisect.bisect_left(self.starts, pos)
        return self.items[k][2] if k < len(self.items) and self.items[k][1] <= hi else None

    def last_before(self, pos: int, lo: int) -> object | None:
        k = bisect.bisect_right(self.starts, pos) - 1
        while k >= 0 and self.items[k][0] >= lo:
            if self.items[k][1] <= pos:
                return self.items[k][2]
            k -= 1
        return None


def _cell_arm(piece: Piece) -> str | None:
    col = piece.column
    if col in ("baseline", "before"):
        return "baseline"
    if col in ("this pr", "after", "pr"):
        return "pr"
    return None


def read(piece: Piece, voc: Vocabulary) -> list[Claim]:
    """The claims of one piece of text."""
    if piece.kind == "chart":
        return []
    figs = _figures(piece.text)
    if not figs:
        return []
    return _Reader(piece, voc, figs).claims()


class _Row:
    """What a table cell takes from its row: the metric its label names, the arm of an 'of which' row."""

    def __init__(self, piece: Piece, voc: Vocabulary) -> None:
        self.mentions: list[Mention] = []
        self.arm: str | None = None
        self.of_which = False
        if piece.kind != "cell" or not piece.column:
            return
        self.mentions = voc.mentions(piece.row)
        stats = list(vocab.STAT_RE.finditer(piece.row))
        adjacent_stats(piece.row, self.mentions, stats)
        self.of_which = piece.row.lower().startswith("of which")
        if voc.arm_re is not None and self.of_which:
            hit = voc.arm_re.search(piece.row)
            self.arm = voc.cat.arm_names[hit.group(0).lower()] if hit else None
        if not stats and not self.mentions and piece.table == "result":  # "of which" rows: the headline metric
            cat = voc.cat
            self.mentions = [Mention(0, 0, tuple({cat.metrics[h].family for h in cat.headline[:1]}), True)]
        if self.mentions and self.mentions[0].stat is None and stats:
            self.mentions[0].stat = vocab.stat_of(stats[0])


class _Reader:
    """One piece's words, indexed by position: each figure reads its metric, statistic and arm from them."""

    def __init__(self, piece: Piece, voc: Vocabulary, figs: list[tuple[nums.Figure, bool, str]]) -> None:
        text = self.text = piece.text
        self.piece, self.voc, self.figs = piece, voc, figs
        mentions = self.mentions = voc.mentions(text)
        over_runs = [(m.start(), m.end()) for m in vocab.OVER_RUNS_RE.finditer(text)]
        stats = [s for s in vocab.STAT_RE.finditer(text) if not any(a <= s.start() < b for a, b in over_runs)]
        used = adjacent_stats(text, mentions, stats)
        self.free = _Spans([(s.start(), s.end(), s) for k, s in enumerate(stats) if k not in used])
        self.strong = _Spans([(m.start, m.end, m) for m in mentions if m.strong])
        self.weak = _Spans([(m.start, m.end, m) for m in mentions])
        self.arms = _Spans(
            [(m.start(), m.end(), "baseline" if m.group("baseline") else "pr") for m in vocab.ARM_RE.finditer(text)]
        )
        alone = voc.arm_re.finditer(text) if voc.arm_re else iter(())
        self.other = _Spans([(m.start(), m.end(), voc.cat.arm_names[m.group(0).lower()]) for m in alone])
        self.words = _Spans(
            [
                (m.start(), m.end(), next(g for g in ("up", "down", "good", "bad") if m.group(g)))
                for m in vocab.CHANGE_WORD_RE.finditer(text)
            ]
        )
        self.speed = _Spans([(m.start(), m.end(), True) for m in _SPEED.finditer(text)])
        self.per_run = _Spans([(m.start(), m.end(), True) for m in _PER_RUN.finditer(text)])
        self.fig_starts = [t[0].start for t in figs]
        self.clauses = clauses(text)
        self.starts = [a for a, _ in self.clauses]
        fams = tuple(dict.fromkeys(voc.cat.metrics[h].family for h in voc.cat.headline if h in voc.cat.metrics))
        self.headline = Mention(0, 0, fams, True) if fams else None
        self.row = _Row(piece, voc)
        said = {
            k
            for m in (*vocab.MEASUREMENT_RE.finditer(text), *vocab.MEASUREMENT_RE.finditer(piece.lead))
            for k in ("screening", "confirmation")
            if m.group(k)
        }
        if piece.table == "commits":
            said.add("screening")
        self.measured = bool(said)
        self.measured_as = said.pop() if len(said) == 1 else ""
        self.carried: Mention | None = None
        self.basis = "pooled" if vocab.POOLED_RE.search(text) else "runs" if vocab.RUNS_BASIS_RE.search(text) else ""

    def claims(self) -> list[Claim]:
        out: list[Claim] = []
        for f, spoken, way in self.figs:
            form = _form(f, self.text, self.piece)
            if form is None:
                continue
            ci = max(bisect.bisect_right(self.starts, f.start) - 1, 0)
            lo, hi = self.clauses[ci]
            sign = f.text[:1] if f.text[:1] in "+-" else ""
            c = Claim(self.piece, f.start, f.end, f.text, f.value, f.decimals, f.unit, sign, form, way=way)
            c.spoken, c.clause, c.measurement_named = spoken, (lo, hi), self.measured
            c.measured_as = self.measured_as
            self._metric(c, lo, hi)
            self._stat(c, lo, hi)
            if self.piece.kind == "cell":
                self._cell_arm(c)
            else:
                self._prose_arm(c, lo, hi)
            word = self.words.nearest(f.start, lo, hi)
            c.word = word if isinstance(word, str) else ""
            c.basis = self.basis
            out.append(c)
        _pairs(self.text, out)
        return out

    def _metric(self, c: Claim, lo: int, hi: int) -> None:
        """The nearest name in the clause, else the row's, else one named earlier in the sentence."""
        men = self.strong.nearest(c.start, lo, hi)
        if men is None and (c.unit not in ("", "%") or c.form == "factor"):
            men = self.weak.nearest(c.start, lo, hi)  # "a step", "steps": only for a time or a factor
        if men is None and self.row.mentions:
            men = self.row.mentions[0]
        if men is None:
            men = self.strong.last_before(lo, 0)  # named in an earlier clause: "Output throughput: 2,387 before"
        if men is None:
            men = self.carried
        if men is None and c.form in ("factor", "pct") and self.speed.nearest(c.start, lo, hi) is not None:
            men = self.headline  # "this PR is 1.15x faster": the headline metrics
        if isinstance(men, Mention):
            c.families = men.families
            c.family_words = self.text[men.start : men.end] if men.end > men.start else self.piece.row
            c.stat = men.stat
            self.carried = men
            if c.stat is None and self.piece.kind == "title" and self.voc.cat.shape == "steps":
                c.stat = "mean"  # the title's form quotes the mean step time

    def _stat(self, c: Claim, lo: int, hi: int) -> None:
        """'on the median' after the figure wins; else the name's own statistic; else one said before it."""
        back = self.free.first_after(c.end, hi)
        nxt = bisect.bisect_right(self.fig_starts, c.start)
        next_fig = self.fig_starts[nxt] if nxt < len(self.fig_starts) else hi
        if (
            isinstance(back, re.Match)
            and back.start() < next_fig
            and _ATTACH_BACK.search(self.text[max(0, back.start() - 7) : back.start()])
        ):
            c.stat = vocab.stat_of(back)
        elif c.stat is None:
            prior = self.free.last_before(c.start, lo)
            if isinstance(prior, re.Match):
                c.stat = vocab.stat_of(prior)

    def _cell_arm(self, c: Claim) -> None:
        row = self.row
        c.arm = row.arm if (row.arm and self.piece.column == "this pr") else _cell_arm(self.piece)
        if c.form in ("pct", "factor", "diff") and row.arm:
            c.arm = row.arm
        if row.of_which and not row.arm and c.arm != "baseline":
            c.arm = None  # an arm measuring one change alone, by a name the draft did not give
        c.per_run = self.piece.table == "result" and "(" in self.text[: c.start] and c.form == "level"

    def _prose_arm(self, c: Claim, lo: int, hi: int) -> None:
        """Words for a side right after the figure, else the nearest in the clause, else an earlier clause's."""
        named = self.arms.nearest(c.start, lo, hi)
        right_after = self.arms.first_after(c.end, hi)
        k = bisect.bisect_left(self.arms.starts, c.end)
        if isinstance(right_after, str) and _ARM_AFTER.fullmatch(self.text[c.end : self.arms.items[k][0]]):
            named = right_after  # "2,789 tok/s before", "707 ms with this PR"
        if named is None:
            named = self.arms.last_before(lo, 0)
        other = self.other.nearest(c.start, lo, hi)
        if c.form in ("pct", "factor", "diff", "p"):
            c.arm = other if isinstance(other, str) else None
        elif isinstance(other, str) and named != "baseline":
            c.arm = other
        else:
            c.arm = named if isinstance(named, str) else None
        c.per_run = self.per_run.nearest(c.start, lo, hi) is not None


def _pairs(text: str, claims: list[Claim]) -> None:
    """'from A to B' and 'A to B': A is the baseline's figure, B this PR's."""
    for a, b in zip(claims, claims[1:], strict=False):
        if a.form not in ("level", "diff") or b.form not in ("level", "diff") or a.clause != b.clause:
            continue
        if a.role or not vocab.TO_BETWEEN_RE.match(text[a.end : b.start]):
            continue
        if a.sign or b.sign or _RANGE_BEFORE.search(text[a.clause[0] : a.start]):
            continue
        a.role, b.role, a.partner, b.partner = "from", "to", b, a
        a.form = b.form = "level"
        a.arm = "baseline"
        b.arm = b.arm if b.arm not in (None, "baseline", "pr") else "pr"
