"""What a merge culprit brings in: the commits of its other parents, each read on its own.

A first-parent bisect names the merge, and the merge's diff against its first parent holds every
merged change at once. Reading each merged commit against its own first parent says which of them
holds the line that moved the numbers. One git process per commit, at most MAX_MERGED of them
(oldest first, the order they were written in); the total is always counted.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.culprit.commitdiff import commit_diff, empty_tree
from perfkit.culprit.highlights import rank, too_big
from perfkit.culprit.models import MergedCommit
from perfkit.repo import gitrepo

MAX_MERGED = 20
HIGHLIGHTS_EACH = 5


def merged_commits(repo: Path, commit: str, parents: list[str], limit: int) -> tuple[list[MergedCommit], int]:
    """(the first MAX_MERGED commits the merge brings in, each with its highlights; how many it brings in)."""
    if len(parents) < 2:
        return [], 0
    spec = [*parents[1:], f"^{parents[0]}"]
    total = int(gitrepo.git(repo, "rev-list", "--count", *spec, "--").strip() or 0)
    shas = gitrepo.git(repo, "rev-list", "--reverse", "--topo-order", *spec, "--").split()[:MAX_MERGED]
    out: list[MergedCommit] = []
    for sha in shas:
        info = gitrepo.commit_info(repo, sha)
        base = info.parents[0] if info.parents else empty_tree(repo)
        diff = commit_diff(repo, base, sha)
        big = frozenset(f.path for f in diff.files if not f.is_submodule and too_big(f.added, f.deleted))
        highlights, flagged = rank(diff.diffs, min(limit, HIGHLIGHTS_EACH), big)
        out.append(
            MergedCommit(
                commit=sha,
                short=sha[:12],
                subject=info.subject,
                author=info.author,
                date=info.date,
                pr_number=gitrepo.pr_number(info.subject),
                is_merge=len(info.parents) > 1,
                stat=diff.stat,
                highlights=highlights,
                highlights_total=flagged,
            )
        )
    return out, total
