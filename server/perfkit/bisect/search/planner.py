"""The bisect's state machine: which point comes next, what a verdict means, when a search ends.

The planner runs no command and checks nothing out. It reads the state, asks the strategy
(search.py) which index of the current search to test, and turns verdicts into marks and phase
changes; what a finished search calls for next is in levels.py. Keeping it free of side effects
other than the state is what lets several workers (or a simulator) drive the same planner.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from perfkit.bisect.models import StepRecord, Verdict
from perfkit.bisect.search import estimate, noise_plan
from perfkit.bisect.search.bisection import DEFAULT, Decision, Mark, Strategy
from perfkit.bisect.search.levels import Levels
from perfkit.bisect.state.point import Point, short
from perfkit.bisect.state.store import PhaseData, State
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

# estimated steps still to come, per phase, beyond the level-1 search itself
_EXTRA_STEPS = {"verify_good": 2, "verify_bad": 1, "level1": 0}


class Planner(Levels):
    def __init__(self, repo: Path, st: State, strategy: Strategy = DEFAULT):
        super().__init__(repo, st)
        self.strategy = strategy
        self._pointers: list[str | None] | None = None

    # ---- the strategy's view of a search -------------------------------------------------------

    @staticmethod
    def marks(ph: PhaseData) -> dict[int, Mark]:
        old = ph.start_verdict
        return {i: ("skip" if v == "skip" else "old" if v == old else "new") for i, v in ph.marks.items()}

    def decide(self, ph: PhaseData, devices: int = 1, believed: Mapping[int, Sequence[Mark]] | None = None) -> Decision:
        """The strategy's decision over the search's runs so far; with devices > 1, `test` is a whole round.

        believed: runs added to the recorded ones, to look ahead (what the round under way may answer);
        the state is then left as it is."""
        cheap: Callable[[int], bool] | None = None
        group: Callable[[int], object] | None = None
        s, b = self.st.settings, self.st.build
        installed = b.submodule
        if ph.name == "level1" and self.sub_path:
            ptrs = self.level1_pointers()
            group = ptrs.__getitem__  # a runtime that always crashes is one skipped block
            if s.install_submodule and installed:

                def cheap(i: int) -> bool:
                    return ptrs[i] == installed
        elif ph.name != "level1":  # the submodule commit whose build is installed runs first (confirmations too)
            # without install_submodule the superproject's install is what builds the submodule
            built = b.submodule if s.install_submodule else None
            if not s.install_submodule and b.superproject == ph.superproject:
                built = b.superproject_sub
            if built and (s.install_submodule or s.install):

                def cheap(i: int) -> bool:
                    return ph.items[i] == built

        strategy = self.strategy if self.strategy is not DEFAULT else noise_plan.strategy_for(self.st, ph)
        marks = noise_plan.repeated_marks(self.st, ph)
        if believed is not None:
            marks = {i: [*marks.get(i, []), *believed.get(i, [])] for i in {*marks, *believed}}
            return strategy.decide(len(ph.items), marks, None, group, devices=devices)
        d = strategy.decide(len(ph.items), marks, cheap, group, devices=devices)
        if d.confidence is not None:  # status shows how sure the search is so far
            self.st.confidence[ph.name] = round(d.confidence, 4)
        noise_plan.note_switch(self.st, ph, d)
        return d

    def level1_pointers(self) -> list[str | None]:
        """The submodule pointer of every level-1 commit, from one `git log` of the pointer's moves."""
        if self._pointers is None:
            self._pointers = self._read_pointers()
        return self._pointers

    def _read_pointers(self) -> list[str | None]:
        st = self.st
        spec = self.sub_path or "."
        out = gitrepo.git(
            self.repo, "log", "--first-parent", "--reverse", "--format=C %H", "--raw", "--no-abbrev",
            f"{st.good}..{st.bad}", "--", spec,
        )  # fmt: skip
        moves: dict[str, str | None] = {}
        commit = ""
        for line in out.splitlines():
            if line.startswith("C "):
                commit = line[2:].strip()
            elif line.startswith(":") and line.rstrip().endswith("\t" + (self.sub_path or "")):
                new = line.split()[3]
                moves[commit] = None if set(new) == {"0"} else new
        current = self.ptr(st.good)
        pointers = []
        for c in st.level1.items:
            current = moves.get(c, current)
            pointers.append(current)
        return pointers

    def largest_move(self, cap: int = 200) -> int:
        """Submodule commits in the largest pointer move of the range: what a level 2 could have to search.

        One `git rev-list --count` per distinct move (at most `cap` of them); moves it cannot count
        (commits missing locally, sideways) are left out."""
        src = self.sub_source
        if not self.sub_path or src is None or not self.st.level1.items:
            return 0
        ptrs = [self.ptr(self.st.good), *self.level1_pointers()]
        moves = {(a, b) for a, b in zip(ptrs, ptrs[1:], strict=False) if a and b and a != b}
        largest = 0
        for a, b in sorted(moves)[:cap]:
            for frm, to in ((a, b), (b, a)):
                if gitrepo.git_ok(src, "merge-base", "--is-ancestor", frm, to):
                    count = gitrepo.git(src, "rev-list", "--count", "--first-parent", f"{frm}..{to}").strip()
                    largest = max(largest, int(count or 0))
                    break
        return largest

    def level2_estimate(self) -> int:
        """Runs a level 2 would take inside the largest move (counted until the level-1 culprit is known)."""
        if not self.st.largest_move:
            return 0
        noise = noise_plan.noise_on(self.st.settings)
        return estimate.search(self.st.largest_move, self.st.settings, noise, False)[0].high

    def _level1_ptr(self, index: int) -> str | None:
        return self.level1_pointers()[index] if self.sub_path else None

    def expected_total(self) -> int:
        """Steps done plus an estimate of those to come, level 2 counted once it is known."""
        st = self.st
        done = len(st.steps)
        if st.phase == "done":
            return done
        level1 = self.decide(st.level1).remaining if st.level1.items else 0
        if st.phase in _EXTRA_STEPS:
            return done + _EXTRA_STEPS[st.phase] + level1 + self.level2_estimate()
        if st.phase in ("split_pointer", "split_source"):
            return done + 1 + self.level2_estimate()
        return done + (self.decide(st.level2).remaining if st.level2 else 0)

    # ---- what to test next ---------------------------------------------------------------------

    def next_point(self) -> Point | None:
        """The next point to test, moving between phases as answers arrive; None when done."""
        for _ in range(8):
            if self.st.phase == "done":
                return None
            point, settled = self._next_in_phase()
            if point is not None or settled:
                return point
        raise RuntimeError(f"bisect planner did not settle in phase {self.st.phase}")

    def _next_in_phase(self) -> tuple[Point | None, bool]:
        """(point, settled): settled with no point means the search ended without a next phase to plan."""
        st = self.st
        if st.phase == "verify_good":
            return Point("verify_good", None, st.good, self.ptr(st.good)), True
        if st.phase == "verify_bad":
            return Point("verify_bad", None, st.bad, self.ptr(st.bad)), True
        if st.phase in ("split_pointer", "split_source"):
            point = self.split_point(st.phase)
            return (None, False) if self._split_settled(point) else (point, True)
        if st.phase == "level1":
            if noise_plan.storm(self, st.level1):
                return None, True
            d = self.decide(st.level1)
            if d.test:
                i = d.test[0]
                if i < 0:  # the good end, run again as evidence
                    return Point("level1", -1, st.good, self.ptr(st.good)), True
                return Point("level1", i, st.level1.items[i], self._level1_ptr(i)), True
            noise_plan.record_end(st, st.level1, d)
            if d.end_fails is not None:
                noise_plan.end_fails(self, d)
                return None, True
            if d.found is not None:
                self.level1_found(st.level1.items[d.found])
                noise_plan.word_confidence(st)
                return None, False
            self.candidates([st.level1.items[i] for i in d.candidates], None)
            noise_plan.word_stop(st, st.level1, d)
            return None, True
        ph = st.level2
        if ph is None:
            raise RuntimeError(f"bisect phase {st.phase} has no submodule search recorded")
        if noise_plan.storm(self, ph):
            return None, True
        d = self.decide(ph)
        if d.test:
            i = d.test[0]
            return Point(ph.name, i, ph.superproject or st.bad, ph.items[i]), True
        noise_plan.record_end(st, ph, d)
        if d.found is not None:
            self.level2_found(ph, ph.items[d.found])
            noise_plan.word_confidence(st)
        else:
            self.candidates([ph.items[i] for i in d.candidates], self.sub_path)
            noise_plan.word_stop(st, ph, d)
        return None, True

    def _parent(self, sha: str) -> str:
        parents = gitrepo.commit_info(self.repo, sha).parents
        if not parents:
            raise ToolFailure(f"{short(sha)} has no parent to split against")
        return parents[0]

    # ---- recording an answer -------------------------------------------------------------------

    def record(self, point: Point, rec: StepRecord) -> None:
        """Turn a tested point's verdict into a mark or a phase change."""
        v = rec.verdict
        if point.phase in ("verify_good", "verify_bad"):
            if noise_plan.end_needs_rerun(self.st, point.phase):
                return  # noise on and the end disagreed with itself: the same end runs again
            v = noise_plan.end_verdict(self.st, point.phase, v)
            self._record_end(point.phase == "verify_good", v, f"{v} ({rec.reason})", rec)
        elif point.phase == "level1" and point.index is not None:
            self.st.level1.marks[point.index] = v
        elif point.phase in ("level2", "find_fix") and point.index is not None and self.st.level2 is not None:
            self.st.level2.marks[point.index] = v

    def _record_end(self, good_end: bool, v: Verdict, what: str, rec: StepRecord | None = None) -> None:
        st = self.st
        if good_end and v == "good":
            st.phase = "verify_bad"
            return
        if not good_end and v == "bad":
            st.phase = "level1"
            return
        if rec is not None and not rec.ran and " install failed " in f" {rec.reason}":
            # the check never ran: the install is what to fix, not the ends or the patterns
            log = f"; the step's log is {rec.log}" if rec.log else ""
            check = (
                "Nothing was bisected: the install command failed before the check could run. Fix it (the install "
                f"commands given to bisect_start or in the settings file), then start again{log}."
            )
        elif good_end:
            check = "Nothing was bisected: check `good`, the run command and the pass/fail patterns."
        else:
            check = "Nothing was bisected: check `bad`, the run command and the fail pattern."
        if good_end:
            self.finish("good_end_not_good", f"The good end {short(st.good)} is not good: {what}. {check}")
        else:
            self.finish("bad_end_not_bad", f"The bad end {short(st.bad)} does not fail: {what}. {check}")

    def split_point(self, phase: str) -> Point:
        """The split test's point: the culprit's parent with only the pointer moved, or the culprit with the
        old pointer."""
        c, m = self.culprit_and_move()
        if phase == "split_pointer":
            return Point("split_pointer", None, self._parent(c.commit), m.new)
        return Point("split_source", None, c.commit, m.old)

    def _split_settled(self, point: Point) -> bool:
        """Decide a split test from every run of its point, as any point's evidence: a verdict once it holds
        the confidence (a deterministic check: two agreeing runs), another run while it does not, a stop
        when it never does or the point cannot run. False: run it (again)."""
        st = self.st
        runs = [
            s for s in st.steps
            if s.phase == point.phase and s.superproject == point.superproject and s.submodule == point.submodule
        ]  # fmt: skip
        if not runs:
            return False
        verdict, sure = noise_plan.point_verdict(st, runs)
        judged = [s for s in runs if s.verdict != "skip"]
        if verdict is None and not judged and runs[-1].verdict == "skip":
            verdict = "skip"
        elif verdict is None and len(judged) < noise_plan.SPLIT_RUNS:
            return False
        if judged:
            st.confidence[point.phase] = round(sure, 4)
        if verdict is None:
            self._split_unsure(point, judged, sure)
        elif point.phase == "split_pointer":
            self._record_split_pointer(point, verdict, runs[-1].reason)
        else:
            self._record_split_source(verdict, runs[-1].reason)
        return True

    def _split_unsure(self, point: Point, judged: list[StepRecord], sure: float) -> None:
        c, m = self.culprit_and_move()
        fails = sum(s.verdict == "bad" for s in judged)
        half = "its source changes alone"
        if point.phase == "split_pointer":
            half = "its parent with only the pointer moved"
        self.finish(
            "split_untested",
            f"Found: {c.short} {c.subject} changes source and moves {m.path}; the split test ({half}) gave "
            f"{fails} fail and {len(judged) - fails} pass in {len(judged)} runs, no verdict at the confidence "
            f"(at most {sure:.1%} either way). The culprit is the commit as a whole.",
        )

    def _record_split_pointer(self, point: Point, v: Verdict, reason: str) -> None:
        c, m = self.culprit_and_move()
        if v == "bad":
            self.submodule_search(point.superproject, m)
        elif v == "good":
            self.st.phase = "split_source"
        else:
            self.finish(
                "split_untested",
                f"Found: {c.short} {c.subject} changes source and moves "
                f"{m.path}; the split test (its parent with only the pointer moved) could not run: "
                f"{reason}. The culprit is the commit as a whole.",
            )

    def _record_split_source(self, v: Verdict, reason: str) -> None:
        c, m = self.culprit_and_move()
        head = (
            f"Found: {c.short} {c.subject} changes source and moves {m.path}. The pointer move alone "
            "(its parent with the new pointer) passes"
        )
        if v == "bad":
            self.finish(
                "source_part",
                f"{head}, and its source changes alone (with the old pointer) fail: the source part is responsible.",
            )
        elif v == "good":
            self.finish(
                "only_together",
                f"{head}, and its source changes alone (with the old pointer) pass "
                "too: the two halves fail only together.",
            )
        else:
            self.finish(
                "split_untested",
                f"{head}; its source changes alone could not be tested "
                f"({reason}). Most likely the source part is responsible, or the two fail only "
                "together.",
            )
