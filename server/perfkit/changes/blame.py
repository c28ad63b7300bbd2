"""Why was the removed code there: blame exactly the deleted lines at base and read the commits that wrote them.

Only the deleted line ranges are blamed, with one `git blame -L a,b -L c,d ...` per file, so
git stops walking history as soon as those lines are explained instead of explaining every line
of every file. Everything else is batched too: one `git log` for the introducing commits, one for
the files they touched, one `git cat-file` for which of those still exist at head, one history
listing to find the merges that brought side-branch commits in, one `git grep` for the names.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import Field

from perfkit import gitrepo
from perfkit.changes import history, lookup, recipes
from perfkit.changes.classify import FileCtx, mark_moves
from perfkit.changes.diff_parse import DiffLine, diff_commits
from perfkit.changes.models import (BlameResult, IntroducingCommit, LineRange, NameAtHead, RemovedBlock, SkippedFile,
                                   TouchedFile)
from perfkit.changes.removal import defined_name, is_code, judge, net_lines
from perfkit.changes.revrange import Range, open_range
from perfkit.errors import InputError
from perfkit.toolspec import Progress, no_progress

_TEXT_CAP = 40
# per-file histories (history.py) pay for their one walk only when several files are blamed on a
# long history; below this many commits a plain blame walk costs tens of milliseconds
SHARED_HISTORY_MIN_FILES = 2
SHARED_HISTORY_MIN_COMMITS = 5_000
_NAME_CAP = 100
_CALL_RE = re.compile(r"(?<![\w$])([A-Za-z_]\w*)\s*\(")
_ASSIGN_RE = re.compile(r"^\s*(?:self\.)?([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]")
_COMMON = set("""
print len range isinstance issubclass str int float dict list set tuple super getattr setattr hasattr type min max
sum any all zip enumerate open format sorted reversed bool repr iter next map filter self cls append extend get items
keys values pop update join split strip startswith endswith replace lower upper copy clone item size view reshape
sizeof static_cast dynamic_cast reinterpret_cast const_cast decltype return assert lambda not and for while with
elif else except raise yield await async import from pass none true false null nullptr new delete this void auto
""".split())


@dataclass
class _Block:
    ctx: FileCtx
    lines: list[DiffLine]
    shape: str
    confidence: float
    line_sha: dict[int, str] = field(default_factory=dict)


def _check_paths(r: Range, paths: list[str] | None) -> list[str] | None:
    if paths is None:
        return None
    out = []
    for p in paths:
        q = (p or "").strip()
        while q.startswith("./"):
            q = q[2:]
        q = q.rstrip("/")
        if not q or q.startswith(("/", "-")) or ".." in q.split("/") or "\0" in q:
            raise InputError("paths", f"'{p}' is not a path inside the repository",
                             "pass paths relative to the repository root, for example 'src/model.py'")
        if not (gitrepo.git_ok(r.repo, "cat-file", "-e", f"{r.base}:{q}")
                or gitrepo.git_ok(r.repo, "cat-file", "-e", f"{r.head}:{q}")):
            raise InputError("paths", f"'{q}' exists neither at base nor at head",
                             "check the spelling with `git ls-tree -r --name-only <base>`")
        out.append(q)
    return out


def _selected(c: FileCtx, paths: list[str] | None) -> bool:
    if paths is None:
        return True
    return any(x == p or x.startswith(p + "/") for p in paths for x in (c.diff.path, c.diff.old_path))


def removed_blocks(ctxs: list[FileCtx], paths: list[str] | None, include_modified: bool,
                   skipped: list[SkippedFile]) -> list[_Block]:
    """The deleted code of the range: hunks judged removals (or every rewritten line on request)."""
    blocks = []
    for c in ctxs:
        f = c.diff
        if not _selected(c, paths) or f.status == "A":
            continue
        if f.submodule:
            skipped.append(SkippedFile(path=f.old_path, reason="submodule pointer: no lines to blame"))
            continue
        if f.binary:
            if f.status in "DM" or f.status == "T":
                skipped.append(SkippedFile(path=f.old_path, reason="binary file: git blame has no lines to read"))
            continue
        for h in f.hunks:
            if not h.removed:
                continue
            net = net_lines(h.removed, h.added, c.moved_removed, c.moved_added)
            lines = [d for d in net.removed if d.text.strip()]
            if not lines:
                continue
            code_added = any(is_code(d.text) for d in net.added)
            verdict = None
            if c.role in ("source", "test", "recipe") or f.status == "D":
                verdict = judge(net, whole_file=f.status == "D")
            if verdict and (not code_added or verdict.shape == "function"):
                blocks.append(_Block(c, lines, verdict.shape, verdict.confidence))
            elif include_modified:
                blocks.append(_Block(c, lines, "lines", 0.5))
    return blocks


def _ranges(numbers: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(set(numbers)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


@dataclass
class _Porcelain:
    line_sha: dict[int, str] = field(default_factory=dict)
    meta: dict[str, dict[str, str]] = field(default_factory=dict)


def crossed_renames(repo: Path, blamed: dict[str, _Porcelain]) -> set[str]:
    """Paths whose blame over a rewritten history reached a commit that created them by a rename.

    That history does not hold the old name, so blame stops at the rename; those paths are blamed
    again on the full history, which follows it.
    """
    origins: dict[str, set[str]] = defaultdict(set)
    suspect = set()
    for path, res in blamed.items():
        for sha, meta in res.meta.items():
            if meta.get("filename", path) != path:
                suspect.add(path)
            elif "previous" not in meta:
                origins[sha].add(path)
    if origins:
        out = gitrepo.git(repo, "log", "--no-walk=unsorted", "--format=%x01%H", "-M", "--diff-filter=R",
                          "--name-status", "-z", *origins, "--")
        sha = ""
        for tok in out.split("\0"):
            tok = tok.strip("\n")
            if tok.startswith("\x01"):
                sha = tok[1:]
            elif tok in origins.get(sha, ()):
                suspect.add(tok)
    return suspect


def blame_lines(repo: Path, base: str, path: str, numbers: list[int], revs_file: Path | None = None) -> _Porcelain:
    """One `git blame --porcelain` over exactly these lines of path at base (whitespace changes ignored)."""
    args = ["blame", "--porcelain", "-w"]
    if revs_file is not None:
        args += ["-S", str(revs_file)]
    for a, b in _ranges(numbers):
        args += ["-L", f"{a},{b}"]
    out = gitrepo.git(repo, *args, base, "--", path)
    res = _Porcelain()
    sha = None
    for line in out.split("\n"):
        if line.startswith("\t"):
            continue
        parts = line.split(" ")
        if len(parts) >= 3 and len(parts[0]) >= 40 and re.fullmatch(r"[0-9a-f]+", parts[0]) and parts[2].isdigit():
            sha = parts[0]
            res.line_sha[int(parts[2])] = sha
            res.meta.setdefault(sha, {})
        elif sha is not None and line:
            key, _, value = line.partition(" ")
            res.meta[sha].setdefault(key, value)
    return res


def _commit_infos(repo: Path, shas: list[str]) -> dict[str, gitrepo.CommitInfo]:
    if not shas:
        return {}
    fmt = "%x1e%H%x1f%s%x1f%an%x1f%ae%x1f%aI%x1f%P%x1f%B"
    out = gitrepo.git(repo, "log", "--no-walk=unsorted", f"--format={fmt}", *shas, "--")
    infos = {}
    for rec in out.split("\x1e")[1:]:
        h, subject, an, ae, date, parents, body = rec.split("\x1f", 6)
        infos[h] = gitrepo.CommitInfo(h, subject, body.strip(), an, ae, date, tuple(parents.split()))
    return infos


def _touched(repo: Path, shas: list[str]) -> dict[str, list[tuple[str, str]]]:
    """(status letter, path) of every file each commit changed (a merge: against its first parent)."""
    if not shas:
        return {}
    out = gitrepo.git(repo, "log", "--no-walk=unsorted", "--format=%x01%H", "--name-status", "-z",
                      "--diff-merges=first-parent", *shas, "--")
    result: dict[str, list[tuple[str, str]]] = {}
    cur: list[tuple[str, str]] = []
    toks = out.split("\0")
    i = 0
    while i < len(toks):
        t = toks[i].strip("\n")
        if t.startswith("\x01"):
            cur = result.setdefault(t[1:], [])
        elif t and t[0] in "AMDTRCU" and i + 1 < len(toks):
            if t[0] in "RC":
                cur.append((t[0], toks[i + 2]))
                i += 2
            else:
                cur.append((t[0], toks[i + 1]))
                i += 1
        i += 1
    return result


def _exists(repo: Path, rev: str, paths: list[str]) -> set[str]:
    paths = [p for p in dict.fromkeys(paths) if "\n" not in p]
    if not paths:
        return set()
    out = gitrepo.git(repo, "cat-file", "--batch-check", input="".join(f"{rev}:{p}\n" for p in paths))
    return {p for p, line in zip(paths, out.split("\n")) if not line.endswith(" missing")}


def merge_owners(repo: Path, base: str) -> dict[str, str]:
    """For every commit off base's first-parent line, the merge on that line that brought it in.

    One listing of the history, then one walk: merges are visited oldest first and each claims
    the commits it reaches that no older merge or main-line commit already holds.
    """
    parents: dict[str, list[str]] = {}
    for line in gitrepo.git(repo, "rev-list", "--parents", base, "--").split("\n"):
        if line:
            h, *ps = line.split()
            parents[h] = ps
    chain: list[str] = []
    c: str | None = base
    while c:
        chain.append(c)
        ps = parents.get(c) or []
        c = ps[0] if ps else None
    owner: dict[str, str] = {}
    seen = set(chain)
    for m in reversed(chain):
        stack = list(parents.get(m, [])[1:])
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            owner[x] = m
            stack.extend(parents.get(x, []))
    return owner


def _names(blocks: list[_Block]) -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for b in blocks:
        for d in b.lines:
            if not is_code(d.text):
                continue
            where = f"{b.ctx.diff.old_path}:{d.no}"
            text = re.sub(r"#.*$|//.*$", "", re.sub(r"\"[^\"]*\"|'[^']*'", "\"\"", d.text))
            defined = defined_name(d.text)
            m = _ASSIGN_RE.match(text)
            defs = {n for n in (defined, m.group(1) if m else None) if n}
            for n in defs:
                found.setdefault((n, "defined"), []).append(where)
            for n in _CALL_RE.findall(text):
                if n not in defs:
                    found.setdefault((n, "referenced"), []).append(where)
    return {k: v for k, v in found.items() if len(k[0]) >= 3 and k[0].lower() not in _COMMON}


def git_blame_removal(
    repo: Annotated[str, Field(description="Path of the target repository checkout.")],
    base: Annotated[str, Field(description="The commit the delivery branch started from (sha, tag or branch); "
                                           "must be an ancestor of head. The removed lines are blamed here.")],
    head: Annotated[str, Field(description="The delivery branch tip (sha, tag or branch).")] = "HEAD",
    paths: Annotated[list[str] | None, Field(
        description="Only removals in these files or folders (paths from the repository root, at base or "
        "head). Default: every file.")] = None,
    include_modified: Annotated[bool, Field(
        description="Also blame lines that were rewritten rather than deleted. Default: only hunks that "
        "delete code (functions, guards, branches, calls, files).")] = False,
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
    r = open_range(repo, base, head)
    sel = _check_paths(r, paths)
    if r.empty:
        return BlameResult(repo=str(r.repo), base=r.base, head=r.head, removals=[], commits=[], names=[],
                           blame_calls=0, empty_range=True, incomplete_history=bool(r.shallow),
                           shallow_boundaries=sorted(r.shallow),
                           warnings=r.warnings + ["base and head are the same commit: nothing was removed"])
    globs = list(recipes.DEFAULT_RECIPE_GLOBS)
    ctxs = [FileCtx("range", f, recipes.role_of(f.path, globs)) for f in diff_commits(r.repo, r.base, r.head)]
    moved = mark_moves(ctxs)
    for m in moved:
        m.from_commit = m.to_commit = None
    skipped: list[SkippedFile] = []
    blocks = removed_blocks(ctxs, sel, include_modified, skipped)
    by_file: dict[str, list[_Block]] = defaultdict(list)
    for b in blocks:
        by_file[b.ctx.diff.old_path].append(b)
    total = len(by_file) + 2
    lines_by_sha: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    blamed_paths: dict[str, set[str]] = defaultdict(set)
    files = sorted(by_file.items())
    workers = max(1, min(len(files), os.cpu_count() or 1))
    with tempfile.TemporaryDirectory(prefix="perfkit-blame-") as tmp, \
            ThreadPoolExecutor(max_workers=workers + 1) as pool:
        # the merge lookup lists the history meanwhile; with several files on a long history of a
        # full clone, one walk gives each blame the list of commits that change its file (history.py)
        owners_future = pool.submit(merge_owners, r.repo, r.base) if files else None
        revs: dict[str, Path] = {}
        if len(files) >= SHARED_HISTORY_MIN_FILES and not r.shallow and int(gitrepo.git(
                r.repo, "rev-list", "--count", f"--max-count={SHARED_HISTORY_MIN_COMMITS}", r.base, "--"
                ).strip() or 0) >= SHARED_HISTORY_MIN_COMMITS:
            revs = history.write_histories(r.repo, r.base, [p for p, _ in files], Path(tmp))
        wanted = {path: [d.no for b in bs for d in b.lines] for path, bs in files}
        futures = {pool.submit(blame_lines, r.repo, r.base, path, wanted[path], revs.get(path)): path
                   for path in wanted}
        for i, fut in enumerate(as_completed(futures)):
            fut.result()
            progress(i + 1, total, f"blamed {futures[fut]}")
        results = {futures[f]: f.result() for f in futures}
        again = crossed_renames(r.repo, results) if revs else set()
        for path, res in zip(sorted(again), pool.map(lambda p: blame_lines(r.repo, r.base, p, wanted[p]),
                                                     sorted(again))):
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
    infos = _commit_infos(r.repo, shas)
    merges = {s: owners[s] for s in shas if s in owners}
    merge_infos = _commit_infos(r.repo, sorted(set(merges.values())))
    touched = _touched(r.repo, shas)
    test_paths = [p for s in shas for _, p in touched.get(s, []) if recipes.is_test(p)]
    other_paths = [p for s in shas for _, p in touched.get(s, [])]
    present = _exists(r.repo, r.head, other_paths + test_paths)
    commits = []
    boundary_hit = False
    for s in shas:
        info = infos[s]
        pr, source, merge = gitrepo.pr_number(info.subject), "subject", merges.get(s)
        if pr is None and merge:
            pr, source = gitrepo.pr_number(merge_infos[merge].subject) or gitrepo.pr_number(
                merge_infos[merge].message), "merge"
        boundary = s in r.shallow
        boundary_hit |= boundary
        all_files = [TouchedFile(path=p, status=st, is_test=recipes.is_test(p), exists_at_head=p in present)
                     for st, p in touched.get(s, [])]
        files = [f for f in all_files if f.path not in blamed_paths[s]]
        ranges = [LineRange(path=p, start=a, end=b) for p, ns in lines_by_sha[s].items() for a, b in _ranges(ns)]
        commits.append(IntroducingCommit(
            sha=s, short=s[:12], subject=info.subject, author=info.author, author_email=info.author_email,
            date=info.date, pr_number=pr, pr_source=source if pr is not None else None, merge_commit=merge,
            boundary=boundary, lines=sum(len(v) for v in lines_by_sha[s].values()), ranges=ranges,
            other_files=files, tests=[f for f in all_files if f.is_test]))
    if boundary_hit:
        r.warnings.append("some removed lines reach the shallow-clone boundary: the commit shown for them is only "
                          "where the local history stops; run `git fetch --unshallow` to find who wrote them")
    progress(len(by_file) + 1, total, "looking for the names at head")
    found = _names(blocks)
    hits = lookup.grep_words(r.repo, r.head, {n for n, _ in found}, lambda p: recipes.role_of(p, globs))
    names = []
    for (n, role), where in found.items():
        wh = hits.get(n)
        names.append(NameAtHead(name=n, role=role, removed_at=where[:5], occurrences=wh.count if wh else 0,
                                where=[f"{h.path}:{h.line}" for h in (wh.hits() if wh else [])][:5]))
    names.sort(key=lambda x: (x.occurrences == 0, x.role != "defined", -x.occurrences, x.name))
    removals = []
    for b in blocks:
        for a, z in _ranges([d.no for d in b.lines]):
            seg = [d for d in b.lines if a <= d.no <= z]
            removals.append(RemovedBlock(
                path=b.ctx.diff.old_path, head_path=b.ctx.diff.path if b.ctx.diff.path != b.ctx.diff.old_path
                and b.ctx.diff.status != "D" else None, start=a, end=z, shape=b.shape, confidence=b.confidence,
                text=[d.text for d in seg[:_TEXT_CAP]],
                commits=list(dict.fromkeys(b.line_sha[d.no] for d in seg if d.no in b.line_sha))))
    progress(total, total, "done")
    return BlameResult(repo=str(r.repo), base=r.base, head=r.head, removals=removals, commits=commits,
                       names=names[:_NAME_CAP], moved=moved, skipped=skipped, blame_calls=blame_calls,
                       incomplete_history=boundary_hit or bool(r.shallow and r.base in r.shallow),
                       shallow_boundaries=sorted(r.shallow), warnings=r.warnings)
