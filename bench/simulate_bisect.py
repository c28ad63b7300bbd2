"""The bisect strategies against a check that lies: accuracy, runs and installs over many seeds.

Drives the real strategy code (perfkit.bisect.search, perfkit.bisect.noisy_search) with a fake
check: a linear history of N commits, a planted first bad commit, verdicts flipped at random
(symmetric or one-sided rates), blocks of commits that always crash. Costs are fake but shaped
like a two-level project: the runtime pointer moves every 32 commits, and a point whose pointer
differs from the installed one needs a runtime install. Side by side in the same run:

- today: plain halving (perfkit's default strategy; with a skip, today's pre-change code),
- repeat3: halving with every point run three times, majority verdict,
- rbs: the robust-binary-search idea re-implemented as the anchor: weights over positions,
  query the weighted median, weights of positions a verdict contradicts multiplied by
  e / (1 - e) (told the true rate), stop when one position holds the same confidence,
- noisy: perfkit's noise-aware search (told the rates, and with the rates left to estimate),
- for skips also `git bisect`: midpoints and git's skip_away jump (its pseudo-random generator).

Then a replay on the real pypto pointer history (fixture pypto-history): level 1 over the 852
commits from the submodule's addition to the tip with their real pointers, level 2 over the 26
runtime commits inside the pointer-only bump #1112, every culprit position.

Usage: python bench/simulate_bisect.py [--quick] [--seeds N] [--out FILE]
"""

from __future__ import annotations

import argparse
import math
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

from perfkit.bisect.noisy_search import Adaptive, NoisySearch, posterior  # noqa: E402
from perfkit.bisect.search import Bisection, Decision, Mark, by_distance, expected_tests  # noqa: E402

FIXTURE = Path(os.environ.get("PERFKIT_PYPTO_FIXTURE", ROOT.parent / "shared" / "fixtures" / "pypto-history"))
ADD = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"
BUMP_OLD, BUMP_NEW = "66e7c901882958c2c936c8aa1ef167706def8f2f", "0304adf6eba55ae6e088dded2f3e77b5c72fea96"
CONFIDENCE = 0.99


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
    from perfkit.bisect.noisy_search import _Counts

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
    right: int = 0
    total: int = 0
    runs: list[int] = field(default_factory=list)
    installs: list[int] = field(default_factory=list)
    skips: list[int] = field(default_factory=list)

    def line(self, n: int) -> str:
        r = sorted(self.runs)
        p95 = r[min(len(r) - 1, int(0.95 * len(r)))]
        mean = statistics.mean(r)
        per = mean / math.log2(n) if n > 1 else 0.0
        return (
            f"| {self.cell} | {self.method} | {100 * self.right / self.total:.1f}% | {mean:.1f} | {p95} | "
            f"{per:.2f} | {statistics.mean(self.installs):.1f} | {statistics.mean(self.skips):.1f} |"
        )


def cell(
    n: int, to_new: float, to_old: float, seeds: int, methods: dict[str, Callable[[World], Answer]], crash: int = 0
) -> list[Row]:
    label = f"N={n}, flips {to_new:.0%}/{to_old:.0%}" + (f", crash block {crash}" if crash else "")
    rows = {m: Row(label, m) for m in methods}
    for seed in range(seeds):
        plan = random.Random(seed * 7919 + n)
        k = plan.randrange(n)
        block: set[int] = set()
        if crash:
            start = plan.randrange(0, max(1, n - 1 - crash))
            block = set(range(start, start + crash))
            pointer_of_block = -1 - start

            def pointer(i: int, b: set[int] = block, p: int = pointer_of_block) -> int:
                return p if i in b else i // 32

        for name, method in methods.items():
            w = World(n, k, to_new, to_old, random.Random(seed), crash=block)
            if crash:
                w.pointer = pointer
            found, cands = method(w)
            row = rows[name]
            row.total += 1
            row.right += found == k or (found is None and k in cands and len(cands) <= crash + 1)
            row.runs.append(w.runs)
            row.installs.append(w.installs)
            row.skips.append(w.skips)
    return list(rows.values())


def noise_methods(to_new: float, to_old: float, cheap: bool = False) -> dict[str, Callable[[World], Answer]]:
    """Synthetic cells compare runs, so no method is told which points are cheap (cheap=False);
    the replay on the real pointer history passes cheap to perfkit's strategies, as the engine does."""
    told = NoisySearch(CONFIDENCE, to_old=to_old, to_new=to_new)
    return {
        "today (plain halving)": lambda w: run_strategy(Bisection(), w, cheap),
        "repeat each test 3 times": repeat3,
        "rbs anchor (told the rate)": rbs,
        "noisy, told the rates": lambda w: run_strategy(told, w, cheap),
        "noisy, rates estimated": lambda w: run_strategy(NoisySearch(CONFIDENCE), w, cheap),
        "noisy 0.995, told": lambda w: run_strategy(NoisySearch(0.995, to_old=to_old, to_new=to_new), w, cheap),
    }


def skip_methods() -> dict[str, Callable[[World], Answer]]:
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


def replay(ptrs: list[int] | None, n: int, to: float, seeds: int, label: str) -> list[Row]:
    methods = noise_methods(to, to, cheap=True)
    if not to:
        methods = {k: v for k, v in methods.items() if k in ("today (plain halving)", "noisy, rates estimated")}
    rows = {m: Row(f"{label}, flips {to:.0%}", m) for m in methods}
    for k in range(n):
        for seed in range(seeds):
            for name, method in methods.items():
                w = World(n, k, to, to, random.Random(seed * 131 + k))
                if ptrs is not None:
                    w.pointer = ptrs.__getitem__
                else:
                    w.pointer = lambda i: i  # level 2: every runtime commit is its own install
                found, _ = method(w)
                row = rows[name]
                row.total += 1
                row.right += found == k
                row.runs.append(w.runs)
                row.installs.append(w.installs)
                row.skips.append(w.skips)
    return list(rows.values())


HEADER = (
    "| case | method | right | mean runs | p95 runs | runs / log2 N | runtime installs | skips |\n"
    "|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="few seeds: a smoke test")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    seeds = args.seeds or (20 if args.quick else 1000)
    sizes = [100, 1000, 10_000, 100_000]
    started = time.perf_counter()
    out = [f"seeds per cell: {seeds}; confidence {CONFIDENCE} unless named", "", HEADER]
    full = ("today (plain halving)", "repeat each test 3 times", "rbs anchor (told the rate)", "noisy, told the rates")
    plan: list[tuple[list[int], float, float, tuple[str, ...]]] = [
        (sizes, 0, 0, ("today (plain halving)", "noisy, rates estimated")),
        ([1000, 10_000], 0.01, 0.01, full),
        (sizes, 0.05, 0.05, (*full, "noisy, rates estimated", "noisy 0.995, told")),
        ([1000, 10_000], 0.10, 0.10, full),
        ([1000], 0.05, 0, (*full, "noisy, rates estimated")),
        ([1000], 0, 0.05, (*full, "noisy, rates estimated")),
    ]
    for ns, to_new, to_old, names in plan:
        for n in ns:
            methods = {k: v for k, v in noise_methods(to_new, to_old).items() if k in names}
            if not to_new and not to_old:
                methods["default (halving; noise-aware on a contradiction)"] = lambda w: run_strategy(
                    Adaptive(), w, False
                )
            for row in cell(n, to_new, to_old, seeds, methods):
                out.append(row.line(n))
            print(f"  N={n} {to_new}/{to_old} done at {time.perf_counter() - started:.0f}s", file=sys.stderr)
    out += ["", "Skips: a block of commits pinning one runtime that crashes (a skip at every one of them).", "", HEADER]
    for n, block in [(100, 28), (852, 28), (10_000, 200)]:
        for row in cell(n, 0, 0, seeds, skip_methods(), crash=block):
            out.append(row.line(n))
    storm = World(100, 50, 0, 0, random.Random(0), crash=set(range(0, 99)))
    storm_lines = []
    for name, method in skip_methods().items():
        w = World(100, 50, 0, 0, random.Random(0), crash=set(storm.crash))
        found, cands = method(w)
        storm_lines.append(f"| {name} | {w.runs} | {w.skips} | {len(cands) if found is None else 1} |")
    out += [
        "",
        "Skip storm: 100 commits, the run command broken everywhere but the two ends.",
        "",
        "| method | runs | skips | commits named |",
        "|---|---|---|---|",
        *storm_lines,
    ]
    if (FIXTURE / "pypto.bundle").exists():
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            ptrs, level2 = pypto_pointers(Path(tmp))
        reps = 1 if args.quick else 2
        out += ["", f"Replay on the pypto pointer history, every culprit position x {reps} seeds.", "", HEADER]
        for to in (0.0, 0.05):
            for row in replay(ptrs, len(ptrs), to, reps, f"pypto level 1 (N={len(ptrs)})"):
                out.append(row.line(len(ptrs)))
            for row in replay(None, level2, to, reps * 20, f"pypto level 2, #1112 (N={level2})"):
                out.append(row.line(level2))
    else:
        out += ["", f"pypto-history fixture not found at {FIXTURE}: replay skipped"]
    out += ["", f"simulated in {time.perf_counter() - started:.0f}s"]
    text = "\n".join(out)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
