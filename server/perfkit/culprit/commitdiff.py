"""Everything evaluate_culprit reads from a commit's diff, from one git process.

git prints the formats it is asked for in a fixed order: raw records and numstat records (both
NUL-separated under -z), then the --stat text (whose last line is the shortstat), then the patch.
One process instead of five is most of what makes evaluate_culprit quick (bench/bench_culprit.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from perfkit.culprit.models import FileChange
from perfkit.repo import gitrepo

_NUMSTAT = re.compile(r"(?:\d+|-)\t(?:\d+|-)\t")
_PATCH_START = "\0diff --git "


@dataclass(frozen=True)
class CommitDiff:
    files: list[FileChange]
    links: dict[str, tuple[str | None, str | None]]  # moved gitlink path -> (old, new); None where absent
    stat: str  # the shortstat line, or "no changes"
    stat_text: str  # `git diff --stat` as a person reads it
    patch: str  # unified diff, -U3; gitlinks appear as 'Subproject commit' lines


def commit_diff(repo: Path, base: str, commit: str) -> CommitDiff:
    out = gitrepo.git(
        repo,
        *("diff", "--no-textconv", "--no-renames", "--no-abbrev", "--no-color", "--no-ext-diff"),
        *("--raw", "--numstat", "--stat=100,70", "--stat-count=60", "-p", "-U3", "-z", base, commit),
    )
    parts = out.split("\0")
    raw: list[tuple[str, str]] = []
    i = 0
    while i + 1 < len(parts) and parts[i].startswith(":"):
        raw.append((parts[i], parts[i + 1]))
        i += 2
    counts: dict[str, tuple[int | None, int | None]] = {}
    while i < len(parts) and _NUMSTAT.match(parts[i]):
        a, d, path = parts[i].split("\t", 2)
        counts[path] = (None if a == "-" else int(a), None if d == "-" else int(d))
        i += 1
    rest = "\0".join(parts[i:])
    cut = rest.find(_PATCH_START)
    stat_text, patch = (rest, "") if cut < 0 else (rest[:cut], rest[cut + 1 :])
    stat_text = stat_text.rstrip()
    files: list[FileChange] = []
    links: dict[str, tuple[str | None, str | None]] = {}
    for meta, path in raw:
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].split()
        sub = "160000" in (old_mode, new_mode)
        if sub:
            links[path] = (old_sha if old_mode == "160000" else None, new_sha if new_mode == "160000" else None)
        added, deleted = (None, None) if sub else counts.get(path, (None, None))
        files.append(FileChange(path=path, status=status[0], added=added, deleted=deleted, is_submodule=sub))
    stat = stat_text.splitlines()[-1].strip() if stat_text else "no changes"
    return CommitDiff(files, links, stat, stat_text, patch)
