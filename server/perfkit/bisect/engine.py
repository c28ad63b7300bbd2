"""The two-level bisect: which point comes next, testing it, and what the answer means.

A tested point is a pair (superproject commit, submodule commit). Level 1 walks the superproject's
first-parent commits with the submodule at each commit's own pointer. What follows depends on the
culprit: a forward pointer-only bump starts level 2 over the submodule commits between the old and
new pointers; a rollback starts a find-fix search over the commits it dropped; a commit that moves
the pointer and changes source gets a split test first. Every search is the same linear search
(search.py) over a different list, and all of them use the same checkout, install and run code.
"""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from perfkit import gitrepo
from perfkit.bisect import runner
from perfkit.bisect import state as statefile
from perfkit.bisect import verdict as verdicts
from perfkit.bisect.models import BisectStatus, CommitRef, Culprit, StepRecord, SubmoduleCulprit
from perfkit.bisect.search import DEFAULT, Decision, Mark, Strategy
from perfkit.bisect.state import PhaseData, PointMove, State
from perfkit.bisect.worktree import Checkout, Unavailable
from perfkit.errors import ToolFailure
from perfkit.toolspec import Progress, no_progress

_GIT_REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


@dataclass(frozen=True)
class Point:
    phase: str
    index: int | None
    superproject: str
    submodule: str | None


def short(sha: str | None) -> str:
    return (sha or "-")[:12]


def pointer(repo: Path, commit: str, path: str | None) -> str | None:
    """The submodule commit `commit` pins at `path`, or None when there is no gitlink there."""
    if not path:
        return None
    out = gitrepo.git(repo, "ls-tree", "-z", commit, "--", path)
    for entry in out.split("\0"):
        if entry.startswith("160000 commit ") and entry.split("\t", 1)[1] == path:
            return entry.split()[2]
    return None


def work_paths(sdir: Path, repo: Path) -> tuple[Path, Path, Path]:
    """(worktree, parking place of the submodule clone, logs)."""
    return sdir / "worktree" / repo.name, sdir / "parked-submodule", sdir / "logs"


class Engine:
    def __init__(
        self, repo: Path, sdir: Path, st: State, progress: Progress = no_progress, strategy: Strategy = DEFAULT
    ):
        self.repo = repo
        self.sdir = sdir
        self.st = st
        self.progress = progress
        self.strategy = strategy
        self.settings = st.settings
        self.sub_path = st.settings.submodule
        self.sub_source = Path(st.submodule_source) if st.submodule_source else None
        wt, parking, self.logs = work_paths(sdir, repo)
        self.checkout = Checkout(repo, wt, parking, self.sub_path, self.sub_source)
        self._pointers: list[str | None] | None = None

    # ---- bookkeeping -------------------------------------------------------------------------

    def save(self, durable: bool = True) -> None:
        statefile.save(self.sdir, self.st, durable)

    def ptr(self, commit: str) -> str | None:
        return pointer(self.repo, commit, self.sub_path)

    def _level1_ptr(self, index: int) -> str | None:
        return self._level1_pointers()[index] if self.sub_path else None

    def _marks(self, ph: PhaseData) -> dict[int, Mark]:
        old = ph.start_verdict
        return {i: ("skip" if v == "skip" else "old" if v == old else "new") for i, v in ph.marks.items()}

    def _decide(self, ph: PhaseData) -> Decision:
        cheap = None
        if ph.name == "level1" and self.settings.install_submodule and self.st.installed_sub and self.sub_path:
            ptrs, installed = self._level1_pointers(), self.st.installed_sub
            cheap = lambda i: ptrs[i] == installed  # noqa: E731
        return self.strategy.decide(len(ph.items), self._marks(ph), cheap)

    def _level1_pointers(self) -> list[str | None]:
        """The submodule pointer of every level-1 commit, from one `git log` of the pointer's moves."""
        if self._pointers is None:
            st = self.st
            out = gitrepo.git(
                self.repo,
                "log",
                "--first-parent",
                "--reverse",
                "--format=C %H",
                "--raw",
                "--no-abbrev",
                f"{st.good}..{st.bad}",
                "--",
                self.sub_path or ".",
            )
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
            self._pointers = pointers
        return self._pointers

    def expected_total(self) -> int:
        st = self.st
        done = len(st.steps)
        if st.phase == "done":
            return done
        level1 = self._decide(st.level1).remaining if st.level1.items else 0
        rest = {
            "verify_good": 2 + level1,
            "verify_bad": 1 + level1,
            "level1": level1,
            "split_pointer": 1,
            "split_source": 1,
        }.get(st.phase)
        if rest is None:
            rest = self._decide(st.level2).remaining if st.level2 else 0
        return done + rest

    def _ref(self, repo: Path, sha: str) -> CommitRef:
        info = gitrepo.commit_info(repo, sha)
        return CommitRef(commit=sha, short=short(sha), subject=info.subject, author=info.author, date=info.date)

    def _sub_repo(self) -> Path:
        if self.sub_source is None:
            raise ToolFailure("the submodule's local object store is gone; bisect_reset and start again")
        return self.sub_source

    # ---- what to test next -------------------------------------------------------------------

    def plan(self) -> Point | None:
        """The next point to test, moving between phases as answers arrive; None when done."""
        st = self.st
        for _ in range(8):
            if st.phase == "done":
                return None
            if st.phase == "verify_good":
                return Point("verify_good", None, st.good, self.ptr(st.good))
            if st.phase == "verify_bad":
                return Point("verify_bad", None, st.bad, self.ptr(st.bad))
            if st.phase == "level1":
                d = self._decide(st.level1)
                if d.test:
                    c = st.level1.items[d.test[0]]
                    return Point("level1", d.test[0], c, self._level1_ptr(d.test[0]))
                if d.found is not None:
                    self._level1_found(st.level1.items[d.found])
                    continue
                self._candidates([st.level1.items[i] for i in d.candidates], None)
                return None
            if st.phase == "split_pointer":
                parent = self._parent(st.culprit.commit)  # type: ignore[union-attr]
                return Point("split_pointer", None, parent, st.move.new)  # type: ignore[union-attr]
            if st.phase == "split_source":
                return Point("split_source", None, st.culprit.commit, st.move.old)  # type: ignore[union-attr]
            ph = st.level2
            assert ph is not None
            d = self._decide(ph)
            if d.test:
                return Point(ph.name, d.test[0], ph.superproject or st.bad, ph.items[d.test[0]])
            if d.found is not None:
                self._level2_found(ph, ph.items[d.found])
                return None
            self._candidates([ph.items[i] for i in d.candidates], self.sub_path)
            return None
        raise RuntimeError(f"bisect planner did not settle in phase {st.phase}")

    def _parent(self, sha: str) -> str:
        parents = gitrepo.commit_info(self.repo, sha).parents
        if not parents:
            raise ToolFailure(f"{short(sha)} has no parent to split against")
        return parents[0]

    def _finish(self, outcome: str, message: str) -> None:
        self.st.phase, self.st.outcome, self.st.message = "done", outcome, message  # type: ignore[assignment]

    def _candidates(self, shas: list[str], where: str | None) -> None:
        repo = self.repo if where is None else self._sub_repo()
        self.st.candidates = [self._ref(repo, s) for s in shas]
        self.st.candidates_in = where or "superproject"
        skipped = [s for s in self.st.steps if s.verdict == "skip"]
        reasons = sorted({s.reason for s in skipped})[:3]
        place = "" if where is None else f" in {where}"
        self._finish(
            "candidates",
            f"The first bad commit{place} is one of these {len(shas)} commits: the ones before "
            f"the last could not be tested ({'; '.join(reasons) or 'skipped'}). perfkit does not guess "
            "between them.",
        )

    # ---- what a level-1 culprit calls for ------------------------------------------------------

    def _evaluate(self, sha: str):
        from perfkit.culprit.evaluate import evaluate_culprit

        path = self.sub_path
        parent = gitrepo.commit_info(self.repo, sha).parents
        known = path and (self.ptr(sha) is not None or (parent and self.ptr(parent[0]) is not None))
        return evaluate_culprit(str(self.repo), sha, submodule=path if known else None)

    def _direction(self, old: str | None, new: str | None, reported: str) -> str:
        if reported not in ("unknown",) or not old or not new or self.sub_source is None:
            return reported
        src = self.sub_source
        if not all(gitrepo.git_ok(src, "cat-file", "-e", f"{c}^{{commit}}") for c in (old, new)):
            return "unknown"
        if gitrepo.is_ancestor(src, old, new):
            return "forward"
        if gitrepo.is_ancestor(src, new, old):
            return "backward"
        return "sideways"

    def _level1_found(self, sha: str) -> None:
        st = self.st
        try:
            report = self._evaluate(sha)
        except Exception as exc:  # the answer stands even when the commit cannot be classified
            ref = self._ref(self.repo, sha)
            st.culprit = Culprit(**ref.model_dump(), kind="unknown")
            st.reproduce_point = (sha, self.ptr(sha))
            self._finish(
                "stopped",
                f"Found: {ref.short} {ref.subject} is the first bad commit; it could not be "
                f"classified ({exc}), so no second level ran.",
            )
            return
        st.culprit = Culprit(
            commit=sha,
            short=short(sha),
            subject=report.subject,
            author=report.author,
            date=report.date,
            kind=report.kind,
        )
        st.reproduce_point = (sha, self.ptr(sha))
        head = f"{short(sha)} {report.subject}"
        move = (
            report.submodule if self.sub_path and report.submodule and report.submodule.path == self.sub_path else None
        )
        if move is None:
            self._finish(
                "found",
                f"Found: {head} is the first bad commit; it does not move "
                f"{self.sub_path or 'any submodule'}, so the regression is in its own changes.",
            )
            return
        direction = self._direction(move.old, move.new, move.direction)
        st.move = PointMove(path=move.path, old=move.old, new=move.new, direction=direction)
        pointer_only = report.kind != "mixed"
        if direction not in ("forward", "backward"):
            why = {
                "added": "it adds the submodule",
                "removed": "it removes the submodule",
                "sideways": "the new pointer is not a descendant or an ancestor of the old one",
                "unknown": "the submodule commits are not in your local clone",
            }.get(direction, direction)
            self._finish(
                "stopped",
                f"Found: {head} is the first bad commit and moves {move.path} "
                f"{short(move.old)} -> {short(move.new)}; no second level: {why}.",
            )
            return
        if pointer_only:
            if direction == "forward":
                self._start_submodule("level2", sha, move.old, move.new)  # type: ignore[arg-type]
            else:
                self._start_submodule("find_fix", sha, move.new, move.old)  # type: ignore[arg-type]
            return
        st.phase = "split_pointer"

    def _start_submodule(self, name: str, superproject: str, frm: str, to: str) -> None:
        """Level 2 (forward bump) or find-fix (rollback): both ends are known already, so no runs."""
        st = self.st
        src = self._sub_repo()
        missing = [c for c in (frm, to) if not gitrepo.git_ok(src, "cat-file", "-e", f"{c}^{{commit}}")]
        if missing:
            names = ", ".join(short(m) for m in missing)
            self._finish(
                "stopped",
                f"{st.culprit.short} moves {self.sub_path}, but {names} "  # type: ignore[union-attr]
                f"is not in your local clone of {self.sub_path}: fetch it there and start again for level 2.",
            )
            return
        items = gitrepo.git(src, "rev-list", "--first-parent", "--reverse", f"{frm}..{to}").split()
        if gitrepo.is_shallow(src) and not gitrepo.is_ancestor(src, frm, to):
            self._finish(
                "stopped",
                f"your clone of {self.sub_path} is shallow and does not connect "
                f"{short(frm)} to {short(to)}: unshallow it (git -C {self.sub_path} fetch --unshallow).",
            )
            return
        st.level2 = PhaseData(
            name=name, superproject=superproject, items=items, start_verdict="good" if name == "level2" else "bad"
        )
        st.phase = name  # type: ignore[assignment]

    def _level2_found(self, ph: PhaseData, sha: str) -> None:
        st = self.st
        ref = self._ref(self._sub_repo(), sha)
        role = "regression" if ph.name == "level2" else "dropped_fix"
        st.submodule_culprit = SubmoduleCulprit(
            **ref.model_dump(), path=self.sub_path or "", role=role, superproject=ph.superproject or ""
        )
        c, m = st.culprit, st.move
        assert c is not None and m is not None
        split = ""
        if ph.superproject != c.commit:
            split = (
                f" It also changes source; with only the pointer moved (its parent plus {self.sub_path} "
                f"{short(m.new)}) the check fails too, so the {self.sub_path} move is responsible."
            )
        if role == "regression":
            st.reproduce_point = (ph.superproject or c.commit, sha)
            self._finish(
                "found",
                f"Found: {c.short} {c.subject} moves {self.sub_path} {short(m.old)} -> "
                f"{short(m.new)} ({len(ph.items)} commits).{split} Inside it, {ref.short} {ref.subject} "
                f"is the first bad {self.sub_path} commit.",
            )
        else:
            self._finish(
                "found",
                f"Found: {c.short} {c.subject} moves {self.sub_path} back from {short(m.old)} "
                f"to {short(m.new)}, dropping {len(ph.items)} commits.{split} Among them, {ref.short} "
                f"{ref.subject} is the first whose presence makes the check pass: the rollback "
                "dropped that fix.",
            )

    # ---- recording an answer -------------------------------------------------------------------

    def apply(self, point: Point, rec: StepRecord) -> None:
        st = self.st
        v = rec.verdict
        what = f"{v} ({rec.reason})"
        if point.phase == "verify_good":
            if v == "good":
                st.phase = "verify_bad"
            else:
                self._finish(
                    "good_end_not_good",
                    f"The good end {short(st.good)} is not good: {what}. Nothing "
                    "was bisected: check `good`, the run command and the pass/fail patterns.",
                )
        elif point.phase == "verify_bad":
            if v == "bad":
                st.phase = "level1"
            else:
                self._finish(
                    "bad_end_not_bad",
                    f"The bad end {short(st.bad)} does not fail: {what}. Nothing "
                    "was bisected: check `bad`, the run command and the fail pattern.",
                )
        elif point.phase == "level1":
            st.level1.marks[point.index] = v  # type: ignore[index]
        elif point.phase in ("level2", "find_fix"):
            st.level2.marks[point.index] = v  # type: ignore[union-attr,index]
        elif point.phase == "split_pointer":
            c, m = st.culprit, st.move
            assert c is not None and m is not None
            if v == "bad":
                if m.direction == "forward":
                    self._start_submodule("level2", point.superproject, m.old, m.new)  # type: ignore[arg-type]
                else:
                    self._start_submodule("find_fix", point.superproject, m.new, m.old)  # type: ignore[arg-type]
            elif v == "good":
                st.phase = "split_source"
            else:
                self._finish(
                    "split_untested",
                    f"Found: {c.short} {c.subject} changes source and moves "
                    f"{m.path}; the split test (its parent with only the pointer moved) could not run: "
                    f"{rec.reason}. The culprit is the commit as a whole.",
                )
        elif point.phase == "split_source":
            c, m = st.culprit, st.move
            assert c is not None and m is not None
            head = (
                f"Found: {c.short} {c.subject} changes source and moves {m.path}. The pointer move alone "
                "(its parent with the new pointer) passes"
            )
            if v == "bad":
                self._finish(
                    "source_part",
                    f"{head}, and its source changes alone (with the old pointer) fail: "
                    "the source part is responsible.",
                )
            elif v == "good":
                self._finish(
                    "only_together",
                    f"{head}, and its source changes alone (with the old pointer) pass "
                    "too: the two halves fail only together.",
                )
            else:
                self._finish(
                    "split_untested",
                    f"{head}; its source changes alone could not be tested "
                    f"({rec.reason}). Most likely the source part is responsible, or the two fail only "
                    "together.",
                )

    # ---- testing a point -----------------------------------------------------------------------

    def _env(self, checkout: Path, sub_dir: Path | None, point: Point | None, step: int | None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _GIT_REDIRECTS}
        env.update(
            PERFKIT_CHECKOUT=str(checkout),
            PERFKIT_SUBMODULE=str(sub_dir) if sub_dir else "",
            PERFKIT_BISECT_ID=self.st.id,
        )
        if point is not None:
            env.update(PERFKIT_COMMIT=point.superproject, PERFKIT_SUBMODULE_COMMIT=point.submodule or "")
        if step is not None:
            env["PERFKIT_STEP"] = str(step)
        return env

    def _on_start(self, pid: int) -> None:
        """Record the command's process group first, so a resume after kill -9 can stop it. Best effort:
        on a full disk the command still runs, and a resume finds it by its marker anyway."""
        self.st.active_pgid = pid
        try:
            self.save(durable=False)
        except ToolFailure:
            pass

    def _super_changed(self, a: str, b: str, sub_a: str | None, sub_b: str | None) -> bool:
        if a != b:
            spec = ["--", ".", f":(exclude){self.sub_path}"] if self.sub_path else []
            if not gitrepo.git_ok(self.repo, "diff", "--quiet", "--no-ext-diff", "--no-textconv", a, b, *spec):
                return True
        # without submodule install commands, the superproject's install is what builds the submodule
        return not self.settings.install_submodule and sub_a != sub_b

    def _sub_changed(self, a: str, b: str) -> bool:
        if a == b:
            return False
        try:
            ta, tb = gitrepo.git(self._sub_repo(), "rev-parse", f"{a}^{{tree}}", f"{b}^{{tree}}").split()
        except (ToolFailure, ValueError):
            return True
        return ta != tb

    def label(self, point: Point) -> tuple[str, str]:
        """(short label, subject) of a point: the commit it varies, or both halves for a split test."""
        if point.phase in ("split_pointer", "split_source"):
            sup = short(point.superproject)
            what = (
                "pointer move alone: the culprit's parent with the new pointer"
                if point.phase == "split_pointer"
                else "source change alone: the culprit with the old pointer"
            )
            return f"{sup}+{self.sub_path}@{short(point.submodule)}", what
        if point.phase in ("level2", "find_fix") and point.submodule:
            ref = self._ref(self._sub_repo(), point.submodule)
            return f"{self.sub_path}@{ref.short}", ref.subject
        ref = self._ref(self.repo, point.superproject)
        return ref.short, ref.subject

    def test(self, point: Point) -> StepRecord:
        st, s = self.st, self.settings
        n = len(st.steps) + 1
        short_label, subject = self.label(point)
        total = max(self.expected_total(), n)
        head = f"Step {n} of about {total}: {short_label} {subject}"
        started = time.monotonic()
        log = runner.Log(self.logs / f"step-{n:03d}.log", int(s.log_cap_mb * 1024 * 1024))
        installed: list[str] = []

        def tick(activity: str):
            def beat(elapsed: float) -> None:
                self.progress(n - 1, total, f"{head}: {activity} {elapsed:.0f}s")

            return beat

        try:
            log.note(
                f"perfkit step {n} ({point.phase}): superproject {point.superproject}, "
                f"{self.sub_path or 'submodule'} {point.submodule or '-'}\n"
            )
            self.progress(n - 1, total, f"{head}: checking out")
            c = self._test_inner(point, log, n, installed, tick)
        finally:
            log.close()
            st.active_pgid = None
        if log.error:
            st.notes.append(f"the log of step {n} is incomplete: {log.error}")
        sides = (1 if s.install else 0) + (1 if s.install_submodule and point.submodule else 0)
        st.installs += len(installed)
        st.installs_saved += max(0, sides - len(installed))
        rec = StepRecord(
            n=n,
            phase=point.phase,
            superproject=point.superproject,
            submodule=point.submodule,
            short=short_label,
            subject=subject,
            verdict=c.verdict,
            reason=c.reason,
            metric=c.metric,
            exit_code=self._exit,
            installed=installed,
            duration_s=round(time.monotonic() - started, 3),
            log=str(log.path),
            ran=self._ran,
        )
        return rec

    def _test_inner(self, point: Point, log: runner.Log, n: int, installed: list[str], tick) -> verdicts.Classified:
        st, s = self.st, self.settings
        self._ran, self._exit, self._last = False, None, None
        try:
            self.checkout.ensure(point.superproject)
            st.worktree = str(self.checkout.path)
            self.checkout.sync(point.superproject, point.submodule)
        except Unavailable as exc:
            log.note(f"[perfkit: {exc}]\n")
            return verdicts.Classified("skip", str(exc), None)
        finally:
            # a checkout made afresh (first step, or a crash left a broken one) holds no build
            if "superproject" in self.checkout.created:
                st.installed_super = None
            if "submodule" in self.checkout.created:
                st.installed_sub = None
            self.checkout.created.clear()
        wt, sub_dir = self.checkout.path, self.checkout.sub_dir if point.submodule else None
        env = self._env(wt, sub_dir, point, n)
        if s.install and (
            st.installed_super is None
            or self._super_changed(st.installed_super, point.superproject, st.installed_super_sub, point.submodule)
        ):
            if not self._install("superproject", s.install, wt, env, log, tick, installed):
                return self._last  # type: ignore[return-value]
            st.installed_super, st.installed_super_sub = point.superproject, point.submodule
        if (
            s.install_submodule
            and sub_dir is not None
            and point.submodule
            and (st.installed_sub is None or self._sub_changed(st.installed_sub, point.submodule))
        ):
            if not self._install("submodule", s.install_submodule, sub_dir, env, log, tick, installed):
                return self._last  # type: ignore[return-value]
            st.installed_sub = point.submodule
        cwd = Path(s.run_cwd) if s.run_cwd and os.path.isabs(s.run_cwd) else wt / (s.run_cwd or "")
        scan = verdicts.scanner(s)
        self._ran = True
        res = runner.run(s.run, cwd, env, s.timeout_s, log, scan, tick("running"), self._on_start)
        self._exit = res.exit_code
        return verdicts.classify(res, scan)

    def _install(
        self,
        side: str,
        commands: list[str],
        cwd: Path,
        env: dict[str, str],
        log: runner.Log,
        tick,
        installed: list[str],
    ) -> bool:
        st = self.st
        # a crash mid-install needs no marker: the resume plans this same point and reinstalls it
        if side == "superproject":
            st.installed_super = None
        else:
            st.installed_sub = None
        if st.environment != "worktree":
            st.environment = "worktree"
            self.save()
        installed.append(side)
        for cmd in commands:
            res = runner.run(
                cmd, cwd, env, self.settings.install_timeout_s, log, None, tick(f"installing {side}"), self._on_start
            )
            if not res.ok:
                self._last = verdicts.install_failed(side, res)
                return False
        return True

    def step(self) -> StepRecord | None:
        """Test one point and record it; None when there was nothing left to test."""
        point = self.plan()
        if point is None:
            self.save()
            return None
        rec = self.test(point)
        self.st.steps.append(rec)
        self.apply(point, rec)
        self.plan()  # settle phase changes (level 1 found -> level 2 ...) so status is current
        self.save()
        return rec

    # ---- leaving -------------------------------------------------------------------------------

    def restore_environment(self) -> bool | None:
        """Re-run the install commands against the user's own checkout; None when nothing to do."""
        st, s = self.st, self.settings
        if st.environment == "user":
            return None
        st.installed_super = st.installed_sub = st.installed_super_sub = None
        if not s.install and not s.install_submodule:
            st.environment = "user"
            return None
        log = runner.Log(self.logs / "restore.log", int(s.log_cap_mb * 1024 * 1024))
        sub_dir = self.repo / self.sub_path if self.sub_path else None
        env = self._env(self.repo, sub_dir, None, None)
        ok = True
        try:
            log.note(f"perfkit: re-running the install commands against {self.repo}\n")
            for cmd in s.install:
                ok = runner.run(cmd, self.repo, env, s.install_timeout_s, log, on_start=self._on_start).ok and ok
            if s.install_submodule:
                if sub_dir is not None and (sub_dir / ".git").exists():
                    for cmd in s.install_submodule:
                        ok = runner.run(cmd, sub_dir, env, s.install_timeout_s, log, on_start=self._on_start).ok and ok
                else:
                    st.notes.append(
                        f"your {self.sub_path} checkout is not initialised, so install_submodule was "
                        "not re-run against it"
                    )
        finally:
            log.close()
            st.active_pgid = None
        st.environment = "user" if ok else "unknown"
        if not ok:
            st.notes.append(
                f"re-running the install commands against your checkout failed (see {log.path}); run them by hand"
            )
        return ok

    def close(self, finished: bool) -> bool | None:
        """Give the user their environment back and remove the worktree; the state stays for status."""
        try:
            restored = self.restore_environment()
        finally:  # the worktree goes even when restoring failed (it may be what fills the disk)
            self.checkout.remove()
            self.st.worktree = None
        self.st.finalized = finished
        self.save()
        return restored

    def recover(self) -> None:
        """After a crash: stop commands the dead process left running (only ours, by marker), including
        children that left the command's process group."""
        pgid = self.st.active_pgid
        marker = f"PERFKIT_BISECT_ID={self.st.id}"
        if pgid:
            for pid in _group_members(pgid):
                if runner.owned_by(pid, marker):
                    runner.kill_group(pgid)
                    break
            self.st.active_pgid = None
        runner.sweep(marker)


def _group_members(pgid: int) -> list[int]:
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for name in entries:
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            out.append(int(name))
    return out


# ---- reports --------------------------------------------------------------------------------------


def reproduce_script(st: State, repo: Path) -> str | None:
    """A bash script that rebuilds the culprit's failing point in a throwaway worktree and runs the check."""
    if not st.reproduce_point or st.outcome in ("good_end_not_good", "bad_end_not_bad", "candidates"):
        return None
    sup, sub = st.reproduce_point
    s = st.settings
    q = shlex.quote
    lines = [
        "set -e",
        f'D="$(mktemp -d)"/{q(repo.name)}',
        f'git -C {q(str(repo))} -c core.hooksPath=/dev/null worktree add --detach "$D" {sup}',
    ]
    sub_dir = '"$D"/' + q(s.submodule) if s.submodule else None
    if sub and s.submodule and st.submodule_source:
        lines += [
            f"git clone -q --shared --no-checkout {q(st.submodule_source)} {sub_dir}",
            f"git -C {sub_dir} -c core.hooksPath=/dev/null checkout -q --detach {sub}",
        ]
    env = 'PERFKIT_CHECKOUT="$D" PERFKIT_SUBMODULE=' + (sub_dir or "''")
    for cmd in s.install:
        lines.append(f'(cd "$D" && {env} bash -c {q(cmd)})')
    if sub_dir and sub:
        for cmd in s.install_submodule:
            lines.append(f"(cd {sub_dir} && {env} bash -c {q(cmd)})")
    if s.run_cwd and os.path.isabs(s.run_cwd):
        cwd = q(s.run_cwd)
    else:
        cwd = '"$D"' + ("/" + q(s.run_cwd) if s.run_cwd else "")
    lines.append(f"cd {cwd} && {env} bash -c {q(s.run)}")
    cleanup = f'rm -rf {sub_dir or "$D/<none>"}; git -C {q(str(repo))} worktree remove --force "$D"'
    # a line break in a path would end the comment and run the rest: never in a comment
    lines.append("# clean up: " + cleanup.replace("\n", "?").replace("\r", "?"))
    return "\n".join(lines)


def status_of(
    st: State, repo: Path, sdir: Path, running_pid: int | None, expected: int, stale: bool = False
) -> BisectStatus:
    runs = sum(1 for s in st.steps if s.ran)
    msg = st.message
    notes = list(st.notes)
    if st.phase != "done":
        if running_pid:
            msg = f"Bisect running in pid {running_pid}: {len(st.steps)} of about {expected} steps done ({st.phase})."
        elif stale:
            msg = (
                f"Bisect interrupted: the process working on it stopped without cleaning up. "
                f"{len(st.steps)} of about {expected} steps are recorded; bisect_step or bisect_run resumes "
                "from there, bisect_reset removes the worktree and state and restores your environment."
            )
        else:
            msg = (
                f"Bisect paused in phase {st.phase}: {len(st.steps)} of about {expected} steps done; "
                "bisect_step or bisect_run continues."
            )
    elif stale and not st.finalized:
        msg += (
            " The process that finished the bisect stopped before cleaning up: the worktree may still be there "
            "and your environment may still point at it; bisect_run finishes the clean-up, bisect_reset "
            "removes everything."
        )
    if not st.settings.verify_ends and st.phase == "done" and st.outcome in ("found", "candidates"):
        notes.append("the ends were not verified (verify_ends=false): the culprit assumes good passes and bad fails")
    return BisectStatus(
        repo=str(repo),
        active=True,
        done=st.phase == "done",
        phase=st.phase,
        outcome=st.outcome,
        message=msg,
        good=st.good,
        bad=st.bad,
        submodule=st.settings.submodule,
        level1_commits=len(st.level1.items),
        level2_commits=len(st.level2.items) if st.level2 else None,
        expected_steps=expected,
        culprit=st.culprit,
        submodule_culprit=st.submodule_culprit,
        candidates=st.candidates,
        candidates_in=st.candidates_in,
        steps=st.steps,
        runs=runs,
        installs=st.installs,
        installs_saved=st.installs_saved,
        reproduce=reproduce_script(st, repo) if st.phase == "done" else None,
        environment=st.environment,
        worktree=st.worktree,
        state_dir=str(sdir),
        running_pid=running_pid,
        settings=st.settings,
        notes=notes,
    )


def step_line(rec: StepRecord, expected: int) -> str:
    return f"Step {rec.n} of about {max(expected, rec.n)}: {rec.short} {rec.subject} -> {rec.verdict} ({rec.reason})"
