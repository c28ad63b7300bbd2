"""Rounds: with d devices, d points are tested at once and the planner reads all their answers.

Which points make a round: the strategy's own round (Strategy.decide with devices=d, through the
planner), so that every device gets a point while one can tell something. Inside a linear search
the answer is one of the s positions between the last old mark and the first new one; d points at
s*j/(d+1) (j = 1..d, each moved to the nearest untested index) leave at most ceil(s/(d+1)) whatever
the answers, so a search takes ceil(log_(d+1) s) rounds where one device takes ceil(log2 s) runs
(git-pisect's k-section). The round that ends the halving gives the devices it leaves free to the
confirmation's points, a round of confirmation spreads the culprit and its parent over every
device, and under noise the model's pick leads the quantiles of its posterior, retests included:
a point may run on several devices in one round. With one device the round is the strategy's own
pick, so nothing changes from the one-point engine. The end checks share the first round with
level-1 points placed as if the ends held (wasted only when an end does not hold, which stops the
bisect anyway); the two split tests run together.

How answers are read. Every finished point is a step in the state, saved as soon as its round
ends; the planner then takes, in its own order, the answers it asks for: a linear search marks
every index it holds an answer for, an end check or a split test takes the step made at its
point. Because the answers are read from the recorded steps (and from the verdict memory of
earlier bisects), a call killed in the middle of a round resumes from what finished.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from perfkit.bisect import report
from perfkit.bisect.command.tester import PointResult, saved_commands
from perfkit.bisect.models import BisectSettings, StepRecord
from perfkit.bisect.search import noise_plan
from perfkit.bisect.search.bisection import Mark, ksection
from perfkit.bisect.search.noise_plan import noise_on
from perfkit.bisect.search.planner import Planner
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import PhaseData, State
from perfkit.bisect.state.verdict_memory import VerdictMemory
from perfkit.bisect.workers.devices import workers_dir
from perfkit.bisect.workers.pool import Job, Pool
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo
from perfkit.tools.spec import Progress


class Engine(Protocol):
    """What a round reads and calls on the engine that plays it (engine.Engine is one).

    Named here so that rounds.py needs nothing from engine.py, which imports it.
    """

    repo: Path
    sdir: Path
    st: State
    settings: BisectSettings
    planner: Planner
    memory: VerdictMemory
    logs: Path
    sub_path: str | None
    ahead: bool
    progress: Progress

    @property
    def save_lock(self) -> Any: ...

    def save(self, durable: bool = True) -> None: ...

    def expected_total(self) -> int: ...


LINEAR = ("level1", "level2", "find_fix")


def answers(n: int, marks: dict[int, Mark], picks: list[int]) -> list[tuple[int, int]]:
    """The intervals (last old, first new] a round testing `picks` can leave, one per answer."""
    hi = min([i for i, m in marks.items() if m == "new" and 0 <= i < n] + [n - 1])
    lo = max([i for i, m in marks.items() if m == "old" and -1 <= i < hi] + [-1])
    edges = [lo, *sorted(i for i in picks if lo < i < hi), hi]
    return [(edges[j], edges[j + 1]) for j in range(len(edges) - 1)]


def likely_next(
    n: int,
    marks: dict[int, Mark],
    picks: list[int],
    d: int,
    budget: int,
    round_of: Callable[[int, int], list[int]] | None = None,
) -> list[int]:
    """The points the round after `picks` will test, for the answers most likely first.

    Each answer leaves one interval (lo, hi], as likely as the positions it holds (before a verdict
    says otherwise the culprit is equally likely anywhere); its next round is round_of(lo, hi), by
    default that interval's own k-section. A point the next round runs on several devices is wanted
    that many times. Whole answers come one after another, since a round waits for its slowest
    point: a round half prepared saves little."""
    out: list[int] = []
    if budget <= 0:
        return out
    for lo, hi in sorted(answers(n, marks, picks), key=lambda a: a[0] - a[1]):
        nxt = round_of(lo, hi) if round_of is not None else ksection(n, {**marks, lo: "old", hi: "new"}, d)
        for i in dict.fromkeys(nxt):
            out += [i] * (nxt.count(i) - out.count(i))
        if len(out) >= budget:
            break
    return out[:budget]


def likely_points(planner: Planner, points: list[Point], d: int, budget: int) -> list[Point]:
    """The points worth building while `points` run: the next round's for each likely answer (each as
    many times as that round runs it, less the copies this round's slots will hold), and when an
    answer ends level 1 on a runtime bump, the first round of the level 2 it would start."""
    search = [p for p in points if p.phase in LINEAR and p.index is not None]
    if budget <= 0:
        return []
    if not search:  # a round of end checks only: level 1 opens next when they hold, as they nearly always do
        l1 = planner.st.level1
        if not {p.phase for p in points} & {"verify_good", "verify_bad"} or planner.decide(l1).noisy:
            return []
        return [linear_point(planner, l1, i) for i in ksection(len(l1.items), planner.marks(l1), d)][:budget]
    ph = planner.st.level1 if search[0].phase == "level1" else planner.st.level2
    if ph is None or ph.name != search[0].phase or planner.decide(ph).noisy:
        return []  # the noise model picks from the evidence, flips included: nothing to foresee
    marks = planner.marks(ph)
    picks = sorted({p.index for p in search if p.index is not None})  # a point run on two devices is one pick
    level1 = ph.name == "level1"

    def round_of(lo: int, hi: int) -> list[int]:
        """The strategy's own next round if this one answers (lo, hi]: every verdict of the round believed."""
        believed: dict[int, list[Mark]] = {}
        for p in search:
            if p.index is not None:
                believed.setdefault(p.index, []).append("old" if p.index <= lo else "new")
        return [i for i in planner.decide(ph, d, believed).test if i >= 0 or level1]

    wanted = [linear_point(planner, ph, i) for i in likely_next(len(ph.items), marks, picks, d, budget + d, round_of)]
    out: list[Point] = []
    held = list(points)  # a point of this round stays built in the slot that runs it
    for q in wanted:
        if q in held:
            held.remove(q)
        else:
            out.append(q)
    ends = [(lo, hi) for lo, hi in answers(len(ph.items), marks, picks) if hi - lo == 1 and hi < len(ph.items)]
    if level1 and planner.sub_path and len(out) < budget:
        for _, hi in ends:
            out += [q for q in _level2_opening(planner, hi, d) if q not in out]
    return out[:budget]


def _level2_opening(planner: Planner, culprit: int, d: int) -> list[Point]:
    """The first level-2 round if level-1 index `culprit` is the first bad commit and bumps the runtime forward."""
    st = planner.st
    ptrs = planner.level1_pointers()
    old = ptrs[culprit - 1] if culprit > 0 else planner.ptr(st.good)
    new = ptrs[culprit]
    if not old or not new or old == new or planner.sub_source is None:
        return []
    items = _forward_range(str(planner.sub_source), old, new)
    return [Point("level2", i, st.level1.items[culprit], items[i]) for i in ksection(len(items), {}, d)]


@functools.lru_cache(maxsize=256)
def _forward_range(src: str, old: str, new: str) -> tuple[str, ...]:
    """The runtime commits a forward bump old..new brings in (empty when it is not forward or unknown)."""
    try:
        if not gitrepo.is_ancestor(Path(src), old, new):
            return ()
        return tuple(gitrepo.git(Path(src), "rev-list", "--first-parent", "--reverse", f"{old}..{new}").split())
    except ToolFailure:
        return ()


def linear_point(planner: Planner, ph: PhaseData, i: int) -> Point:
    """Index i of a linear search as a point; -1 in level 1 is the good end, run again as evidence."""
    st = planner.st
    if ph.name == "level1":
        if i < 0:
            return Point("level1", -1, st.good, planner.ptr(st.good))
        ptr = planner.level1_pointers()[i] if planner.sub_path else None
        return Point("level1", i, ph.items[i], ptr)
    return Point(ph.name, i, ph.superproject or st.bad, ph.items[i])


def choose(planner: Planner, first: Point, d: int) -> list[Point]:
    """The points of the next round; `first` is the one the planner asks for now.

    Inside a linear search the round is the strategy's own (planner.decide with d devices): the
    (d + 1)-section while halving, with the confirmation riding along on the devices the round that
    ends the halving leaves free; the culprit and its parent on every device while confirming; the
    noise model's pick and the quantiles of its posterior under noise. The end checks share the
    first round with level-1 points (they are placed as if the ends held, and wasted only when an
    end does not hold, which stops the bisect anyway); the two split tests run together."""
    st = planner.st
    if d <= 1:
        return [first]
    if first.phase in LINEAR and first.index is not None:
        ph = st.level1 if first.phase == "level1" else st.level2
        assert ph is not None
        picks = [i for i in planner.decide(ph, d).test if i >= 0 or ph.name == "level1"]
        return [linear_point(planner, ph, i) for i in picks] or [first]
    points = [first]
    if first.phase == "verify_good":
        other = Point("verify_bad", None, st.bad, planner.ptr(st.bad))
        if _answered(st, other) is None:  # not again when only the good end is run once more
            points.append(other)
    elif first.phase == "split_pointer" and not noise_on(st.settings):  # under noise: read one at a time
        c, m = planner.culprit_and_move()
        points.append(Point("split_source", None, c.commit, m.old))
    if first.phase in ("verify_good", "verify_bad") and len(points) < d and st.level1.items:
        picks = planner.decide(st.level1, d - len(points)).test
        points += [linear_point(planner, st.level1, i) for i in picks[: d - len(points)]]
    return points


def _index(ph: PhaseData) -> Callable[[StepRecord], int | None]:
    pos = {sha: i for i, sha in enumerate(ph.items)}

    def index(s: StepRecord) -> int | None:
        if s.phase != ph.name:
            return None
        if ph.name == "level1":
            return pos.get(s.superproject)
        return pos.get(s.submodule or "") if s.superproject == ph.superproject else None

    return index


def _mark_known(st: State) -> None:
    """Mark every index of the current linear search that a recorded step answered and that is open."""
    ph = st.level1 if st.phase == "level1" else st.level2 if st.phase in LINEAR else None
    if ph is None:
        return
    index = _index(ph)
    for s in st.steps:
        i = index(s)
        if i is not None and i not in ph.marks:
            ph.marks[i] = s.verdict


def _answered(st: State, q: Point) -> StepRecord | None:
    for s in reversed(st.steps):
        if s.phase == q.phase and s.superproject == q.superproject and s.submodule == q.submodule:
            return s
    return None


def settle(eng: Engine) -> Point | None:
    """Apply every answer already known; the next point that needs a test, or None when done."""
    st, planner = eng.st, eng.planner
    for _ in range(100_000):
        if st.phase == "done":
            return None
        _mark_known(st)
        q = planner.next_point()
        if q is None:
            return None
        # under noise the planner reads every run of an end from the steps and may ask for it again
        # a split test the planner asks for again needs another run: it decides from all of them
        rerun = noise_on(st.settings) or noise_plan.end_needs_rerun(st, q.phase) or q.phase.startswith("split_")
        known = _answered(st, q) if q.phase not in LINEAR and not rerun else None
        if known is None:
            n = next_n(st)
            known = eng.memory.recall_step(q, n, _label(eng, q), st.steps)
            if known is not None:
                st.steps.append(known)
        if known is None:
            return q
        planner.record(q, known)
    raise RuntimeError("bisect rounds did not settle")


def _label(eng: Engine, p: Point) -> tuple[str, str]:
    return report.label(p, eng.repo, eng.planner.sub_source, eng.sub_path)


def next_n(st: State) -> int:
    return max((s.n for s in st.steps), default=0) + 1


def next_round(st: State) -> int:
    return max((s.round or 0 for s in st.steps), default=0) + 1


class Rounds:
    """The engine's step when devices are set: one round of points, tested at once by a pool."""

    def __init__(self, eng: Engine):
        self.eng = eng
        self._pool: Pool | None = None

    @property
    def pool(self) -> Pool:
        if self._pool is None:
            eng = self.eng
            if eng.settings.backend == "ray":
                from perfkit.bisect.workers.ray_worker import RayPool

                self._pool = RayPool(eng.repo, eng.sdir, eng.st, eng.planner.sub_source, eng.save)
            else:
                from perfkit.bisect.workers.local import LocalPool

                self._pool = LocalPool(eng.repo, eng.sdir, eng.st, eng.planner.sub_source, eng.save)
        return self._pool

    def step(self) -> StepRecord | None:
        """Test one round and record it; the round's last record, None when there was nothing to test."""
        eng = self.eng
        st = eng.st
        while True:
            q = settle(eng)
            if q is None:
                eng.save()
                return None
            points = choose(eng.planner, q, len(st.settings.devices))
            if not self._remembered(points):
                break
        n0, r = next_n(st), next_round(st)
        ahead = self._likely(points)
        pairs = self.pool.assign(points, ahead)
        jobs = [(Job(p, n0 + k, eng.logs / f"step-{n0 + k:03d}.log"), w) for k, (p, w) in enumerate(pairs)]
        total = max(eng.expected_total(), n0 + len(jobs) - 1)
        st.worktree = str(workers_dir(eng.sdir))
        last: list[StepRecord] = []

        def done(job: Job, device: str, res: PointResult, seconds: float) -> None:
            with eng.save_lock:  # device threads save while this thread records: never half a record
                rec = self._record(job, device, res, seconds, r)
                last.append(rec)
                eng.save()

        def tick(finished: int, of: int) -> None:
            eng.progress(n0 - 1 + finished, total, f"Round {r}: {finished} of {of} points tested")

        tick(0, len(jobs))
        if ahead:
            st.builds_ahead += self.pool.prepare(ahead, [w for _, w in pairs])
        st.devices_now = {self.pool.device_of(w): f"{job.point.phase} {_label(eng, job.point)[0]}" for job, w in jobs}
        eng.save()
        try:
            self.pool.run(jobs, done, tick)
        finally:
            st.devices_now = {}
            st.installs_ahead += self.pool.take_ahead()
        eng.memory.save()
        if noise_on(st.settings):  # under noise an end or split point is read once, right after it ran, in order
            ran = {rec.n: rec for rec in last}
            for job, _ in jobs:
                rec = ran.get(job.n)
                if job.point.phase not in LINEAR and rec is not None and st.phase == job.point.phase:
                    eng.planner.record(job.point, rec)
        settle(eng)  # so the phase and the status are current
        eng.save()
        return max(last, key=lambda s: s.n) if last else None

    def _likely(self, points: list[Point]) -> list[Point]:
        """What the build_ahead slots should prepare while `points` run (nothing for a one-round call)."""
        eng, s = self.eng, self.eng.settings
        if not s.build_ahead or not eng.ahead or not (s.install or s.install_submodule):
            return []
        likely = likely_points(eng.planner, points, len(s.devices), s.build_ahead)
        ran = {(r.superproject, r.submodule) for r in eng.st.steps}  # a repeat runs: memory does not answer it
        return [
            p
            for p in likely
            if (p.superproject, p.submodule) in ran or eng.memory.recall(p.superproject, p.submodule) is None
        ]

    def _remembered(self, points: list[Point]) -> bool:
        """Answer the round's search points the verdict memory knows (from an earlier bisect); whether any was."""
        eng, st = self.eng, self.eng.st
        found = False
        for p in points:
            if p.phase in LINEAR:
                rec = eng.memory.recall_step(p, next_n(st), _label(eng, p), st.steps)
                if rec is not None:
                    st.steps.append(rec)
                    found = True
        return found

    def _record(self, job: Job, device: str, res: PointResult, seconds: float, r: int) -> StepRecord:
        eng, st, s = self.eng, self.eng.st, self.eng.settings
        p, c = job.point, res.verdict
        label = _label(eng, p)
        rec = StepRecord(
            n=job.n, phase=p.phase, superproject=p.superproject, submodule=p.submodule, short=label[0],
            subject=label[1], verdict=c.verdict, reason=c.reason, metric=c.metric, exit_code=res.exit_code,
            installed=list(res.installed), duration_s=seconds, log=str(job.log), ran=res.ran, device=device, round=r,
            prepared=res.prepared, worktree_rebuilt=res.rebuilt, tested=res.tested,
        )  # fmt: skip
        st.notes += [f"before step {job.n} (device {device}): {seen}" for seen in res.rebuilt]
        st.installs += res.commands
        if res.prepared:  # its installs ran ahead: counted there, not saved
            st.installs_ahead_used += res.ahead_commands
        else:
            st.installs_saved += saved_commands(s, p, res.installed)
        st.devices_now.pop(device, None)
        st.steps.append(rec)
        st.steps.sort(key=lambda x: x.n)
        eng.memory.remember(rec)
        return rec

    def close(self) -> None:
        """Let a remote pool clean its nodes (local slots are removed by the engine, also after a crash)."""
        close = getattr(self._pool, "close", None)
        if close is not None:
            close()
        if self._pool is not None:
            self.eng.st.installs_ahead += self._pool.take_ahead()  # builds ahead that ended with the pool
        self._pool = None
