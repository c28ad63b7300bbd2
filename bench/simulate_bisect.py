"""The bisect strategies against a check that lies: accuracy, runs and installs over many seeds.

Drives the real strategy code (perfkit.bisect.search.bisection, perfkit.bisect.search.noisy) with a fake
check: a linear history of N commits, a planted first bad commit, verdicts flipped at random
(symmetric or one-sided rates), blocks of commits that always crash. Costs are fake but shaped
like a two-level project: the runtime pointer moves every 32 commits, and a point whose pointer
differs from the installed one needs a runtime install. Side by side in the same run:

- today: plain halving (perfkit's default strategy; with a skip, today's pre-change code),
- repeat3: halving with every point run three times, majority verdict,
- rbs: the robust-binary-search idea re-implemented as the anchor: weights over positions,
  query the weighted median, weights of positions a verdict contradicts multiplied by
  e / (1 - e) (told the true rate), stop when one position holds the same confidence,
- noisy: perfkit's noise-aware search, told the rates, or with the rates left unknown (integrated
  over their prior: the default), and the point estimate it replaced (rates fixed by two rounds of
  expectation-maximisation, then trusted),
- for skips also `git bisect`: midpoints and git's skip_away jump (its pseudo-random generator).

Then a replay on the real pypto pointer history (fixture pypto-history): level 1 over the 852
commits from the submodule's addition to the tip with their real pointers, level 2 over the 26
runtime commits inside the pointer-only bump #1112, every culprit position.

Accuracy comes with its 95% Wilson interval: at 99.5% the standard error of 1,000 seeds is 0.22
points, so the 5%/5% cases that decide the target run 10,000 seeds. Cases run in worker processes
(fork), each seed range of each method a task, so results do not depend on --jobs.

Usage: python bench/simulate_bisect.py [--quick] [--cells 5/5,skips] [--sizes 1000] [--methods estimated]
       [--seeds N] [--target-seeds N] [--jobs 2] [--out FILE]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from perfkit.bisect.search.bisection import Bisection, Decision, Mark, by_distance, expected_tests  # noqa: E402
from perfkit.bisect.search.noise_plan import END_RUNS  # noqa: E402
from perfkit.bisect.search.noisy import (  # noqa: E402
    Adaptive,
    NoisySearch,
    Posterior,
    _Counts,
    contradiction,
    posterior,
)
from perfkit.bisect.search.rate_prior import RatePrior  # noqa: E402
from wilson import wilson  # noqa: E402

FIXTURE = Path(os.environ.get("PERFKIT_PYPTO_FIXTURE", ROOT / "tests" / "fixtures" / "pypto-history"))
ADD = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"
BUMP_OLD, BUMP_NEW = "66e7c901882958c2c936c8aa1ef167706def8f2f", "0304adf6eba55ae6e088dded2f3e77b5c72fea96"
CONFIDENCE = 0.99
PRIOR_RATE, PRIOR_WEIGHT = 0.05, 20.0  # the point estimate's prior (before the rates were integrated out)


@dataclass(frozen=True)
class PointEstimate(NoisySearch):
    """The search before the rates were integrated out: two rounds of expectation-maximisation fix
    each unknown rate at a point estimate (prior 5%, weight 20), then the posterior trusts it."""

    def posterior(self, n: int, counts: dict[int, _Counts]) -> Posterior:
        a = PRIOR_RATE if self.to_old is None else self.to_old
        b = PRIOR_RATE if self.to_new is None else self.to_new
        for _ in range(2):
            post = posterior(n, counts, a, b)
            flips_new = flips_old = seen_old = seen_new = 0.0
            for i, c in counts.items():
                f = 1.0 if i >= n - 1 else post.f(i)  # P(i is truly new)
                flips_new += c.new * (1 - f)
                flips_old += c.old * f
                seen_old += (c.new + c.old) * (1 - f)
                seen_new += (c.new + c.old) * f
            if self.to_old is None:
                a = (PRIOR_RATE * PRIOR_WEIGHT + flips_old) / (PRIOR_WEIGHT + seen_new)
            if self.to_new is None:
                b = (PRIOR_RATE * PRIOR_WEIGHT + flips_new) / (PRIOR_WEIGHT + seen_old)
        return posterior(n, counts, min(max(a, 0.001), 0.4), min(max(b, 0.001), 0.4))


@dataclass
class World:
    """One planted culprit: k is the first new index; flips and crashes as configured."""

    n: int
    k: int
    to_new: float  # P(a truly old point reads new): flaky fail for a regression
    to_old: float  # P(a truly new point reads old): flaky pass
    rng: random.Random
    crash: set[int] = field(default_factory=set)
    pointer: Callable[[int], int] = lambda i: i // 32
    runs: int = 0
    installs: int = 0
    skips: int = 0
    installed: int | None = None
    stated: float | None = None  # the confidence the answer stated, when it named one commit

    def check(self, i: int) -> Mark:
        self.runs += 1
        if self.pointer(i) != self.installed:
            self.installs += 1
            self.installed = self.pointer(i)  # a crash is in the run: the install stays
        if i in self.crash:
            self.skips += 1
            return "skip"
        if i >= self.k:
            return "old" if self.rng.random() < self.to_old else "new"
        return "new" if self.rng.random() < self.to_new else "old"

    def cheap(self, i: int) -> bool:
        return self.installed is not None and self.pointer(i) == self.installed


Answer = tuple[int | None, list[int]]


def run_strategy(strategy: object, w: World, use_cheap: bool = True, group: bool = False) -> Answer:
    marks: dict[int, list[Mark]] = {}
    while True:
        d: Decision = strategy.decide(  # type: ignore[attr-defined]  # any object with decide
            w.n, marks, w.cheap if use_cheap and w.installed is not None else None, w.pointer if group else None
        )
        if not d.test:
            return d.found, d.candidates
        if w.runs > 50 * max(20, w.n.bit_length()) + w.n:
            raise RuntimeError("runaway search")
        i = d.test[0]
        marks.setdefault(i, []).append(w.check(i))


@dataclass(frozen=True)
class ConfirmedOnce:
    """The default before the confidence rule: halving, then the culprit and its parent once more; the
    noise-aware search (prior mean 5%, worth 40) only after verdicts contradicted each other."""

    def decide(self, n: int, marks: dict, cheap: object = None, group: object = None) -> Decision:
        fallback = NoisySearch(CONFIDENCE, prior=RatePrior(((1.0, 0.05, 40.0),)))
        if contradiction(n, marks) is not None:
            return fallback.decide(n, marks)
        d = Bisection().decide(n, marks)
        if d.test or d.found is None:
            return d
        again = [i for i in (d.found, d.found - 1) if len([v for v in marks.get(i, []) if v != "skip"]) == 1]
        return Decision(test=again) if again else d


def with_ends(strategy: object, w: World, end_runs: int) -> Answer:
    """As the CLI runs a bisect: each end first, an end that disagrees run again up to end_runs times (the
    bisect stops, naming nothing, when every run of it disagreed), then the search with the ends' runs as
    evidence."""
    marks: dict[int, list[Mark]] = {}
    for i, want in ((-1, "old"), (w.n - 1, "new")):
        runs = marks.setdefault(i, [])
        while len(runs) < end_runs and want not in runs:
            runs.append(w.check(i))
            if runs[-1] == want:
                break
        if want not in runs:
            return None, []
    while True:
        d: Decision = strategy.decide(w.n, marks)  # type: ignore[attr-defined]  # any object with decide
        if not d.test:
            w.stated = d.confidence if d.found is not None else None
            return d.found, d.candidates
        if w.runs > 50 * max(20, w.n.bit_length()) + w.n:
            raise RuntimeError("runaway search")
        i = d.test[0]
        marks.setdefault(i, []).append(w.check(i))


def repeat3(w: World) -> Answer:
    marks: dict[int, Mark] = {}
    while True:
        d = Bisection(max_skips=10**9).decide(w.n, marks)
        if not d.test:
            return d.found, d.candidates
        i = d.test[0]
        votes = [w.check(i) for _ in range(3)]
        news, olds = votes.count("new"), votes.count("old")
        marks[i] = "skip" if not news + olds else "new" if news > olds else "old"


def rbs(w: World, confidence: float = CONFIDENCE) -> Answer:
    """Weighted-median queries with multiplicative weights (the anchor), repeats allowed."""
    counts: dict[int, _Counts] = {}
    e_new, e_old = max(w.to_new, 1e-3), max(w.to_old, 1e-3)
    while True:
        post = posterior(w.n, counts, e_old, e_new)
        top = max(range(len(post.per_k)), key=lambda j: post.per_k[j])
        if post.per_k[top] >= confidence and post.bounds[top + 1] - post.bounds[top] == 1:
            return post.bounds[top + 1], []
        lo, hi = 0, w.n - 2  # the weighted median: the first i with P(k <= i) >= 1/2
        while lo < hi:
            mid = (lo + hi) // 2
            if post.f(mid) >= 0.5:
                hi = mid
            else:
                lo = mid + 1
        if lo > 0 and abs(post.f(lo - 1) - 0.5) < abs(post.f(lo) - 0.5):
            lo -= 1  # of the two indices around the median, the one that splits nearer half
        v = w.check(lo)
        c = counts.setdefault(lo, _Counts())
        if v == "new":
            c.new += 1
        elif v == "old":
            c.old += 1


def _prn(count: int) -> int:
    """git's get_prn: a 32-bit linear congruential step, as bisect.c computes it."""
    x = (count * 1103515245 + 12345) & 0xFFFFFFFF
    x = x - (1 << 32) if x >= 1 << 31 else x
    q = int(x / 65536)  # C division truncates towards zero
    return q % 32768 if q >= 0 else -((-q) % 32768)


def git_bisect(w: World) -> Answer:
    """git bisect run on a linear history: the best midpoint, skip_away when it is skipped."""
    lo, hi, skipped = -1, w.n - 1, set()
    while hi - lo > 1:
        mid = (lo + hi) / 2
        pick = next((i for i in by_distance(lo, hi, mid) if i not in skipped), None)
        if pick is None:
            return None, list(range(lo + 1, hi + 1))
        if next(by_distance(lo, hi, mid)) in skipped:  # the best point is skipped: git's skip_away
            ranked = list(by_distance(lo, hi, mid))
            count = len(ranked)
            prn = abs(_prn(count))
            index = (count * prn // 32768) * math.isqrt(prn) // math.isqrt(32768)
            pick = next((i for i in ranked[index:] if i not in skipped), pick)
        v = w.check(pick)
        if v == "skip":
            skipped.add(pick)
        elif v == "new":
            hi = pick
        else:
            lo = pick
    return hi, []


def today_with_skips(w: World) -> Answer:
    """The strategy before this change (nearest open point to the middle, cheap preferred in the
    worst-case window, no budget), kept here to measure what the skip rules changed."""
    marks: dict[int, Mark] = {}
    while True:
        hi = min([i for i, m in marks.items() if m == "new"] + [w.n - 1])
        lo = max([i for i, m in marks.items() if m == "old" and i < hi] + [-1])
        if hi - lo == 1:
            return hi, []
        open_ = [i for i in range(lo + 1, hi) if i not in marks]
        if not open_:
            return None, list(range(lo + 1, hi + 1))
        mid, budget = (lo + hi) / 2, expected_tests(hi - lo)
        half = 2 ** (budget - 1)
        pool = [i for i in open_ if i - lo <= half and hi - i <= half] or open_
        if w.installed is not None:
            pool = [i for i in pool if w.cheap(i)] or pool
        i = min(pool, key=lambda j: (abs(j - mid), j))
        marks[i] = w.check(i)


# ---- cells ----------------------------------------------------------------------------------------


@dataclass
class Row:
    cell: str
    method: str
    n: int
    right: int = 0
    total: int = 0
    runs: list[int] = field(default_factory=list)
    installs: list[int] = field(default_factory=list)
    skips: list[int] = field(default_factory=list)
    sure_wrong: int = 0  # named a wrong commit at a stated confidence of at least CONFIDENCE

    def add(self, other: Row) -> None:
        self.right += other.right
        self.total += other.total
        self.sure_wrong += other.sure_wrong
        self.runs += other.runs
        self.installs += other.installs
        self.skips += other.skips

    def line(self) -> str:
        r = sorted(self.runs)
        p95 = r[min(len(r) - 1, int(0.95 * len(r)))]
        mean = statistics.mean(r)
        per = mean / math.log2(self.n) if self.n > 1 else 0.0
        lo, hi = wilson(self.right, self.total)
        return (
            f"| {self.cell} | {self.method} | {100 * self.right / self.total:.2f}% | {100 * lo:.2f} to {100 * hi:.2f} "
            f"| {mean:.2f} | {p95} | {per:.3f} | {statistics.mean(self.installs):.1f} | "
            f"{statistics.mean(self.skips):.1f} | {self.sure_wrong} |"
        )


def plant(n: int, seed: int, crash: int) -> tuple[int, set[int], Callable[[int], int] | None]:
    """The culprit and the crash block of one seed (the same for every method)."""
    plan = random.Random(seed * 7919 + n)
    k = plan.randrange(n)
    if not crash:
        return k, set(), None
    start = plan.randrange(0, max(1, n - 1 - crash))
    block = set(range(start, start + crash))

    def pointer(i: int, b: set[int] = block, p: int = -1 - start) -> int:
        return p if i in b else i // 32

    return k, block, pointer


def cell(n: int, to_new: float, to_old: float, seeds: range, name: str, method: Method, crash: int = 0) -> Row:
    label = f"N={n}, flips {to_new:.0%}/{to_old:.0%}" + (f", crash block {crash}" if crash else "")
    row = Row(label, name, n)
    for seed in seeds:
        k, block, pointer = plant(n, seed, crash)
        w = World(n, k, to_new, to_old, random.Random(seed), crash=block)
        if pointer is not None:
            w.pointer = pointer
        found, cands = method(w)
        row.total += 1
        row.right += found == k or (found is None and k in cands and len(cands) <= crash + 1)
        row.sure_wrong += found is not None and found != k and (w.stated or 0) >= CONFIDENCE
        row.runs.append(w.runs)
        row.installs.append(w.installs)
        row.skips.append(w.skips)
    return row


Method = Callable[[World], Answer]
TOLD, ESTIMATED = "noisy, told the rates", "noisy, rates estimated (default)"
EM = "noisy, rates estimated, EM point estimate (before)"
FULL = ("today (plain halving)", "repeat each test 3 times", "rbs anchor (told the rate)", TOLD)
DEFAULT = "default settings (halving, confirmed at the confidence; noise-aware on a contradiction)"
CLI = "default settings, end checks run (as the CLI runs it)"
BEFORE = "before the confidence rule: halving confirmed once, end checks run"


def noise_methods(to_new: float, to_old: float, cheap: bool = False) -> dict[str, Method]:
    """Synthetic cells compare runs, so no method is told which points are cheap (cheap=False);
    the replay on the real pointer history passes cheap to perfkit's strategies, as the engine does."""
    told = NoisySearch(CONFIDENCE, to_old=to_old, to_new=to_new)
    return {
        "today (plain halving)": lambda w: run_strategy(Bisection(), w, cheap),
        "repeat each test 3 times": repeat3,
        "rbs anchor (told the rate)": rbs,
        TOLD: lambda w: run_strategy(told, w, cheap),
        ESTIMATED: lambda w: run_strategy(NoisySearch(CONFIDENCE), w, cheap),
        EM: lambda w: run_strategy(PointEstimate(CONFIDENCE), w, cheap),
        "noisy 0.995, told": lambda w: run_strategy(NoisySearch(0.995, to_old=to_old, to_new=to_new), w, cheap),
        "noisy 0.995, estimated": lambda w: run_strategy(NoisySearch(0.995), w, cheap),
        DEFAULT: lambda w: run_strategy(Adaptive(), w, cheap),
        CLI: lambda w: with_ends(Adaptive(), w, END_RUNS),
        BEFORE: lambda w: with_ends(ConfirmedOnce(), w, 2),
    }


def skip_methods() -> dict[str, Method]:
    return {
        "today (before the skip rules)": today_with_skips,
        "git bisect run": git_bisect,
        "perfkit halving (skip rules)": lambda w: run_strategy(Bisection(), w, group=True),
        "perfkit noisy (skip rules)": lambda w: run_strategy(NoisySearch(CONFIDENCE), w, group=True),
    }


# ---- the real pointer history ---------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def pypto_pointers(base: Path) -> tuple[list[int], int]:
    """Level-1 pointers of the real history as small ints, and the length of bump #1112 in simpler."""
    git(base, "clone", "-q", "--bare", str(FIXTURE / "pypto.bundle"), "pypto.git")
    git(base, "clone", "-q", "--bare", str(FIXTURE / "simpler.bundle"), "simpler.git")
    repo, sub = base / "pypto.git", base / "simpler.git"
    tip = git(repo, "rev-parse", "HEAD").strip()
    items = git(repo, "rev-list", "--first-parent", "--reverse", f"{ADD}..{tip}").split()
    out = git(repo, "log", "--first-parent", "--reverse", "--format=C %H", "--raw", "--no-abbrev", f"{ADD}..{tip}")
    moves, commit = {}, ""
    for line in out.splitlines():
        if line.startswith("C "):
            commit = line[2:].strip()
        elif line.startswith(":") and line.rstrip().endswith("\truntime"):
            moves[commit] = line.split()[3]
    current = git(repo, "rev-parse", f"{ADD}:runtime").strip()
    ids: dict[str, int] = {}
    ptrs = []
    for c in items:
        current = moves.get(c, current)
        ptrs.append(ids.setdefault(current, len(ids)))
    level2 = len(git(sub, "rev-list", "--first-parent", f"{BUMP_OLD}..{BUMP_NEW}").split())
    return ptrs, level2


def replay(ptrs: list[int] | None, n: int, to: float, positions: range, reps: int, label: str, name: str) -> Row:
    """Every culprit position in `positions`, `reps` seeds each; level 2 (ptrs None) installs at every commit."""
    method = noise_methods(to, to, cheap=True)[name]
    row = Row(f"{label}, flips {to:.0%}", name, n)
    for k in positions:
        for seed in range(reps):
            w = World(n, k, to, to, random.Random(seed * 131 + k))
            w.pointer = ptrs.__getitem__ if ptrs is not None else (lambda i: i)
            found, _ = method(w)
            row.total += 1
            row.right += found == k
            row.runs.append(w.runs)
            row.installs.append(w.installs)
            row.skips.append(w.skips)
    return row


# ---- the plan, run in worker processes ------------------------------------------------------------

SIZES = [100, 1000, 10_000, 100_000]
FIVE = (*FULL, ESTIMATED, EM, DEFAULT)
FLIP_CELLS = ((0, 0), (0.01, 0.01), (0.05, 0.05), (0.10, 0.10), (0.05, 0), (0, 0.05), (0.10, 0), (0, 0.10))
CELLS: dict[str, list[tuple[list[int], float, float, tuple[str, ...]]]] = {
    "0/0": [(SIZES, 0, 0, ("today (plain halving)", ESTIMATED, DEFAULT))],
    "1/1": [([1000, 10_000], 0.01, 0.01, (*FULL, ESTIMATED))],
    "5/5": [(SIZES, 0.05, 0.05, FIVE)],
    "0.995": [(SIZES, 0.05, 0.05, ("noisy 0.995, told", "noisy 0.995, estimated"))],
    "10/10": [([1000, 10_000], 0.10, 0.10, (*FULL, ESTIMATED, EM, DEFAULT))],
    "5/0": [([1000], 0.05, 0, (*FULL, ESTIMATED, EM))],
    "0/5": [([1000], 0, 0.05, (*FULL, ESTIMATED, EM))],
    # the default as the CLI runs it, end checks included, at the sizes of the CLI harness and beyond
    "cli": [([128, 1024], fail, passed, (CLI, BEFORE)) for fail, passed in FLIP_CELLS],
}
SKIP_CASES = [(100, 28), (852, 28), (10_000, 200)]
REPLAY = ("today (plain halving)", "repeat each test 3 times", "rbs anchor (told the rate)", TOLD, ESTIMATED)
_PTRS: list[int] = []  # the pypto level-1 pointers, read once before the workers start


@dataclass(frozen=True)
class Task:
    order: int
    kind: str  # "noise", "skips", "replay1", "replay2"
    n: int
    to_new: float
    to_old: float
    method: str
    seeds: range
    crash: int = 0


def work(t: Task) -> tuple[int, Row]:
    if t.kind == "noise":
        return t.order, cell(t.n, t.to_new, t.to_old, t.seeds, t.method, noise_methods(t.to_new, t.to_old)[t.method])
    if t.kind == "skips":
        return t.order, cell(t.n, 0, 0, t.seeds, t.method, skip_methods()[t.method], crash=t.crash)
    if t.kind == "replay1":
        label = f"pypto level 1 (N={t.n})"
        return t.order, replay(_PTRS, t.n, t.to_new, t.seeds, t.crash, label, t.method)
    return t.order, replay(None, t.n, t.to_new, t.seeds, t.crash, f"pypto level 2, #1112 (N={t.n})", t.method)


def chunks(seeds: int, size: int) -> list[range]:
    return [range(lo, min(seeds, lo + size)) for lo in range(0, seeds, size)]


def plan(cells: list[str], sizes: set[int] | None, seeds: int, target_seeds: int, level2: int, reps: int) -> list[Task]:
    """Tasks in table order; seed ranges split so two processes share the long cells evenly."""
    tasks: list[Task] = []
    for name in cells:
        for ns, to_new, to_old, methods in CELLS.get(name, []):
            count = target_seeds if name == "5/5" else seeds
            for n in ns:
                if sizes and n not in sizes:
                    continue
                for m in methods:
                    order = len(tasks)
                    tasks += [Task(order, "noise", n, to_new, to_old, m, r) for r in chunks(count, 500)]
    if "skips" in cells:
        for n, block in SKIP_CASES:
            for m in skip_methods():
                order = len(tasks)
                tasks += [Task(order, "skips", n, 0, 0, m, r, crash=block) for r in chunks(seeds, 250)]
    if "replay" in cells and _PTRS:
        for to in (0.0, 0.05):
            for kind, n, r in (("replay1", len(_PTRS), reps), ("replay2", level2, reps * 20)):
                for m in REPLAY if to else REPLAY[:1] + (ESTIMATED,):
                    order = len(tasks)
                    tasks += [Task(order, kind, n, to, to, m, p, crash=r) for p in chunks(n, 100)]
    return tasks


def storm_lines() -> list[str]:
    lines = []
    for name, method in skip_methods().items():
        w = World(100, 50, 0, 0, random.Random(0), crash=set(range(0, 99)))
        found, cands = method(w)
        lines.append(f"| {name} | {w.runs} | {w.skips} | {len(cands) if found is None else 1} |")
    return lines


HEADER = (
    "| case | method | right | 95% interval | mean runs | p95 runs | runs / log2 N | runtime installs | skips "
    "| wrong at >= 0.99 stated |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)
ALL_CELLS = [*CELLS, "skips", "storm", "replay"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="few seeds: a smoke test")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per case (default 1,000)")
    ap.add_argument("--target-seeds", type=int, default=None, help="seeds per 5%%/5%% case (default 10,000)")
    ap.add_argument("--cells", default=",".join(ALL_CELLS), help=f"comma-separated subset of {','.join(ALL_CELLS)}")
    ap.add_argument("--sizes", default="", help="comma-separated N to keep in the synthetic cases (default all)")
    ap.add_argument(
        "--methods", default="", help="keep only methods whose name contains one of these (comma-separated)"
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    seeds = args.seeds or (20 if args.quick else 1000)
    target_seeds = args.target_seeds or (20 if args.quick else 10_000)
    cells = [c.strip() for c in args.cells.split(",") if c.strip()]
    unknown = set(cells) - set(ALL_CELLS)
    if unknown:
        ap.error(f"unknown cells {sorted(unknown)}; choose from {ALL_CELLS}")
    sizes = {int(x) for x in args.sizes.split(",") if x.strip()} or None
    started = time.perf_counter()
    level2, reps = 0, 1 if args.quick else 2
    if "replay" in cells and (FIXTURE / "pypto.bundle").exists():
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            ptrs, level2 = pypto_pointers(Path(tmp))
        _PTRS[:] = ptrs
    tasks = plan(cells, sizes, seeds, target_seeds, level2, reps)
    keep = [m.strip() for m in args.methods.split(",") if m.strip()]
    tasks = [t for t in tasks if not keep or any(m in t.method for m in keep)]
    rows: dict[int, Row] = {}
    with multiprocessing.get_context("fork").Pool(max(1, args.jobs)) as pool:
        for done, (order, row) in enumerate(pool.imap_unordered(work, tasks), start=1):
            if order in rows:
                rows[order].add(row)
            else:
                rows[order] = row
            if done % 50 == 0 or done == len(tasks):
                print(f"  {done}/{len(tasks)} tasks at {time.perf_counter() - started:.0f}s", file=sys.stderr)
    kinds = {t.order: t.kind for t in tasks}
    out = [f"seeds per case: {seeds} ({target_seeds} at 5%/5%); confidence {CONFIDENCE} unless named", ""]
    titles = {
        "noise": "",
        "skips": "Skips: a block of commits pinning one runtime that crashes (a skip at every one of them).",
        "replay1": f"Replay on the pypto pointer history, every culprit position x {reps} seeds "
        f"(level 2: x {reps * 20}).",
    }
    last = None
    for order in sorted(rows):
        kind = "replay1" if kinds[order] == "replay2" else kinds[order]
        if kind != last:
            out += ([titles[kind], ""] if titles[kind] else []) + [HEADER]
            last = kind
        out.append(rows[order].line())
    if "storm" in cells:
        out += [
            "",
            "Skip storm: 100 commits, the run command broken everywhere but the two ends.",
            "",
            "| method | runs | skips | commits named |",
            "|---|---|---|---|",
            *storm_lines(),
        ]
    if "replay" in cells and not _PTRS:
        out += ["", f"pypto-history fixture not found at {FIXTURE}: replay skipped"]
    out += ["", f"simulated in {time.perf_counter() - started:.0f}s with {args.jobs} processes"]
    text = "\n".join(out)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
