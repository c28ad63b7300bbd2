"""The step that follows from a culprit's kind: where the regression lives and how to find it.

A forward bump hides the culprit among the submodule commits it brings in; a rollback drops
commits, so what broke is most likely a fix that went missing; a mixed commit must first be
split to learn which half is responsible. The sentence is for the person, the fields for the
bisect engine.
"""

from __future__ import annotations

import math
from typing import Any

from perfkit.culprit.models import CulpritKind, NextAction, SubmoduleMove, commit_count


def _steps(n: int) -> int:
    return max(1, math.ceil(math.log2(n + 1))) if n else 0


def reading(flagged: int, stat: str) -> str:
    """The advice on reading the commit's own diff."""
    return _read(flagged, stat)


def _read(flagged: int, stat: str) -> str:
    if flagged:
        hunks = f"{flagged} flagged hunk{'s' if flagged != 1 else ''}"
        return f"start with the {hunks} under highlights, then the rest of the diff ({stat})"
    return f"no hunk matched the precision rules, so read the whole diff ({stat})"


def next_action(
    kind: CulpritKind, commit: str, parent: str | None, move: SubmoduleMove | None, flagged: int, stat: str
) -> NextAction:
    c, p = commit[:12], (parent or "")[:12]
    if move is None or kind == "source":
        return NextAction(
            kind="read_highlights",
            sentence=f"The regression is in this repository's own change at {c}: {_read(flagged, stat)}.",
        )
    path, old, new = move.path, move.old, move.new
    o, n = (old or "")[:12], (new or "")[:12]
    base: dict[str, Any] = dict(
        submodule=path,
        old=old,
        new=new,
        direction=move.direction,
        commits=move.commits_between,
        first_parent_commits=move.first_parent_commits,
    )
    if move.direction == "unknown":
        return NextAction(
            kind="fetch_submodule",
            **base | {"commits": None, "first_parent_commits": None},
            superproject_commit=commit,
            sentence=f"The local clone of '{path}' cannot say how {o} -> {n} is ordered or how many "
            f"commits lie between: run `{move.fetch_hint}` and evaluate {c} again before any "
            f"second-level search.",
        )
    if kind == "submodule_added":
        return NextAction(
            kind="read_highlights",
            **base,
            superproject_commit=commit,
            sentence=f"{c} starts pinning '{path}' at {n}; before it '{path}' came from outside the "
            f"repository, so there is no pinned range to bisect. Test the parent {p} with '{path}' "
            f"at {n} to separate '{path}' from the source change; {_read(flagged, stat)}.",
        )
    if kind == "submodule_removed":
        return NextAction(
            kind="read_highlights",
            **base,
            superproject_commit=commit,
            sentence=f"{c} stops pinning '{path}' (it was at {o}); {_read(flagged, stat)}.",
        )
    k = move.commits_between or 0
    fp = move.first_parent_commits
    count = commit_count(k, fp)
    steps = _steps(k if fp is None else fp)  # the search walks the first-parent line
    if kind == "submodule_rollback":
        return NextAction(
            kind="find_fix",
            **base,
            range=f"{new}..{old}",
            superproject_commit=commit,
            sentence=f"The pointer of '{path}' went back from {o} to {n}, dropping {count}, so the "
            f"regression is most likely a fix that was dropped. Hold {c} and search {n}..{o} for the "
            f"first commit whose presence makes the check pass (a find-fix search, about {steps} "
            f"steps: at {n} it fails, at {o} it should pass).",
        )
    if kind == "mixed":
        back = move.direction == "backward"
        moved = (
            f"moves '{path}' back ({o} -> {n}, dropping {count})" if back else f"moves '{path}' ({o} -> {n}, {count})"
        )
        follow = (
            (
                f"the rollback is responsible: run a find-fix search over {n}..{o} (about {steps} steps) "
                f"holding {p}, for the first commit whose presence makes the check pass"
            )
            if back
            else f"'{path}' is responsible: bisect {o}..{n} (about {steps} steps) holding {p}"
        )
        if move.direction == "sideways":
            follow += f" from the merge base {(move.merge_base or '')[:12]}"
        return NextAction(
            kind="split_test",
            **base,
            range=f"{new}..{old}" if back else f"{old}..{new}",
            superproject_commit=parent,
            sentence=f"{c} {moved} and changes source. Split test first: check the parent {p} with "
            f"only '{path}' moved to {n}. If that fails, {follow}. If it passes, check {c} with "
            f"'{path}' held at {o}: if that fails, the source part is responsible; if it passes, the "
            f"two only fail together. For the source part, {_read(flagged, stat)}.",
        )
    if kind == "submodule_sideways":
        mb = (move.merge_base or "")[:12]
        return NextAction(
            kind="bisect_submodule",
            **base,
            range=f"{old}..{new}",
            superproject_commit=commit,
            sentence=f"'{path}' moved sideways from {o} to {n}. Bisect from the merge base {mb} (good) "
            f"to {n} (bad) holding {c}, {count} new on that side; if none breaks the check, search "
            f"{mb}..{o} for a dropped fix.",
        )
    return NextAction(
        kind="bisect_submodule",
        **base,
        range=f"{old}..{new}",
        superproject_commit=commit,
        sentence=f"Run a second-level bisect in '{path}': hold {c}, mark {o} good and {n} bad; {count}, "
        f"about {steps} steps.",
    )
