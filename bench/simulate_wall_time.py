"""Wall time of a two-level precision bisect with d devices, against `git bisect run` and one device.

A simulation with fake costs and the real search code: level 1 over the superproject's
first-parent commits (each with its runtime pointer), then level 2 over the runtime commits inside
the culprit bump. Costs per point: compiler install 60 s when the worker's compiler is at another
commit, runtime install 90 s when its runtime is at another commit (0 with the build cache when
that worker built it before), run 120 s. A round costs its slowest point; every bisect ends with
both installs again in the user's checkout (150 s).

- git bisect run, the seed's workflow: plain halving (no end checks), both installs and a run at
  every step, level 1 then level 2 by hand.
- perfkit today (one device): search.Bisection with its install-saving preference, the ends
  checked first, installs only when the compiler or the runtime changed.
- perfkit with d devices: rounds.choose's rule (the two ends and d-2 level-1 points in the first
  round, then rounds.ksection), points given to the worker already holding their runtime, each
  worker with its own environment, with and without the build cache.
- perfkit with d devices and b slots building ahead (`build_ahead`): when a round starts, the b
  spare slots start installing the points rounds.likely_next foresees (the next round's points for
  the largest answers first, and level 2's first round when an answer ends level 1); the next
  round gives a point to the slot holding its build, and starts its run when that build is done.
  The builds ahead are assumed to run at full speed beside each other: the machine needs the CPUs
  and disk for b + d builds at once.

Histories: synthetic (pointer moves every k commits; every bump a culprit, level-2 culprits spread
over the bump) and the real pypto pointer history (tests/fixtures/pypto-history: every forward
pointer move of the 852 commits since the submodule was added, with its real number of simpler
commits).

--measured adds the install commands real bisects run (bench/measure_installs.py), counted by the
commands themselves and split into used, made ahead and wasted, and restoring, beside this model's
count for the same history.

Usage: python bench/simulate_wall_time.py [--quick] [--measured]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from perfkit.bisect.engine.rounds import answers, ksection, likely_next  # noqa: E402
from perfkit.bisect.search.bisection import Bisection, Mark  # noqa: E402

FIXTURE = Path(os.environ.get("PERFKIT_PYPTO_FIXTURE", ROOT / "tests" / "fixtures" / "pypto-history"))
ADD = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"
COMPILER, RUNTIME, RUN = 60.0, 90.0, 120.0
RESTORE = COMPILER + RUNTIME


@dataclass
class Case:
    n1: int  # level-1 commits (good excluded, bad included)
    ptrs: Sequence[str]  # runtime pointer of each level-1 commit
    f1: int  # index of the level-1 culprit (a forward bump)
    n2: int  # runtime commits inside the bump (new pointer included)
    f2: int  # index of the level-2 culprit


@dataclass
class Tally:
    wall: float = 0.0
    rounds: list[int] = field(default_factory=lambda: [0, 0])  # level 1 (ends included), level 2
    runs: int = 0
    installs: int = 0


@dataclass
class Worker:
    compiler: str | None = None
    runtime: str | None = None
    built: set[str] = field(default_factory=set)


def cost(w: Worker, compiler: str, runtime: str, cache: bool, t: Tally) -> float:
    s = RUN
    if w.compiler != compiler:
        s += COMPILER
        t.installs += 1
    if w.runtime != runtime:
        if not (cache and runtime in w.built):
            s += RUNTIME
            t.installs += 1
        w.built.add(runtime)
    w.compiler, w.runtime = compiler, runtime
    t.runs += 1
    return s


def git_bisect(c: Case) -> Tally:
    """Plain halving, both installs at every step, two levels by hand."""
    t = Tally()
    for level, (n, f) in enumerate(((c.n1, c.f1), (c.n2, c.f2))):
        lo, hi = -1, n - 1
        while hi - lo > 1:
            mid = (lo + hi + 1) // 2
            t.wall += COMPILER + RUNTIME + RUN
            t.installs += 2
            t.runs += 1
            t.rounds[level] += 1
            lo, hi = (lo, mid) if mid >= f else (mid, hi)
    t.wall += RESTORE
    t.installs += 2
    return t


def today(c: Case) -> Tally:
    """One device: the ends, then search.Bisection preferring points whose runtime is installed."""
    t, w = Tally(), Worker()
    for compiler, runtime in (("good", "g"), (f"c{c.n1 - 1}", c.ptrs[-1])):
        t.wall += cost(w, compiler, runtime, False, t)
        t.rounds[0] += 1
    marks: dict[int, Mark] = {}
    while True:
        installed = w.runtime
        d = Bisection().decide(c.n1, marks, lambda i, at=installed: c.ptrs[i] == at)
        if not d.test:
            break
        i = d.test[0]
        t.wall += cost(w, f"c{i}", c.ptrs[i], False, t)
        t.rounds[0] += 1
        marks[i] = "new" if i >= c.f1 else "old"
    marks = {}
    while True:
        d = Bisection().decide(c.n2, marks)
        if not d.test:
            break
        i = d.test[0]
        t.wall += cost(w, f"c{c.f1}", f"r{i}", False, t)
        t.rounds[1] += 1
        marks[i] = "new" if i >= c.f2 else "old"
    t.wall += RESTORE
    t.installs += 2
    return t


def rounds(c: Case, d: int, cache: bool) -> Tally:
    """d devices: the rounds perfkit plays (rounds.choose and rounds.ksection)."""
    t = Tally()
    workers = [Worker() for _ in range(d)]

    def play(points: list[tuple[str, str]], level: int) -> None:
        free = list(workers)
        slowest = 0.0
        for compiler, runtime in points:
            w = next((w for w in free if w.runtime == runtime), free[0])
            free.remove(w)
            slowest = max(slowest, cost(w, compiler, runtime, cache, t))
        t.wall += slowest
        t.rounds[level] += 1

    def search(n: int, f: int, point: Callable[[int], tuple[str, str]], level: int, marks: dict[int, Mark]) -> None:
        while True:
            picks = ksection(n, marks, d)
            if not picks:
                return
            play([point(i) for i in picks], level)
            marks.update({i: ("new" if i >= f else "old") for i in picks})

    def l1(i: int) -> tuple[str, str]:
        return f"c{i}", c.ptrs[i]

    ends = [("good", "g"), (f"c{c.n1 - 1}", c.ptrs[-1])]
    marks1: dict[int, Mark] = {}
    if d >= 2:
        first = ksection(c.n1, {}, d - 2) if d > 2 else []
        play(ends + [l1(i) for i in first], 0)
        marks1 = {i: ("new" if i >= c.f1 else "old") for i in first}
    else:
        for e in ends:
            play([e], 0)
    search(c.n1, c.f1, l1, 0, marks1)
    search(c.n2, c.f2, lambda i: (f"c{c.f1}", f"r{i}"), 1, {})
    t.wall += RESTORE
    t.installs += 2
    return t


@dataclass(eq=False)
class Slot:
    compiler: str | None = None
    runtime: str | None = None
    ready: float = 0.0  # when its build (made ahead or for a test) is done


def ahead(c: Case, d: int, b: int) -> Tally:
    """d devices and b more slots building ahead; the real prediction (rounds.likely_next)."""
    t = Tally()
    slots = [Slot() for _ in range(d + b)]
    now = 0.0

    def install(w: Slot, p: tuple[str, str]) -> float:
        s = 0.0
        if w.compiler != p[0]:
            s += COMPILER
            t.installs += 1
        if w.runtime != p[1]:
            s += RUNTIME
            t.installs += 1
        w.compiler, w.runtime = p
        return s

    def play(points: list[tuple[str, str]], level: int, likely: list[tuple[str, str]]) -> None:
        """One round: a point's run starts when its slot's build is done; spare slots build `likely`."""
        nonlocal now
        used: dict[tuple[str, str], Slot] = {}
        for p in points:  # LocalPool.assign: the slot holding the build, then one holding the runtime
            w = next((w for w in slots if w not in used.values() and (w.compiler, w.runtime) == p), None)
            if w is not None:
                used[p] = w
        for p in points:
            if p not in used:
                free = [w for w in slots if w not in used.values()]
                spare = [w for w in free if (w.compiler, w.runtime) not in likely] or free
                used[p] = next((w for w in spare if w.runtime == p[1]), spare[0])
        end = now
        for p, w in used.items():
            start = max(now, w.ready) if (w.compiler, w.runtime) == p else now + install(w, p)
            w.ready = start + RUN
            end = max(end, w.ready)
            t.runs += 1
        idle = [w for w in slots if w not in used.values()]  # LocalPool.prepare
        held = {(w.compiler, w.runtime) for w in idle}
        spare = [w for w in idle if (w.compiler, w.runtime) not in likely]
        for p in likely:
            if p in held or not spare:
                continue
            w = next((w for w in spare if w.runtime == p[1]), spare[0])
            spare.remove(w)
            w.ready = now + install(w, p)
        now = end
        t.rounds[level] += 1

    def l1(i: int) -> tuple[str, str]:
        return f"c{i}", c.ptrs[i]

    def l2(i: int) -> tuple[str, str]:
        return f"c{c.f1}", f"r{i}"

    def foreseen(n: int, marks: dict[int, Mark], picks: list[int], level: int) -> list[tuple[str, str]]:
        out = [(l1 if level == 0 else l2)(i) for i in likely_next(n, marks, picks, d, b)]
        if level == 0:  # rounds.likely_points: an answer that ends level 1 on this bump opens level 2
            for lo, hi in answers(n, marks, picks):
                if hi - lo == 1 and hi == c.f1 and len(out) < b:
                    out += [(f"c{hi}", f"r{i}") for i in ksection(c.n2, {}, d)]
                elif hi - lo == 1 and len(out) < b:
                    out += [(f"c{hi}", f"r-other{hi}-{i}") for i in range(d)]  # another bump's level 2
        return out[:b]

    def search(n: int, f: int, level: int, marks: dict[int, Mark]) -> None:
        while True:
            picks = ksection(n, marks, d)
            if not picks:
                return
            play([(l1 if level == 0 else l2)(i) for i in picks], level, foreseen(n, marks, picks, level))
            marks.update({i: ("new" if i >= f else "old") for i in picks})

    ends = [("good", "g"), (f"c{c.n1 - 1}", c.ptrs[-1])]
    first = ksection(c.n1, {}, d - 2) if d > 2 else []
    opening = foreseen(c.n1, {}, first, 0) if first else [l1(i) for i in ksection(c.n1, {}, d)][:b]
    play(ends + [l1(i) for i in first], 0, opening)
    search(c.n1, c.f1, 0, {i: ("new" if i >= c.f1 else "old") for i in first})
    search(c.n2, c.f2, 1, {})
    t.wall = now + RESTORE
    t.installs += 2
    return t


def synthetic(n1: int, every: int, n2: int, spread: int) -> list[Case]:
    ptrs = [f"p{i // every}" for i in range(n1)]
    bumps = [i for i in range(1, n1) if ptrs[i] != ptrs[i - 1]]
    return [Case(n1, ptrs, f1, n2, f2) for f1 in bumps for f2 in _spread(n2, spread)]


def _spread(n: int, k: int) -> list[int]:
    return sorted({round(j * (n - 1) / max(1, k - 1)) for j in range(k)}) if n > 1 else [0]


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", "-c", "protocol.file.allow=always", "-C", str(repo), *args],
        check=True, capture_output=True, text=True, env=env,
    ).stdout  # fmt: skip


def pypto(spread: int) -> list[Case]:
    """Every forward runtime bump of the real pointer history as a culprit, with its real level-2 size."""
    base = Path(tempfile.mkdtemp(prefix="perfkit-sim-"))
    git(base, "clone", "-q", "--bare", str(FIXTURE / "pypto.bundle"), "pypto.git")
    git(base, "clone", "-q", "--bare", str(FIXTURE / "simpler.bundle"), "simpler.git")
    repo, sub = base / "pypto.git", base / "simpler.git"
    items = git(repo, "rev-list", "--first-parent", "--reverse", f"{ADD}..HEAD").split()
    out = git(repo, "log", "--first-parent", "--reverse", "--format=C %H", "--raw", "--no-abbrev", f"{ADD}..HEAD")
    moves: dict[str, str] = {}
    commit = ""
    for line in out.splitlines():
        if line.startswith("C "):
            commit = line[2:].strip()
        elif line.startswith(":") and line.rstrip().endswith("\truntime"):
            moves[commit] = line.split()[3]
    current = git(repo, "rev-parse", f"{ADD}:runtime").strip()
    ptrs = []
    for c in items:
        current = moves.get(c, current)
        ptrs.append(current)
    cases = []
    for i in range(1, len(items)):
        old, new = ptrs[i - 1], ptrs[i]
        if old == new or subprocess.run(["git", "-C", str(sub), "merge-base", "--is-ancestor", old, new]).returncode:
            continue
        n2 = int(git(sub, "rev-list", "--first-parent", "--count", f"{old}..{new}"))
        if n2 >= 1:
            cases += [Case(len(items), ptrs, i, n2, f2) for f2 in _spread(n2, spread)]
    return cases


def summarize(name: str, cases: list[Case], ds: Sequence[int]) -> list[str]:
    base = [today(c) for c in cases]
    base_wall = statistics.mean(t.wall for t in base)
    rows = []

    def row(label: str, ts: list[Tally], d: int) -> str:
        wall = statistics.mean(t.wall for t in ts)
        ends = 1 if d == 1 else 0  # one device checks the two ends in two rounds, several in one

        def bound(n: int) -> int:
            return math.ceil(math.log(n, d + 1) - 1e-9) + 1 if n > 1 else 1

        over = sum(
            1 for c, t in zip(cases, ts, strict=True) if t.rounds[0] > bound(c.n1) + ends or t.rounds[1] > bound(c.n2)
        )
        return (
            f"| {name} | {label} | {wall / 3600:.2f} h | {wall / base_wall:.2f}x | "
            f"{statistics.mean(t.rounds[0] for t in ts):.1f} (max {max(t.rounds[0] for t in ts)}) | "
            f"{statistics.mean(t.rounds[1] for t in ts):.1f} (max {max(t.rounds[1] for t in ts)}) | "
            f"{over} of {len(ts)} | "
            f"{statistics.mean(t.runs for t in ts):.1f} | {statistics.mean(t.installs for t in ts):.1f} |"
        )

    rows.append(row("git bisect run, both installs every step", [git_bisect(c) for c in cases], 1))
    rows.append(row("perfkit today, 1 device", base, 1))
    for d in ds:
        rows.append(row(f"perfkit, {d} devices", [rounds(c, d, False) for c in cases], d))
        rows.append(row(f"perfkit, {d} devices, build cache", [rounds(c, d, True) for c in cases], d))
        if d >= 2:
            for b in sorted({d, 2 * d, d * (d + 1)}):
                rows.append(row(f"perfkit, {d} devices, build_ahead={b}", [ahead(c, d, b) for c in cases], d))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer level-2 culprits per bump")
    ap.add_argument(
        "--measured",
        action="store_true",
        help="also run real bisects and count their install commands (bench/measure_installs.py)",
    )
    args = ap.parse_args()
    spread = 3 if args.quick else 8
    ds = (1, 2, 4, 8)
    head = [
        "| history | how | mean wall time | vs today | level-1 rounds (ends included) | level-2 rounds "
        "| cases over ceil(log_(d+1) N) + 1 rounds per level | runs | installs |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    rows = summarize("synthetic 1,000 commits, pointer every 25, 40 in each bump", synthetic(1000, 25, 40, spread), ds)
    rows += summarize("synthetic 200 commits, pointer every 10, 12 in each bump", synthetic(200, 10, 12, spread), ds)
    if (FIXTURE / "pypto.bundle").is_file():
        rows += summarize("pypto (852 commits, every forward bump)", pypto(spread), ds)
    else:
        print(f"(pypto-history fixture not found at {FIXTURE}: real history skipped)", file=sys.stderr)
    print("\n".join(head + rows))
    if args.measured:  # the installs a real bisect runs, beside this model's count for the same history
        from measure_installs import table

        print("\n" + "\n".join(table()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
