"""Wrong sentences about the two example campaigns, generated from kinds of error with random metrics and arms.

Each kind is a set of templates: a sentence a writer could plausibly put in a PR description or an
issue, with slots for a metric, an arm and figures. The generator fills the slots from the
campaign's figures, recomputed here from its files (the serving results JSON, benchmark.csv,
candidates.jsonl) rather than taken from read_benchmark, and makes the sentence wrong the way its
kind says: before and after swapped, the baseline's figure given as this PR's, another metric's
change, a p99 called the mean, "unchanged" on a significant change, a round multiplier nothing
backs. Each planted sentence carries the figure the data has for what its words say, which the
finding must name.
"""

from __future__ import annotations

import csv
import json
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SERVING = ROOT / "examples" / "serving" / "campaign"
STEPS = ROOT / "examples" / "campaign"


def sig(v: float) -> str:
    """Three significant digits, as a description writes a figure (written again here on purpose)."""
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


@dataclass
class M:
    """One metric as the test sees it: name, unit, direction, the two arms' values and per-run values."""

    name: str
    unit: str  # 'ms', 's', 'GB', 'output tokens/s', ''
    direction: str
    base: float
    pr: float
    base_runs: list[float] = field(default_factory=list)
    pr_runs: list[float] = field(default_factory=list)
    separated: bool = False  # every run of one arm beyond every run of the other: significant at 5 and 5 runs
    family: str = ""  # the name without its statistic, where it has one: 'TTFT' for 'TTFT p99'
    stat: str = ""  # 'p99', 'p50', 'mean' ...

    @property
    def pct(self) -> float:
        return (self.pr - self.base) / self.base * 100

    @property
    def factor(self) -> float:
        return max(self.base, self.pr) / min(self.base, self.pr)

    def show(self, v: float) -> str:
        if self.unit in ("ms", "s", "GB"):
            return f"{sig(v)} {self.unit}"
        return sig(v)

    @property
    def better_word(self) -> str:
        return "lower" if self.direction == "lower" else "higher"

    @property
    def moved_word(self) -> str:
        return "lower" if self.pr < self.base else "higher"


@dataclass
class Facts:
    campaign: Path
    metrics: list[M]
    headline: list[M]
    screening: list[tuple[M, float, float]]  # (metric, before, after) of each shipped commit's screening
    title: Callable[[M, float, float], str]
    hardware: str = "8 H100"


@dataclass
class Planted:
    kind: str
    text: str
    expect: list[str]  # the finding's fix must name one of these: the figure the data has
    where: str = "sentence"  # 'sentence', 'title', 'row', 'issue'


def _separated(a: list[float], b: list[float]) -> bool:
    return max(a) < min(b) or max(b) < min(a)


def serving_facts() -> Facts:
    spec = yaml.safe_load((SERVING / "metrics.yaml").read_text())
    runs: dict[str, list[dict[str, float]]] = {}
    for arm in ("baseline", "pr"):
        runs[arm] = [json.loads(p.read_text()) for p in sorted((SERVING / "results" / arm).glob("*.json"))]
    metrics = []
    for m in spec["metrics"]:
        col = m["column"]
        b = [r[col] for r in runs["baseline"]]
        p = [r[col] for r in runs["pr"]]
        name = m["name"]
        family, _, stat = name.partition(" p") if " p" in name else (name, "", "")
        metrics.append(
            M(
                name=name,
                unit=m["unit"],
                direction=m.get("direction") or "lower",
                base=statistics.mean(b),
                pr=statistics.mean(p),
                base_runs=b,
                pr_runs=p,
                separated=_separated(b, p),
                family=family,
                stat=f"p{stat}" if stat else "",
            )
        )
    by = {m.name: m for m in metrics}
    heads = [by[m["name"]] for m in spec["metrics"] if m.get("headline")]
    screening = []
    for line in (SERVING / "records" / "candidates.jsonl").read_text().splitlines():
        c = json.loads(line)
        if c.get("shipped") and c.get("kind") != "setting":
            col = c["metric"]
            name = next(m["name"] for m in spec["metrics"] if m["column"] == col)
            screening.append((by[name], c["before"], c["after"]))

    def title(m: M, a: float, b: float) -> str:
        span = f"{sig(a)} to {sig(b)} {m.unit}" if "/" in m.unit else f"{m.name} {m.show(a)} to {m.show(b)}"
        return f"# [perf] Llama-3.1-70B serving on 8 H100: {span} at TP 8, mostly from long prefills"

    return Facts(SERVING, metrics, heads, screening, title)


def steps_facts() -> Facts:
    rows = list(csv.DictReader((STEPS / "benchmark.csv").open()))
    steady: dict[str, list[float]] = {}
    per_run: dict[tuple[str, str], list[float]] = {}
    first: dict[str, list[float]] = {}
    peak: dict[str, float] = {}
    launches: dict[str, list[float]] = {}
    for r in rows:
        arm = r["arm"]
        t = float(r["step_time_s"])
        peak[arm] = max(peak.get(arm, 0.0), float(r["peak_mem_gb"]))
        if r["step"] == "1":
            first.setdefault(arm, []).append(t)
            continue
        steady.setdefault(arm, []).append(t)
        per_run.setdefault((arm, r["run"]), []).append(t)
        launches.setdefault(arm, []).append(float(r["kernel_launches"]))

    def runs(arm: str, f: Callable[[list[float]], float]) -> list[float]:
        return [f(v) for (a, _), v in sorted(per_run.items()) if a == arm]

    mean_b, mean_p = runs("baseline", statistics.mean), runs("pr", statistics.mean)
    metrics = [
        M(
            "mean step time",
            "s",
            "lower",
            statistics.mean(steady["baseline"]),
            statistics.mean(steady["pr"]),
            mean_b,
            mean_p,
            _separated(mean_b, mean_p),
            "step time",
            "mean",
        ),
        M(
            "median step time",
            "s",
            "lower",
            statistics.median(steady["baseline"]),
            statistics.median(steady["pr"]),
            runs("baseline", statistics.median),
            runs("pr", statistics.median),
            False,
            "step time",
            "median",
        ),
        M("peak memory", "GB", "lower", peak["baseline"], peak["pr"]),
        M("first step", "s", "lower", statistics.mean(first["baseline"]), statistics.mean(first["pr"])),
        M("kernel launches", "", "lower", statistics.mean(launches["baseline"]), statistics.mean(launches["pr"])),
    ]
    screening = []
    for line in (STEPS / "records" / "candidates.jsonl").read_text().splitlines():
        c = json.loads(line)
        if c.get("shipped") and c.get("baseline") == "a1b2c3d4e5f6" and "arm" not in c:
            screening.append((metrics[0], c["before"], c["after"]))

    def title(m: M, a: float, b: float) -> str:
        return (
            f"# [perf] Paraformer-large fine-tuning on 8 H100: {sig(a)} s to {sig(b)} s per step, "
            "mostly from encoder recompiles"
        )

    return Facts(STEPS, metrics, metrics[:1], screening, title)


# --- the kinds -----------------------------------------------------------------------------------

Kind = Callable[[random.Random, Facts], "Planted | None"]
KINDS: dict[str, Kind] = {}


def kind(name: str) -> Callable[[Kind], Kind]:
    def put(fn: Kind) -> Kind:
        KINDS[name] = fn
        return fn

    return put


def _pick(rng: random.Random, ms: list[M]) -> M:
    return ms[rng.randrange(len(ms))]


def _distinct(m: M) -> bool:
    """The two arms' values read differently at the precision a description writes them."""
    return m.show(m.base) != m.show(m.pr)


@kind("title before and after swapped")
def _title_swapped(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, f.headline)
    return Planted("title before and after swapped", f.title(m, m.pr, m.base), [sig(m.base)], "title")


@kind("from and to swapped in a sentence")
def _prose_swapped(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, [m for m in f.metrics if _distinct(m)])
    t = rng.choice(
        [
            "On {hw} {name} went from {b} to {a}.",
            "On {hw} this PR takes {name} from {b} to {a}.",
            "{Name} moves from {b} to {a} on {hw}.",
            "With this PR, {name} changes from {b} to {a} on {hw}.",
        ]
    )
    text = t.format(hw=f.hardware, name=m.name, Name=m.name[0].upper() + m.name[1:], a=m.show(m.base), b=m.show(m.pr))
    return Planted("from and to swapped in a sentence", text, [m.show(m.base), m.show(m.pr)])


@kind("the baseline's value given as this PR's")
def _arm_swapped(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, [m for m in f.metrics if _distinct(m)])
    if rng.random() < 0.6:
        t = rng.choice(
            [
                "On {hw} this PR's {name} is {v}.",
                "With this PR, {name} is {v} on {hw}.",
                "On {hw} {name} is now {v} with this PR.",
                "After this PR, {name} reaches {v} on {hw}.",
            ]
        )
        v, right = m.base, m.pr
    else:
        t = rng.choice(["On {hw} the baseline's {name} is {v}.", "Before this PR, {name} was {v} on {hw}."])
        v, right = m.pr, m.base
    return Planted(
        "the baseline's value given as this PR's", t.format(hw=f.hardware, name=m.name, v=m.show(v)), [m.show(right)]
    )


def _factors(f: Facts) -> list[float]:
    return [m.factor for m in f.metrics]


@kind("an unbacked round multiplier")
def _round_multiplier(rng: random.Random, f: Facts) -> Planted:
    n = rng.choice([k for k in (2, 3, 4, 5, 10) if all(abs(k - x) > 0.05 for x in _factors(f))])
    m = _pick(rng, f.headline)
    t = rng.choice(
        [
            "On {hw} this PR is {n}x faster.",
            "On {hw} this PR makes {name} {n}x {w}.",
            "This PR gives a {n}x speedup on {hw}.",
            "On {hw} {name} is {n}x {w} with this PR.",
        ]
    )
    text = t.format(hw=f.hardware, n=n, name=m.name, w=m.moved_word)
    return Planted("an unbacked round multiplier", text, [f"{x.factor:.2f}x" for x in f.headline])


@kind("a multiplier in words")
def _number_words(rng: random.Random, f: Facts) -> Planted:
    words = {2: "two", 3: "three", 4: "four", 5: "five", 7: "seven", 10: "ten"}
    m = _pick(rng, f.headline)
    n = rng.choice([k for k in words if abs(k - m.factor) > 0.05])
    t = rng.choice(
        [
            "On {hw} this PR is twice as fast.",
            "On {hw} {name} is {word} times {w}.",
            "On {hw} this PR makes {name} {word} times {w}.",
            "On {hw} this PR doubles {name}." if m.pr > m.base else "On {hw} this PR halves {name}.",
            "On {hw} {name} is {n} times {w} with this PR.",
            "On {hw} this PR brings a {word}-fold change in {name}.",
        ]
    )
    if t == "On {hw} this PR is twice as fast." and any(abs(x - 2) <= 0.05 for x in _factors(f)):
        t = "On {hw} {name} is {word} times {w}."
    text = t.format(hw=f.hardware, name=m.name, word=words[n], n=n, w=m.moved_word)
    return Planted("a multiplier in words", text, [f"{x.factor:.2f}x" for x in f.headline])


@kind("a percentile called the mean")
def _p_as_mean(rng: random.Random, f: Facts) -> Planted | None:
    tails = [m for m in f.metrics if m.stat.startswith("p") and m.stat != "p50" or m.stat == "median"]
    if not tails:
        return None
    mean_of = {x.family: x for x in f.metrics if x.stat == "mean"}
    tails = [
        t for t in tails if t.family not in mean_of or mean_of[t.family].show(mean_of[t.family].pr) != t.show(t.pr)
    ]
    if not tails:
        return None
    m = _pick(rng, tails)
    family = m.family
    t = rng.choice(
        [
            "On {hw} the mean {fam} fell from {b} to {p}.",
            "On {hw} the mean {fam} is {p} with this PR.",
            "On {hw} the average {fam} drops to {p}.",
            "On {hw} this PR takes the mean {fam} from {b} to {p}.",
        ]
    )
    text = t.format(hw=f.hardware, fam=family, b=m.show(m.base), p=m.show(m.pr))
    mean = next((x for x in f.metrics if x.family == family and x.stat == "mean"), None)
    expect = [mean.show(mean.pr), mean.show(mean.base)] if mean else [m.name]
    return Planted("a percentile called the mean", text, expect)


@kind("'unchanged' on a significant change")
def _unchanged(rng: random.Random, f: Facts) -> Planted | None:
    moved = [m for m in f.metrics if m.separated or abs(m.pct) >= 1.0 and not m.base_runs]
    if not moved:
        return None
    m = _pick(rng, moved)
    t = rng.choice(
        [
            "On {hw} {name} is unchanged.",
            "{Name} stays flat on {hw}.",
            "On {hw} there is no change in {name}.",
            "On {hw} {name} did not change.",
            "This PR leaves {name} unchanged on {hw}.",
            "On {hw} {name} stayed the same.",
        ]
    )
    text = t.format(hw=f.hardware, name=m.name, Name=m.name[0].upper() + m.name[1:])
    return Planted("'unchanged' on a significant change", text, [f"{m.pct:+.1f}%"])


@kind("one metric's change quoted for another")
def _other_change(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, f.metrics)
    others = [o for o in f.metrics if o is not m and abs(abs(o.pct) - abs(m.pct)) > 0.15]
    o = _pick(rng, others)
    t = rng.choice(
        [
            "On {hw} {name} {moves} {v:.1f}%.",
            "On {hw} {name} changes by {sv:+.1f}%.",
            "On {hw} this PR {verb} {name} by {v:.1f}%.",
            "On {hw} {name} is {v:.1f}% {w}.",
        ]
    )
    moves = "rises" if m.pr > m.base else "falls"
    verb = "raises" if m.pr > m.base else "lowers"
    sv = abs(o.pct) if m.pr > m.base else -abs(o.pct)
    text = t.format(hw=f.hardware, name=m.name, moves=moves, v=abs(o.pct), sv=sv, verb=verb, w=m.moved_word)
    return Planted("one metric's change quoted for another", text, [f"{m.pct:+.1f}%"])


@kind("a word of change against the data")
def _direction(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, f.metrics)
    wrong = "fell" if m.pr > m.base else "rose"
    t = rng.choice(["On {hw} {name} {w} {v:.1f}%.", "On {hw} {name} {w} by {v:.1f}% with this PR."])
    text = t.format(hw=f.hardware, name=m.name, w=wrong, v=abs(m.pct))
    return Planted("a word of change against the data", text, [f"{m.pct:+.1f}%"])


@kind("another metric's factor")
def _other_factor(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, f.metrics)
    o = _pick(rng, [o for o in f.metrics if abs(o.factor - m.factor) > 0.01])
    text = rng.choice(["On {hw} {name} is {x:.2f}x {w}.", "On {hw} this PR makes {name} {x:.2f}x {w}."]).format(
        hw=f.hardware, name=m.name, x=o.factor, w=m.moved_word
    )
    return Planted("another metric's factor", text, [f"{m.factor:.2f}x"])


@kind("one run's value given as the result")
def _one_run(rng: random.Random, f: Facts) -> Planted | None:
    cands = []
    for m in f.metrics:
        for arm, runs, v in (("baseline", m.base_runs, m.base), ("pr", m.pr_runs, m.pr)):
            for r in runs:
                if m.show(r) != m.show(v) and all(m.show(r) != m.show(x) for x in (m.base, m.pr)):
                    cands.append((m, arm, r, v))
    if not cands:
        return None
    m, arm, r, v = cands[rng.randrange(len(cands))]
    who = "the baseline's" if arm == "baseline" else "this PR's"
    text = rng.choice(["On {hw} {who} {name} is {r}.", "On {hw} {who} {name} comes to {r} over the runs."]).format(
        hw=f.hardware, who=who, name=m.name, r=m.show(r)
    )
    return Planted("one run's value given as the result", text, [m.show(v)])


@kind("an unbacked percentage")
def _unbacked_pct(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, f.metrics)
    taken = {round(abs(x.pct), 1) for x in f.metrics}
    while True:
        v = round(rng.uniform(5, 60), 1)
        if all(abs(v - t) > 0.3 for t in taken):
            break
    text = rng.choice(["On {hw} {name} improves by {v:.1f}%.", "On {hw} this PR moves {name} {v:.1f}%."]).format(
        hw=f.hardware, name=m.name, v=v
    )
    return Planted("an unbacked percentage", text, [f"{m.pct:+.1f}%"])


@kind("significance claimed against the test")
def _significance(rng: random.Random, f: Facts) -> Planted | None:
    tested = [m for m in f.metrics if m.base_runs and len(m.base_runs) >= 4]
    sig_ = [m for m in tested if m.separated]
    if not sig_:
        return None
    m = _pick(rng, sig_)
    t = rng.choice(
        [
            "On {hw} the change in {name} is not statistically significant.",
            "On {hw} there is no significant difference in {name}.",
            "On {hw} {name} shows no statistically significant change.",
        ]
    )
    return Planted("significance claimed against the test", t.format(hw=f.hardware, name=m.name), ["p = "])


@kind("a screening measurement quoted as the result")
def _screening(rng: random.Random, f: Facts) -> Planted | None:
    usable = [(m, b, a) for m, b, a in f.screening if m.show(a) != m.show(m.pr)]
    if not usable:
        return None
    m, before, after = usable[rng.randrange(len(usable))]
    t = rng.choice(
        [
            "On {hw}, the change that removes it takes {name} from {b} to {a}.",
            "On {hw} this change takes {name} from {b} to {a}.",
        ]
    )
    return Planted(
        "a screening measurement quoted as the result",
        t.format(hw=f.hardware, name=m.name, b=m.show(before), a=m.show(after)),
        [m.show(m.pr)],
        "issue",
    )


@kind("one measurement's figure under the other's name")
def _measurement_swapped(rng: random.Random, f: Facts) -> Planted | None:
    usable = [(m, b, a) for m, b, a in f.screening if m.show(a) != m.show(m.pr)]
    if not usable:
        return None
    m, before, after = usable[rng.randrange(len(usable))]
    if rng.random() < 0.5:
        b, p = m.show(before), m.show(m.pr)
        text = f"On {f.hardware}, in its screening run, the change takes {m.name} from {b} to {p}."
        return Planted("one measurement's figure under the other's name", text, [m.show(after)], "issue")
    text = f"In the confirmation runs on {f.hardware}, {m.name} goes from {m.show(m.base)} to {m.show(after)}."
    return Planted("one measurement's figure under the other's name", text, [m.show(m.pr)])


@kind("a table row's cells swapped")
def _row_swapped(rng: random.Random, f: Facts) -> Planted:
    m = _pick(rng, [m for m in f.metrics if _distinct(m)])
    label = f"{m.name}, {m.unit} ({m.direction} is better)" if m.unit else f"{m.name} ({m.direction} is better)"
    text = f"| {label} | {m.show(m.pr)} | {m.show(m.base)} | {m.pct:+.1f}% |"
    return Planted("a table row's cells swapped", text, [m.show(m.base), m.show(m.pr)], "row")


@kind("another statistic's figures")
def _other_stat(rng: random.Random, f: Facts) -> Planted | None:
    pairs = [
        (m, o)
        for m in f.metrics
        for o in f.metrics
        if m is not o and m.family and m.family == o.family and m.stat and o.stat and m.show(o.base) != m.show(m.base)
    ]
    if not pairs:
        return None
    m, o = pairs[rng.randrange(len(pairs))]
    word = {"mean": "mean", "median": "median", "p50": "median"}.get(m.stat, m.stat)
    t = rng.choice(
        [
            "On {hw} the {w} {fam} falls from {b} to {p}.",
            "On {hw} the {w} {fam} of the baseline is {b}.",
            "On {hw} this PR takes the {w} {fam} from {b} to {p}.",
        ]
    )
    text = t.format(hw=f.hardware, w=word, fam=m.family, b=o.show(o.base), p=o.show(o.pr))
    return Planted("another statistic's figures", text, [m.show(m.base), m.show(m.pr)])


@kind("a claim about a metric the campaign did not measure")
def _unmeasured(rng: random.Random, f: Facts) -> Planted | None:
    names = {m.family.lower() for m in f.metrics} | {m.name.lower() for m in f.metrics}
    absent = [n for n in ("TPOT", "mean TPOT", "end-to-end latency", "e2e latency") if n.lower() not in names]
    if not absent or f.campaign != SERVING:
        return None
    text = rng.choice(["On {hw} {n} is unchanged.", "On {hw} {n} stays flat with this PR."]).format(
        hw=f.hardware, n=rng.choice(absent)
    )
    return Planted("a claim about a metric the campaign did not measure", text, ["did not measure"])


def corpus(facts: Facts, seeds: range) -> list[Planted]:
    """Every kind, once per seed, with the metric and arm each seed picks."""
    out: list[Planted] = []
    seen: set[str] = set()
    for seed in seeds:
        rng = random.Random(seed)
        for fn in KINDS.values():
            p = fn(rng, facts)
            if p is not None and p.text not in seen:
                seen.add(p.text)
                out.append(p)
    return out


def controls(f: Facts) -> list[str]:
    """Right sentences in the same shapes: none may be reported."""
    out = []
    for m in f.metrics:
        a, b = m.show(m.base), m.show(m.pr)
        moved = "rose" if m.pr > m.base else "fell"
        verb = "raises" if m.pr > m.base else "lowers"
        Name = m.name[0].upper() + m.name[1:]
        out += [
            f"On {f.hardware} {m.name} went from {a} to {b}.",
            f"On {f.hardware} this PR takes {m.name} from {a} to {b}.",
            f"{Name} moves from {a} to {b} on {f.hardware}.",
            f"On {f.hardware} this PR's {m.name} is {b}.",
            f"On {f.hardware} the baseline's {m.name} is {a}.",
            f"Before this PR, {m.name} was {a} on {f.hardware}; with it, {b}.",
            f"On {f.hardware} {m.name} {moved} {abs(m.pct):.1f}%.",
            f"On {f.hardware} this PR {verb} {m.name} by {abs(m.pct):.1f}%.",
            f"On {f.hardware} {m.name} changes by {m.pct:+.1f}%.",
            f"On {f.hardware} {m.name} is {m.factor:.2f}x {m.moved_word}.",
            f"On {f.hardware} {m.name} {moved} {abs(m.pct):.1f}%, from {a} to {b}.",
        ]
        if m.base_runs:
            out.append(f"On {f.hardware} the baseline's {m.name} in run 1 is {m.show(m.base_runs[0])}.")
            lo, hi = m.show(min(m.pr_runs)), m.show(max(m.pr_runs))
            out.append(f"On {f.hardware} this PR's per-run {m.name} ranges from {lo} to {hi}.")
        if m.separated:
            out.append(f"On {f.hardware} the change in {m.name} is statistically significant.")
    for m, before, after in f.screening:
        b, a = m.show(before), m.show(after)
        out.append(f"On {f.hardware}, in its screening run, the change takes {m.name} from {b} to {a}.")
    return out
