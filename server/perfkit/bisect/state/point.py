"""A tested point, the unit every part of the bisect passes around, and the git lookups that name it.

A point is a pair (superproject commit, submodule commit): the planner chooses it, a worker tests
it, the report describes it. Keeping the pair explicit is what lets a level-2 point (superproject
held, submodule moving) and a split test (parent with the new pointer) go through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfkit.bisect.models import CommitRef, Phase
from perfkit.repo import gitrepo


@dataclass(frozen=True)
class Point:
    phase: Phase
    index: int | None  # position in the phase's search list; None for end checks and split tests
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


def ref(repo: Path, sha: str) -> CommitRef:
    info = gitrepo.commit_info(repo, sha)
    return CommitRef(commit=sha, short=short(sha), subject=info.subject, author=info.author, date=info.date)


def work_paths(sdir: Path, repo: Path) -> tuple[Path, Path, Path]:
    """(worktree, parking place of the submodule clone, logs) of the bisect kept in sdir."""
    return sdir / "worktree" / repo.name, sdir / "parked-submodule", sdir / "logs"
