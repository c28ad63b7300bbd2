"""classify_changes: propose a kind for every hunk of a delivery branch, with its evidence.

This module only declares the tool; the rules live in hunks.py and load on the first call, so
starting perfkit for another tool does not pay for them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from perfkit.changes.models import ClassifyResult
from perfkit.repo import gitrepo
from perfkit.tools.spec import Progress, no_progress


def classify_changes(
    repo: Annotated[str, Field(description="Path of the target repository checkout.")],
    base: Annotated[
        str,
        Field(
            description="The commit the delivery branch started from (sha, tag or branch); must be an ancestor of head."
        ),
    ],
    head: Annotated[str, Field(description="The delivery branch tip (sha, tag or branch).")] = "HEAD",
    recipe_globs: Annotated[
        list[str] | None,
        Field(
            description="Path patterns that mark recipes, launchers and configs, replacing the defaults (shell "
            "scripts, YAML/TOML/JSON/INI configs, examples/, recipes/, scripts/, configs/). A pattern without '/' "
            "matches the file name, one with '/' the path from the repository root; '*' crosses folders."
        ),
    ] = None,
    *,
    progress: Progress = no_progress,
) -> ClassifyResult:
    """Propose what a PR may claim: for each commit in base..head (head's first-parent line, oldest
    first; a merge is diffed against its first parent) and each file and hunk, one kind with a
    confidence and the evidence lines. setting: something a user can apply alone (an environment
    variable, launcher flag or config value that code already reads at base, or a pip package the
    code at base already imports inside try/except ImportError). default: a new option whose
    default keeps the old behaviour, read in source and turned on by a recipe in the range.
    source: other code changes. removal: deleted functions, guards, branches, calls or files;
    blame them with git_blame_removal before claiming they are safe. Moved blocks and renames are
    not removals. The result is a proposal to review, not a verdict. Reads the repository only."""
    from perfkit.changes import hunks
    from perfkit.changes.diff_parse import EMPTY_TREE, diff_commits
    from perfkit.changes.models import KINDS, CommitChanges
    from perfkit.changes.revrange import first_parent_commits, open_range
    from perfkit.repo import gitrepo

    r = open_range(repo, base, head)
    globs = hunks.check_globs(recipe_globs)
    shas = first_parent_commits(r)
    total = len(shas) + 1
    incomplete = False
    loaded: list[tuple[gitrepo.CommitInfo, list[hunks.FileCtx]]] = []
    infos = gitrepo.commit_infos(r.repo, shas)
    for i, (sha, info) in enumerate(zip(shas, infos, strict=True)):
        progress(i, total, f"diff {sha[:12]}")
        parent = info.parents[0] if info.parents else None
        if parent is None or sha in r.shallow:
            incomplete = True
            r.warnings.append(f"{sha[:12]} has no parent in this clone: it is diffed against an empty tree")
            parent = EMPTY_TREE
        if len(info.parents) > 1:
            r.warnings.append(f"{sha[:12]} is a merge: its changes are diffed against its first parent")
        diffs = diff_commits(r.repo, parent, sha)
        loaded.append((info, [hunks.FileCtx(sha, f, hunks.role_for(r.repo, f, globs)) for f in diffs]))
    progress(len(shas), total, "checking base and head")
    ctxs = [c for _, cs in loaded for c in cs]
    moved = hunks.mark_moves(ctxs)
    a = hunks.Analysis(r, ctxs, globs)
    commits = []
    totals: dict[str, int] = {k: 0 for k in KINDS}
    for info, cs in loaded:
        files = [hunks.file_changes(a, c) for c in cs]
        counts: dict[str, int] = {k: 0 for k in KINDS}
        for f in files:
            for h in f.hunks:
                counts[h.kind] += 1
                totals[h.kind] += 1
        commits.append(
            CommitChanges(
                sha=info.sha,
                short=info.sha[:12],
                subject=info.subject,
                author=info.author,
                date=info.date,
                pr_number=gitrepo.pr_number(info.subject) or gitrepo.pr_number(info.message),
                is_merge=len(info.parents) > 1,
                kinds=counts,
                files=files,
            )
        )
    if r.empty:
        r.warnings.append("base and head are the same commit: nothing to classify")
    progress(total, total, "done")
    result = ClassifyResult(
        repo=str(r.repo),
        base=r.base,
        head=r.head,
        commits=commits,
        totals=totals,
        moved=moved,
        recipe_globs=globs,
        empty_range=r.empty,
        incomplete_history=incomplete,
        warnings=r.warnings,
    )
    return gitrepo.displayable(result)
