"""The stages of git_blame_removal, in the order they run.

Kept out of blame.py so that declaring the tool imports none of this. Each stage is one function:
find the removed blocks, blame their lines (in parallel, after one shared history walk on a long
history), attribute lines to commits, describe those commits, find the removed names at head.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from perfkit.changes import history, lookup, recipes
from perfkit.changes.diff_parse import diff_commits
from perfkit.changes.hunks import FileCtx, mark_moves
from perfkit.changes.models import (
    BlameResult,
    IntroducingCommit,
    LineRange,
    NameAtHead,
    RemovedBlock,
    SkippedFile,
    TouchedFile,
)
from perfkit.changes.origins import (
    MAX_BLAMED_FILES,
    Block,
    Porcelain,
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
from perfkit.changes.revrange import Range, open_range
from perfkit.errors import InputError
from perfkit.repo import gitrepo
from perfkit.tools.spec import Progress

_TEXT_CAP = 40
_NAME_CAP = 100
# per-file histories (history.py) pay for their one walk only when several files are blamed on a
# long history; below this many commits a plain blame walk costs tens of milliseconds
SHARED_HISTORY_MIN_FILES = 2
SHARED_HISTORY_MIN_COMMITS = 5_000


@dataclass
class Attribution:
    """Which commit wrote each removed line: sha -> path -> line numbers, and the paths blame named."""

    lines_by_sha: dict[str, dict[str, list[int]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    blamed_paths: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


def run(
    repo: str, base: str, head: str, paths: list[str] | None, include_modified: bool, progress: Progress
) -> BlameResult:
    r = open_range(repo, base, head)
    selected = check_paths(r, paths)
    if r.empty:
        return _empty(r)
    globs = list(recipes.DEFAULT_RECIPE_GLOBS)
    ctxs = [FileCtx("range", f, recipes.role_of(f.path, globs)) for f in diff_commits(r.repo, r.base, r.head)]
    moved = mark_moves(ctxs)
    for m in moved:
        m.from_commit = m.to_commit = None
    skipped: list[SkippedFile] = []
    blocks = removed_blocks(ctxs, selected, include_modified, skipped)
    by_file: dict[str, list[Block]] = defaultdict(list)
    for b in blocks:
        by_file[b.ctx.diff.old_path].append(b)
    file_blocks = sorted(by_file.items())
    if len(file_blocks) > MAX_BLAMED_FILES:
        raise InputError(
            "paths",
            f"base..head removes code in {len(file_blocks):,} files, more than the {MAX_BLAMED_FILES:,} "
            "perfkit blames in one call",
            "pass paths= with the files or folders you are asking about",
        )
    total = len(file_blocks) + 2
    porcelains, blame_calls, owners = _blame_all(r, file_blocks, progress, total)
    attribution = _attribute(file_blocks, porcelains)
    progress(len(file_blocks), total, "reading the introducing commits")
    commits, boundary_hit = _introducing_commits(r, attribution, owners)
    if boundary_hit:
        r.warnings.append(
            "some removed lines reach the shallow-clone boundary: the commit shown for them is only "
            "where the local history stops; run `git fetch --unshallow` to find who wrote them"
        )
    progress(len(file_blocks) + 1, total, "looking for the names at head")
    names = _names_at_head(r, blocks, globs)
    progress(total, total, "done")
    return BlameResult(
        repo=str(r.repo),
        base=r.base,
        head=r.head,
        removals=_removals(blocks),
        commits=commits,
        names=names[:_NAME_CAP],
        moved=moved,
        skipped=skipped,
        blame_calls=blame_calls,
        incomplete_history=boundary_hit or bool(r.shallow and r.base in r.shallow),
        shallow_boundaries=sorted(r.shallow),
        warnings=r.warnings,
    )


def _empty(r: Range) -> BlameResult:
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


def _long_history(r: Range, file_count: int) -> bool:
    if file_count < SHARED_HISTORY_MIN_FILES or r.shallow:
        return False
    count = gitrepo.git_paths(r.repo, "rev-list", "--count", f"--max-count={SHARED_HISTORY_MIN_COMMITS}", r.base, "--")
    return int(count.strip() or 0) >= SHARED_HISTORY_MIN_COMMITS


def _blame_all(
    r: Range, file_blocks: list[tuple[str, list[Block]]], progress: Progress, total: int
) -> tuple[dict[str, Porcelain], int, dict[str, str]]:
    """(path -> blame of its removed lines, git blame calls made, commit -> merge that brought it in)."""
    workers = max(1, min(len(file_blocks), os.cpu_count() or 1))
    wanted = {path: [d.no for b in bs for d in b.lines] for path, bs in file_blocks}
    with (
        tempfile.TemporaryDirectory(prefix="perfkit-blame-") as tmp,
        ThreadPoolExecutor(max_workers=workers + 1) as pool,
    ):
        # the merge lookup lists the history meanwhile; with several files on a long history of a
        # full clone, one walk gives each blame the list of commits that change its file (history.py)
        owners_future = pool.submit(merge_owners, r.repo, r.base) if file_blocks else None
        revs: dict[str, Path] = {}
        if _long_history(r, len(file_blocks)):
            revs = history.write_histories(r.repo, r.base, list(wanted), Path(tmp))
        futures = {
            pool.submit(blame_lines, r.repo, r.base, path, wanted[path], revs.get(path)): path for path in wanted
        }
        for i, fut in enumerate(as_completed(futures)):
            fut.result()
            progress(i + 1, total, f"blamed {futures[fut]}")
        results = {futures[f]: f.result() for f in futures}
        again = sorted(crossed_renames(r.repo, results)) if revs else []
        for path, res in zip(again, pool.map(lambda p: blame_lines(r.repo, r.base, p, wanted[p]), again), strict=True):
            results[path] = res
        owners = owners_future.result() if owners_future else {}
    return results, len(file_blocks) + len(again), owners


def _attribute(file_blocks: list[tuple[str, list[Block]]], porcelains: dict[str, Porcelain]) -> Attribution:
    out = Attribution()
    for path, bs in file_blocks:
        porcelain = porcelains[path]
        for b in bs:
            for d in b.lines:
                sha = porcelain.line_sha.get(d.no)
                if sha:
                    b.line_sha[d.no] = sha
                    out.lines_by_sha[sha][path].append(d.no)
        for sha, meta in porcelain.meta.items():
            out.blamed_paths[sha].add(meta.get("filename", path))
    return out


def _introducing_commits(
    r: Range, attribution: Attribution, owners: dict[str, str]
) -> tuple[list[IntroducingCommit], bool]:
    """The commits that wrote the removed lines, most lines first, with their PR and the files they touched."""
    by_sha = attribution.lines_by_sha
    shas = sorted(by_sha, key=lambda s: (-sum(len(v) for v in by_sha[s].values()), s))
    infos = commit_infos(r.repo, shas)
    merges = {s: owners[s] for s in shas if s in owners}
    merge_infos = commit_infos(r.repo, sorted(set(merges.values())))
    touched = touched_files(r.repo, shas)
    touched_paths = [p for s in shas for _, p in touched.get(s, [])]
    present = existing(r.repo, r.head, touched_paths)
    commits = []
    boundary_hit = False
    for s in shas:
        info = infos[s]
        source: Literal["subject", "merge"] = "subject"
        pr, merge = gitrepo.pr_number(info.subject), merges.get(s)
        if pr is None and merge:
            pr = gitrepo.pr_number(merge_infos[merge].subject) or gitrepo.pr_number(merge_infos[merge].message)
            source = "merge"
        boundary = s in r.shallow
        boundary_hit |= boundary
        touched_by_commit = [
            TouchedFile(path=p, status=st, is_test=recipes.is_test(p), exists_at_head=p in present)
            for st, p in touched.get(s, [])
        ]
        ranges = [LineRange(path=p, start=a, end=b) for p, ns in by_sha[s].items() for a, b in line_ranges(ns)]
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
                lines=sum(len(v) for v in by_sha[s].values()),
                ranges=ranges,
                other_files=[f for f in touched_by_commit if f.path not in attribution.blamed_paths[s]],
                tests=[f for f in touched_by_commit if f.is_test],
            )
        )
    return commits, boundary_hit


def _names_at_head(r: Range, blocks: list[Block], globs: list[str]) -> list[NameAtHead]:
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
    return names


def _removals(blocks: list[Block]) -> list[RemovedBlock]:
    removals = []
    for b in blocks:
        renamed = b.ctx.diff.path != b.ctx.diff.old_path and b.ctx.diff.status != "D"
        for a, z in line_ranges([d.no for d in b.lines]):
            seg = [d for d in b.lines if a <= d.no <= z]
            removals.append(
                RemovedBlock(
                    path=b.ctx.diff.old_path,
                    head_path=b.ctx.diff.path if renamed else None,
                    start=a,
                    end=z,
                    shape=b.shape,
                    confidence=b.confidence,
                    text=[d.text for d in seg[:_TEXT_CAP]],
                    commits=list(dict.fromkeys(b.line_sha[d.no] for d in seg if d.no in b.line_sha)),
                )
            )
    return removals
