"""Check a base..head range once, the same way for both tools, and say what history is missing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perfkit.errors import InputError
from perfkit.repo import gitrepo


@dataclass
class Range:
    repo: Path
    base: str
    head: str
    shallow: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.base == self.head


def open_range(repo: str, base: str, head: str) -> Range:
    """Resolve both ends; refuse a base that head does not contain."""
    top = gitrepo.open_repo(repo)
    b = gitrepo.resolve_commit(top, base, "base")
    h = gitrepo.resolve_commit(top, head, "head")
    shallow = shallow_commits(top)
    if b != h and not gitrepo.is_ancestor(top, b, h):
        hint = (
            " (this clone is shallow: the history between them may be missing; run `git fetch --unshallow`)"
            if shallow
            else ""
        )
        raise InputError(
            "base",
            f"'{base}' ({b[:12]}) is not an ancestor of head '{head}' ({h[:12]}){hint}",
            "pass the commit the delivery branch started from, for example the output of "
            "`git merge-base <main-branch> <head>`",
        )
    r = Range(top, b, h, shallow)
    if r.shallow:
        r.warnings.append(
            f"shallow clone: history stops at {len(r.shallow)} boundary commit(s); run "
            "`git fetch --unshallow` for a complete answer"
        )
    return r


def shallow_commits(repo: Path) -> set[str]:
    """Commits whose parents a shallow clone does not have (empty for a full clone)."""
    if not gitrepo.is_shallow(repo):
        return set()
    path = Path(gitrepo.git(repo, "rev-parse", "--path-format=absolute", "--git-path", "shallow").strip())
    try:
        return {line.strip() for line in path.read_text().splitlines() if line.strip()}
    except OSError:
        return set()


def first_parent_commits(r: Range) -> list[str]:
    """base..head along head's first parents, oldest first."""
    if r.empty:
        return []
    out = gitrepo.git(r.repo, "rev-list", "--first-parent", "--reverse", f"{r.base}..{r.head}", "--")
    shas = out.split()
    if shas:
        first_parent = gitrepo.git(r.repo, "rev-parse", f"{shas[0]}^1").strip() if shas[0] not in r.shallow else ""
        if first_parent != r.base:
            r.warnings.append(
                f"base {r.base[:12]} is not on head's first-parent line: the first listed commit "
                f"{shas[0][:12]} is diffed against its own first parent, so the per-commit diffs "
                "cover more than base..head"
            )
    return shas
