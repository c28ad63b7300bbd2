"""git_blame_removal: who wrote the code a delivery branch deletes, and is its case still covered.

This module only declares the tool and runs the steps; the steps live in origins.py (and
history.py) and load on the first call, so starting perfkit for another tool does not pay for them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from perfkit.changes.models import BlameResult
from perfkit.toolspec import Progress, no_progress

_TEXT_CAP = 40
_NAME_CAP = 100
# per-file histories (history.py) pay for their one walk only when several files are blamed on a
# long history; below this many commits a plain blame walk costs tens of milliseconds
SHARED_HISTORY_MIN_FILES = 2
SHARED_HISTORY_MIN_COMMITS = 5_000


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
    import os
    import tempfile
    from collections import defaultdict
    from concurrent.futures import ThreadPoolExecutor, as_completed
    from pathlib import Path

    from perfkit import gitrepo
    from perfkit.changes import history, lookup, recipes
    from perfkit.changes.diff_parse import diff_commits
    from perfkit.changes.hunks import FileCtx, mark_moves
    from perfkit.changes.models import IntroducingCommit, LineRange, NameAtHead, RemovedBlock, SkippedFile, TouchedFile
    from perfkit.changes.origins import (
        Block,
        blame_lines,
        check_paths,
        commit_infos,
        crossed_renames,
        existing,
        line_ranges,
        merge_owners,
        names_in,
        removed_blocks,
        touched_files,
    )
    from perfkit.changes.revrange import open_range

    r = open_range(repo, base, head)
    sel = check_paths(r, paths)
    if r.empty:
        return BlameResult(
            repo=str(r.repo),
            base=r.base,
            head=r.head,
            removals=[],
            commits=[],
            names=[],
            blame_calls=0,
            empty_range=True,
            incomplete_history=bool(r.shallow),
            shallow_boundaries=sorted(r.shallow),
            warnings=r.warnings + ["base and head are the same commit: nothing was removed"],
        )
    globs = list(recipes.DEFAULT_RECIPE_GLOBS)
    ctxs = [FileCtx("range", f, recipes.role_of(f.path, globs)) for f in diff_commits(r.repo, r.base, r.head)]
    moved = mark_moves(ctxs)
    for m in moved:
        m.from_commit = m.to_commit = None
    skipped: list[SkippedFile] = []
    blocks = removed_blocks(ctxs, sel, include_modified, skipped)
    by_file: dict[str, list[Block]] = defaultdict(list)
    for b in blocks:
        by_file[b.ctx.diff.old_path].append(b)
    total = len(by_file) + 2
    lines_by_sha: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    blamed_paths: dict[str, set[str]] = defaultdict(set)
    files = sorted(by_file.items())
    workers = max(1, min(len(files), os.cpu_count() or 1))
    with (
        tempfile.TemporaryDirectory(prefix="perfkit-blame-") as tmp,
        ThreadPoolExecutor(max_workers=workers + 1) as pool,
    ):
        # the merge lookup lists the history meanwhile; with several files on a long history of a
        # full clone, one walk gives each blame the list of commits that change its file (history.py)
        owners_future = pool.submit(merge_owners, r.repo, r.base) if files else None
        revs: dict[str, Path] = {}
        if (
            len(files) >= SHARED_HISTORY_MIN_FILES
            and not r.shallow
            and int(
                gitrepo.git(
                    r.repo, "rev-list", "--count", f"--max-count={SHARED_HISTORY_MIN_COMMITS}", r.base, "--"
                ).strip()
                or 0
            )
            >= SHARED_HISTORY_MIN_COMMITS
        ):
            revs = history.write_histories(r.repo, r.base, [p for p, _ in files], Path(tmp))
        wanted = {path: [d.no for b in bs for d in b.lines] for path, bs in files}
        futures = {
            pool.submit(blame_lines, r.repo, r.base, path, wanted[path], revs.get(path)): path for path in wanted
        }
        for i, fut in enumerate(as_completed(futures)):
            fut.result()
            progress(i + 1, total, f"blamed {futures[fut]}")
        results = {futures[f]: f.result() for f in futures}
        again = crossed_renames(r.repo, results) if revs else set()
        for path, res in zip(
            sorted(again), pool.map(lambda p: blame_lines(r.repo, r.base, p, wanted[p]), sorted(again))
        ):
            results[path] = res
        blame_calls = len(files) + len(again)
        owners = owners_future.result() if owners_future else {}
    for path, bs in files:
        porcelain = results[path]
        for b in bs:
            for d in b.lines:
                sha = porcelain.line_sha.get(d.no)
                if sha:
                    b.line_sha[d.no] = sha
                    lines_by_sha[sha][path].append(d.no)
        for sha, meta in porcelain.meta.items():
            blamed_paths[sha].add(meta.get("filename", path))
    progress(len(by_file), total, "reading the introducing commits")
    shas = sorted(lines_by_sha, key=lambda s: (-sum(len(v) for v in lines_by_sha[s].values()), s))
    infos = commit_infos(r.repo, shas)
    merges = {s: owners[s] for s in shas if s in owners}
    merge_infos = commit_infos(r.repo, sorted(set(merges.values())))
    touched = touched_files(r.repo, shas)
    test_paths = [p for s in shas for _, p in touched.get(s, []) if recipes.is_test(p)]
    other_paths = [p for s in shas for _, p in touched.get(s, [])]
    present = existing(r.repo, r.head, other_paths + test_paths)
    commits = []
    boundary_hit = False
    for s in shas:
        info = infos[s]
        pr, source, merge = gitrepo.pr_number(info.subject), "subject", merges.get(s)
        if pr is None and merge:
            pr, source = (
                gitrepo.pr_number(merge_infos[merge].subject) or gitrepo.pr_number(merge_infos[merge].message),
                "merge",
            )
        boundary = s in r.shallow
        boundary_hit |= boundary
        all_files = [
            TouchedFile(path=p, status=st, is_test=recipes.is_test(p), exists_at_head=p in present)
            for st, p in touched.get(s, [])
        ]
        files = [f for f in all_files if f.path not in blamed_paths[s]]
        ranges = [LineRange(path=p, start=a, end=b) for p, ns in lines_by_sha[s].items() for a, b in line_ranges(ns)]
        commits.append(
            IntroducingCommit(
                sha=s,
                short=s[:12],
                subject=info.subject,
                author=info.author,
                author_email=info.author_email,
                date=info.date,
                pr_number=pr,
                pr_source=source if pr is not None else None,
                merge_commit=merge,
                boundary=boundary,
                lines=sum(len(v) for v in lines_by_sha[s].values()),
                ranges=ranges,
                other_files=files,
                tests=[f for f in all_files if f.is_test],
            )
        )
    if boundary_hit:
        r.warnings.append(
            "some removed lines reach the shallow-clone boundary: the commit shown for them is only "
            "where the local history stops; run `git fetch --unshallow` to find who wrote them"
        )
    progress(len(by_file) + 1, total, "looking for the names at head")
    found = names_in(blocks)
    hits = lookup.grep_words(r.repo, r.head, {n for n, _ in found}, lambda p: recipes.role_of(p, globs))
    names = []
    for (n, role), where in found.items():
        wh = hits.get(n)
        names.append(
            NameAtHead(
                name=n,
                role=role,
                removed_at=where[:5],
                occurrences=wh.count if wh else 0,
                where=[f"{h.path}:{h.line}" for h in (wh.hits() if wh else [])][:5],
            )
        )
    names.sort(key=lambda x: (x.occurrences == 0, x.role != "defined", -x.occurrences, x.name))
    removals = []
    for b in blocks:
        for a, z in line_ranges([d.no for d in b.lines]):
            seg = [d for d in b.lines if a <= d.no <= z]
            removals.append(
                RemovedBlock(
                    path=b.ctx.diff.old_path,
                    head_path=b.ctx.diff.path
                    if b.ctx.diff.path != b.ctx.diff.old_path and b.ctx.diff.status != "D"
                    else None,
                    start=a,
                    end=z,
                    shape=b.shape,
                    confidence=b.confidence,
                    text=[d.text for d in seg[:_TEXT_CAP]],
                    commits=list(dict.fromkeys(b.line_sha[d.no] for d in seg if d.no in b.line_sha)),
                )
            )
    progress(total, total, "done")
    return BlameResult(
        repo=str(r.repo),
        base=r.base,
        head=r.head,
        removals=removals,
        commits=commits,
        names=names[:_NAME_CAP],
        moved=moved,
        skipped=skipped,
        blame_calls=blame_calls,
        incomplete_history=boundary_hit or bool(r.shallow and r.base in r.shallow),
        shallow_boundaries=sorted(r.shallow),
        warnings=r.warnings,
    )
