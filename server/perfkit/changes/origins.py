"""The steps of git_blame_removal: pick the deleted lines, blame them, read the commits that wrote them.

Only the deleted line ranges are blamed, with one `git blame -L a,b -L c,d ...` per file, so
git stops walking history as soon as those lines are explained instead of explaining every line
of every file. Everything else is batched too: one `git log` for the introducing commits, one for
the files they touched, one `git cat-file` for which of those still exist at head, one history
listing to find the merges that brought side-branch commits in, one `git grep` for the names.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.changes.diff_parse import DiffLine
from perfkit.changes.hunks import FileCtx
from perfkit.changes.models import NameRole, RemovalShape, SkippedFile
from perfkit.changes.removal import defined_name, is_code, judge, net_lines
from perfkit.changes.revrange import Range
from perfkit.errors import InputError
from perfkit.guards import limits
from perfkit.repo import gitrepo

_CALL_RE = re.compile(r"(?<![\w$])([A-Za-z_]\w*)\s*\(")
_ASSIGN_RE = re.compile(r"^\s*(?:self\.)?([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]")
_COMMON = set(
    """
print len range isinstance issubclass str int float dict list set tuple super getattr setattr hasattr type min max
sum any all zip enumerate open format sorted reversed bool repr iter next map filter self cls append extend get items
keys values pop update join split strip startswith endswith replace lower upper copy clone item size view reshape
sizeof static_cast dynamic_cast reinterpret_cast const_cast decltype return assert lambda not and for while with
elif else except raise yield await async import from pass none true false null nullptr new delete this void auto
""".split()
)


@dataclass
class Block:
    ctx: FileCtx
    lines: list[DiffLine]
    shape: RemovalShape
    confidence: float
    line_sha: dict[int, str] = field(default_factory=dict)


MAX_PATHS = 1_000  # paths named in one call: each is matched against every changed file
MAX_BLAMED_FILES = 2_000  # files blamed in one call: one git blame each


def check_paths(r: Range, paths: list[str] | None) -> list[str] | None:
    """The paths, cleaned and each once, all checked in one git call; a path neither side has is refused."""
    if paths is None:
        return None
    out: list[str] = []
    for p in paths:
        limits.check_argument(p or "", "paths", limits.MAX_PATH_CHARS)
        q = (p or "").strip()
        while q.startswith("./"):
            q = q[2:]
        q = q.rstrip("/")
        # a name may start with '-' ('-rf.py'): every git call takes paths after '--'
        if not q or q.startswith("/") or ".." in q.split("/") or "\0" in q or "\n" in q:
            raise InputError(
                "paths",
                f"'{p}' is not a path inside the repository",
                "pass paths relative to the repository root, for example 'src/model.py'",
            )
        out.append(q)
    out = list(dict.fromkeys(out))
    if len(out) > MAX_PATHS:
        raise InputError(
            "paths",
            f"names {len(out):,} different paths, more than the {MAX_PATHS:,} perfkit takes in one call",
            "name the folders that hold them instead, or leave paths out to blame every file",
        )
    found = existing(r.repo, r.base, out) | existing(r.repo, r.head, out)
    for q in out:
        if q not in found:
            raise InputError(
                "paths",
                f"'{q}' exists neither at base nor at head",
                "check the spelling with `git ls-tree -r --name-only <base>`",
            )
    return out


def _selected(c: FileCtx, paths: list[str] | None) -> bool:
    if paths is None:
        return True
    return any(x == p or x.startswith(p + "/") for p in paths for x in (c.diff.path, c.diff.old_path))


def removed_blocks(
    ctxs: list[FileCtx], paths: list[str] | None, include_modified: bool, skipped: list[SkippedFile]
) -> list[Block]:
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
                blocks.append(Block(c, lines, verdict.shape, verdict.confidence))
            elif include_modified:
                blocks.append(Block(c, lines, "lines", 0.5))
    return blocks


def line_ranges(numbers: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(set(numbers)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


@dataclass
class Porcelain:
    line_sha: dict[int, str] = field(default_factory=dict)
    meta: dict[str, dict[str, str]] = field(default_factory=dict)


def crossed_renames(repo: Path, blamed: dict[str, Porcelain]) -> set[str]:
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
        out = gitrepo.git_paths(
            repo,
            "log",
            "--no-walk=unsorted",
            "--format=%x01%H",
            "-M",
            "--diff-filter=R",
            "--name-status",
            "-z",
            *origins,
            "--",
        )
        sha = ""
        for tok in out.split("\0"):
            tok = tok.strip("\n")
            if tok.startswith("\x01"):
                sha = tok[1:]
            elif tok in origins.get(sha, ()):
                suspect.add(tok)
    return suspect


def blame_lines(repo: Path, base: str, path: str, numbers: list[int], revs_file: Path | None = None) -> Porcelain:
    """One `git blame --porcelain` over exactly these lines of path at base (whitespace changes ignored)."""
    args = ["blame", "--porcelain", "--no-textconv", "-w"]
    if revs_file is not None:
        args += ["-S", str(revs_file)]
    for a, b in line_ranges(numbers):
        args += ["-L", f"{a},{b}"]
    out = gitrepo.git_paths(repo, *args, base, "--", path)
    res = Porcelain()
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


def commit_infos(repo: Path, shas: list[str]) -> dict[str, gitrepo.CommitInfo]:
    if not shas:
        return {}
    fmt = "%x1e%H%x1f%s%x1f%an%x1f%ae%x1f%aI%x1f%P%x1f%B"
    out = gitrepo.git_paths(repo, "log", "--no-walk=unsorted", f"--format={fmt}", *shas, "--")
    infos = {}
    for rec in out.split("\x1e")[1:]:
        h, subject, an, ae, date, parents, body = rec.split("\x1f", 6)
        infos[h] = gitrepo.CommitInfo(h, subject, body.strip(), an, ae, date, tuple(parents.split()))
    return infos


def touched_files(repo: Path, shas: list[str]) -> dict[str, list[tuple[str, str]]]:
    """(status letter, path) of every file each commit changed (a merge: against its first parent)."""
    if not shas:
        return {}
    out = gitrepo.git_paths(
        repo,
        "log",
        "--no-walk=unsorted",
        "--format=%x01%H",
        "--name-status",
        "-z",
        "--diff-merges=first-parent",
        *shas,
        "--",
    )
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


def existing(repo: Path, rev: str, paths: list[str]) -> set[str]:
    paths = [p for p in dict.fromkeys(paths) if "\n" not in p]
    if not paths:
        return set()
    out = gitrepo.git_paths(repo, "cat-file", "--batch-check", input="".join(f"{rev}:{p}\n" for p in paths))
    return {p for p, line in zip(paths, out.split("\n"), strict=False) if not line.endswith(" missing")}


def merge_owners(repo: Path, base: str) -> dict[str, str]:
    """For every commit off base's first-parent line, the merge on that line that brought it in.

    One listing of the history, then one walk: merges are visited oldest first and each claims
    the commits it reaches that no older merge or main-line commit already holds.
    """
    parents: dict[str, list[str]] = {}
    for line in gitrepo.git_paths(repo, "rev-list", "--parents", base, "--").split("\n"):
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


def names_in(blocks: list[Block]) -> dict[tuple[str, NameRole], list[str]]:
    found: dict[tuple[str, NameRole], list[str]] = {}
    for b in blocks:
        for d in b.lines:
            if not is_code(d.text):
                continue
            where = f"{b.ctx.diff.old_path}:{d.no}"
            text = re.sub(r"#.*$|//.*$", "", re.sub(r"\"[^\"]*\"|'[^']*'", '""', d.text))
            defined = defined_name(d.text)
            m = _ASSIGN_RE.match(text)
            defs = {n for n in (defined, m.group(1) if m else None) if n}
            for n in defs:
                found.setdefault((n, "defined"), []).append(where)
            for n in _CALL_RE.findall(text):
                if n not in defs:
                    found.setdefault((n, "referenced"), []).append(where)
    return {k: v for k, v in found.items() if len(k[0]) >= 3 and k[0].lower() not in _COMMON}
