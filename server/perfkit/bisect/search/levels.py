"""What an answer means: when a search ends, what its culprit calls for next, and the words of each end.

A level-1 culprit that only moves the submodule pointer forward starts level 2 inside the move; a
rollback starts a find-fix search over the commits it dropped; a commit that moves the pointer and
changes source gets a split test first; anything else ends the bisect with a message saying why no
second level ran. Each end sets the outcome and the one message the user reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from perfkit.bisect.models import CommitRef, Culprit, Direction, Outcome, SearchName, SubmoduleCulprit
from perfkit.bisect.state.point import pointer, ref, short
from perfkit.bisect.state.store import PhaseData, PointMove, State
from perfkit.culprit.models import CulpritReport
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

_NO_LEVEL2 = {
    "added": "it adds the submodule",
    "removed": "it removes the submodule",
    "sideways": "the old and the new pointer share no history",
    "unknown": "the submodule commits are not in your local clone",
}
DROPPED_CAP = 50  # commits of a sideways move's old side listed in the answer (all are counted)


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


class Levels:
    """The transitions between searches; the planner (planner.py) decides when to call them."""

    def __init__(self, repo: Path, st: State):
        self.repo = repo
        self.st = st
        self.sub_path = st.settings.submodule
        self.sub_source = Path(st.submodule_source) if st.submodule_source else None

    def ptr(self, commit: str) -> str | None:
        return pointer(self.repo, commit, self.sub_path)

    def sub_repo(self) -> Path:
        if self.sub_source is None:
            raise ToolFailure("the submodule's local object store is gone; bisect_reset and start again")
        return self.sub_source

    def culprit_and_move(self) -> tuple[Culprit, PointMove]:
        c, m = self.st.culprit, self.st.move
        if c is None or m is None:
            raise RuntimeError(f"bisect phase {self.st.phase} needs a level-1 culprit that moves the submodule")
        return c, m

    def finish(self, outcome: Outcome, message: str) -> None:
        self.st.phase, self.st.outcome, self.st.message = "done", outcome, message

    def candidates(self, shas: list[str], where: str | None) -> None:
        repo = self.repo if where is None else self.sub_repo()
        self.st.candidates = [ref(repo, s) for s in shas]
        self.st.candidates_in = where or "superproject"
        skipped = [s for s in self.st.steps if s.verdict == "skip"]
        reasons = sorted({s.reason for s in skipped})[:3]
        place = "" if where is None else f" in {where}"
        self.finish(
            "candidates",
            f"The first bad commit{place} is one of these {plural(len(shas), 'commit')}: the ones before "
            f"the last could not be tested ({'; '.join(reasons) or 'skipped'}). perfkit does not guess "
            "between them.",
        )

    # ---- what a level-1 culprit calls for ------------------------------------------------------

    def _evaluate(self, sha: str) -> CulpritReport:
        from perfkit.culprit.evaluate import evaluate_culprit

        path = self.sub_path
        parent = gitrepo.commit_info(self.repo, sha).parents
        known = path and (self.ptr(sha) is not None or (parent and self.ptr(parent[0]) is not None))
        return evaluate_culprit(str(self.repo), sha, submodule=path if known else None)

    def _direction(self, old: str | None, new: str | None, reported: Direction) -> Direction:
        if reported != "unknown" or not old or not new or self.sub_source is None:
            return reported
        src = self.sub_source
        if not all(gitrepo.git_ok(src, "cat-file", "-e", f"{c}^{{commit}}") for c in (old, new)):
            return "unknown"
        if gitrepo.is_ancestor(src, old, new):
            return "forward"
        if gitrepo.is_ancestor(src, new, old):
            return "backward"
        return "sideways"

    def level1_found(self, sha: str) -> None:
        st = self.st
        try:
            report = self._evaluate(sha)
        except Exception as exc:  # the answer stands even when the commit cannot be classified
            r = ref(self.repo, sha)
            st.culprit = Culprit(**r.model_dump(), kind="unknown")
            st.reproduce_point = (sha, self.ptr(sha))
            self.finish(
                "stopped",
                f"Found: {r.short} {r.subject} is the first bad commit; it could not be "
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
            self.finish(
                "found",
                f"Found: {head} is the first bad commit; it does not move "
                f"{self.sub_path or 'any submodule'}, so the regression is in its own changes.",
            )
            return
        direction = self._direction(move.old, move.new, move.direction)
        st.move = PointMove(path=move.path, old=move.old, new=move.new, direction=direction)
        searchable = direction in ("forward", "backward") or direction == "sideways" and self._base(st.move)
        if not searchable or move.old is None or move.new is None:
            self.finish(
                "stopped",
                f"Found: {head} is the first bad commit and moves {move.path} "
                f"{short(move.old)} -> {short(move.new)}; no second level: {_NO_LEVEL2.get(direction, direction)}.",
            )
            return
        if report.kind == "mixed":
            st.phase = "split_pointer"
        else:
            self.submodule_search(sha, st.move)

    def submodule_search(self, superproject: str, move: PointMove) -> None:
        """Level 2 for a forward move, find-fix for a rollback, with the superproject held at `superproject`;
        a sideways move searches its new side from the merge base (see _sideways)."""
        if move.old is None or move.new is None:
            raise RuntimeError("a submodule search needs both pointers")
        if move.direction == "forward":
            self._start_submodule("level2", superproject, move.old, move.new)
        elif move.direction == "backward":
            self._start_submodule("find_fix", superproject, move.new, move.old)
        else:
            self._sideways(superproject, move)

    def _base(self, move: PointMove) -> str | None:
        """The merge base of a sideways move's two pointers, when the local clone has one."""
        src = self.sub_source
        if src is None or move.old is None or move.new is None:
            return None
        try:
            return gitrepo.git(src, "merge-base", move.old, move.new).strip() or None
        except ToolFailure:
            return None

    def _sideways(self, superproject: str, move: PointMove) -> None:
        """A pointer moved from one line of history to another (a release tag to master): the commits new on
        the new side are searched from the merge base, which is tested first as the search's first point
        (the old pointer, known to pass, stands before it). A merge base that fails means the old side
        carried a fix the new side lacks: a find-fix search over the old side's commits follows. The
        commits the move dropped (only the old side has them) are listed either way."""
        st = self.st
        src = self.sub_repo()
        base = self._base(move)
        if base is None or move.old is None or move.new is None:
            raise RuntimeError("a sideways move needs a merge base")
        st.sideways_base = base
        dropped = gitrepo.git(src, "rev-list", "--reverse", f"{move.new}..{move.old}").split()
        st.dropped = [ref(src, c) for c in dropped[:DROPPED_CAP]]
        st.dropped_count = len(dropped)
        self._start_submodule("level2", superproject, base, move.new, include_start=True)

    def _start_submodule(
        self, name: SearchName, superproject: str, frm: str, to: str, include_start: bool = False
    ) -> None:
        """Both ends are known already (from level 1), so starting costs no runs; include_start puts frm
        itself first in the search (a sideways move's merge base, whose verdict nobody knows)."""
        st = self.st
        src = self.sub_repo()
        culprit, _ = self.culprit_and_move()
        missing = [c for c in (frm, to) if not gitrepo.git_ok(src, "cat-file", "-e", f"{c}^{{commit}}")]
        if missing:
            names = ", ".join(short(m) for m in missing)
            self.finish(
                "stopped",
                f"{culprit.short} moves {self.sub_path}, but {names} "
                f"is not in your local clone of {self.sub_path}: fetch it there and start again for level 2.",
            )
            return
        items = gitrepo.git(src, "rev-list", "--first-parent", "--reverse", f"{frm}..{to}").split()
        items = [frm, *items] if include_start else items
        if gitrepo.is_shallow(src) and not gitrepo.is_ancestor(src, frm, to):
            self.finish(
                "stopped",
                f"your clone of {self.sub_path} is shallow and does not connect "
                f"{short(frm)} to {short(to)}: unshallow it (git -C {self.sub_path} fetch --unshallow).",
            )
            return
        st.level2 = PhaseData(
            name=name, superproject=superproject, items=items, start_verdict="good" if name == "level2" else "bad"
        )
        st.phase = name

    def level2_found(self, ph: PhaseData, sha: str) -> None:
        st = self.st
        c, m = self.culprit_and_move()
        if st.sideways_base and ph.name == "level2" and sha == st.sideways_base and m.old:
            # the merge base fails already: the old side's own commits made it pass; find the one that did
            self._start_submodule("find_fix", ph.superproject or c.commit, st.sideways_base, m.old)
            return
        r = ref(self.sub_repo(), sha)
        role: Literal["regression", "dropped_fix"] = "regression" if ph.name == "level2" else "dropped_fix"
        st.submodule_culprit = SubmoduleCulprit(
            **r.model_dump(), path=self.sub_path or "", role=role, superproject=ph.superproject or ""
        )
        split = ""
        if ph.superproject != c.commit:
            split = (
                f" It also changes source; with only the pointer moved (its parent plus {self.sub_path} "
                f"{short(m.new)}) the check fails too, so the {self.sub_path} move is responsible."
            )
        commits = plural(len(ph.items), "first-parent commit")
        if st.sideways_base:
            self._sideways_found(ph, r, role, split)
            return
        if role == "regression":
            st.reproduce_point = (ph.superproject or c.commit, sha)
            self.finish(
                "found",
                f"Found: {c.short} {c.subject} moves {self.sub_path} {short(m.old)} -> "
                f"{short(m.new)} ({commits}).{split} Inside it, {r.short} {r.subject} "
                f"is the first bad {self.sub_path} commit.",
            )
        else:
            self.finish(
                "found",
                f"Found: {c.short} {c.subject} moves {self.sub_path} back from {short(m.old)} "
                f"to {short(m.new)}, dropping {commits}.{split} Among them, {r.short} "
                f"{r.subject} is the first whose presence makes the check pass: the rollback "
                "dropped that fix.",
            )

    def _sideways_found(self, ph: PhaseData, r: CommitRef, role: str, split: str) -> None:
        st = self.st
        c, m = self.culprit_and_move()
        base = short(st.sideways_base)
        head = (
            f"Found: {c.short} {c.subject} moves {self.sub_path} sideways {short(m.old)} -> {short(m.new)} "
            f"(merge base {base}; {plural(st.dropped_count, 'commit')} only the old side has, listed in "
            f"`dropped`).{split}"
        )
        if role == "regression":
            new_side = plural(len(ph.items) - 1, "commit")
            st.reproduce_point = (ph.superproject or c.commit, r.commit)
            self.finish(
                "found",
                f"{head} The merge base passes; among the {new_side} new on the new side, {r.short} {r.subject} "
                f"is the first bad {self.sub_path} commit.",
            )
        else:
            self.finish(
                "found",
                f"{head} The merge base fails too, so a commit only the old side has made the check pass: "
                f"among the {plural(len(ph.items), 'commit')} from the merge base to the old pointer, {r.short} "
                f"{r.subject} is the first whose presence makes it pass. The move dropped that fix.",
            )
