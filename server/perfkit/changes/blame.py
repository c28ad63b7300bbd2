"""git_blame_removal: who wrote the code a delivery branch deletes, and is its case still covered.

This module only declares the tool; the steps live in blame_run.py (and origins.py, history.py)
and load on the first call, so starting perfkit for another tool does not pay for them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from perfkit.changes.models import BlameResult
from perfkit.repo import gitrepo
from perfkit.tools.spec import Progress, no_progress


def git_blame_removal(
    repo: Annotated[str, Field(description="Path of the target repository checkout.")],
    base: Annotated[
        str,
        Field(
            description="The commit the delivery branch started from (sha, tag or branch); "
            "must be an ancestor of head. The removed lines are blamed here."
        ),
    ],
    head: Annotated[str, Field(description="The delivery branch tip (sha, tag or branch).")] = "HEAD",
    paths: Annotated[
        list[str] | None,
        Field(
            description="Only removals in these files or folders (paths from the repository root, at base or "
            "head). Default: every file."
        ),
    ] = None,
    include_modified: Annotated[
        bool,
        Field(
            description="Also blame lines that were rewritten rather than deleted. Default: only hunks that "
            "delete code (functions, guards, branches, calls, files)."
        ),
    ] = False,
    *,
    progress: Progress = no_progress,
) -> BlameResult:
    """Explain code that base..head deletes, before anyone claims the removal is safe. Blames only
    the deleted lines at base (one `git blame -L a,b -L c,d ... --porcelain -w` per file, after one
    shared walk of a long history; moved blocks are not blamed, renamed files are followed) and
    groups them by the commit that wrote them: sha, subject, author, date, PR number (from the
    subject, or the first-parent merge that brought the commit in), every other file that commit
    touched, its test files and whether they still exist at head. Also lists the names the
    deleted lines define or call and where they still occur at head. In a shallow clone, lines
    reaching the boundary are flagged, never silently attributed. Reads the repository only."""
    from perfkit.changes.blame_run import run  # the steps load on the first call only

    return gitrepo.displayable(run(repo, base, head, paths, include_modified, progress))
